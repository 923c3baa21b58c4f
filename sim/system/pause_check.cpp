#include "pause_check.hpp"

#include <algorithm>
#include <utility>

#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::system {

NicPauseCheck::NicPauseCheck(std::string nic, const Link& link, const Port& port, unsigned tc,
                             bool enabled, unsigned cycles_per_quantum, bool class_only)
    : nic_(std::move(nic)),
      link_(link),
      port_(port),
      tc_(tc),
      enabled_(enabled),
      cpq_(cycles_per_quantum),
      class_only_(class_only) {}

void NicPauseCheck::cycle(std::uint64_t now) {
  const DirEvents& out = link_.events_from(port_);
  if (out.started && now >= paused_from_ && now <= paused_to_ &&
      (!class_only_ || out.started->prio() == tc_)) {
    TB_CHECK(false) << nic_ << " started a " << fmt::to_string(out.started->pkt_type())
                    << " in cycle " << now << ", paused in cycles " << paused_from_ << " .. "
                    << paused_to_;
  }
  const DirEvents& in = link_.events_to(port_);
  if (!enabled_ || !in.pfc_taken || ((in.pfc_taken->class_enable() >> tc_) & 1U) == 0) {
    return;
  }
  const std::uint64_t q = in.pfc_taken->quanta(tc_);
  // The pause runs from the edge that ends this cycle (the NIC's pfc_rx
  // loads its timer there); a resume ends one at that edge.
  if (now < paused_to_) {
    paused_cycles_ -= paused_to_ - now;
  }
  if (q != 0) {
    ++pauses_;
    paused_from_ = now + 1;
    paused_to_ = now + q * cpq_;
    paused_cycles_ += q * cpq_;
  } else {
    paused_to_ = std::min(paused_to_, now);
  }
}

}  // namespace syncfab::tb::system
