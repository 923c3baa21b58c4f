#include "fabric_setup.hpp"

#include <iostream>
#include <string>

#include "barrier_bound.hpp"
#include "program.hpp"
#include "routing.hpp"

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
  RoutingOptions ro;
  ro.unicast = "ftree";
  ro.groups = "random:count=" + std::to_string(ctx.param("groups", 8)) +
              ",size=" + std::to_string(ctx.param("group_size", 5));
  ro.seed = ctx.seed();
  const SystemRouting routing = route_system(sys.sm(), ro);
  const ProgramReport pr = program_and_verify(sys, routing);
  std::cout << "programmed " << pr.lft_entries << " LFT and " << pr.mft_entries
            << " MFT entries into " << sys.switch_count() << " switches over APB in " << pr.cycles
            << " cycles\n";
}

void print_run(const std::string& name, const BarrierRun& run, const BarrierResult& r) {
  std::cout << name << " ctx " << run.ctx << " k=" << run.k << ": " << run.barriers
            << " barrier(s), " << r.sends_per_barrier << (run.group ? " arrivals" : " NOTIFYs")
            << " each, " << r.cycles << " cycles; longest one-way " << r.one_way
            << " cycles, worst completion " << r.worst << " cycles after the last post (bound "
            << r.bound << ")\n";
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

void check_group_bound(const sm::Fabric& smf, const std::vector<sm::NodeId>& members,
                       unsigned delay, const BarrierResult& r) {
  const std::uint64_t bound = group_bound(smf, members, delay);
  const std::uint64_t latency = r.last_done.back() - r.last_posted.back();
  std::cout << "  latency " << latency << " cycles, " << members.size()
            << " members, physical bound " << bound << "\n";
  TB_CHECK(latency >= bound) << "a barrier faster than the wires allow";
}

void append_result(BarrierResult& all, const BarrierResult& r) {
  all.last_post.insert(all.last_post.end(), r.last_post.begin(), r.last_post.end());
  all.last_posted.insert(all.last_posted.end(), r.last_posted.begin(), r.last_posted.end());
  all.last_done.insert(all.last_done.end(), r.last_done.begin(), r.last_done.end());
  all.epochs.insert(all.epochs.end(), r.epochs.begin(), r.epochs.end());
}

}  // namespace syncfab::tb::system
