// Port groups (docs/switch-ecmp.md section 3): what MINHOP, UPDN and FTREE
// emit with ECMP and with LAG, the per-switch cap and its first-met
// numbering, and the credit-loop check taking every member as a next channel.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/port_groups.hpp"
#include "syncfab/sm/unicast.hpp"
#include "syncfab/sm/unicast_engines.hpp"

namespace syncfab::sm {
namespace {

UnicastRouting route(const char* engine, const MinHop& mh, GroupMode mode) {
  UnicastRouting r;
  r.group_mode = mode;
  route_unicast(engine, mh, r);
  return r;
}

// The switch port p of switch s leads to (kNoSwitch for an end node).
SwitchIdx next_switch(const Fabric& f, SwitchIdx s, PortNum p) {
  const PortPeer o = f.peer(f.switch_node(s), p);
  return o.connected() && f.is_switch(o.node) ? f.switch_index(o.node) : kNoSwitch;
}

struct GroupCase {
  const char* fabric;
  const char* engine;
};

class EcmpGroups : public ::testing::TestWithParam<GroupCase> {};

// ECMP: the single-port tables do not change; every group holds the entry's
// own port, only ports one hop closer to the destination, and (for
// MINHOP) every such port; at most PORT_GROUPS groups per switch, each named
// by some entry; the UPDN/FTREE tables with their groups stay credit-loop free.
TEST_P(EcmpGroups, MembersAreMinimumHopPortsAndTablesStayAcyclic) {
  const Fabric f = make_fabric(GetParam().fabric);
  const MinHop mh(f);
  const std::string what = std::string(GetParam().fabric) + " " + GetParam().engine;
  const UnicastRouting plain = route(GetParam().engine, mh, GroupMode::kOff);
  const UnicastRouting ecmp = route(GetParam().engine, mh, GroupMode::kEcmp);
  EXPECT_FALSE(plain.groups.has_value());
  ASSERT_TRUE(ecmp.groups.has_value());
  const PortGroups& pg = *ecmp.groups;
  EXPECT_GT(pg.grouped_entries(), 0U) << what;
  EXPECT_EQ(pg.fallback_entries(), 0U) << what;
  const bool minhop = std::string(GetParam().engine) == "minhop";
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    ASSERT_LE(pg.group_count(s), fmt::kPortGroups);
    std::set<int> named;
    for (Dest d = 1; d < plain.lft->dest_count(); ++d) {
      const PortNum p = plain.lft->get(s, d);
      ASSERT_EQ(ecmp.lft->get(s, d), p) << what << " switch " << s << " dest " << d;
      const int g = pg.group(s, d);
      if (g < 0) {
        continue;
      }
      named.insert(g);
      const auto m = pg.members(s, g);
      ASSERT_GE(m.size(), 2U);
      EXPECT_NE(std::find(m.begin(), m.end(), p), m.end()) << what;
      const SwitchIdx t = f.is_switch(f.dest_owner(d).node) ? f.switch_index(f.dest_owner(d).node)
                                                            : f.attach_switch(f.dest_owner(d).node);
      std::size_t closer = 0;
      for (int q = 1; q <= f.num_ports(f.switch_node(s)); ++q) {
        const SwitchIdx u = next_switch(f, s, static_cast<PortNum>(q));
        closer += u != kNoSwitch && mh.distance(u, t) + 1 == mh.distance(s, t) ? 1 : 0;
      }
      for (const PortNum q : m) {
        const SwitchIdx u = next_switch(f, s, q);
        ASSERT_NE(u, kNoSwitch) << what;
        EXPECT_EQ(mh.distance(u, t) + 1, mh.distance(s, t)) << what << " member " << int{q};
      }
      if (minhop) {
        EXPECT_EQ(m.size(), closer) << what;
      }
    }
    EXPECT_EQ(named.size(), pg.group_count(s)) << what << " switch " << s;
  }
  if (ecmp.promises_acyclic) {
    const CreditLoopReport r = check_credit_loops(*ecmp.lft, &pg);
    EXPECT_TRUE(r.acyclic) << what << ": " << r.describe(f);
    // More next channels than the single-port tables have.
    EXPECT_GT(r.dependencies, check_credit_loops(*plain.lft).dependencies) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Engines, EcmpGroups,
    ::testing::Values(GroupCase{"fattree:ports=4,levels=3", "ftree"},
                      GroupCase{"fattree:ports=8,levels=3", "ftree"},
                      GroupCase{"fattree:ports=8,levels=3", "updn"},
                      GroupCase{"pruned:pods=3,leaves=2,nodes=2,l2=2,tops=1,paths=2", "ftree"},
                      GroupCase{"pruned:pods=3,leaves=2,nodes=2,l2=2,tops=1,paths=2", "updn"},
                      GroupCase{"fattree:ports=4,levels=3", "minhop"},
                      GroupCase{"torus:x=4,y=3,z=1,nodes=1", "minhop"}),
    [](const auto& info) {
      std::string s = std::string(info.param.fabric) + "_" + info.param.engine;
      for (char& c : s) {
        c = std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
      }
      return s;
    });

// LAG: the pruned fat tree's trunks (paths=2 parallel links between a
// second-level and a top switch) become groups of the two links to the
// engine's own next switch; nothing else is grouped.
TEST(LagGroups, ParallelLinksToTheEnginesNextSwitch) {
  const Fabric f = make_fabric("pruned:pods=3,leaves=2,nodes=2,l2=2,tops=1,paths=2");
  const MinHop mh(f);
  for (const char* engine : {"ftree", "updn", "minhop"}) {
    const UnicastRouting lag = route(engine, mh, GroupMode::kLag);
    const PortGroups& pg = *lag.groups;
    EXPECT_GT(pg.grouped_entries(), 0U) << engine;
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      for (Dest d = 1; d < lag.lft->dest_count(); ++d) {
        const int g = pg.group(s, d);
        if (g < 0) {
          continue;
        }
        const auto m = pg.members(s, g);
        ASSERT_EQ(m.size(), 2U) << engine;
        const SwitchIdx next = next_switch(f, s, lag.lft->get(s, d));
        for (const PortNum q : m) {
          EXPECT_EQ(next_switch(f, s, q), next) << engine;
        }
      }
    }
    EXPECT_TRUE(check_credit_loops(*lag.lft, &pg).acyclic || !lag.promises_acyclic) << engine;
  }
  // A k-port n-tree has no parallel links: no LAG groups at all.
  const Fabric tree = make_fabric("fattree:ports=4,levels=3");
  EXPECT_EQ(route("ftree", MinHop(tree), GroupMode::kLag).groups->grouped_entries(), 0U);
}

// Numbered in destination (LID) order, whatever order the engine proposed
// them in; past the cap an entry keeps its single port and is counted.
TEST(PortGroupsTable, FirstMetNumberingAndCap) {
  const Fabric f = make_fabric("torus:x=4,y=1,z=1,nodes=1");
  PortGroups pg(f);
  const std::vector<PortNum> a{1, 2}, b{1, 7}, c{2, 7};
  pg.propose(0, 5, b);
  pg.propose(0, 2, a);
  pg.propose(0, 6, c);
  pg.propose(0, 3, b);
  pg.propose(0, 4, std::vector<PortNum>{1});  // one port: an ordinary entry
  pg.propose(1, 7, c);
  pg.finalize(2);
  EXPECT_EQ(pg.group(0, 2), 0);
  EXPECT_EQ(pg.group(0, 3), 1);
  EXPECT_EQ(pg.group(0, 5), 1);
  EXPECT_EQ(pg.group(0, 6), -1);  // a third set on switch 0
  EXPECT_EQ(pg.group(0, 4), -1);
  EXPECT_EQ(pg.group(1, 7), 0);
  EXPECT_EQ(pg.group_count(0), 2U);
  EXPECT_EQ(std::vector<PortNum>(pg.members(0, 1).begin(), pg.members(0, 1).end()), b);
  EXPECT_EQ(pg.grouped_entries(), 4U);
  EXPECT_EQ(pg.fallback_entries(), 1U);
  EXPECT_EQ(pg.total_groups(), 3U);
}

// Ring of 4 (ports 1 = +x, 2 = -x): UPDN's single-port tables are credit-loop
// free; a group {+x, -x} for the opposite switch's destinations lets a packet
// go either way round, and then each clockwise channel waits on the next one.
TEST(CreditLoopsWithGroups, AGroupClosesALoopTheSinglePortTablesDidNotHave) {
  const Fabric f = make_fabric("torus:x=4,y=1,z=1,nodes=1");
  const MinHop mh(f);
  const Lft lft = route_updn(mh, updn_ranking(mh));
  ASSERT_TRUE(check_credit_loops(lft).acyclic);
  PortGroups pg(f);
  const std::vector<PortNum> both{1, 2};
  for (SwitchIdx s = 0; s < 4; ++s) {
    const NodeId opposite = f.switch_node((s + 2) % 4);
    pg.propose(s, f.lid(opposite), both);
    pg.propose(s, f.lid(*f.find("node-" + std::to_string((s + 2) % 4) + "-0-0-0"), 1), both);
  }
  pg.finalize(fmt::kPortGroups);
  ASSERT_EQ(pg.grouped_entries(), 8U);
  const CreditLoopReport r = check_credit_loops(lft, &pg);
  EXPECT_FALSE(r.acyclic);
  EXPECT_EQ(r.cycle.size(), 4U) << r.describe(f);
  // No group named: the same report as without groups.
  PortGroups none(f);
  none.finalize(fmt::kPortGroups);
  EXPECT_EQ(check_credit_loops(lft, &none).dependencies, check_credit_loops(lft).dependencies);
}

TEST(PortGroupsEngines, DorAndLashRefuseGroups) {
  const Fabric f = make_fabric("torus:x=3,y=3,z=1,nodes=1");
  const MinHop mh(f);
  for (const char* engine : {"dor", "lash"}) {
    UnicastRouting r;
    r.group_mode = GroupMode::kEcmp;
    try {
      route_unicast(engine, mh, r);
      ADD_FAILURE() << engine << " accepted ECMP";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(engine), std::string::npos) << e.what();
    }
  }
}

// The file next to lfts.dump: groups of a switch before the entries naming
// them, entries as "lid 0xLLLL group G".
TEST(PortGroupsFile, GroupsBeforeTheirEntries) {
  const Fabric f = make_fabric("fattree:ports=4,levels=2");
  const MinHop mh(f);
  const UnicastRouting r = route("ftree", mh, GroupMode::kEcmp);
  std::ostringstream out;
  write_port_groups(out, *r.lft, *r.groups);
  std::istringstream in(out.str());
  std::string line;
  std::size_t groups = 0, entries = 0;
  std::set<std::pair<std::string, std::string>> defined;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::istringstream w(line);
    std::string guid, second;
    w >> guid >> second;
    if (second == "lid") {
      std::string lid, kw;
      int g = -1;
      w >> lid >> kw >> g;
      EXPECT_EQ(kw, "group");
      EXPECT_TRUE(defined.count({guid, std::to_string(g)}) == 1) << line;
      ++entries;
    } else {
      defined.emplace(guid, second);
      ++groups;
    }
  }
  EXPECT_EQ(groups, r.groups->total_groups());
  EXPECT_EQ(entries, r.groups->grouped_entries());
}

}  // namespace
}  // namespace syncfab::sm
