// Barriers while lossy bulk flows incast through the same spine (sim/system
// with bulk hosts, bulk_host.hpp): the SM's full 8-port 2-tree, half of its
// end nodes verilated NICs, half bulk hosts. The barriers ride the NICs'
// lossless priority, the bulk flows a lossy one, all to one host, hard
// enough that the switches drop bulk packets. Checked: every barrier
// completes (barrier_run.hpp), no barrier packet lost and no drop on a
// priority that is not lossy (traffic_check.hpp), the bulk load really was
// lossy while the barriers ran and crossed a spine the barriers crossed, and
// the barrier latency under load against the same barriers on the idle
// fabric. Then a malformed packet sent into a switch port during barriers
// must be dropped and counted there while the barriers complete.
#include <algorithm>
#include <iostream>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fabric_setup.hpp"
#include "program.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/unicast.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

namespace {

using K = fmt::SwCounter;

constexpr unsigned kLossyPrio = 0;
constexpr unsigned kBarrierPrio = nic_top::kTcReset;  // the NICs' NET_CFG.TC at reset
constexpr std::uint16_t kQuanta = 16;
static_assert(kLossyPrio != kBarrierPrio, "the bulk flows must not share the barriers' priority");

// The SM's 8-port 2-tree: 8 leaves with 4 end nodes each, 4 spines. End node
// k sits on leaf l = k / 4 at position k % 4; positions l and l + 1 (mod 4)
// are NICs, the other two bulk hosts. FTREE sends every LID down through the
// spine of its position, so rotating the NICs' positions over the leaves
// puts NIC destinations behind every spine: the incast's spine carries
// barrier packets too (with the same positions on every leaf the two would
// never meet). NIC ranks keep the SM's order.
bool is_bulk(const sm::Fabric& smf, sm::NodeId n) {
  const std::string& name = smf.name(n);
  const int k = std::stoi(name.substr(name.find('-') + 1));
  return (k % 4 + 4 - (k / 4) % 4) % 4 >= 2;
}

// --param `name` (default `def`), refused outside [lo, hi] with its name and value.
unsigned param_in(TestContext& ctx, std::string_view name, unsigned def, unsigned lo, unsigned hi) {
  const std::int64_t v = ctx.param(name, def);
  if (v < lo || v > hi) {
    throw std::invalid_argument("--param " + std::string(name) + "=" + std::to_string(v) +
                                " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return static_cast<unsigned>(v);
}

std::uint64_t percentile(std::vector<std::uint64_t> v, unsigned pct) {
  std::sort(v.begin(), v.end());
  return v.at((v.size() - 1) * pct / 100);
}

struct Latencies {
  std::vector<std::uint64_t> cycles;  // per barrier: last completion - last arrive() returned
  [[nodiscard]] std::uint64_t min() const { return percentile(cycles, 0); }
  [[nodiscard]] std::uint64_t median() const { return percentile(cycles, 50); }
  [[nodiscard]] std::uint64_t max() const { return percentile(cycles, 100); }
};

Latencies latencies(const BarrierResult& r) {
  Latencies l;
  for (std::size_t b = 0; b < r.last_done.size(); ++b) {
    l.cycles.push_back(r.last_done[b] - r.last_posted[b]);
  }
  return l;
}

void print_latencies(const std::string& what, const Latencies& l) {
  std::cout << what << ": " << l.cycles.size() << " barriers, min " << l.min() << ", median "
            << l.median() << ", max " << l.max() << " cycles (";
  for (std::size_t i = 0; i < l.cycles.size(); ++i) {
    std::cout << (i == 0 ? "" : " ") << l.cycles[i];
  }
  std::cout << ")\n";
}

// Lossy drops (DROP_WRED + DROP_BUF of kLossyPrio) of every switch, from the
// switches' counters, and where they are.
std::uint64_t lossy_drops(SystemFabric& sys, std::ostream* where = nullptr) {
  std::uint64_t n = 0;
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
      const std::uint32_t wred = sys.sw(s).counter(p, kLossyPrio, K::kDropWred);
      const std::uint32_t buf = sys.sw(s).counter(p, kLossyPrio, K::kDropBuf);
      if (where != nullptr && wred + buf != 0) {
        *where << "  " << sys.sw(s).name() << " port " << p << ": DROP_WRED " << wred
               << ", DROP_BUF " << buf << "\n";
      }
      n += wred + buf;
    }
  }
  return n;
}

// Barrier packets (NOTIFY, ACK, NACK) and DATA packets that entered switch s
// on any of its links so far.
struct SwitchIn {
  std::uint64_t barrier = 0;
  std::uint64_t data = 0;
};
SwitchIn switch_in(SystemFabric& sys, unsigned s) {
  SwitchIn in;
  for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
    if (const Link* l = sys.switch_link(s, p)) {
      const DirStats& d = l->to(sys.sw(s).port(p));
      in.barrier += d.count(PktKind::kNotify) + d.count(PktKind::kAck) + d.count(PktKind::kNack);
      in.data += d.count(PktKind::kData);
    }
  }
  return in;
}

// The fabric of the scenario, started, PFC on the barriers' priority (XOFF
// 16 cells, XON 8, pauses of kQuanta), WRED dropping the lossy priority's
// Not-ECT packets above Kmin at every linked port, routed (FTREE, FULB-MC)
// and programmed.
struct Scenario {
  Scenario(TestContext& ctx, const sm::Fabric& smf, unsigned len_flits)
      : smf_(smf), sys(ctx, smf, config(ctx, smf, len_flits)) {
    sys.start(fabric::nic_options(ctx.sim(), kRetryDelay));
    driver::PfcPortConfig pc{};
    pc[kBarrierPrio] = driver::PfcPriority{true, 16, 8, kQuanta};
    configure_pfc(sys, driver::PfcTiming{nic_top::kCpqReset, 64}, pc, len_flits);
    const driver::WredQueue wred{true,
                                 static_cast<std::uint16_t>(param_in(ctx, "kmin", 16, 0, 0xFFFF)),
                                 static_cast<std::uint16_t>(param_in(ctx, "kmax", 64, 0, 0xFFFF)),
                                 static_cast<std::uint8_t>(param_in(ctx, "pmax", 64, 0, 255))};
    // WDRR with the reset quantum (1 flit) for every queue unless
    // --param lossy_weight= gives the lossy queue a larger one (a barrier
    // packet then waits longer behind bulk packets at a shared egress).
    driver::SchedConfig sched{};
    sched.weight.fill(1);
    sched.weight[kLossyPrio] = static_cast<std::uint8_t>(param_in(ctx, "lossy_weight", 1, 1, 255));
    for (unsigned s = 0; s < sys.switch_count(); ++s) {
      for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
        if (sys.switch_link(s, p) != nullptr) {
          sys.sw(s).driver().configure_wred(p, kLossyPrio, wred);
          sys.sw(s).driver().configure_scheduler(p, sched);
        }
      }
    }
    route_and_program(ctx, sys);
    const sm::MinHop mh(smf);
    lft = std::make_unique<sm::Lft>(sm::route_ftree(mh, sm::updn_ranking(mh)));
    std::cout << smf.hca_count() << " end nodes: " << sys.nic_count() << " NICs, "
              << sys.host_count() << " bulk hosts; " << sys.switch_count() << " switches\n";
  }

  static SystemConfig config(TestContext& ctx, const sm::Fabric& smf, unsigned len_flits) {
    SystemConfig cfg;
    cfg.delay = param_in(ctx, "delay", 4, 1, 1000);
    cfg.bulk_host = [&smf](sm::NodeId n) { return is_bulk(smf, n); };
    cfg.max_pkt_flits = len_flits;
    return cfg;
  }

  // The switch a bulk host hangs off and its switch_top port.
  [[nodiscard]] std::pair<unsigned, unsigned> attach(unsigned host) const {
    const sm::NodeId n = sys.host_hca(host);
    return {smf_.attach_switch(n), swfab::hw_port(smf_.peer(n, 1).port)};
  }

  // Every bulk host but host 0 sends to host 0, from the next cycle on, at
  // rate_pct of its link; returns host 0's LID.
  std::uint16_t start_incast(unsigned prio, unsigned len, unsigned rate_pct) {
    const std::uint16_t target = sys.host(0).lid();
    for (unsigned h = 1; h < sys.host_count(); ++h) {
      swfab::FlowSpec f;
      f.dst_lid = target;
      f.prio = prio;
      f.len_flits = len;
      f.rate = rate_pct / 100.0;
      f.start_cycle = sys.cycle() + 1;
      f.ecn = fmt::Ecn::kNotEct;  // WRED drops it rather than marking it
      sys.host(h).add_flow(f);
    }
    return target;
  }

  // Stops every flow, waits until every host is quiet and every link and
  // switch has drained, then checks the traffic identities.
  TrafficTotals drain_and_check(const TrafficRules& rules) {
    for (unsigned h = 0; h < sys.host_count(); ++h) {
      sys.host(h).stop_flows();
    }
    const std::uint64_t t0 = sys.cycle();
    while (!(sys.hosts_quiet() && sys.idle())) {
      TB_CHECK(sys.cycle() < t0 + 50'000) << "the bulk traffic did not drain in 50,000 cycles";
      sys.idle_cycles(64);
    }
    // A switch may still hold packets while every link is momentarily
    // empty; the identities (RX, TX, DATA conservation) would show them.
    sys.idle_cycles(1000);
    const TrafficTotals t = check_traffic(sys, rules);
    print_totals(t);
    std::cout << "bulk: " << t.data_sent << " DATA packets sent, " << t.data_received
              << " received, DROP_WRED " << t.drop_wred << ", DROP_BUF " << t.drop_buf
              << ", DROP_BAD_PKT " << t.drop_bad_pkt << "\n";
    return t;
  }

  const sm::Fabric& smf_;
  SystemFabric sys;
  std::unique_ptr<sm::Lft> lft;
};

}  // namespace

// The incast: bulk host 0 (node-2, on leaf sw-l1-0 with NICs node-0 and
// node-1) receives from the 15 other bulk hosts at full rate on the lossy
// priority, 15 times what its link carries. First `barriers` barriers (k =
// 2, posts skewed by 0..skew cycles) on the idle fabric, then, once the
// incast has run `warmup` cycles, the same number on another context while
// it runs.
SYNCFAB_TEST(incast, barriers_under_incast) {
  const sm::Fabric smf = sm::make_fabric("fattree:ports=8,levels=2");
  const auto len = param_in(ctx, "len", 8, 2, 255);
  Scenario sc(ctx, smf, len);
  SystemFabric& sys = sc.sys;
  const auto barriers = param_in(ctx, "barriers", 10, 1, 10'000);
  const auto skew = param_in(ctx, "skew", 200, 0, 100'000);
  const auto k = param_in(ctx, "k", 2, 1, 15);
  const auto rate_pct = param_in(ctx, "rate_pct", 100, 1, 100);
  const std::uint64_t pause = std::uint64_t{kQuanta} * nic_top::kCpqReset;
  const TrafficRules rules{static_cast<std::uint8_t>(1U << kLossyPrio), {}};

  const BarrierRun idle_run{0, k, barriers, skew, kLimit, pause, len};
  const BarrierResult idle = run_barriers(sys, idle_run, ctx.rng());
  print_run("idle fabric", idle_run, idle);
  sys.idle_cycles(200);
  check_traffic(sys, rules);

  const std::uint16_t target = sc.start_incast(kLossyPrio, len, rate_pct);
  // The spines the incast crosses: FTREE's path from each sender's leaf.
  std::set<unsigned> spines;
  for (unsigned h = 1; h < sys.host_count(); ++h) {
    const std::vector<sm::SwitchIdx> path = sm::walk(*sc.lft, sc.attach(h).first, target);
    TB_CHECK(!path.empty() && path.back() == sc.attach(0).first)
        << "FTREE: no path from " << sys.host(h).name() << " to " << sys.host(0).name();
    for (const sm::SwitchIdx s : path) {
      if (s != path.front() && s != path.back()) {
        spines.insert(s);
      }
    }
  }
  TB_CHECK(!spines.empty()) << "the incast crosses no spine";
  sys.idle_cycles(static_cast<std::uint64_t>(param_in(ctx, "warmup", 2000, 0, 1'000'000)));

  std::vector<SwitchIn> spine_before;
  spine_before.reserve(spines.size());
  for (const unsigned s : spines) {
    spine_before.push_back(switch_in(sys, s));
  }
  const std::uint64_t drops_before = lossy_drops(sys);
  const BarrierRun load_run{1, k, barriers, skew, kLimit, pause, len};
  const BarrierResult loaded = run_barriers(sys, load_run, ctx.rng());
  print_run("under incast", load_run, loaded);
  const std::uint64_t drops_during = lossy_drops(sys) - drops_before;
  std::cout << "lossy drops while the barriers ran: " << drops_during << "; so far:\n";
  lossy_drops(sys, &std::cout);
  TB_CHECK(drops_during > 0) << "the incast dropped no bulk packet while the barriers ran: "
                                "the load was not lossy, the test would prove nothing";
  unsigned i = 0;
  bool shared = false;
  for (const unsigned s : spines) {
    const SwitchIn now = switch_in(sys, s);
    const SwitchIn& was = spine_before[i++];
    std::cout << "spine " << sys.sw(s).name()
              << " while the barriers ran: " << now.barrier - was.barrier << " barrier packets, "
              << now.data - was.data << " bulk packets in\n";
    shared = shared || (now.barrier > was.barrier && now.data > was.data);
  }
  TB_CHECK(shared) << "no spine carried both the incast and barrier packets";

  const TrafficTotals t = sc.drain_and_check(rules);
  TB_CHECK_EQ(t.notify - t.retries, (idle.sends_per_barrier + loaded.sends_per_barrier) * barriers)
      << "NOTIFYs sent = the schedules' sends";
  TB_CHECK(t.drop_wred + t.drop_buf > 0) << "no bulk packet was dropped";
  TB_CHECK(t.data_received > 0) << "the incast target received nothing";

  const Latencies li = latencies(idle);
  const Latencies ll = latencies(loaded);
  print_latencies("barrier latency, idle fabric", li);
  print_latencies("barrier latency, under incast", ll);
  // What the load may add to a barrier: on each of its rounds' critical
  // NOTIFY and on the last ACK, at each switch of the longest NIC path, one
  // bulk packet leaving the egress it needs and one leaving its input's read
  // port: (rounds + 1) x switches x 2 x len. The bound on the median allows
  // that plus half the idle spread again for the different draws of posts.
  std::uint64_t rounds = 0;
  for (unsigned p = 1; p < sys.nic_count(); p *= k + 1) {
    ++rounds;
  }
  const sm::MinHop mh(smf);
  std::uint64_t switches = 0;
  for (unsigned a = 0; a < sys.nic_count(); ++a) {
    for (unsigned b = 0; b < sys.nic_count(); ++b) {
      switches = std::max<std::uint64_t>(
          switches,
          mh.distance(smf.attach_switch(sys.nic_hca(a)), smf.attach_switch(sys.nic_hca(b))) + 1U);
    }
  }
  const std::uint64_t extra = (rounds + 1) * switches * 2 * len;
  const std::uint64_t bound = li.median() + extra + (li.max() - li.min()) / 2;
  std::cout << "loaded median " << ll.median() << " vs idle median " << li.median() << " ("
            << static_cast<double>(ll.median()) / static_cast<double>(li.median()) << "x); bound "
            << bound << " = idle median + " << extra << " (" << rounds + 1 << " x " << switches
            << " switches x 2 x " << len << " flits) + half the idle spread\n";
  TB_CHECK(ll.median() <= bound) << "barrier latency under incast: median " << ll.median()
                                 << " cycles, bound " << bound;
  co_return;
}

// A bulk host sends malformed DATA packets into its leaf's port while
// barriers run (k = 2, on the barriers' priority and to a NIC's LID, so the
// switch must not forward them to anyone): a header that says 8 flits
// followed by 4 flits in all, and one that says 0 followed by 3. Each must be
// DROP_BAD_PKT at that port (and RX, nothing else). It also sends that NIC
// one well-formed DATA packet, which reaches it: the NIC must drop it and
// count it (CNT_DROP) without answering. The barriers complete and every
// other identity holds.
SYNCFAB_TEST(incast, malformed_dropped) {
  const sm::Fabric smf = sm::make_fabric("fattree:ports=8,levels=2");
  Scenario sc(ctx, smf, 8);
  SystemFabric& sys = sc.sys;
  const unsigned bad_host = 1;
  const auto [sw, port] = sc.attach(bad_host);
  const std::uint64_t t0 = sys.cycle();
  const std::uint16_t nic_lid = sys.nic_lid(0);
  sys.host(bad_host).inject_malformed(MalformedSpec{nic_lid, kBarrierPrio, 8, 4, t0 + 40});
  sys.host(bad_host).inject_malformed(MalformedSpec{nic_lid, kBarrierPrio, 0, 3, t0 + 120});
  // A well-formed DATA packet to the same NIC: the switches forward it, the
  // NIC must drop it as a stray (CNT_DROP, no response).
  swfab::FlowSpec stray;
  stray.dst_lid = nic_lid;
  stray.prio = kBarrierPrio;
  stray.len_flits = 4;
  stray.count = 1;
  stray.start_cycle = t0 + 80;
  sys.host(bad_host).add_flow(stray);
  const std::uint32_t nic_drop_before = fabric::read_counters(sys.nic(0).device()).drop;
  const std::uint32_t bad_before = sys.sw(sw).counter(port, kBarrierPrio, K::kDropBadPkt);
  TB_CHECK_EQ(bad_before, 0U) << "DROP_BAD_PKT before any malformed packet";
  const auto barriers = param_in(ctx, "barriers", 3, 1, 10'000);
  const BarrierRun run{0,        2,
                       barriers, param_in(ctx, "skew", 200, 0, 100'000),
                       kLimit,   std::uint64_t{kQuanta} * nic_top::kCpqReset,
                       8};
  const BarrierResult r = run_barriers(sys, run, ctx.rng());
  print_run("with malformed packets", run, r);
  const std::vector<std::uint64_t>& sent = sys.host(bad_host).malformed_cycles();
  TB_CHECK_EQ(sent.size(), 2U) << "both malformed packets left the host";
  for (const std::uint64_t c : sent) {
    TB_CHECK(c < r.last_done.back())
        << "a malformed packet left at cycle " << c << ", after the last barrier completed at "
        << r.last_done.back();
  }
  const std::uint32_t bad = sys.sw(sw).counter(port, kBarrierPrio, K::kDropBadPkt);
  std::cout << sys.sw(sw).name() << " port " << port << ": DROP_BAD_PKT " << bad << " (over APB "
            << sys.sw(sw).driver().counter(port, kBarrierPrio, K::kDropBadPkt) << ")\n";
  TB_CHECK_EQ(bad, 2U) << sys.sw(sw).name() << " port " << port << ": DROP_BAD_PKT";
  const TrafficTotals t = sc.drain_and_check(TrafficRules{0, {ExpectedBadPkt{sw, port, 2}}});
  // The stray DATA packet goes to the NIC's data path (counted there by the
  // traffic check), not to the barrier engine's CNT_DROP.
  const std::uint32_t nic_drop = fabric::read_counters(sys.nic(0).device()).drop;
  std::cout << sys.nic(0).name() << ": CNT_DROP " << nic_drop_before << " -> " << nic_drop
            << " with the stray DATA packet\n";
  TB_CHECK_EQ(t.nic_strays, 1U) << "the stray DATA packet reached the NIC";
  TB_CHECK_EQ(nic_drop, nic_drop_before) << sys.nic(0).name() << ": CNT_DROP untouched by DATA";
  TB_CHECK_EQ(t.notify - t.retries, r.sends_per_barrier * barriers)
      << "NOTIFYs sent = the schedules' sends";
  co_return;
}

// The same incast on the barriers' own lossless priority: nothing may drop,
// the switches pause the bulk hosts (each checked never to start a packet of
// a paused priority: NicPauseCheck per priority) and the barriers still
// complete within their liveness bound, which allows one pause per link of a
// path each way per round (barrier_run.hpp). No latency bound: the barriers
// wait behind bulk packets in their own queues, by design of this case.
SYNCFAB_TEST(incast, lossless_bulk_paused) {
  const sm::Fabric smf = sm::make_fabric("fattree:ports=8,levels=2");
  const auto len = param_in(ctx, "len", 8, 2, 255);
  Scenario sc(ctx, smf, len);
  SystemFabric& sys = sc.sys;
  sc.start_incast(kBarrierPrio, len, param_in(ctx, "rate_pct", 100, 1, 100));
  sys.idle_cycles(static_cast<std::uint64_t>(param_in(ctx, "warmup", 2000, 0, 1'000'000)));
  const auto barriers = param_in(ctx, "barriers", 3, 1, 10'000);
  const BarrierRun run{0,        2,
                       barriers, param_in(ctx, "skew", 200, 0, 100'000),
                       kLimit,   std::uint64_t{kQuanta} * nic_top::kCpqReset,
                       len};
  const BarrierResult r = run_barriers(sys, run, ctx.rng());
  print_run("under lossless incast", run, r);
  print_latencies("barrier latency, lossless incast", latencies(r));
  const TrafficTotals t = sc.drain_and_check(TrafficRules{});
  std::cout << "bulk hosts paused by " << t.host_pauses << " PFC frames, " << t.host_paused_cycles
            << " host-cycles\n";
  TB_CHECK(t.host_pauses > 0) << "the switches never paused a bulk host";
  TB_CHECK_EQ(t.data_received, t.data_sent) << "lossless: every bulk packet delivered";
  TB_CHECK_EQ(t.notify - t.retries, r.sends_per_barrier * barriers)
      << "NOTIFYs sent = the schedules' sends";
  co_return;
}
