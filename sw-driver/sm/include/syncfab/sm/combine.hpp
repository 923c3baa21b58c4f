#pragma once
// A multicast tree read as a combine tree (DESIGN section 5c,
// docs/group-barrier.md "The switch's combine unit"): at every switch of the
// tree, the ports towards the members (children: member HCAs and child
// switches) and the port towards the root switch (parent). The subnet
// manager programs these next to the MFT entries, from the same tree, so
// the two always agree.
#include <span>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/multicast.hpp"

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

}  // namespace syncfab::sm
