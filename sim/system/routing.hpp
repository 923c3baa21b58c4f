// The subnet manager's results for a system fabric, computed and programmed
// as a user does it: a unicast engine by name (sm::unicast_engines(), the
// per-fabric default when unnamed) and a multicast engine (sm::mc_engines())
// on groups of a pattern, every tree and every NIC LID checked, then written
// into every switch through its own driver (program.hpp) and read back. On
// request the unicast engine also proposes port groups (ECMP or LAG,
// docs/switch-ecmp.md), programmed and read back with the LFT.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/unicast_engines.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

struct RoutingOptions {
  std::string unicast;                           // empty: sm::default_unicast of the fabric
  std::string mc = "FULB-MC";                    // empty: no multicast groups
  std::string groups = "random:count=8,size=5";  // sm::parse_pattern text
  std::uint64_t seed = 1;                        // of a random pattern, of unaware placement
  sm::Placement placement = sm::Placement::kAware;
  // Port groups of the unicast engine (MINHOP, UPDN, FTREE; kOff: none).
  sm::GroupMode group_mode = sm::GroupMode::kOff;
};

struct SystemRouting {
  std::string unicast;
  std::string mc;
  sm::UnicastRouting uc;
  sm::GroupSet groups;
  std::vector<sm::McTree> trees;  // per group
  sm::McLoad::Stats efi;          // of the trees together
};

// Throws std::invalid_argument naming the engine, the pattern, the switch
// that does not reach a NIC's LID or the group whose tree fails its check.
SystemRouting route_system(const sm::Fabric& smf, const RoutingOptions& opts);

// The multicast half of route_system: opts.mc (none when empty) on the
// groups of opts' pattern and seed, every tree checked, into r.
void route_groups(const sm::Fabric& smf, const sm::MinHop& mh, const RoutingOptions& opts,
                  SystemRouting& r);

// program_switches (with the routing's port groups, if any), then every LFT
// entry, port group and MFT entry read back over each switch's own bus
// (std::runtime_error naming the switch and the LID or group).
ProgramReport program_and_verify(SystemFabric& sys, const SystemRouting& routing);

}  // namespace syncfab::tb::system
