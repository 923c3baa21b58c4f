// Golden-model nodes in the system fabric (sim/system model_nic, model_switch):
// the 16-NIC fat tree built entirely from cpp-model's barrier engine and
// SwitchModel, a mixed fabric of RTL and model nodes, both passing the
// checks of the RTL fabric (barrier_run.hpp, traffic_check.hpp), and the RTL
// fabric compared with the golden fabric for k = 1, 2, 3 (compare.hpp).
#include <iostream>
#include <random>
#include <string>

#include "compare.hpp"
#include "fabric_setup.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

namespace {

// RTL / model barrier latency must lie in this band (docs/system-fabric.md,
// "The golden fabric": the measured ratios and why the band is this wide).
constexpr CompareBand kBand{0.7, 1.35};

SystemConfig all(Backend b) {
  SystemConfig cfg;
  cfg.backend = [b](sm::NodeId) { return b; };
  return cfg;
}

// A few RTL nodes among models: NICs on three leaves and one spine.
SystemConfig mixed(const sm::Fabric& smf) {
  SystemConfig cfg;
  cfg.backend = [&smf](sm::NodeId n) {
    const std::string& name = smf.name(n);
    const bool rtl = name == "nic0" || name == "nic5" || name == "nic10" || name == "spine1";
    return rtl ? Backend::kRtl : Backend::kModel;
  };
  return cfg;
}

// One fabric of the given backends: routed and programmed, `barriers`
// barriers of fan-out k on context k, every check of the RTL fabric, then
// what the comparison needs. The rng is the test's seed and k's: the RTL and
// the golden run draw the same first posts.
FabricRecord run_one(TestContext& ctx, const sm::Fabric& smf, const SystemConfig& cfg, unsigned k,
                     const std::string& label) {
  SystemConfig c = cfg;
  c.delay = static_cast<unsigned>(ctx.param("delay", 4));
  SystemFabric sys(ctx, smf, c);
  sys.start(fabric::nic_options(ctx.sim(), kRetryDelay));
  route_and_program(ctx, sys);
  std::mt19937_64 rng(ctx.seed() * 1000 + k);
  const auto barriers = static_cast<unsigned>(ctx.param("barriers", 3));
  const BarrierRun run{k, k, barriers, static_cast<unsigned>(ctx.param("skew", 200)), kLimit};
  const BarrierResult r = run_barriers(sys, run, rng);
  print_run(label, run, r);
  sys.idle_cycles(200);
  const TrafficTotals t = check_traffic(sys);
  print_totals(t);
  TB_CHECK_EQ(t.notify - t.retries, r.sends_per_barrier * barriers)
      << label << ": NOTIFYs sent = the schedules' sends";
  TB_CHECK_EQ(t.pfc_frames, 0U) << label << ": no PFC frame without PFC";
  return record(sys, r, label);
}

void compare_k(TestContext& ctx, unsigned k) {
  const sm::Fabric smf = fat_tree_16();
  const FabricRecord rtl = run_one(ctx, smf, all(Backend::kRtl), k, "RTL");
  const FabricRecord gold = run_one(ctx, smf, all(Backend::kModel), k, "model");
  const double ratio = compare(rtl, gold, kBand);
  std::cout << "k=" << k << ": RTL and golden fabric agree; NACKs RTL " << rtl.nacks << ", model "
            << gold.nacks << "; barrier latency RTL " << rtl.latency << ", model " << gold.latency
            << " cycles (ratio " << ratio << ", band [" << kBand.lo << ", " << kBand.hi << "])\n";
}

}  // namespace

// The 16-NIC fat tree, every NIC and switch a golden model.
SYNCFAB_TEST(golden_fabric, fat_tree_16_model) {
  const sm::Fabric smf = fat_tree_16();
  const TrafficTotals t = run_barriers_on(ctx, smf, false, 3, all(Backend::kModel));
  TB_CHECK_EQ(t.pfc_frames, 0U) << "no PFC frame without PFC";
  co_return;
}

// The same with PFC at one cell: model switches pause model NICs.
SYNCFAB_TEST(golden_fabric, fat_tree_16_model_pfc) {
  const sm::Fabric smf = fat_tree_16();
  const TrafficTotals t = run_barriers_on(ctx, smf, true, 3, all(Backend::kModel));
  TB_CHECK(t.nic_pauses > 0) << "the switches paused the NICs";
  TB_CHECK(t.pfc_frames > t.nic_pfc_rx) << "switches paused switches too";
  co_return;
}

// RTL NICs nic0, nic5, nic10 and the RTL switch spine1 among golden models.
SYNCFAB_TEST(golden_fabric, mixed) {
  const sm::Fabric smf = fat_tree_16();
  const TrafficTotals t = run_barriers_on(ctx, smf, false, 3, mixed(smf));
  TB_CHECK_EQ(t.pfc_frames, 0U) << "no PFC frame without PFC";
  co_return;
}

SYNCFAB_TEST(golden_fabric, compare_k1) {
  compare_k(ctx, 1);
  co_return;
}

SYNCFAB_TEST(golden_fabric, compare_k2) {
  compare_k(ctx, 2);
  co_return;
}

SYNCFAB_TEST(golden_fabric, compare_k3) {
  compare_k(ctx, 3);
  co_return;
}
