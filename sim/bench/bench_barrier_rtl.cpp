// The barrier latency study on the verilated fabric (nic_fabric.hpp): for
// each torus shape and fan-out k, every node posts its barrier descriptor in
// the same cycle (doorbells released together); hardware latency = that
// cycle -> the last CQ entry written. Next to it: the golden-model fabric for
// the same configuration (run_barrier_scenario), the same schedule driven by
// host software (model::software_barrier), its network critical path (zero
// host overheads) and the bound ceil(log_{k+1} p) x (NIC + one hop). The
// scenario's safety, liveness, CQ-status and counter checks stay on: any
// failure ends the bench with exit code 1. scripts/bench_barrier.py turns the
// CSV into docs/bench-barrier.{md,png}.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <syncfab/driver/barrier_schedule.hpp>
#include <syncfab/model/barrier_scenario.hpp>
#include <syncfab/model/software_barrier.hpp>

#include "nic_fabric_scenario.hpp"

namespace tb = syncfab::tb;
namespace fab = syncfab::tb::fabric;
namespace model = syncfab::model;
namespace drv = syncfab::driver;

namespace {

// vl_nic_top's build parameters (rtl/nic/CMakeLists.txt PARAMS): the golden
// model is configured to match.
constexpr unsigned kRtlContexts = 4;
constexpr unsigned kRtlReqDamqSlots = 4;

struct Shape {
  unsigned x, y, z;
  [[nodiscard]] unsigned nodes() const { return x * y * z; }
  [[nodiscard]] std::string name() const {
    return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
  }
};

// The shapes of cpp-model/network/tools/barrier_latency.cpp, by size.
std::vector<Shape> default_shapes() {
  std::vector<Shape> s = {{2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {4, 2, 2}, {4, 4, 2},
                          {4, 4, 4}, {4, 4, 8}, {3, 1, 1}, {3, 3, 1}, {3, 3, 3},
                          {4, 3, 3}, {4, 4, 3}, {4, 4, 6}};
  std::stable_sort(s.begin(), s.end(),
                   [](const Shape& a, const Shape& b) { return a.nodes() < b.nodes(); });
  return s;
}

// "XxYxZ", or a node count naming the default shape of that size.
Shape parse_shape(const std::string& text) {
  unsigned x = 0;
  unsigned y = 0;
  unsigned z = 0;
  char a = 0;
  char b = 0;
  std::istringstream is(text);
  if ((is >> x >> a >> y >> b >> z) && a == 'x' && b == 'x' && is.eof() && x * y * z >= 2) {
    return {x, y, z};
  }
  for (const Shape& s : default_shapes()) {
    if (std::to_string(s.nodes()) == text) {
      return s;
    }
  }
  throw std::invalid_argument("--shapes: '" + text +
                              "' is neither XxYxZ (at least 2 nodes) nor the node count of a "
                              "default shape (2 3 4 8 9 16 27 32 36 48 64 96 128)");
}

struct Options {
  std::vector<std::string> shapes;
  std::vector<unsigned> ks = {1, 2, 3};
  unsigned hop = 10;
  unsigned nic = 4;
  unsigned o_send = 200;
  unsigned o_poll = 100;
  double ghz = 1.0;
  std::uint32_t retry_delay = 16;
  std::string path = "hdq";
  std::uint64_t seed = 1;
  std::string csv;
  std::string md;
  std::vector<unsigned> sweep;  // o_send values for the software sweep (o_poll = o_send / 2)
  std::string sweep_csv;
  bool sweep_only = false;
};

struct Row {
  Shape shape;
  unsigned k = 0;
  unsigned rounds = 0;
  std::uint64_t hw = 0;  // common post cycle -> last CQ entry
  double hw_mean = 0;    // mean over nodes
  std::uint64_t model = 0;
  std::uint64_t sw = 0;
  std::uint64_t net = 0;
  std::uint64_t bound = 0;
  std::uint64_t notifies = 0;
  std::uint64_t nacks = 0;
  std::uint64_t rx_stall = 0;      // sum over NICs: cycles a due header waited for rx_ready
  std::uint64_t max_rx_queue = 0;  // deepest inbound queue at a NIC
  std::uint64_t sim_cycles = 0;    // the whole shape: reset, bring-up, every k, close
  double wall = 0;                 // seconds, the whole shape
};

const char* kCsvHeader =
    "p,x,y,z,k,rounds,hw_cycles,hw_mean_cycles,hw_ns,model_cycles,hw_over_model,sw_cycles,"
    "sw_ns,hw_saving_pct,net_path_cycles,bound_cycles,notifies,nacks,rx_stall_cycles,max_rx_queue,"
    "shape_sim_cycles,"
    "shape_wall_s,shape_cycles_per_s";

std::string csv_line(const Row& r, double ghz) {
  char buf[512];
  const auto hw = static_cast<double>(r.hw);
  std::snprintf(
      buf, sizeof buf,
      "%u,%u,%u,%u,%u,%u,%llu,%.1f,%.1f,%llu,%.3f,%llu,%.1f,%.1f,%llu,%llu,%llu,%llu,"
      "%llu,%llu,%llu,%.2f,%.0f",
      r.shape.nodes(), r.shape.x, r.shape.y, r.shape.z, r.k, r.rounds,
      static_cast<unsigned long long>(r.hw), r.hw_mean, hw / ghz,
      static_cast<unsigned long long>(r.model),
      r.model == 0 ? 0.0 : hw / static_cast<double>(r.model), static_cast<unsigned long long>(r.sw),
      static_cast<double>(r.sw) / ghz, 100.0 * (1.0 - hw / static_cast<double>(r.sw)),
      static_cast<unsigned long long>(r.net), static_cast<unsigned long long>(r.bound),
      static_cast<unsigned long long>(r.notifies), static_cast<unsigned long long>(r.nacks),
      static_cast<unsigned long long>(r.rx_stall), static_cast<unsigned long long>(r.max_rx_queue),
      static_cast<unsigned long long>(r.sim_cycles), r.wall,
      r.wall > 0 ? static_cast<double>(r.sim_cycles) / r.wall : 0.0);
  return buf;
}

const char* kMdHeader =
    "| p | shape | k | rounds | HW-RTL cycles | HW-RTL ns | mean/node | model | RTL/model | SW "
    "cycles | SW ns | HW saves | net path | bound |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";

std::string md_line(const Row& r, double ghz) {
  char buf[512];
  const auto hw = static_cast<double>(r.hw);
  std::snprintf(
      buf, sizeof buf,
      "| %u | %s | %u | %u | %llu | %.0f | %.1f | %llu | %.2f | %llu | %.0f | %.0f%% | "
      "%llu | %llu |",
      r.shape.nodes(), r.shape.name().c_str(), r.k, r.rounds, static_cast<unsigned long long>(r.hw),
      hw / ghz, r.hw_mean, static_cast<unsigned long long>(r.model),
      r.model == 0 ? 0.0 : hw / static_cast<double>(r.model), static_cast<unsigned long long>(r.sw),
      static_cast<double>(r.sw) / ghz, 100.0 * (1.0 - hw / static_cast<double>(r.sw)),
      static_cast<unsigned long long>(r.net), static_cast<unsigned long long>(r.bound));
  return buf;
}

std::uint64_t golden_model(const Options& o, const Shape& s, unsigned k) {
  model::ScenarioConfig c;
  c.x = s.x;
  c.y = s.y;
  c.z = s.z;
  c.fanout = k;
  c.contexts = 1;
  c.barriers = 1;
  c.hop_latency = o.hop;
  c.nic_latency = o.nic;
  c.max_skew = 0;
  c.num_ctx = kRtlContexts;
  c.damq_entries = kRtlReqDamqSlots;
  c.retry_delay = o.retry_delay;
  c.sdq_share = o.path == "sdq" ? 1.0 : 0.0;
  c.seed = o.seed;
  const auto r = model::run_barrier_scenario(c);
  if (!r.ok()) {
    throw std::runtime_error("golden model p=" + std::to_string(s.nodes()) +
                             " k=" + std::to_string(k) + ": " + r.summary());
  }
  return r.barriers.at(0).last_done - r.barriers.at(0).last_arrival;
}

// One fabric of this shape; one common-start barrier per k, each on its own
// context (ctx = index of k mod the RTL's contexts).
std::vector<Row> run_shape(const Options& o, const Shape& s) {
  static const tb::TestInfo info{"bench_barrier_rtl", "shape", __FILE__, __LINE__, nullptr};
  tb::RunOptions ropts;
  ropts.quiet = true;
  std::vector<Row> rows;
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t cycles = 0;
  {
    tb::TestContext ctx(info, o.seed, ropts);
    {
      fab::Fabric f(ctx, s.x, s.y, s.z, o.hop);
      ctx.sim().run(f.reset(), "reset");
      f.bring_up(fab::nic_options(ctx.sim(), o.retry_delay));
      for (std::size_t i = 0; i < o.ks.size(); ++i) {
        const unsigned k = o.ks[i];
        fab::Scenario sc;
        sc.flows = {{static_cast<unsigned>(i % kRtlContexts), k, 1}};
        sc.retry_delay = o.retry_delay;
        sc.common_start = true;
        sc.path = o.path == "sdq" ? drv::SubmitPath::kSdq : drv::SubmitPath::kHdq;
        f.net().reset_peak();
        const std::uint64_t stall0 = f.net().stats().rx_stall_cycles;
        const fab::ScenarioResult r = fab::run_scenario(f, sc, ctx.rng());
        const fab::BarrierFigure& b = r.barriers.at(0);
        if (b.first_post != b.last_post) {
          throw std::runtime_error("p=" + std::to_string(s.nodes()) + ": posts not in one cycle (" +
                                   std::to_string(b.first_post) + ".." +
                                   std::to_string(b.last_post) + ")");
        }
        const model::Torus3D t(s.x, s.y, s.z);
        const auto sw = model::software_barrier(t, k, {o.o_send, o.o_poll, o.nic, o.hop});
        const auto net = model::software_barrier(t, k, {0, 0, o.nic, o.hop});
        Row row;
        row.shape = s;
        row.k = k;
        row.rounds = drv::dissemination_rounds(s.nodes(), k);
        row.hw = b.last_done - b.last_post;
        row.hw_mean = b.mean_done;
        row.model = golden_model(o, s, k);
        row.sw = sw.latency;
        row.net = net.latency;
        row.bound = std::uint64_t{row.rounds} * (o.nic + o.hop);
        row.notifies = r.notif_sent;
        row.nacks = r.nack_sent;
        row.rx_stall = f.net().stats().rx_stall_cycles - stall0;
        row.max_rx_queue = f.net().stats().max_rx_queue;
        rows.push_back(row);
      }
      cycles = f.clk().cycles();
    }
    ctx.finish();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (Row& r : rows) {
    r.sim_cycles = cycles;
    r.wall = wall;
  }
  return rows;
}

void write_sweep(const Options& o, const std::vector<Shape>& shapes) {
  std::ofstream out(o.sweep_csv);
  if (!out) {
    throw std::runtime_error("cannot write " + o.sweep_csv);
  }
  out << "p,x,y,z,k,o_send,o_poll,sw_cycles\n";
  for (const Shape& s : shapes) {
    const model::Torus3D t(s.x, s.y, s.z);
    for (const unsigned k : o.ks) {
      for (const unsigned os : o.sweep) {
        const auto sw = model::software_barrier(t, k, {os, os / 2, o.nic, o.hop});
        out << s.nodes() << ',' << s.x << ',' << s.y << ',' << s.z << ',' << k << ',' << os << ','
            << os / 2 << ',' << sw.latency << '\n';
      }
    }
  }
}

int run(int argc, char** argv) {
  CLI::App app{
      "syncfab barrier latency on the verilated fabric: hardware (RTL) vs golden model vs "
      "software dissemination vs lower bound"};
  Options o;
  app.add_option("--shapes", o.shapes,
                 "torus shapes XxYxZ or node counts (default: 2..128 as barrier_latency)")
      ->delimiter(',');
  app.add_option("--k", o.ks, "fan-outs")->delimiter(',');
  app.add_option("--hop", o.hop, "cycles per torus link");
  app.add_option("--nic", o.nic,
                 "cycles of NIC injection + ejection per packet (golden model, software, bound)");
  app.add_option("--o-send", o.o_send, "software: host cycles to post one message");
  app.add_option("--o-poll", o.o_poll, "software: host cycles to notice one message");
  app.add_option("--ghz", o.ghz, "clock for the ns columns")->check(CLI::PositiveNumber);
  app.add_option("--retry-delay", o.retry_delay, "RETRY_DELAY cycles (RTL and model)");
  app.add_option("--path", o.path, "submission path of every post")
      ->check(CLI::IsMember({"hdq", "sdq"}));
  app.add_option("--seed", o.seed, "seed (memory BFM, register reset values, model)");
  app.add_option("--csv", o.csv, "write the table as CSV");
  app.add_option("--md", o.md, "write the table as Markdown");
  app.add_option("--sweep-o-send", o.sweep,
                 "also compute software latencies for these o_send (o_poll = o_send/2)")
      ->delimiter(',');
  app.add_option("--sweep-csv", o.sweep_csv, "where the software sweep goes (no RTL runs)");
  app.add_flag("--sweep-only", o.sweep_only, "write the sweep and stop (no RTL, no model)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 1;
  }
  for (const unsigned k : o.ks) {
    if (k == 0) {
      throw std::invalid_argument("--k: fan-out 0");
    }
  }

  std::vector<Shape> shapes;
  if (o.shapes.empty()) {
    shapes = default_shapes();
  } else {
    for (const auto& t : o.shapes) {
      shapes.push_back(parse_shape(t));
    }
  }
  if (!o.sweep.empty() && !o.sweep_csv.empty()) {
    write_sweep(o, shapes);
  }
  if (o.sweep_only) {
    if (o.sweep.empty() || o.sweep_csv.empty()) {
      throw std::invalid_argument("--sweep-only needs --sweep-o-send and --sweep-csv");
    }
    return 0;
  }

  std::printf(
      "Clock %.2f GHz; hop %u cycles; NIC %u cycles (model, software, bound); software o_send "
      "%u, o_poll %u cycles; RETRY_DELAY %u; path %s; seed %llu. HW-RTL = verilated fabric, "
      "every node's doorbell in the same cycle, that cycle -> last CQ entry written.\n\n%s",
      o.ghz, o.hop, o.nic, o.o_send, o.o_poll, o.retry_delay, o.path.c_str(),
      static_cast<unsigned long long>(o.seed), kMdHeader);
  std::fflush(stdout);
  std::vector<Row> all;
  for (const Shape& s : shapes) {
    for (const Row& r : run_shape(o, s)) {
      std::printf("%s\n", md_line(r, o.ghz).c_str());
      all.push_back(r);
    }
    std::printf("  (p=%u: %llu simulated cycles in %.2f s wall, %.0f cycles/s)\n", s.nodes(),
                static_cast<unsigned long long>(all.back().sim_cycles), all.back().wall,
                static_cast<double>(all.back().sim_cycles) / all.back().wall);
    std::fflush(stdout);
  }
  if (!o.csv.empty()) {
    std::ofstream out(o.csv);
    out << kCsvHeader << "\n";
    for (const Row& r : all) {
      out << csv_line(r, o.ghz) << "\n";
    }
    if (!out) {
      throw std::runtime_error("cannot write " + o.csv);
    }
  }
  if (!o.md.empty()) {
    std::ofstream out(o.md);
    out << kMdHeader;
    for (const Row& r : all) {
      out << md_line(r, o.ghz) << "\n";
    }
    if (!out) {
      throw std::runtime_error("cannot write " + o.md);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "bench_barrier_rtl: FAILED: %s\n", e.what());
    return 1;
  }
}
