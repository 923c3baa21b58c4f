// Scenario: 8-to-1 incast on a lossless priority across a two-level
// Leaf-Spine of verilated 8-port switches (docs/switch-scenarios.md).
//
//   spine0  spine1  spine2  spine3      every leaf: ports 0-3 hosts,
//      \ \ \ | | | / / /                 ports 4-7 one uplink per spine
//   leaf0      leaf1      leaf2         every spine: ports 0-2 one per leaf
//  h0..h3     h4..h7     h8..h11
//
// h1-h3 (leaf0), h4-h7 (leaf1) and h8 (leaf2) send to h0 at full rate on
// priority 3 (PFC on every port); h9-h11 send lossy priority-0 background to
// h4-h6 (leaf2 -> spines -> leaf1) at half rate. LFTs: the subnet manager's
// FTREE engine on the same fabric built in its model.
#include <algorithm>
#include <iostream>
#include <map>
#include <numeric>

#include "delivery_check.hpp"
#include "scenario_util.hpp"
#include "switch_fabric.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/port_groups.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::tb::swfab {
namespace {

namespace drv = syncfab::driver;
using K = fmt::SwCounter;

constexpr unsigned kLossless = 3;

sm::Fabric leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf) {
  sm::Fabric f;
  std::vector<sm::NodeId> sp;
  std::vector<sm::NodeId> lf;
  for (unsigned s = 0; s < spines; ++s) {
    sp.push_back(f.add_node(sm::NodeType::kSwitch, "spine" + std::to_string(s), kPorts));
  }
  for (unsigned l = 0; l < leaves; ++l) {
    lf.push_back(f.add_node(sm::NodeType::kSwitch, "leaf" + std::to_string(l), kPorts));
  }
  for (unsigned l = 0; l < leaves; ++l) {
    for (unsigned h = 0; h < hosts_per_leaf; ++h) {
      const sm::NodeId n =
          f.add_node(sm::NodeType::kHca, "h" + std::to_string(l * hosts_per_leaf + h), 1);
      f.connect(n, 1, lf[l], sm_port(h));
    }
  }
  for (unsigned l = 0; l < leaves; ++l) {
    for (unsigned s = 0; s < spines; ++s) {
      f.connect(lf[l], sm_port(hosts_per_leaf + s), sp[s], sm_port(l));
    }
  }
  f.assign_lids();
  return f;
}

unsigned switch_named(const sm::Fabric& smf, const std::string& name) {
  return smf.switch_index(smf.find(name).value());
}

// The routing and the senders' flows: FTREE's single-port tables and one
// flow per sender, or FTREE with ECMP port groups (every leaf's four
// uplinks in one group) and `qps` flows per sender, each with its own flow
// label (as a host runs several queue pairs), so that the switches' flow
// hash spreads a sender's traffic over the spines.
struct IncastVariant {
  bool ecmp = false;
  unsigned qps = 1;
};

Task<> incast_scenario(TestContext& ctx, const IncastVariant v) {
  const auto pkts = static_cast<std::uint64_t>(ctx.param("pkts", 24));  // per sender
  const auto len = static_cast<unsigned>(ctx.param("len", 16));
  const auto delay = static_cast<unsigned>(ctx.param("delay", 8));  // switch-switch
  const auto host_delay = static_cast<unsigned>(ctx.param("host_delay", 4));
  const auto bg_pct = static_cast<unsigned>(ctx.param("bg_rate_pct", 50));
  const auto xoff = static_cast<std::uint16_t>(ctx.param("xoff", 64));
  const auto xon = static_cast<std::uint16_t>(ctx.param("xon", 32));
  const auto quanta = static_cast<std::uint16_t>(ctx.param("quanta", 32));
  const drv::PfcTiming timing{8, 64};

  const sm::Fabric smf = leaf_spine(3, 4, 4);
  Fabric f(ctx);
  instantiate(f, smf, [&](sm::NodeId a, sm::NodeId b) {
    return smf.is_switch(a) && smf.is_switch(b) ? delay : host_delay;
  });
  f.start();

  const sm::MinHop mh(smf);
  sm::PortGroups groups(smf);
  const sm::Lft lft = v.ecmp
                          ? sm::route_ftree(mh, sm::updn_ranking(mh), sm::GroupMode::kEcmp, &groups)
                          : sm::route_ftree(mh, sm::updn_ranking(mh));
  groups.finalize(fmt::kPortGroups);
  if (v.ecmp) {
    TB_CHECK(groups.grouped_entries() > 0) << "ECMP: FTREE proposed no port group";
    const sm::CreditLoopReport loops = sm::check_credit_loops(lft, &groups);
    TB_CHECK(loops.acyclic) << "ECMP tables: " << loops.describe(smf);
  }
  // Spine-to-spine LIDs have no up*/down* route (as in OpenSM); check the
  // walks that start at a leaf, where all the traffic enters.
  const std::vector<sm::SwitchIdx> leaves{switch_named(smf, "leaf0"), switch_named(smf, "leaf1"),
                                          switch_named(smf, "leaf2")};
  const std::string shortest = sm::check_shortest(mh, lft, leaves);
  TB_CHECK(shortest.empty()) << "FTREE tables: " << shortest;
  if (v.ecmp) {
    program_lfts(f, lft, groups);
  } else {
    program_lfts(f, lft);
  }
  drv::PfcPortConfig pfc{};
  pfc[kLossless] = drv::PfcPriority{true, xoff, xon, quanta};
  f.configure_pfc_all(timing, pfc, len);
  drv::SchedConfig sched{};
  sched.weight.fill(static_cast<std::uint8_t>(len));
  configure_sched_all(f, sched);
  f.enable_all();
  const std::uint64_t programmed = f.cycle();

  const unsigned leaf0 = switch_named(smf, "leaf0");
  const unsigned rx_host = 0;
  const std::vector<unsigned> senders{1, 2, 3, 4, 5, 6, 7, 8};
  // A flow of count 0 would never end (FlowSpec: no limit).
  TB_CHECK(v.qps >= 1 && v.qps <= pkts) << v.qps << " flows per sender for " << pkts << " packets";
  const std::uint64_t t0 = f.cycle() + 20;
  std::vector<unsigned> incast;
  std::map<unsigned, unsigned> sender_of_flow;
  // The seed varies the senders' start offsets (within a few packets) and
  // the background's packet length and rate.
  auto& rng = ctx.rng();
  for (const unsigned h : senders) {
    FlowSpec s;
    s.dst_lid = f.host_lid(rx_host);
    s.prio = kLossless;
    s.len_flits = len;
    s.start_cycle = t0 + rng() % (std::uint64_t{4} * len);
    // The sender's packets split over its flows (the first ones take the
    // remainder); the host sends its due flows round robin.
    for (unsigned q = 0; q < v.qps; ++q) {
      s.count = pkts / v.qps + (q < pkts % v.qps ? 1 : 0);
      incast.push_back(f.add_flow(h, s));
      sender_of_flow[incast.back()] = h;
    }
  }
  std::vector<unsigned> background;
  for (unsigned k = 0; k < 3 && bg_pct > 0; ++k) {
    const double bg_rate =
        std::clamp((bg_pct + static_cast<double>(rng() % 21) - 10) / 100.0, 0.05, 1.0);
    FlowSpec s;
    s.dst_lid = f.host_lid(4 + k);
    s.prio = 0;
    s.len_flits = 4 + static_cast<unsigned>(rng() % 9);  // 4..12 flits
    s.count =
        static_cast<std::uint64_t>(static_cast<double>(pkts * len) * bg_rate * 8.0 / s.len_flits);
    s.rate = bg_rate;
    s.start_cycle = t0;
    background.push_back(f.add_flow(9 + k, s));
  }

  const std::uint64_t budget = 20 * pkts * len * senders.size() + 20'000;
  const bool idle = f.run_until_idle(budget, 50);
  const SpeedStats speed = f.speed();
  const CounterSnapshot snap = f.dump_counters(std::cout);
  std::cout << "counters written to " << f.write_counters_file(snap).string() << '\n';
  TB_CHECK(idle) << "traffic did not drain in " << budget << " cycles";

  // --- exactly once, in order; nothing lost on the lossless priority ---
  const DeliveryReport lossless = check_delivery(
      f, incast, [&](unsigned fl) { return unicast_receiver(f, fl); },
      [](unsigned) { return false; });
  TB_CHECK(lossless.ok()) << "incast flows: " << lossless;
  const DeliveryReport bg = check_delivery(
      f, background, [&](unsigned fl) { return unicast_receiver(f, fl); },
      [](unsigned) { return true; });
  TB_CHECK(bg.ok()) << "background flows: " << bg;
  TB_CHECK_EQ(drops_at(snap, kLossless), 0U);
  const std::string cons = unicast_conservation(snap, f);
  TB_CHECK(cons.empty()) << cons;
  const std::string links = counters_match_links(snap, f);
  TB_CHECK(links.empty()) << links;

  // --- pauses: sent at the bottleneck leaf, propagated to spines and hosts ---
  const std::uint64_t leaf0_pause = snap.sum(leaf0, K::kPauseTx, std::nullopt, kLossless);
  std::uint64_t spine_pause = 0;
  for (unsigned s = 0; s < 4; ++s) {
    spine_pause += snap.sum(switch_named(smf, "spine" + std::to_string(s)), K::kPauseTx,
                            std::nullopt, kLossless);
  }
  unsigned paused_senders = 0;
  for (const unsigned h : senders) {
    paused_senders += f.host_paused(h, kLossless).empty() ? 0U : 1U;
  }
  TB_CHECK(leaf0_pause > 0) << "no pause frame at the bottleneck leaf";
  TB_CHECK(spine_pause > 0) << "pauses did not propagate to the spines";
  TB_CHECK(paused_senders > 0) << "no sender was paused";

  // --- occupancy never past XOFF + headroom (the driver's lossless bound) ---
  std::uint32_t peak_leaf0 = 0;
  std::uint32_t peak_any = 0;
  for (unsigned s = 0; s < f.switch_count(); ++s) {
    for (unsigned p = 0; p < kPorts; ++p) {
      if (!f.link_at(switch_end(s, p))) {
        continue;
      }
      const PortPrioTrace& t = f.trace(s, p, kLossless);
      const unsigned bound = xoff + drv::required_headroom(f.link_params(s, p, len));
      TB_CHECK(t.peak_occ <= bound) << f.switch_name(s) << " port " << p << ": " << t.peak_occ
                                    << " lossless cells > XOFF + headroom " << bound;
      peak_any = std::max(peak_any, t.peak_occ);
      if (s == leaf0) {
        peak_leaf0 = std::max(peak_leaf0, t.peak_occ);
      }
    }
  }
  std::size_t peak_fifo = 0;
  for (std::size_t l = 0; l < f.link_count(); ++l) {
    peak_fifo = std::max({peak_fifo, f.link(l).ab.peak_rx_fifo, f.link(l).ba.peak_rx_fifo});
  }

  // --- bottleneck throughput over the window in which all 8 senders are active ---
  const auto& got = f.received(rx_host);
  TB_CHECK(!got.empty()) << "the receiver got nothing";
  std::map<unsigned, std::uint64_t> last_of;
  for (const RxPacket& p : got) {
    last_of[p.id.src_host] = std::max(last_of[p.id.src_host], p.last_cycle);
  }
  const std::uint64_t w0 = got.front().last_cycle + 200;
  std::uint64_t w1 = UINT64_MAX;
  for (const unsigned h : senders) {
    w1 = std::min(w1, last_of[h]);
  }
  TB_CHECK(w1 > w0 + 100) << "steady window too short (" << w0 << ".." << w1
                          << "): raise --param pkts";
  // Flits that arrived in (w0, w1]: a packet's flits arrive one per cycle
  // from first_cycle to last_cycle (spread evenly if there were gaps), so a
  // packet straddling an end of the window counts only its part inside.
  double win_flits = 0;
  std::map<unsigned, std::uint64_t> win_pkts;
  for (const RxPacket& p : got) {
    const std::uint64_t lo = std::max(p.first_cycle, w0 + 1);
    const std::uint64_t hi = std::min(p.last_cycle, w1);
    if (hi >= lo) {
      win_flits += static_cast<double>(p.flits) * static_cast<double>(hi - lo + 1) /
                   static_cast<double>(p.last_cycle - p.first_cycle + 1);
    }
    if (p.last_cycle > w0 && p.last_cycle <= w1) {
      ++win_pkts[p.id.src_host];
    }
  }
  const double tput = win_flits / static_cast<double>(w1 - w0);
  double sum = 0;
  double sq = 0;
  std::string shares;
  for (const unsigned h : senders) {
    const auto x = static_cast<double>(win_pkts[h]);
    sum += x;
    sq += x * x;
    TB_CHECK(win_pkts[h] > 0) << "sender " << f.host_name(h) << " starved in the steady window";
  }
  for (const unsigned h : senders) {
    shares +=
        f.host_name(h) + " " + fixed(100.0 * static_cast<double>(win_pkts[h]) / sum, 1) + "% ";
  }
  const double jain = sum * sum / (static_cast<double>(senders.size()) * sq);
  // Egress at line rate: the bottleneck (leaf0 -> h0, which carries no
  // pause frame: h0 sends nothing) is busy every cycle of the window but for
  // a few bubbles while the round robin switches inputs.
  TB_CHECK(tput > 0.99 && tput <= 1.0) << "bottleneck throughput " << tput << " flits/cycle";

  Summary sum_block(std::string("switch_fabric.incast_8to1") + (v.ecmp ? "_ecmp" : "") + ", seed " +
                    std::to_string(ctx.seed()));
  sum_block.add("fabric", std::string("3 leaves x 4 hosts, 4 spines (7 switches, 12 hosts), ") +
                              (v.ecmp ? "FTREE LFTs with ECMP port groups (" +
                                            std::to_string(groups.total_groups()) + " groups, " +
                                            std::to_string(groups.grouped_entries()) + " entries)"
                                      : std::string("FTREE LFTs")));
  sum_block.add("links", "switch-switch " + std::to_string(delay) + " cycles, host " +
                             std::to_string(host_delay) + " cycles");
  sum_block.add("PFC prio 3", "XOFF " + std::to_string(xoff) + ", XON " + std::to_string(xon) +
                                  ", quanta " + std::to_string(quanta) + " x " +
                                  std::to_string(timing.cyc_per_quantum) + " cycles, refresh " +
                                  std::to_string(timing.refresh));
  sum_block.add("traffic", "8 x " + std::to_string(pkts) + " packets x " + std::to_string(len) +
                               " flits, " + std::to_string(v.qps) + " flow label(s) per sender," +
                               " flits on prio 3; background 3 x (" + std::to_string(bg_pct) +
                               " +- 10)% prio 0, 4-12 flits");
  sum_block.add("prio-3 drops (counters) / lost (sink)",
                std::to_string(drops_at(snap, kLossless)) + " / " + std::to_string(lossless.lost));
  sum_block.add("prio-0 drops (counters)", std::to_string(drops_at(snap, 0)));
  sum_block.add("PAUSE_TX prio 3: leaf0 / spines",
                std::to_string(leaf0_pause) + " / " + std::to_string(spine_pause));
  sum_block.add("RESUME_TX prio 3 (all switches)",
                std::to_string(snap.total(K::kResumeTx, kLossless)));
  sum_block.add("senders paused (of 8)", std::to_string(paused_senders));
  sum_block.add("bottleneck throughput (flits/cycle, steady window)", tput);
  sum_block.add("steady window (cycles)", std::to_string(w0) + ".." + std::to_string(w1));
  sum_block.add("per-sender share", shares);
  sum_block.add("Jain fairness index", jain);
  sum_block.add("peak prio-3 ingress cells: leaf0 / any switch",
                std::to_string(peak_leaf0) + " / " + std::to_string(peak_any));
  sum_block.add("peak rx FIFO at a link end (flits)", std::to_string(peak_fifo));
  sum_block.add("fabric cycles (reset + programming through the driver / total)",
                std::to_string(programmed) + " / " + std::to_string(speed.cycles));
  sum_block.add("speed (fabric cycles/s, switch-cycles/s)",
                fixed(speed.cycles_per_s(), 0) + ", " + fixed(speed.switch_cycles_per_s(), 0));
  sum_block.print(std::cout);
  co_return;
}

}  // namespace

SYNCFAB_TEST(switch_fabric, incast_8to1) { co_await incast_scenario(ctx, IncastVariant{}); }

// The same incast over ECMP port groups; --param qps sets the flows (flow
// labels) per sender, by default as many as a NIC runs at once (NUM_FLOWS).
SYNCFAB_TEST(switch_fabric, incast_8to1_ecmp) {
  co_await incast_scenario(
      ctx, IncastVariant{true, static_cast<unsigned>(ctx.param("qps", fmt::kNumFlows))});
}

}  // namespace syncfab::tb::swfab
