// Unicast engines on the paper's fabrics: routing time, table memory,
// shortest-path and credit-loop checks (not a unit test).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/unicast.hpp"

namespace {
using namespace syncfab::sm;
using Clock = std::chrono::steady_clock;

// Switches with end nodes: up*/down* tables are minimal from these (switch
// to switch LIDs between upper levels have no legal path, as in OpenSM).
std::vector<SwitchIdx> hca_switches(const Fabric& f) {
  std::vector<char> mark(f.switch_count(), 0);
  for (NodeId h : f.hcas()) {
    mark[f.attach_switch(h)] = 1;
  }
  std::vector<SwitchIdx> out;
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    if (mark[s] != 0) {
      out.push_back(s);
    }
  }
  return out;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void report(const char* engine, const MinHop& mh, const Lft& lft, double route_s,
            const VlAssignment& vls, bool check_min, const std::vector<SwitchIdx>& sources = {}) {
  auto t0 = Clock::now();
  const std::string shortest = check_min ? check_shortest(mh, lft, sources) : std::string("n/a");
  const double check_s = since(t0);
  t0 = Clock::now();
  const CreditLoopReport r = check_credit_loops(lft, vls);
  const double cdg_s = since(t0);
  const LftBalance b = lft_balance(mh, lft);
  std::printf(
      "  %-14s route %7.3f s  LFT %6.1f MB (%d bit)  shortest: %s (%.2f s)  "
      "max/mean LIDs per link %u/%.1f, up-port spread %u, unrouted %zu  "
      "CDG: %s, %zu nodes, %zu deps (%.2f s)\n",
      engine, route_s, static_cast<double>(lft.memory_bytes()) / 1e6, lft.bits_per_entry(),
      shortest.empty() ? "ok" : shortest.c_str(), check_s, b.max_port_lids, b.mean_port_lids,
      b.max_spread, b.unrouted, r.acyclic ? "acyclic" : "CYCLIC", r.channels, r.dependencies,
      cdg_s);
  if (!r.acyclic && r.cycle.size() <= 12) {
    std::printf("    cycle: %s\n", r.describe(lft.fabric()).c_str());
  } else if (!r.acyclic) {
    std::printf("    cycle of %zu links\n", r.cycle.size());
  }
  std::fflush(stdout);
}
}  // namespace

namespace {
int run(int argc, char** argv) {
  CLI::App app{"Unicast engines on the paper's fabrics"};
  std::vector<std::string> specs{"fattree:ports=40,levels=3", "torus:x=30,y=20,z=20,nodes=2"};
  app.add_option("--fabric", specs,
                 "generator specs (default: the 16,000 fat tree and 24,000 torus)");
  bool lash = false;
  app.add_flag("--lash", lash, "also LASH (switches^2 paths: fabrics of a few hundred switches)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 1;
  }
  for (const std::string& spec : specs) {
    const Fabric f = make_fabric(spec);
    const bool torus = spec.rfind("torus", 0) == 0;
    const bool tree = spec.rfind("fattree", 0) == 0 || spec.rfind("pruned", 0) == 0;
    auto t0 = Clock::now();
    const MinHop mh(f);
    std::printf("%s: %zu switches, %zu end nodes, min-hop %.2f s\n", spec.c_str(), f.switch_count(),
                f.hca_count(), since(t0));
    t0 = Clock::now();
    {
      const Lft lft = route_minhop(mh);
      report("MINHOP", mh, lft, since(t0), {}, true);
    }
    t0 = Clock::now();
    const UpdnRanking rk = updn_ranking(mh);
    {
      const Lft lft = route_updn(mh, rk);
      report("UPDN", mh, lft, since(t0), {}, tree, hca_switches(f));
    }
    if (tree) {
      t0 = Clock::now();
      const Lft lft = route_ftree(mh, rk);
      report("FTREE", mh, lft, since(t0), {}, true, hca_switches(f));
    }
    if (lash) {
      t0 = Clock::now();
      const LashRouting r = route_lash(mh, 16);
      const double s = since(t0);
      std::printf("  LASH: %d lanes\n", r.lanes);
      report("LASH", mh, r.lft, s, r.vls(), true);
    }
    if (torus) {
      t0 = Clock::now();
      const TorusLayout t = torus_layout(f);
      const Lft lft = route_dor(f, t);
      const double s = since(t0);
      report("DOR+dateline", mh, lft, s, dor_dateline_vls(t), true);
      report("DOR 1 VL", mh, lft, s, {}, false);
    }
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sm_unicast_bench: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "sm_unicast_bench: unknown error\n");
    return 1;
  }
}
