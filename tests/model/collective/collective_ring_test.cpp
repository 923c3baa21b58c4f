// Ring mode of the switch-combined barrier on the event-driven golden fabric
// (docs/group-barrier.md "Ring mode"): a 4-ring worked out by hand, the 8 x 8
// torus of the latency study against tree mode and the physical bound (the
// entries from the subnet manager through the collective adapter, as
// syncfab-collective runs them), back-to-back barriers of several groups at
// once, the safety check firing on a wrong entry, refusals, and a 32 x 32 x 32
// torus with every switch a member.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabric_inputs.hpp"
#include "syncfab/model/collective/collective_model.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/test/seeds.hpp"

namespace cm = syncfab::model::collective;
namespace coll = syncfab::tb::collective;
namespace sm = syncfab::sm;

namespace {

// Switches 0..3 in a ring, switch s port 1 -> s + 1 (its port 2), end node
// s on port 3; every link delay 4.
cm::Topology four_ring() {
  cm::Topology t;
  t.switch_ports = {3, 3, 3, 3};
  for (unsigned s = 0; s < 4; ++s) {
    t.links.push_back({s, 1, (s + 1) % 4, 2, 4});
    t.nodes.push_back({s, 3, 4});
  }
  return t;
}

cm::GroupRings four_ring_full() {
  cm::GroupRings r;
  r.phases = 1;
  for (unsigned s = 0; s < 4; ++s) {
    r.switches.push_back({s,
                          {3},
                          {{.valid = true,
                            .plus = 1,
                            .minus = 2,
                            .pos = s,
                            .len = 4,
                            .origin = true,
                            .expect = 0b1111U & ~(1U << s)}}});
  }
  return r;
}

cm::Group ring_group(std::vector<unsigned> members, cm::GroupRings rings) {
  cm::Group g;
  g.spec = cm::parse_barrier_kind("ring");
  g.members = std::move(members);
  g.rings = std::move(rings);
  return g;
}

TEST(CollectiveRing, FourRingByHand) {
  cm::Network net(four_ring());
  // Every COMB_ARRIVE on its link in 3, taken in 7: the switch's own share
  // leaves both ways in 10 (reach 2 going +, 1 going -) and reaches both
  // neighbours in 14; the one travelling + is forwarded (leaves 17, taken
  // by the switch two away in 21), the other ends there. In 21 every switch
  // has heard the three others: its release leaves in 24, is taken in 28,
  // CQ entry in 36.
  const auto r = cm::run_barrier(net, ring_group({0, 1, 2, 3}, four_ring_full()));
  EXPECT_EQ(r.done, (std::vector<cm::Cycle>{36, 36, 36, 36}));
  EXPECT_EQ(r.latency, 36U);
  // 4 own shares of 2 copies each, 4 forwards: 12 share hops.
  EXPECT_EQ(r.traffic.hops[static_cast<std::size_t>(cm::PacketKind::kCombShare)], 12U);
  EXPECT_EQ(r.traffic.hops[static_cast<std::size_t>(cm::PacketKind::kCombRelease)], 4U);
  EXPECT_EQ(r.traffic.answers, 0U);
}

// The link between switches 2 and 3 is slow: switch 1 hears everyone
// quickly (0 and 2 directly, 3 by way of 0) and its members start the next
// barrier while switch 2's share of this one still crawls towards 0 by way
// of 3. Switch 0 takes 1's share of the next epoch while still completing
// this one and must keep it for then (the other parity).
TEST(CollectiveRing, ShareOfTheNextEpochKeptForIt) {
  cm::Topology topo = four_ring();
  topo.links[2].delay = 100;  // 2 port 1 -> 3 port 2
  cm::Network net(topo);
  const std::vector<cm::Group> groups{ring_group({0, 1, 2, 3}, four_ring_full())};
  const cm::ConcurrentOutcome r = cm::run_concurrent(net, groups, 3, {});
  ASSERT_EQ(r.last_done.size(), 1U);
  EXPECT_EQ(r.last_done[0].size(), 3U);
}

TEST(CollectiveRing, SafetyNamesTheMemberOnAWrongExpect) {
  // Switch 0 waits for nobody: it releases its member on its own arrival,
  // long before member 2 posts.
  cm::Network net(four_ring());
  cm::GroupRings rings = four_ring_full();
  rings.switches[0].phases[0].expect = 0;
  cm::Group g = ring_group({0, 1, 2, 3}, rings);
  g.first_post = {0, 0, 1000, 0};
  try {
    (void)cm::run_barrier(net, g);
    FAIL() << "no safety violation";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("SAFETY: group 0 epoch 0: member 0"), std::string::npos)
        << e.what();
  }
}

TEST(CollectiveRing, BadEntriesNamed) {
  cm::Network net(four_ring());
  const auto refusal = [&](const cm::GroupRings& rings) -> std::string {
    try {
      (void)cm::run_barrier(net, ring_group({0, 1, 2, 3}, rings));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  cm::GroupRings r = four_ring_full();
  r.switches[1].phases[0].len = 33;
  EXPECT_NE(refusal(r).find("ring switch 1: phase 0: position 1 of 33"), std::string::npos)
      << refusal(r);
  r = four_ring_full();
  r.switches[2].phases[0].plus = 3;
  EXPECT_NE(refusal(r).find("ring switch 2: phase 0: ring port 3"), std::string::npos)
      << refusal(r);
  r = four_ring_full();
  r.switches[3].phases[0].expect |= 1U << 3;
  EXPECT_NE(refusal(r).find("ring switch 3: phase 0: position 3 of 4, expected positions 15"),
            std::string::npos)
      << refusal(r);
  r = four_ring_full();
  r.switches[0].children.clear();
  EXPECT_NE(refusal(r).find("member 0 (end node 0, switch 0 port 3) is not a child port"),
            std::string::npos)
      << refusal(r);
  r = four_ring_full();
  r.phases = 4;
  EXPECT_NE(refusal(r).find("ring mode with 4 phases"), std::string::npos) << refusal(r);
}

TEST(CollectiveRing, Kind) {
  const cm::BarrierSpec s = cm::parse_barrier_kind("ring");
  EXPECT_EQ(s.kind, cm::BarrierKind::kComb);
  EXPECT_EQ(s.scheme, cm::CombScheme::kRing);
  EXPECT_EQ(cm::to_string(s), "ring");
  EXPECT_EQ(cm::parse_barrier_kind("comb").scheme, cm::CombScheme::kTree);
}

// The latency study's 8 x 8 torus (2 end nodes per switch, delay 4, seeded
// member draws, FULB-MC trees for tree mode).
struct Torus8 {
  sm::Fabric fabric = sm::make_torus({.x = 8, .y = 8, .z = 1, .nodes_per_switch = 2});
  coll::FabricInputs in{fabric, 4};
};

TEST(CollectiveRing, EightByEightTorusNearTheBound) {
  Torus8 t;
  const cm::Timing timing;
  for (const std::size_t p : {8U, 32U, 128U}) {
    const std::vector<unsigned> members = coll::draw_members(t.in, p, 1);
    cm::Group tree;
    tree.spec = cm::parse_barrier_kind("comb");
    tree.members = members;
    tree.tree = t.in.tree("FULB-MC", members);
    const cm::Group ring = ring_group(members, t.in.rings(members));
    const auto rt = cm::run_barrier(t.in.network(), tree, timing);
    const auto rr = cm::run_barrier(t.in.network(), ring, timing);
    const std::uint64_t bound = t.in.bound(members, timing);
    std::printf("8x8 torus p=%zu: tree %llu, ring %llu, bound %llu, ring answers %llu\n", p,
                static_cast<unsigned long long>(rt.latency),
                static_cast<unsigned long long>(rr.latency), static_cast<unsigned long long>(bound),
                static_cast<unsigned long long>(rr.traffic.answers));
    EXPECT_GE(rr.latency, bound) << p;
    EXPECT_LE(rr.latency * 10, bound * 11) << p << ": ring mode more than 1.1 x the bound";
    if (p == 128) {
      // Every switch a member: the tree pays the root's distance twice.
      EXPECT_LE(rr.latency * 3, rt.latency * 2) << "ring " << rr.latency << " tree " << rt.latency;
      EXPECT_EQ(rr.traffic.answers, 0U) << "every switch waits for every phase: nothing is late";
    } else {
      EXPECT_LT(rr.latency, rt.latency) << p;
    }
  }
}

// Groups of several sizes on one torus (and a tree-mode group beside them),
// each running barriers back to back: shares of the next epoch reach
// switches still completing this one, late shares of switches that do not
// need a phase are answered, and every member completes every barrier (the
// model checks safety and liveness).
TEST(CollectiveRing, ConcurrentGroupsBackToBack) {
  for (const std::uint64_t seed : syncfab::test::seeds({1, 2, 3})) {
    const std::string replay = "\n  replay: " + syncfab::test::replay_command(seed);
    for (const sm::TorusSpec& spec :
         {sm::TorusSpec{.x = 8, .y = 8, .z = 1, .nodes_per_switch = 2},
          sm::TorusSpec{.x = 5, .y = 3, .z = 4, .nodes_per_switch = 1},
          sm::TorusSpec{.x = 2, .y = 6, .z = 1, .nodes_per_switch = 3}}) {
      const sm::Fabric fabric = sm::make_torus(spec);
      coll::FabricInputs in(fabric, 4);
      std::mt19937_64 rng(seed);
      std::vector<cm::Group> groups;
      for (const std::size_t p : {std::size_t{2}, std::size_t{7}, in.nodes() / 2, in.nodes()}) {
        const std::vector<unsigned> members = coll::draw_members(in, p, rng());
        cm::Group g = ring_group(members, in.rings(members));
        g.first_post.resize(p);
        for (auto& f : g.first_post) {
          f = rng() % 50;
        }
        groups.push_back(std::move(g));
      }
      // A tree-mode group on the same switches at the same time.
      cm::Group tree;
      tree.spec = cm::parse_barrier_kind("comb");
      tree.members = coll::draw_members(in, in.nodes() / 3, rng());
      tree.tree = in.tree("FULB-MC", tree.members);
      groups.push_back(std::move(tree));
      cm::ConcurrentOutcome r;
      try {
        r = cm::run_concurrent(in.network(), groups, 6, {});
      } catch (const std::exception& e) {
        FAIL() << e.what() << replay;
      }
      for (const auto& lat : r.latency) {
        EXPECT_EQ(lat.size(), 6U) << replay;
      }
    }
  }
}

// No ring barrier beats the physical bound, whatever the members (a share
// that skipped a hop or a switch that released early would).
TEST(CollectiveRing, RandomGroupsNeverBeatTheBound) {
  for (const std::uint64_t seed : syncfab::test::seeds({1, 2, 3})) {
    const std::string replay = "\n  replay: " + syncfab::test::replay_command(seed);
    std::mt19937_64 rng(seed);
    for (const sm::TorusSpec& spec :
         {sm::TorusSpec{.x = 6, .y = 5, .z = 1, .nodes_per_switch = 2},
          sm::TorusSpec{.x = 4, .y = 3, .z = 3, .nodes_per_switch = 1},
          sm::TorusSpec{.x = 9, .y = 1, .z = 1, .nodes_per_switch = 2}}) {
      const sm::Fabric fabric = sm::make_torus(spec);
      coll::FabricInputs in(fabric, 4);
      for (int trial = 0; trial < 10; ++trial) {
        const std::size_t p = 2 + rng() % (in.nodes() - 1);
        const std::vector<unsigned> members = coll::draw_members(in, p, rng());
        const cm::Timing timing;
        const auto r =
            cm::run_barrier(in.network(), ring_group(members, in.rings(members)), timing);
        EXPECT_GE(r.latency, in.bound(members, timing)) << "p " << p << replay;
      }
    }
  }
}

TEST(CollectiveRing, NeedsATorus) {
  const sm::Fabric fabric = sm::make_fabric("fattree:ports=4,levels=2");
  coll::FabricInputs in(fabric, 4);
  EXPECT_THROW((void)in.rings({0, 1, 2}), sm::FabricError);
  const sm::Fabric long_ring = sm::make_torus({.x = 40, .y = 1, .z = 1, .nodes_per_switch = 1});
  coll::FabricInputs in2(long_ring, 4);
  try {
    (void)in2.rings({0, 1});
    FAIL() << "a ring of 40 accepted";
  } catch (const sm::FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("COMB_RING_MAX"), std::string::npos) << e.what();
  }
}

// The event model's scale: 32,768 switches, every one a member switch (one
// end node each); the physical bound is the diameter of 48 hops.
TEST(CollectiveRing, ThirtyTwoCubedEverySwitch) {
  const auto t0 = std::chrono::steady_clock::now();
  const sm::Fabric fabric =
      sm::make_torus({.x = 32, .y = 32, .z = 32, .nodes_per_switch = 1, .lids = false});
  coll::FabricInputs in(fabric, 4);
  std::vector<unsigned> members(in.nodes());
  for (unsigned i = 0; i < members.size(); ++i) {
    members[i] = i;
  }
  const cm::Group g = ring_group(members, in.rings(members));
  const auto t1 = std::chrono::steady_clock::now();
  const cm::Timing timing;
  const auto r = cm::run_barrier(in.network(), g, timing);
  const auto t2 = std::chrono::steady_clock::now();
  // (48 + 2) links x 4 + 49 switches x 3 + NIC 5 + 5.
  const std::uint64_t bound = 50 * 4 + 49 * timing.switch_forward + 10;
  std::printf(
      "32x32x32 torus, %zu members: ring %llu cycles (bound %llu), %llu events; "
      "set-up %.2f s, run %.2f s\n",
      members.size(), static_cast<unsigned long long>(r.latency),
      static_cast<unsigned long long>(bound), static_cast<unsigned long long>(r.traffic.events),
      std::chrono::duration<double>(t1 - t0).count(),
      std::chrono::duration<double>(t2 - t1).count());
  EXPECT_GE(r.latency, bound);
  EXPECT_LE(r.latency * 10, bound * 11);
}

}  // namespace
