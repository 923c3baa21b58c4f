// The coroutine harness on the RTL, for the virtual platform's speed: the
// verilated NIC fabric (sim/fabric/nic: N verilated nic_top on a 3D torus,
// dimension-order routes, a fixed per-hop latency -- the network model of
// the golden network the platform uses), every node's unchanged driver on
// its own RtlDevice, running consecutive barriers of one fan-out (the
// scenario runner: every node posts, HDQ and SDQ in turn, polls its CQ,
// posts the next; safety and liveness checked). Prints barriers per wall
// second of the barriers alone (reset and bring-up excluded); not a test
// (docs/virtual-platform.md "Speed").
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

#include "nic_fabric_scenario.hpp"

namespace {

namespace tb = syncfab::tb;
namespace fab = syncfab::tb::fabric;

int run(int argc, char** argv) {
  CLI::App app{
      "bench_vp_rtl_harness: consecutive barriers on the verilated NIC fabric (coroutine "
      "harness), the RTL baseline of the virtual platform's speed"};
  std::string shape = "2x2x2";
  unsigned k = 2;
  unsigned barriers = 100;
  unsigned hop = 10;
  std::uint64_t seed = 1;
  app.add_option("--shape", shape, "torus shape XxYxZ")->capture_default_str();
  app.add_option("--k", k, "fan-out")->check(CLI::Range(1U, 16U))->capture_default_str();
  app.add_option("--barriers", barriers, "consecutive barriers")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--hop", hop, "cycles per torus link")->capture_default_str();
  app.add_option("--seed", seed, "seed of the harness")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  unsigned x = 0;
  unsigned y = 0;
  unsigned z = 0;
  char x1 = 0;
  char x2 = 0;
  std::istringstream in(shape);
  in >> x >> x1 >> y >> x2 >> z;
  if (!in || x1 != 'x' || x2 != 'x' || x * y * z == 0) {
    std::fprintf(stderr, "bench_vp_rtl_harness: --shape '%s' is not XxYxZ\n", shape.c_str());
    return 2;
  }
  static const tb::TestInfo info{"bench_vp_rtl_harness", "barriers", __FILE__, __LINE__, nullptr};
  tb::RunOptions ropts;
  ropts.quiet = true;
  constexpr std::uint32_t kRetryDelay = 16;
  double wall = 0;
  std::uint64_t cycles = 0;
  {
    tb::TestContext ctx(info, seed, ropts);
    {
      fab::Fabric f(ctx, x, y, z, hop);
      ctx.sim().run(f.reset(), "reset");
      f.bring_up(fab::nic_options(ctx.sim(), kRetryDelay));
      fab::Scenario sc;
      sc.flows = {{0, k, barriers}};
      sc.retry_delay = kRetryDelay;
      const auto c0 = f.clk().cycles();
      const auto t0 = std::chrono::steady_clock::now();
      (void)fab::run_scenario(f, sc, ctx.rng());
      wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      cycles = f.clk().cycles() - c0;
    }
    ctx.finish();
  }
  std::printf(
      "bench_vp_rtl_harness: %u nodes (%s), k=%u, %u barriers, simulated %llu cycles, wall "
      "%.3f s, %.0f barriers per wall second\n",
      x * y * z, shape.c_str(), k, barriers, static_cast<unsigned long long>(cycles), wall,
      wall > 0 ? barriers / wall : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_vp_rtl_harness: %s\n", e.what());
    return 1;
  }
}
