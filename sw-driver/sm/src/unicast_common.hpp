#pragma once
// Shared by the unicast engines (not installed).
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"

namespace syncfab::sm::detail {

// LIDs grouped by the switch they sit on or hang off, in LID order.
struct LidsBySwitch {
  std::vector<std::uint32_t> offset;  // switch t's LIDs: lids[offset[t] .. offset[t+1])
  std::vector<Lid> lids;
};
LidsBySwitch lids_by_switch(const Fabric& f);

// Routes the LIDs that live on switch t at t itself: its own LID to port 0,
// an end node to the port it hangs off.
void route_local(const Fabric& f, SwitchIdx t, const LidsBySwitch& by, Lft& lft);

// Picks, among `candidates`, the port with the fewest LIDs so far (lowest
// port on a tie) and counts the LID on it.
PortNum pick_balanced(const std::vector<PortNum>& candidates, std::uint32_t* count);

}  // namespace syncfab::sm::detail
