// Barriers across verilated NICs through verilated switches (sim/system):
// the fabric from the subnet manager, its LFTs from FTREE programmed into
// every switch through its own driver, each NIC's barrier issued through its
// own driver. Every run checks completion (status, epoch, safety, liveness:
// barrier_run.hpp) and the lossless traffic identities (traffic_check.hpp);
// the bad fabrics the system refuses before any simulation are checked too.
#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>

#include "fabric_setup.hpp"
#include "program.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/unicast.hpp"
#include "system_fabric.hpp"
#include "traffic_check.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

namespace {

// `fn` throws std::invalid_argument whose message names `node`.
template <typename Fn>
void expect_refused(Fn fn, const std::string& node, const std::string& what) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    TB_CHECK(msg.find(node) != std::string::npos)
        << what << ": the error does not name " << node << ": " << msg;
    std::cout << what << ": refused: " << msg << "\n";
    return;
  }
  TB_CHECK(false) << what << ": not refused";
}

}  // namespace

// 16 NICs on the two-level fat tree of 8-port switches, FTREE routing.
SYNCFAB_TEST(system_fabric, fat_tree_16) {
  const sm::Fabric smf = fat_tree_16();
  const TrafficTotals t = run_barriers_on(ctx, smf, false, 3);
  TB_CHECK_EQ(t.pfc_frames, 0U) << "no PFC frame without PFC";
  co_return;
}

// The same with the barrier priority lossless and pausing at one cell.
SYNCFAB_TEST(system_fabric, fat_tree_16_pfc) {
  const sm::Fabric smf = fat_tree_16();
  const TrafficTotals t = run_barriers_on(ctx, smf, true, 3);
  TB_CHECK(t.nic_pauses > 0) << "the switches paused the NICs";
  TB_CHECK(t.pfc_frames > t.nic_pfc_rx) << "switches paused switches too";
  co_return;
}

// The SM's generator: its k-port n-tree, by default the 4-port 3-tree (16
// end nodes, 20 switches on four of switch_top's eight ports); `--param
// ports=8 --param levels=2` is the full 8-port 2-tree (32 NICs, 12 switches).
// One barrier per k.
SYNCFAB_TEST(system_fabric, generated_fat_tree) {
  const std::string spec = "fattree:ports=" + std::to_string(ctx.param("ports", 4)) +
                           ",levels=" + std::to_string(ctx.param("levels", 3));
  const sm::Fabric smf = sm::make_fabric(spec);
  std::cout << spec << ": " << smf.hca_count() << " NICs, " << smf.switch_count() << " switches\n";
  run_barriers_on(ctx, smf, false, 1);
  co_return;
}

// The checks catch a wrong table: leaf0 sends one remote NIC's LID to a
// local NIC's port; the barrier must not pass.
SYNCFAB_TEST(system_fabric, misroute_caught) {
  const sm::Fabric smf = fat_tree_16();
  SystemFabric sys(ctx, smf);
  driver::NicOptions opts = fabric::nic_options(ctx.sim(), kRetryDelay);
  // The hung barrier is abandoned on close: wait 2 us for it, not 100.
  opts.drain_timeout = std::chrono::microseconds(2);
  sys.start(opts);
  route_and_program(ctx, sys);
  driver::Switch& leaf0 = sys.sw(0).driver();
  leaf0.enable(false);
  leaf0.set_lft(sys.nic_lid(4), 1);
  leaf0.enable(true);
  try {
    run_barriers(sys, BarrierRun{0, 2, 1, 0, 6000}, ctx.rng());
    sys.idle_cycles(200);
    check_traffic(sys);
  } catch (const TestFailure& e) {
    std::cout << "caught as it must be: " << e.what() << "\n";
    co_return;
  }
  TB_CHECK(false) << "a misrouted LID went unnoticed";
}

// Fabrics the system refuses before any simulation, each error naming the node.
SYNCFAB_TEST(system_fabric, refuses_bad_fabrics) {
  {
    // 18-port switches: above the largest verilated shape (16 ports).
    const sm::Fabric smf = sm::make_fabric("fattree:ports=18,levels=1");
    expect_refused([&] { SystemFabric sys(ctx, smf); }, "sw-l1-0", "switch radix 18");
  }
  {
    sm::Fabric smf = fat_tree_16();
    const sm::NodeId lone = smf.add_node(sm::NodeType::kHca, "lonely", 1);
    smf.assign_lids();
    (void)lone;
    expect_refused([&] { SystemFabric sys(ctx, smf); }, "lonely", "unconnected HCA");
  }
  {
    sm::Fabric smf;
    const sm::NodeId s = smf.add_node(sm::NodeType::kSwitch, "sw", 8);
    const sm::NodeId a = smf.add_node(sm::NodeType::kHca, "a", 1);
    const sm::NodeId b = smf.add_node(sm::NodeType::kHca, "far", 1);
    smf.connect(s, 1, a, 1);
    smf.connect(s, 2, b, 1);
    smf.set_lid(b, 1, 1024);
    smf.assign_lids();
    expect_refused([&] { SystemFabric sys(ctx, smf); }, "far", "LID past the LFT");
  }
  {
    // A multicast group past the MFT: refused by program_switches before it
    // writes anything.
    const sm::Fabric smf = fat_tree_16();
    SystemFabric sys(ctx, smf);
    sm::McTree tree;
    tree.mlid = static_cast<sm::Lid>(fmt::kMlidBase + 256);
    tree.entries.push_back(sm::MftEntry{2, 1});
    const sm::MinHop mh(smf);
    const sm::Lft lft = sm::route_ftree(mh, sm::updn_ranking(mh));
    const std::vector<sm::McTree> trees{tree};
    expect_refused([&] { program_switches(sys, lft, trees); }, "leaf2", "MLID past the MFT");
  }
  co_return;
}
