#pragma once
// A lower bound of the max EFI that any set of multicast trees must reach
// (DESIGN.md 5b), from cut arguments: how far an engine's max EFI is from the
// best any tree set could do is at most its ratio to this bound.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::sm {

// One set S of switches and what it proves (the two arguments at
// efi_lower_bound): `crossing` groups have a member switch inside S and one
// outside, `boundary` switch-to-switch links have exactly one end in S,
// `inner` both; the trees need at least `demand` links with an end in S.
// bound = max(ceil(crossing / boundary), ceil(demand / (inner + boundary))).
// The contracted families count on the fabric with parts contracted: S is
// every switch, `inner` the links between different parts, `demand` the
// links between parts the trees need.
struct EfiCut {
  // "switch", "whole fabric", "tree sizes", "subtree", "local group",
  // "torus slab", "contracted subtree", "contracted local group"
  std::string family;
  std::string what;  // which set, in words (switch names, coordinates)
  std::size_t crossing = 0;
  std::size_t boundary = 0;
  std::size_t demand = 0;
  std::size_t inner = 0;
  std::uint32_t bound = 0;
  std::vector<SwitchIdx> switches;  // S, sorted
};

struct EfiBound {
  // Lower bound of the max EFI over directed switch-to-switch links.
  std::uint32_t switch_links = 0;
  // Lower bound of the max EFI over all directed links out of a switch
  // (switch-to-switch and switch-to-node): at least switch_links, and at
  // least the groups an end node belongs to, spread over its cabled ports.
  std::uint32_t all_links = 0;
  std::uint32_t end_node = 0;    // the end-node part of all_links
  std::string end_node_what;     // the end node reaching it
  EfiCut best;                   // the cut reaching switch_links (empty family if 0)
  std::vector<EfiCut> families;  // the best cut of each family that applied
  std::size_t cuts = 0;          // cuts evaluated
};

// Lower bound of the max EFI any trees can reach for these groups on this
// fabric, under DESIGN.md 5b: each group gets one connected tree of switches
// and switch-to-switch links spanning its member switches (the switches its
// end nodes hang off, Fabric::attach_switch), and every tree link carries the
// group in both directions (an MFT entry at both ends: McLoad counts the
// group on both directed links). The fabric is taken as connected
// (Fabric::ensure_connected): with no tree possible there is nothing to bound.
//
// The argument. For a set S of switches, a group with a member switch in S
// and one outside has a connected tree joining the two, so the tree holds at
// least one link with exactly one end in S, and uses it in both directions:
// in particular out of S. With c such groups and b links across S's boundary,
// the b directed links leaving S carry at least c group uses in total, so one
// of them carries >= ceil(c / b): max EFI >= ceil(c / b).
// The same S gives a second count: root each crossing group's tree at a
// member switch outside S; every tree switch inside S has its own parent
// link, which has an end in S, so the tree holds at least as many links
// touching S as it has member switches in S (one less for a group entirely
// inside S, rooted inside). With d = that sum over the groups and l = the
// links touching S (inner + boundary), the 2l directed links carry >= 2d
// group uses: max EFI >= ceil(d / l). For S = every switch this is the
// volume bound sum(member switches - 1) / links.
// The bound is the best such value over these families of S, all found from the fabric's
// structure (so they work on net files too):
//   - every single switch, and all switches together;
//   - "tree sizes" (with min-hop distances): all switches again, each group's
//     tree at least max(m - 1, half the sum of every member switch's distance
//     to its nearest other one, half the minimum spanning tree of the member
//     switches' distances) links: balls of half those nearest distances
//     around the members are disjoint and the tree runs that far inside
//     each; a walk around the tree visits every member in twice its length;
//   - "subtree": with level(s) = hops from s to the nearest switch with an end
//     node, the connected components of the switches below level t, for every
//     t up to the highest level (on a fat tree: the subtrees under each level,
//     pods under the top level);
//   - "local group": the components left after removing every switch link
//     that lies in no triangle (dragonfly_global_links; on a dragonfly the
//     switch groups);
//   - "torus slab": when every switch link joins port 2d+1 to port 2d+2 of
//     its neighbour (the generators' torus port plan) and the coordinates this
//     implies are consistent around every ring, every slab of consecutive
//     coordinates [a, a+w) of each dimension, w up to half the ring: the
//     bisections and everything thinner.
// Every subtree and local-group partition also gives "contracted <family>":
// all switches, each part contracted to one node. A group's tree maps to a
// connected subgraph over the nodes it touches, so it holds at least (parts
// it has members in + its member switches in no part - 1) links joining two
// different nodes; with d = that sum and l = the links joining different
// nodes, max EFI >= ceil(d / l) (on a dragonfly: the global links a group
// spread over k switch groups needs, k - 1 of them).
// For the switch-to-node links: every member end node is served by an entry
// on its switch's port towards it, so a node in g groups with p cabled ports
// puts >= ceil(g / p) on one of them.
//
// What it does not see: cuts outside these families (boxes of a torus, unions
// of pods or of dragonfly groups, arbitrary sets); that a tree crossing a cut
// may need more than one boundary link (a group in three pods needs three pod
// uplinks, the cut argument counts one per cut, the volume argument counts
// only member switches, not the switches a tree must pass through between
// them); interaction between cuts (an LP over all of them together could
// only be higher); and that the engines are held
// to shortest-path trees of minimal height, which the bound does not assume
// (it holds for any trees, so it can be below the best minimal-height set).
// Cost: O(members + switch links) per family, plus O(n^2 / 2) per group
// spanning more than one switch for each torus dimension of n switches, plus
// O(min(m, 1024)^2) distance lookups per group of m member switches for the
// tree sizes (past 1,024, an evenly spread 1,024 of them: a tree spanning all
// spans those).
// mh (optional): with the min-hop distances, also the "tree sizes" family.
EfiBound efi_lower_bound(const Fabric& fabric, std::span<const Group> groups,
                         const MinHop* mh = nullptr);

}  // namespace syncfab::sm
