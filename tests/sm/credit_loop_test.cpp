// The credit-loop checker against the algorithm it replaced (the oracle in
// credit_loop_oracle.cpp): the same verdict, cycle, channel and dependency
// counts on several fabrics, engines, lane assignments and port groups, with
// one walker and with two.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>

#include "credit_loop_oracle.hpp"
#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/net_format.hpp"
#include "syncfab/sm/port_groups.hpp"
#include "syncfab/sm/unicast.hpp"
#include "syncfab/sm/unicast_engines.hpp"

namespace syncfab::sm {
namespace {

// Same graph, same DFS: every field of the report agrees, for either source
// set and walker count.
void expect_same_as_oracle(const Lft& lft, const VlAssignment& vls, const std::string& what) {
  const Fabric& f = lft.fabric();
  for (const bool all_sources : {false, true}) {
    const CreditLoopReport want = test::check_credit_loops_oracle(lft, vls, all_sources);
    for (const int threads : {1, 2}) {
      const CreditLoopReport got = check_credit_loops(lft, vls, all_sources, threads);
      const std::string where = what + (all_sources ? ", all switches" : ", end-node switches") +
                                ", " + std::to_string(threads) + " walker(s)";
      EXPECT_EQ(got.acyclic, want.acyclic) << where;
      EXPECT_EQ(got.channels, want.channels) << where;
      EXPECT_EQ(got.dependencies, want.dependencies) << where;
      EXPECT_EQ(got.describe(f), want.describe(f)) << where;
    }
  }
}

// The same with port groups.
void expect_same_as_oracle(const Lft& lft, const PortGroups& groups, const VlAssignment& vls,
                           const std::string& what) {
  const Fabric& f = lft.fabric();
  for (const bool all_sources : {false, true}) {
    const CreditLoopReport want = test::check_credit_loops_oracle(lft, groups, vls, all_sources);
    for (const int threads : {1, 2}) {
      const CreditLoopReport got = check_credit_loops(lft, &groups, vls, all_sources, threads);
      const std::string where = what + (all_sources ? ", all switches" : ", end-node switches") +
                                ", " + std::to_string(threads) + " walker(s)";
      EXPECT_EQ(got.acyclic, want.acyclic) << where;
      EXPECT_EQ(got.channels, want.channels) << where;
      EXPECT_EQ(got.dependencies, want.dependencies) << where;
      EXPECT_EQ(got.describe(f), want.describe(f)) << where;
    }
  }
}

struct EngineCase {
  const char* fabric;
  const char* engine;
};

class CreditLoopsMatchOracle : public ::testing::TestWithParam<EngineCase> {};

TEST_P(CreditLoopsMatchOracle, SameReport) {
  const Fabric f = make_fabric(GetParam().fabric);
  const MinHop mh(f);
  UnicastRouting r;
  route_unicast(GetParam().engine, mh, r);
  const std::string what = std::string(GetParam().fabric) + " " + GetParam().engine;
  expect_same_as_oracle(*r.lft, r.vls, what);
  // The engine's tables on one lane too (DOR without its datelines loops).
  expect_same_as_oracle(*r.lft, VlAssignment{}, what + " on one lane");
}

INSTANTIATE_TEST_SUITE_P(
    Engines, CreditLoopsMatchOracle,
    ::testing::Values(EngineCase{"torus:x=5,y=4,z=3,nodes=2", "dor"},
                      EngineCase{"torus:x=5,y=4,z=3,nodes=2", "minhop"},
                      EngineCase{"torus:x=4,y=3,z=2,nodes=1", "updn"},
                      EngineCase{"torus:x=4,y=3,z=2,nodes=1", "lash"},
                      EngineCase{"fattree:ports=8,levels=3", "minhop"},
                      EngineCase{"fattree:ports=8,levels=3", "ftree"},
                      EngineCase{"pruned:pods=3,leaves=2,nodes=2,l2=2,tops=2,paths=2", "lash"},
                      EngineCase{"dragonfly:a=4,p=2,h=2", "minhop"},
                      EngineCase{"dragonfly:a=4,p=2,h=2", "updn"},
                      EngineCase{"dragonfly:a=4,p=2,h=2", "lash"}));

struct GroupCase {
  const char* fabric;
  const char* engine;
  GroupMode mode;
};

class CreditLoopsWithGroupsMatchOracle : public ::testing::TestWithParam<GroupCase> {};

// The engines' ECMP and LAG groups: acyclic fat trees, a torus whose groups
// loop (the cycle found must be the same), parallel trunks.
TEST_P(CreditLoopsWithGroupsMatchOracle, SameReport) {
  const Fabric f = make_fabric(GetParam().fabric);
  const MinHop mh(f);
  UnicastRouting r;
  r.group_mode = GetParam().mode;
  route_unicast(GetParam().engine, mh, r);
  ASSERT_TRUE(r.groups.has_value());
  ASSERT_GT(r.groups->grouped_entries(), 0U);
  const std::string what = std::string(GetParam().fabric) + " " + GetParam().engine + " " +
                           std::string(group_mode_name(GetParam().mode));
  expect_same_as_oracle(*r.lft, *r.groups, VlAssignment{}, what);
}

INSTANTIATE_TEST_SUITE_P(
    Engines, CreditLoopsWithGroupsMatchOracle,
    ::testing::Values(
        GroupCase{"fattree:ports=8,levels=3", "ftree", GroupMode::kEcmp},
        GroupCase{"fattree:ports=8,levels=3", "updn", GroupMode::kEcmp},
        GroupCase{"fattree:ports=4,levels=3", "minhop", GroupMode::kEcmp},
        GroupCase{"torus:x=4,y=3,z=2,nodes=2", "minhop", GroupMode::kEcmp},
        GroupCase{"dragonfly:a=4,p=2,h=2", "minhop", GroupMode::kEcmp},
        GroupCase{"pruned:pods=3,leaves=2,nodes=2,l2=2,tops=2,paths=2", "ftree", GroupMode::kLag},
        GroupCase{"pruned:pods=3,leaves=2,nodes=2,l2=2,tops=2,paths=2", "updn", GroupMode::kEcmp}));

// Groups of arbitrary switch ports on a fat tree's up*/down* tables: a
// member that turns a packet from down to up adds dependencies no table has,
// so a walk the checker skipped, or an entry it read wrongly, shows in the
// counts. Lanes that depend on the destination's switch on top.
TEST(CreditLoopsWithGroups, RandomGroupsMatchTheOracle) {
  const Fabric f = make_fabric("fattree:ports=8,levels=3");
  const MinHop mh(f);
  UnicastRouting r;
  route_unicast("ftree", mh, r);
  const Lft& lft = *r.lft;
  for (const unsigned seed : {1U, 2U, 3U}) {
    std::mt19937 rng(seed);
    PortGroups groups(f);
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      const NodeId n = f.switch_node(s);
      std::vector<PortNum> ports;
      for (int p = 1; p <= f.num_ports(n); ++p) {
        const PortPeer o = f.peer(n, static_cast<PortNum>(p));
        if (o.connected() && f.is_switch(o.node)) {
          ports.push_back(static_cast<PortNum>(p));
        }
      }
      for (Dest d = 1; d < lft.dest_count(); ++d) {
        if (f.dest_owner(d).node == kNoNode || rng() % 32 != 0) {
          continue;
        }
        std::shuffle(ports.begin(), ports.end(), rng);
        const auto size = static_cast<std::ptrdiff_t>(2 + rng() % (ports.size() - 1));
        std::vector<PortNum> m(ports.begin(), ports.begin() + size);
        std::sort(m.begin(), m.end());
        groups.propose(s, d, m);
      }
    }
    groups.finalize(8);
    ASSERT_GT(groups.grouped_entries(), 0U);
    const std::string what = "random groups, seed " + std::to_string(seed);
    expect_same_as_oracle(lft, groups, VlAssignment{}, what);

    auto dst_switch = [&f](Dest d) {
      const NodeId n = f.dest_owner(d).node;
      return f.is_switch(n) ? f.switch_index(n) : f.attach_switch(n);
    };
    VlAssignment by_dst;
    by_dst.lanes = 2;
    by_dst.first = [dst_switch](SwitchIdx s, Dest d, PortNum out) -> std::uint8_t {
      return static_cast<std::uint8_t>((s + dst_switch(d) + out) % 2);
    };
    by_dst.next = [dst_switch](SwitchIdx at, PortNum in, PortNum out, std::uint8_t vl,
                               Dest d) -> std::uint8_t {
      return static_cast<std::uint8_t>((at + in + out * 3 + vl + dst_switch(d)) % 2);
    };
    expect_same_as_oracle(lft, groups, by_dst, what + ", lanes by destination switch");
  }
}

// The known verdicts on a torus: MINHOP's rings loop, DOR loops on one lane
// and not with the dateline lanes.
TEST(CreditLoopsKnown, TorusVerdicts) {
  const Fabric f = make_fabric("torus:x=6,y=5,z=4,nodes=2");
  const MinHop mh(f);
  EXPECT_FALSE(check_credit_loops(route_minhop(mh)).acyclic);
  const TorusLayout layout = torus_layout(f);
  const Lft dor = route_dor(f, layout);
  const CreditLoopReport one = check_credit_loops(dor);
  EXPECT_FALSE(one.acyclic);
  EXPECT_FALSE(one.cycle.empty());
  EXPECT_TRUE(check_credit_loops(dor, dor_dateline_vls(layout)).acyclic);
}

// Lanes that depend on the destination's switch, the hop and the arriving
// lane, through the functions (no promises) and, for the part that ignores
// the destination, through the tables (promised).
TEST(CreditLoopsLanes, ArbitraryLanesMatchTheOracle) {
  const Fabric f = make_fabric("torus:x=4,y=3,z=3,nodes=2");
  const MinHop mh(f);
  const Lft lft = route_minhop(mh);
  auto dst_switch = [&f](Lid d) {
    const NodeId n = f.lid_owner(d).node;
    return f.is_switch(n) ? f.switch_index(n) : f.attach_switch(n);
  };
  VlAssignment by_dst;
  by_dst.lanes = 3;
  by_dst.first = [dst_switch](SwitchIdx s, Lid d, PortNum out) -> std::uint8_t {
    return static_cast<std::uint8_t>((s * 7 + dst_switch(d) * 3 + out) % 3);
  };
  by_dst.next = [dst_switch](SwitchIdx at, PortNum in, PortNum out, std::uint8_t vl,
                             Lid d) -> std::uint8_t {
    return static_cast<std::uint8_t>((at + in * 5 + out + vl + dst_switch(d)) % 3);
  };
  expect_same_as_oracle(lft, by_dst, "lanes by destination switch");

  VlAssignment free = by_dst;
  free.first = [](SwitchIdx s, Lid, PortNum out) -> std::uint8_t {
    return static_cast<std::uint8_t>((s + out) % 3);
  };
  free.next = [](SwitchIdx at, PortNum in, PortNum out, std::uint8_t vl, Lid) -> std::uint8_t {
    return static_cast<std::uint8_t>((at * 3 + in + out * 2 + vl) % 3);
  };
  expect_same_as_oracle(lft, free, "destination-free lanes, called");
  free.first_ignores_dst = true;
  free.next_ignores_dst = true;
  expect_same_as_oracle(lft, free, "destination-free lanes, tabulated");
}

// A tabulated lane out of range only fails when a path takes it.
TEST(CreditLoopsLanes, TabulatedLaneOutOfRangeFailsWhenUsed) {
  const Fabric f = make_fabric("torus:x=5,y=1,z=1,nodes=1");
  const Lft lft = route_minhop(MinHop(f));
  VlAssignment v;
  v.lanes = 2;
  v.first_ignores_dst = true;
  v.next_ignores_dst = true;
  v.first = [](SwitchIdx, Lid, PortNum) -> std::uint8_t { return 0; };
  v.next = [](SwitchIdx, PortNum, PortNum, std::uint8_t, Lid) -> std::uint8_t { return 5; };
  EXPECT_THROW(check_credit_loops(lft, v, false, 1), FabricError);
  EXPECT_THROW(check_credit_loops(lft, v, false, 2), FabricError);
}

// Real dumps: a dual-ported host cabled to two switches, its LIDs on two
// switches, parallel links.
TEST(CreditLoopsMatchOracleOnDumps, ManPageTopology) {
  const std::string path = std::string(SYNCFAB_SM_DATA_DIR) + "/ibnetdiscover_manpage.net";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const Fabric f = read_net(in, path);
  const MinHop mh(f);
  for (const char* engine : {"minhop", "updn"}) {
    UnicastRouting r;
    route_unicast(engine, mh, r);
    expect_same_as_oracle(*r.lft, r.vls, std::string("man page ") + engine);
  }
}

}  // namespace
}  // namespace syncfab::sm
