// syncfab-ecmp-incast: the fat-tree incast on the system fabric, ECMP off or
// on, with barriers through it (sim/system/ecmp_incast.hpp,
// docs/congestion-scenarios.md): prints the run's figures and writes its
// time series, barriers and figures (CSV, CSV, JSON) for
// scripts/scenarios.py and scripts/plot_ecmp.py.
#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ecmp_incast.hpp"

namespace {

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

struct Options {
  EcmpIncastConfig cfg;
  std::uint64_t seed = 1;
  bool rtl = false;
  bool idle = false;
  std::string csv;
  std::string barriers_csv;
  std::string json;
};

std::ofstream open_out(const std::string& path) {
  std::ofstream out(path);
  if (!out) {
    throw std::runtime_error("cannot write " + path);
  }
  return out;
}

void write_series(const std::string& path, const EcmpIncastResult& r) {
  std::ofstream out = open_out(path);
  out << "end,length";
  for (const std::string& n : r.sender_names) {
    out << ",flits_" << n;
  }
  for (std::size_t i = 0; i < r.queue_names.size(); ++i) {
    out << ",queue_" << i << ",queue_max_" << i;
  }
  out << ",pause_tx";
  for (const std::string& n : r.pause_names) {
    out << ",pause_tx_" << n;
  }
  out << ",host_pauses,barrier_pause_tx,barriers_done\n";
  for (const EcmpSample& s : r.series) {
    out << s.end << ',' << s.length;
    for (const std::uint64_t f : s.flits) {
      out << ',' << f;
    }
    for (const EcmpSample::Queue& q : s.queues) {
      out << ',' << q.end << ',' << q.max;
    }
    out << ',' << s.pause_tx;
    for (const std::uint64_t p : s.pause_tx_at) {
      out << ',' << p;
    }
    out << ',' << s.host_pauses << ',' << s.barrier_pause_tx << ',' << s.barriers_done << '\n';
  }
}

void write_barriers(const std::string& path, const EcmpIncastResult& r) {
  std::ofstream out = open_out(path);
  out << "posted,latency\n";
  for (const EcmpBarrier& b : r.barriers) {
    out << b.posted << ',' << b.latency << '\n';
  }
}

std::string quoted(const std::string& s) { return '"' + s + '"'; }

template <class T, class F>
std::string list(const std::vector<T>& v, F&& f) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    s += (i == 0 ? "" : ", ") + f(v[i]);
  }
  return s + "]";
}

// {"k": v, ...} of values already in JSON.
std::string object(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string s = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    s += (i == 0 ? "" : ", ") + quoted(fields[i].first) + ": " + fields[i].second;
  }
  return s + "}";
}

void write_json(const std::string& path, const Options& o, const EcmpIncastResult& r) {
  std::ofstream out = open_out(path);
  const EcmpIncastConfig& c = o.cfg;
  const EcmpLatency lat = latency_stats(r, c.warmup);
  const auto num = [](double v) {
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%.6f", v);
    return std::string(buf.data());
  };
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  const auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  const std::string config =
      object({{"ecmp", b(c.ecmp)},
              {"backend", quoted(o.rtl ? "rtl" : "model")},
              {"flows", b(c.flows)},
              {"seed", n(o.seed)},
              {"senders", n(c.senders)},
              {"flows_per_sender", n(c.flows_per_sender)},
              {"labels", quoted(c.labels == FlowLabels::kRandom ? "random" : "sequential")},
              {"len_flits", n(c.len_flits)},
              {"flow_prio", n(c.flow_prio)},
              {"barrier_prio", n(c.barrier_prio)},
              {"cycles", n(c.cycles)},
              {"warmup", n(c.warmup)},
              {"sample_every", n(c.sample_every)},
              {"barrier_every", n(c.barrier_every)},
              {"dcqcn", b(c.dcqcn)}});
  const std::string series = object({{"senders", list(r.sender_names, quoted)},
                                     {"queues", list(r.queue_names, quoted)},
                                     {"pauses", list(r.pause_names, quoted)}});
  const std::string latency = object({{"count", n(lat.count)},
                                      {"median", n(lat.median)},
                                      {"p99", n(lat.p99)},
                                      {"max", n(lat.max)}});
  const std::string figures =
      object({{"jain", num(r.jain)},
              {"throughput", num(r.throughput)},
              {"share", list(r.share, num)},
              {"flows", n(r.flows)},
              {"out_of_order", c.dcqcn ? std::string("null") : n(r.out_of_order)},
              {"data_sent", n(r.data_sent)},
              {"data_received", n(r.data_received)},
              {"lossless_drops", n(r.lossless_drops)},
              {"pause_frames", n(r.pause_frames)},
              {"barrier_pause_frames", n(r.barrier_pause_frames)},
              {"host_pauses", n(r.host_pauses)},
              {"barriers_posted", n(r.barriers_posted)},
              {"barriers_completed", n(r.barriers.size())},
              {"barrier_latency", latency},
              {"port_groups", n(r.port_groups)},
              {"group_entries", n(r.group_entries)},
              {"crossing_sends", n(r.crossing_sends)},
              {"schedule_sends", n(r.schedule_sends)},
              {"shared_egresses", list(r.shared_egresses, quoted)},
              {"fabric_cycles", n(r.fabric_cycles)},
              {"cnps", n(r.cnps)},
              {"cnps_received", n(r.cnps_received)},
              {"ecn_marks", n(r.ecn_marks)},
              {"data_drops", n(r.data_drops)}});
  out << object({{"config", config}, {"series", series}, {"figures", figures}}) << '\n';
}

int run(int argc, char** argv) {
  CLI::App app{
      "syncfab-ecmp-incast: the fat-tree 8-to-1 incast on the system fabric (FTREE, ECMP off or "
      "on) with barriers of 12 NICs through it; prints the figures, writes the time series"};
  Options o;
  EcmpIncastConfig& c = o.cfg;
  app.add_flag("--ecmp", c.ecmp, "FTREE with ECMP port groups (default: single-port entries)");
  app.add_flag("--idle", o.idle, "no flows: the barriers on the idle fabric");
  app.add_flag("--dcqcn", c.dcqcn,
               "the senders are NICs n1..n8 with DCQCN data-path flows to n0, WRED/ECN on the "
               "switches (default: bulk hosts h1..h8 to h0, PFC only)");
  app.add_flag("--rtl", o.rtl, "verilated switches and NICs (default: golden models)");
  app.add_option("--seed", o.seed, "seed (the senders' starts, the hosts' sweeps)");
  app.add_option("--cycles", c.cycles, "cycles of the incast");
  app.add_option("--warmup", c.warmup, "cycles before the figures' window");
  app.add_option("--sample", c.sample_every, "cycles per time-series sample")
      ->check(CLI::PositiveNumber);
  app.add_option("--barrier-every", c.barrier_every, "cycles between barrier posts")
      ->check(CLI::PositiveNumber);
  app.add_option("--barrier-prio", c.barrier_prio,
                 "the barriers' priority (the flows' priority: a shared class)");
  app.add_option("--flows-per-sender", c.flows_per_sender, "flows (flow labels) per sender");
  app.add_option("--labels", c.labels,
                 "flow labels: random (20 bits per flow from the seed) or sequential (the "
                 "sender's index x 256 + the flow's)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, FlowLabels>{{"random", FlowLabels::kRandom},
                                            {"sequential", FlowLabels::kSequential}},
          CLI::ignore_case));
  app.add_option("--csv", o.csv, "time series (CSV)");
  app.add_option("--barriers-csv", o.barriers_csv, "barriers: post cycle, latency (CSV)");
  app.add_option("--json", o.json, "configuration and figures (JSON)");
  CLI11_PARSE(app, argc, argv);
  c.backend = o.rtl ? Backend::kRtl : Backend::kModel;
  c.flows = !o.idle;

  static const TestInfo info{"ecmp_incast", "run", __FILE__, __LINE__, nullptr};
  RunOptions ropts;
  ropts.quiet = true;
  const auto w0 = std::chrono::steady_clock::now();
  EcmpIncastResult r;
  {
    TestContext ctx(info, o.seed, ropts);
    r = run_ecmp_incast(ctx, c);
    ctx.finish();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const EcmpLatency lat = latency_stats(r, c.warmup);
  std::printf("ECMP %s%s, %s, seed %llu: %llu cycles in %.1f s\n", c.ecmp ? "on" : "off",
              c.dcqcn ? " + DCQCN" : "", o.rtl ? "RTL" : "golden models",
              static_cast<unsigned long long>(o.seed),
              static_cast<unsigned long long>(r.fabric_cycles), wall);
  std::printf("  port groups %llu, LFT entries naming one %llu\n",
              static_cast<unsigned long long>(r.port_groups),
              static_cast<unsigned long long>(r.group_entries));
  std::printf("  Jain %.3f, throughput %.3f flits/cycle, shares", r.jain, r.throughput);
  for (std::size_t i = 0; i < r.share.size(); ++i) {
    std::printf(" %s %.3f", r.sender_names[i].c_str(), r.share[i]);
  }
  // A NIC keeps no per-flow order count: with --dcqcn the order is not measured.
  const std::string order = c.dcqcn ? std::string("order not measured")
                                    : std::to_string(r.out_of_order) + " packets out of order";
  std::printf(
      "\n  %llu flows, %s, %llu / %llu DATA packets "
      "received / sent, lossless drops %llu\n",
      static_cast<unsigned long long>(r.flows), order.c_str(),
      static_cast<unsigned long long>(r.data_received),
      static_cast<unsigned long long>(r.data_sent),
      static_cast<unsigned long long>(r.lossless_drops));
  std::printf("  pause frames %llu (barrier class %llu), senders paused by %llu\n",
              static_cast<unsigned long long>(r.pause_frames),
              static_cast<unsigned long long>(r.barrier_pause_frames),
              static_cast<unsigned long long>(r.host_pauses));
  if (c.dcqcn) {
    std::printf(
        "  DCQCN: %llu CNPs sent by n0, %llu taken by the senders, %llu ECN marks, "
        "%llu DATA dropped at n0\n",
        static_cast<unsigned long long>(r.cnps), static_cast<unsigned long long>(r.cnps_received),
        static_cast<unsigned long long>(r.ecn_marks),
        static_cast<unsigned long long>(r.data_drops));
  }
  std::printf("  barriers %zu / %llu completed; window: median %llu, p99 %llu, max %llu cycles\n",
              r.barriers.size(), static_cast<unsigned long long>(r.barriers_posted),
              static_cast<unsigned long long>(lat.median), static_cast<unsigned long long>(lat.p99),
              static_cast<unsigned long long>(lat.max));
  std::printf("  barrier sends that can meet the incast: %llu of %llu, at",
              static_cast<unsigned long long>(r.crossing_sends),
              static_cast<unsigned long long>(r.schedule_sends));
  for (const std::string& e : r.shared_egresses) {
    std::printf(" %s", e.c_str());
  }
  std::printf("\n");
  if (!o.csv.empty()) {
    write_series(o.csv, r);
  }
  if (!o.barriers_csv.empty()) {
    write_barriers(o.barriers_csv, r);
  }
  if (!o.json.empty()) {
    write_json(o.json, o, r);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "syncfab-ecmp-incast: FAILED: %s\n", e.what());
    return 1;
  }
}
