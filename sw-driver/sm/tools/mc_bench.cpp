// Multicast routing on the FULB-MC paper's fabrics: for each case, every
// engine routes all groups of a pattern; prints max/mean EFI, routing time
// (min-hop and root-independent setup excluded) and whether every tree passed
// the checker. Not a unit test. Usage: sm_mc_bench [--case FABRIC PATTERN PPN]...
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/multicast.hpp"

namespace {

using namespace syncfab::sm;

struct Case {
  std::string fabric;
  std::string pattern;
  int ppn;
};

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
  CLI11_PARSE(app, argc, argv);
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
  std::printf(
      "| fabric | pattern | ppn | groups | engine | max EFI sw | max EFI all | mean EFI sw | "
      "route s | trees |\n|---|---|---|---|---|---|---|---|---|---|\n");
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
    for (const McEngine& e : mc_engines()) {
      if (e.name == "SSSP-MC" || (skip_sssp && e.name.starts_with("SSSP"))) {
        continue;
      }
      if (e.dragonfly_only && !dragonfly) {
        continue;
      }
      McLoad load(f);
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<McTree> trees = e.route_all(mh, gs.groups, load);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::string verdict = "all ok";
      for (std::size_t i = 0; i < trees.size(); ++i) {
        const std::string err = check_tree(mh, gs.groups[i], trees[i]);
        if (!err.empty()) {
          verdict = "BAD: " + err;
          rc = 1;
          break;
        }
      }
      const McLoad::Stats s = load.stats();
      std::printf("| %s | %s | %d | %zu | %s | %u | %u | %.2f | %.3f | %s |\n", c.fabric.c_str(),
                  c.pattern.c_str(), c.ppn, gs.groups.size(), std::string(e.name).c_str(), s.max_switch_links,
                  s.max_all_links, s.mean_switch_links, secs, verdict.c_str());
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
