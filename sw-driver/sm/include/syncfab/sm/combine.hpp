#pragma once
// A multicast tree read as a combine tree (DESIGN section 5c,
// docs/group-barrier.md "The switch's combine unit"): at every switch of the
// tree, the ports towards the members (children: member HCAs and child
// switches) and the port towards the root switch (parent). The subnet
// manager programs these next to the MFT entries, from the same tree, so
// the two always agree.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::sm {

struct CombineNode {
  SwitchIdx sw = kNoSwitch;
  bool root = false;
  PortNum parent = 0;             // 0 at the root
  std::vector<PortNum> children;  // sorted
  int depth = 0;                  // hops from the root switch
};

// One node per switch of `tree`, in breadth-first order from the root.
// std::invalid_argument naming the switch and port when the tree is not a
// tree spanning the group from tree.root: a tree port that leads to nothing,
// to a switch outside the tree or to one reached twice (a loop), a switch of
// the tree not reached from the root, or a member whose attach port is not
// in its switch's entry.
std::vector<CombineNode> combine_tree(const Fabric& fabric, const Group& group, const McTree& tree);

// Ring mode (docs/group-barrier.md "Ring mode"): the switches of a torus
// combine along each dimension's rings in turn. Phase j runs on the j-th
// dimension of size > 1 (`dim`); the geometry is that of the switch's ring
// of that dimension (plus/minus = the ports 2 dim + 1 / 2 dim + 2 of the
// torus_layout port plan, pos = the switch's coordinate, len = the ring's
// switches).
struct RingPhase {
  bool valid = false;  // the switch's ring of this phase carries shares
  int dim = 0;         // torus dimension the phase runs on
  PortNum plus = 0;
  PortNum minus = 0;
  int pos = 0;
  int len = 0;
  bool origin = false;       // the switch sends its own share
  std::uint32_t expect = 0;  // ring positions whose shares the switch waits for
};

struct RingCombineNode {
  SwitchIdx sw = kNoSwitch;
  std::vector<PortNum> children;  // the member HCAs' ports, sorted (maybe none)
  int phases = 0;                 // the control word's PHASES, the same on every switch
  std::array<RingPhase, fmt::kCombPhases> phase{};
};

// One node per switch that has members or a valid phase, in switch order;
// the others get no entry. FabricError naming the value when the torus has
// no dimension of size > 1, more than COMB_PHASES of them, or a ring longer
// than COMB_RING_MAX; std::invalid_argument naming the member when a member
// is not attached to a switch of the torus, or the group is empty.
std::vector<RingCombineNode> combine_rings(const Fabric& fabric, const TorusLayout& layout,
                                           const Group& group);

}  // namespace syncfab::sm
