#pragma once
// Credit-loop checker: the channel dependency graph (Dally & Seitz) of a set
// of unicast tables, per virtual lane, and a cycle search. A channel is a
// directed switch-to-switch link; channel a depends on channel b on lane v
// when some packet holds a (on its lane) and asks for b on lane v. Links to
// end nodes are sinks and cannot close a loop.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/port_groups.hpp"

namespace syncfab::sm {

// Which lane a packet uses on each channel. Empty functions: everything on
// lane 0. `first`: lane on the first switch-to-switch channel of a path from
// switch src to LID dst (leaving by port out). `next`: lane on the channel out
// of `out` at switch `at`, given the lane `vl` it arrived on over port `in`
// (a switch's SL2VL-like step; per-path lanes such as LASH's keep vl).
//
// Requirement: the lanes depend on the destination only through its switch
// (the switch of a switch LID, Fabric::attach_switch of an end node's). The
// checker walks the LIDs of one switch whose tables agree on every switch
// (entries that leave the switch-to-switch fabric counted as one) only once,
// so a lane that tells such LIDs apart is not seen. DOR's dateline lanes do
// not look at the destination, LASH's look at its switch only. The functions
// may be called from two threads at once (see threads below): no mutable
// state.
struct VlAssignment {
  int lanes = 1;
  std::function<std::uint8_t(SwitchIdx src, Dest dst, PortNum out)> first;
  std::function<std::uint8_t(SwitchIdx at, PortNum in, PortNum out, std::uint8_t vl, Dest dst)>
      next;
  // Promises that `first` / `next` ignore their dst argument: the checker then
  // evaluates them once per (switch, ports, lane) into a table instead of per
  // hop (they must not throw for any port pair of a switch).
  bool first_ignores_dst = false;
  bool next_ignores_dst = false;
};

struct CdgLink {
  NodeId from = kNoNode;
  PortNum out = 0;
  NodeId to = kNoNode;
  PortNum in = 0;
  std::uint8_t vl = 0;
};

struct CreditLoopReport {
  bool acyclic = true;
  std::size_t channels = 0;      // (channel, lane) nodes with a dependency
  std::size_t dependencies = 0;  // edges of the graph
  std::vector<CdgLink> cycle;    // when cyclic: the links of one cycle, in order
  // "a:1 -> b:2 (VL0), b:3 -> c:1 (VL0), ..." or "acyclic".
  [[nodiscard]] std::string describe(const Fabric& fabric) const;
};

// Builds the graph from the traffic of every switch with an end node (or of
// every switch when all_switch_sources) to every LID and searches a cycle.
// Lanes returned outside 0..lanes-1 throw FabricError. threads: 0 = up to two
// on large fabrics (the graph is the same for any count).
CreditLoopReport check_credit_loops(const Lft& lft, const VlAssignment& vls = {},
                                    bool all_switch_sources = false, int threads = 0);

// The same with port groups: an entry naming a group may leave on any of its
// members except the port the packet came in on (the switch never picks it),
// so the channel it arrived on depends on each of them. Walks every
// destination from every source over all those branches (once for the LIDs
// of one switch whose entries agree everywhere; threads as above). Groups
// with no entries naming them (or groups == nullptr) give the same report as
// above.
CreditLoopReport check_credit_loops(const Lft& lft, const PortGroups* groups,
                                    const VlAssignment& vls = {}, bool all_switch_sources = false,
                                    int threads = 0);

}  // namespace syncfab::sm
