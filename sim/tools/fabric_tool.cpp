// syncfab-fabric: the whole system on one fabric, as a user runs it. Routes a
// fabric (generator spec or net file) with the subnet manager, builds it
// from verilated NICs and switches (or golden models, chosen per node),
// programs every switch through its driver, runs common-start barriers on
// every NIC through its driver, checks them, and with --compare runs the same
// on the golden fabric and asserts the two agree (compare.hpp). Prints a
// summary: per-step wall time, barrier latency RTL vs model vs the physical
// bound, key counters. Exit 0: every check passed; 1: a check failed or bad
// input (the message names it).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "barrier_bound.hpp"
#include "flow.hpp"
#include "gtkw_writer.hpp"
#include "syncfab/driver/barrier_schedule.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/net_format.hpp"

namespace {

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string fabric = "fattree:ports=8,levels=2";
  std::string net;
  std::string unicast;
  std::string mc = "FULB-MC";
  std::string groups = "random:count=8,size=5";
  std::string backend = "rtl";
  std::vector<std::string> rtl_nodes;
  bool compare = false;
  // RTL / model latency, every fan-out's row and the mean: the project's
  // target; common-start runs measure 0.99-1.06 (docs/system-fabric.md,
  // "RTL and model latency").
  double band_lo = 0.9;
  double band_hi = 1.1;
  std::vector<unsigned> ks{1, 2, 3};
  unsigned barriers = 1;
  unsigned delay = 4;
  bool pfc = false;
  std::uint64_t seed = 1;
  std::string trace;
  bool trace_all = false;
  std::string csv;
  std::vector<std::string> group_barriers;  // "mcast", "comb"
  std::string comb_scheme = "tree";         // how the switches combine "comb": tree or ring
  std::string submit = "alternate";
  bool disseminate_groups = false;
  std::string placement = "aware";
  unsigned concurrent = 0;
};

driver::GroupBarrierKind group_kind(const std::string& name) {
  return name == "mcast" ? driver::GroupBarrierKind::kMulticastRelease
                         : driver::GroupBarrierKind::kSwitchCombined;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Backend per SM node: every node `all`, except the named ones, which are RTL.
SystemConfig backends(const sm::Fabric& smf, const Options& o, Backend all) {
  SystemConfig cfg;
  cfg.delay = o.delay;
  std::set<std::string> rtl(o.rtl_nodes.begin(), o.rtl_nodes.end());
  for (sm::NodeId n = 0; n < smf.node_count(); ++n) {
    rtl.erase(smf.name(n));
  }
  if (!rtl.empty()) {
    throw std::invalid_argument("--rtl: no node named '" + *rtl.begin() + "' in the fabric");
  }
  std::set<std::string> named(o.rtl_nodes.begin(), o.rtl_nodes.end());
  cfg.backend = [&smf, all, named](sm::NodeId n) {
    return named.count(smf.name(n)) != 0 ? Backend::kRtl : all;
  };
  return cfg;
}

struct Run {
  FlowResult flow;
  std::vector<std::string> waves;
};

// The NIC, its leaf and one spine the save file opens on: NIC 0, the switch
// it hangs off, and a switch one level up from that one.
WaveView wave_view(const sm::Fabric& smf) {
  WaveView v;
  const sm::NodeId nic = smf.hcas().front();
  v.nic = smf.name(nic);
  const sm::SwitchIdx leaf = smf.attach_switch(nic);
  v.leaf = smf.name(smf.switch_node(leaf));
  const sm::MinHop mh(smf);
  for (sm::SwitchIdx s = 0; s < smf.switch_count(); ++s) {
    if (mh.distance(leaf, s) == 1) {
      v.spine = smf.name(smf.switch_node(s));
      break;
    }
  }
  return v;
}

Run run_on(const Options& o, const sm::Fabric& smf, const SystemRouting& routing,
           const SystemConfig& cfg, const std::string& label, bool trace) {
  static const TestInfo info{"fabric", "run", __FILE__, __LINE__, nullptr};
  RunOptions ropts;
  ropts.quiet = true;
  ropts.trace = trace;
  if (trace) {
    ropts.waves_dir = o.trace;
    // The nodes the save file shows; --trace-all: every node, many times
    // slower (each traced model's whole signal set at every step).
    if (!o.trace_all) {
      const WaveView v = wave_view(smf);
      ropts.trace_only = [v](std::string_view inst) {
        return inst == v.nic || inst == v.leaf || inst == v.spine;
      };
    }
  }
  Run r;
  {
    TestContext ctx(info, o.seed, ropts);
    FlowOptions fo;
    fo.cfg = cfg;
    fo.ks = o.ks;
    fo.barriers = o.barriers;
    fo.pfc = o.pfc;
    for (const std::string& g : o.group_barriers) {
      fo.group_kinds.push_back(group_kind(g));
    }
    fo.comb_scheme = o.comb_scheme == "ring" ? CombScheme::kRing : CombScheme::kTree;
    fo.submit = o.submit == "hdq" ? SubmitMode::kHdq : SubmitMode::kAlternate;
    fo.concurrent = o.concurrent;
    fo.disseminate_groups = o.disseminate_groups;
    r.flow = run_flow(ctx, smf, routing, fo, label);
    ctx.finish();
    for (const auto& w : ctx.wave_files()) {
      r.waves.push_back(w.string());
    }
  }
  return r;
}

void print_steps(const FlowResult& f) {
  for (const FlowStep& s : f.steps) {
    std::printf("  %-6s %-12s %8.2f s  %9llu cycles\n", f.label.c_str(), s.name.c_str(), s.wall_s,
                static_cast<unsigned long long>(s.cycles));
  }
}

int run(int argc, char** argv) {
  CLI::App app{
      "syncfab-fabric: route a fabric with the subnet manager, build it from verilated NICs and "
      "switches (or golden models), program every switch through its driver, run common-start "
      "barriers on every NIC, check them, and compare with the golden fabric"};
  Options o;
  app.add_option("--fabric", o.fabric,
                 "generator spec (sm::make_fabric), e.g. fattree:ports=8,levels=2 (32 NICs)");
  app.add_option("--net", o.net, "net file (syncfab-route's format) instead of --fabric");
  app.add_option("--unicast", o.unicast,
                 "unicast engine: " + sm::unicast_engine_names() + " (default: the fabric's)");
  app.add_option("--mc", o.mc, "multicast engine of the groups' trees, or none");
  app.add_option("--groups", o.groups, "multicast groups (pattern), e.g. random:count=8,size=5");
  app.add_option("--backend", o.backend, "every node's backend")
      ->check(CLI::IsMember({"rtl", "model"}));
  app.add_option("--rtl", o.rtl_nodes, "nodes that are verilated RTL whatever --backend says")
      ->delimiter(',');
  app.add_flag("--compare", o.compare,
               "also run the golden fabric (every node a model) and assert that the two agree");
  app.add_option("--band-lo", o.band_lo, "lowest RTL/model latency ratio --compare accepts");
  app.add_option("--band-hi", o.band_hi, "highest RTL/model latency ratio --compare accepts");
  auto* k_opt = app.add_option("--k", o.ks, "fan-outs, one context each (none with --concurrent)")
                    ->delimiter(',');
  app.add_option("--barriers", o.barriers, "barriers per fan-out")->check(CLI::PositiveNumber);
  app.add_option("--delay", o.delay, "cycles on every link")->check(CLI::PositiveNumber);
  app.add_flag("--pfc", o.pfc, "the barrier priority lossless on every switch port");
  app.add_option("--seed", o.seed, "seed (groups, host sweeps, BFMs)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--trace", o.trace,
                 "folder for an FST of the first run (the first NIC, its leaf switch and one "
                 "spine above it, when verilated) and a GTKWave save file that opens on them");
  app.add_flag("--trace-all", o.trace_all,
               "with --trace: every verilated node in the FST (tens of times slower)");
  app.add_option("--group-barrier", o.group_barriers,
                 "group barriers to run on every multicast group after the dissemination ones: "
                 "mcast (multicast release from the root NIC), comb (combined in the switches)")
      ->delimiter(',')
      ->check(CLI::IsMember({"mcast", "comb"}));
  app.add_option("--comb-scheme", o.comb_scheme,
                 "how the switches combine --group-barrier comb: tree (up the group's tree, "
                 "release down it) or ring (along every dimension's rings of a torus, "
                 "docs/group-barrier.md \"Ring mode\"; the fabric must be a torus)")
      ->check(CLI::IsMember({"tree", "ring"}));
  app.add_option("--submit", o.submit,
                 "descriptor path of the hosts' posts: alternate (HDQ and SDQ in turn) or hdq "
                 "(every post through the HDQ: the least time from post to packet)")
      ->check(CLI::IsMember({"alternate", "hdq"}));
  app.add_option("--concurrent", o.concurrent,
                 "with --group-barrier: every group at once, this many barriers back to back "
                 "per group (posts through the HDQ), latency mean and p99 and barriers per 1000 "
                 "cycles; 0: one group after another");
  app.add_flag("--disseminate-groups", o.disseminate_groups,
               "the dissemination fan-outs on every multicast group's members (one run per "
               "group) instead of across every NIC");
  app.add_option("--placement", o.placement,
                 "ranks of a grid pattern: aware (rank r on NIC r) or unaware (shuffled with "
                 "--seed)")
      ->check(CLI::IsMember({"aware", "unaware"}));
  app.add_option("--csv", o.csv, "write one row per fan-out and per group barrier as CSV");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 1;
  }
  if (!o.net.empty() && app.count("--fabric") != 0) {
    throw std::invalid_argument("--fabric and --net: give one");
  }
  for (const unsigned k : o.ks) {
    if (k == 0 || k > driver::kBarrierMaxFanout) {
      throw std::invalid_argument("--k: fan-out " + std::to_string(k) + " (1.." +
                                  std::to_string(driver::kBarrierMaxFanout) + ")");
    }
  }
  if (o.concurrent != 0 && k_opt->count() == 0) {
    o.ks.clear();  // the concurrent runs take every context
  }
  if (o.concurrent != 0 && o.group_barriers.empty()) {
    throw std::invalid_argument("--concurrent " + std::to_string(o.concurrent) +
                                ": needs --group-barrier (the kinds to run at once)");
  }
  if (o.comb_scheme == "ring" && std::find(o.group_barriers.begin(), o.group_barriers.end(),
                                           "comb") == o.group_barriers.end()) {
    throw std::invalid_argument("--comb-scheme ring: needs --group-barrier comb");
  }
  if (o.mc == "none") {
    o.mc.clear();
  } else {
    (void)sm::find_mc_engine(o.mc);  // names the unknown engine
  }
  if ((o.disseminate_groups || !o.group_barriers.empty()) && o.mc.empty()) {
    throw std::invalid_argument(
        std::string(o.disseminate_groups ? "--disseminate-groups" : "--group-barrier") +
        ": needs multicast groups, and --mc is none");
  }
  if (!o.unicast.empty() && !sm::is_unicast_engine(o.unicast)) {
    throw std::invalid_argument("--unicast: unknown engine '" + o.unicast +
                                "' (known: " + sm::unicast_engine_names() + ")");
  }

  auto t0 = Clock::now();
  const sm::Fabric smf = o.net.empty() ? sm::make_fabric(o.fabric) : sm::read_net_file(o.net);
  smf.ensure_connected();
  if (smf.hca_count() < 2) {
    throw std::invalid_argument("the fabric has " + std::to_string(smf.hca_count()) +
                                " end node(s): a barrier needs at least 2");
  }
  RoutingOptions ro;
  ro.unicast = o.unicast;
  ro.mc = o.mc;
  ro.groups = o.groups;
  ro.seed = o.seed;
  ro.placement = o.placement == "unaware" ? sm::Placement::kUnaware : sm::Placement::kAware;
  const SystemRouting routing = route_system(smf, ro);
  const double route_s = since(t0);
  std::printf("fabric %s: %zu NICs, %zu switches; unicast %s, %zu multicast trees (%s), %.2f s\n",
              o.net.empty() ? o.fabric.c_str() : o.net.c_str(), smf.hca_count(), smf.switch_count(),
              routing.unicast.c_str(), routing.trees.size(),
              routing.mc.empty() ? "none" : routing.mc.c_str(), route_s);

  const Backend first = o.backend == "model" ? Backend::kModel : Backend::kRtl;
  const std::string first_label = !o.rtl_nodes.empty() && first == Backend::kModel ? "mixed"
                                  : first == Backend::kRtl                         ? "RTL"
                                                                                   : "model";
  const Run a = run_on(o, smf, routing, backends(smf, o, first), first_label, !o.trace.empty());
  std::optional<Run> gold;
  double ratio = 0;
  if (o.compare) {
    Options mo = o;
    mo.rtl_nodes.clear();
    gold = run_on(mo, smf, routing, backends(smf, mo, Backend::kModel), "model", false);
  }
  // The summary first, so that a comparison that fails shows its figures.
  const auto summary = [&](bool agreed) {
    // Across every NIC: the schedule's own bound (the wires of its rounds);
    // on the groups: the groups' physical bound, the group barriers' own.
    std::vector<std::uint64_t> bounds;
    auto members = static_cast<std::uint32_t>(smf.hca_count());
    if (o.disseminate_groups) {
      std::uint64_t sum = 0;
      for (const sm::Group& g : routing.groups.groups) {
        sum += group_bound(smf, g.members, o.delay);
      }
      members = static_cast<std::uint32_t>(routing.groups.groups.front().members.size());
      bounds.assign(o.ks.size(), sum / routing.groups.groups.size());
    } else {
      for (const unsigned k : o.ks) {
        bounds.push_back(barrier_bound(smf, o.delay, k));
      }
    }

    std::printf("\nsteps (wall time, simulated cycles):\n");
    std::printf("  %-6s %-12s %8.2f s\n", "", "route", route_s);
    print_steps(a.flow);
    if (gold) {
      print_steps(gold->flow);
    }
    std::printf(
        "\nbarrier latency, cycles from the common post to the last completion (mean of %u):\n",
        o.barriers);
    if (gold) {
      std::printf("  | k | rounds | %s | model | %s/model | bound | %s/bound |\n",
                  first_label.c_str(), first_label.c_str(), first_label.c_str());
    } else {
      std::printf("  | k | rounds | %s | bound | %s/bound |\n", first_label.c_str(),
                  first_label.c_str());
    }
    std::ofstream csv;
    if (!o.csv.empty()) {
      csv.open(o.csv);
      if (!csv) {
        throw std::runtime_error("--csv: cannot write " + o.csv);
      }
      csv << "barrier,group,members,nics,switches,k,rounds,barriers,latency,model_latency,ratio,"
             "bound,over_bound,concurrent,p99,model_p99,per_kcycle,model_per_kcycle,mc,efi_max,"
             "efi_mean\n";
    }
    for (std::size_t i = 0; i < o.ks.size(); ++i) {
      const unsigned k = o.ks[i];
      const unsigned rounds = driver::dissemination_rounds(members, k);
      const double lat = a.flow.latency[i];
      const double model_lat = gold ? gold->flow.latency[i] : 0;
      const double r = gold && model_lat > 0 ? lat / model_lat : 0;
      const double over = bounds[i] > 0 ? lat / static_cast<double>(bounds[i]) : 0;
      if (gold) {
        std::printf("  | %u | %u | %.0f | %.0f | %.3f | %llu | %.2f |\n", k, rounds, lat, model_lat,
                    r, static_cast<unsigned long long>(bounds[i]), over);
      } else {
        std::printf("  | %u | %u | %.0f | %llu | %.2f |\n", k, rounds, lat,
                    static_cast<unsigned long long>(bounds[i]), over);
      }
      if (csv) {
        csv << "dissemination," << (o.disseminate_groups ? "all" : "") << ',' << members << ','
            << smf.hca_count() << ',' << smf.switch_count() << ',' << k << ',' << rounds << ','
            << o.barriers << ',' << lat << ',' << model_lat << ',' << r << ',' << bounds[i] << ','
            << over << ",0,,,,,,,\n";
      }
    }
    if (!a.flow.groups.empty()) {
      std::printf(
          "\ngroup barriers on the %zu groups (%s trees, max EFI %u), cycles from the %s to "
          "the last completion (mean over the groups; bound: the group's longest "
          "member-to-member wire time plus a NIC's injection and ejection):\n",
          routing.trees.size(), routing.mc.c_str(), routing.efi.max_all_links,
          o.concurrent != 0 ? "group's last post, every group at once back to back"
                            : "common post");
      if (o.concurrent != 0) {
        std::printf("  | barrier | %s mean | p99 | throughput | bound | %s/bound mean | max |\n",
                    first_label.c_str(), first_label.c_str());
      } else if (gold) {
        std::printf("  | barrier | %s | model | %s/model | bound | %s/bound mean | max |\n",
                    first_label.c_str(), first_label.c_str(), first_label.c_str());
      } else {
        std::printf("  | barrier | %s | bound | %s/bound mean | max |\n", first_label.c_str(),
                    first_label.c_str());
      }
    }
    for (std::size_t i = 0; i < a.flow.groups.size(); ++i) {
      const GroupFlowResult& g = a.flow.groups[i];
      const GroupFlowResult* m = gold ? &gold->flow.groups[i] : nullptr;
      double bound_mean = 0;
      for (const std::uint64_t b : g.bound) {
        bound_mean += static_cast<double>(b) / static_cast<double>(g.bound.size());
      }
      const std::string name = o.group_barriers[i];
      const std::string shown =
          name == "comb" && o.comb_scheme == "ring" ? "comb (ring mode)" : name;
      if (g.concurrent) {
        std::printf(
            "  | %s | %.0f | p99 %.0f | %.2f barriers per 1000 cycles | %.0f | %.2f | "
            "%.2f |\n",
            shown.c_str(), g.mean_latency, g.p99, g.per_kcycle, bound_mean, g.mean_over_bound,
            g.max_over_bound);
      } else if (m != nullptr) {
        std::printf("  | %s | %.0f | %.0f | %.3f | %.0f | %.2f | %.2f |\n", shown.c_str(),
                    g.mean_latency, m->mean_latency, g.mean_latency / m->mean_latency, bound_mean,
                    g.mean_over_bound, g.max_over_bound);
      } else {
        std::printf("  | %s | %.0f | %.0f | %.2f | %.2f |\n", shown.c_str(), g.mean_latency,
                    bound_mean, g.mean_over_bound, g.max_over_bound);
      }
      if (csv) {
        for (std::size_t gi = 0; gi < g.latency.size(); ++gi) {
          const double ml = m != nullptr ? m->latency[gi] : 0;
          csv << name << ',' << gi << ',' << routing.groups.groups[gi].members.size() << ','
              << smf.hca_count() << ',' << smf.switch_count() << ",,2," << o.barriers << ','
              << g.latency[gi] << ',' << ml << ','
              << (ml > 0 && o.concurrent == 0 ? std::to_string(g.latency[gi] / ml) : std::string())
              << ',' << g.bound[gi] << ','
              << (g.bound[gi] > 0 ? g.latency[gi] / static_cast<double>(g.bound[gi]) : 0) << ','
              << o.concurrent << ',' << g.p99 << ',' << (m != nullptr ? m->p99 : 0) << ','
              << g.per_kcycle << ',' << (m != nullptr ? m->per_kcycle : 0) << ',' << routing.mc
              << ',' << routing.efi.max_all_links << ',' << routing.efi.mean_all_links << '\n';
        }
      }
    }
    const TrafficTotals& t = a.flow.traffic;
    std::printf(
        "\n%s counters: %zu LFT + %zu MFT entries programmed and read back in %llu cycles; "
        "NOTIFY %llu, ACK %llu, NACK %llu (retries %llu), PFC frames %llu; every flit sent was "
        "received\n",
        first_label.c_str(), a.flow.program.lft_entries, a.flow.program.mft_entries,
        static_cast<unsigned long long>(a.flow.program.cycles),
        static_cast<unsigned long long>(t.notify), static_cast<unsigned long long>(t.ack),
        static_cast<unsigned long long>(t.nack), static_cast<unsigned long long>(t.retries),
        static_cast<unsigned long long>(t.pfc_frames));
    if (!a.flow.groups.empty()) {
      std::printf(
          "%s group barriers: %zu combine entries programmed and read back; arrivals "
          "%llu (re-sent on timeout %llu), releases from root NICs %llu\n",
          first_label.c_str(), a.flow.combine_entries, static_cast<unsigned long long>(t.arrivals),
          static_cast<unsigned long long>(t.group_retries),
          static_cast<unsigned long long>(t.releases));
    }
    if (agreed && o.concurrent != 0) {
      std::printf(
          "%s and golden fabric agree (completions per context, per-link packets, NIC and "
          "switch counters); latencies of concurrent runs are the hosts' timing as much as the "
          "fabric's: not compared\n",
          first_label.c_str());
    } else if (agreed) {
      std::printf(
          "%s and golden fabric agree (completions, per-link packets, NIC and switch counters); "
          "latency ratio (mean) %.3f, every row within [%.2f, %.2f]\n",
          first_label.c_str(), ratio, o.band_lo, o.band_hi);
    }
    if (!a.waves.empty()) {
      const WaveView v = wave_view(smf);
      const std::filesystem::path gtkw = std::filesystem::path(o.trace) / "system.gtkw";
      const std::size_t missing = write_gtkw(gtkw, a.waves.front(), v, SYNCFAB_GTKW_DIR);
      if (missing != 0) {
        std::printf("(%zu signals of tb/waves' save files are not in this FST: left out)\n",
                    missing);
      }
      std::printf("waveform: %s\n  gtkwave %s %s   (%s, %s, %s)\n", a.waves.front().c_str(),
                  a.waves.front().c_str(), gtkw.c_str(), v.nic.c_str(), v.leaf.c_str(),
                  v.spine.c_str());
    }
  };
  if (gold) {
    try {
      // Concurrent runs: the verilated NICs' drivers share one simulated
      // timeline and their descriptor writes take bus cycles, so the hosts
      // of an RTL run post at other moments than a model run's, and the
      // groups overlap differently; what must agree is what the barriers
      // did (completions, packets per link, counters), not their latency.
      const CompareBand band = o.concurrent != 0
                                   ? CompareBand{0, std::numeric_limits<double>::infinity()}
                                   : CompareBand{o.band_lo, o.band_hi};
      ratio = compare(a.flow.record, gold->flow.record, band);
      for (std::size_t i = 0; i < o.ks.size(); ++i) {
        const double r = a.flow.latency[i] / gold->flow.latency[i];
        if (r < o.band_lo || r > o.band_hi) {
          throw std::runtime_error("k=" + std::to_string(o.ks[i]) + ": barrier latency " +
                                   first_label + " / model = " + std::to_string(r) + ", outside [" +
                                   std::to_string(o.band_lo) + ", " + std::to_string(o.band_hi) +
                                   "]");
        }
      }
      for (std::size_t i = 0; i < a.flow.groups.size() && o.concurrent == 0; ++i) {
        const double r = a.flow.groups[i].mean_latency / gold->flow.groups[i].mean_latency;
        if (r < o.band_lo || r > o.band_hi) {
          throw std::runtime_error(o.group_barriers[i] + " group barrier: latency " + first_label +
                                   " / model = " + std::to_string(r) + ", outside [" +
                                   std::to_string(o.band_lo) + ", " + std::to_string(o.band_hi) +
                                   "]");
        }
      }
    } catch (const std::exception&) {
      summary(false);
      throw;
    }
  }
  summary(gold.has_value());
  std::printf("total %.2f s\n", since(t0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "syncfab-fabric: FAILED: %s\n", e.what());
    return 1;
  }
}
