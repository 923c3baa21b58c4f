// The white paper's faulty server NIC (§3.1.3, figures 12-16) on four
// verilated switches (docs/switch-scenarios.md, "Pause storm"): a host
// whose NIC sends PFC pause frames on priority 3 forever. Without a
// watchdog the pause spreads hop by hop (its leaf, the spine feeding it,
// the other leaf, the senders) and stalls flows to healthy hosts that share
// those queues. With the watchdog on the faulty host's leaf port (ignore
// mode) the queue is declared deadlocked after D cycles of continuous
// pause, sends regardless for R cycles (the host sinks everything), and
// after more than N detections in the window PFC is DISABLED on that queue
// until software re-enables it once the NIC is fixed.
//
//        Spine1 (S1)              Spine2 (S2)
//        p0      p1               p0      p1
//        |        \______  ______/        |
//        |         ______\/______         |
//        |        /              \        |
//        p6      p7               p6      p7
//        Leaf1 (L1)               Leaf2 (L2)
//        p0   p1                  p0   p1   p2
//        H1   H2                  H3   HF   H5        HF = the faulty NIC
//
// Minimum-hop tables: L1 reaches L2's hosts through S1, L2 reaches L1's
// through S2. Flows, all on lossless priority 3: H1->HF and H3->HF (to the
// faulty host), H2->H5 (shares L1 p6 and S1 p1 with H1->HF), H3->H1 (shares
// H3's own priority-3 queue with H3->HF), H5->H2 (shares nothing with the
// storm: L2 p7, S2 p0, L1 p1).
#include <algorithm>
#include <array>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "delivery_check.hpp"
#include "switch_fabric.hpp"
#include "syncfab/driver/switch.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::swfab;
namespace drv = syncfab::driver;
namespace fmt = syncfab::fmt;
using K = fmt::SwCounter;

namespace {

constexpr unsigned kLeaf1 = 0;
constexpr unsigned kLeaf2 = 1;
constexpr unsigned kSpine1 = 2;
constexpr unsigned kSpine2 = 3;
constexpr unsigned kToSpine1 = 6;
constexpr unsigned kToSpine2 = 7;
constexpr unsigned kToLeaf1 = 0;
constexpr unsigned kToLeaf2 = 1;
constexpr unsigned kFaultyPort = 1;  // L2's port to HF

// Hosts (add_host order) and LIDs.
constexpr unsigned kH1 = 0;
constexpr unsigned kH2 = 1;
constexpr unsigned kH3 = 2;
constexpr unsigned kHF = 3;
constexpr unsigned kH5 = 4;
constexpr std::array<std::uint16_t, 5> kLid{1, 2, 3, 4, 5};

constexpr unsigned kPrio = 3;
constexpr std::uint8_t kDscp = 26;
constexpr unsigned kMaxPkt = 8;
constexpr std::uint16_t kXoff = 64;
constexpr std::uint16_t kXon = 48;
constexpr std::uint16_t kQuanta = 64;
constexpr drv::PfcTiming kTiming{8, 256};
constexpr std::uint64_t kPauseCycles = std::uint64_t{kQuanta} * kTiming.cyc_per_quantum;

// The faulty NIC: a pause of 64 quanta (512 cycles) every 200 cycles, so
// its queue never leaves XOFF.
constexpr std::uint64_t kStormPeriod = 200;

// Watchdog on L2's port to HF: detection D, recovery R (ignore mode), more
// than N detections in the window disable PFC on the queue.
constexpr std::uint32_t kDetect = 800;
constexpr std::uint32_t kRecover = 300;
constexpr std::uint32_t kLimit = 1;
constexpr std::uint32_t kWindow = 1'000'000;

constexpr std::uint64_t kBaseline = 600;  // healthy traffic before the first storm
constexpr std::uint64_t kStormNoWd = 1800;
constexpr std::uint64_t kMeasure = 500;  // rate windows

// A queue of the fabric that a pause can hold: a switch's egress queue
// (switch, port) or a host's priority-3 source.
struct Spread {
  unsigned switch_queues = 0;
  unsigned hosts = 0;
  [[nodiscard]] unsigned total() const { return switch_queues + hosts; }
};

class StormFabric {
 public:
  explicit StormFabric(TestContext& ctx) : ctx_(ctx), f_(ctx) {
    std::uniform_int_distribution<unsigned> delay(8, 16);
    auto& rng = ctx.rng();
    for (const char* n : {"leaf1", "leaf2", "spine1", "spine2"}) {
      f_.add_switch(n);
    }
    const std::array<const char*, 5> names{"h1", "h2", "h3", "hf", "h5"};
    for (unsigned h = 0; h < names.size(); ++h) {
      f_.add_host(names[h], kLid[h]);
    }
    f_.connect(host_end(kH1), switch_end(kLeaf1, 0), delay(rng));
    f_.connect(host_end(kH2), switch_end(kLeaf1, 1), delay(rng));
    f_.connect(host_end(kH3), switch_end(kLeaf2, 0), delay(rng));
    f_.connect(host_end(kHF), switch_end(kLeaf2, kFaultyPort), delay(rng));
    f_.connect(host_end(kH5), switch_end(kLeaf2, 2), delay(rng));
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
    f_.configure_pfc_all(kTiming, pfc, kMaxPkt);
    drv::SchedConfig sched{};
    sched.weight.fill(kMaxPkt);
    f_.program_all([&](unsigned sw, drv::Switch& d) {
      for (unsigned p = 0; p < kPorts; ++p) {
        if (f_.link_at(switch_end(sw, p))) {
          d.configure_scheduler(p, sched);
        }
      }
      // The watchdog's times everywhere; it watches only L2's port to HF
      // (enabled later, per phase).
      d.configure_watchdog(drv::WatchdogConfig{kDetect, kRecover, kWindow, kLimit});
      std::vector<drv::LftEntry> lft;
      for (unsigned h = 0; h < kLid.size(); ++h) {
        lft.push_back(drv::LftEntry{kLid[h], static_cast<std::uint8_t>(route(sw, h))});
      }
      d.program_lft(lft);
    });
    f_.enable_all();
    f_.on_cycle([this](std::uint64_t now) { sample(now); });
  }

  // Healthy traffic, endless (stopped by stop_all).
  void start_flows() {
    auto& rng = ctx_.rng();
    std::uniform_real_distribution<double> jitter(-0.05, 0.05);
    const std::uint64_t t = f_.cycle();
    to_hf_.push_back(add(kH1, kHF, len_[0], 0.5 + jitter(rng), t));
    to_hf_.push_back(add(kH3, kHF, len_[1], 0.4 + jitter(rng), t));
    victim_spine_ = add(kH2, kH5, len_[2], 0.4 + jitter(rng), t);
    victim_host_ = add(kH3, kH1, len_[3], 0.3 + jitter(rng), t);
    control_ = add(kH5, kH2, len_[4], 0.4 + jitter(rng), t);
  }
  void stop_all() {
    for (unsigned fl = 0; fl < f_.flow_count(); ++fl) {
      f_.stop_flow(fl);
    }
  }

  // Packets of `flow` received in [from, to) per 1000 cycles.
  [[nodiscard]] double rate(unsigned flow, std::uint64_t from, std::uint64_t to) const {
    const unsigned dst = dst_of(flow);
    const auto& rx = f_.received(dst);
    const auto n = std::count_if(rx.begin(), rx.end(), [&](const RxPacket& p) {
      return p.id.flow == flow && p.last_cycle >= from && p.last_cycle < to;
    });
    return 1000.0 * static_cast<double>(n) / static_cast<double>(to - from);
  }

  void print_rates(const char* when, std::uint64_t from, std::uint64_t to) const {
    std::cout << "  packets/1000 cycles " << when << " [" << from << ", " << to << "): H1->HF "
              << std::fixed << std::setprecision(1) << rate(to_hf_[0], from, to) << ", H3->HF "
              << rate(to_hf_[1], from, to) << ", H2->H5 " << rate(victim_spine_, from, to)
              << ", H3->H1 " << rate(victim_host_, from, to) << ", H5->H2 "
              << rate(control_, from, to) << "\n";
  }

  // The queues a pause holds now, the faulty port itself excluded.
  [[nodiscard]] Spread spread_now(std::uint64_t now) const {
    Spread s;
    for (unsigned sw = 0; sw < f_.switch_count(); ++sw) {
      for (unsigned p = 0; p < kPorts; ++p) {
        if ((sw != kLeaf2 || p != kFaultyPort) && f_.paused_since(sw, p, kPrio)) {
          ++s.switch_queues;
        }
      }
    }
    for (unsigned h = 0; h < f_.host_count(); ++h) {
      const auto& iv = f_.host_paused(h, kPrio);
      if (!iv.empty() && iv.back().from <= now && now < iv.back().to) {
        ++s.hosts;
      }
    }
    return s;
  }

  // Largest spread seen since reset_peak and when.
  void reset_peak() {
    peak_ = Spread{};
    peak_cycle_ = 0;
  }
  [[nodiscard]] Spread peak() const { return peak_; }
  [[nodiscard]] std::uint64_t peak_cycle() const { return peak_cycle_; }
  // The names of the paused switch queues (for the report).
  [[nodiscard]] std::string paused_names() const {
    std::string out;
    for (unsigned sw = 0; sw < f_.switch_count(); ++sw) {
      for (unsigned p = 0; p < kPorts; ++p) {
        if (f_.paused_since(sw, p, kPrio)) {
          out += " " + f_.switch_name(sw) + ".p" + std::to_string(p);
        }
      }
    }
    return out;
  }
  // First cycle >= from at which nothing but the faulty port is paused,
  // running the fabric until then or `limit` cycles.
  std::optional<std::uint64_t> run_until_spread_clear(std::uint64_t limit) {
    const std::uint64_t end = f_.cycle() + limit;
    while (f_.cycle() < end) {
      if (spread_now(f_.cycle()).total() == 0) {
        return f_.cycle();
      }
      f_.run_cycles(10);
    }
    return std::nullopt;
  }

  // Watchdog transitions of the faulty port's queue (sampled).
  struct WdEvent {
    std::uint64_t cycle;
    fmt::WdState to;
    std::optional<std::uint64_t> paused_since;
  };
  [[nodiscard]] const std::vector<WdEvent>& wd_events() const { return wd_events_; }
  // Fewest queues paused at once while the watchdog was in RECOVER.
  [[nodiscard]] unsigned recover_min_spread() const { return recover_min_; }

  [[nodiscard]] unsigned victim_spine() const { return victim_spine_; }
  [[nodiscard]] unsigned victim_host() const { return victim_host_; }
  [[nodiscard]] unsigned control() const { return control_; }
  [[nodiscard]] unsigned dst_of(unsigned flow) const {
    const std::uint16_t lid = f_.flow(flow).spec.dst_lid;
    return static_cast<unsigned>(std::find(kLid.begin(), kLid.end(), lid) - kLid.begin());
  }

 private:
  // Minimum-hop: the leaf's own hosts direct, the other leaf's hosts through
  // Spine1 (from Leaf1) or Spine2 (from Leaf2).
  static unsigned route(unsigned sw, unsigned host) {
    const bool on_leaf1 = host == kH1 || host == kH2;
    const unsigned local = host == kH1 || host == kH3 ? 0 : host == kH2 || host == kHF ? 1 : 2;
    switch (sw) {
      case kLeaf1:
        return on_leaf1 ? local : kToSpine1;
      case kLeaf2:
        return on_leaf1 ? kToSpine2 : local;
      default:
        return on_leaf1 ? kToLeaf1 : kToLeaf2;
    }
  }

  unsigned add(unsigned from, unsigned to, unsigned len, double rate, std::uint64_t start) {
    FlowSpec s;
    s.dst_lid = kLid[to];
    s.prio = kPrio;
    s.len_flits = len;
    s.rate = rate;
    s.start_cycle = start;
    s.dscp = kDscp;
    return f_.add_flow(from, s);
  }

  void sample(std::uint64_t now) {
    const Spread s = spread_now(now);
    if (s.total() > peak_.total()) {
      peak_ = s;
      peak_cycle_ = now;
    }
    const fmt::WdState st = f_.wd_state(kLeaf2, kFaultyPort, kPrio);
    if (st == fmt::WdState::kRecover) {
      recover_min_ = std::min(recover_min_, s.total());
    }
    if (st != wd_last_) {
      wd_events_.push_back(WdEvent{now, st, prev_since_});
      wd_last_ = st;
    }
    prev_since_ = f_.paused_since(kLeaf2, kFaultyPort, kPrio);
  }

  TestContext& ctx_;
  Fabric f_;
  std::array<unsigned, 5> len_{};
  std::vector<unsigned> to_hf_;
  unsigned victim_spine_ = 0;
  unsigned victim_host_ = 0;
  unsigned control_ = 0;
  Spread peak_;
  std::uint64_t peak_cycle_ = 0;
  fmt::WdState wd_last_ = fmt::WdState::kMonitor;
  std::optional<std::uint64_t> prev_since_;
  std::vector<WdEvent> wd_events_;
  unsigned recover_min_ = ~0U;
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

}  // namespace

// Phase 1: no watchdog; the storm spreads and stalls the flows to healthy
// hosts that share a paused queue; the NIC is fixed (it stops and sends a
// resume) and the spread clears. Phase 2: watchdog in ignore mode on L2's
// port to HF; the storm again: detection exactly D after the continuous
// pause began, recovery sends to HF regardless and the spread clears, the
// second detection (> N = 1 in the window) DISABLES PFC on the queue; the
// NIC is fixed and the driver re-enables PFC. Lossless throughout: no drop
// anywhere, every packet delivered once and in order.
SYNCFAB_TEST(switch_fabric, pause_storm_watchdog_ignore) {
  StormFabric sc(ctx);
  Fabric& f = sc.fabric();
  sc.bring_up();
  sc.start_flows();
  f.run_cycles(kBaseline);
  const std::uint64_t base0 = f.cycle() - kMeasure;
  sc.print_rates("healthy", base0, f.cycle());
  for (const unsigned fl : {sc.victim_spine(), sc.victim_host(), sc.control()}) {
    TB_CHECK(sc.rate(fl, base0, f.cycle()) > 0) << "flow " << fl << " idle before the storm";
  }

  // ---- phase 1: the storm without a watchdog ----
  const PfcStormSpec storm{.class_mask = 1U << kPrio,
                           .quanta = kQuanta,
                           .period_cycles = kStormPeriod,
                           .start_cycle = f.cycle()};
  const std::uint64_t s1 = f.cycle();
  const unsigned st1 = f.add_pfc_storm(kHF, storm);
  sc.reset_peak();
  f.run_cycles(kStormNoWd);
  const std::uint64_t e1 = f.cycle();
  const Spread peak1 = sc.peak();
  std::cout << "storm without watchdog from " << s1 << ": peak spread " << peak1.switch_queues
            << " switch queues + " << peak1.hosts << " hosts paused, " << sc.peak_cycle() - s1
            << " cycles after the storm began; paused at " << e1 << ":" << sc.paused_names()
            << "\n";
  sc.print_rates("storm, no watchdog", e1 - kMeasure, e1);
  // The pause reached the spine and the other leaf, and the senders there.
  TB_CHECK(f.paused_since(kSpine1, kToLeaf2, kPrio).has_value()) << "spine1 -> leaf2 not paused";
  TB_CHECK(f.paused_since(kLeaf1, kToSpine1, kPrio).has_value()) << "leaf1 -> spine1 not paused";
  TB_CHECK(peak1.hosts >= 2) << "the pause did not reach the senders";
  const auto faulty_since = f.paused_since(kLeaf2, kFaultyPort, kPrio);
  TB_CHECK(faulty_since.has_value() && *faulty_since <= s1 + kStormPeriod)
      << "the faulty port is not paused continuously";
  // Flows to healthy hosts that share a paused queue stall; the one that
  // shares none keeps flowing.
  TB_CHECK_EQ(sc.rate(sc.victim_spine(), e1 - kMeasure, e1), 0.0) << "H2->H5 kept flowing";
  TB_CHECK_EQ(sc.rate(sc.victim_host(), e1 - kMeasure, e1), 0.0) << "H3->H1 kept flowing";
  TB_CHECK(sc.rate(sc.control(), e1 - kMeasure, e1) > 0) << "H5->H2 stalled";
  // The NIC is fixed: no more pauses, and a resume.
  f.stop_pfc_storm(st1);
  f.send_pfc(kHF, 1U << kPrio, 0, f.cycle());
  const auto clear1 = sc.run_until_spread_clear(4 * kPauseCycles);
  TB_CHECK(clear1.has_value()) << "the spread did not clear after the NIC was fixed";
  std::cout << "  NIC fixed at " << e1 << ": spread cleared " << *clear1 - e1 << " cycles later\n";
  f.run_cycles(kMeasure);
  sc.print_rates("fixed", f.cycle() - kMeasure, f.cycle());

  // ---- phase 2: the same storm, watchdog in ignore mode ----
  f.program(kLeaf2, [](drv::Switch& d) {
    d.configure_watchdog_port(kFaultyPort,
                              drv::WatchdogPort{static_cast<std::uint8_t>(1U << kPrio), false});
  });
  const std::uint64_t s2 = f.cycle();
  PfcStormSpec storm2 = storm;
  storm2.start_cycle = s2;
  const unsigned st2 = f.add_pfc_storm(kHF, storm2);
  sc.reset_peak();
  std::optional<std::uint64_t> disabled_at;
  const std::uint64_t limit2 = s2 + (kLimit + 2) * std::uint64_t{kDetect + kRecover} + 1000;
  while (f.cycle() < limit2 && !disabled_at) {
    f.run_cycles(20);
    for (const auto& e : sc.wd_events()) {
      if (e.to == fmt::WdState::kDisabled) {
        disabled_at = e.cycle;
      }
    }
  }
  TB_CHECK(disabled_at.has_value()) << "PFC was not disabled on the faulty port's queue";
  const Spread peak2 = sc.peak();
  const auto clear2 = sc.run_until_spread_clear(4 * kPauseCycles);
  TB_CHECK(clear2.has_value()) << "the spread did not clear after PFC was disabled";
  f.run_cycles(kMeasure);
  const std::uint64_t e2 = f.cycle();
  sc.print_rates("storm, PFC disabled on the faulty queue", e2 - kMeasure, e2);
  for (const unsigned fl : {sc.victim_spine(), sc.victim_host(), sc.control()}) {
    TB_CHECK(sc.rate(fl, e2 - kMeasure, e2) > 0) << "flow " << fl << " stalled after the disable";
  }
  TB_CHECK(f.paused_since(kLeaf2, kFaultyPort, kPrio).has_value())
      << "the storm no longer holds the faulty port in XOFF";

  // The watchdog's steps: detection exactly D after the continuous pause
  // began (the probe sees both one cycle late), RECOVER for R, detection
  // again, DISABLED.
  // After a recovery the watchdog counts from 0 again (white paper: a new
  // round), so a detection is due D after max(pause start, MONITOR entry).
  std::vector<std::uint64_t> detections;
  std::optional<std::uint64_t> recover_at;
  std::optional<std::uint64_t> recover_end;
  std::uint64_t watched_from = s2;
  for (const auto& e : sc.wd_events()) {
    std::cout << "  wd leaf2.p" << kFaultyPort << " -> " << state_name(e.to) << " at " << e.cycle;
    if (e.to != fmt::WdState::kMonitor) {
      TB_CHECK(e.paused_since.has_value()) << "left MONITOR without a pause";
      const std::uint64_t from = std::max(*e.paused_since, watched_from);
      const std::uint64_t lat = e.cycle - from;
      std::cout << " (paused continuously since " << *e.paused_since << ", watched since " << from
                << ": " << lat << " cycles)";
      TB_CHECK(lat + 1 >= kDetect && lat <= kDetect + 1)
          << "detected " << lat << " cycles after the pause began (" << kDetect << " programmed)";
      detections.push_back(e.cycle);
    }
    if (e.to == fmt::WdState::kRecover && !recover_at) {
      recover_at = e.cycle;
    } else if (e.to == fmt::WdState::kMonitor && recover_at && !recover_end) {
      recover_end = e.cycle;
    }
    if (e.to == fmt::WdState::kMonitor) {
      watched_from = e.cycle;
    }
    std::cout << "\n";
  }
  TB_CHECK_EQ(detections.size(), std::size_t{kLimit + 1}) << "detections before the disable";
  TB_CHECK(recover_at && recover_end && *recover_end - *recover_at == kRecover)
      << "recovery did not last " << kRecover << " cycles";
  // During the recovery the faulty queue is not stopped although paused:
  // packets to HF flow.
  const auto& rx_hf = f.received(kHF);
  const auto in_recovery = std::count_if(rx_hf.begin(), rx_hf.end(), [&](const RxPacket& p) {
    return p.first_cycle > *recover_at + 30 && p.first_cycle < *recover_end;
  });
  TB_CHECK(in_recovery > 0) << "nothing reached HF while the watchdog ignored its pauses";
  const std::uint64_t first_detect = detections.front();
  std::cout << "storm with watchdog from " << s2 << ": peak spread " << peak2.switch_queues
            << " switch queues + " << peak2.hosts << " hosts; first detection " << first_detect
            << " (" << first_detect - s2 << " after the storm began), " << in_recovery
            << " packets to HF during the recovery (fewest queues paused then: "
            << sc.recover_min_spread() << "), DISABLED at " << *disabled_at << ", spread cleared "
            << *clear2 - *disabled_at << " cycles after the disable\n";

  // The NIC is fixed; software re-enables PFC on the queue.
  f.stop_pfc_storm(st2);
  f.send_pfc(kHF, 1U << kPrio, 0, f.cycle());
  f.run_cycles(100);
  drv::Switch& l2 = f.driver(kLeaf2);
  TB_CHECK(l2.watchdog_state(kFaultyPort)[kPrio] == fmt::WdState::kDisabled) << "WD_STATUS";
  const std::uint32_t intr = l2.interrupt_status();
  TB_CHECK((intr & 1U) != 0 && (intr & 2U) != 0 && (intr & 4U) != 0)
      << "INTR_STATUS " << intr << ": WD_DETECT, WD_RECOVER, WD_DISABLE expected";
  for (unsigned sw = 0; sw < f.switch_count(); ++sw) {
    if (sw != kLeaf2) {
      TB_CHECK_EQ(f.driver(sw).interrupt_status() & 7U, 0U) << f.switch_name(sw) << " INTR";
    }
  }
  l2.reenable_pfc(kFaultyPort, static_cast<std::uint8_t>(1U << kPrio));
  TB_CHECK(l2.watchdog_state(kFaultyPort)[kPrio] == fmt::WdState::kMonitor)
      << "still DISABLED after reenable_pfc";
  f.run_cycles(kMeasure);
  const std::uint64_t e3 = f.cycle();
  sc.print_rates("fixed, PFC re-enabled", e3 - kMeasure, e3);
  // Pauses may still come and go here: the rate-paced sources catch up on
  // the packets they owe at line rate, which is ordinary congestion. The
  // faulty port is free and watched again, and every flow runs.
  TB_CHECK(!f.paused_since(kLeaf2, kFaultyPort, kPrio).has_value())
      << "the faulty port is still paused after the resume";
  TB_CHECK(f.wd_state(kLeaf2, kFaultyPort, kPrio) == fmt::WdState::kMonitor) << "WD state";
  for (unsigned fl = 0; fl < f.flow_count(); ++fl) {
    TB_CHECK(sc.rate(fl, e3 - kMeasure, e3) > 0) << "flow " << fl << " idle after the fix";
  }
  sc.stop_all();
  TB_CHECK(f.run_until_idle(20'000)) << "the fabric did not drain";

  // Lossless throughout: every flow, to HF too (it sinks all it gets).
  std::vector<unsigned> all;
  for (unsigned fl = 0; fl < f.flow_count(); ++fl) {
    all.push_back(fl);
  }
  const DeliveryReport rep = check_delivery(
      f, all, [&f](unsigned fl) { return unicast_receiver(f, fl); },
      [](unsigned) { return false; });
  TB_CHECK(rep.ok()) << rep;
  const CounterSnapshot snap = f.dump_counters(std::cout);
  std::cout << "counters: " << f.write_counters_file(snap).string() << "\n";
  for (const K k :
       {K::kDropWred, K::kDropNoRoute, K::kDropBadPkt, K::kDropDisabled, K::kDropWd, K::kDropBuf}) {
    TB_CHECK_EQ(snap.total(k), 0U) << fmt::to_string(k) << " in a fabric whose hosts sink all";
  }
  TB_CHECK_EQ(snap.at(kLeaf2, kFaultyPort, kPrio, K::kWdDetect), kLimit + 1);
  TB_CHECK_EQ(snap.at(kLeaf2, kFaultyPort, kPrio, K::kWdRecover), 1U);
  TB_CHECK_EQ(snap.at(kLeaf2, kFaultyPort, kPrio, K::kWdDisable), 1U);
  const PfcStormState& a = f.pfc_storm(st1);
  const PfcStormState& b = f.pfc_storm(st2);
  TB_CHECK_EQ(snap.at(kLeaf2, kFaultyPort, kPrio, K::kPauseRx), a.sent + b.sent)
      << "PAUSE_RX at the faulty port = the storm's frames";
  TB_CHECK_EQ(snap.at(kLeaf2, kFaultyPort, kPrio, K::kResumeRx), 2U) << "the two resumes";
  std::uint64_t sent = 0;
  for (unsigned fl = 0; fl < f.flow_count(); ++fl) {
    sent += f.flow(fl).sent;
  }
  std::cout << "  " << sent << " packets sent, " << rep.delivered << " delivered, 0 dropped; "
            << a.sent + b.sent << " storm frames; pauses sent by the switches "
            << snap.total(K::kPauseTx) << "\n";
  const SpeedStats sp = f.speed();
  std::cout << "speed: " << sp.cycles << " fabric cycles in " << sp.wall_s << " s ("
            << static_cast<std::uint64_t>(sp.cycles_per_s()) << " cycles/s)\n";
  co_return;
}
