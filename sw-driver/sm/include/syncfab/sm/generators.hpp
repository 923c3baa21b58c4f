#pragma once
// Fabric generators for the FULB-MC paper's evaluation fabrics. End nodes are
// created in rank order: consecutive end nodes sit on the same or neighbouring
// switches, which is what topology-aware rank placement uses.
#include <string_view>

#include "syncfab/sm/fabric.hpp"

namespace syncfab::sm {

// k-port n-tree (Petrini/Lin): 2(k/2)^n end nodes, (2n-1)(k/2)^(n-1)
// switches; the top level uses all k ports downwards. One shortest path joins
// a leaf to a given top switch. 40 ports, 3 levels: 16,000 end nodes.
struct FatTreeSpec {
  int ports = 40;
  int levels = 3;
  // false: no LIDs, for fabrics past the unicast LID space that tools route
  // by switch index (the event-driven golden fabric at 100,000 end nodes).
  bool lids = true;
};
Fabric make_fat_tree(const FatTreeSpec& spec);

// Pruned three-level fat tree (derivation: sw-driver/sm/README.md). A pod is
// `leaves_per_pod` leaf switches with `nodes_per_leaf` end nodes each and one
// up-link to each of the pod's `l2_per_pod` second-level switches (planes).
// Plane j's second-level switches join the plane's `tops_per_plane` top
// switches, each over `paths` parallel links: exactly `paths` shortest paths
// join a leaf to any top switch, and the choice among them is made where the
// shared links are.
struct PrunedFatTreeSpec {
  int pods = 17;
  int leaves_per_pod = 16;
  int nodes_per_leaf = 32;
  int l2_per_pod = 4;
  int tops_per_plane = 2;
  int paths = 8;
};
// Sunway BlueLight as the paper describes it: 8 paths, 8,704 end nodes
// (17 pods of 512). Sunway TaihuLight: 2 paths, 40,960 end nodes (80 pods).
PrunedFatTreeSpec bluelight_spec();
PrunedFatTreeSpec taihulight_spec();
Fabric make_pruned_fat_tree(const PrunedFatTreeSpec& spec);

// 3D torus of switches with `nodes_per_switch` end nodes each. Ports 1..6 are
// +x,-x,+y,-y,+z,-z; end nodes on ports 7... A dimension of size 1 has no
// links (so 2D tori are X x Y x 1). lids = false leaves LIDs unassigned, for
// tori past the unicast LID space that only the event-driven model walks.
struct TorusSpec {
  int x = 30;
  int y = 20;
  int z = 20;
  int nodes_per_switch = 2;
  bool lids = true;
};
Fabric make_torus(const TorusSpec& spec);

// Dragonfly (Kim et al.): a*h+1 groups of a fully connected switches; every
// switch has p end nodes, a-1 local and h global links; every pair of groups
// is joined by exactly one global link. Ports: 1..p end nodes, p+1..p+a-1
// local (to the other switches in index order), then the h global ports.
struct DragonflySpec {
  int a = 18;
  int p = 9;
  int h = 9;
};
Fabric make_dragonfly(const DragonflySpec& spec);

// A generator from a text spec, defaults = the paper's fabrics:
//   fattree[:ports=40,levels=3]
//   pruned[:paths=8|2 (presets), pods=,leaves=,nodes=,l2=,tops=]
//   torus[:x=30,y=20,z=20,nodes=2]      dragonfly[:a=18,p=9,h=9]
// Throws FabricError naming the bad key or value.
Fabric make_fabric(std::string_view spec);

}  // namespace syncfab::sm
