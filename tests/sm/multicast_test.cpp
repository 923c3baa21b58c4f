#include <gtest/gtest.h>

#include <functional>
#include <unordered_map>

#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {
namespace {

// Leaves L0, L1 (ports 1-2 end nodes, 3 -> S0, 4 -> S1), spines S0, S1
// (port 1 -> L0, port 2 -> L1). h0, h1 on L0; h2, h3 on L1.
struct TwoLevel {
  Fabric f;
  NodeId l0, l1, s0, s1, h[4];
  TwoLevel() {
    l0 = f.add_node(NodeType::kSwitch, "L0", 4);
    l1 = f.add_node(NodeType::kSwitch, "L1", 4);
    s0 = f.add_node(NodeType::kSwitch, "S0", 2);
    s1 = f.add_node(NodeType::kSwitch, "S1", 2);
    for (int i = 0; i < 4; ++i) {
      h[i] = f.add_node(NodeType::kHca, "h" + std::to_string(i), 1);
      f.connect(h[i], 1, i < 2 ? l0 : l1, static_cast<PortNum>(i % 2 + 1));
    }
    f.connect(l0, 3, s0, 1);
    f.connect(l0, 4, s1, 1);
    f.connect(l1, 3, s0, 2);
    f.connect(l1, 4, s1, 2);
    f.assign_lids();
  }
  Group group(Lid mlid, std::vector<NodeId> m) const {
    std::sort(m.begin(), m.end());
    return Group{mlid, m};
  }
};

TEST(MinihopMc, HandCheckedTwoLevelTree) {
  TwoLevel t;
  const MinHop mh(t.f);
  McLoad load(t.f);
  const Group g = t.group(0xC000, {t.h[0], t.h[2]});
  const McTree tree = route_minihop_mc(mh, g, load, false);
  EXPECT_EQ(tree.root, 2u);  // S0: first switch of height 1
  EXPECT_EQ(tree.height, 1);
  // S0 ports 1, 2; L0 port 3 (up) and 1 (h0); L1 port 3 and 1 (h2).
  const std::vector<MftEntry> want{{0, 1}, {0, 3}, {1, 1}, {1, 3}, {2, 1}, {2, 2}};
  EXPECT_EQ(tree.entries, want);
  EXPECT_EQ(check_tree(mh, g, tree), "");
  load.add(tree);
  // Without root rotation the second group lands on S0 again...
  const Group g2 = t.group(0xC001, {t.h[1], t.h[3]});
  const McTree same = route_minihop_mc(mh, g2, load, false);
  EXPECT_EQ(same.root, 2u);
  // ... with it (MINIHOP-MC-new), on the idle S1.
  const McTree rotated = route_minihop_mc(mh, g2, load, true);
  EXPECT_EQ(rotated.root, 3u);
  EXPECT_EQ(check_tree(mh, g2, rotated), "");
  McLoad a(t.f), b(t.f);
  a.add(tree);
  a.add(same);
  b.add(tree);
  b.add(rotated);
  EXPECT_EQ(a.stats().max_switch_links, 2u);
  EXPECT_EQ(a.efi(2, 1), 2u);
  EXPECT_EQ(b.stats().max_switch_links, 1u);
  EXPECT_EQ(b.stats().used_switch_links, 8u);
  EXPECT_EQ(b.stats().used_all_links, 12u);
  EXPECT_DOUBLE_EQ(b.stats().mean_all_links, 1.0);
  EXPECT_EQ(a.histogram(), (std::vector<std::size_t>{0, 4, 4}));
  EXPECT_EQ(a.switch_trees(2), 2u);
  EXPECT_EQ(a.switch_trees(3), 0u);
}

// Root rotation's tie-break, shared by every rotating engine: between
// minimal-height roots with as many trees through them, the one whose
// switch links carry the least EFI in total; fewer trees still go first.
// TwoLevel group {h0, h2}: roots S0 (2) and S1 (3), height 1.
struct RootTie {
  const char* what;
  std::vector<McTree> preload;
  std::uint32_t trees_s0, trees_s1;
  std::uint64_t efi_s0, efi_s1;
  SwitchIdx want;
  SwitchIdx want_g;  // FULB-MC-G's root after its rip-up
};

std::vector<RootTie> root_ties() {
  // A tree through one spine over both leaves (2 link entries at the spine),
  // over one leaf (1), or a lone tree at the spine (0).
  const McTree s0_both{0xC100, 2, 1, {{0, 3}, {1, 3}, {2, 1}, {2, 2}}};
  const McTree s1_both{0xC101, 3, 1, {{0, 4}, {1, 4}, {3, 1}, {3, 2}}};
  const McTree s0_one{0xC102, 2, 1, {{0, 3}, {2, 1}}};
  const McTree s1_one{0xC103, 3, 1, {{0, 4}, {3, 1}}};
  const McTree s0_lone{0xC104, 2, 0, {}};
  return {
      {"equal trees, S0's links busier: S1", {s0_both, s1_one}, 1, 1, 2, 1, 3, 3},
      {"equal trees, S1's links busier: S0", {s1_both, s0_one}, 1, 1, 1, 2, 2, 2},
      {"equal trees, equal links: lowest index, S0", {s0_one, s1_one}, 1, 1, 1, 1, 2, 2},
      // FULB-MC-G then moves the group to S0's idle links (max EFI 2 -> 1).
      {"fewer trees beat idler links: S1", {s0_lone, s0_lone, s1_both}, 2, 1, 0, 2, 3, 2},
  };
}

TEST(RootRotation, TiesGoToTheSwitchWithTheLeastLinkEfiInEveryEngine) {
  TwoLevel t;
  const MinHop mh(t.f);
  const Group g = t.group(0xC000, {t.h[0], t.h[2]});
  const std::vector<char> no_global(t.f.port_slot_count(), 0);
  for (const RootTie& tie : root_ties()) {
    McLoad load(t.f);
    for (const McTree& p : tie.preload) {
      load.add(p);
    }
    ASSERT_EQ(load.switch_trees(2), tie.trees_s0) << tie.what;
    ASSERT_EQ(load.switch_trees(3), tie.trees_s1) << tie.what;
    ASSERT_EQ(load.switch_link_efi(2), tie.efi_s0) << tie.what;
    ASSERT_EQ(load.switch_link_efi(3), tie.efi_s1) << tie.what;
    const std::vector<std::pair<const char*, McTree>> trees{
        {"MINIHOP-MC-new", route_minihop_mc(mh, g, load, true)},
        {"SSSP-MC-new", route_sssp_mc(mh, g, load, true)},
        {"FULB-MC", route_fulb_mc(mh, g, load)},
        {"FULB-MC-DF", route_fulb_mc_dragonfly(mh, g, load, no_global)},
        {"FULB-MC-G one group", route_fulb_mc_bottleneck(mh, g, load)},
    };
    for (const auto& [engine, tree] : trees) {
      EXPECT_EQ(tree.root, tie.want) << engine << ": " << tie.what;
      EXPECT_EQ(check_tree(mh, g, tree), "") << engine << ": " << tie.what;
    }
    McLoad batch = load;
    McGlobalStats st;
    const std::vector<McTree> g_trees =
        route_fulb_mc_global(mh, std::vector<Group>{g}, batch, nullptr, &st);
    ASSERT_EQ(g_trees.size(), 1u);
    EXPECT_EQ(g_trees[0].root, tie.want_g) << "FULB-MC-G: " << tie.what;
    EXPECT_EQ(st.moves, tie.want_g == tie.want ? 0u : 1u) << "FULB-MC-G: " << tie.what;
    // Without rotation the first candidate stays.
    EXPECT_EQ(route_minihop_mc(mh, g, load, false).root, 2u) << tie.what;
    EXPECT_EQ(route_sssp_mc(mh, g, load, false).root, 2u) << tie.what;
  }
}

TEST(McLoad, SwitchLinkEfiCountsSwitchLinksOnly) {
  TwoLevel t;
  McLoad load(t.f);
  const McTree tree{0xC000, 2, 1, {{0, 1}, {0, 3}, {1, 1}, {1, 3}, {2, 1}, {2, 2}}};
  load.add(tree);
  load.add(tree);
  EXPECT_EQ(load.switch_link_efi(0), 2u);  // port 3 (S0) twice; port 1 is h0
  EXPECT_EQ(load.switch_link_efi(2), 4u);
  EXPECT_EQ(load.switch_link_efi(3), 0u);
  load.remove(tree);
  EXPECT_EQ(load.switch_link_efi(2), 2u);
  load.remove(tree);
  EXPECT_EQ(load.switch_link_efi(0), 0u);
  EXPECT_EQ(load.switch_link_efi(2), 0u);
}

TEST(MinihopMc, MembersOnOneSwitchNeedNoLinks) {
  TwoLevel t;
  const MinHop mh(t.f);
  McLoad load(t.f);
  const Group g = t.group(0xC000, {t.h[0], t.h[1]});
  const McTree tree = route_minihop_mc(mh, g, load, false);
  EXPECT_EQ(tree.root, 0u);
  EXPECT_EQ(tree.height, 0);
  EXPECT_EQ(tree.entries, (std::vector<MftEntry>{{0, 1}, {0, 2}}));
  EXPECT_EQ(check_tree(mh, g, tree), "");
}

TEST(TreeChecker, FindsEveryKindOfBrokenTree) {
  TwoLevel t;
  const MinHop mh(t.f);
  const McLoad load(t.f);
  const Group g = t.group(0xC000, {t.h[0], t.h[2]});
  const McTree good = route_minihop_mc(mh, g, load, false);
  auto broken = [&](auto edit) {
    McTree b = good;
    edit(b);
    std::sort(b.entries.begin(), b.entries.end());
    return check_tree(mh, g, b);
  };
  auto drop = [](McTree& b, MftEntry e) {
    b.entries.erase(std::find(b.entries.begin(), b.entries.end(), e));
  };
  EXPECT_NE(broken([&](McTree& b) {
              drop(b, {1, 1});
            }).find("does not forward"),
            std::string::npos);
  EXPECT_NE(broken([&](McTree& b) { drop(b, {1, 3}); }).find("one end only"), std::string::npos);
  EXPECT_NE(broken([&](McTree& b) {
              drop(b, {1, 3});
              drop(b, {2, 2});
            }).find("not reached"),
            std::string::npos);
  // Both spines: L0-S0-L1-S1-L0 is a loop.
  EXPECT_NE(broken([&](McTree& b) {
              for (MftEntry e : {MftEntry{0, 4}, MftEntry{1, 4}, MftEntry{3, 1}, MftEntry{3, 2}}) {
                b.entries.push_back(e);
              }
            }).find("loop"),
            std::string::npos);
  EXPECT_NE(broken([&](McTree& b) {
              b.entries.push_back({0, 2});
            }).find("not a member"),
            std::string::npos);
  EXPECT_NE(broken([&](McTree& b) {
              b.entries.push_back({2, 2});
            }).find("duplicate"),
            std::string::npos);
  EXPECT_NE(broken([&](McTree& b) {
              b.entries.push_back({1, 2});
            }).find("not a member"),
            std::string::npos);
  // Rooted at a leaf the height is 2, not the minimal 1.
  EXPECT_NE(broken([&](McTree& b) { b.root = 0; }).find("minimal is 1"), std::string::npos);
  EXPECT_NE(broken([&](McTree& b) { b.height = 3; }).find("says height 3"), std::string::npos);
  EXPECT_NE(broken([&](McTree& b) { b.root = kNoSwitch; }).find("no root"), std::string::npos);
}

// On a ring of six switches a group at distance 3 either way from its root
// has two shortest branches that meet: the level-by-level split must still
// give a tree.
TEST(MinihopMc, BranchesThatMeetStayATree) {
  const Fabric f = make_torus({6, 1, 1, 1});
  const MinHop mh(f);
  McLoad load(f);
  for (int a = 0; a < 6; ++a) {
    for (int b = 0; b < 6; ++b) {
      for (int c = 0; c < 6; ++c) {
        if (a == b || b == c || a == c) {
          continue;
        }
        std::vector<NodeId> m{f.hcas()[static_cast<std::size_t>(a)],
                              f.hcas()[static_cast<std::size_t>(b)],
                              f.hcas()[static_cast<std::size_t>(c)]};
        std::sort(m.begin(), m.end());
        const Group g{0xC000, m};
        for (bool rotate : {false, true}) {
          const McTree tree = route_minihop_mc(mh, g, load, rotate);
          ASSERT_EQ(check_tree(mh, g, tree), "") << a << b << c;
          load.add(tree);
        }
      }
    }
  }
}

TEST(MinihopMc, EveryTreeOnSmallPaperShapesPassesTheChecker) {
  for (const char* spec :
       {"fattree:ports=8,levels=3", "torus:x=5,y=4,z=3,nodes=2", "dragonfly:a=4,p=2,h=2",
        "pruned:pods=3,leaves=4,nodes=2,l2=2,tops=2,paths=4"}) {
    const Fabric f = make_fabric(spec);
    const MinHop mh(f);
    PatternSpec p = parse_pattern("random:count=200,size=6");
    p.seed = 11;
    const GroupSet gs = make_groups(f, p);
    for (bool rotate : {false, true}) {
      McLoad load(f);
      for (const Group& g : gs.groups) {
        const McTree tree = route_minihop_mc(mh, g, load, rotate);
        ASSERT_EQ(check_tree(mh, g, tree), "") << spec << " mlid " << g.mlid;
        load.add(tree);
      }
    }
  }
}

// Two leaves joined to one spine by two parallel links each: L0 ports 3, 4 ->
// S0 ports 1, 2; L1 ports 3, 4 -> S0 ports 3, 4. h0, h1 on L0; h2, h3 on L1.
struct Trunk {
  Fabric f;
  NodeId h[4];
  Trunk() {
    const NodeId l0 = f.add_node(NodeType::kSwitch, "L0", 4);
    const NodeId l1 = f.add_node(NodeType::kSwitch, "L1", 4);
    const NodeId s0 = f.add_node(NodeType::kSwitch, "S0", 4);
    for (int i = 0; i < 4; ++i) {
      h[i] = f.add_node(NodeType::kHca, "h" + std::to_string(i), 1);
      f.connect(h[i], 1, i < 2 ? l0 : l1, static_cast<PortNum>(i % 2 + 1));
    }
    f.connect(l0, 3, s0, 1);
    f.connect(l0, 4, s0, 2);
    f.connect(l1, 3, s0, 3);
    f.connect(l1, 4, s0, 4);
    f.assign_lids();
  }
};

TEST(FulbMc, LinkRotationSpreadsGroupsOverParallelPaths) {
  Trunk t;
  const MinHop mh(t.f);
  const Group g1{0xC000, {t.h[0], t.h[2]}};
  const Group g2{0xC001, {t.h[1], t.h[3]}};
  const std::vector<MftEntry> first{{0, 1}, {0, 3}, {1, 1}, {1, 3}, {2, 1}, {2, 3}};
  const std::vector<MftEntry> second{{0, 2}, {0, 4}, {1, 2}, {1, 4}, {2, 2}, {2, 4}};
  McLoad fulb(t.f), sssp(t.f), mini(t.f);
  const McTree f1 = route_fulb_mc(mh, g1, fulb);
  EXPECT_EQ(f1.root, 2u);
  EXPECT_EQ(f1.entries, first);
  EXPECT_EQ(check_tree(mh, g1, f1), "");
  fulb.add(f1);
  const McTree f2 = route_fulb_mc(mh, g2, fulb);
  EXPECT_EQ(f2.entries, second);  // the idle parallel links
  EXPECT_EQ(check_tree(mh, g2, f2), "");
  fulb.add(f2);
  const McTree s1 = route_sssp_mc(mh, g1, sssp, true);
  EXPECT_EQ(s1.entries, first);
  sssp.add(s1);
  const McTree s2 = route_sssp_mc(mh, g2, sssp, true);
  EXPECT_EQ(s2.entries, second);
  EXPECT_EQ(check_tree(mh, g2, s2), "");
  sssp.add(s2);
  mini.add(route_minihop_mc(mh, g1, mini, true));
  const McTree m2 = route_minihop_mc(mh, g2, mini, true);
  EXPECT_EQ(m2.entries, (std::vector<MftEntry>{{0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 1}, {2, 3}}));
  mini.add(m2);
  EXPECT_EQ(fulb.stats().max_switch_links, 1u);
  EXPECT_EQ(sssp.stats().max_switch_links, 1u);
  EXPECT_EQ(mini.stats().max_switch_links, 2u);  // fixed port choice
}

struct Routed {
  McLoad load;
  std::string error;
};

template <typename Route>
Routed route_all(const MinHop& mh, const GroupSet& gs, Route route) {
  Routed r{McLoad(mh.fabric()), {}};
  for (const Group& g : gs.groups) {
    const McTree tree = route(g, r.load);
    r.error = check_tree(mh, g, tree);
    if (!r.error.empty()) {
      r.error = "mlid " + std::to_string(g.mlid) + ": " + r.error;
      return r;
    }
    r.load.add(tree);
  }
  return r;
}

TEST(FulbMc, EveryEngineGivesValidTreesOnSmallPaperShapes) {
  for (const char* spec :
       {"fattree:ports=8,levels=3", "torus:x=5,y=4,z=3,nodes=2", "dragonfly:a=4,p=2,h=2",
        "pruned:pods=3,leaves=4,nodes=2,l2=2,tops=2,paths=4"}) {
    const Fabric f = make_fabric(spec);
    const MinHop mh(f);
    for (const char* pattern : {"random:count=300,size=5", "grid2d:8x8"}) {
      PatternSpec p = parse_pattern(pattern);
      p.placement = Placement::kUnaware;
      p.processes_per_node = 4;  // the smallest fabric has 24 end nodes
      p.seed = 5;
      const GroupSet gs = make_groups(f, p);
      const Routed fulb = route_all(
          mh, gs, [&](const Group& g, const McLoad& l) { return route_fulb_mc(mh, g, l); });
      const Routed sssp = route_all(
          mh, gs, [&](const Group& g, const McLoad& l) { return route_sssp_mc(mh, g, l, true); });
      const Routed sssp_old = route_all(
          mh, gs, [&](const Group& g, const McLoad& l) { return route_sssp_mc(mh, g, l, false); });
      EXPECT_EQ(fulb.error, "") << spec << " " << pattern;
      EXPECT_EQ(sssp.error, "") << spec << " " << pattern;
      EXPECT_EQ(sssp_old.error, "") << spec << " " << pattern;
    }
  }
}

TEST(FulbMc, StandardFatTreeTiesWithMinihopNewAndSssp) {
  // One shortest path joins a leaf to each top switch: once the root is
  // chosen the tree is fixed, so the three balancing engines agree exactly.
  const Fabric f = make_fabric("fattree:ports=8,levels=3");
  const MinHop mh(f);
  PatternSpec p = parse_pattern("grid3d:4x4x8");
  p.placement = Placement::kUnaware;
  const GroupSet gs = make_groups(f, p);
  const Routed fulb =
      route_all(mh, gs, [&](const Group& g, const McLoad& l) { return route_fulb_mc(mh, g, l); });
  const Routed mini = route_all(
      mh, gs, [&](const Group& g, const McLoad& l) { return route_minihop_mc(mh, g, l, true); });
  const Routed sssp = route_all(
      mh, gs, [&](const Group& g, const McLoad& l) { return route_sssp_mc(mh, g, l, true); });
  ASSERT_EQ(fulb.error, "");
  EXPECT_EQ(fulb.load.histogram(), mini.load.histogram());
  EXPECT_EQ(fulb.load.histogram(), sssp.load.histogram());
  const Routed plain = route_all(
      mh, gs, [&](const Group& g, const McLoad& l) { return route_minihop_mc(mh, g, l, false); });
  EXPECT_GT(plain.load.stats().max_switch_links, fulb.load.stats().max_switch_links);
}

TEST(FulbMc, PrunedTreeBeatsTheFixedPortChoice) {
  // 8 parallel paths from every leaf to every top switch: link rotation must
  // beat MINIHOP-MC's fixed choice and match SSSP-MC-new (the paper's
  // BlueLight observations), here on a small tree of the same family.
  const Fabric f = make_fabric("pruned:pods=4,leaves=8,nodes=4,l2=2,tops=2,paths=8");
  const MinHop mh(f);
  PatternSpec p = parse_pattern("random:count=400,size=8");
  p.seed = 2;
  const GroupSet gs = make_groups(f, p);
  auto max_efi = [&](auto route) {
    const Routed r = route_all(mh, gs, route);
    EXPECT_EQ(r.error, "");
    return r.load.stats().max_switch_links;
  };
  const auto fulb =
      max_efi([&](const Group& g, const McLoad& l) { return route_fulb_mc(mh, g, l); });
  const auto sssp =
      max_efi([&](const Group& g, const McLoad& l) { return route_sssp_mc(mh, g, l, true); });
  const auto mini_new =
      max_efi([&](const Group& g, const McLoad& l) { return route_minihop_mc(mh, g, l, true); });
  const auto mini =
      max_efi([&](const Group& g, const McLoad& l) { return route_minihop_mc(mh, g, l, false); });
  EXPECT_LE(2 * fulb, mini) << "FULB-MC " << fulb << ", MINIHOP-MC " << mini;
  EXPECT_LT(fulb, mini_new) << "FULB-MC " << fulb << ", MINIHOP-MC-new " << mini_new;
  EXPECT_LE(10 * fulb, 11 * sssp) << "FULB-MC " << fulb << ", SSSP-MC-new " << sssp;
}

// Global links on the tree path from each member switch to the root, minus
// the fewest any shortest path has: >0 means a two-global-link detour.
int detours(const MinHop& mh, const std::vector<char>& global, const Group& g, const McTree& t) {
  const Fabric& f = mh.fabric();
  std::unordered_map<SwitchIdx, MftEntry> up;  // child -> entry at child toward the root
  std::vector<SwitchIdx> queue{t.root};
  up[t.root] = MftEntry{};
  for (std::size_t i = 0; i < queue.size(); ++i) {
    for (const MftEntry& e : t.entries) {
      if (e.sw != queue[i]) {
        continue;
      }
      const PortPeer o = f.peer(f.switch_node(e.sw), e.port);
      if (!f.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx c = f.switch_index(o.node);
      if (up.emplace(c, MftEntry{c, o.port}).second) {
        queue.push_back(c);
      }
    }
  }
  const auto to_root = mh.row(t.root);
  std::function<int(SwitchIdx)> fewest = [&](SwitchIdx x) {
    if (x == t.root) {
      return 0;
    }
    int best = 1000;
    const NodeId n = f.switch_node(x);
    for (int p = 1; p <= f.num_ports(n); ++p) {
      const PortPeer o = f.peer(n, static_cast<PortNum>(p));
      if (!o.connected() || !f.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx y = f.switch_index(o.node);
      if (to_root[y] + 1 != to_root[x]) {
        continue;
      }
      best = std::min(best, global[f.port_slot(n, static_cast<PortNum>(p))] + fewest(y));
    }
    return best;
  };
  int extra = 0;
  for (SwitchIdx m : member_switches(f, g)) {
    int used = 0;
    for (SwitchIdx x = m; x != t.root;) {
      const MftEntry e = up.at(x);
      used += global[f.port_slot(f.switch_node(x), e.port)];
      x = f.switch_index(f.peer(f.switch_node(x), e.port).node);
    }
    extra += used - fewest(m);
  }
  return extra;
}

TEST(FulbMcDragonfly, NeverTakesTwoGlobalLinksWhenOneWillDo) {
  const DragonflySpec spec{4, 2, 2};
  const Fabric f = make_dragonfly(spec);
  const MinHop mh(f);
  const std::vector<char> global = dragonfly_global_links(f);
  // The triangle rule finds exactly the generator's global ports.
  for (NodeId n : f.switches()) {
    for (int p = spec.p + 1; p <= f.num_ports(n); ++p) {
      EXPECT_EQ(global[f.port_slot(n, static_cast<PortNum>(p))] != 0, p >= spec.p + spec.a)
          << f.name(n) << " port " << p;
    }
  }
  PatternSpec ps = parse_pattern("random:count=400,size=6");
  ps.placement = Placement::kUnaware;
  const GroupSet gs = make_groups(f, ps);
  int plain_detours = 0, rule_detours = 0;
  McLoad plain(f), rule(f);
  for (const Group& g : gs.groups) {
    const McTree a = route_fulb_mc(mh, g, plain);
    const McTree b = route_fulb_mc_dragonfly(mh, g, rule, global);
    ASSERT_EQ(check_tree(mh, g, b), "");
    plain_detours += detours(mh, global, g, a);
    rule_detours += detours(mh, global, g, b);
    plain.add(a);
    rule.add(b);
  }
  EXPECT_EQ(rule_detours, 0);
  EXPECT_GT(plain_detours, 0) << "plain FULB-MC never detoured: the test shows nothing";
}

}  // namespace
}  // namespace syncfab::sm
