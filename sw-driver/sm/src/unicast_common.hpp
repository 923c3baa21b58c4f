#pragma once
// Shared by the unicast engines (not installed).
#include <span>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"

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

}  // namespace syncfab::sm::detail
