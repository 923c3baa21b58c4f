// The dynamic-ECN controllers of every egress queue (docs/switch-ecn-dynamic.md):
// one clock edge per cycle, after this cycle's enqueues and PFC events.
#include <algorithm>

#include "syncfab/model/switch_model.hpp"

namespace syncfab::model {

void SwitchModel::set_ecn_dyn(const EcnDynConfig& cfg) {
  cfg.validate();
  write_ecn_dyn_config(csr_, cfg);
  ecn_dyn_ = cfg;
}

std::uint32_t SwitchModel::ecn_status(unsigned port, unsigned q, bool state) const {
  const EcnController& c = out_[port].ecn[q];
  const WredConfig& stat = cfg_.port[port].wred[q];
  return state ? c.status_state(ecn_dyn_.on(q), stat) : c.status_k(ecn_dyn_.on(q), stat);
}

void SwitchModel::ecn_cycle(std::span<const std::array<std::uint32_t, fmt::kNumPrio>> qlen) {
  const bool last = EcnController::window_end(ecn_win_cnt_, ecn_dyn_.win);
  for (unsigned o = 0; o < ports(); ++o) {
    OutPort& op = out_[o];
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      const EcnCtrlInputs in{std::min<std::uint32_t>(qlen[o][q], 0xFFFFU), op.ecn_enq[q],
                             (op.ecn_pause >> q & 1U) != 0};
      op.ecn[q].step(ecn_dyn_.on(q), last, ecn_dyn_, in, cfg_.port[o].wred[q]);
    }
    op.ecn_enq.fill(0);
    op.ecn_pause = 0;
  }
  // §2: the counter rests at 1 while the law is off for every queue.
  constexpr std::uint32_t kMask = (std::uint32_t{1} << EcnDynConfig::kCounterBits) - 1;
  ecn_win_cnt_ = ecn_dyn_.enable == 0 ? 1U : (ecn_win_cnt_ + 1U) & kMask;
}

}  // namespace syncfab::model
