#include <gtest/gtest.h>

#include <sstream>

#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::sm {
namespace {

// Switches with an end node: the sources whose traffic the tables carry.
std::vector<SwitchIdx> hca_switches(const Fabric& f) {
  std::vector<char> mark(f.switch_count(), 0);
  for (NodeId h : f.hcas()) {
    mark[f.attach_switch(h)] = 1;
  }
  std::vector<SwitchIdx> out;
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    if (mark[s] != 0) {
      out.push_back(s);
    }
  }
  return out;
}

// Walks the tables from every source to every LID; returns "" or the first
// pair that does not arrive (or, with shortest, arrives by a longer path).
std::string walk_all(const MinHop& mh, const Lft& lft, const std::vector<SwitchIdx>& sources,
                     bool shortest) {
  const Fabric& f = lft.fabric();
  for (SwitchIdx s : sources) {
    for (Lid d = 1; d <= f.max_lid(); ++d) {
      const auto path = walk(lft, s, d);
      const std::string what = f.name(f.switch_node(s)) + " -> LID " + std::to_string(d);
      if (path.empty()) {
        return what + ": does not arrive";
      }
      const LidOwner o = f.lid_owner(d);
      const std::size_t hops = path.size() - 1 + (f.is_switch(o.node) ? 0 : 1);
      if (shortest && hops != mh.hops(s, d)) {
        return what + ": " + std::to_string(hops) + " hops, min " + std::to_string(mh.hops(s, d));
      }
    }
  }
  return {};
}

// The reported cycle is closed: each link ends where the next one starts.
void expect_closed(const Fabric& f, const CreditLoopReport& r) {
  ASSERT_FALSE(r.cycle.empty());
  for (std::size_t i = 0; i < r.cycle.size(); ++i) {
    const CdgLink& a = r.cycle[i];
    const CdgLink& b = r.cycle[(i + 1) % r.cycle.size()];
    EXPECT_EQ(a.to, b.from) << r.describe(f);
    EXPECT_EQ(f.peer(a.from, a.out), (PortPeer{a.to, a.in}));
  }
}

TEST(Lft, NibbleAndByteTablesReadBack) {
  const Fabric small = make_fabric("torus:x=3,y=1,z=1,nodes=2");  // 8 ports
  Lft a(small);
  EXPECT_EQ(a.bits_per_entry(), 4);
  EXPECT_EQ(a.get(0, 1), kNoRoute);
  a.set(0, 1, 7);
  a.set(0, 2, 0);
  a.set(1, 1, 3);
  EXPECT_EQ(a.get(0, 1), 7);
  EXPECT_EQ(a.get(0, 2), 0);
  EXPECT_EQ(a.get(1, 1), 3);
  a.set(0, 1, kNoRoute);
  EXPECT_EQ(a.get(0, 1), kNoRoute);
  EXPECT_EQ(a.get(0, 2), 0);
  EXPECT_THROW(a.set(0, 1, 9), FabricError);
  const Fabric big = make_fabric("fattree:ports=16,levels=2");
  Lft b(big);
  EXPECT_EQ(b.bits_per_entry(), 8);
  b.set(2, 5, 16);
  EXPECT_EQ(b.get(2, 5), 16);
}

// Whole rows in and runs out agree with set/get entry by entry, on nibble
// tables whose rows start on either half of a byte (an odd LID count) and on
// byte tables.
TEST(Lft, RowsAndRunsMatchEntries) {
  for (const char* spec :
       {"torus:x=3,y=1,z=1,nodes=2", "torus:x=3,y=2,z=1,nodes=1", "fattree:ports=16,levels=2"}) {
    const Fabric f = make_fabric(spec);
    Lft rows(f);
    Lft entries(f);
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      std::vector<PortNum> row(rows.dest_count());
      for (std::size_t d = 0; d < row.size(); ++d) {
        const int ports = f.num_ports(f.switch_node(s));
        row[d] = (d + s) % 5 == 0 ? kNoRoute : static_cast<PortNum>((d * 7 + s) % (ports + 1));
        entries.set(s, static_cast<Lid>(d), row[d]);
      }
      rows.set_row(s, row);
    }
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      for (std::size_t d = 0; d < rows.dest_count(); ++d) {
        ASSERT_EQ(rows.get(s, static_cast<Lid>(d)), entries.get(s, static_cast<Lid>(d)))
            << spec << " switch " << s << " LID " << d;
      }
      for (std::size_t d0 = 0; d0 < rows.dest_count(); ++d0) {
        rows.for_run(
            s, static_cast<Lid>(d0), rows.dest_count() - d0, [&](std::size_t k, PortNum p) {
              ASSERT_EQ(p, entries.get(s, static_cast<Lid>(d0 + k))) << spec << " run from " << d0;
            });
      }
    }
    EXPECT_THROW(rows.set_row(0, std::vector<PortNum>(rows.dest_count(), 99)), FabricError);
    EXPECT_THROW(rows.set_row(0, std::vector<PortNum>(1, 0)), FabricError);
  }
}

TEST(MinhopUnicast, HandCheckedRing) {
  // Ring of 4: from sw-0 the opposite switch sw-2 is 2 hops either way; its
  // two LIDs (switch, end node) are spread over +x (port 1) and -x (port 2).
  const Fabric f = make_fabric("torus:x=4,y=1,z=1,nodes=1");
  const MinHop mh(f);
  const Lft lft = route_minhop(mh);
  const SwitchIdx s0 = 0;
  const Lid sw2 = f.lid(f.switch_node(2));
  const Lid node2 = f.lid(*f.find("node-2-0-0-0"), 1);
  EXPECT_EQ(lft.get(s0, f.lid(f.switch_node(0))), 0);
  EXPECT_EQ(lft.get(s0, f.lid(*f.find("node-0-0-0-0"), 1)), 7);
  EXPECT_EQ(lft.get(s0, f.lid(f.switch_node(1))), 1);
  EXPECT_EQ(lft.get(s0, f.lid(f.switch_node(3))), 2);
  EXPECT_NE(lft.get(s0, sw2), lft.get(s0, node2));
  EXPECT_EQ(check_shortest(mh, lft), "");
}

class MinhopOnFabric : public ::testing::TestWithParam<const char*> {};

TEST_P(MinhopOnFabric, EveryWalkIsShortestAndArrives) {
  const Fabric f = make_fabric(GetParam());
  const MinHop mh(f);
  const Lft lft = route_minhop(mh);
  EXPECT_EQ(check_shortest(mh, lft), "");
  std::vector<SwitchIdx> all(f.switch_count());
  for (SwitchIdx s = 0; s < all.size(); ++s) {
    all[s] = s;
  }
  EXPECT_EQ(walk_all(mh, lft, all, true), "");
  EXPECT_EQ(lft_balance(mh, lft).unrouted, 0U);
}

INSTANTIATE_TEST_SUITE_P(Fabrics, MinhopOnFabric,
                         ::testing::Values("fattree:ports=4,levels=3", "fattree:ports=8,levels=2",
                                           "pruned:pods=3,leaves=2,nodes=2,l2=2,tops=1,paths=2",
                                           "torus:x=4,y=3,z=2,nodes=1", "dragonfly:a=3,p=1,h=2"));

TEST(MinhopUnicast, FatTreeUpPortsBalancedWithinOne) {
  const Fabric f = make_fabric("fattree:ports=8,levels=3");
  const MinHop mh(f);
  const Lft lft = route_minhop(mh);
  const LftBalance b = lft_balance(mh, lft);
  EXPECT_LE(b.max_spread, 1U);
  EXPECT_GT(b.mean_port_lids, 0);
}

TEST(MinhopUnicast, CheckShortestCatchesADetour) {
  const Fabric f = make_fabric("torus:x=5,y=1,z=1,nodes=1");
  const MinHop mh(f);
  Lft lft = route_minhop(mh);
  lft.set(0, f.lid(f.switch_node(1)), 2);  // the long way round
  EXPECT_NE(check_shortest(mh, lft), "");
  lft.set(0, f.lid(f.switch_node(1)), kNoRoute);
  EXPECT_NE(check_shortest(mh, lft), "");
  EXPECT_TRUE(walk(lft, 0, f.lid(f.switch_node(1))).empty());
}

TEST(CreditLoops, MinhopRingHasACycleAndShowsIt) {
  const Fabric f = make_fabric("torus:x=5,y=1,z=1,nodes=1");
  const Lft lft = route_minhop(MinHop(f));
  const CreditLoopReport r = check_credit_loops(lft);
  EXPECT_FALSE(r.acyclic);
  expect_closed(f, r);
  EXPECT_EQ(r.cycle.size(), 5U) << r.describe(f);
  EXPECT_NE(r.describe(f).find("sw-0-0-0:"), std::string::npos) << r.describe(f);
}

TEST(CreditLoops, TreesHaveNone) {
  for (const char* spec :
       {"fattree:ports=8,levels=3", "pruned:pods=3,leaves=2,nodes=2,l2=2,tops=2,paths=2"}) {
    const Fabric f = make_fabric(spec);
    const CreditLoopReport r = check_credit_loops(route_minhop(MinHop(f)));
    EXPECT_TRUE(r.acyclic) << spec << ": " << r.describe(f);
    EXPECT_GT(r.dependencies, 0U) << spec;
  }
}

TEST(CreditLoops, LaneOutOfRangeIsAnError) {
  const Fabric f = make_fabric("torus:x=5,y=1,z=1,nodes=1");
  const Lft lft = route_minhop(MinHop(f));
  VlAssignment v;
  v.lanes = 2;
  v.first = [](SwitchIdx, Lid, PortNum) -> std::uint8_t { return 2; };
  EXPECT_THROW(check_credit_loops(lft, v), FabricError);
}

TEST(CreditLoops, OneLanePerDirectionBreaksTheRing) {
  // Clockwise traffic on lane 0, counter-clockwise on lane 1 still loops
  // (each direction is a ring of its own): the lanes are kept apart.
  const Fabric f = make_fabric("torus:x=5,y=1,z=1,nodes=1");
  const Lft lft = route_minhop(MinHop(f));
  VlAssignment v;
  v.lanes = 2;
  v.first = [](SwitchIdx, Lid, PortNum out) -> std::uint8_t { return out == 1 ? 0 : 1; };
  v.next = [](SwitchIdx, PortNum, PortNum, std::uint8_t vl, Lid) { return vl; };
  const CreditLoopReport r = check_credit_loops(lft, v);
  ASSERT_FALSE(r.acyclic);
  for (const CdgLink& l : r.cycle) {
    EXPECT_EQ(l.vl, r.cycle.front().vl);
  }
}

class UpdnOnFabric : public ::testing::TestWithParam<const char*> {};

TEST_P(UpdnOnFabric, DeadlockFreeAndEveryEndNodeSwitchReachesEveryLid) {
  const Fabric f = make_fabric(GetParam());
  const MinHop mh(f);
  const Lft lft = route_updn(mh, updn_ranking(mh));
  EXPECT_EQ(walk_all(mh, lft, hca_switches(f), false), "");
  const CreditLoopReport r = check_credit_loops(lft);
  EXPECT_TRUE(r.acyclic) << r.describe(f);
}

INSTANTIATE_TEST_SUITE_P(Fabrics, UpdnOnFabric,
                         ::testing::Values("fattree:ports=4,levels=3", "fattree:ports=8,levels=3",
                                           "pruned:pods=3,leaves=2,nodes=2,l2=2,tops=2,paths=2",
                                           "torus:x=5,y=4,z=3,nodes=1", "torus:x=6,y=1,z=1,nodes=1",
                                           "dragonfly:a=3,p=1,h=2"));

TEST(Updn, FatTreeIsMinimalAndRootsAreTheTopLevel) {
  const Fabric f = make_fabric("fattree:ports=8,levels=3");
  const MinHop mh(f);
  const UpdnRanking rk = updn_ranking(mh);
  ASSERT_EQ(rk.roots.size(), 16U);
  for (SwitchIdx s : rk.roots) {
    EXPECT_EQ(f.name(f.switch_node(s)).rfind("sw-l3-", 0), 0U) << f.name(f.switch_node(s));
  }
  const Lft lft = route_updn(mh, rk);
  EXPECT_EQ(check_shortest(mh, lft, hca_switches(f)), "");
  // As in OpenSM, top switches cannot reach each other by up*down*.
  EXPECT_EQ(lft.get(rk.roots[0], f.lid(f.switch_node(rk.roots[1]))), kNoRoute);
}

TEST(Updn, HandCheckedTwoLevelTree) {
  // 4-port 2-tree (see Ftree.HandCheckedTwoLevelTree). LIDs: switches 1..6,
  // node-r 7+r. Leaf 0 routes destination switch by switch, each switch's
  // LIDs in order, alternating its up ports 3, 4 by count: sw-l1-1 (LID 2)
  // 3, node-2 4, node-3 3; sw-l1-2 (LID 3) 4, node-4 3, node-5 4; ...
  const Fabric f = make_fabric("fattree:ports=4,levels=2");
  const MinHop mh(f);
  const UpdnRanking rk = updn_ranking(mh);
  const Lft lft = route_updn(mh, rk);
  const SwitchIdx leaf0 = f.switch_index(*f.find("sw-l1-0"));
  auto node = [&](int r) { return f.lid(*f.find("node-" + std::to_string(r)), 1); };
  auto sw = [&](const char* name) { return f.lid(*f.find(name)); };
  EXPECT_EQ(lft.get(leaf0, sw("sw-l1-1")), 3);
  EXPECT_EQ(lft.get(leaf0, node(2)), 4);
  EXPECT_EQ(lft.get(leaf0, node(3)), 3);
  EXPECT_EQ(lft.get(leaf0, sw("sw-l1-2")), 4);
  EXPECT_EQ(lft.get(leaf0, node(4)), 3);
  EXPECT_EQ(lft.get(leaf0, node(5)), 4);
  // A top switch is reached over the one link to it, not through a leaf.
  EXPECT_EQ(lft.get(leaf0, sw("sw-l2-0")), 3);
  EXPECT_EQ(lft.get(leaf0, sw("sw-l2-1")), 4);
  const SwitchIdx top1 = f.switch_index(*f.find("sw-l2-1"));
  EXPECT_EQ(lft.get(top1, node(5)), 3);
  EXPECT_EQ(lft.get(top1, sw("sw-l2-0")), kNoRoute);
}

TEST(Updn, TorusWalksAreLegalUpDown) {
  const Fabric f = make_fabric("torus:x=4,y=4,z=1,nodes=1");
  const MinHop mh(f);
  const UpdnRanking rk = updn_ranking(mh, {5});
  const Lft lft = route_updn(mh, rk);
  auto key = [&](SwitchIdx s) { return std::pair{rk.rank[s], f.guid(f.switch_node(s))}; };
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    for (Lid d = 1; d <= f.max_lid(); ++d) {
      const auto path = walk(lft, s, d);
      ASSERT_FALSE(path.empty());
      bool went_down = false;
      for (std::size_t i = 1; i < path.size(); ++i) {
        const bool up = key(path[i]) < key(path[i - 1]);
        EXPECT_FALSE(up && went_down) << "down then up from " << s << " to LID " << d;
        went_down = went_down || !up;
      }
    }
  }
}

// Worst link load over all shift permutations i -> i+k of the end nodes.
std::size_t worst_shift_load(const Lft& lft) {
  const Fabric& f = lft.fabric();
  const auto hcas = f.hcas();
  std::size_t worst = 0;
  std::vector<std::uint32_t> load(f.port_slot_count());
  for (std::size_t k = 1; k < hcas.size(); ++k) {
    std::fill(load.begin(), load.end(), 0);
    for (std::size_t i = 0; i < hcas.size(); ++i) {
      const Lid d = f.lid(hcas[(i + k) % hcas.size()], 1);
      SwitchIdx s = f.attach_switch(hcas[i]);
      for (;;) {
        const PortNum p = lft.get(s, d);
        EXPECT_NE(p, kNoRoute);
        if (p == kNoRoute || p == 0) {
          break;
        }
        const NodeId node = f.switch_node(s);
        worst = std::max<std::size_t>(worst, ++load[f.port_slot(node, p)]);
        const PortPeer o = f.peer(node, p);
        if (!f.is_switch(o.node)) {
          break;
        }
        s = f.switch_index(o.node);
      }
    }
  }
  return worst;
}

TEST(Ftree, ShiftPermutationsAreContentionFree) {
  for (const char* spec : {"fattree:ports=8,levels=3", "fattree:ports=6,levels=3"}) {
    const Fabric f = make_fabric(spec);
    const MinHop mh(f);
    const UpdnRanking rk = updn_ranking(mh);
    const Lft ftree = route_ftree(mh, rk);
    EXPECT_EQ(check_shortest(mh, ftree, hca_switches(f)), "") << spec;
    EXPECT_EQ(walk_all(mh, ftree, hca_switches(f), true), "") << spec;
    EXPECT_TRUE(check_credit_loops(ftree).acyclic) << spec;
    EXPECT_EQ(worst_shift_load(ftree), 1U) << spec;
    // The load-balancing engines are not: some shift shares a link.
    EXPECT_GT(worst_shift_load(route_minhop(mh)), 1U) << spec;
  }
}

TEST(Ftree, HandCheckedTwoLevelTree) {
  // 4-port 2-tree: node-r on leaf sw-l1-(r/2) port r%2+1; leaf up ports 3, 4
  // lead to sw-l2-0, sw-l2-1; top port k+1 leads to leaf k.
  const Fabric f = make_fabric("fattree:ports=4,levels=2");
  const MinHop mh(f);
  const Lft lft = route_ftree(mh, updn_ranking(mh));
  const SwitchIdx leaf0 = f.switch_index(*f.find("sw-l1-0"));
  const SwitchIdx top0 = f.switch_index(*f.find("sw-l2-0"));
  auto node = [&](int r) { return f.lid(*f.find("node-" + std::to_string(r)), 1); };
  EXPECT_EQ(lft.get(leaf0, node(1)), 2);  // local
  EXPECT_EQ(lft.get(leaf0, node(2)), 3);  // index 2: even -> first up port
  EXPECT_EQ(lft.get(leaf0, node(5)), 4);  // index 5: odd -> second up port
  EXPECT_EQ(lft.get(leaf0, node(7)), 4);
  EXPECT_EQ(lft.get(top0, node(5)), 3);  // down to leaf 2
  EXPECT_EQ(lft.get(top0, node(0)), 1);
}

TEST(Ftree, PrunedFatTreeIsDeadlockFree) {
  const Fabric f = make_fabric("pruned:pods=3,leaves=4,nodes=4,l2=2,tops=2,paths=2");
  const MinHop mh(f);
  const Lft lft = route_ftree(mh, updn_ranking(mh));
  EXPECT_EQ(walk_all(mh, lft, hca_switches(f), true), "");
  EXPECT_TRUE(check_credit_loops(lft).acyclic);
}

TEST(Dor, DatelineLanesAreAcyclicWithoutThemACycle) {
  const Fabric f = make_fabric("torus:x=5,y=4,z=3,nodes=1");
  const MinHop mh(f);
  const TorusLayout t = torus_layout(f);
  EXPECT_EQ(t.dims, (std::array<int, 3>{5, 4, 3}));
  const Lft lft = route_dor(f, t);
  EXPECT_EQ(check_shortest(mh, lft), "");
  const CreditLoopReport with = check_credit_loops(lft, dor_dateline_vls(t));
  EXPECT_TRUE(with.acyclic) << with.describe(f);
  const CreditLoopReport without = check_credit_loops(lft);
  EXPECT_FALSE(without.acyclic);
  expect_closed(f, without);
}

// A torus large enough for route_dor's two threads, with an odd number of
// table entries per row: every entry against the rule computed here.
TEST(Dor, EveryEntryFollowsTheRuleOnALargeTorus) {
  const Fabric f = make_fabric("torus:x=11,y=10,z=10,nodes=1");
  const TorusLayout t = torus_layout(f);
  const Lft lft = route_dor(f, t);
  ASSERT_EQ(lft.dest_count() % 2, 1U);
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    for (Lid d = 1; d <= f.max_lid(); ++d) {
      const NodeId owner = f.lid_owner(d).node;
      const SwitchIdx to = f.is_switch(owner) ? f.switch_index(owner) : f.attach_switch(owner);
      PortNum want = 0;
      if (to == s) {
        want = f.is_switch(owner) ? PortNum{0} : f.peer(owner, 1).port;
      } else {
        int dim = 0;
        while (t.coord[s][dim] == t.coord[to][dim]) {
          ++dim;
        }
        const int k = t.dims[dim];
        const int ahead = (t.coord[to][dim] - t.coord[s][dim] + k) % k;
        want = static_cast<PortNum>(2 * ahead <= k ? 2 * dim + 1 : 2 * dim + 2);
      }
      ASSERT_EQ(lft.get(s, d), want) << "switch " << s << " LID " << d;
    }
  }
}

TEST(Dor, DimensionOrderHandChecked) {
  const Fabric f = make_fabric("torus:x=5,y=4,z=3,nodes=1");
  const TorusLayout t = torus_layout(f);
  const Lft lft = route_dor(f, t);
  // sw-0-0-0 to sw-3-2-1: x first, the short way (-x, 2 hops), port 2.
  const Lid dst = f.lid(*f.find("sw-3-2-1"));
  EXPECT_EQ(lft.get(0, dst), 2);
  const auto path = walk(lft, 0, dst);
  ASSERT_EQ(path.size(), 6U);  // 2 in x, 2 in y, 1 in z
  EXPECT_EQ(f.name(f.switch_node(path[2])), "sw-3-0-0");
  EXPECT_EQ(f.name(f.switch_node(path[4])), "sw-3-2-0");
}

TEST(Dor, LayoutRejectsANonTorus) {
  const Fabric f = make_fabric("fattree:ports=4,levels=2");
  EXPECT_THROW(torus_layout(f), FabricError);
}

class LashOnFabric : public ::testing::TestWithParam<const char*> {};

TEST_P(LashOnFabric, ShortestAndCreditLoopFreeWithItsLanes) {
  const Fabric f = make_fabric(GetParam());
  const MinHop mh(f);
  const LashRouting r = route_lash(mh);
  EXPECT_EQ(check_shortest(mh, r.lft), "");
  const CreditLoopReport with = check_credit_loops(r.lft, r.vls());
  EXPECT_TRUE(with.acyclic) << with.describe(f);
  // Where one lane deadlocks, LASH needed more.
  if (!check_credit_loops(r.lft).acyclic) {
    EXPECT_GE(r.lanes, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Fabrics, LashOnFabric,
                         ::testing::Values("torus:x=5,y=1,z=1,nodes=1", "torus:x=5,y=4,z=3,nodes=1",
                                           "torus:x=6,y=6,z=1,nodes=2", "dragonfly:a=3,p=1,h=2",
                                           "fattree:ports=4,levels=3"));

TEST(Lash, RingNeedsTwoLanesAndSaysSoWhenCapped) {
  const Fabric f = make_fabric("torus:x=5,y=1,z=1,nodes=1");
  const MinHop mh(f);
  EXPECT_EQ(route_lash(mh).lanes, 2);
  EXPECT_THROW(route_lash(mh, 1), FabricError);
}

TEST(LftDump, OpenSmLayout) {
  const Fabric f = make_fabric("torus:x=2,y=1,z=1,nodes=1");
  const Lft lft = route_minhop(MinHop(f));
  std::ostringstream out;
  write_lfts_dump(out, lft);
  // LIDs: switches 1, 2; end nodes 3 (on sw-0), 4 (on sw-1).
  const std::string expect =
      "Unicast lids [0-4] of switch Lid 1 guid 0x0000000000200000 ('sw-0-0-0'):\n"
      "0x0001 000 # Switch portguid 0x0000000000200000: 'sw-0-0-0'\n"
      "0x0002 001 # Switch portguid 0x0000000000200001: 'sw-1-0-0'\n"
      "0x0003 007 # Channel Adapter portguid 0x0000000000100001: 'node-0-0-0-0'\n"
      "0x0004 002 # Channel Adapter portguid 0x0000000000100003: 'node-1-0-0-0'\n"
      "4 lids dumped\n";
  EXPECT_EQ(out.str().substr(0, expect.size()), expect);
}

TEST(LftDump, UnroutedEntriesAreLeftOutAsOpenSmDoes) {
  const Fabric f = make_fabric("fattree:ports=4,levels=2");  // 2 leaves, 2 tops
  const MinHop mh(f);
  const UpdnRanking rk = updn_ranking(mh);
  const Lft lft = route_updn(mh, rk);
  std::ostringstream out;
  write_lfts_dump(out, lft);
  const std::string& top = f.name(f.switch_node(rk.roots[0]));
  const std::string& other = f.name(f.switch_node(rk.roots[1]));
  const std::string text = out.str();
  const auto begin = text.find("('" + top + "'):");
  ASSERT_NE(begin, std::string::npos) << text;
  const std::string section = text.substr(begin, text.find("lids dumped", begin) - begin);
  EXPECT_EQ(section.find("'" + other + "'"), std::string::npos) << section;
  EXPECT_NE(section.find("Channel Adapter"), std::string::npos) << section;
}

}  // namespace
}  // namespace syncfab::sm
