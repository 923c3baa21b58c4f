// Multi-node barrier runs on the golden-model fabric (3D torus, DOR, fixed
// per-hop latency), each with a seed; every run checks safety, liveness,
// completion entries and counter identities (run_barrier_scenario).
//
// Seeds: SYNCFAB_SEED=n runs one seed, SYNCFAB_SEEDS=a-b a range; by default
// each test runs its own short list. A failure prints the seed and the
// command that replays it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <syncfab/model/barrier_scenario.hpp>
#include <syncfab/model/software_barrier.hpp>
#include <syncfab/model/torus.hpp>

#include <syncfab/test/seeds.hpp>

namespace syncfab::model {
namespace {

void run_seeds(ScenarioConfig cfg, const std::vector<std::uint64_t>& fallback) {
  for (const auto seed : syncfab::test::seeds(fallback)) {
    cfg.seed = seed;
    const auto r = run_barrier_scenario(cfg);
    EXPECT_TRUE(r.ok()) << "seed " << seed << ": " << r.summary()
                        << "\nreplay: " << syncfab::test::replay_command(seed, "SYNCFAB_TRACE=1");
    if (!r.ok()) {
      return;
    }
  }
}

ScenarioConfig shape(unsigned x, unsigned y, unsigned z, unsigned k) {
  ScenarioConfig c;
  c.x = x;
  c.y = y;
  c.z = z;
  c.fanout = k;
  c.trace = std::getenv("SYNCFAB_TRACE") != nullptr;
  return c;
}

TEST(BarrierFabric, TwoNodes) { run_seeds(shape(2, 1, 1, 1), {1, 2, 3}); }

TEST(BarrierFabric, OddSizesEveryFanout) {
  for (unsigned k = 1; k <= 4; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    run_seeds(shape(3, 1, 1, k), {1, 2});
    run_seeds(shape(5, 3, 1, k), {3, 4});
    run_seeds(shape(3, 5, 7, k), {5});
  }
}

TEST(BarrierFabric, SdqOnlyAndHdqOnly) {
  auto c = shape(3, 3, 3, 2);
  c.contexts = 2;
  c.sdq_share = 1.0;
  run_seeds(c, {1, 2});
  c.sdq_share = 0.0;
  run_seeds(c, {3, 4});
}

TEST(BarrierFabric, AllArriveTogether) {
  auto c = shape(4, 4, 4, 2);
  c.max_skew = 0;
  run_seeds(c, {1, 2});
}

TEST(BarrierFabric, LargeSkewConsecutiveBarriers) {
  auto c = shape(4, 4, 2, 2);
  c.max_skew = 3000;
  c.barriers = 6;
  run_seeds(c, {1, 2, 3});
}

TEST(BarrierFabric, TinyDamqNackStorms) {
  auto c = shape(4, 4, 2, 3);
  c.damq_entries = 1;
  c.retry_delay = 16;
  c.max_skew = 2000;
  c.barriers = 4;
  run_seeds(c, {1, 2, 3});
}

TEST(BarrierFabric, AllContextsAtOnce) {
  auto c = shape(4, 2, 2, 2);
  c.contexts = 8;
  c.num_ctx = 8;
  c.damq_entries = 4;
  c.barriers = 3;
  run_seeds(c, {1, 2});
}

TEST(BarrierFabric, MalformedDescriptorsMixedIn) {
  auto c = shape(4, 4, 1, 2);
  c.contexts = 2;
  c.malformed = 0.5;
  c.barriers = 4;
  run_seeds(c, {1, 2, 3});
}

TEST(BarrierFabric, HundredTwentyEightNodes) {
  for (unsigned k = 1; k <= 3; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    auto c = shape(4, 4, 8, k);
    c.contexts = 2;
    c.damq_entries = 4;
    c.malformed = 0.05;
    run_seeds(c, {k});
  }
}

TEST(BarrierFabric, EverythingAtOnce) {
  // 128 nodes, every context, one-entry DAMQs, short retry delays, malformed
  // descriptors: NACK storms while fast nodes run ahead.
  auto c = shape(4, 4, 8, 4);
  c.contexts = 8;
  c.damq_entries = 1;
  c.retry_delay = 4;
  c.max_skew = 1500;
  c.malformed = 0.3;
  run_seeds(c, {1});
}

// The links pause the NICs (docs/nic/programming.md "The link"): barriers
// still complete in bound, no NOTIFY, ACK or NACK is lost (the counter
// identities of a lossless fabric hold: DUP = DROP = 0, NACK_SENT =
// NACK_RECV = RETRY, NOTIF_SENT - RETRY = NOTIF_RECV = the schedules'
// sends), and CNT_PFC_RX / CNT_PAUSE_RX equal what the links sent.
void run_paused(ScenarioConfig cfg, const std::vector<std::uint64_t>& fallback) {
  for (const auto seed : syncfab::test::seeds(fallback)) {
    cfg.seed = seed;
    const auto r = run_barrier_scenario(cfg);
    const auto cnt = [&](Counter c) { return r.counters[static_cast<unsigned>(c)]; };
    EXPECT_TRUE(r.ok()) << "seed " << seed << ": " << r.summary()
                        << "\nreplay: " << syncfab::test::replay_command(seed, "SYNCFAB_TRACE=1");
    EXPECT_GT(cnt(Counter::kPauseRx), 0U) << "seed " << seed << ": the links paused nobody";
    EXPECT_GT(cnt(Counter::kPfcRx), cnt(Counter::kPauseRx)) << "seed " << seed;
    if (::testing::Test::HasFailure()) {
      return;
    }
  }
}

TEST(BarrierFabric, PausingLinksLoseNothing) {
  auto c = shape(4, 4, 2, 2);
  c.contexts = 2;
  c.barriers = 4;
  c.pause_interval = 300;  // pauses of up to 16 x 8 cycles every 300..600
  c.pause_quanta = 16;
  run_paused(c, {1, 2, 3});
}

TEST(BarrierFabric, PausingLinksWithNackStormsOnAnotherTrafficClass) {
  // Paused more than half the time, on priority 0 with one cycle per
  // quantum, while one-entry DAMQs NACK and the NACKed re-send.
  auto c = shape(4, 2, 2, 3);
  c.traffic_class = 0;
  c.cyc_per_quantum = 1;
  c.pause_interval = 40;
  c.pause_quanta = 60;
  c.contexts = 3;
  c.damq_entries = 1;
  c.retry_delay = 8;
  c.max_skew = 1000;
  c.barriers = 4;
  c.malformed = 0.1;
  run_paused(c, {1, 2, 3});
}

TEST(SoftwareBarrier, CostsAddUpOnTwoNodes) {
  const Torus3D t(2, 1, 1);
  // Post (200), one hop on the wire (4 + 10), notice it (100).
  EXPECT_EQ(software_barrier(t, 1, {200, 100, 4, 10}).latency, 314U);
  EXPECT_EQ(software_barrier(t, 1, {0, 0, 4, 10}).latency, 14U);
}

TEST(SoftwareBarrier, HardwareNeverBeatsTheNetworkCriticalPath) {
  // The schedule's pure network path is a lower bound for any implementation;
  // the model NIC adds only its own processing on top.
  for (const auto& [x, y, z] : {std::array{2U, 1U, 1U}, std::array{3U, 3U, 1U},
                                std::array{4U, 4U, 2U}, std::array{4U, 4U, 8U}}) {
    for (unsigned k = 1; k <= 3; ++k) {
      auto c = shape(x, y, z, k);
      c.max_skew = 0;
      c.barriers = 1;
      const auto r = run_barrier_scenario(c);
      ASSERT_TRUE(r.ok()) << r.summary();
      const auto hw = r.barriers.at(0).last_done - r.barriers.at(0).last_arrival;
      const auto net = software_barrier(Torus3D(x, y, z), k, {0, 0, 4, 10}).latency;
      EXPECT_GE(hw, net) << x << "x" << y << "x" << z << " k=" << k;
      EXPECT_LE(hw, 2 * net + 100) << "per-round NIC overhead out of proportion";
    }
  }
}

TEST(Torus, DimensionOrderRoutes) {
  const Torus3D t(4, 4, 8);
  EXPECT_EQ(t.nodes(), 128U);
  EXPECT_EQ(t.diameter(), 8U);
  unsigned longest = 0;
  for (unsigned a = 0; a < t.nodes(); ++a) {
    for (unsigned b = 0; b < t.nodes(); ++b) {
      const auto path = t.route(a, b);
      ASSERT_EQ(path.front(), a);
      ASSERT_EQ(path.back(), b);
      ASSERT_EQ(path.size(), t.hops(a, b) + 1U);
      ASSERT_EQ(t.hops(a, b), t.hops(b, a));
      // Every step crosses one link, and the dimensions are taken in order.
      unsigned dim = 0;
      for (std::size_t i = 1; i < path.size(); ++i) {
        const auto p = t.coords(path[i - 1]);
        const auto q = t.coords(path[i]);
        unsigned changed = 3;
        for (unsigned d = 0; d < 3; ++d) {
          if (p[d] != q[d]) {
            ASSERT_EQ(changed, 3U) << "two coordinates change in one hop";
            changed = d;
          }
        }
        ASSERT_LT(changed, 3U);
        ASSERT_GE(changed, dim) << "route " << a << "->" << b << " goes back a dimension";
        dim = changed;
      }
      longest = std::max(longest, t.hops(a, b));
    }
  }
  EXPECT_EQ(longest, t.diameter());
  EXPECT_EQ(t.hops(0, t.node_at({2, 2, 4})), 8U);
  EXPECT_THROW(Torus3D(0, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace syncfab::model
