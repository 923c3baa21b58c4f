#pragma once
// Unicast routing engines (OpenSM's MINHOP, UPDN, DOR): they fill an Lft.
// All of them route every LID of the fabric from every switch; a switch's own
// LID goes to port 0, an end node hanging off the switch to its port.
#include <array>
#include <vector>

#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/port_groups.hpp"

namespace syncfab::sm {

// MINHOP: per switch, LIDs in order; among the ports on a shortest path the
// one that carries the fewest LIDs so far (lowest port on a tie), as
// OpenSM's osm_switch_recommend_path does with LMC 0. Not deadlock-free.
//
// MINHOP, UPDN and FTREE also propose port groups when `mode` is not kOff
// (into `groups`, which the caller finalizes): ECMP = every port on a
// minimum-hop path the engine allows (parallel links included), LAG = the
// parallel links to the switch the engine chose. The Lft is the same as
// without groups.
Lft route_minhop(const MinHop& mh, GroupMode mode = GroupMode::kOff, PortGroups* groups = nullptr);

// UPDN (Up*/Down*): switches ranked by BFS distance from `roots` (rank 0);
// a link is "up" when it leads to a lower (rank, GUID). Only up*down* paths
// are legal. Destination-based tables must keep every walk legal, so a switch
// that can reach the destination going down only routes down (shortest such
// path), every other switch goes up on a shortest legal path; ties balanced
// per port as MINHOP. Empty roots: the switches farthest from the end nodes
// (a fat tree's top level), or the first switch when every switch has end
// nodes. Entries with no legal path (e.g. top switch to top switch, as in
// OpenSM) stay kNoRoute; every switch with end nodes reaches every LID.
struct UpdnRanking {
  std::vector<SwitchIdx> roots;
  std::vector<std::uint32_t> rank;  // per switch
};
UpdnRanking updn_ranking(const MinHop& mh, std::vector<SwitchIdx> roots = {});
Lft route_updn(const MinHop& mh, const UpdnRanking& ranking, GroupMode mode = GroupMode::kOff,
               PortGroups* groups = nullptr);

// FTREE for fat trees (k-port n-trees, pruned fat trees): the same up*/down*
// legal paths as UPDN with the default ranking (so credit-loop free), but
// the port among equal candidates is chosen by destination index, not by
// load: end nodes are numbered in rank order and a switch h levels above
// the leaves takes candidate (index / c^h) mod c of its c candidates
// (d-mod-k), which makes every shift permutation i -> i+k contention free
// on a k-port n-tree, the pattern OpenSM's ftree optimises.
Lft route_ftree(const MinHop& mh, const UpdnRanking& ranking, GroupMode mode = GroupMode::kOff,
                PortGroups* groups = nullptr);

// Switches of a 3D torus built with make_torus's port plan (ports 2d+1 / 2d+2
// = +/- dimension d): coordinates recovered from the links, so a net file of
// such a torus works too. Throws FabricError when the links do not form that
// torus.
struct TorusLayout {
  std::array<int, 3> dims{1, 1, 1};
  std::vector<std::array<int, 3>> coord;  // per switch
};
TorusLayout torus_layout(const Fabric& fabric);

// DOR: x, then y, then z, each the short way round (+ on a tie).
Lft route_dor(const Fabric& fabric, const TorusLayout& layout);

// The dateline rule for DOR on a torus: 2 VLs; a packet starts every
// dimension on VL 0 and moves to VL 1 when it takes the dimension's wrap
// link (coordinate max -> 0 going +, 0 -> max going -).
VlAssignment dor_dateline_vls(const TorusLayout& layout);

// LASH (layered shortest path): every switch pair gets one shortest path
// (all LIDs of a switch routed alike, ports balanced as in MINHOP) and a
// lane: the first layer whose channel dependency graph stays acyclic with
// the path added. Cost grows with switches^2 x graph search: meant for
// fabrics of up to a few hundred switches.
struct LashRouting {
  Lft lft;
  std::vector<std::uint8_t> lane;  // [src switch * switches + dst switch]
  std::size_t switches = 0;
  int lanes = 1;
  // The lane of a packet = its (source switch, destination switch) lane.
  [[nodiscard]] VlAssignment vls() const;
};
// Throws FabricError when more than max_lanes lanes would be needed.
LashRouting route_lash(const MinHop& mh, int max_lanes = 8);

}  // namespace syncfab::sm
