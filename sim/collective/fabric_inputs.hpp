// The event-driven golden fabric's inputs (cpp-model/collective) from the
// subnet manager's view: an sm::Fabric as a Topology (end node i = the
// fabric's i-th HCA, switch s = SwitchIdx s, the same port numbers), and a
// group's multicast tree, computed by one of the SM's engines and read as a
// combine tree by sm::combine_tree as the system fabric programs it
// (sim/system/combine_program.cpp), as a GroupTree; on a torus, a group's
// ring-mode entries (sm::combine_rings) as GroupRings.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "syncfab/model/collective/collective_model.hpp"
#include "syncfab/model/collective/inputs.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::tb::collective {

namespace cm = syncfab::model::collective;

// Every link `delay` cycles. std::invalid_argument naming an HCA that hangs
// off no switch.
cm::Topology to_topology(const sm::Fabric& fabric, std::uint32_t delay);

// The fabric as the model sees it, with what the adapter needs to map back.
class FabricInputs {
 public:
  FabricInputs(const sm::Fabric& fabric, std::uint32_t delay);

  [[nodiscard]] const sm::Fabric& fabric() const { return fabric_; }
  [[nodiscard]] cm::Network& network() { return *net_; }
  [[nodiscard]] std::size_t nodes() const { return fabric_.hca_count(); }
  [[nodiscard]] std::uint32_t delay() const { return delay_; }

  // The switch-to-switch distances, built on first use (the multicast
  // engines and the bound need them).
  const sm::MinHop& minhop();

  // The multicast tree of engine `mc` (sm::mc_engines() name) over the
  // members (end-node indices), as a GroupTree; its root is the tree's root
  // switch. std::invalid_argument naming the engine or the tree's fault.
  cm::GroupTree tree(const std::string& mc, const std::vector<unsigned>& members);

  // The trees of several groups routed together, as the SM routes a group
  // set (each tree sees the load of the ones before it).
  std::vector<cm::GroupTree> trees(const std::string& mc,
                                   const std::vector<std::vector<unsigned>>& member_sets);

  // An SM tree as a GroupTree (sm::combine_tree: std::invalid_argument when
  // it is not a tree spanning the group from its root).
  [[nodiscard]] cm::GroupTree tree_of(const sm::Group& group, const sm::McTree& tree) const;

  // The ring-mode combine entries of a group over the members (end-node
  // indices), as the subnet manager programs them. sm::FabricError when the
  // fabric is not a torus (naming why) or its rings are longer than
  // COMB_RING_MAX.
  cm::GroupRings rings(const std::vector<unsigned>& members);

  // The fabric's torus coordinates (sm::torus_layout, computed on first
  // use), or nullptr when the fabric is not a torus.
  const sm::TorusLayout* torus_layout();

  // The end-node index of an HCA (its place in fabric().hcas()).
  [[nodiscard]] unsigned node_of(sm::NodeId hca) const;

  // The physical bound of a barrier over the members: the longest
  // member-to-member shortest path, (switch hops + 2) links x delay +
  // (links - 1) x switch forwarding, plus the NIC's post-to-link 5 and
  // link-to-CQ 5 (docs/nic/ge.md). On a torus from the coordinates.
  std::uint64_t bound(const std::vector<unsigned>& members, const cm::Timing& t);

 private:
  const sm::Fabric& fabric_;
  std::uint32_t delay_;
  std::unique_ptr<cm::Network> net_;
  std::unique_ptr<sm::MinHop> mh_;
  std::unique_ptr<sm::TorusLayout> torus_;
  bool torus_tried_ = false;
  std::string not_torus_;  // why torus_layout() found no torus
  sm::Lid next_mlid_ = fmt::kMlidBase;
  std::vector<std::uint32_t> node_of_;  // by sm::NodeId
};

// p distinct end nodes drawn with the seed: the group syncfab-fabric's
// pattern random:count=1,size=p makes with the same seed (sm::make_groups),
// in its member order (member 0 is the multicast-release root), so both
// tools run the same group. std::invalid_argument naming p when it is 0 or
// larger than the fabric.
std::vector<unsigned> draw_members(const FabricInputs& in, std::size_t p, std::uint64_t seed);

}  // namespace syncfab::tb::collective
