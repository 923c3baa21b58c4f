// Combine trees read from multicast trees: a hand-built two-level fabric
// checked port by port, every FULB-MC tree of generated fabrics checked
// against its MFT entries, and broken trees refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "syncfab/sm/combine.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::sm {
namespace {

// Leaves L0, L1 (ports 1-2 end nodes, 3 -> S0), spine S0 (port 1 -> L0,
// port 2 -> L1). h0, h1 on L0; h2, h3 on L1.
struct TwoLevel {
  Fabric f;
  NodeId l0, l1, s0, h[4];
  TwoLevel() {
    l0 = f.add_node(NodeType::kSwitch, "L0", 3);
    l1 = f.add_node(NodeType::kSwitch, "L1", 3);
    s0 = f.add_node(NodeType::kSwitch, "S0", 2);
    for (int i = 0; i < 4; ++i) {
      h[i] = f.add_node(NodeType::kHca, "h" + std::to_string(i), 1);
      f.connect(h[i], 1, i < 2 ? l0 : l1, static_cast<PortNum>(i % 2 + 1));
    }
    f.connect(l0, 3, s0, 1);
    f.connect(l1, 3, s0, 2);
    f.assign_lids();
  }
  [[nodiscard]] SwitchIdx idx(NodeId n) const { return f.switch_index(n); }
};

std::string refusal(const Fabric& f, const Group& g, const McTree& t) {
  try {
    (void)combine_tree(f, g, t);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(CombineTree, TwoLevelTreeByHand) {
  TwoLevel t;
  const Group g{0xC001, {t.h[0], t.h[1], t.h[3]}};
  McTree tree{.mlid = 0xC001,
              .root = t.idx(t.s0),
              .height = 1,
              .entries = {{t.idx(t.l0), 1},
                          {t.idx(t.l0), 2},
                          {t.idx(t.l0), 3},
                          {t.idx(t.l1), 2},
                          {t.idx(t.l1), 3},
                          {t.idx(t.s0), 1},
                          {t.idx(t.s0), 2}}};
  std::sort(tree.entries.begin(), tree.entries.end());
  const std::vector<CombineNode> c = combine_tree(t.f, g, tree);
  ASSERT_EQ(c.size(), 3U);
  EXPECT_EQ(c[0].sw, t.idx(t.s0));
  EXPECT_TRUE(c[0].root);
  EXPECT_EQ(c[0].children, (std::vector<PortNum>{1, 2}));
  EXPECT_EQ(c[1].sw, t.idx(t.l0));
  EXPECT_FALSE(c[1].root);
  EXPECT_EQ(c[1].parent, 3);
  EXPECT_EQ(c[1].children, (std::vector<PortNum>{1, 2}));
  EXPECT_EQ(c[1].depth, 1);
  EXPECT_EQ(c[2].sw, t.idx(t.l1));
  EXPECT_EQ(c[2].parent, 3);
  EXPECT_EQ(c[2].children, (std::vector<PortNum>{2}));
}

TEST(CombineTree, RefusesBrokenTrees) {
  TwoLevel t;
  const Group g{0xC001, {t.h[0], t.h[3]}};
  McTree good{.mlid = 0xC001,
              .root = t.idx(t.s0),
              .height = 1,
              .entries = {{t.idx(t.l0), 1},
                          {t.idx(t.l0), 3},
                          {t.idx(t.l1), 2},
                          {t.idx(t.l1), 3},
                          {t.idx(t.s0), 1},
                          {t.idx(t.s0), 2}}};
  std::sort(good.entries.begin(), good.entries.end());
  EXPECT_EQ(combine_tree(t.f, g, good).size(), 3U);

  McTree no_back = good;  // L1 does not list the port back to S0
  std::erase(no_back.entries, MftEntry{t.idx(t.l1), 3});
  EXPECT_EQ(refusal(t.f, g, no_back),
            "combine tree of MLID 0xC001: switch L1 port 3 leads back to its parent but is not "
            "in the entry");

  McTree orphan = good;  // S0 no longer leads to L1
  std::erase(orphan.entries, MftEntry{t.idx(t.s0), 2});
  EXPECT_EQ(refusal(t.f, g, orphan),
            "combine tree of MLID 0xC001: switch L1 has an entry but is not reached from the root");

  McTree missing = good;  // h3's port left out
  std::erase(missing.entries, MftEntry{t.idx(t.l1), 2});
  EXPECT_EQ(
      refusal(t.f, g, missing),
      "combine tree of MLID 0xC001: member h3 at switch L1 port 2 is not a child of the tree");

  McTree rootless = good;
  rootless.root = kNoSwitch;
  EXPECT_EQ(refusal(t.f, g, rootless),
            "combine tree of MLID 0xC001: the root is not a switch of the tree");
}

// Every tree an engine builds on generated fabrics: the combine nodes cover
// exactly the MFT entries, depths stay within the tree's height, and every
// member is a child.
TEST(CombineTree, EveryEngineTreeOnGeneratedFabrics) {
  for (const char* spec :
       {"fattree:ports=8,levels=3", "torus:x=4,y=3,z=2,nodes=2", "dragonfly:a=4,p=2,h=2"}) {
    const Fabric f = make_fabric(spec);
    const MinHop mh(f);
    for (const char* engine : {"FULB-MC", "MINIHOP-MC"}) {
      PatternSpec ps = parse_pattern("random:count=20,size=9");
      ps.seed = 3;
      const GroupSet gs = make_groups(f, ps);
      McLoad load(f);
      const std::vector<McTree> trees = find_mc_engine(engine).route_all(mh, gs.groups, load);
      for (std::size_t g = 0; g < trees.size(); ++g) {
        SCOPED_TRACE(std::string(spec) + " " + engine + " group " + std::to_string(g));
        const std::vector<CombineNode> c = combine_tree(f, gs.groups[g], trees[g]);
        std::set<MftEntry> from_combine;
        int roots = 0;
        for (const CombineNode& n : c) {
          roots += n.root ? 1 : 0;
          EXPECT_LE(n.depth, trees[g].height);
          EXPECT_FALSE(n.children.empty());
          for (const PortNum p : n.children) {
            from_combine.insert({n.sw, p});
          }
          if (!n.root) {
            from_combine.insert({n.sw, n.parent});
          }
        }
        EXPECT_EQ(roots, 1);
        EXPECT_EQ(from_combine,
                  std::set<MftEntry>(trees[g].entries.begin(), trees[g].entries.end()));
      }
    }
  }
}

}  // namespace
}  // namespace syncfab::sm
