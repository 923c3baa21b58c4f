// The event-driven golden fabric (cpp-model/collective) against the cycle
// golden fabric (sim/system, every NIC and switch a golden model stepped each
// cycle; and, with Timing::rtl(), the verilated fabric): the same fabric, the same FULB-MC trees,
// common-start barriers posted through the HDQ; the event model's latency within kBand of the cycle
// fabric's (docs/collective-model.md "Validation"). One group of every NIC and one seeded random
// group of 8, comb and mcast; dissemination k = 1, 2, 3 on every NIC.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "fabric_inputs.hpp"
#include "flow.hpp"
#include "routing.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/tb/test.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;
namespace coll = syncfab::tb::collective;
namespace cm = syncfab::model::collective;

namespace {

// Event model / cycle fabric; the measured ratios are in
// docs/collective-model.md. The group barriers agree to the cycle (seeds
// 1-10); dissemination's many crossing packets meet the switches' round
// robins and the SM's routes, which the event model reads its own way.
constexpr double kGroupLo = 0.99;
constexpr double kGroupHi = 1.01;
constexpr double kDissLo = 0.94;
constexpr double kDissHi = 1.06;
constexpr unsigned kDelay = 4;

struct Row {
  bool group = false;
  std::string what;
  double cycle = 0;
  double event = 0;
};

// Every node of the cycle fabric `backend`, the event model with the
// matching Timing.
void agree(TestContext& ctx, const std::string& spec, Backend backend) {
  const sm::Fabric smf = sm::make_fabric(spec);
  RoutingOptions ro;
  ro.groups = "random:count=1,size=8";
  ro.seed = ctx.seed();
  SystemRouting routing = route_system(smf, ro);
  // One more group: every NIC, its tree routed beside the random one's.
  sm::Group everyone;
  everyone.mlid = static_cast<sm::Lid>(routing.trees.back().mlid + 1);
  everyone.members.assign(smf.hcas().begin(), smf.hcas().end());
  std::sort(everyone.members.begin(), everyone.members.end());
  const sm::MinHop mh(smf);
  sm::McLoad load(smf);
  for (const sm::McTree& t : routing.trees) {
    load.add(t);
  }
  routing.groups.groups.push_back(everyone);
  routing.trees.push_back(sm::route_fulb_mc(mh, everyone, load));

  FlowOptions fo;
  fo.cfg.backend = [backend](sm::NodeId) { return backend; };
  const cm::Timing timing = backend == Backend::kRtl ? cm::Timing::rtl() : cm::Timing::golden();
  fo.cfg.delay = kDelay;
  fo.ks = {1, 2, 3};
  fo.group_kinds = {driver::GroupBarrierKind::kSwitchCombined,
                    driver::GroupBarrierKind::kMulticastRelease};
  fo.submit = SubmitMode::kHdq;
  const FlowResult cyc = run_flow(ctx, smf, routing, fo, "cycle");

  coll::FabricInputs in(smf, kDelay);
  std::vector<Row> rows;
  std::vector<unsigned> all(smf.hca_count());
  for (unsigned i = 0; i < all.size(); ++i) {
    all[i] = i;
  }
  for (std::size_t i = 0; i < fo.ks.size(); ++i) {
    cm::Group g;
    g.spec = {cm::BarrierKind::kDissemination, fo.ks[i]};
    g.members = all;
    const auto r = cm::run_barrier(in.network(), g, timing);
    rows.push_back({false, "diss" + std::to_string(fo.ks[i]) + " all", cyc.latency[i],
                    static_cast<double>(r.latency)});
  }
  for (const GroupFlowResult& kind : cyc.groups) {
    const bool comb = kind.kind == driver::GroupBarrierKind::kSwitchCombined;
    for (std::size_t gi = 0; gi < routing.groups.groups.size(); ++gi) {
      const sm::Group& sg = routing.groups.groups[gi];
      cm::Group g;
      g.spec = {comb ? cm::BarrierKind::kComb : cm::BarrierKind::kMcast, 1};
      for (const sm::NodeId n : sg.members) {
        g.members.push_back(in.node_of(n));
      }
      g.tree = in.tree_of(sg, routing.trees[gi]);
      const auto r = cm::run_barrier(in.network(), g, timing);
      rows.push_back(
          {true, std::string(comb ? "comb" : "mcast") + " " + std::to_string(sg.members.size()),
           kind.latency[gi], static_cast<double>(r.latency)});
    }
  }
  for (const Row& r : rows) {
    const double ratio = r.event / r.cycle;
    std::printf("%s %s %-10s cycle %6.0f event %6.0f ratio %.3f\n", spec.c_str(),
                backend == Backend::kRtl ? "rtl" : "golden", r.what.c_str(), r.cycle, r.event,
                ratio);
  }
  for (const Row& r : rows) {
    const double ratio = r.event / r.cycle;
    const double lo = r.group ? kGroupLo : kDissLo;
    const double hi = r.group ? kGroupHi : kDissHi;
    TB_CHECK(ratio >= lo && ratio <= hi)
        << spec << " " << r.what << ": event " << r.event << " / cycle " << r.cycle << " = "
        << ratio << " outside [" << lo << ", " << hi << "]";
  }
}

}  // namespace

SYNCFAB_TEST(collective_agreement, fattree_32) {
  agree(ctx, "fattree:ports=8,levels=2", Backend::kModel);
  co_return;
}

SYNCFAB_TEST(collective_agreement, fattree_128) {
  agree(ctx, "fattree:ports=8,levels=3", Backend::kModel);
  co_return;
}

SYNCFAB_TEST(collective_agreement, torus_32) {
  agree(ctx, "torus:x=4,y=4,z=1,nodes=2", Backend::kModel);
  co_return;
}

// The verilated fabric against Timing::rtl() (its 128-NIC fat tree takes
// about 40 s, so only the two small fabrics run here).
SYNCFAB_TEST(collective_agreement, fattree_32_rtl) {
  agree(ctx, "fattree:ports=8,levels=2", Backend::kRtl);
  co_return;
}

SYNCFAB_TEST(collective_agreement, torus_32_rtl) {
  agree(ctx, "torus:x=4,y=4,z=1,nodes=2", Backend::kRtl);
  co_return;
}
