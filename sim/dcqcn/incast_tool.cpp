// syncfab-dcqcn-incast: the golden-model incast (incast.hpp) with PFC only
// and with DCQCN, side by side, and the targets next to the figures;
// or one of them (--case) with its time series, barriers and figures written
// for scripts (--csv, --barriers-csv, --json).
#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "incast.hpp"
#include "series_io.hpp"

namespace {

template <typename Write>
void write_file(const std::string& path, Write&& write) {
  std::ofstream out(path);
  if (!out) {
    throw std::runtime_error("cannot write '" + path + "'");
  }
  write(out);
  out.flush();
  if (!out) {
    throw std::runtime_error("writing '" + path + "' failed");
  }
}

int one_case(const syncfab::sim::dcqcn::IncastConfig& cfg, const std::string& csv,
             const std::string& barriers_csv, const std::string& json) {
  namespace dq = syncfab::sim::dcqcn;
  const auto r = dq::run_incast(cfg);
  std::printf("%s: %s\n", cfg.dcqcn ? "dcqcn" : "pfc-only", dq::to_string(r).c_str());
  if (cfg.barrier_every != 0) {
    const auto st = dq::barrier_stats(r, cfg.warmup);
    std::printf(
        "barriers: posted %llu completed %zu failed %llu; from cycle %llu: %zu, latency median "
        "%llu p99 %llu max %llu cycles\n",
        static_cast<unsigned long long>(r.barriers_posted), r.barriers.size(),
        static_cast<unsigned long long>(r.barriers_failed),
        static_cast<unsigned long long>(cfg.warmup), st.count,
        static_cast<unsigned long long>(st.median), static_cast<unsigned long long>(st.p99),
        static_cast<unsigned long long>(st.max));
  }
  if (!csv.empty()) {
    write_file(csv, [&](std::ostream& o) { dq::write_series_csv(o, r); });
  }
  if (!barriers_csv.empty()) {
    write_file(barriers_csv, [&](std::ostream& o) { dq::write_barriers_csv(o, r); });
  }
  if (!json.empty()) {
    write_file(json, [&](std::ostream& o) { o << dq::to_json(cfg, r).dump(2) << '\n'; });
  }
  return 0;
}

int cli(int argc, char** argv) {
  using syncfab::sim::dcqcn::IncastConfig;
  IncastConfig cfg;
  CLI::App app{"N golden NICs into one through a golden switch: PFC only vs DCQCN"};
  app.add_option("--senders", cfg.senders, "sending NICs");
  app.add_option("--cycles", cfg.cycles, "cycles to run");
  app.add_option("--warmup", cfg.warmup, "cycles before the figures start");
  app.add_option("--seed", cfg.seed, "seed of the senders' start times");
  app.add_option("--payload", cfg.payload_flits, "payload flits per DATA packet");
  app.add_option("--kmin", cfg.kmin, "WRED Kmin (cells)");
  app.add_option("--kmax", cfg.kmax, "WRED Kmax (cells)");
  app.add_option("--pmax", cfg.pmax, "WRED marking probability at Kmax (/256)");
  app.add_option("--xoff", cfg.xoff, "PFC XOFF (cells)");
  app.add_option("--rate-timer", cfg.rate_timer, "DCQCN RATE_TIMER (cycles)");
  app.add_option("--alpha-timer", cfg.alpha_timer, "DCQCN ALPHA_TIMER (cycles)");
  app.add_option("--cnp-interval", cfg.cnp_interval, "DCQCN CNP_INTERVAL (cycles)");
  app.add_option("--byte-counter", cfg.byte_counter, "DCQCN BYTE_COUNTER (flits)");
  std::string which = "both";
  std::string csv;
  std::string barriers_csv;
  std::string json;
  bool idle = false;
  app.add_option("--case", which, "pfc, dcqcn or both (side by side)")
      ->check(CLI::IsMember({"pfc", "dcqcn", "both"}));
  app.add_flag("--idle", idle, "no flows: the barriers alone on the idle fabric");
  app.add_flag("--ecn-dynamic", cfg.ecn_dynamic,
               "dynamic ECN law on the bottleneck queue (docs/switch-ecn-dynamic.md), its "
               "registers at their defaults; --kmin/--kmax/--pmax are where it starts");
  app.add_option("--sample", cfg.sample_every, "cycles per time-series sample (0: none)");
  app.add_option("--barrier-every", cfg.barrier_every,
                 "a barrier of every NIC each this many cycles (0: none)");
  app.add_option("--barrier-first", cfg.barrier_first, "cycle of the first barrier");
  app.add_option("--barrier-prio", cfg.barrier_prio,
                 "the barriers' priority (NET_CFG.TC); the flows' (3) shares their class");
  app.add_option("--barrier-fanout", cfg.barrier_fanout, "k of the dissemination barrier");
  app.add_option("--csv", csv, "time series (one --case)");
  app.add_option("--barriers-csv", barriers_csv,
                 "every barrier's post cycle and latency (one --case)");
  app.add_option("--json", json, "configuration and figures (one --case)");
  CLI11_PARSE(app, argc, argv);
  cfg.flows = !idle;
  if (which != "both") {
    cfg.dcqcn = which == "dcqcn";
    return one_case(cfg, csv, barriers_csv, json);
  }
  if (!csv.empty() || !barriers_csv.empty() || !json.empty()) {
    throw std::invalid_argument("--csv, --barriers-csv and --json need --case pfc or dcqcn");
  }
  IncastConfig pfc = cfg;
  pfc.dcqcn = false;
  IncastConfig dq = cfg;
  dq.dcqcn = true;
  const auto a = syncfab::sim::dcqcn::run_incast(pfc);
  const auto b = syncfab::sim::dcqcn::run_incast(dq);
  std::printf("pfc-only: %s\n", syncfab::sim::dcqcn::to_string(a).c_str());
  std::printf("dcqcn:    %s\n", syncfab::sim::dcqcn::to_string(b).c_str());
  const double ratio = b.pause_frames == 0 ? static_cast<double>(a.pause_frames)
                                           : static_cast<double>(a.pause_frames) /
                                                 static_cast<double>(b.pause_frames);
  std::printf(
      "targets: pause ratio %.1f (>= 10), throughput %.3f (>= 0.95), lossless drops "
      "%llu (0), jain %.3f (>= 0.95)\n",
      ratio, b.throughput, static_cast<unsigned long long>(b.lossless_drops), b.jain);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return cli(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "syncfab-dcqcn-incast: %s\n", e.what());
    return 2;
  }
}
