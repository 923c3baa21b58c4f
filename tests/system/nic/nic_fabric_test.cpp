// N verilated nic_top on a 3D torus (nic_fabric.hpp), each node's unchanged
// driver posting its own descriptors (nic_fabric_scenario.hpp). Safety,
// liveness, CQ status and counter identities are checked on every run; the
// figures printed are the ones in docs/nic/verification.md "Verilated fabric".
#include <chrono>
#include <iostream>
#include <string>

#include "nic_fabric_scenario.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::fabric;

namespace {

constexpr unsigned kHop = 10;  // cycles per hop, as the golden model's table (--hop 10)
constexpr std::uint32_t kRetryDelay = 16;

}  // namespace

// 2x2x2: one barrier each for k = 1, 2, 3 under random skew, then
// consecutive barriers on one context, then all four contexts at once.
SYNCFAB_TEST(nic_fabric, torus_2x2x2) {
  Fabric fab(ctx, 2, 2, 2, static_cast<unsigned>(ctx.param("hop", kHop)));
  co_await fab.reset();
  fab.bring_up(nic_options(ctx.sim(), kRetryDelay));
  const auto skew = static_cast<unsigned>(ctx.param("skew", 300));
  for (unsigned k = 1; k <= 3; ++k) {
    Scenario sc{{{k - 1, k, 1}}, skew, 0, kRetryDelay};
    print("nic_fabric.torus_2x2x2 k=" + std::to_string(k), fab, run_scenario(fab, sc, ctx.rng()));
  }
  {
    Scenario sc{{{3, 2, 6}}, skew, skew, kRetryDelay};
    print("nic_fabric.torus_2x2x2 consecutive", fab, run_scenario(fab, sc, ctx.rng()));
  }
  {
    Scenario sc{{{0, 1, 3}, {1, 2, 3}, {2, 3, 3}, {3, 1, 3}}, skew, skew, kRetryDelay};
    print("nic_fabric.torus_2x2x2 all contexts", fab, run_scenario(fab, sc, ctx.rng()));
  }
}

// A NACK storm: one node posts 3000 cycles after the others, on all four
// contexts at once; the others' NOTIFYs overflow its 4-slot request DAMQ
// (SE NACKs, §4 rule 6) and are re-sent every RETRY_DELAY until it posts.
SYNCFAB_TEST(nic_fabric, nack_storm_2x2x2) {
  Fabric fab(ctx, 2, 2, 2, static_cast<unsigned>(ctx.param("hop", kHop)));
  co_await fab.reset();
  fab.bring_up(nic_options(ctx.sim(), kRetryDelay));
  const auto late_node = static_cast<unsigned>(ctx.rng()() % fab.size());
  Scenario sc{{{0, 3, 1}, {1, 3, 1}, {2, 2, 1}, {3, 1, 1}}, 100, 0, kRetryDelay, late_node, 3000};
  const ScenarioResult r = run_scenario(fab, sc, ctx.rng());
  print("nic_fabric.nack_storm_2x2x2 (late node " + std::to_string(late_node) + ")", fab, r);
  TB_CHECK(r.nack_sent > 0) << "the late node's DAMQ overflowed, so it NACKed";
}

// A common start (doorbells held, then released at one edge): every node's
// post lands in the same cycle, for k = 1, 2, 3 through the HDQ, then through
// the SDQ (the latency bench's setting).
SYNCFAB_TEST(nic_fabric, common_start_2x2x2) {
  Fabric fab(ctx, 2, 2, 2, static_cast<unsigned>(ctx.param("hop", kHop)));
  co_await fab.reset();
  fab.bring_up(nic_options(ctx.sim(), kRetryDelay));
  for (const auto path : {syncfab::driver::SubmitPath::kHdq, syncfab::driver::SubmitPath::kSdq}) {
    for (unsigned k = 1; k <= 3; ++k) {
      Scenario sc{{{k - 1, k, 1}}, 0, 0, kRetryDelay};
      sc.common_start = true;
      sc.path = path;
      const ScenarioResult r = run_scenario(fab, sc, ctx.rng());
      print(std::string("nic_fabric.common_start_2x2x2 ") +
                (path == syncfab::driver::SubmitPath::kHdq ? "HDQ" : "SDQ") +
                " k=" + std::to_string(k),
            fab, r);
      const BarrierFigure& b = r.barriers.at(0);
      TB_CHECK_EQ(b.first_post, b.last_post) << "every post in one cycle";
    }
  }
}

// Malformed descriptors: about half of the posts are
// preceded by a bad descriptor of the same context on the same path (bad
// opcode, 21 rounds, k = K_MAX + 1, k = 0 in turn). Each must complete with
// DESC_ERROR and its code, CNT_ERROR must count exactly those, and every
// barrier must still complete OK on every node (run_scenario's checks), under
// skew, consecutive barriers, all contexts, and a common start.
SYNCFAB_TEST(nic_fabric, malformed_2x2x2) {
  Fabric fab(ctx, 2, 2, 2, static_cast<unsigned>(ctx.param("hop", kHop)));
  co_await fab.reset();
  fab.bring_up(nic_options(ctx.sim(), kRetryDelay));
  const auto skew = static_cast<unsigned>(ctx.param("skew", 300));
  const double chance = static_cast<double>(ctx.param("malformed_pct", 50)) / 100.0;
  std::uint64_t bad = 0;
  {
    Scenario sc{{{0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 2, 4}}, skew, skew, kRetryDelay};
    sc.malformed = chance;
    const ScenarioResult r = run_scenario(fab, sc, ctx.rng());
    print("nic_fabric.malformed_2x2x2 all contexts", fab, r);
    bad += r.malformed;
  }
  {
    Scenario sc{{{1, 3, 1}}, 0, 0, kRetryDelay};
    sc.common_start = true;
    sc.path = syncfab::driver::SubmitPath::kHdq;
    sc.malformed = chance;
    const ScenarioResult r = run_scenario(fab, sc, ctx.rng());
    print("nic_fabric.malformed_2x2x2 common start", fab, r);
    bad += r.malformed;
  }
  TB_CHECK(bad >= 8) << "only " << bad
                     << " malformed descriptors posted: all four kinds not covered";
}

// PFC on the links: while every scenario runs, the links send the NICs PFC
// frames at seeded random times (PauseSpec: pauses of NET_CFG.TC of 1 .. 16
// quanta, resumes that cut them short, frames for other priorities only).
// The NICs start no packet while paused (checked by the torus at every
// packet), every barrier completes OK within the bound, nothing is lost:
// run_scenario's counter identities of a lossless fabric, and CNT_PFC_RX /
// CNT_PAUSE_RX equal to the frames / pauses each link sent.
SYNCFAB_TEST(nic_fabric, pause_2x2x2) {
  Fabric fab(ctx, 2, 2, 2, static_cast<unsigned>(ctx.param("hop", kHop)));
  co_await fab.reset();
  fab.bring_up(nic_options(ctx.sim(), kRetryDelay));
  const auto skew = static_cast<unsigned>(ctx.param("skew", 300));
  PauseSpec ps;
  ps.rate = 1.0 / static_cast<double>(ctx.param("pause_every", 100));
  ps.max_quanta = static_cast<unsigned>(ctx.param("max_quanta", 16));
  std::uint64_t frames = 0;
  std::uint64_t pauses = 0;
  std::uint64_t paused = 0;
  const auto run = [&](const std::string& name, Scenario sc) {
    ps.seed = ctx.rng()();
    sc.pauses = ps;
    const ScenarioResult r = run_scenario(fab, sc, ctx.rng());
    print("nic_fabric.pause_2x2x2 " + name, fab, r);
    frames += r.pfc_frames;
    pauses += r.pauses;
    paused += r.paused_cycles;
  };
  for (unsigned k = 1; k <= 3; ++k) {
    run("k=" + std::to_string(k), Scenario{{{k - 1, k, 1}}, skew, 0, kRetryDelay});
  }
  run("consecutive", Scenario{{{3, 2, 6}}, skew, skew, kRetryDelay});
  run("all contexts",
      Scenario{{{0, 1, 3}, {1, 2, 3}, {2, 3, 3}, {3, 1, 3}}, skew, skew, kRetryDelay});
  {
    Scenario sc{{{1, 3, 1}}, 0, 0, kRetryDelay};
    sc.common_start = true;
    run("common start", sc);
  }
  TB_CHECK(pauses >= 8 && frames > pauses && paused > 0)
      << "the links sent " << frames << " frames, " << pauses << " pauses (" << paused
      << " node-cycles paused): too few to test anything";
}

// 4x4x8 = 128 nodes: k = 1, 2, 3 (one context each, in turn), then all
// contexts in flight with consecutive barriers. Prints wall time and speed.
SYNCFAB_TEST(nic_fabric, torus_4x4x8) {
  const auto t0 = std::chrono::steady_clock::now();
  Fabric fab(ctx, 4, 4, 8, static_cast<unsigned>(ctx.param("hop", kHop)));
  co_await fab.reset();
  fab.bring_up(nic_options(ctx.sim(), kRetryDelay));
  const auto skew = static_cast<unsigned>(ctx.param("skew", 500));
  for (unsigned k = 1; k <= 3; ++k) {
    Scenario sc{{{k - 1, k, 1}}, skew, 0, kRetryDelay};
    print("nic_fabric.torus_4x4x8 k=" + std::to_string(k), fab, run_scenario(fab, sc, ctx.rng()));
  }
  if (ctx.param("all_ctx", 1) != 0) {
    Scenario sc{{{0, 1, 2}, {1, 2, 2}, {2, 3, 2}, {3, 2, 2}}, skew, skew, kRetryDelay};
    print("nic_fabric.torus_4x4x8 all contexts", fab, run_scenario(fab, sc, ctx.rng()));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto cycles = fab.clk().cycles();
  std::cout << "nic_fabric.torus_4x4x8: " << cycles << " simulated cycles in " << wall
            << " s wall (" << static_cast<double>(cycles) / wall << " cycles/s, 128 models)\n";
}

// Bring-up and one barrier for each of k = 1, 2, 3 on an x by y by z torus
// (params; default 4x4x8 = 128 nodes), safety and liveness on: the NIC
// fabrics of make bench-sim (scripts/bench_sim.py runs it at 8 ... 128 nodes).
SYNCFAB_TEST(nic_fabric, torus_speed) {
  const auto dim = [&ctx](const char* name, std::int64_t def) {
    const auto v = ctx.param(name, def);
    TB_CHECK(v >= 1 && v <= 16) << "--param " << name << "=" << v << " is not 1 .. 16";
    return static_cast<unsigned>(v);
  };
  const unsigned x = dim("x", 4);
  const unsigned y = dim("y", 4);
  const unsigned z = dim("z", 8);
  Fabric fab(ctx, x, y, z, static_cast<unsigned>(ctx.param("hop", kHop)));
  co_await fab.reset();
  fab.bring_up(nic_options(ctx.sim(), kRetryDelay));
  const auto skew = static_cast<unsigned>(ctx.param("skew", 500));
  const std::string name = "nic_fabric.torus_speed " + std::to_string(x) + "x" + std::to_string(y) +
                           "x" + std::to_string(z);
  for (unsigned k = 1; k <= 3; ++k) {
    Scenario sc{{{k - 1, k, 1}}, skew, 0, kRetryDelay};
    print(name + " k=" + std::to_string(k), fab, run_scenario(fab, sc, ctx.rng()));
  }
}
