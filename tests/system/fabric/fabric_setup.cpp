#include "fabric_setup.hpp"

#include <iostream>
#include <string>

#include "program.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::tb::system {

// A two-level fat tree of 8-port switches with 16 end nodes: 4 leaves with 4
// end nodes on ports 1-4 and one up-link to each of the 4 spines on ports
// 5-8; spine j's port l + 1 goes to leaf l (ports 5-8 unused). The SM's
// k-port n-trees give 32 end nodes at 8 ports and 2 levels; this is the half
// that fits 16 NICs, with full bisection. End nodes in rank order.
sm::Fabric fat_tree_16() {
  constexpr int kLeaves = 4;
  constexpr int kDown = 4;
  constexpr int kSpines = 4;
  sm::Fabric f;
  std::vector<sm::NodeId> leaf;
  std::vector<sm::NodeId> spine;
  leaf.reserve(kLeaves);
  spine.reserve(kSpines);
  for (int l = 0; l < kLeaves; ++l) {
    leaf.push_back(f.add_node(sm::NodeType::kSwitch, "leaf" + std::to_string(l), 8));
  }
  for (int s = 0; s < kSpines; ++s) {
    spine.push_back(f.add_node(sm::NodeType::kSwitch, "spine" + std::to_string(s), 8));
  }
  for (int l = 0; l < kLeaves; ++l) {
    for (int h = 0; h < kDown; ++h) {
      const sm::NodeId n = f.add_node(sm::NodeType::kHca, "nic" + std::to_string(l * kDown + h), 1);
      f.connect(leaf[l], static_cast<sm::PortNum>(h + 1), n, 1);
    }
    for (int s = 0; s < kSpines; ++s) {
      f.connect(leaf[l], static_cast<sm::PortNum>(kDown + s + 1), spine[s],
                static_cast<sm::PortNum>(l + 1));
    }
  }
  f.assign_lids();
  return f;
}

// FTREE over the SM's fabric, and FULB-MC trees of random groups (seeded by
// the test's seed), programmed into every switch; every entry read back over
// each switch's APB.
void route_and_program(TestContext& ctx, SystemFabric& sys) {
  const sm::Fabric& smf = sys.sm();
  const sm::MinHop mh(smf);
  const sm::Lft lft = sm::route_ftree(mh, sm::updn_ranking(mh));
  // Every switch reaches every NIC (switch-to-switch LIDs between spines
  // stay unrouted under up*/down*, as in OpenSM; no NIC sends to them).
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    for (const std::uint16_t lid : sys.nic_lids()) {
      TB_CHECK(!sm::walk(lft, s, lid).empty())
          << "FTREE: " << sys.sw(s).name() << " does not reach LID " << sm::hex_lid(lid);
    }
  }
  sm::PatternSpec ps;
  ps.kind = sm::PatternSpec::Kind::kRandom;
  ps.count = static_cast<int>(ctx.param("groups", 8));
  ps.size = static_cast<int>(ctx.param("group_size", 5));
  ps.seed = ctx.seed();
  const sm::GroupSet gs = sm::make_groups(smf, ps);
  sm::McLoad load(smf);
  const std::vector<sm::McTree> trees =
      sm::find_mc_engine("FULB-MC").route_all(mh, gs.groups, load);
  for (std::size_t g = 0; g < trees.size(); ++g) {
    const std::string why = sm::check_tree(mh, gs.groups[g], trees[g]);
    TB_CHECK(why.empty()) << "FULB-MC tree of group " << g << ": " << why;
  }
  const ProgramReport pr = program_switches(sys, lft, trees);
  std::cout << "programmed " << pr.lft_entries << " LFT and " << pr.mft_entries
            << " MFT entries into " << sys.switch_count() << " switches over APB in " << pr.cycles
            << " cycles\n";
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    driver::Switch& d = sys.sw(s).driver();
    for (const driver::LftEntry& e : swfab::lft_entries(lft, s)) {
      TB_CHECK(d.lft(e.lid) == e.port) << sys.sw(s).name() << " LFT LID " << sm::hex_lid(e.lid);
    }
    for (const auto& [mlid, mask] : swfab::mft_masks(trees, s)) {
      TB_CHECK(d.mft(mlid) == mask) << sys.sw(s).name() << " MFT MLID " << sm::hex_lid(mlid);
    }
  }
}

void print_run(const std::string& name, const BarrierRun& run, const BarrierResult& r) {
  std::cout << name << " ctx " << run.ctx << " k=" << run.k << ": " << run.barriers
            << " barrier(s), " << r.sends_per_barrier << " NOTIFYs each, " << r.cycles
            << " cycles; longest one-way " << r.one_way << " cycles, worst completion " << r.worst
            << " cycles after the last post (bound " << r.bound << ")\n";
  for (std::size_t b = 0; b < r.epochs.size(); ++b) {
    std::cout << "  epoch " << r.epochs[b] << ": last post " << r.last_post[b]
              << " -> last completion " << r.last_done[b] << " (" << r.last_done[b] - r.last_post[b]
              << " cycles)\n";
  }
}

void print_totals(const TrafficTotals& t) {
  std::cout << "traffic: NOTIFY " << t.notify << ", ACK " << t.ack << ", NACK " << t.nack
            << ", retries " << t.retries << ", PFC frames " << t.pfc_frames << " (" << t.nic_pauses
            << " pauses of the NICs, " << t.nic_paused_cycles << " NIC-cycles paused); "
            << t.link_packets << " packets over the links, peak receive FIFO " << t.peak_fifo
            << " flits, " << t.rx_stall_cycles << " stalled cycles\n";
}

// One barrier across every NIC (k = 2) checked alone, then barriers in a
// row for k = 1, 2, 3, each on its own context, the identities checked again
// over everything. With `pfc`, the NICs' priority (NET_CFG.TC) is lossless
// on every switch port with XOFF = XON = 1 cell: every packet a switch
// buffers pauses the sender, so PFC frames cross every link and the NICs
// honour them.
TrafficTotals run_barriers_on(TestContext& ctx, const sm::Fabric& smf, bool pfc,
                              unsigned barriers_default, SystemConfig cfg) {
  cfg.delay = static_cast<unsigned>(ctx.param("delay", 4));
  SystemFabric sys(ctx, smf, cfg);
  sys.start(fabric::nic_options(ctx.sim(), kRetryDelay));
  constexpr std::uint16_t kQuanta = 16;
  const std::uint64_t pause = pfc ? std::uint64_t{kQuanta} * nic_top::kCpqReset : 0;
  if (pfc) {
    driver::PfcPortConfig pc{};
    pc[nic_top::kTcReset] = driver::PfcPriority{true, 1, 1, kQuanta};
    configure_pfc(sys, driver::PfcTiming{nic_top::kCpqReset, 64}, pc, 1);
  }
  route_and_program(ctx, sys);
  const auto skew = static_cast<unsigned>(ctx.param("skew", 200));
  const auto barriers = static_cast<unsigned>(ctx.param("barriers", barriers_default));

  std::uint64_t want_sends = 0;
  {
    const BarrierRun run{0, 2, 1, skew, kLimit, pause};
    const BarrierResult r = run_barriers(sys, run, ctx.rng());
    print_run("first barrier", run, r);
    TB_CHECK_EQ(r.epochs.at(0), 1U) << "the first barrier of a fresh context has epoch 1";
    want_sends += r.sends_per_barrier;
    sys.idle_cycles(200);
    const TrafficTotals t = check_traffic(sys);
    print_totals(t);
    TB_CHECK_EQ(t.notify - t.retries, want_sends) << "NOTIFYs sent = the schedules' sends";
  }
  for (unsigned k = 1; k <= 3; ++k) {
    const BarrierRun run{k, k, barriers, skew, kLimit, pause};
    const BarrierResult r = run_barriers(sys, run, ctx.rng());
    print_run("in a row", run, r);
    want_sends += r.sends_per_barrier * barriers;
  }
  sys.idle_cycles(200);
  const TrafficTotals t = check_traffic(sys);
  print_totals(t);
  TB_CHECK_EQ(t.notify - t.retries, want_sends) << "NOTIFYs sent = the schedules' sends";
  print_links(std::cout, sys);
  return t;
}

}  // namespace syncfab::tb::system
