// Barrier latency on the golden-model fabric against the same schedule run by
// host software and against the schedule's network critical path, for a
// range of sizes and fan-outs. Prints a Markdown table (`make bench` saves it
// as barrier_latency_model.md); the latency study on the verilated fabric,
// with this model beside it, is sim/bench/bench_barrier_rtl.cpp.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <syncfab/model/barrier_scenario.hpp>
#include <syncfab/model/software_barrier.hpp>

using namespace syncfab::model;

namespace {

struct Shape {
  unsigned x, y, z;
};

// Torus shapes up to 4x4x8, filling X, then Y, then Z.
std::vector<Shape> shapes() {
  return {{2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {4, 2, 2}, {4, 4, 2}, {4, 4, 4}, {4, 4, 8},
          {3, 1, 1}, {3, 3, 1}, {3, 3, 3}, {4, 3, 3}, {4, 4, 3}, {4, 4, 6}};
}

int run(int argc, char** argv) {
  CLI::App app{"syncfab barrier latency: golden-model NIC barrier vs software dissemination"};
  unsigned hop = 10;
  unsigned nic = 4;
  unsigned o_send = 200;
  unsigned o_poll = 100;
  double ghz = 1.0;
  std::vector<unsigned> fanouts = {1, 2, 3};
  app.add_option("--hop", hop, "cycles per torus link");
  app.add_option("--nic", nic, "cycles of NIC injection + ejection per packet");
  app.add_option("--o-send", o_send, "software: host cycles to post one message");
  app.add_option("--o-poll", o_poll, "software: host cycles to notice one message");
  app.add_option("--ghz", ghz, "clock for the ns columns");
  app.add_option("--k", fanouts, "fan-outs");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 2;
  }

  std::printf(
      "Clock %.2f GHz; hop %u cycles; NIC %u cycles; software o_send %u, o_poll %u "
      "cycles. Hardware = golden-model fabric, every node posting at cycle 0, "
      "last post to last completion seen in the CQ.\n\n",
      ghz, hop, nic, o_send, o_poll);
  std::printf(
      "| p | k | rounds | HW cycles | HW ns | SW cycles | SW ns | HW vs SW | net path | "
      "rounds x mean one-way | wall ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  auto list = shapes();
  std::sort(list.begin(), list.end(),
            [](const Shape& a, const Shape& b) { return a.x * a.y * a.z < b.x * b.y * b.z; });
  int failures = 0;
  for (const auto& sh : list) {
    for (const unsigned k : fanouts) {
      ScenarioConfig c;
      c.x = sh.x;
      c.y = sh.y;
      c.z = sh.z;
      c.fanout = k;
      c.max_skew = 0;
      c.barriers = 1;
      c.hop_latency = hop;
      c.nic_latency = nic;
      const auto r = run_barrier_scenario(c);
      if (!r.ok()) {
        std::fprintf(stderr, "p=%u k=%u: %s\n", sh.x * sh.y * sh.z, k, r.summary().c_str());
        ++failures;
        continue;
      }
      const Torus3D t(sh.x, sh.y, sh.z);
      const auto sw = software_barrier(t, k, {o_send, o_poll, nic, hop});
      const auto net = software_barrier(t, k, {0, 0, nic, hop});
      const auto hw = r.barriers.at(0).last_done - r.barriers.at(0).last_arrival;
      std::printf("| %u | %u | %u | %llu | %.0f | %llu | %.0f | %+.0f%% | %llu | %.0f | %.1f |\n",
                  t.nodes(), k, sw.rounds, static_cast<unsigned long long>(hw),
                  static_cast<double>(hw) / ghz, static_cast<unsigned long long>(sw.latency),
                  static_cast<double>(sw.latency) / ghz,
                  100.0 * (static_cast<double>(hw) - static_cast<double>(sw.latency)) /
                      static_cast<double>(sw.latency),
                  static_cast<unsigned long long>(net.latency), sw.rounds * sw.mean_one_way,
                  r.wall_seconds * 1e3);
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "syncfab_barrier_latency: %s\n", e.what());
    return 2;
  }
}
