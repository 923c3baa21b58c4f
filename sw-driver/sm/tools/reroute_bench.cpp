// Incremental rerouting after one failed link on the paper's fabrics (not a
// unit test): routes the fabric in full once, then fails seeded random
// switch-to-switch links one at a time (each repaired before the next, so
// every failure starts from the full routing) and prints what each one
// recomputed and how long it took. The credit-loop check of the new tables
// is timed apart (it is the whole check). Then members join and leave seeded
// random groups, each change routing that group's tree alone.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/reroute.hpp"
#include "syncfab/sm/unicast_engines.hpp"

namespace {
using namespace syncfab::sm;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int run(int argc, char** argv) {
  CLI::App app{"Incremental rerouting after one failed link on the paper's fabrics"};
  std::vector<std::string> specs{"fattree:ports=40,levels=3", "torus:x=30,y=20,z=20,nodes=2"};
  std::string pattern = "grid2d:160x100";
  std::string mc = "FULB-MC";
  std::string unicast;
  int failures = 5;
  std::uint64_t seed = 1;
  bool credit = false;
  app.add_option("--fabric", specs,
                 "generator specs (default: the 16,000 fat tree and 24,000 torus)");
  app.add_option("--pattern", pattern, "groups (aware placement, ppn 1)")->capture_default_str();
  app.add_option("--mc-algorithm", mc, "multicast engine")->capture_default_str();
  app.add_option("--unicast", unicast, "unicast engine (default: the tool's per-fabric default)");
  app.add_option("--failures", failures, "links failed one after the other")->capture_default_str();
  app.add_option("--seed", seed, "which links")->capture_default_str();
  app.add_flag("--credit-check", credit, "also time the (whole) credit-loop check of each result");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  for (const std::string& spec : specs) {
    auto t0 = Clock::now();
    Fabric f = make_fabric(spec);
    PatternSpec p = parse_pattern(pattern);
    std::vector<Group> groups = make_groups(f, p).groups;
    const std::string uc = unicast.empty() ? default_unicast(f) : unicast;
    RouteState st = route_state(std::move(f), std::move(groups), uc, mc);
    std::printf("%s: %zu switches, %zu groups, %s + %s, full routing %.2f s\n", spec.c_str(),
                st.fabric->switch_count(), st.groups.size(), uc.c_str(), mc.c_str(), since(t0));
    std::fflush(stdout);
    std::mt19937_64 rng(seed);
    RerouteOptions o;
    o.credit_check = credit;
    for (int i = 0; i < failures; ++i) {
      const Fabric& fab = *st.fabric;
      NodeId node = kNoNode;
      PortNum port = 0;
      while (node == kNoNode) {
        const NodeId n = fab.switch_node(static_cast<SwitchIdx>(rng() % fab.switch_count()));
        const auto q = static_cast<PortNum>(1 + rng() % fab.num_ports(n));
        const PortPeer o2 = fab.peer(n, q);
        if (o2.connected() && fab.is_switch(o2.node)) {
          node = n;
          port = q;
        }
      }
      const std::string name = fab.name(node) + ":" + std::to_string(port);
      t0 = Clock::now();
      const RerouteDelta d = fail_link(st, node, port, o);
      const double total = since(t0) - d.credit_s;
      std::printf(
          "  fail %-16s %7.1f ms (min-hop %.1f, unicast %.1f, multicast %.1f)  "
          "%zu distances, %zu LFT entries examined, %zu rewritten, %zu trees rerouted, %zu MFT "
          "entries%s%s",
          name.c_str(), total * 1e3, d.minhop_s * 1e3, d.unicast_s * 1e3, d.multicast_s * 1e3,
          d.distance_changes, d.lids_examined, d.lft.size(), d.trees_rerouted, d.mft.size(),
          d.unicast_full ? "  (UPDN ranking redone)" : "",
          d.credit ? (d.credit->acyclic ? "  credit loops: none" : "  credit loops: CYCLE") : "");
      if (d.credit) {
        std::printf(" (check %.0f ms)", d.credit_s * 1e3);
      }
      if (d.turns_checked > 0) {
        std::printf("  up*/down* turns of %zu rewritten entries: %s (%.1f ms)", d.turns_checked,
                    d.turns_ok ? "ok" : d.turn_violation.c_str(), d.turns_s * 1e3);
      }
      std::printf("\n");
      t0 = Clock::now();
      const RerouteDelta r = repair_link(st, node, port, o);
      std::printf("  repair             %7.1f ms  %zu LFT entries, %zu MFT entries\n",
                  (since(t0) - r.credit_s) * 1e3, r.lft.size(), r.mft.size());
      std::fflush(stdout);
    }
    for (int i = 0; i < failures && !st.groups.empty(); ++i) {
      const Fabric& fab = *st.fabric;
      const Group& g = st.groups[rng() % st.groups.size()];
      NodeId node = kNoNode;
      while (node == kNoNode) {
        const NodeId h = fab.hcas()[rng() % fab.hcas().size()];
        if (!std::binary_search(g.members.begin(), g.members.end(), h)) {
          node = h;
        }
      }
      const Lid mlid = g.mlid;
      t0 = Clock::now();
      const RerouteDelta j = join_member(st, mlid, node);
      const double join_s = since(t0);
      t0 = Clock::now();
      const RerouteDelta l = leave_member(st, mlid, node);
      std::printf("  join %s %-12s %7.2f ms  %zu MFT entries; leave %7.2f ms  %zu MFT entries\n",
                  hex_lid(mlid).c_str(), fab.name(node).c_str(), join_s * 1e3, j.mft.size(),
                  since(t0) * 1e3, l.mft.size());
      std::fflush(stdout);
    }
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sm_reroute_bench: error: %s\n", e.what());
    return 1;
  }
}
