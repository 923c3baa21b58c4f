#include "syncfab/model/pfc_tx.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::model {

namespace {

std::uint64_t ones(unsigned w) { return w >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1; }

void check_width(const char* what, unsigned v, unsigned lo, unsigned hi) {
  if (v < lo || v > hi) {
    throw std::invalid_argument("pfc_tx: " + std::string(what) + " = " + std::to_string(v) +
                                " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  }
}

}  // namespace

PfcTx::PfcTx(PfcTxParams params) : params_(params) {
  check_width("NumPrio", params_.num_prio, 1, kPfcMaxPrio);
  check_width("OccW", params_.occ_w, 1, 32);
  check_width("RefW", params_.ref_w, 1, 32);
  all_ = ones(params_.num_prio);
  ref_max_ = static_cast<std::uint32_t>(ones(params_.ref_w));
}

void PfcTx::reset() noexcept {
  xoff_ = 0;
  pend_ = 0;
  ref_.fill(0);
}

void PfcTx::check(const PfcTxInputs& in) const {
  const unsigned n = params_.num_prio;
  if (in.occ.size() != n || in.xoff_thr.size() != n || in.xon_thr.size() != n ||
      in.quanta.size() != n) {
    throw std::invalid_argument("pfc_tx: occ/xoff_thr/xon_thr/quanta need " + std::to_string(n) +
                                " entries (NumPrio)");
  }
  if ((in.enable & ~all_) != 0) {
    throw std::out_of_range("pfc_tx: enable names a priority >= NumPrio");
  }
  if (in.refresh > ref_max_) {
    throw std::out_of_range("pfc_tx: refresh " + std::to_string(in.refresh) + " overflows RefW");
  }
  const std::uint64_t occ_max = ones(params_.occ_w);
  for (unsigned p = 0; p < n; ++p) {
    if (in.occ[p] > occ_max || in.xoff_thr[p] > occ_max || in.xon_thr[p] > occ_max) {
      throw std::out_of_range("pfc_tx: priority " + std::to_string(p) +
                              " occ/xoff_thr/xon_thr overflow OccW");
    }
  }
}

PfcTxCycle PfcTx::decide(const PfcTxInputs& in) const {
  check(in);
  PfcTxCycle c;
  PfcTxOutputs& o = c.out;
  o.frame_valid = pend_ != 0;
  o.class_enable = pend_;
  o.xoff = xoff_;
  for (unsigned p = 0; p < params_.num_prio; ++p) {
    const std::uint64_t bit = std::uint64_t{1} << p;
    const bool en = (in.enable & bit) != 0;
    const bool xoff_q = (xoff_ & bit) != 0;
    const bool pend_q = (pend_ & bit) != 0;
    // Step 1 (hysteresis: the test depends on the current pause state).
    const bool xoff_d =
        xoff_q ? en && !(in.occ[p] < in.xon_thr[p]) : en && in.occ[p] >= in.xoff_thr[p];
    // Frame (from state; quanta_i passes through combinationally).
    o.frame_quanta[p] = pend_q && xoff_q ? in.quanta[p] : std::uint16_t{0};
    // Steps 2-5.
    const bool sent = o.frame_valid && in.frame_ready && pend_q;
    // The frame leaving this cycle is the refresh: ref_q restarts only at the
    // edge, so without !sent every refresh would go out twice.
    const bool due = xoff_q && in.refresh != 0 && ref_[p] >= in.refresh - 1 && !sent;
    const bool pend_d = (pend_q && !sent) || (xoff_d != xoff_q) || due;
    std::uint32_t ref_d = 0;
    if (xoff_d && xoff_q && !sent) {
      ref_d = ref_[p] == ref_max_ ? ref_max_ : ref_[p] + 1;
    }
    if (sent) {
      (o.frame_quanta[p] != 0 ? o.evt_xoff_tx : o.evt_xon_tx) |= bit;
      c.sent |= bit;
    }
    c.due |= due ? bit : 0;
    c.xoff_d |= xoff_d ? bit : 0;
    c.pend_d |= pend_d ? bit : 0;
    c.ref_d[p] = ref_d;
  }
  return c;
}

PfcTxOutputs PfcTx::step(const PfcTxInputs& in) {
  const PfcTxCycle c = decide(in);
  xoff_ = c.xoff_d;
  pend_ = c.pend_d;
  ref_ = c.ref_d;
  return c.out;
}

}  // namespace syncfab::model
