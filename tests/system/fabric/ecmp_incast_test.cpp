// ECMP on the system fabric (routing.hpp with port groups) and the fat-tree
// incast scenario (ecmp_incast.hpp), on golden-model nodes, short enough for
// `make test`:
// - port_groups_used: FTREE with ECMP port groups programmed through the
//   switches' drivers and read back; one host's 8 flows to a host on
//   another leaf leave its leaf on more than one uplink, none out of order;
//   without ECMP all on one (one_uplink_without_ecmp).
// - labels_pick_members: flows whose labels (FlowSpec::flow_label) the
//   switches' flow hash maps to each of leaf1's four uplinks leave on all
//   four, one each.
// - short_run_ecmp_off, short_run_ecmp_on: the scenario's invariants (not its figures): the samples
//   tile the run; per sample the pause frames per switch add up to the
//   sample's total, and the samples' flits plus those taken after the last
//   sample equal what the receiver counted; every barrier posted completed,
//   on its slots, and each falls in one sample; nothing out of order,
//   nothing dropped, every packet sent received. --param cycles=, sample=.
// - short_run_dcqcn: the scenario with DCQCN (EcmpIncastConfig::dcqcn, ECMP
//   on): every flow programmed, ECN marks, CNPs sent by n0 and taken by the
//   senders, every barrier posted completed, no lossless drop, nothing
//   dropped at n0, every DATA packet sent received. --param cycles=.
#include <bit>
#include <iostream>
#include <optional>
#include <set>

#include "ecmp_incast.hpp"
#include "fabric_setup.hpp"
#include "routing.hpp"
#include "syncfab/model/port_group.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

namespace {

// Data packets out of switch `sw` towards each spine (its uplinks).
std::set<unsigned> uplinks_used(SystemFabric& sys, unsigned sw) {
  std::set<unsigned> used;
  for (unsigned p = 0; p < sys.sw(sw).port_count(); ++p) {
    const Link* l = sys.switch_link(sw, p);
    if (l == nullptr) {
      continue;
    }
    const std::string& peer = sys.sm().name(sys.sm().peer(sys.sm().switch_node(sw), p + 1).node);
    if (peer.starts_with("spine") && l->from(sys.sw(sw).port(p)).count(PktKind::kData) > 0) {
      used.insert(p);
    }
  }
  return used;
}

// A label whose flow from src to dst leaves a switch with group `mask` (the
// packet arriving on in_port) on `port`.
std::uint32_t label_for(std::uint16_t src, std::uint16_t dst, std::uint32_t mask, unsigned in_port,
                        unsigned num_ports, unsigned port) {
  for (std::uint32_t label = 0; label <= 0xFFFFFU; ++label) {
    const model::MemberChoice c = model::choose_member(mask, ~std::uint32_t{0}, in_port, num_ports,
                                                       model::flow_hash(src, dst, label));
    if (c.port == static_cast<int>(port)) {
      return label;
    }
  }
  throw std::logic_error("no flow label picks port " + std::to_string(port));
}

// chosen_labels: one flow per uplink, labelled so that the hash picks it.
Task<> spread_once(TestContext& ctx, bool ecmp, bool chosen_labels = false) {
  const sm::Fabric smf = ecmp_incast_fabric();
  SystemConfig cfg;
  cfg.backend = [](sm::NodeId) { return Backend::kModel; };
  cfg.bulk_host = [&smf](sm::NodeId n) { return smf.name(n).front() == 'h'; };
  cfg.max_pkt_flits = 16;
  SystemFabric sys(ctx, smf, cfg);
  sys.start(fabric::nic_options(ctx.sim(), kRetryDelay));
  RoutingOptions ro;
  ro.unicast = "ftree";
  ro.mc.clear();
  ro.group_mode = ecmp ? sm::GroupMode::kEcmp : sm::GroupMode::kOff;
  const SystemRouting routing = route_system(smf, ro);
  const ProgramReport pr = program_and_verify(sys, routing);
  std::cout << (ecmp ? "ECMP" : "no ECMP") << ": " << pr.port_groups << " port groups, "
            << pr.group_entries << " LFT entries naming one, " << pr.lft_entries << " in all\n";
  const unsigned leaf1 = smf.switch_index(smf.find("leaf1").value());
  const std::uint16_t h0 = sys.host(0).lid();
  const std::optional<driver::LftEntry> e = sys.sw(leaf1).driver().lft_entry(h0);
  TB_CHECK(e.has_value()) << "leaf1 has no entry for h0";
  if (ecmp) {
    TB_CHECK(pr.port_groups > 0 && pr.group_entries > 0) << "no port group programmed";
    TB_CHECK(e->group) << "leaf1's entry for h0 names port " << unsigned{e->port};
    const std::optional<std::uint32_t> members = sys.sw(leaf1).driver().port_group(e->port);
    TB_CHECK(members.has_value() && std::popcount(*members) == 4)
        << "leaf1's group for h0: the four uplinks";
  } else {
    TB_CHECK_EQ(pr.port_groups, 0U) << "port groups without ECMP";
    TB_CHECK(!e->group) << "leaf1's entry for h0 names a group without ECMP";
  }
  // h4 (leaf1) to h0 (leaf0): 8 flows of 2 packets, one flow label each.
  swfab::FlowSpec f;
  f.dst_lid = h0;
  f.len_flits = 16;
  f.count = 2;
  f.start_cycle = sys.cycle() + 1;
  unsigned packets = 16;
  if (chosen_labels) {
    const std::uint32_t mask = sys.sw(leaf1).driver().port_group(e->port).value();
    const sm::NodeId h4 = sys.sm().find("h4").value();
    const unsigned in_port = sys.sm().peer(h4, 1).port - 1U;
    const unsigned num_ports = sys.sw(leaf1).port_count();
    packets = 0;
    for (unsigned p = 0; p < num_ports; ++p) {
      if ((mask >> p & 1U) != 0) {
        f.flow_label = label_for(sys.host(4).lid(), h0, mask, in_port, num_ports, p);
        sys.host(4).add_flow(f);
        packets += 2;
      }
    }
  } else {
    for (unsigned q = 0; q < 8; ++q) {
      sys.host(4).add_flow(f);
    }
  }
  // Idle links alone do not say the switches hold nothing: wait for h0 too.
  const std::uint64_t t0 = sys.cycle();
  while (!(sys.hosts_quiet() && sys.idle() && sys.host(0).received().data >= packets)) {
    TB_CHECK(sys.cycle() < t0 + 10'000) << packets << " packets did not arrive in 10,000 cycles";
    sys.idle_cycles(32);
  }
  check_traffic(sys);
  const std::set<unsigned> used = uplinks_used(sys, leaf1);
  std::cout << "leaf1 uplinks that carried h4's flows: " << used.size() << "\n";
  TB_CHECK_EQ(sys.host(0).received().data, packets) << "h0 received every packet";
  for (const auto& [key, rx] : sys.host(0).rx_flows()) {
    TB_CHECK_EQ(rx.out_of_order, 0U) << "flow " << key.second << " of host " << key.first;
  }
  if (chosen_labels) {
    TB_CHECK_EQ(used.size(), 4U) << "labels chosen for each uplink: every uplink carries one";
  } else if (ecmp) {
    TB_CHECK(used.size() > 1) << "ECMP: every flow left leaf1 on one uplink";
  } else {
    TB_CHECK_EQ(used.size(), 1U) << "without ECMP: one uplink per destination";
  }
  co_return;
}

void check_short_run(TestContext& ctx, bool ecmp) {
  EcmpIncastConfig c;
  c.ecmp = ecmp;
  c.cycles = static_cast<std::uint64_t>(ctx.param("cycles", 6000));
  c.warmup = 2000;
  c.sample_every = static_cast<std::uint64_t>(ctx.param("sample", 700));  // last one partial
  c.barrier_first = 500;
  c.barrier_every = 1000;
  const EcmpIncastResult r = run_ecmp_incast(ctx, c);
  const EcmpLatency lat = latency_stats(r, 0);
  std::cout << (ecmp ? "ECMP on" : "ECMP off") << ": Jain " << r.jain << ", throughput "
            << r.throughput << ", " << r.pause_frames << " pause frames, " << r.barriers.size()
            << " barriers (median " << lat.median << ", max " << lat.max << " cycles), "
            << r.crossing_sends << " of " << r.schedule_sends
            << " barrier sends can meet the incast\n";

  TB_CHECK(!r.series.empty()) << "no sample";
  std::uint64_t at = 0;
  std::uint64_t flits = 0;
  std::uint64_t pauses = 0;
  std::uint64_t done = 0;
  for (const EcmpSample& s : r.series) {
    TB_CHECK_EQ(s.end - s.length, at) << "sample ending at " << s.end << " leaves a gap";
    TB_CHECK(s.length > 0 && s.length <= c.sample_every) << "sample length " << s.length;
    at = s.end;
    TB_CHECK_EQ(s.flits.size(), std::size_t{c.senders}) << "a column per sender";
    for (const std::uint64_t f : s.flits) {
      flits += f;
    }
    std::uint64_t by_switch = 0;
    for (const std::uint64_t p : s.pause_tx_at) {
      by_switch += p;
    }
    TB_CHECK_EQ(by_switch, s.pause_tx) << "sample ending at " << s.end << ": pauses per switch";
    pauses += s.pause_tx;
    done += s.barriers_done;
  }
  TB_CHECK_EQ(at, c.cycles) << "the samples end with the run";
  TB_CHECK_EQ(flits + r.flits_after_end, r.data_flits)
      << "the samples' flits and those after the run = what h0 counted";
  TB_CHECK(pauses > 0 && pauses <= r.pause_frames)
      << pauses << " pause frames in the samples, " << r.pause_frames << " in the run";
  TB_CHECK_EQ(r.barriers.size(), r.barriers_posted) << "every barrier completed";
  TB_CHECK_EQ(done, r.barriers.size()) << "every barrier completed in one sample";
  const std::uint64_t slots = (c.cycles - c.barrier_every - c.barrier_first) / c.barrier_every + 1;
  TB_CHECK(r.barriers_posted > 0 && r.barriers_posted <= slots)
      << r.barriers_posted << " barriers in " << slots << " slots";
  for (std::size_t b = 0; b < r.barriers.size(); ++b) {
    const EcmpBarrier& x = r.barriers[b];
    TB_CHECK(x.posted >= c.barrier_first + b * c.barrier_every)
        << "barrier " << b << " posted at " << x.posted << ", before its slot";
    TB_CHECK_EQ((x.posted - c.barrier_first) % c.barrier_every, 0U)
        << "barrier " << b << " posted at " << x.posted << ", not at a slot's start";
    TB_CHECK(b == 0 || x.posted >= r.barriers[b - 1].posted + r.barriers[b - 1].latency)
        << "barrier " << b << " posted before the previous one completed";
    TB_CHECK(x.latency > 0 && x.posted + x.latency <= c.cycles)
        << "barrier " << b << " ends past the run";
  }
  TB_CHECK_EQ(r.out_of_order, 0U) << "packets out of order within a flow";
  TB_CHECK_EQ(r.lossless_drops, 0U) << "lossless drops";
  TB_CHECK_EQ(r.data_received, r.data_sent) << "every DATA packet received";
  TB_CHECK_EQ(r.flows, std::uint64_t{c.senders} * c.flows_per_sender) << "flows h0 heard from";
  TB_CHECK(r.crossing_sends > 0) << "no barrier send can meet the incast";
  TB_CHECK(r.jain > 0 && r.jain <= 1.0 + 1e-9) << "Jain " << r.jain;
  // A packet counts in the sample its last flit arrived in: the window may
  // hold one packet's flits more than its cycles.
  const double slack = static_cast<double>(c.len_flits) / static_cast<double>(c.cycles - c.warmup);
  TB_CHECK(r.throughput > 0 && r.throughput <= 1.0 + slack) << "throughput " << r.throughput;
  TB_CHECK(!ecmp || r.group_entries > 0) << "ECMP without group entries";
}

void check_dcqcn_run(TestContext& ctx) {
  EcmpIncastConfig c;
  c.ecmp = true;
  c.dcqcn = true;
  c.cycles = static_cast<std::uint64_t>(ctx.param("cycles", 6000));
  c.warmup = 2000;
  c.sample_every = 1000;
  c.barrier_first = 500;
  c.barrier_every = 1000;
  const EcmpIncastResult r = run_ecmp_incast(ctx, c);
  const EcmpLatency lat = latency_stats(r, 0);
  std::cout << "ECMP + DCQCN: Jain " << r.jain << ", throughput " << r.throughput << ", "
            << r.pause_frames << " pause frames, " << r.ecn_marks << " ECN marks, " << r.cnps
            << " CNPs (" << r.cnps_received << " taken), " << r.barriers.size()
            << " barriers (median " << lat.median << ", max " << lat.max << " cycles)\n";
  std::uint64_t flits = 0;
  for (const EcmpSample& s : r.series) {
    TB_CHECK_EQ(s.flits.size(), std::size_t{c.senders}) << "a column per sender";
    for (const std::uint64_t f : s.flits) {
      flits += f;
    }
  }
  TB_CHECK(flits > 0 && flits <= r.data_flits)
      << flits << " flits sent in the samples, " << r.data_flits << " taken by n0";
  TB_CHECK_EQ(r.flows, std::uint64_t{c.senders} * c.flows_per_sender) << "flows programmed";
  TB_CHECK(r.ecn_marks > 0) << "no ECN mark";
  TB_CHECK(r.cnps > 0) << "n0 sent no CNP";
  TB_CHECK(r.cnps_received > 0 && r.cnps_received <= r.cnps)
      << r.cnps_received << " CNPs taken of " << r.cnps << " sent";
  TB_CHECK(r.barriers_posted > 0) << "no barrier posted";
  TB_CHECK_EQ(r.barriers.size(), r.barriers_posted) << "every barrier completed";
  TB_CHECK_EQ(r.lossless_drops, 0U) << "lossless drops";
  TB_CHECK_EQ(r.data_drops, 0U) << "DATA dropped at n0";
  TB_CHECK_EQ(r.data_received, r.data_sent) << "every DATA packet received";
  TB_CHECK(r.jain > 0 && r.jain <= 1.0 + 1e-9) << "Jain " << r.jain;
}

}  // namespace

// One fabric per test: a simulation keeps the clocks of the fabric it ran.
SYNCFAB_TEST(ecmp_incast, port_groups_used) { co_await spread_once(ctx, true); }

SYNCFAB_TEST(ecmp_incast, one_uplink_without_ecmp) { co_await spread_once(ctx, false); }

SYNCFAB_TEST(ecmp_incast, labels_pick_members) { co_await spread_once(ctx, true, true); }

SYNCFAB_TEST(ecmp_incast, short_run_ecmp_off) {
  check_short_run(ctx, false);
  co_return;
}

SYNCFAB_TEST(ecmp_incast, short_run_ecmp_on) {
  check_short_run(ctx, true);
  co_return;
}

SYNCFAB_TEST(ecmp_incast, short_run_dcqcn) {
  check_dcqcn_run(ctx);
  co_return;
}
