// The congestion scenarios' instruments (docs/congestion-scenarios.md) on
// short incasts: the time series covers the run and its per-sample counts add
// up to the run's totals, and every barrier run through the fabric completes
// and is recorded. Latencies are measured by scripts/scenarios.py, not
// asserted here.
#include <gtest/gtest.h>
#include <syncfab/fmt/formats.hpp>
#include <syncfab/test/seeds.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

#include "incast.hpp"
#include "series_io.hpp"

namespace syncfab::sim::dcqcn {
namespace {

IncastConfig short_run(std::uint64_t seed, bool dcqcn) {
  IncastConfig cfg;
  cfg.seed = seed;
  cfg.dcqcn = dcqcn;
  cfg.cycles = 40000;
  cfg.warmup = 10000;
  cfg.sample_every = 1500;  // the last sample is a partial one
  cfg.barrier_every = 2000;
  return cfg;
}

void check_series(const IncastConfig& cfg, const IncastResult& r) {
  ASSERT_FALSE(r.series.empty());
  std::uint64_t end = 0;
  IncastSample sum;
  sum.flow_flits.assign(cfg.senders, 0);
  for (const auto& s : r.series) {
    EXPECT_EQ(s.end, end + s.length) << "a gap or overlap before the sample ending " << s.end;
    EXPECT_TRUE(s.length == cfg.sample_every || s.end == cfg.cycles) << s.end;
    end = s.end;
    ASSERT_EQ(s.flow_flits.size(), cfg.senders);
    ASSERT_EQ(s.flow_rate.size(), cfg.senders);
    for (unsigned f = 0; f < cfg.senders; ++f) {
      sum.flow_flits[f] += s.flow_flits[f];
      EXPECT_GT(s.flow_rate[f], 0.0);
      EXPECT_LE(s.flow_rate[f], 1.0);
      if (!cfg.dcqcn) {
        EXPECT_EQ(s.flow_rate[f], 1.0);  // no CNP ever reaches a reaction point
      }
    }
    EXPECT_LE(s.queue_cells, s.queue_max);
    EXPECT_LE(s.paused_cycles, s.length * cfg.senders);
    sum.pause_tx += s.pause_tx;
    sum.pause_rx += s.pause_rx;
    sum.barrier_pause_tx += s.barrier_pause_tx;
    sum.ecn_marks += s.ecn_marks;
    sum.cnps += s.cnps;
    sum.barriers_done += s.barriers_done;
  }
  EXPECT_EQ(end, cfg.cycles);
  // Handed to the receiver's link = counted by it (payload flits and one
  // header per packet) + still on the link at the end + a packet it was
  // taking (counted at its last flit).
  const std::uint64_t handed =
      std::accumulate(sum.flow_flits.begin(), sum.flow_flits.end(), std::uint64_t{0});
  const std::uint64_t taken = r.delivered_flits + r.delivered_packets;
  EXPECT_GE(handed, taken);
  EXPECT_LE(handed, taken + r.rx_link_flits + cfg.payload_flits + 1);
  for (unsigned f = 0; f < cfg.senders; ++f) {
    EXPECT_EQ(sum.flow_flits[f] > 0, cfg.flows) << "sender " << f;
  }
  EXPECT_EQ(sum.pause_tx, r.pause_frames);
  // Every XOFF sends a pause frame (refreshes send more); the last one per
  // sender may still be on its way.
  EXPECT_GE(sum.pause_rx + cfg.senders, sum.pause_tx);
  EXPECT_EQ(sum.barrier_pause_tx, r.barrier_pause_frames);
  EXPECT_EQ(sum.ecn_marks, r.ecn_marks);
  EXPECT_EQ(sum.cnps, r.cnps);
  EXPECT_EQ(sum.barriers_done, r.barriers.size());
}

void check_barriers(const IncastConfig& cfg, const IncastResult& r) {
  EXPECT_EQ(r.barriers_failed, 0U);
  EXPECT_EQ(r.barriers.size(), r.barriers_posted);
  EXPECT_GE(r.barriers_posted, 2U);
  std::uint64_t last = 0;
  for (const auto& b : r.barriers) {
    EXPECT_GE(b.posted, cfg.barrier_first);
    EXPECT_GT(b.latency, 0U);
    if (&b != &r.barriers.front()) {
      EXPECT_GE(b.posted, last + cfg.barrier_every) << "barriers closer than their interval";
    }
    EXPECT_LE(b.posted + cfg.barrier_every, cfg.cycles);
    last = b.posted;
  }
  const BarrierStats all = barrier_stats(r, 0);
  EXPECT_EQ(all.count, r.barriers.size());
  EXPECT_LE(all.median, all.p99);
  EXPECT_LE(all.p99, all.max);
}

TEST(CongestionScenario, SeriesAddsUpAndEveryBarrierCompletes) {
  for (const auto seed : syncfab::test::seeds({1})) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 "; replay: " + syncfab::test::replay_command(seed));
    for (const int mode : {0, 1, 2}) {
      SCOPED_TRACE(mode == 0 ? "pfc-only" : mode == 1 ? "dcqcn" : "dcqcn + dynamic ecn");
      IncastConfig cfg = short_run(seed, mode != 0);
      cfg.ecn_dynamic = mode == 2;
      const IncastResult r = run_incast(cfg);
      SCOPED_TRACE(to_string(r));
      EXPECT_EQ(r.lossless_drops, 0U);
      check_series(cfg, r);
      check_barriers(cfg, r);
      // The CSVs carry one row per sample and per barrier.
      std::ostringstream series;
      std::ostringstream barriers;
      write_series_csv(series, r);
      write_barriers_csv(barriers, r);
      const auto lines = [](const std::string& s) {
        return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
      };
      EXPECT_EQ(lines(series.str()), r.series.size() + 1);
      EXPECT_EQ(lines(barriers.str()), r.barriers.size() + 1);
      EXPECT_EQ(to_json(cfg, r)["figures"]["barriers_completed"], r.barriers.size());
    }
  }
}

TEST(CongestionScenario, IdleFabricAndSharedPriority) {
  IncastConfig idle = short_run(1, false);
  idle.flows = false;
  const IncastResult r = run_incast(idle);
  EXPECT_EQ(r.delivered_packets, 0U);
  EXPECT_EQ(r.pause_frames, 0U);
  check_series(idle, r);
  check_barriers(idle, r);
  // On the flows' priority the barriers wait behind DATA and under its
  // pauses; they still complete, and no pause counts on a priority of
  // their own.
  IncastConfig shared = short_run(1, true);
  shared.barrier_prio = shared.prio;
  const IncastResult s = run_incast(shared);
  EXPECT_EQ(s.lossless_drops, 0U);
  EXPECT_EQ(s.barrier_pause_frames, 0U);
  EXPECT_EQ(s.barriers_failed, 0U);
  EXPECT_GE(s.barriers.size() + 1, s.barriers_posted);
  EXPECT_GT(s.barriers.size(), 0U);
  check_series(shared, s);
}

TEST(CongestionScenario, RefusesABarrierPriorityOutOfRange) {
  IncastConfig cfg = short_run(1, true);
  cfg.barrier_prio = fmt::kNumPrio;
  EXPECT_THROW((void)run_incast(cfg), std::invalid_argument);
}

}  // namespace
}  // namespace syncfab::sim::dcqcn
