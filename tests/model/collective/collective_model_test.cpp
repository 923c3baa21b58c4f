// The event-driven golden fabric on hand-built topologies, every figure
// worked out by hand from the default Timing: a NIC puts its first packet on
// the link 3 cycles after the post, a link of delay 4 delivers a one-flit
// packet (on the link in t) in t + 4, a switch enqueues one copy per cycle
// (an absorbed arrival costs none) and a copy enqueued in e leaves in e + 3,
// the completion unit writes the CQ entry 8 cycles after the packet that
// completes the barrier was taken; a multicast-release root sends its
// RELEASE 1 cycle after the last ARRIVE, an ACK leaves 1 cycle after its
// NOTIFY.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/model/collective/collective_model.hpp"

namespace cm = syncfab::model::collective;

namespace {

// One switch of 8 ports, end node i on port i + 1.
cm::Topology one_switch(unsigned nodes) {
  cm::Topology t;
  t.switch_ports = {8};
  for (unsigned i = 0; i < nodes; ++i) {
    t.nodes.push_back({0, i + 1, 4});
  }
  return t;
}

cm::Group group(cm::BarrierKind kind, std::vector<unsigned> members, cm::GroupTree tree = {}) {
  cm::Group g;
  g.spec = {kind, 1};
  g.members = std::move(members);
  g.tree = std::move(tree);
  return g;
}

cm::GroupTree root_only(std::vector<unsigned> children) {
  cm::GroupTree t;
  t.switches.push_back({0, std::nullopt, std::move(children)});
  return t;
}

TEST(CollectiveModel, CombOnOneSwitch) {
  cm::Network net(one_switch(2));
  // Both COMB_ARRIVEs on their links in 3, taken in 7; the first absorbed,
  // the second completes the root: both COMB_RELEASE copies enqueued in 7
  // and leaving together (one-flit shared read), on the links in 10, taken
  // in 14, CQ entries in 22.
  const auto r = cm::run_barrier(net, group(cm::BarrierKind::kComb, {0, 1}, root_only({1, 2})));
  EXPECT_EQ(r.done, (std::vector<cm::Cycle>{22, 22}));
  EXPECT_EQ(r.latency, 22U);
  EXPECT_EQ(r.traffic.sent[static_cast<std::size_t>(cm::PacketKind::kCombArrive)], 2U);
  EXPECT_EQ(r.traffic.hops[static_cast<std::size_t>(cm::PacketKind::kCombRelease)], 2U);
}

TEST(CollectiveModel, McastOnOneSwitch) {
  cm::Network net(one_switch(2));
  // Member 1's ARRIVE on the link in 3, at the switch in 7, enqueued in 7,
  // on the root's link in 10, taken in 14; RELEASE on the link in 15 (root
  // CQ entry 15 + 8 = 23), at the switch in 19, one copy (not back to the
  // root) in 22, taken in 26, CQ entry 34.
  const auto r = cm::run_barrier(net, group(cm::BarrierKind::kMcast, {0, 1}, root_only({1, 2})));
  EXPECT_EQ(r.done, (std::vector<cm::Cycle>{23, 34}));
  EXPECT_EQ(r.latency, 34U);
}

TEST(CollectiveModel, ArrivalsSerializeOnTheRootLink) {
  // Five members, ARRIVE three flits long: the four ARRIVEs' last flits
  // reach the switch in 3 + 2 + 4 = 9, are enqueued in 9, 10, 11, 12 and may
  // leave from 12 .. 15, but the root's link carries one flit per cycle:
  // they start in 12, 15, 18, 21 and their last flits are taken in 18, 21,
  // 24, 27. RELEASE in 28 (root CQ 36), at the switch in 32, its four
  // copies enqueued together in 32, on the links in 35, taken in 39, CQ 47.
  cm::Network net(one_switch(5));
  cm::Timing t;
  t.flits[static_cast<std::size_t>(cm::PacketKind::kArrive)] = 3;
  const auto r = cm::run_barrier(
      net, group(cm::BarrierKind::kMcast, {0, 1, 2, 3, 4}, root_only({1, 2, 3, 4, 5})), t);
  EXPECT_EQ(r.done, (std::vector<cm::Cycle>{36, 47, 47, 47, 47}));
  EXPECT_EQ(r.latency, 47U);
}

// Root switch 0 (port 1 to switch 1, port 2 to switch 2); switches 1 and 2
// with end nodes on ports 1 and 2 and their up-link on port 3.
cm::Topology two_level() {
  cm::Topology t;
  t.switch_ports = {4, 4, 4};
  t.links.push_back({0, 1, 1, 3, 4});
  t.links.push_back({0, 2, 2, 3, 4});
  t.nodes = {{1, 1, 4}, {1, 2, 4}, {2, 1, 4}, {2, 2, 4}};
  return t;
}

cm::GroupTree two_level_tree() {
  cm::GroupTree t;
  t.switches.push_back({0, std::nullopt, {1, 2}});
  t.switches.push_back({1, 3U, {1, 2}});
  t.switches.push_back({2, 3U, {1, 2}});
  return t;
}

TEST(CollectiveModel, CombOnTwoLevels) {
  cm::Network net(two_level());
  // Each leaf combines its two arrivals (taken in 7) into one COMB_ARRIVE
  // enqueued in 7, on the up-link in 10, at the root in 14 (both leaves);
  // the root's COMB_RELEASE copies both in 14, on the links in 17, at the
  // leaves in 21; each leaf's copies in 21, on the links in 24, NICs take
  // 28, CQ 36.
  const auto r =
      cm::run_barrier(net, group(cm::BarrierKind::kComb, {0, 1, 2, 3}, two_level_tree()));
  EXPECT_EQ(r.done, (std::vector<cm::Cycle>{36, 36, 36, 36}));
  EXPECT_EQ(r.latency, 36U);
  EXPECT_EQ(r.traffic.hops[static_cast<std::size_t>(cm::PacketKind::kCombArrive)], 6U);
  EXPECT_EQ(r.traffic.hops[static_cast<std::size_t>(cm::PacketKind::kCombRelease)], 6U);
}

TEST(CollectiveModel, DisseminationOnOneSwitch) {
  cm::Network net(one_switch(2));
  // NOTIFYs on the links in 3, at the switch in 7, enqueued 7 (rank 0's) and
  // 8, taken in 14 (rank 1) and 15 (rank 0); ACKs on the links in 15 and 16,
  // at the switch in 19 and 20, on the links in 22 and 23, taken in 26
  // (rank 0) and 27 (rank 1): CQ entries 34 and 35.
  const auto r = cm::run_barrier(net, group(cm::BarrierKind::kDissemination, {0, 1}));
  EXPECT_EQ(r.done, (std::vector<cm::Cycle>{34, 35}));
  EXPECT_EQ(r.traffic.sent[static_cast<std::size_t>(cm::PacketKind::kNotify)], 2U);
  EXPECT_EQ(r.traffic.sent[static_cast<std::size_t>(cm::PacketKind::kAck)], 2U);
}

TEST(CollectiveModel, SoftwareOnOneSwitch) {
  cm::Network net(one_switch(2));
  // Each host posts its message in 18 (o_send), on the link in 21, at the
  // switch in 25, enqueued 25 and 26, taken 32 (rank 1) and 33 (rank 0),
  // visible 8 cycles later, noticed (o_poll 9): rank 1 leaves in 49, rank 0
  // in 50.
  const auto r = cm::run_barrier(net, group(cm::BarrierKind::kSoftware, {0, 1}));
  EXPECT_EQ(r.done, (std::vector<cm::Cycle>{50, 49}));
  EXPECT_EQ(r.latency, 50U);
}

TEST(CollectiveModel, ConcurrentBarriersBackToBack) {
  cm::Network net(one_switch(2));
  // Each barrier as CombOnOneSwitch, each member posting the next when its
  // previous one completed (22): 22 cycles from the last post each.
  const cm::Group g = group(cm::BarrierKind::kComb, {0, 1}, root_only({1, 2}));
  const auto r = cm::run_concurrent(net, std::span<const cm::Group>(&g, 1), 3);
  ASSERT_EQ(r.latency.size(), 1U);
  EXPECT_EQ(r.latency[0], (std::vector<cm::Cycle>{22, 22, 22}));
  EXPECT_EQ(r.end, 66U);
}

TEST(CollectiveModel, AMemberInTwoGroups) {
  // End node 1 is in both groups, one context each; they share its link,
  // the switch's engine and its completion unit, so each barrier takes at
  // least CombOnOneSwitch's 22 cycles and every one completes.
  cm::Network net(one_switch(3));
  const std::vector<cm::Group> groups{group(cm::BarrierKind::kComb, {0, 1}, root_only({1, 2})),
                                      group(cm::BarrierKind::kComb, {1, 2}, root_only({2, 3}))};
  const auto r = cm::run_concurrent(net, groups, 4);
  ASSERT_EQ(r.latency.size(), 2U);
  for (const auto& g : r.latency) {
    ASSERT_EQ(g.size(), 4U);
    for (const cm::Cycle c : g) {
      EXPECT_GE(c, 22U);
      EXPECT_LE(c, 40U);
    }
  }
  EXPECT_EQ(r.traffic.sent[static_cast<std::size_t>(cm::PacketKind::kCombArrive)], 16U);
}

TEST(CollectiveModel, SafetyNamesGroupEpochAndMember) {
  // Member 1's switch (1) hangs off the root by port 3 -> 0:1, but the
  // root's children name only member 0's port: the root releases on member
  // 0's arrival alone, long before member 1 posts in cycle 1000.
  cm::Topology topo;
  topo.switch_ports = {4, 4};
  topo.links.push_back({0, 1, 1, 3, 4});
  topo.nodes = {{0, 2, 4}, {1, 1, 4}};
  cm::Network net(topo);
  cm::GroupTree tree;
  tree.switches.push_back({0, std::nullopt, {2}});
  tree.switches.push_back({1, 3U, {1}});
  cm::Group g = group(cm::BarrierKind::kComb, {0, 1}, tree);
  g.first_post = {0, 1000};
  try {
    (void)cm::run_barrier(net, g);
    FAIL() << "no safety violation";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("SAFETY: group 0 epoch 0: member 0"), std::string::npos)
        << e.what();
  }
}

TEST(CollectiveModel, BadGroupsNamed) {
  cm::Network net(one_switch(2));
  EXPECT_THROW((void)cm::run_barrier(net, group(cm::BarrierKind::kComb, {})),
               std::invalid_argument);
  EXPECT_THROW((void)cm::run_barrier(net, group(cm::BarrierKind::kComb, {0, 5}, root_only({1}))),
               std::invalid_argument);
  EXPECT_THROW((void)cm::run_barrier(net, group(cm::BarrierKind::kComb, {0, 1}, root_only({1}))),
               std::invalid_argument);  // member 1's port is no child
  EXPECT_THROW((void)cm::run_barrier(net, group(cm::BarrierKind::kDissemination, {1, 1})),
               std::invalid_argument);
}

TEST(CollectiveModel, Schedule) {
  EXPECT_EQ(cm::dissemination_rounds(1, 1), 0U);
  EXPECT_EQ(cm::dissemination_rounds(5, 2), 2U);
  EXPECT_EQ(cm::round_offsets(5, 2, 0), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(cm::round_offsets(5, 2, 1), (std::vector<unsigned>{3}));  // 6 >= 5 left out
  EXPECT_EQ(cm::dissemination_rounds(100'000, 1), 17U);
}

TEST(CollectiveModel, Kinds) {
  EXPECT_EQ(cm::to_string(cm::parse_barrier_kind("diss3")), "diss3");
  EXPECT_EQ(cm::parse_barrier_kind("sw2").kind, cm::BarrierKind::kSoftware);
  EXPECT_EQ(cm::parse_timing("rtl").nic_inject, 5U);
  EXPECT_EQ(cm::parse_timing("golden").nic_inject, 3U);
  EXPECT_THROW((void)cm::parse_timing("fast"), std::invalid_argument);
  try {
    (void)cm::parse_barrier_kind("diss9");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'diss9'"), std::string::npos);
  }
}

TEST(CollectiveModel, RoutingSpreadsByDestination) {
  // Two parallel switches between switch 0 and switch 3: destinations
  // alternate between them (destination mod 2 at the first switch).
  cm::Topology t;
  t.switch_ports = {8, 2, 2, 8};
  t.links = {{0, 1, 1, 1, 4}, {0, 2, 2, 1, 4}, {1, 2, 3, 1, 4}, {2, 2, 3, 2, 4}};
  t.nodes = {{0, 3, 4}, {3, 3, 4}, {3, 4, 4}};
  cm::Network net(t);
  std::uint64_t spread = 1;
  EXPECT_EQ(net.route(0, 1, spread), 2U);  // 1 mod 2 = index 1: port 2
  spread = 1;
  EXPECT_EQ(net.route(0, 2, spread), 1U);
  EXPECT_EQ(net.hops(0, 3), 2U);
  EXPECT_EQ(net.route(3, 1, spread), 3U);  // its own port
}

}  // namespace
