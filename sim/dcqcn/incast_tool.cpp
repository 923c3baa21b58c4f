// syncfab-dcqcn-incast: the golden-model incast (incast.hpp) with PFC only
// and with DCQCN, side by side, and the targets next to the figures.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "incast.hpp"

namespace {

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
  CLI11_PARSE(app, argc, argv);
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
