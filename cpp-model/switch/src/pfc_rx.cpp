#include "syncfab/model/pfc_rx.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::model {

PfcRx::PfcRx(PfcRxParams params) : params_(params) {
  if (params_.num_prio < 1 || params_.num_prio > kPfcMaxPrio) {
    throw std::invalid_argument("pfc_rx: NumPrio = " + std::to_string(params_.num_prio) +
                                " is outside 1.." + std::to_string(kPfcMaxPrio));
  }
  if (params_.cpq_w < 1 || params_.cpq_w > 32) {
    throw std::invalid_argument("pfc_rx: CpqW = " + std::to_string(params_.cpq_w) +
                                " is outside 1..32");
  }
  all_ = (std::uint64_t{1} << params_.num_prio) - 1;
}

void PfcRx::check(const PfcRxInputs& in) const {
  if (in.quanta.size() != params_.num_prio) {
    throw std::invalid_argument("pfc_rx: quanta needs " + std::to_string(params_.num_prio) +
                                " entries (NumPrio)");
  }
  if (((in.enable | in.class_enable | in.ignore) & ~all_) != 0) {
    throw std::out_of_range("pfc_rx: enable/class_enable/ignore names a priority >= NumPrio");
  }
  if (params_.cpq_w < 32 && (in.cyc_per_quantum >> params_.cpq_w) != 0) {
    throw std::out_of_range("pfc_rx: cyc_per_quantum " + std::to_string(in.cyc_per_quantum) +
                            " overflows CpqW");
  }
  // The spec's assertion: a frame is always taken, so it is checked on every
  // valid frame (whether or not a class of it hits an enabled priority).
  if (in.frame_valid && in.cyc_per_quantum == 0) {
    throw std::invalid_argument("pfc_rx: a frame taken with cyc_per_quantum 0");
  }
}

PfcRxCycle PfcRx::decide(const PfcRxInputs& in) const {
  check(in);
  PfcRxCycle c;
  for (unsigned p = 0; p < params_.num_prio; ++p) {
    const std::uint64_t bit = std::uint64_t{1} << p;
    const bool en = (in.enable & bit) != 0;
    const bool hit = in.frame_valid && (in.class_enable & bit) != 0 && en;
    const bool xoff = timer_[p] != 0;
    std::uint64_t d = 0;
    if (!en) {
      d = 0;
    } else if (hit) {
      d = std::uint64_t{in.quanta[p]} * in.cyc_per_quantum;  // exact in 16 + CpqW bits
    } else if (xoff) {
      d = timer_[p] - 1;
    }
    c.timer_d[p] = d;
    c.hit |= hit ? bit : 0;
    c.out.xoff |= xoff ? bit : 0;
    c.out.stop |= xoff && (in.ignore & bit) == 0 ? bit : 0;
    c.out.evt_xoff_rx |= hit && in.quanta[p] != 0 ? bit : 0;
    c.out.evt_xon_rx |= hit && in.quanta[p] == 0 ? bit : 0;
  }
  return c;
}

PfcRxOutputs PfcRx::step(const PfcRxInputs& in) {
  const PfcRxCycle c = decide(in);
  timer_ = c.timer_d;
  return c.out;
}

}  // namespace syncfab::model
