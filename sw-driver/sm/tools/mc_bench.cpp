// Multicast routing on the FULB-MC paper's fabrics: for each case, every
// engine routes all groups of a pattern; prints max/mean EFI, routing time
// (min-hop data and the root index excluded: per-fabric setup) and whether every tree passed
// the checker, next to the case's EFI lower bound (efi_bound.hpp). Not a unit test. Usage:
// sm_mc_bench [--case FABRIC PATTERN PPN]...
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/sm/efi_bound.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/root_index.hpp"

namespace {

using namespace syncfab::sm;

struct Case {
  std::string fabric;
  std::string pattern;
  int ppn;
};

// Specs, patterns and checker messages hold commas: always quoted.
std::string csv_field(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  }
  return out + '"';
}

// Root selection alone (--root-bench): the full scan against RootIndex on
// every group's member switches, per group and in total; the two must agree.
bool bench_roots(const MinHop& mh, const GroupSet& gs, const std::string& label) {
  std::vector<std::vector<SwitchIdx>> members;
  members.reserve(gs.groups.size());
  for (const Group& g : gs.groups) {
    members.push_back(member_switches(mh.fabric(), g));
  }
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const RootIndex index(mh);
  const auto t1 = Clock::now();
  std::vector<RootChoice> scan, fast;
  scan.reserve(members.size());
  fast.reserve(members.size());
  for (const auto& m : members) {
    scan.push_back(minimal_height_roots(mh, m));
  }
  const auto t2 = Clock::now();
  for (const auto& m : members) {
    fast.push_back(index.roots(m));
  }
  const auto t3 = Clock::now();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < scan.size(); ++i) {
    bad += scan[i].height != fast[i].height || scan[i].candidates != fast[i].candidates ? 1 : 0;
  }
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  const double n = static_cast<double>(std::max<std::size_t>(1, members.size()));
  std::printf("| %s | %zu | %zu | %zu | %.3f | %.3f | %.2f | %.3f | %.2f | %.1fx | %s |\n",
              label.c_str(), members.size(), mh.switch_count(), index.class_count(),
              secs(t0, t1) * 1e3, secs(t1, t2), secs(t1, t2) / n * 1e6, secs(t2, t3),
              secs(t2, t3) / n * 1e6, secs(t1, t2) / std::max(1e-9, secs(t2, t3)),
              bad == 0 ? "same" : ("DIFFER in " + std::to_string(bad)).c_str());
  std::fflush(stdout);
  return bad == 0;
}

}  // namespace

namespace {
int run(int argc, char** argv) {
  CLI::App app{"multicast engines on the paper's fabrics"};
  std::vector<std::string> raw;
  std::string placement = "aware";
  std::uint64_t seed = 1;
  bool skip_sssp = false;
  app.add_option("--case", raw, "FABRIC PATTERN PPN (repeatable)")->expected(3)->take_all();
  app.add_option("--placement", placement, "aware or unaware")
      ->check(CLI::IsMember({"aware", "unaware"}));
  app.add_option("--seed", seed, "placement / random-group seed");
  app.add_flag("--no-sssp", skip_sssp, "skip the SSSP-MC engines (slow on the torus)");
  std::vector<std::string> only;
  bool csv = false;
  app.add_option("--engine", only, "run only this engine (repeatable; default: all but SSSP-MC)");
  app.add_flag("--csv", csv, "CSV rows instead of a Markdown table (scripts/bench_route.py)");
  // Default scan: since it runs 16 bytes at a time it is 2-5x faster than
  // the index on every benchmark fabric (--root-bench; README "Beyond the
  // paper"), with the same roots.
  std::string roots = "scan";
  app.add_option("--roots", roots,
                 "root selection of every engine: scan (default; minimal_height_roots) or "
                 "index (RootIndex, built once per fabric, not timed); same roots")
      ->check(CLI::IsMember({"scan", "index"}));
  int repeat = 1;
  app.add_option("--repeat", repeat, "route each case N times, report the least time")
      ->check(CLI::Range(1, 100));
  bool root_bench = false;
  app.add_flag("--root-bench", root_bench,
               "time root selection alone (full scan vs RootIndex) instead of the engines");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 1;
  }
  std::vector<Case> cases;
  for (std::size_t i = 0; i + 2 < raw.size(); i += 3) {
    cases.push_back({raw[i], raw[i + 1], std::stoi(raw[i + 2])});
  }
  if (cases.empty()) {
    cases = {
        {"fattree", "grid2d:160x100", 1},        {"fattree", "grid3d:40x20x20", 1},
        {"pruned:paths=8", "grid2d:136x256", 4}, {"pruned:paths=8", "random:count=4000,size=16", 4},
        {"pruned:paths=2", "grid2d:160x256", 1}, {"pruned:paths=2", "grid3d:40x32x32", 1},
        {"torus", "grid2d:240x100", 1},          {"torus", "grid3d:30x20x40", 1},
        {"dragonfly", "grid3d:81x27x12", 1},     {"dragonfly", "random:count=4000,size=16", 1}};
  }
  for (const std::string& name : only) {
    (void)find_mc_engine(name);  // an unknown name is an error, not an empty run
  }
  if (root_bench) {
    std::printf(
        "| fabric / pattern | groups | switches | classes | index build ms | scan s | scan "
        "us/group "
        "| index s | index us/group | speedup | roots "
        "|\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  } else if (csv) {
    std::printf(
        "fabric,pattern,ppn,placement,seed,groups,single_node_groups,engine,max_efi_sw,"
        "max_efi_all,mean_efi_sw,mean_efi_all,route_s,trees,bound_sw,bound_all,bound_s,"
        "bound_cut\n");
  } else {
    std::printf(
        "| fabric | pattern | ppn | groups | engine | max EFI sw | max EFI all | mean EFI sw | "
        "route s | trees | bound sw | bound all "
        "|\n|---|---|---|---|---|---|---|---|---|---|---|---|"
        "\n");
  }
  std::fflush(stdout);
  int rc = 0;
  for (const Case& c : cases) {
    const Fabric f = make_fabric(c.fabric);
    const MinHop mh(f);
    PatternSpec p = parse_pattern(c.pattern);
    p.processes_per_node = c.ppn;
    p.placement = placement == "aware" ? Placement::kAware : Placement::kUnaware;
    p.seed = seed;
    const GroupSet gs = make_groups(f, p);
    const bool dragonfly = c.fabric.rfind("dragonfly", 0) == 0;
    const auto tb = std::chrono::steady_clock::now();
    const EfiBound bound = root_bench ? EfiBound{} : efi_lower_bound(f, gs.groups, &mh);
    const double bound_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - tb).count();
    // What proves bound_all: an end node's memberships or the best cut.
    const std::string bound_cut =
        bound.end_node > bound.switch_links ? "end node: " + bound.end_node_what
        : bound.best.family.empty()         ? ""
                                            : bound.best.family + ": " + bound.best.what;
    if (root_bench) {
      rc |=
          bench_roots(mh, gs, c.fabric + " " + c.pattern + " ppn " + std::to_string(c.ppn)) ? 0 : 1;
      continue;
    }
    std::unique_ptr<RootIndex> index;
    McOptions options;
    if (roots == "index") {
      index = std::make_unique<RootIndex>(mh);
      options.roots = index.get();
    }
    for (const McEngine& e : mc_engines()) {
      const bool listed = std::find(only.begin(), only.end(), e.name) != only.end();
      if (only.empty() ? (e.name == "SSSP-MC" || (skip_sssp && e.name.starts_with("SSSP")))
                       : !listed) {
        continue;
      }
      if (e.dragonfly_only && !dragonfly) {
        continue;
      }
      // --repeat: the least wall time of several runs (a shared machine's
      // noise only ever adds); the trees and EFI are those of the last run.
      std::optional<McLoad> last;
      std::vector<McTree> trees;
      double secs = 0;
      for (int run = 0; run < repeat; ++run) {
        McLoad& load = last.emplace(f);
        const auto t0 = std::chrono::steady_clock::now();
        trees = e.route_all(mh, gs.groups, load, options);
        const double t =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        secs = run == 0 ? t : std::min(secs, t);
      }
      std::string verdict = "all ok";
      for (std::size_t i = 0; i < trees.size(); ++i) {
        const std::string err = check_tree(mh, gs.groups[i], trees[i]);
        if (!err.empty()) {
          verdict = "BAD: " + err;
          rc = 1;
          break;
        }
      }
      const McLoad::Stats s = last->stats();
      if (csv) {
        std::printf("%s,%s,%d,%s,%llu,%zu,%zu,%s,%u,%u,%.4f,%.4f,%.6f,%s,%u,%u,%.6f,%s\n",
                    csv_field(c.fabric).c_str(), csv_field(c.pattern).c_str(), c.ppn,
                    placement.c_str(), static_cast<unsigned long long>(seed), gs.groups.size(),
                    gs.single_node_groups, std::string(e.name).c_str(), s.max_switch_links,
                    s.max_all_links, s.mean_switch_links, s.mean_all_links, secs,
                    csv_field(verdict).c_str(), bound.switch_links, bound.all_links, bound_s,
                    csv_field(bound_cut).c_str());
        std::fflush(stdout);
        continue;
      }
      std::printf("| %s | %s | %d | %zu | %s | %u | %u | %.2f | %.3f | %s | %u | %u |\n",
                  c.fabric.c_str(), c.pattern.c_str(), c.ppn, gs.groups.size(),
                  std::string(e.name).c_str(), s.max_switch_links, s.max_all_links,
                  s.mean_switch_links, secs, verdict.c_str(), bound.switch_links, bound.all_links);
      std::fflush(stdout);
    }
  }
  return rc;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "unknown error\n");
  }
  return 1;
}
