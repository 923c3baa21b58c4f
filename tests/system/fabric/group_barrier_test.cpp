// Group barriers in the system fabric (docs/group-barrier.md): the
// multicast-release and the switch-combined barrier on the FULB-MC trees of
// the 16-NIC fat tree, every check of run_barriers (one OK completion per
// member, none before the last member posted) and of the traffic; the RTL
// fabric against the golden fabric; a lost arrival and a lost release
// recovered by the members' re-sends; an MLID with no combine entries ending
// in RELEASE_TIMEOUT while the other groups keep working.
#include <algorithm>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "barrier_bound.hpp"
#include "combine_program.hpp"
#include "compare.hpp"
#include "fabric_setup.hpp"
#include "program.hpp"
#include "routing.hpp"
#include "syncfab/driver/barrier_errors.hpp"
#include "syncfab/driver/group_desc.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

namespace {

using Kind = driver::GroupBarrierKind;

// RTL / model latency band of golden_fabric_test.cpp (docs/system-fabric.md).
constexpr CompareBand kBand{0.7, 1.35};
constexpr unsigned kCtx = 0;
// A member re-sends its arrival this long after it left without the
// release: well above a barrier's latency on this fabric (about 150 cycles).
constexpr std::uint32_t kGroupTimeout = 600;

SystemConfig all(Backend b) {
  SystemConfig cfg;
  cfg.backend = [b](sm::NodeId) { return b; };
  return cfg;
}

// The groups of the test (seeded random groups, and one of every NIC), their
// FULB-MC trees programmed as MFT and combine entries, each group's epochs
// starting where its combine entries wait.
struct Groups {
  SystemRouting routing;
  std::vector<std::vector<unsigned>> members;  // NIC indices
  std::vector<std::uint16_t> first_epoch;
};

RoutingOptions routing_options(TestContext& ctx) {
  RoutingOptions ro;
  ro.unicast = "ftree";
  ro.groups = "random:count=" + std::to_string(ctx.param("groups", 3)) +
              ",size=" + std::to_string(ctx.param("group_size", 6));
  ro.seed = ctx.seed();
  return ro;
}

Groups route_groups(TestContext& ctx, SystemFabric& sys, unsigned barriers) {
  Groups g{route_system(sys.sm(), routing_options(ctx)), {}, {}};
  // One more group: every NIC.
  sm::Group everyone;
  everyone.mlid = static_cast<sm::Lid>(g.routing.trees.back().mlid + 1);
  for (unsigned r = 0; r < sys.nic_count(); ++r) {
    everyone.members.push_back(sys.nic_hca(r));
  }
  std::sort(everyone.members.begin(), everyone.members.end());
  g.routing.groups.groups.push_back(everyone);
  const sm::MinHop mh(sys.sm());
  sm::McLoad load(sys.sm());
  for (const sm::McTree& t : g.routing.trees) {
    load.add(t);
  }
  g.routing.trees.push_back(sm::route_fulb_mc(mh, everyone, load));
  (void)program_and_verify(sys, g.routing);
  for (std::size_t i = 0; i < g.routing.trees.size(); ++i) {
    g.first_epoch.push_back(static_cast<std::uint16_t>(1 + i * barriers));
    std::vector<unsigned> m;
    for (const sm::NodeId n : g.routing.groups.groups[i].members) {
      for (unsigned r = 0; r < sys.nic_count(); ++r) {
        if (sys.nic_hca(r) == n) {
          m.push_back(r);
        }
      }
    }
    g.members.push_back(std::move(m));
  }
  const std::size_t n =
      program_combine(sys, g.routing.groups.groups, g.routing.trees, g.first_epoch);
  std::cout << g.routing.trees.size() << " groups, " << n << " combine entries programmed\n";
  return g;
}

BarrierRun group_run(const Groups& g, std::size_t i, Kind kind, unsigned barriers, unsigned skew,
                     bool common) {
  BarrierRun run;
  run.ctx = kCtx;
  run.barriers = barriers;
  run.skew = skew;
  run.limit = kLimit;
  run.common_start = common;
  run.group = GroupRun{kind, g.routing.trees[i].mlid, g.members[i], g.first_epoch[i]};
  return run;
}

// The loss tests re-send after kGroupTimeout; the others keep the reset
// value (4096 cycles), above any wait of theirs for a skewed member, so a
// lossless run re-sends nothing and RTL and model counters agree exactly.
driver::NicOptions options(TestContext& ctx, bool short_timeout) {
  driver::NicOptions o = fabric::nic_options(ctx.sim(), kRetryDelay);
  if (short_timeout) {
    o.group_timeout_cycles = kGroupTimeout;
  }
  return o;
}

// Every group in turn, `barriers` each (skewed posts, then common starts),
// checked; what the comparison needs.
FabricRecord run_kind(TestContext& ctx, Backend b, Kind kind, const std::string& label) {
  const sm::Fabric smf = fat_tree_16();
  SystemConfig cfg = all(b);
  SystemFabric sys(ctx, smf, cfg);
  sys.start(options(ctx, false));
  const auto barriers = static_cast<unsigned>(ctx.param("barriers", 3));
  const Groups g = route_groups(ctx, sys, 2 * barriers);
  std::mt19937_64 rng(ctx.seed() * 1000 + static_cast<unsigned>(kind));
  BarrierResult all_runs;
  std::uint64_t arrivals = 0;
  for (std::size_t i = 0; i < g.members.size(); ++i) {
    for (const bool common : {false, true}) {
      BarrierRun run = group_run(g, i, kind, barriers, 200, common);
      run.group->first_epoch =
          static_cast<std::uint16_t>(g.first_epoch[i] + (common ? barriers : 0));
      const BarrierResult r = run_barriers(sys, run, rng);
      print_run(label + " " + driver::to_string(kind) + " group " + std::to_string(i) +
                    (common ? " common start" : " skewed"),
                run, r);
      if (common) {
        check_group_bound(smf, g.routing.groups.groups[i].members, cfg.delay, r);
      }
      arrivals += r.sends_per_barrier * barriers;
      append_result(all_runs, r);
    }
  }
  sys.idle_cycles(200);
  const TrafficTotals t = check_traffic(sys);
  print_totals(t);
  TB_CHECK_EQ(t.group_retries, 0U) << label << ": no arrival re-sent on a lossless fabric";
  TB_CHECK_EQ(t.arrivals, arrivals) << label << ": one arrival per member and barrier";
  TB_CHECK_EQ(t.notify, 0U) << label << ": a group barrier sends no NOTIFY";
  return record(sys, all_runs, label);
}

void compare_kind(TestContext& ctx, Kind kind) {
  const FabricRecord rtl = run_kind(ctx, Backend::kRtl, kind, "RTL");
  const FabricRecord gold = run_kind(ctx, Backend::kModel, kind, "model");
  const double ratio = compare(rtl, gold, kBand);
  std::cout << driver::to_string(kind) << ": RTL and golden fabric agree; barrier latency RTL "
            << rtl.latency << ", model " << gold.latency << " cycles (ratio " << ratio << ", band ["
            << kBand.lo << ", " << kBand.hi << "])\n";
}

// The link from switch `from` (SM index) to its tree child `child`.
Link& link_between(SystemFabric& sys, sm::SwitchIdx from, sm::NodeId child) {
  const sm::Fabric& smf = sys.sm();
  const sm::NodeId node = smf.switch_node(from);
  for (int p = 1; p <= smf.num_ports(node); ++p) {
    if (smf.peer(node, static_cast<sm::PortNum>(p)).node == child) {
      if (Link* l = sys.switch_link(from, static_cast<unsigned>(p - 1))) {
        return *l;
      }
    }
  }
  throw std::runtime_error("no link from switch " + smf.name(node) + " to " + smf.name(child));
}

// One group of every NIC; the first barrier loses a packet on one link, the
// members' re-sends (GROUP_TIMEOUT) recover it; two more barriers follow.
void lost_packet(TestContext& ctx, Backend b, Kind kind, PktKind lose) {
  const sm::Fabric smf = fat_tree_16();
  SystemFabric sys(ctx, smf, all(b));
  sys.start(options(ctx, true));
  const Groups g = route_groups(ctx, sys, 3);
  const std::size_t i = g.members.size() - 1;  // every NIC
  const sm::McTree& tree = g.routing.trees[i];
  std::string where;
  if (lose == PktKind::kArrive || lose == PktKind::kCombArrive) {
    // Member 5's arrival, on its own link.
    const unsigned nic = g.members[i][5];
    sys.nic_link(nic).drop_next(sys.nic(nic).port(0), lose);
    where = sys.nic(nic).name() + "'s link";
  } else {
    // The release on its way down from the root switch to one leaf; for a
    // multicast release, from member 1's leaf to member 1.
    const sm::NodeId root = smf.switch_node(tree.root);
    if (lose == PktKind::kCombRelease) {
      const sm::NodeId child = smf.peer(root, 1).node;
      link_between(sys, tree.root, child).drop_next(sys.sw(tree.root).port(0), lose);
      where = smf.name(root) + " -> " + smf.name(child);
    } else {
      const unsigned nic = g.members[i][1];
      const sm::SwitchIdx leaf = smf.attach_switch(sys.nic_hca(nic));
      Link& l = link_between(sys, leaf, sys.nic_hca(nic));
      const sm::NodeId ln = smf.switch_node(leaf);
      const sm::PortNum p = smf.peer(sys.nic_hca(nic), 1).port;
      l.drop_next(sys.sw(leaf).port(p - 1U), lose);
      where = smf.name(ln) + " -> " + sys.nic(nic).name();
    }
  }
  std::mt19937_64 rng(ctx.seed());
  BarrierRun run = group_run(g, i, kind, 3, 100, false);
  run.fault_cycles = 2 * std::uint64_t{kGroupTimeout};  // the re-send, and the release it brings
  const BarrierResult r = run_barriers(sys, run, rng);
  print_run(
      std::string(driver::to_string(kind)) + " losing one " + to_string(lose) + " on " + where, run,
      r);
  sys.idle_cycles(200);
  TrafficRules rules;
  rules.losses = true;
  const TrafficTotals t = check_traffic(sys, rules);
  print_totals(t);
  std::uint64_t lost = 0;
  for (const auto& l : sys.links()) {
    lost += l->lost().size();
  }
  TB_CHECK_EQ(lost, 1U) << "exactly the one packet was lost";
  TB_CHECK(t.group_retries >= 1) << "a member re-sent its arrival";
  std::cout << "lost 1 " << to_string(lose) << " on " << where << "; " << t.group_retries
            << " arrival(s) re-sent after " << kGroupTimeout
            << " cycles; 3 barriers completed, worst " << r.worst
            << " cycles after the last post\n";
}

}  // namespace

SYNCFAB_TEST(group_barrier, comb_compare) {
  compare_kind(ctx, Kind::kSwitchCombined);
  co_return;
}

SYNCFAB_TEST(group_barrier, mcast_compare) {
  compare_kind(ctx, Kind::kMulticastRelease);
  co_return;
}

SYNCFAB_TEST(group_barrier, comb_lost_arrival) {
  lost_packet(ctx, Backend::kRtl, Kind::kSwitchCombined, PktKind::kCombArrive);
  co_return;
}

SYNCFAB_TEST(group_barrier, comb_lost_release) {
  lost_packet(ctx, Backend::kRtl, Kind::kSwitchCombined, PktKind::kCombRelease);
  co_return;
}

SYNCFAB_TEST(group_barrier, mcast_lost_arrival) {
  lost_packet(ctx, Backend::kRtl, Kind::kMulticastRelease, PktKind::kArrive);
  co_return;
}

SYNCFAB_TEST(group_barrier, mcast_lost_release) {
  lost_packet(ctx, Backend::kRtl, Kind::kMulticastRelease, PktKind::kRelease);
  co_return;
}

SYNCFAB_TEST(group_barrier, comb_lost_release_model) {
  lost_packet(ctx, Backend::kModel, Kind::kSwitchCombined, PktKind::kCombRelease);
  co_return;
}

// A descriptor on an MLID no switch has a combine entry for: the first
// switch drops the arrival (DROP_NO_ROUTE), the member re-sends until its
// retry limit and completes NET_ERROR / RELEASE_TIMEOUT; a group barrier on
// a programmed group then runs on the same NICs.
SYNCFAB_TEST(group_barrier, unjoined_mlid_times_out) {
  const sm::Fabric smf = fat_tree_16();
  SystemFabric sys(ctx, smf, all(Backend::kRtl));
  driver::NicOptions o = options(ctx, true);
  o.group_retry_limit = 2;
  sys.start(o);
  const Groups g = route_groups(ctx, sys, 1);
  const auto stray_mlid = static_cast<std::uint16_t>(g.routing.trees.back().mlid + 10);
  driver::ContextConfig c(kCtx, 0, 2, 1, {});
  c.group = driver::GroupTarget{Kind::kSwitchCombined, stray_mlid, 0};
  driver::BarrierContext bc = sys.nic(0).nic().open_context(c);
  bc.arrive();
  std::string error;
  for (int i = 0; i < 40 && error.empty(); ++i) {
    try {
      (void)bc.test();
    } catch (const driver::BarrierError& e) {
      error = e.what();
    }
    sys.idle_cycles(200);
  }
  TB_CHECK(!error.empty()) << "the barrier on an unjoined MLID ended with an error";
  std::cout << "driver: " << error << "\n";
  const auto& cq = sys.nic(0).cq_writes();
  TB_CHECK(!cq.empty());
  TB_CHECK_EQ(cq.back().status, static_cast<unsigned>(fmt::CqStatus::kNetError));
  TB_CHECK_EQ(cq.back().err, static_cast<unsigned>(fmt::ErrCode::kReleaseTimeout));
  const fabric::Counters nc = fabric::read_counters(sys.nic(0).device());
  TB_CHECK_EQ(nc.arrive_sent, 3U) << "the arrival and its 2 re-sends";
  const sm::SwitchIdx leaf = smf.attach_switch(sys.nic_hca(0));
  const unsigned port = smf.peer(sys.nic_hca(0), 1).port - 1U;
  TB_CHECK_EQ(sys.sw(leaf).counter_all_prios(port, fmt::SwCounter::kDropNoRoute), 3U)
      << "every arrival dropped and counted at the leaf";
  bc.close();
  std::mt19937_64 rng(ctx.seed());
  const std::size_t i = g.members.size() - 1;
  BarrierRun run = group_run(g, i, Kind::kSwitchCombined, 2, 50, false);
  run.ctx = kCtx + 1;
  const BarrierResult r = run_barriers(sys, run, rng);
  print_run("switch-combined after the stray MLID", run, r);
  std::cout << "unjoined MLID " << sm::hex_lid(stray_mlid)
            << ": NET_ERROR / RELEASE_TIMEOUT after 2 re-sends, 3 DROP_NO_ROUTE at the leaf; "
               "the programmed group's barriers then completed\n";
  co_return;
}
