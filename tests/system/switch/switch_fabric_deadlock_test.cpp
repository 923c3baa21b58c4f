// The white paper's Leaf-Spine PFC deadlock (§3.1.3-3.1.4, figures 12-20)
// on four verilated switches (docs/switch-scenarios.md, "PFC deadlock"):
// reproduced, detected by the PFC watchdog and recovered from (drop mode,
// and disable after N deadlocks in a window), and prevented by the hook-flow
// remap.
//
//        Spine1 (S1)              Spine2 (S2)
//        p0      p1               p0      p1
//        |        \______  ______/        |
//        |         ______\/______         |
//        |        /              \        |
//        p6      p7               p6      p7
//        Leaf1 (L1)               Leaf2 (L2)
//        p0   p1                  p0   p1
//        H1   H2                  H3   H4
//
// Phase (a): minimum-hop tables (L1 -> S1 -> L2 for H3/H4, L2 -> S2 -> L1
// for H1/H2), flows H1->H4, H2->H3, H3->H1 on lossless priority 3: all
// delivered, and the time the fabric needs to drain once the sources stop
// is measured. Phase (b), cycle T0: the L2-H4 link breaks and the tables
// "reconverge" through stale entries (L2: H4 -> S2, S2: H4 -> L1; L1 and S1
// still send H4 towards L2), so packets for H4 loop L2 -> S2 -> L1 -> S1 ->
// L2 while H1 and H3 keep sending to H4 at full rate: the four loop buffers
// fill and pause each other on priority 3. Phase (c), cycle T1: the link is
// repaired and the right entries written back; the sources stop at T2.
#include <algorithm>
#include <array>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <Vswitch_top___024root.h>

#include "delivery_check.hpp"
#include "switch_fabric.hpp"
#include "switch_probe.hpp"
#include "syncfab/driver/switch.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::swfab;
namespace drv = syncfab::driver;
namespace fmt = syncfab::fmt;
using K = fmt::SwCounter;

namespace {

// Switch indices (add_switch order) and their ports.
constexpr unsigned kLeaf1 = 0;
constexpr unsigned kLeaf2 = 1;
constexpr unsigned kSpine1 = 2;
constexpr unsigned kSpine2 = 3;
constexpr unsigned kToSpine1 = 6;  // leaf uplinks
constexpr unsigned kToSpine2 = 7;
constexpr unsigned kToLeaf1 = 0;  // spine downlinks
constexpr unsigned kToLeaf2 = 1;
constexpr std::array<std::uint16_t, 4> kLid{1, 2, 3, 4};  // H1..H4
constexpr unsigned kH1 = 0;
constexpr unsigned kH2 = 1;
constexpr unsigned kH3 = 2;
constexpr unsigned kH4 = 3;

constexpr unsigned kPrio = 3;           // the lossless priority
constexpr unsigned kHook = 4;           // where the remap sends hook flows
constexpr std::uint8_t kDscp = 26;      // AF31 on priority 3
constexpr std::uint8_t kHookDscp = 34;  // AF41 after the remap
constexpr unsigned kMaxPkt = 8;

// PFC: XOFF 64 / XON 48 cells, a pause of 64 quanta x 8 cycles = 512 cycles,
// refreshed every 256 while the buffer stays above XON. Headroom for a
// 16-cycle link and 8-flit packets: 2*16 + 2*8 + 4 = 52 cells.
constexpr std::uint16_t kXoff = 64;
constexpr std::uint16_t kXon = 48;
constexpr std::uint16_t kQuanta = 64;
constexpr drv::PfcTiming kTiming{8, 256};
constexpr std::uint64_t kPauseCycles = std::uint64_t{kQuanta} * 8;
// Deadlock confirmed when the four loop queues have been paused at once for
// longer than one pause: only refreshes can have kept them paused.
constexpr std::uint64_t kHold = kPauseCycles + 100;
constexpr std::uint64_t kPhaseA = 800;  // cycles of phase (a) traffic

// An egress queue of the loop, in the loop's order (each one feeds the next).
struct LoopQueue {
  unsigned sw;
  unsigned port;
  const char* name;
};
constexpr std::array<LoopQueue, 4> kLoop{{{kLeaf2, kToSpine2, "Leaf2->Spine2"},
                                          {kSpine2, kToLeaf1, "Spine2->Leaf1"},
                                          {kLeaf1, kToSpine1, "Leaf1->Spine1"},
                                          {kSpine1, kToLeaf2, "Spine1->Leaf2"}}};

bool in_loop(unsigned sw, unsigned port) {
  return std::any_of(kLoop.begin(), kLoop.end(),
                     [&](const LoopQueue& q) { return q.sw == sw && q.port == port; });
}

struct Options {
  std::optional<drv::WatchdogConfig> wd;  // on the four loop queues, priority 3
  bool drop_mode = true;
  bool remap = false;          // hook-flow remap on both leaves: 3 -> 4, 4 -> 4
  bool hook_lossless = false;  // PFC on priority 4 as well
};

// A watchdog transition of a loop queue, seen in the sampled RTL state.
struct WdEvent {
  unsigned loop = 0;  // index in kLoop
  std::uint64_t cycle = 0;
  fmt::WdState to = fmt::WdState::kMonitor;
  std::optional<std::uint64_t> paused_since;  // continuous XOFF start when it left MONITOR
};

// Phase (b) traffic: H1 and H3 to H4 at full rate (the looping flows), H2 to
// H3 (a victim sharing Leaf1->Spine1 and Spine1->Leaf2) and H3 to H1.
struct PhaseFlows {
  std::vector<unsigned> to_h4;
  std::vector<unsigned> others;
  unsigned victim = 0;
  [[nodiscard]] std::vector<unsigned> all() const {
    std::vector<unsigned> v = to_h4;
    v.insert(v.end(), others.begin(), others.end());
    return v;
  }
};

class Scenario {
 public:
  Scenario(TestContext& ctx, const Options& opt) : ctx_(ctx), opt_(opt), f_(ctx) {
    auto& rng = ctx.rng();
    std::uniform_int_distribution<unsigned> delay(8, 16);
    for (const char* n : {"leaf1", "leaf2", "spine1", "spine2"}) {
      f_.add_switch(n);
    }
    for (unsigned h = 0; h < 4; ++h) {
      host_[h] = f_.add_host("h" + std::to_string(h + 1), kLid[h]);
    }
    f_.connect(host_end(host_[kH1]), switch_end(kLeaf1, 0), delay(rng));
    f_.connect(host_end(host_[kH2]), switch_end(kLeaf1, 1), delay(rng));
    f_.connect(host_end(host_[kH3]), switch_end(kLeaf2, 0), delay(rng));
    h4_link_ = f_.connect(host_end(host_[kH4]), switch_end(kLeaf2, 1), delay(rng));
    f_.connect(switch_end(kLeaf1, kToSpine1), switch_end(kSpine1, kToLeaf1), delay(rng));
    f_.connect(switch_end(kLeaf1, kToSpine2), switch_end(kSpine2, kToLeaf1), delay(rng));
    f_.connect(switch_end(kLeaf2, kToSpine1), switch_end(kSpine1, kToLeaf2), delay(rng));
    f_.connect(switch_end(kLeaf2, kToSpine2), switch_end(kSpine2, kToLeaf2), delay(rng));
    std::uniform_int_distribution<unsigned> len(4, kMaxPkt);
    for (auto& l : len_) {
      l = len(rng);
    }
  }

  Fabric& fabric() { return f_; }

  void bring_up() {
    f_.start();
    drv::PfcPortConfig pfc{};
    pfc[kPrio] = drv::PfcPriority{true, kXoff, kXon, kQuanta};
    if (opt_.hook_lossless) {
      pfc[kHook] = drv::PfcPriority{true, kXoff, kXon, kQuanta};
    }
    f_.configure_pfc_all(kTiming, pfc, kMaxPkt);
    drv::SchedConfig sched{};
    sched.weight.fill(kMaxPkt);  // WDRR, a packet per round: no credit-only cycles
    for (unsigned s = 0; s < 4; ++s) {
      for (unsigned p = 0; p < kPorts; ++p) {
        if (f_.link_at(switch_end(s, p))) {
          f_.driver(s).configure_scheduler(p, sched);
        }
      }
    }
    if (opt_.wd) {
      for (unsigned s = 0; s < 4; ++s) {
        f_.driver(s).configure_watchdog(*opt_.wd);
      }
      for (const LoopQueue& q : kLoop) {
        f_.driver(q.sw).configure_watchdog_port(
            q.port, drv::WatchdogPort{static_cast<std::uint8_t>(1U << kPrio), opt_.drop_mode});
      }
    }
    if (opt_.remap) {
      drv::RemapConfig rc{};
      rc.enable = true;
      rc.uplink_mask = (1U << kToSpine1) | (1U << kToSpine2);
      for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
        rc.map[p] = drv::RemapEntry{static_cast<std::uint8_t>(p), 0};
      }
      rc.map[kPrio] = drv::RemapEntry{kHook, kHookDscp};
      rc.map[kHook] = drv::RemapEntry{kHook, kHookDscp};
      for (const unsigned leaf : {kLeaf1, kLeaf2}) {
        f_.driver(leaf).configure_remap(rc);
      }
    }
    program_min_hop();
    f_.enable_all();
    f_.on_cycle([this](std::uint64_t now) { sample(now); });
  }

  // Minimum-hop tables: Leaf1 reaches Leaf2's hosts through Spine1, Leaf2
  // reaches Leaf1's through Spine2 (the white paper's Server1-Leaf1-Spine1-
  // Leaf2-Server4 path).
  void program_min_hop() {
    f_.program(kLeaf1, [](drv::Switch& d) {
      d.program_lft(std::vector<drv::LftEntry>{
          {kLid[kH1], 0}, {kLid[kH2], 1}, {kLid[kH3], kToSpine1}, {kLid[kH4], kToSpine1}});
    });
    f_.program(kLeaf2, [](drv::Switch& d) {
      d.program_lft(std::vector<drv::LftEntry>{
          {kLid[kH1], kToSpine2}, {kLid[kH2], kToSpine2}, {kLid[kH3], 0}, {kLid[kH4], 1}});
    });
    for (const unsigned s : {kSpine1, kSpine2}) {
      f_.program(s, [](drv::Switch& d) {
        d.program_lft(std::vector<drv::LftEntry>{{kLid[kH1], kToLeaf1},
                                                 {kLid[kH2], kToLeaf1},
                                                 {kLid[kH3], kToLeaf2},
                                                 {kLid[kH4], kToLeaf2}});
      });
    }
  }

  // Phase (a): returns the cycles the fabric needed to deliver everything
  // after the sources stopped.
  std::uint64_t phase_a() {
    auto& rng = ctx_.rng();
    std::uniform_real_distribution<double> rate(0.3, 0.45);
    const std::uint64_t t = f_.cycle();
    const std::uint64_t stop = t + kPhaseA;
    std::vector<unsigned> flows;
    flows.push_back(add(kH1, kH4, len_[0], rate(rng), t, stop));
    flows.push_back(add(kH2, kH3, len_[1], rate(rng), t, stop));
    flows.push_back(add(kH3, kH1, len_[2], 2 * rate(rng), t, stop));
    TB_CHECK(f_.run_until_idle(20'000)) << "phase (a): the fabric did not drain";
    const DeliveryReport rep = check_delivery(
        f_, flows, [this](unsigned fl) { return unicast_receiver(f_, fl); },
        [](unsigned) { return false; });
    TB_CHECK(rep.ok()) << "phase (a): " << rep;
    std::uint64_t last = 0;
    for (unsigned h = 0; h < 4; ++h) {
      for (const RxPacket& p : f_.received(host_[h])) {
        last = std::max(last, p.last_cycle);
      }
    }
    for (const LoopQueue& q : kLoop) {
      for (const Interval& iv : f_.trace(q.sw, q.port, kPrio).xoff) {
        TB_CHECK(iv.to < t || iv.to - iv.from <= 4 * kPauseCycles)
            << "phase (a): " << q.name << " paused for " << iv.to - iv.from << " cycles";
      }
    }
    drain_ = last > stop ? last - stop : 1;
    std::cout << "phase (a): " << rep.delivered << " packets delivered, drain after the sources "
              << "stop: " << drain_ << " cycles\n";
    return drain_;
  }

  // Phase (b) from now: stale tables, H4's link down, the flows.
  PhaseFlows break_link() {
    t0_ = f_.cycle();
    // The stale entries first, so that nothing is routed into the dead link
    // after it broke (those would be link drops, not part of the deadlock).
    f_.program(kLeaf2, [](drv::Switch& d) { d.set_lft(kLid[kH4], kToSpine2); });
    f_.program(kSpine2, [](drv::Switch& d) { d.set_lft(kLid[kH4], kToLeaf1); });
    f_.run_cycles(100);
    f_.set_link_up(h4_link_, false);
    const std::uint64_t t = f_.cycle();
    PhaseFlows pf;
    pf.to_h4.push_back(add(kH1, kH4, len_[0], 1.0, t));
    pf.to_h4.push_back(add(kH3, kH4, len_[2], 1.0, t));
    pf.victim = add(kH2, kH3, len_[1], 0.5, t);
    pf.others.push_back(pf.victim);
    pf.others.push_back(add(kH3, kH1, len_[3], 0.5, t));
    return pf;
  }

  // Runs until the four loop queues are paused at once and have stayed so
  // for `hold` cycles (longer than one pause, so only refreshes kept it);
  // returns the cycle the last of them became paused, or nullopt.
  std::optional<std::uint64_t> wait_deadlock(std::uint64_t limit, std::uint64_t hold,
                                             unsigned prio = kPrio) {
    const std::uint64_t end = f_.cycle() + limit;
    while (f_.cycle() < end) {
      f_.run_cycles(50);
      std::uint64_t closed = 0;
      bool all = true;
      for (const LoopQueue& q : kLoop) {
        const auto since = f_.paused_since(q.sw, q.port, prio);
        if (!since) {
          all = false;
          break;
        }
        closed = std::max(closed, *since);
      }
      if (all && f_.cycle() >= closed + hold) {
        return closed;
      }
    }
    return std::nullopt;
  }

  void repair() {
    t1_ = f_.cycle();
    f_.set_link_up(h4_link_, true);
    f_.program(kLeaf2, [](drv::Switch& d) { d.set_lft(kLid[kH4], 1); });
    f_.program(kSpine2, [](drv::Switch& d) { d.set_lft(kLid[kH4], kToLeaf2); });
  }

  void stop(const PhaseFlows& pf) {
    t2_ = f_.cycle();
    for (const unsigned fl : pf.all()) {
      f_.stop_flow(fl);
    }
  }

  [[nodiscard]] std::uint64_t loop_packets(unsigned prio) const {
    std::uint64_t n = 0;
    for (const LoopQueue& q : kLoop) {
      n += f_.sent_by(switch_end(q.sw, q.port)).packets_by_prio.at(prio);
    }
    return n;
  }
  // Pause frames the loop queues received (the downstream buffers sent).
  [[nodiscard]] std::uint64_t loop_pauses() const {
    std::uint64_t n = 0;
    for (const LoopQueue& q : kLoop) {
      n += f_.sent_to(switch_end(q.sw, q.port)).pause_frames;
    }
    return n;
  }

  [[nodiscard]] std::size_t received_of(unsigned host, unsigned flow,
                                        std::uint64_t after = 0) const {
    const auto& rx = f_.received(host_[host]);
    return static_cast<std::size_t>(std::count_if(rx.begin(), rx.end(), [&](const RxPacket& p) {
      return p.id.flow == flow && p.first_cycle >= after;
    }));
  }

  [[nodiscard]] std::optional<std::uint64_t> first_rx_after(unsigned host,
                                                            std::uint64_t after) const {
    std::optional<std::uint64_t> c;
    for (const RxPacket& p : f_.received(host_[host])) {
      if (p.first_cycle >= after && (!c || p.first_cycle < *c)) {
        c = p.first_cycle;
      }
    }
    return c;
  }

  // First cycle >= from at which none of the loop queues is paused.
  [[nodiscard]] std::optional<std::uint64_t> loop_unpaused_at(std::uint64_t from) const {
    // Every queue's XOFF intervals; the loop is free at c when no interval
    // of any queue covers c. Candidates: `from` and every interval end.
    std::vector<std::uint64_t> cand{from};
    std::vector<const std::vector<Interval>*> ivs;
    for (const LoopQueue& q : kLoop) {
      ivs.push_back(&f_.trace(q.sw, q.port, kPrio).xoff);
      for (const Interval& iv : *ivs.back()) {
        if (iv.to >= from && !iv.open) {
          cand.push_back(iv.to);
        }
      }
    }
    std::sort(cand.begin(), cand.end());
    for (const std::uint64_t c : cand) {
      const bool busy = std::any_of(ivs.begin(), ivs.end(), [c](const auto* v) {
        return std::any_of(v->begin(), v->end(), [c](const Interval& iv) {
          return iv.from <= c && (iv.open || c < iv.to);
        });
      });
      if (!busy) {
        return c;
      }
    }
    return std::nullopt;
  }

  // Drops at the end, by (switch, port, prio, kind), nonzero only.
  struct Drop {
    unsigned sw, port, prio;
    K kind;
    std::uint32_t n;
  };
  static std::vector<Drop> drops(const CounterSnapshot& snap) {
    std::vector<Drop> d;
    for (unsigned s = 0; s < snap.sw.size(); ++s) {
      for (unsigned p = 0; p < kPorts; ++p) {
        for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
          for (const K k : {K::kDropWred, K::kDropNoRoute, K::kDropBadPkt, K::kDropDisabled,
                            K::kDropWd, K::kDropBuf}) {
            if (const std::uint32_t n = snap.at(s, p, q, k); n != 0) {
              d.push_back(Drop{s, p, q, k, n});
            }
          }
        }
      }
    }
    return d;
  }

  // Every counter of every switch read straight from switch_counters' array
  // (index {port, prio, kind}, rtl/switch/switch_counters.sv): the same
  // table as Fabric::read_counters() without its ~4100 cycles of APB per
  // dump. Each nonzero value is checked against a read through the driver.
  CounterSnapshot backdoor_counters() {
    const auto peek = [this](unsigned s, unsigned p, unsigned q, unsigned k) {
      return counter_value(f_.dut(s), p, q, k);
    };
    CounterSnapshot snap;
    snap.cycle = f_.cycle();
    snap.sw.resize(f_.switch_count());
    for (unsigned s = 0; s < f_.switch_count(); ++s) {
      for (unsigned p = 0; p < kPorts; ++p) {
        for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
          for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
            snap.sw[s][p][q][k] = peek(s, p, q, k);
          }
        }
      }
    }
    for (unsigned s = 0; s < f_.switch_count(); ++s) {
      for (unsigned p = 0; p < kPorts; ++p) {
        for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
          for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
            if (snap.sw[s][p][q][k] == 0) {
              continue;
            }
            const std::uint32_t bus = f_.driver(s).counter(p, q, static_cast<K>(k));
            // Pause refreshes may count while the read runs.
            const std::uint32_t now = peek(s, p, q, k);
            TB_CHECK(bus >= snap.sw[s][p][q][k] && bus <= now)
                << f_.switch_name(s) << " port " << p << " prio " << q << " "
                << fmt::to_string(static_cast<K>(k)) << ": driver reads " << bus
                << ", the counter array holds " << snap.sw[s][p][q][k] << ".." << now;
          }
        }
      }
    }
    return snap;
  }

  // With one lossless priority every PFC frame carries that priority alone,
  // so the switches' PAUSE/RESUME counters must equal the frames seen on the
  // links (one frame may be half-way through at the snapshot, or on the wire).
  void check_pause_counters(const CounterSnapshot& snap) const {
    if (opt_.hook_lossless) {
      return;
    }
    const auto near = [](std::uint64_t a, std::uint64_t b) { return a <= b + 1 && b <= a + 1; };
    for (unsigned s = 0; s < f_.switch_count(); ++s) {
      for (unsigned p = 0; p < kPorts; ++p) {
        if (!f_.link_at(switch_end(s, p))) {
          continue;
        }
        const DirStats& out = f_.sent_by(switch_end(s, p));
        const DirStats& in = f_.sent_to(switch_end(s, p));
        const std::string where = f_.switch_name(s) + " port " + std::to_string(p);
        TB_CHECK(near(snap.at(s, p, kPrio, K::kPauseTx), out.pause_frames))
            << where << ": PAUSE_TX " << snap.at(s, p, kPrio, K::kPauseTx) << ", "
            << out.pause_frames << " pause frames on the link";
        TB_CHECK(near(snap.at(s, p, kPrio, K::kResumeTx), out.resume_frames))
            << where << ": RESUME_TX " << snap.at(s, p, kPrio, K::kResumeTx) << ", "
            << out.resume_frames << " resume frames on the link";
        TB_CHECK(near(snap.at(s, p, kPrio, K::kPauseRx), in.pause_frames))
            << where << ": PAUSE_RX " << snap.at(s, p, kPrio, K::kPauseRx) << ", "
            << in.pause_frames << " pause frames came in";
      }
    }
  }

  CounterSnapshot finish() {
    CounterSnapshot snap = backdoor_counters();
    std::vector<std::string> names;
    for (unsigned s = 0; s < f_.switch_count(); ++s) {
      names.push_back(f_.switch_name(s));
    }
    Fabric::dump_counters(std::cout, snap, names);
    std::cout << "counters: " << f_.write_counters_file(snap).string() << "\n";
    const SpeedStats sp = f_.speed();
    std::cout << "speed: " << sp.cycles << " fabric cycles in " << sp.wall_s << " s ("
              << static_cast<std::uint64_t>(sp.cycles_per_s()) << " cycles/s, "
              << static_cast<std::uint64_t>(sp.switch_cycles_per_s()) << " switch-cycles/s)\n";
    check_pause_counters(snap);
    return snap;
  }

  [[nodiscard]] std::uint64_t link_drops() const {
    std::uint64_t n = 0;
    for (std::size_t l = 0; l < f_.link_count(); ++l) {
      n += f_.link(static_cast<unsigned>(l)).ab.dropped_packets +
           f_.link(static_cast<unsigned>(l)).ba.dropped_packets;
    }
    return n;
  }

  // The ingress buffer a loop queue feeds (the far end of its link).
  [[nodiscard]] End downstream(const LoopQueue& q) const {
    const LinkInfo& l = f_.link(*f_.link_at(switch_end(q.sw, q.port)));
    return l.a == switch_end(q.sw, q.port) ? l.b : l.a;
  }
  // Peak occupancy of each loop buffer (arrival priority `prio`) against
  // what PFC guarantees it (XOFF + the headroom of its link).
  void report_peaks(unsigned prio) const {
    for (const LoopQueue& q : kLoop) {
      const End d = downstream(q);
      const PortPrioTrace& t = f_.trace(d.node, d.port, prio);
      const unsigned guard =
          kXoff + drv::required_headroom(f_.link_params(d.node, d.port, kMaxPkt));
      std::cout << "  buffer fed by " << q.name << ": peak " << t.peak_occ << " cells at cycle "
                << t.peak_occ_cycle << " (XOFF + headroom " << guard << ", buffer " << kBufCells
                << ")\n";
    }
  }

  [[nodiscard]] const std::vector<WdEvent>& wd_events() const { return wd_events_; }
  [[nodiscard]] std::uint64_t t0() const { return t0_; }
  [[nodiscard]] std::uint64_t t1() const { return t1_; }
  [[nodiscard]] std::uint64_t t2() const { return t2_; }
  [[nodiscard]] unsigned host(unsigned h) const { return host_[h]; }

 private:
  unsigned add(unsigned from, unsigned to, unsigned len, double rate, std::uint64_t start,
               std::uint64_t stop = std::numeric_limits<std::uint64_t>::max()) {
    FlowSpec s;
    s.dst_lid = kLid[to];
    s.prio = kPrio;
    s.len_flits = len;
    s.rate = rate;
    s.start_cycle = start;
    s.stop_cycle = stop;
    s.dscp = kDscp;
    return f_.add_flow(host_[from], s);
  }

  void sample(std::uint64_t now) {
    if (!opt_.wd) {
      return;
    }
    for (unsigned i = 0; i < kLoop.size(); ++i) {
      const fmt::WdState st = f_.wd_state(kLoop[i].sw, kLoop[i].port, kPrio);
      if (st != wd_last_[i]) {
        wd_events_.push_back(WdEvent{i, now, st, prev_since_[i]});
        wd_last_[i] = st;
      }
      prev_since_[i] = f_.paused_since(kLoop[i].sw, kLoop[i].port, kPrio);
    }
  }

  TestContext& ctx_;
  Options opt_;
  Fabric f_;
  std::array<unsigned, 4> host_{};
  std::array<unsigned, 4> len_{};
  unsigned h4_link_ = 0;
  std::uint64_t drain_ = 0;
  std::uint64_t t0_ = 0;
  std::uint64_t t1_ = 0;
  std::uint64_t t2_ = 0;
  std::array<fmt::WdState, 4> wd_last_{};
  std::array<std::optional<std::uint64_t>, 4> prev_since_{};
  std::vector<WdEvent> wd_events_;
};

const char* state_name(fmt::WdState s) {
  switch (s) {
    case fmt::WdState::kMonitor:
      return "MONITOR";
    case fmt::WdState::kRecover:
      return "RECOVER";
    case fmt::WdState::kDisabled:
      return "DISABLED";
  }
  return "?";
}

// Prints the watchdog transitions; returns, per loop queue, the detection
// latencies: cycle it left MONITOR - the later of the start of its
// continuous XOFF and its return to MONITOR (after a recovery the watchdog
// counts from 0 again even if the pause never ended).
std::array<std::vector<std::uint64_t>, 4> report_wd(const Scenario& sc) {
  std::array<std::vector<std::uint64_t>, 4> lat;
  std::array<std::uint64_t, 4> watched{};
  for (const WdEvent& e : sc.wd_events()) {
    std::cout << "  wd " << kLoop[e.loop].name << " -> " << state_name(e.to) << " at cycle "
              << e.cycle;
    if (e.to != fmt::WdState::kMonitor && e.paused_since) {
      const std::uint64_t from = std::max(*e.paused_since, watched[e.loop]);
      lat[e.loop].push_back(e.cycle - from);
      std::cout << " (paused continuously since " << *e.paused_since << ", watched since " << from
                << ": " << e.cycle - from << " cycles)";
    }
    if (e.to == fmt::WdState::kMonitor) {
      watched[e.loop] = e.cycle;
    }
    std::cout << "\n";
  }
  return lat;
}

}  // namespace

// Variant 1: no watchdog, no remap. The deadlock forms and outlives the
// repair: the loop queues stay paused (refreshed pauses), send nothing, keep
// their packets, and the victim flow H2->H3 stops too. Passing = reproduced.
SYNCFAB_TEST(switch_fabric, deadlock_forms) {
  Scenario sc(ctx, Options{});
  sc.bring_up();
  Fabric& f = sc.fabric();
  const std::uint64_t drain = sc.phase_a();
  const PhaseFlows pf = sc.break_link();
  const auto closed = sc.wait_deadlock(30'000, kHold);
  TB_CHECK(closed.has_value()) << "the four loop queues never paused each other";
  std::cout << "deadlock: the loop closed at cycle " << *closed << " (" << *closed - sc.t0()
            << " cycles after the link broke)\n";
  sc.repair();
  f.run_cycles(500);
  sc.stop(pf);
  // Observe for 20x the drain time of the idle fabric (at least 4 pauses).
  const std::uint64_t window = std::max<std::uint64_t>(20 * drain, 4 * kPauseCycles);
  const std::uint64_t obs0 = f.cycle();
  const std::uint64_t pk0 = sc.loop_packets(kPrio);
  const std::uint64_t pause0 = sc.loop_pauses();
  const std::size_t victim0 = sc.received_of(kH3, pf.victim);
  f.run_cycles(window);
  const std::uint64_t obs1 = f.cycle();
  for (const LoopQueue& q : kLoop) {
    const auto since = f.paused_since(q.sw, q.port, kPrio);
    TB_CHECK(since.has_value() && *since <= sc.t1())
        << q.name << " is not paused continuously since the repair";
    std::cout << "  " << q.name << ": paused continuously for " << obs1 - *since << " cycles ("
              << (obs1 - *since) / std::max<std::uint64_t>(drain, 1) << "x the idle drain time)\n";
  }
  TB_CHECK_EQ(sc.loop_packets(kPrio), pk0) << "a loop queue sent a packet while deadlocked";
  TB_CHECK(sc.loop_pauses() >= pause0 + 4 * (window / kTiming.refresh) / 2)
      << "the pauses were not refreshed: " << sc.loop_pauses() - pause0 << " in " << window
      << " cycles";
  TB_CHECK_EQ(sc.received_of(kH3, pf.victim), victim0) << "the victim H2->H3 kept flowing";
  TB_CHECK(f.flow(pf.victim).sent > sc.received_of(kH3, pf.victim)) << "victim: all delivered";
  TB_CHECK(!f.run_until_idle(2 * drain)) << "the fabric drained";
  sc.report_peaks(kPrio);
  std::cout << "  observed " << obs0 << ".." << obs1 << ": 0 loop packets sent, "
            << sc.loop_pauses() - pause0 << " pause frames refreshed the deadlock\n";
  const CounterSnapshot snap = sc.finish();
  for (unsigned s = 0; s < 4; ++s) {
    const std::int64_t held =
        static_cast<std::int64_t>(snap.sum(s, K::kRx)) -
        static_cast<std::int64_t>(snap.sum(s, K::kTx)) -
        static_cast<std::int64_t>(snap.sum(s, K::kDropBuf) + snap.sum(s, K::kDropWd) +
                                  snap.sum(s, K::kDropWred) + snap.sum(s, K::kDropNoRoute));
    TB_CHECK(held > 0) << f.switch_name(s) << ": RX - TX - drops = " << held;
    std::cout << "  " << f.switch_name(s) << ": " << held << " packets held, "
              << snap.sum(s, K::kPauseTx) << " pauses sent, " << snap.sum(s, K::kPauseRx)
              << " received\n";
  }
  TB_CHECK(Scenario::drops(snap).empty()) << "a lossless fabric dropped";
  co_return;
}

namespace {

// Watchdog of the loop queues: a deadlock is declared after kDetect cycles
// of continuous XOFF; recovery (drop mode) lasts kRecover cycles.
constexpr std::uint32_t kDetect = 2000;
constexpr std::uint32_t kRecover = 500;

// Checks common to the watchdog variants once the fabric drained: every
// detection came kDetect cycles after the queue's continuous XOFF began,
// the WD_DETECT counters equal the detections seen, the only drops are
// DROP_WD on the loop queues (and lossless DROP_BUF on priority 3 at the
// ingress ports in `overrun`: fed by a queue whose PFC was disabled), and
// every packet is received once or counted dropped. Returns the first
// detection cycle.
std::uint64_t check_watchdog_run(Scenario& sc, const CounterSnapshot& snap,
                                 const std::array<std::vector<std::uint64_t>, 4>& lat,
                                 const std::vector<End>& overrun = {}) {
  Fabric& f = sc.fabric();
  std::optional<std::uint64_t> first;
  std::array<std::uint32_t, 4> detects{};
  for (const WdEvent& e : sc.wd_events()) {
    if (e.to != fmt::WdState::kMonitor) {
      ++detects[e.loop];
      first = first ? std::min(*first, e.cycle) : e.cycle;
    }
  }
  TB_CHECK(first.has_value()) << "the watchdog never detected the deadlock";
  for (unsigned i = 0; i < kLoop.size(); ++i) {
    const LoopQueue& q = kLoop[i];
    for (const std::uint64_t l : lat[i]) {
      // The probe sees XOFF from the cycle after the edge that set it and
      // the new state one cycle after the detection: the same offset.
      TB_CHECK(l + 1 >= kDetect && l <= kDetect + 1)
          << q.name << ": detected " << l << " cycles after its XOFF began (" << kDetect
          << " programmed)";
    }
    TB_CHECK_EQ(snap.at(q.sw, q.port, kPrio, K::kWdDetect), detects[i]) << q.name;
  }
  std::uint64_t dropped = 0;
  std::uint64_t overrun_drops = 0;
  for (const Scenario::Drop& d : Scenario::drops(snap)) {
    const bool at_overrun =
        std::find(overrun.begin(), overrun.end(), switch_end(d.sw, d.port)) != overrun.end();
    const bool wd = d.kind == K::kDropWd && in_loop(d.sw, d.port);
    const bool buf = d.kind == K::kDropBuf && at_overrun;
    TB_CHECK(d.prio == kPrio && (wd || buf))
        << f.switch_name(d.sw) << " port " << d.port << " prio " << d.prio << ": "
        << fmt::to_string(d.kind) << " " << d.n;
    dropped += d.n;
    overrun_drops += buf ? d.n : 0;
  }
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::vector<unsigned> all;
  for (unsigned fl = 0; fl < f.flow_count(); ++fl) {
    sent += f.flow(fl).sent;
    all.push_back(fl);
  }
  for (unsigned h = 0; h < 4; ++h) {
    received += f.received(sc.host(h)).size();
  }
  const DeliveryReport rep = check_delivery(
      f, all, [&f](unsigned fl) { return unicast_receiver(f, fl); }, [](unsigned) { return true; });
  TB_CHECK(rep.duplicates == 0 && rep.unexpected == 0 && rep.malformed == 0) << rep;
  TB_CHECK_EQ(sent, received + dropped + sc.link_drops())
      << "sent = received + DROP_WD + DROP_BUF + link drops";
  std::cout << "  " << sent << " packets sent, " << received << " received, "
            << dropped - overrun_drops << " DROP_WD, " << overrun_drops << " DROP_BUF, "
            << sc.link_drops() << " lost on the broken link, " << rep.out_of_order
            << " arrived after a later one of their flow (looped)\n";
  std::cout << "  pauses sent " << snap.total(K::kPauseTx) << ", received "
            << snap.total(K::kPauseRx) << "\n";
  return *first;
}

// The INTR_STATUS causes of the loop switches, read through the driver.
void check_intr(Scenario& sc, const CounterSnapshot& snap, std::uint32_t bit, K kind) {
  Fabric& f = sc.fabric();
  for (const LoopQueue& q : kLoop) {
    const bool counted = snap.at(q.sw, q.port, kPrio, kind) != 0;
    const bool raised = (f.driver(q.sw).interrupt_status() & bit) != 0;
    TB_CHECK_EQ(raised, counted) << q.name << ": INTR_STATUS bit " << bit << " vs "
                                 << fmt::to_string(kind);
  }
}

}  // namespace

// Variant 2: watchdog on the four loop queues, drop mode. The deadlock
// forms and outlives the repair until the watchdog declares it: the paused
// queue discards its packets (DROP_WD), the loop unwinds, traffic to H4
// flows again and, once the sources stop, the fabric drains completely.
SYNCFAB_TEST(switch_fabric, deadlock_watchdog_drop) {
  Options o;
  o.wd = drv::WatchdogConfig{kDetect, kRecover, 1'000'000, 0};
  Scenario sc(ctx, o);
  sc.bring_up();
  Fabric& f = sc.fabric();
  sc.phase_a();
  const PhaseFlows pf = sc.break_link();
  const auto closed = sc.wait_deadlock(30'000, kHold);
  TB_CHECK(closed.has_value()) << "the four loop queues never paused each other";
  sc.repair();
  // The sources keep sending until the watchdog has acted and recovered.
  const std::uint64_t until = f.cycle() + 3 * std::uint64_t{kDetect} + kRecover;
  while (f.cycle() < until &&
         std::none_of(sc.wd_events().begin(), sc.wd_events().end(),
                      [](const WdEvent& e) { return e.to == fmt::WdState::kRecover; })) {
    f.run_cycles(50);
  }
  f.run_cycles(kRecover + 300);
  sc.stop(pf);
  TB_CHECK(f.run_until_idle(100'000)) << "the fabric did not drain after the recovery";
  std::cout << "deadlock: loop closed at " << *closed << ", repaired at " << sc.t1()
            << ", sources stopped at " << sc.t2() << ", drained at " << f.cycle() << "\n";
  const auto lat = report_wd(sc);
  sc.report_peaks(kPrio);
  const CounterSnapshot snap = sc.finish();
  const std::uint64_t td = check_watchdog_run(sc, snap, lat);
  check_intr(sc, snap, 1U, K::kWdDetect);
  const auto unpaused = sc.loop_unpaused_at(td);
  const auto h4 = sc.first_rx_after(kH4, td);
  TB_CHECK(h4.has_value()) << "nothing reached H4 after the detection";
  std::cout << "  first detection " << td << " (" << td - *closed
            << " cycles after the loop closed); loop free of pauses "
            << (unpaused ? std::to_string(*unpaused - td) : std::string("never"))
            << " cycles later; H4 receives again " << *h4 - td << " cycles later\n";
  co_return;
}

// Variant 3: watchdog with limit 1 in a long window. Episodes of break,
// deadlock, repair: the first detection of a queue recovers it (drop mode);
// a second one within the window DISABLES PFC on it (WD_DISABLE): it ignores
// the pauses and the loop drains into the repaired path. The driver then
// re-enables PFC (reenable_pfc) and lossless traffic runs again.
SYNCFAB_TEST(switch_fabric, deadlock_watchdog_disable) {
  Options o;
  o.wd = drv::WatchdogConfig{kDetect, kRecover, 10'000'000, 1};
  Scenario sc(ctx, o);
  sc.bring_up();
  Fabric& f = sc.fabric();
  sc.phase_a();
  std::vector<unsigned> disabled;
  for (unsigned ep = 1; ep <= 4 && disabled.empty(); ++ep) {
    const PhaseFlows pf = sc.break_link();
    const auto closed = sc.wait_deadlock(30'000, kHold);
    TB_CHECK(closed.has_value()) << "episode " << ep << ": no deadlock";
    // Sources stop before the watchdog acts: a queue whose PFC gets
    // disabled ignores pauses and the buffer it feeds may overflow; here
    // only a bounded load follows it, so this variant stays lossless except
    // for DROP_WD (deadlock_disabled_overruns_counted keeps them running).
    sc.stop(pf);
    sc.repair();
    TB_CHECK(f.run_until_idle(100'000)) << "episode " << ep << ": the fabric did not drain";
    std::cout << "episode " << ep << ": loop closed at " << *closed << ", repaired at " << sc.t1()
              << ", drained at " << f.cycle() << "\n";
    for (unsigned i = 0; i < kLoop.size(); ++i) {
      if (f.wd_state(kLoop[i].sw, kLoop[i].port, kPrio) == fmt::WdState::kDisabled) {
        disabled.push_back(i);
      }
    }
  }
  const auto lat = report_wd(sc);
  sc.report_peaks(kPrio);
  TB_CHECK(!disabled.empty()) << "no queue was disabled in 4 episodes";
  for (const unsigned i : disabled) {
    const LoopQueue& q = kLoop[i];
    TB_CHECK(f.driver(q.sw).watchdog_state(q.port)[kPrio] == fmt::WdState::kDisabled)
        << q.name << ": WD_STATUS";
    TB_CHECK((f.driver(q.sw).interrupt_status() & 4U) != 0) << q.name << ": INTR WD_DISABLE";
    f.driver(q.sw).reenable_pfc(q.port, static_cast<std::uint8_t>(1U << kPrio));
    TB_CHECK(f.driver(q.sw).watchdog_state(q.port)[kPrio] == fmt::WdState::kMonitor)
        << q.name << ": still disabled after reenable_pfc";
    std::cout << "  " << q.name << ": DISABLED, re-enabled by the driver\n";
  }
  // Lossless again: the phase (a) traffic passes with no drop and no long pause.
  sc.phase_a();
  const CounterSnapshot snap = sc.finish();
  check_watchdog_run(sc, snap, lat);
  for (const unsigned i : disabled) {
    TB_CHECK_EQ(snap.at(kLoop[i].sw, kLoop[i].port, kPrio, K::kWdDisable), 1U) << kLoop[i].name;
  }
  check_intr(sc, snap, 4U, K::kWdDisable);
  co_return;
}

// Variant 3b: as variant 3, but the sources keep sending after PFC is
// DISABLED on a loop queue and the tables stay wrong. The disabled queue
// ignores its peer's pauses while the loop has no exit, so the lossless
// buffer it feeds overflows: the ingress admission drops and counts
// (lossless DROP_BUF at that port, priority 3) instead of overrunning. The
// RTL survives, and after the repair every packet is accounted for.
SYNCFAB_TEST(switch_fabric, deadlock_disabled_overruns_counted) {
  Options o;
  o.wd = drv::WatchdogConfig{kDetect, kRecover, 10'000'000, 1};
  Scenario sc(ctx, o);
  sc.bring_up();
  Fabric& f = sc.fabric();
  sc.phase_a();
  const PhaseFlows pf = sc.break_link();
  const auto closed = sc.wait_deadlock(30'000, kHold);
  TB_CHECK(closed.has_value()) << "no deadlock";
  // Full-rate sources into a loop without exit: the first detection drops
  // (RECOVER), the loop refills, the second detection of a queue in the
  // window disables PFC on it.
  std::optional<std::uint64_t> disabled_at;
  const std::uint64_t until = f.cycle() + 4 * (std::uint64_t{kDetect} + kRecover);
  while (f.cycle() < until && !disabled_at) {
    f.run_cycles(50);
    for (const WdEvent& e : sc.wd_events()) {
      if (e.to == fmt::WdState::kDisabled) {
        disabled_at = e.cycle;
        break;
      }
    }
  }
  TB_CHECK(disabled_at.has_value()) << "no loop queue was disabled";
  // The sources keep sending for two pauses' time after the disable.
  f.run_cycles(2 * kPauseCycles);
  const std::uint64_t overrun_at = f.cycle();
  sc.repair();
  f.run_cycles(300);
  sc.stop(pf);
  TB_CHECK(f.run_until_idle(100'000)) << "the fabric did not drain after the repair";
  std::vector<End> overrun;
  std::vector<unsigned> disabled;
  for (unsigned i = 0; i < kLoop.size(); ++i) {
    if (f.wd_state(kLoop[i].sw, kLoop[i].port, kPrio) == fmt::WdState::kDisabled) {
      disabled.push_back(i);
      overrun.push_back(sc.downstream(kLoop[i]));
    }
  }
  std::cout << "deadlock: loop closed at " << *closed << ", first disable at " << *disabled_at
            << ", repaired at " << sc.t1() << ", drained at " << f.cycle() << "\n";
  const auto lat = report_wd(sc);
  sc.report_peaks(kPrio);
  const CounterSnapshot snap = sc.finish();
  check_watchdog_run(sc, snap, lat, overrun);
  std::uint64_t buf = 0;
  for (const unsigned i : disabled) {
    const End d = sc.downstream(kLoop[i]);
    const std::uint32_t n = snap.at(d.node, d.port, kPrio, K::kDropBuf);
    std::cout << "  " << kLoop[i].name << " DISABLED; lossless DROP_BUF at "
              << f.switch_name(d.node) << " port " << d.port << ": " << n << "\n";
    buf += n;
    TB_CHECK_EQ(snap.at(kLoop[i].sw, kLoop[i].port, kPrio, K::kWdDisable), 1U) << kLoop[i].name;
    // The buffer filled to the last cell, never past it.
    TB_CHECK(f.trace(d.node, d.port, kPrio).peak_occ <= kBufCells) << kLoop[i].name;
  }
  TB_CHECK(buf > 0) << "the disabled queue's downstream buffer never overflowed in "
                    << overrun_at - *disabled_at << " cycles of full-rate sources";
  check_intr(sc, snap, 4U, K::kWdDisable);
  co_return;
}

namespace {

// Variants 4 and 5: hook-flow remap on both leaves. Phase (b) runs for a
// fixed time (longer than the deadlock needs to form without the remap),
// then the link is repaired and the sources stop.
constexpr std::uint64_t kLoopTime = 5'000;

}  // namespace

// Variant 4: the remap moves a looping packet to priority 4 at its first
// bounce (uplink in, uplink out); 4 is lossy, so the loop's backpressure
// never reaches priority 3: no deadlock, everything drains after the repair,
// priority 3 loses nothing, the looping copies are DROP_BUF on priority 4.
SYNCFAB_TEST(switch_fabric, deadlock_prevented_remap) {
  Options o;
  o.remap = true;
  Scenario sc(ctx, o);
  sc.bring_up();
  Fabric& f = sc.fabric();
  sc.phase_a();
  const PhaseFlows pf = sc.break_link();
  const std::uint64_t t0 = sc.t0();
  f.run_cycles(kLoopTime / 2);
  const std::size_t victim_mid = sc.received_of(kH3, pf.victim);
  f.run_cycles(kLoopTime / 2);
  TB_CHECK(sc.received_of(kH3, pf.victim) > victim_mid)
      << "the victim H2->H3 stopped while the loop ran";
  std::uint64_t longest = 0;
  for (const LoopQueue& q : kLoop) {
    for (const Interval& iv : f.trace(q.sw, q.port, kPrio).xoff) {
      if (iv.to >= t0) {
        longest = std::max(longest, iv.to - std::max(iv.from, t0));
      }
    }
  }
  TB_CHECK(longest < 4 * kPauseCycles)
      << "a loop queue was paused on priority 3 for " << longest << " cycles";
  const std::uint64_t hooked = sc.loop_packets(kHook);
  TB_CHECK(hooked > 0) << "no remapped packet on the loop links";
  sc.repair();
  f.run_cycles(500);
  sc.stop(pf);
  TB_CHECK(f.run_until_idle(100'000)) << "the fabric did not drain after the repair";
  std::cout << "remap: " << hooked << " priority-4 packets crossed the loop links while it ran; "
            << "longest priority-3 pause on a loop queue " << longest << " cycles\n";
  const CounterSnapshot snap = sc.finish();
  std::uint64_t dropped = 0;
  for (const Scenario::Drop& d : Scenario::drops(snap)) {
    TB_CHECK(d.kind == K::kDropBuf && d.prio == kHook)
        << f.switch_name(d.sw) << " port " << d.port << " prio " << d.prio << ": "
        << fmt::to_string(d.kind) << " " << d.n;
    dropped += d.n;
  }
  TB_CHECK(dropped > 0) << "no looping copy was dropped";
  // On the wire: a packet arrives with the remapped priority and DSCP iff it
  // bounced; priority 3 flows not to H4 are lossless.
  std::size_t remapped = 0;
  for (unsigned h = 0; h < 4; ++h) {
    for (const RxPacket& p : f.received(sc.host(h))) {
      TB_CHECK((p.prio == kPrio && p.dscp == kDscp) || (p.prio == kHook && p.dscp == kHookDscp))
          << "host " << h + 1 << " got prio " << p.prio << " dscp " << p.dscp;
      remapped += p.prio == kHook ? 1 : 0;
    }
  }
  TB_CHECK(remapped > 0) << "no remapped packet reached H4 after the repair";
  std::vector<unsigned> all;
  for (unsigned fl = 0; fl < f.flow_count(); ++fl) {
    all.push_back(fl);
  }
  const std::set<unsigned> lossy(pf.to_h4.begin(), pf.to_h4.end());
  const DeliveryReport rep = check_delivery(
      f, all, [&f](unsigned fl) { return unicast_receiver(f, fl); },
      [&lossy](unsigned fl) { return lossy.count(fl) != 0; });
  TB_CHECK(rep.lost == 0 && rep.duplicates == 0 && rep.unexpected == 0 && rep.malformed == 0)
      << rep;
  const std::uint64_t to_h4 = f.flow(pf.to_h4[0]).sent + f.flow(pf.to_h4[1]).sent;
  const std::uint64_t got_h4 = f.received(sc.host(kH4)).size();
  std::uint64_t phase_a_h4 = 0;
  for (const RxPacket& p : f.received(sc.host(kH4))) {
    phase_a_h4 += lossy.count(p.id.flow) == 0 ? 1 : 0;
  }
  TB_CHECK_EQ(to_h4, got_h4 - phase_a_h4 + dropped + sc.link_drops())
      << "sent to H4 = received + DROP_BUF + link drops";
  std::cout << "  to H4: " << to_h4 << " sent, " << got_h4 - phase_a_h4 << " received (" << remapped
            << " remapped), " << dropped << " DROP_BUF on priority 4, " << sc.link_drops()
            << " lost on the broken link; pauses sent " << snap.total(K::kPauseTx) << "\n";
  co_return;
}

// Variant 5: the same remap to a lossless priority 4: the loop is still a
// cycle of lossless buffers, so the deadlock forms again, on priority 4.
SYNCFAB_TEST(switch_fabric, deadlock_remap_to_lossless_moves) {
  Options o;
  o.remap = true;
  o.hook_lossless = true;
  Scenario sc(ctx, o);
  sc.bring_up();
  Fabric& f = sc.fabric();
  const std::uint64_t drain = sc.phase_a();
  const PhaseFlows pf = sc.break_link();
  const auto closed = sc.wait_deadlock(30'000, kHold, kHook);
  TB_CHECK(closed.has_value()) << "no deadlock on priority 4";
  sc.repair();
  f.run_cycles(500);
  sc.stop(pf);
  const std::uint64_t pk0 = sc.loop_packets(kHook);
  const std::uint64_t window = std::max<std::uint64_t>(20 * drain, 4 * kPauseCycles);
  f.run_cycles(window);
  for (const LoopQueue& q : kLoop) {
    const auto since = f.paused_since(q.sw, q.port, kHook);
    TB_CHECK(since.has_value() && *since <= sc.t1())
        << q.name << " is not paused on priority 4 since the repair";
  }
  TB_CHECK_EQ(sc.loop_packets(kHook), pk0) << "a loop queue sent on priority 4";
  std::cout << "remap to lossless 4: the loop closed on priority 4 at " << *closed << " ("
            << *closed - sc.t0() << " cycles after the break), still paused " << window
            << " cycles after the sources stopped\n";
  const CounterSnapshot snap = sc.finish();
  TB_CHECK(Scenario::drops(snap).empty()) << "a lossless fabric dropped";
  co_return;
}
