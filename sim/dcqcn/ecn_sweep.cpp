// syncfab-ecn-sweep: the dynamic ECN law (docs/switch-ecn-dynamic.md) against
// every static (Kmin, Kmax, Pmax) of a grid on incasts whose fan-in changes
// during the run. Per pattern: the static settings whose bottleneck
// throughput (mean over the seeds) is at least the dynamic run's minus the
// tolerance, the lowest p99 queue length among them, and the dynamic law's.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "fanin_patterns.hpp"
#include "incast.hpp"

namespace {

using syncfab::sim::dcqcn::IncastConfig;
using syncfab::sim::dcqcn::IncastResult;

struct Setting {
  bool dynamic = false;
  unsigned kmin = 0, kmax = 0, pmax = 0;
  [[nodiscard]] std::string name() const {
    return (dynamic ? "dynamic(" : "static(") + std::to_string(kmin) + "," + std::to_string(kmax) +
           "," + std::to_string(pmax) + ")";
  }
};

struct Figures {
  double throughput = 0;
  double p99 = 0;
  double mean = 0;
  double pauses = 0;
  std::uint64_t drops = 0;
};

int cli(int argc, char** argv) {
  IncastConfig base;
  base.senders = 15;
  base.cycles = 300000;
  base.warmup = 20000;
  std::vector<std::string> patterns{"step", "burst"};
  std::vector<std::uint64_t> seeds{1, 2, 3};
  std::vector<unsigned> kmins{8, 16, 32, 64, 128};
  std::vector<unsigned> kmaxs{64, 128, 256, 512, 1024};
  std::vector<unsigned> pmaxs{16, 64, 255};
  unsigned jobs = 1;
  double tol = 0.005;
  std::string csv;
  Setting dyn{true, 64, 512, 64};
  CLI::App app{"Dynamic ECN law vs a grid of static WRED settings on changing-fan-in incasts"};
  app.add_option("--patterns", patterns, "step, burst, ramp, alternate");
  app.add_option("--seeds", seeds, "seeds of every run");
  app.add_option("--cycles", base.cycles, "cycles per run");
  app.add_option("--warmup", base.warmup, "cycles before the figures start");
  app.add_option("--kmins", kmins, "static grid: Kmin (cells)");
  app.add_option("--kmaxs", kmaxs, "static grid: Kmax (cells)");
  app.add_option("--pmaxs", pmaxs, "static grid: Pmax (/256)");
  app.add_option("--dyn-kmin", dyn.kmin, "law's static Kmin register");
  app.add_option("--dyn-kmax", dyn.kmax, "law's static Kmax register");
  app.add_option("--dyn-pmax", dyn.pmax, "law's static Pmax register (start level)");
  app.add_option("--win", base.ecn_dyn.win, "ECN_DYN_CTRL.WIN");
  app.add_option("--fan-sh", base.ecn_dyn.fan_sh, "ECN_DYN_CTRL.FAN_SH");
  app.add_option("--qref", base.ecn_dyn.qref, "ECN_DYN_TARGET.QREF");
  app.add_option("--plo", base.ecn_dyn.plo, "ECN_DYN_PMAX.PLO");
  app.add_option("--phi", base.ecn_dyn.phi, "ECN_DYN_PMAX.PHI");
  app.add_option("--pup", base.ecn_dyn.pup, "ECN_DYN_PMAX.PUP");
  app.add_option("--pdn", base.ecn_dyn.pdn, "ECN_DYN_PMAX.PDN");
  app.add_option("--join-spread", base.join_spread,
                 "senders joining at a step start within this many cycles");
  app.add_option("--tol", tol, "throughput tolerance (flits/cycle) for 'equal throughput'");
  app.add_option("--jobs", jobs, "runs in parallel");
  app.add_option("--csv", csv, "write every setting's figures here");
  CLI11_PARSE(app, argc, argv);
  base.ecn_dyn.validate();

  std::vector<Setting> settings{dyn};
  for (unsigned a : kmins) {
    for (unsigned b : kmaxs) {
      for (unsigned p : pmaxs) {
        if (a < b) {
          settings.push_back({false, a, b, p});
        }
      }
    }
  }
  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv);
    out << "pattern,setting,kmin,kmax,pmax,seeds,throughput,qlen_p99,qlen_mean,pause_frames,"
           "lossless_drops\n";
  }
  int failures = 0;
  for (const auto& pat : patterns) {
    const auto steps = syncfab::sim::dcqcn::fanin_pattern(pat, base.cycles);
    std::vector<Figures> fig(settings.size());
    std::vector<IncastResult> res(settings.size() * seeds.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t k = next++; k < res.size(); k = next++) {
        const Setting& s = settings[k / seeds.size()];
        IncastConfig c = base;
        c.fanin = steps;
        c.seed = seeds[k % seeds.size()];
        c.kmin = s.kmin;
        c.kmax = s.kmax;
        c.pmax = s.pmax;
        c.ecn_dynamic = s.dynamic;
        res[k] = syncfab::sim::dcqcn::run_incast(c);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned j = 1; j < std::max(jobs, 1U); ++j) {
      pool.emplace_back(work);
    }
    work();
    for (auto& t : pool) {
      t.join();
    }
    for (std::size_t i = 0; i < settings.size(); ++i) {
      for (std::size_t j = 0; j < seeds.size(); ++j) {
        const IncastResult& r = res[i * seeds.size() + j];
        const auto n = static_cast<double>(seeds.size());
        fig[i].throughput += r.throughput / n;
        fig[i].p99 += r.qlen_p99 / n;
        fig[i].mean += r.qlen_mean / n;
        fig[i].pauses += static_cast<double>(r.pause_frames) / n;
        fig[i].drops += r.lossless_drops;
        if (i == 0) {
          std::printf("%s seed %llu dynamic: %s\n", pat.c_str(),
                      static_cast<unsigned long long>(seeds[j]),
                      syncfab::sim::dcqcn::to_string(r).c_str());
        }
      }
      if (out.is_open()) {
        out << pat << "," << (settings[i].dynamic ? "dynamic" : "static") << "," << settings[i].kmin
            << "," << settings[i].kmax << "," << settings[i].pmax << "," << seeds.size() << ","
            << fig[i].throughput << "," << fig[i].p99 << "," << fig[i].mean << "," << fig[i].pauses
            << "," << fig[i].drops << "\n";
      }
    }
    const Figures& d = fig[0];
    std::size_t best = 0;
    std::size_t best_any = 1;
    for (std::size_t i = 1; i < settings.size(); ++i) {
      if (fig[i].throughput >= d.throughput - tol && (best == 0 || fig[i].p99 < fig[best].p99)) {
        best = i;
      }
      if (fig[i].throughput > fig[best_any].throughput) {
        best_any = i;
      }
    }
    std::printf("%s: dynamic %s throughput %.4f p99 %.1f mean %.1f pauses %.0f drops %llu\n",
                pat.c_str(), settings[0].name().c_str(), d.throughput, d.p99, d.mean, d.pauses,
                static_cast<unsigned long long>(d.drops));
    std::printf("%s: highest static throughput %.4f at %s (p99 %.1f)\n", pat.c_str(),
                fig[best_any].throughput, settings[best_any].name().c_str(), fig[best_any].p99);
    if (best == 0) {
      std::printf("%s: no static setting reaches throughput %.4f - %.4f\n", pat.c_str(),
                  d.throughput, tol);
      continue;
    }
    const Figures& b = fig[best];
    const bool met = d.p99 < b.p99;
    failures += met ? 0 : 1;
    std::printf(
        "%s: best static at equal throughput %s throughput %.4f p99 %.1f mean %.1f -> dynamic "
        "p99 %.1f: %s\n",
        pat.c_str(), settings[best].name().c_str(), b.throughput, b.p99, b.mean, d.p99,
        met ? "lower (met)" : "not lower (not met)");
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return cli(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "syncfab-ecn-sweep: %s\n", e.what());
    return 2;
  }
}
