// syncfab-collective: one barrier of each kind on p end nodes of a fabric,
// run on the event-driven golden fabric (cpp-model/collective), against the
// physical bound; the latency study's table (docs/collective-model.md).
// Exit 0: every run passed its checks; 1: a check failed or bad input (the
// message names the value).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabric_inputs.hpp"
#include "large_fat_tree.hpp"
#include "syncfab/fmt/formats.hpp"

namespace {

using namespace syncfab;
using namespace syncfab::tb::collective;
using Clock = std::chrono::steady_clock;

// docs/group-barrier.md section 2: a multicast-release group's limit.
constexpr std::size_t kMcastMaxMembers = fmt::kMcastMaxMembers;

struct Options {
  std::string fabric = "fattree:ports=8,levels=2";
  std::vector<std::string> p{"all"};
  std::vector<std::string> kinds{"comb", "mcast", "diss1", "diss2", "diss3", "sw1", "sw2", "sw3"};
  std::string mc = "FULB-MC";
  unsigned delay = 4;
  std::uint64_t seed = 1;
  std::string csv;
  std::string timing = "golden";
  unsigned groups = 0;  // concurrent mode: this many groups of p at once
  unsigned barriers = 1;
};

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::size_t parse_p(const std::string& text, std::size_t nodes) {
  if (text == "all") {
    return nodes;
  }
  std::size_t used = 0;
  unsigned long v = 0;
  try {
    v = std::stoul(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) {
    throw std::invalid_argument("--p '" + text + "' is neither a number nor 'all'");
  }
  return v;
}

std::uint64_t percentile(std::vector<std::uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)));
  return v[std::min(i, v.size() - 1)];
}

int run(const Options& o) {
  std::vector<cm::BarrierSpec> specs;
  for (const std::string& k : o.kinds) {
    specs.push_back(cm::parse_barrier_kind(k));
  }
  const cm::Timing timing = cm::parse_timing(o.timing);
  const auto t0 = Clock::now();
  const sm::Fabric fabric = make_any_fabric(o.fabric);
  FabricInputs in(fabric, o.delay);
  const double fabric_s = seconds(t0, Clock::now());
  std::vector<std::size_t> ps;
  for (const std::string& p : o.p) {
    ps.push_back(parse_p(p, in.nodes()));
    (void)draw_members(in, ps.back(), o.seed);  // bad p fails before any run
  }
  std::printf("%s: %zu end nodes, %zu switches, built in %.3f s\n", o.fabric.c_str(), in.nodes(),
              fabric.switch_count(), fabric_s);
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) {
      throw std::invalid_argument("--csv: cannot write '" + o.csv + "'");
    }
    csv << "fabric,p,kind,groups,barriers,latency,p99,bound,ratio,build_s,sim_s,events\n";
  }
  std::printf("%-28s %7s %-6s %9s %9s %7s %9s %9s %10s\n", "fabric", "p", "kind", "latency",
              "bound", "ratio", "build s", "sim s", "events");
  for (const std::size_t p : ps) {
    for (const cm::BarrierSpec& spec : specs) {
      const auto b0 = Clock::now();
      std::vector<cm::Group> groups;
      const unsigned count = std::max(o.groups, 1U);
      for (unsigned g = 0; g < count; ++g) {
        cm::Group grp;
        grp.spec = spec;
        grp.members = draw_members(in, p, o.seed + g);
        groups.push_back(std::move(grp));
      }
      const bool ring = spec.kind == cm::BarrierKind::kComb && spec.scheme == cm::CombScheme::kRing;
      if (ring && p > 1) {
        for (cm::Group& g : groups) {
          g.rings = in.rings(g.members);
        }
      } else if ((spec.kind == cm::BarrierKind::kComb || spec.kind == cm::BarrierKind::kMcast) &&
                 p > 1) {
        std::vector<std::vector<unsigned>> sets;
        sets.reserve(groups.size());
        for (const cm::Group& g : groups) {
          sets.push_back(g.members);
        }
        std::vector<cm::GroupTree> trees = in.trees(o.mc, sets);
        for (std::size_t g = 0; g < groups.size(); ++g) {
          groups[g].tree = std::move(trees[g]);
        }
      }
      const std::uint64_t bound = in.bound(groups.front().members, timing);
      const auto b1 = Clock::now();
      std::uint64_t latency = 0;
      std::uint64_t p99 = 0;
      std::uint64_t events = 0;
      if (o.groups == 0 && o.barriers == 1) {
        const cm::BarrierOutcome r = cm::run_barrier(in.network(), groups.front(), timing);
        latency = r.latency;
        p99 = r.latency;
        events = r.traffic.events;
      } else {
        const cm::ConcurrentOutcome r =
            cm::run_concurrent(in.network(), groups, o.barriers, timing);
        std::vector<std::uint64_t> all;
        for (const auto& g : r.latency) {
          all.insert(all.end(), g.begin(), g.end());
        }
        std::uint64_t sum = 0;
        for (const auto v : all) {
          sum += v;
        }
        latency = sum / all.size();
        p99 = percentile(all, 0.99);
        events = r.traffic.events;
        std::printf("  %zu barriers in %llu cycles: %.5f barriers per cycle\n", all.size(),
                    static_cast<unsigned long long>(r.end),
                    static_cast<double>(all.size()) / static_cast<double>(r.end));
      }
      const auto b2 = Clock::now();
      const double ratio = static_cast<double>(latency) / static_cast<double>(bound);
      const std::string kind = cm::to_string(spec);
      std::printf("%-28s %7zu %-6s %9llu %9llu %7.2f %9.3f %9.3f %10llu\n", o.fabric.c_str(), p,
                  kind.c_str(), static_cast<unsigned long long>(latency),
                  static_cast<unsigned long long>(bound), ratio, seconds(b0, b1), seconds(b1, b2),
                  static_cast<unsigned long long>(events));
      if (spec.kind == cm::BarrierKind::kMcast && p > kMcastMaxMembers) {
        std::printf(
            "  (mcast with %zu members: BAD_MEMBERS on the hardware, at most %zu; the model "
            "runs it to show the root link's cost)\n",
            p, kMcastMaxMembers);
      }
      std::fflush(stdout);
      if (csv) {
        csv << '"' << o.fabric << "\"," << p << ',' << kind << ',' << count << ',' << o.barriers
            << ',' << latency << ',' << p99 << ',' << bound << ',' << ratio << ','
            << seconds(b0, b1) << ',' << seconds(b1, b2) << ',' << events << '\n';
      }
    }
  }
  return 0;
}

int cli(int argc, char** argv) {
  Options o;
  CLI::App app{
      "syncfab-collective: barriers of each kind on p end nodes of a fabric, on the event-driven "
      "golden fabric, against the physical bound"};
  app.add_option("--fabric", o.fabric,
                 "generator spec (sm::make_fabric), e.g. fattree:ports=8,levels=3, or "
                 "xfattree:ports=74,levels=3 (the same fat tree without LIDs, past the LID space), "
                 "xtorus:x=32,y=32,z=32,nodes=3 (a torus without LIDs)");
  app.add_option("--p", o.p, "member counts, or all (comma separated)")->delimiter(',');
  app.add_option("--kinds", o.kinds,
                 "comb, ring (comb in ring mode, on a torus), mcast, diss1..diss4, sw1..sw4 (comma "
                 "separated)")
      ->delimiter(',');
  app.add_option("--mc", o.mc, "multicast engine of the group trees (sm::mc_engines())");
  app.add_option("--delay", o.delay, "cycles on every link")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "seed of the member draw")->check(CLI::NonNegativeNumber);
  app.add_option("--csv", o.csv, "write one row per (p, kind) as CSV");
  app.add_option("--timing", o.timing,
                 "cycle figures: golden (the golden models') or rtl (the verilated NIC's and "
                 "switch's)");
  app.add_option("--groups", o.groups,
                 "concurrent mode: this many groups of p members (seed, seed + 1, ...) at once");
  app.add_option("--barriers", o.barriers, "barriers back to back per group (concurrent mode)")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 1;
  }
  return run(o);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return cli(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "syncfab-collective: %s\n", e.what());
    return 1;
  }
}
