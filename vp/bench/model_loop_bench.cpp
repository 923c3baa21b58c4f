// The baseline for the virtual platform's speed: the same barriers on the
// same golden network without SystemC, as the driver's model tests run them
// (tests/driver/barrier/nic_fixture.hpp): one OS thread, every node's
// driver on a ModelDevice whose wait steps the whole fabric; every node
// arrives, then each waits in turn. Prints barriers per wall second; not a
// test (docs/virtual-platform.md "Speed").
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <syncfab/driver/nic.hpp>
#include <syncfab/model/fabric.hpp>
#include <syncfab/model/model_device.hpp>

namespace {

using namespace syncfab;

int run(int argc, char** argv) {
  CLI::App app{"bench_vp_model_loop: barriers on the golden network, drivers on ModelDevice"};
  std::string shape = "2x2x2";
  std::vector<unsigned> ks{2};
  unsigned barriers = 100;
  double poll_ns = 8;
  app.add_option("--shape", shape, "torus shape XxYxZ")->capture_default_str();
  app.add_option("--k", ks, "fan-outs, one context each")->delimiter(',')->capture_default_str();
  app.add_option("--barriers", barriers, "barriers per fan-out")->capture_default_str();
  app.add_option("--poll", poll_ns, "the driver's poll interval, ns (1 ns per cycle)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  model::FabricConfig cfg;
  char x1 = 0;
  char x2 = 0;
  std::istringstream in(shape);
  in >> cfg.x >> x1 >> cfg.y >> x2 >> cfg.z;
  if (!in || x1 != 'x' || x2 != 'x') {
    std::fprintf(stderr, "bench_vp_model_loop: --shape '%s' is not XxYxZ\n", shape.c_str());
    return 2;
  }
  model::Fabric fabric(cfg);
  const unsigned n = fabric.size();
  std::vector<std::unique_ptr<model::ModelDevice>> devices;
  std::vector<std::unique_ptr<driver::Nic>> nics;
  std::vector<std::uint16_t> lids;
  driver::NicOptions o;
  o.poll_interval = std::chrono::nanoseconds(static_cast<std::int64_t>(poll_ns));
  o.clock = [&fabric] { return std::chrono::nanoseconds(fabric.now()); };
  for (unsigned i = 0; i < n; ++i) {
    devices.push_back(std::make_unique<model::ModelDevice>(
        fabric.nic(i), fabric.memory(i), [&fabric] { fabric.step(); }, 1));
    nics.push_back(std::make_unique<driver::Nic>(*devices.back(), fabric.memory(i), o));
    lids.push_back(model::Fabric::lid_of(i));
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t done = 0;
  for (unsigned c = 0; c < ks.size(); ++c) {
    std::vector<driver::BarrierContext> ctxs;
    for (unsigned i = 0; i < n; ++i) {
      ctxs.push_back(nics[i]->open_context(driver::ContextConfig{c, i, n, ks[c], lids}));
    }
    for (unsigned b = 0; b < barriers; ++b) {
      for (auto& x : ctxs) {
        x.arrive(b % 2 ? driver::SubmitPath::kSdq : driver::SubmitPath::kHdq);
      }
      for (auto& x : ctxs) {
        if (!x.wait(std::chrono::microseconds(100))) {
          std::fprintf(stderr, "bench_vp_model_loop: barrier %u timed out\n", b);
          return 1;
        }
        ++done;
      }
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double total = static_cast<double>(ks.size()) * barriers;
  std::printf(
      "bench_vp_model_loop: %u nodes, %llu completions, simulated %llu cycles, wall %.3f s, "
      "%.0f barriers per wall second\n",
      n, static_cast<unsigned long long>(done), static_cast<unsigned long long>(fabric.now()), wall,
      total / wall);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_vp_model_loop: %s\n", e.what());
    return 2;
  }
}
