// N verilated nic_top on a 3D torus (nic_fabric.hpp), each node's unchanged
// driver posting its own descriptors (nic_fabric_scenario.hpp). Safety,
// liveness, CQ status and counter identities are checked on every run; the
// figures printed are the ones in docs/nic-rtl.md "Verilated fabric".
#include <chrono>
#include <iostream>

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
