#pragma once
// Shared by the unicast engines (not installed).
#include <span>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/port_groups.hpp"

namespace syncfab::sm::detail {

// Destinations grouped by the switch they sit on or hang off, in index order.
struct LidsBySwitch {
  std::vector<std::uint32_t> offset;  // switch t's LIDs: lids[offset[t] .. offset[t+1])
  std::vector<Dest> lids;
};
LidsBySwitch lids_by_switch(const Fabric& f);

// Routes the LIDs that live on switch t at t itself: its own LID to port 0,
// an end node to the port it hangs off.
void route_local(const Fabric& f, SwitchIdx t, const LidsBySwitch& by, Lft& lft);

// Picks, among `candidates`, the port with the fewest destinations so far
// (lowest port on a tie) and counts the destination on it.
inline PortNum pick_balanced(const std::vector<PortNum>& candidates, std::uint32_t* count) {
  PortNum best = kNoRoute;
  for (PortNum p : candidates) {
    if (best == kNoRoute || count[p] < count[best] || (count[p] == count[best] && p < best)) {
      best = p;
    }
  }
  if (best != kNoRoute) {
    ++count[best];
  }
  return best;
}

// pick_balanced for each of `dests` in order, set on switch s.
inline void set_balanced(Lft& lft, SwitchIdx s, std::span<const Dest> dests,
                         const std::vector<PortNum>& candidates, std::uint32_t* count) {
  if (candidates.size() == 1) {
    for (const Dest d : dests) {
      lft.set(s, d, candidates[0]);
    }
    count[candidates[0]] += static_cast<std::uint32_t>(dests.size());
    return;
  }
  for (const Dest d : dests) {
    lft.set(s, d, pick_balanced(candidates, count));
  }
}

// Throws std::invalid_argument when groups are asked for without a place to
// put them.
void check_group_request(GroupMode mode, const PortGroups* groups);

// Proposes the group of entry (s, d) routed to `port` among `candidates`
// (ascending ports; peer[i] = the switch candidate i leads to): all of them
// for ECMP, those to port's switch for LAG. `scratch` keeps the LAG set.
inline void propose_group(PortGroups& groups, GroupMode mode, SwitchIdx s, Dest d, PortNum port,
                          std::span<const PortNum> candidates, std::span<const SwitchIdx> peer,
                          std::vector<PortNum>& scratch) {
  if (candidates.size() < 2) {
    return;
  }
  if (mode == GroupMode::kEcmp) {
    groups.propose(s, d, candidates);
    return;
  }
  SwitchIdx next = kNoSwitch;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i] == port) {
      next = peer[i];
    }
  }
  scratch.clear();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (peer[i] == next) {
      scratch.push_back(candidates[i]);
    }
  }
  groups.propose(s, d, scratch);
}

}  // namespace syncfab::sm::detail
