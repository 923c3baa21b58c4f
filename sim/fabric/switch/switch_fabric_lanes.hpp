// The subnet manager's virtual lanes as switch_top PFC priorities.
//
// The SM describes lanes as an sm::VlAssignment over its unicast tables: the
// lane of a packet's first switch-to-switch channel (`first`) and how a
// switch changes it (`next`). switch_top has no SL2VL table; what it has is
// the priority the sender puts in the header and the hook-flow remap (a
// packet that enters AND leaves through ports of REMAP_CTRL.UPLINK_MASK gets
// priority REMAP[prio]). So a lane assignment is realisable exactly when
//  - the host can pick the first lane: it depends only on (source switch,
//    destination), true of every VlAssignment since `first` has no other input;
//  - per switch, one port group U and one map R reproduce every lane change:
//    every (in, out, lane a -> b) with a != b has in, out in U and R[a] = b,
//    and every (in, out, lane a -> a) with in, out in U has R[a] = a.
// LASH keeps its lane along the path (no remap at all). DOR's dateline on a
// ring puts a packet on lane 1 at the switch before the wrap link in its
// direction (coordinate max going +, 0 going -): a packet starting there is
// sent on lane 1 by its host, and every lane-0 packet passing through goes
// that way, so a remap at those two switches is exact. On a torus of two or
// more dimensions a switch's lane changes depend on more than the remap
// sees (both ports in the group, and the priority): a turn onto a new
// dimension goes to lane 0, or to lane 1 when it takes that dimension's
// wrap link, while a straight hop keeps its lane; plan_lanes refuses it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "switch_fabric.hpp"
#include "syncfab/driver/switch.hpp"
#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"

namespace syncfab::tb::swfab {

// The DSCP a packet of priority p carries (class selector CSp), at the host
// and after a remap, so the header stays self-consistent.
std::uint8_t lane_dscp(unsigned prio);

class LanePlan {
 public:
  // Lane l travels on priority lane_prio()[l].
  [[nodiscard]] std::span<const unsigned> lane_prio() const { return lane_prio_; }
  [[nodiscard]] int lanes() const { return static_cast<int>(lane_prio_.size()); }
  // Bit p set = priority p carries a lane (the priorities to make lossless).
  [[nodiscard]] std::uint8_t prio_mask() const;
  // Switch s's remap (enable false: the switch changes no lane).
  [[nodiscard]] const driver::RemapConfig& remap(sm::SwitchIdx s) const { return remap_.at(s); }
  [[nodiscard]] std::size_t switch_count() const { return remap_.size(); }
  // Switches with an enabled remap.
  [[nodiscard]] std::vector<sm::SwitchIdx> remap_switches() const;
  // The priority an end node on switch `src` sends a packet for `dst` on.
  [[nodiscard]] unsigned prio(sm::SwitchIdx src, sm::Lid dst) const;
  // The same for harness host h (SM end node hcas()[h]).
  [[nodiscard]] unsigned host_prio(const sm::Fabric& smf, unsigned host, sm::Lid dst) const;
  // The lanes the programmed hardware gives: `first` = the lane of the
  // priority hosts are told, `next` = switch_top's hook-flow rule applied to
  // the remap registers (lanes = priorities mapped back). This, not the SM's
  // assignment, is what the credit-loop checker must find acyclic. A remap
  // onto a priority that is no lane throws std::invalid_argument.
  [[nodiscard]] sm::VlAssignment realised() const;

 private:
  friend LanePlan plan_lanes(const sm::Lft& lft, const sm::VlAssignment& vls,
                             std::span<const unsigned> lane_prio);
  std::vector<unsigned> lane_prio_;
  std::vector<driver::RemapConfig> remap_;  // per switch
  std::size_t lid_count_ = 0;
  std::vector<std::uint8_t> first_;  // [src switch * lid_count + LID] lane
};

// Walks every table path from every switch with an end node to every LID,
// collects each switch's lane changes and solves them for a remap. Throws
// std::invalid_argument naming the value when vls has more lanes than
// lane_prio gives, a priority is out of range or used twice, or a switch's
// lane changes cannot be one hook-flow remap (the switch, ports and lanes).
LanePlan plan_lanes(const sm::Lft& lft, const sm::VlAssignment& vls,
                    std::span<const unsigned> lane_prio);

// Programs every switch through its driver: PFC `lossless` on every lane
// priority of every connected port (configure_pfc_all, the driver checks the
// buffer holds every lane's XOFF + headroom) and each switch's remap.
void program_lanes(Fabric& f, const LanePlan& plan, const driver::PfcTiming& timing,
                   const driver::PfcPriority& lossless, unsigned max_pkt_flits);

}  // namespace syncfab::tb::swfab
