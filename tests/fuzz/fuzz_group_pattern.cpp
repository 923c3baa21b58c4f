// Group patterns (parse_pattern + make_groups: "grid2d:4x4", "grid3d:2x2x2",
// "random:count=5,size=3") on small fabrics, with processes per node,
// placement and seed taken from the first input byte: any text either gives
// groups or throws FabricError. Groups given have MLIDs counted up from the
// multicast base, two or more distinct end nodes each (sorted), and together
// with the single-node groups left out they are as many as the pattern
// names (random: count; a grid: one per line along each dimension). The
// same input gives the same groups.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"

namespace {

using syncfab::fuzz::check;
using syncfab::sm::Fabric;

const Fabric& fabric(unsigned which) {
  static const Fabric one = [] {
    Fabric f;
    const auto sw = f.add_node(syncfab::sm::NodeType::kSwitch, "sw", 2);
    const auto h = f.add_node(syncfab::sm::NodeType::kHca, "h", 1);
    f.connect(h, 1, sw, 1);
    f.assign_lids();
    return f;
  }();
  static const Fabric torus = syncfab::sm::make_fabric("torus:x=3,y=2,z=1,nodes=2");
  static const Fabric tree = syncfab::sm::make_fabric("fattree:ports=4,levels=2");
  static const Fabric fly = syncfab::sm::make_fabric("dragonfly:a=2,p=2,h=1");
  const Fabric* all[] = {&one, &torus, &tree, &fly};
  return *all[which % 4];
}

std::size_t expected_groups(const syncfab::sm::PatternSpec& s) {
  using Kind = syncfab::sm::PatternSpec::Kind;
  if (s.kind == Kind::kRandom) {
    return static_cast<std::size_t>(s.count);
  }
  const int nd = s.kind == Kind::kGrid2D ? 2 : 3;
  std::size_t total = 1;
  for (int d = 0; d < nd; ++d) {
    total *= static_cast<std::size_t>(s.dims[d]);
  }
  std::size_t lines = 0;
  for (int d = 0; d < nd; ++d) {
    lines += total / static_cast<std::size_t>(s.dims[d]);
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const unsigned ctl = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const Fabric& f = fabric(ctl & 3U);
  syncfab::sm::PatternSpec spec;
  try {
    spec = syncfab::sm::parse_pattern(text);
  } catch (const syncfab::sm::FabricError&) {
    return 0;
  }
  spec.processes_per_node = 1 + static_cast<int>((ctl >> 2) & 3U);
  spec.placement =
      (ctl & 16U) != 0 ? syncfab::sm::Placement::kUnaware : syncfab::sm::Placement::kAware;
  spec.seed = ctl >> 5;
  syncfab::sm::GroupSet groups;
  try {
    groups = syncfab::sm::make_groups(f, spec);
  } catch (const syncfab::sm::FabricError&) {
    return 0;
  }
  const std::string at = "pattern \"" + std::string(text) + "\": ";
  check(groups.groups.size() + groups.single_node_groups == expected_groups(spec),
        at + std::to_string(groups.groups.size()) + " groups and " +
            std::to_string(groups.single_node_groups) + " single-node ones, expected " +
            std::to_string(expected_groups(spec)));
  for (std::size_t i = 0; i < groups.groups.size(); ++i) {
    const auto& g = groups.groups[i];
    check(g.mlid == syncfab::fmt::kMlidBase + i, at + "group " + std::to_string(i) + ": MLID");
    check(g.members.size() >= 2, at + "group " + std::to_string(i) + " has under two members");
    for (std::size_t k = 0; k < g.members.size(); ++k) {
      check(g.members[k] < f.node_count() && !f.is_switch(g.members[k]),
            at + "group " + std::to_string(i) + ": a member is not an end node");
      check(k == 0 || g.members[k - 1] < g.members[k],
            at + "group " + std::to_string(i) + ": members not sorted and distinct");
    }
  }
  const auto again = syncfab::sm::make_groups(f, spec);
  check(again.single_node_groups == groups.single_node_groups &&
            again.groups.size() == groups.groups.size(),
        at + "not deterministic");
  for (std::size_t i = 0; i < groups.groups.size(); ++i) {
    check(again.groups[i].members == groups.groups[i].members, at + "not deterministic");
  }
  return 0;
}
