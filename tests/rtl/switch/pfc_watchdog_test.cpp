// pfc_watchdog (rtl/switch/) against syncfab::model::PfcWatchdog, both
// written from docs/switch-pfc.md by different people. Every cycle every
// output is compared with the model (also in reset).
//
//   pfc_watchdog.random    per-queue XOFF patterns (held long enough to
//                          deadlock, flickering, cut just before detection),
//                          detect/recover/window including 1 and max, limits
//                          0/1/max, drop mode toggling, enables dropped in
//                          RECOVER, phases with enable_i 0 and zero times
//                          (2^TimeW), reenable pulses in every state, resets;
//                          properties on the RTL alone (ignore = RECOVER or
//                          DISABLED, drop only in RECOVER, pfc_off = DISABLED,
//                          no state 3, events only in their states); a corner
//                          table.
//   pfc_watchdog.directed  hand-worked: detection at exactly detect cycles,
//                          recovery length and the next round, drop mode
//                          latched, disable after limit + 1 deadlocks in a
//                          window, the window's closing cycle, reenable.
//
// Parameters (NumPrio, TimeW, CntW) come from tests/rtl/switch/CMakeLists.txt.
#include <Vpfc_watchdog.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pfc_ports.hpp"
#include "syncfab/model/pfc_watchdog.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::model::PfcWatchdog;
using syncfab::model::PfcWatchdogCycle;
using syncfab::model::PfcWatchdogInputs;
using syncfab::model::PfcWatchdogOutputs;
using syncfab::model::PfcWatchdogParams;
using syncfab::model::WdQueue;
namespace fmt = syncfab::fmt;

namespace {

constexpr unsigned kNumPrio = SF_NUM_PRIO;
constexpr unsigned kTimeW = SF_TIME_W;
constexpr unsigned kCntW = SF_CNT_W;
constexpr std::uint64_t kAll = (std::uint64_t{1} << kNumPrio) - 1;
constexpr std::uint32_t kTimeMax = static_cast<std::uint32_t>((std::uint64_t{1} << kTimeW) - 1);
constexpr std::uint32_t kCntMax = static_cast<std::uint32_t>((std::uint64_t{1} << kCntW) - 1);
constexpr SimTime kPeriod = 10'000;
constexpr PfcWatchdogParams kParams{kNumPrio, kTimeW, kCntW};
constexpr unsigned kMon = 0;
constexpr unsigned kRec = 1;
constexpr unsigned kDis = 2;

std::string show(const PfcWatchdogInputs& s) {
  std::ostringstream os;
  os << std::hex << "enable 0x" << s.enable << " xoff 0x" << s.xoff << " reenable 0x" << s.reenable
     << std::dec << " detect " << s.detect << " recover " << s.recover << " window " << s.window
     << " limit " << s.limit << " drop_mode " << s.drop_mode;
  return os.str();
}

std::string show(const PfcWatchdog& m) {
  std::ostringstream os;
  for (unsigned p = 0; p < kNumPrio; ++p) {
    const WdQueue& q = m.queue(p);
    os << (p ? "; " : "") << p << ": st " << static_cast<unsigned>(q.state) << " cnt " << q.cnt
       << " win " << q.win << (q.win_open ? " open" : " shut") << " dl " << q.dl << " drop "
       << q.drop;
  }
  return os.str();
}

void drive(Vpfc_watchdog& dut, const PfcWatchdogInputs& s) {
  dut.enable_i = s.enable;
  dut.xoff_i = s.xoff;
  dut.detect_i = s.detect;
  dut.recover_i = s.recover;
  dut.drop_mode_i = s.drop_mode;
  dut.window_i = s.window;
  dut.limit_i = s.limit;
  dut.reenable_i = s.reenable;
}

PfcWatchdogOutputs sample(const Vpfc_watchdog& dut) {
  return {dut.ignore_o,     dut.drop_o,        dut.pfc_off_o,    dut.state_o,
          dut.evt_detect_o, dut.evt_recover_o, dut.evt_disable_o};
}

unsigned state_of(const PfcWatchdogOutputs& o, unsigned p) {
  return static_cast<unsigned>(o.state >> (2 * p) & 3U);
}

void compare(const PfcWatchdogOutputs& rtl, const PfcWatchdogOutputs& want,
             const PfcWatchdogInputs& s, const PfcWatchdog& m, std::int64_t cycle, bool in_reset) {
  const auto bad = [&](const char* sig, std::uint64_t r, std::uint64_t w) {
    std::ostringstream os;
    os << "pfc_watchdog mismatch at cycle " << cycle << (in_reset ? " (in reset)" : "") << ": "
       << sig << " RTL 0x" << std::hex << r << ", model 0x" << w << std::dec << "; inputs {"
       << show(s) << "}, model state {" << show(m) << "}";
    TB_FAIL(os.str());
  };
  if (rtl.state != want.state) {
    bad("state_o", rtl.state, want.state);
  }
  if (rtl.ignore != want.ignore) {
    bad("ignore_o", rtl.ignore, want.ignore);
  }
  if (rtl.drop != want.drop) {
    bad("drop_o", rtl.drop, want.drop);
  }
  if (rtl.pfc_off != want.pfc_off) {
    bad("pfc_off_o", rtl.pfc_off, want.pfc_off);
  }
  if (rtl.evt_detect != want.evt_detect) {
    bad("evt_detect_o", rtl.evt_detect, want.evt_detect);
  }
  if (rtl.evt_recover != want.evt_recover) {
    bad("evt_recover_o", rtl.evt_recover, want.evt_recover);
  }
  if (rtl.evt_disable != want.evt_disable) {
    bad("evt_disable_o", rtl.evt_disable, want.evt_disable);
  }
}

Task<> reset(Vpfc_watchdog& dut, Clock& clk, const PfcWatchdogInputs& s) {
  drive(dut, s);
  dut.rst_ni = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
}

class StimGen : public pfc::Picks {
 public:
  explicit StimGen(std::mt19937_64& rng) : Picks(rng, kAll) {}
  // Times >= 1: 1, small, max (narrow widths only: a default-width max would
  // never expire in a run), random.
  std::uint32_t time(std::uint32_t small) {
    switch (pick(6)) {
      case 0:
        return 1;
      case 1:
        return kTimeMax <= 255 ? kTimeMax : any(1, 255);
      case 2:
        return any(1, std::min<std::uint32_t>(kTimeMax, 3));
      default:
        return any(1, std::min(kTimeMax, small));
    }
  }
  std::uint32_t limit() {
    switch (pick(6)) {
      case 0:
        return 0;
      case 1:
        return kCntMax;
      case 2:
        return 1;
      default:
        return any(0, std::min<std::uint32_t>(kCntMax, 4));
    }
  }
};

}  // namespace

SYNCFAB_TEST(pfc_watchdog, random) {
  auto& dut = ctx.make_dut<Vpfc_watchdog>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 300'000);
  PfcWatchdog model(kParams);
  StimGen gen(rng);

  Corners cov("pfc_watchdog.random (NumPrio " + std::to_string(kNumPrio) + ", TimeW " +
              std::to_string(kTimeW) + ", CntW " + std::to_string(kCntW) + ")");
  const auto c_detect = cov.require("deadlock detected");
  const auto c_detect1 = cov.require("deadlock detected with detect 1");
  const auto c_recover = cov.require("recovery ended");
  const auto c_recover1 = cov.require("recovery of 1 cycle ended");
  const auto c_drop = cov.require("recovery in drop mode");
  const auto c_again = cov.require("deadlock again right after a recovery (new round)");
  const auto c_disable = cov.require("PFC disabled (limit exceeded)");
  const auto c_reenable = cov.require("reenabled");
  const auto c_reenable_other = cov.require("reenable pulse outside DISABLED (no effect)");
  const auto c_closed = cov.require("window closed with no deadlock");
  const auto c_reopen = cov.require("deadlock in a window's closing cycle (new window)");
  const auto c_window1 = cov.require("deadlock with window 1");
  // Saturation needs 2^CntW deadlocks in one window: narrow widths only.
  const auto c_sat =
      kCntW <= 4 ? cov.require("deadlock count saturated") : cov.track("deadlock count saturated");
  const auto c_cut = cov.require("XOFF cut one cycle before detection");
  const auto c_en_low_rec = cov.require("enable low in RECOVER");
  const auto c_limit0 = cov.require("deadlock over the count with limit 0 (never disables)");
  // Zero times (legal only while enable_i == 0) act as 2^TimeW: an end is
  // reachable in a run only at narrow widths.
  const bool narrow = kTimeW <= 8;
  const auto c_zero_rec = narrow ? cov.require("recovery ended with recover 0 (2^TimeW cycles)")
                                 : cov.track("recovery ended with recover 0 (2^TimeW cycles)");
  const auto c_zero_win = narrow ? cov.require("window closed with window 0 (2^TimeW cycles)")
                                 : cov.track("window closed with window 0 (2^TimeW cycles)");
  const auto c_zero_phase = cov.require("zero-time phase with a queue in RECOVER");
  const auto c_reset = cov.require("reset mid-run");
  const auto c_reset_state =
      cov.require("reset with a queue off its reset state (count, window, state)");
  const auto when = [&](bool cond, Corners::Id id) {
    if (cond) {
      cov.hit(id);
    }
  };

  std::uniform_int_distribution<std::int64_t> phase_len(200, 5000);
  RandomResets resets(cycles, rng);
  PfcWatchdogInputs s;
  s.enable = kAll;
  std::int64_t phase_end = 0;
  std::array<unsigned, kNumPrio> xoff_mode{};  // 0 held, 1 long runs, 2 flicker
  std::array<std::int64_t, kNumPrio> last_recover{};
  last_recover.fill(-1);
  std::uint32_t small = 8;
  // Zero-time phases: enable_i == 0 and some times 0 (the spec allows it),
  // begun once a queue is in RECOVER so that a recovery and a window run
  // into the zero times.
  bool zero_pending = false;
  bool zero_phase = false;
  PfcWatchdogOutputs prev{};
  bool prev_valid = false;

  co_await reset(dut, clk, s);
  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    const bool in_reset = resets.step(cycle);
    if (resets.started()) {
      cov.hit(c_reset);
      bool busy = false;
      for (unsigned p = 0; p < kNumPrio; ++p) {
        const WdQueue& q = model.queue(p);
        busy = busy || q.state != fmt::WdState::kMonitor || q.win_open || q.cnt != 0;
      }
      when(busy, c_reset_state);
    }
    if (in_reset) {
      model.reset();
    }
    dut.rst_ni = in_reset ? 0 : 1;

    if (cycle >= phase_end) {
      phase_end = cycle + phase_len(rng);
      small = 2 + gen.pick(12);
      s.detect = gen.time(small);
      s.recover = gen.time(small);
      s.window = gen.chance(4) ? gen.time(small) : gen.time(small * 6);
      s.limit = gen.limit();
      s.enable = gen.chance(4) ? gen.mask() : kAll;
      zero_pending = gen.chance(6);
      zero_phase = false;
      for (unsigned p = 0; p < kNumPrio; ++p) {
        xoff_mode[p] = gen.pick(3);
      }
    }
    if (zero_pending) {
      bool recovering = false;
      for (unsigned p = 0; p < kNumPrio; ++p) {
        recovering = recovering || model.queue(p).state == fmt::WdState::kRecover;
      }
      if (recovering) {
        zero_pending = false;
        zero_phase = true;
        s.enable = 0;
        s.detect = gen.chance(2) ? 0 : s.detect;
        s.recover = gen.chance(4) ? s.recover : 0;
        s.window = gen.chance(4) ? s.window : 0;
        phase_end = cycle + 40 + gen.pick(400);
      }
    }
    if (gen.chance(300)) {
      s.drop_mode = !s.drop_mode;
    }
    if (!zero_phase && gen.chance(1500)) {
      s.enable ^= std::uint64_t{1} << gen.pick(kNumPrio);
    }
    if (!zero_phase && gen.chance(1000)) {
      s.detect = gen.time(small);
    }
    if (!zero_phase && gen.chance(1000)) {
      s.window = gen.time(small * 6);
    }
    for (unsigned p = 0; p < kNumPrio; ++p) {
      const std::uint64_t bit = std::uint64_t{1} << p;
      unsigned flip_one_in = 1000;
      switch (xoff_mode[p]) {
        case 0:
          flip_one_in = (s.xoff & bit) != 0 ? 2000 : 3;
          break;
        case 1:
          flip_one_in = static_cast<unsigned>(s.detect) + 1;  // runs around the detect time
          break;
        default:
          flip_one_in = 2;
          break;
      }
      if (gen.chance(flip_one_in)) {
        s.xoff ^= bit;
      }
    }
    // Reenable pulses: often for a disabled queue, now and then anywhere.
    s.reenable = 0;
    for (unsigned p = 0; p < kNumPrio; ++p) {
      const bool disabled = model.queue(p).state == fmt::WdState::kDisabled;
      if (gen.chance(disabled ? 40 : 400)) {
        s.reenable |= std::uint64_t{1} << p;
      }
    }
    drive(dut, s);

    co_await ReadOnly();
    const PfcWatchdogCycle want = model.decide(s);
    const PfcWatchdogOutputs rtl = sample(dut);
    compare(rtl, want.out, s, model, cycle, in_reset);

    // Properties of the RTL alone.
    for (unsigned p = 0; p < kNumPrio; ++p) {
      const std::uint64_t bit = std::uint64_t{1} << p;
      const unsigned st = state_of(rtl, p);
      TB_CHECK(st <= kDis) << "cycle " << cycle << ": state_o[" << p << "] = 3";
      TB_CHECK(((rtl.ignore & bit) != 0) == (st == kRec || st == kDis))
          << "cycle " << cycle << ": ignore_o[" << p << "] is not RECOVER or DISABLED";
      TB_CHECK((rtl.drop & bit) == 0 || st == kRec)
          << "cycle " << cycle << ": drop_o[" << p << "] outside RECOVER";
      TB_CHECK(((rtl.pfc_off & bit) != 0) == (st == kDis))
          << "cycle " << cycle << ": pfc_off_o[" << p << "] is not DISABLED";
      TB_CHECK((rtl.evt_detect & bit) == 0 ||
               (st == kMon && (s.enable & bit) != 0 && (s.xoff & bit) != 0))
          << "cycle " << cycle << ": deadlock declared on " << p
          << " outside MONITOR or without enable and XOFF";
      TB_CHECK((rtl.evt_disable & bit) == 0 || (rtl.evt_detect & bit) != 0)
          << "cycle " << cycle << ": disabled without a deadlock on " << p;
      TB_CHECK((rtl.evt_recover & bit) == 0 || st == kRec)
          << "cycle " << cycle << ": recovery ended outside RECOVER on " << p;
      if (prev_valid && !in_reset && (prev.evt_detect & bit) != 0) {
        const unsigned want_st = (prev.evt_disable & bit) != 0 ? kDis : kRec;
        TB_CHECK(st == want_st) << "cycle " << cycle << ": queue " << p
                                << " not in RECOVER/DISABLED after its deadlock";
      }
    }

    if (!in_reset) {
      for (unsigned p = 0; p < kNumPrio; ++p) {
        const std::uint64_t bit = std::uint64_t{1} << p;
        const WdQueue& q = model.queue(p);
        const bool det = (want.out.evt_detect & bit) != 0;
        when(det, c_detect);
        when(det && s.detect == 1, c_detect1);
        when((want.out.evt_recover & bit) != 0, c_recover);
        when((want.out.evt_recover & bit) != 0 && s.recover == 1, c_recover1);
        when((want.out.drop & bit) != 0, c_drop);
        when(det && last_recover[p] >= 0 && cycle - last_recover[p] == s.detect, c_again);
        when((want.out.evt_disable & bit) != 0, c_disable);
        when((want.reenabled & bit) != 0, c_reenable);
        when((s.reenable & bit) != 0 && q.state != fmt::WdState::kDisabled, c_reenable_other);
        when((want.win_closed & bit) != 0, c_closed);
        when((want.win_reopened & bit) != 0, c_reopen);
        when(det && s.window == 1, c_window1);
        when((want.dl_saturated & bit) != 0, c_sat);
        when(q.state == fmt::WdState::kMonitor && s.detect >= 2 && q.cnt + 2 == s.detect &&
                 (s.enable & bit) != 0 && (s.xoff & bit) == 0,
             c_cut);
        when(q.state == fmt::WdState::kRecover && (s.enable & bit) == 0, c_en_low_rec);
        when(det && s.limit == 0 && want.next[p].dl > 1, c_limit0);
        when((want.out.evt_recover & bit) != 0 && s.recover == 0, c_zero_rec);
        when((want.win_closed & bit) != 0 && s.window == 0, c_zero_win);
        when(zero_phase && q.state == fmt::WdState::kRecover && s.recover == 0, c_zero_phase);
        if ((want.out.evt_recover & bit) != 0) {
          last_recover[p] = cycle;
        }
      }
    } else {
      last_recover.fill(-1);
    }
    prev = rtl;
    prev_valid = !in_reset;

    co_await RisingEdge(clk);
    if (!in_reset) {
      model.step(s);
    }
  }
  std::cout << cov.report();
  cov.check();
}

namespace {

class Bench {
 public:
  Bench(Vpfc_watchdog& dut, Clock& clk) : dut_(dut), clk_(clk), model_(kParams) {}
  PfcWatchdogInputs s;
  Task<PfcWatchdogOutputs> cycle() {
    drive(dut_, s);
    co_await ReadOnly();
    const PfcWatchdogOutputs rtl = sample(dut_);
    compare(rtl, model_.eval(s), s, model_, n_, false);
    co_await RisingEdge(clk_);
    model_.step(s);
    ++n_;
    co_return rtl;
  }
  // Runs n cycles; returns the offsets (0-based) where queue p's event fired.
  template <class Get>
  Task<std::vector<int>> events(int n, unsigned p, Get get) {
    std::vector<int> at;
    for (int c = 0; c < n; ++c) {
      const PfcWatchdogOutputs o = co_await cycle();
      if ((get(o) >> p & 1U) != 0) {
        at.push_back(c);
      }
    }
    co_return at;
  }

 private:
  Vpfc_watchdog& dut_;
  Clock& clk_;
  PfcWatchdog model_;
  std::int64_t n_ = 0;
};

std::string list(const std::vector<int>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    os << (i ? " " : "") << v[i];
  }
  os << "]";
  return os.str();
}

constexpr auto kDetect = [](const PfcWatchdogOutputs& o) { return o.evt_detect; };
constexpr auto kDisable = [](const PfcWatchdogOutputs& o) { return o.evt_disable; };

}  // namespace

// Expectations by hand from the spec. Times fit TimeW >= 4.
SYNCFAB_TEST(pfc_watchdog, directed) {
  auto& dut = ctx.make_dut<Vpfc_watchdog>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  static_assert(kTimeW >= 4 && kCntW >= 2, "the directed times need TimeW >= 4, CntW >= 2");
  const unsigned p = kNumPrio - 1;
  const std::uint64_t bit = std::uint64_t{1} << p;

  // Detection at exactly detect cycles, recovery length, the next round.
  {
    Bench b(dut, clk);
    b.s = {kAll, 0, 5, 3, false, 15, 0, 0};
    co_await reset(dut, clk, b.s);
    co_await b.cycle();
    b.s.xoff = bit;  // held from cycle s = 0 of the run below
    std::vector<PfcWatchdogOutputs> o(20);
    for (auto& x : o) {
      x = co_await b.cycle();
    }
    for (int c = 0; c < 20; ++c) {
      const auto& x = o[static_cast<std::size_t>(c)];
      const bool det = c == 4 || c == 12;  // s + detect - 1, then + recover + detect
      const bool rec = (c >= 5 && c <= 7) || (c >= 13 && c <= 15);
      TB_CHECK(((x.evt_detect & bit) != 0) == det) << "evt_detect at " << c;
      TB_CHECK(((x.ignore & bit) != 0) == rec) << "ignore at " << c;
      TB_CHECK(state_of(x, p) == (rec ? kRec : kMon)) << "state at " << c;
      TB_CHECK(((x.evt_recover & bit) != 0) == (c == 7 || c == 15)) << "evt_recover at " << c;
      TB_CHECK(x.drop == 0 && x.evt_disable == 0) << c;
    }
  }
  // detect 1 declares in the first paused cycle; cut XOFF restarts the count;
  // drop mode latched at entry; enable low in RECOVER does not cut it short.
  {
    Bench b(dut, clk);
    b.s = {kAll, 0, 1, 1, false, 15, 0, 0};
    co_await reset(dut, clk, b.s);
    b.s.xoff = bit;
    auto at = co_await b.events(7, p, kDetect);
    TB_CHECK(at == (std::vector<int>{0, 2, 4, 6})) << "detect 1, recover 1: " << list(at);
    b.s.xoff = 0;
    co_await b.cycle();
    co_await b.cycle();  // back in MONITOR, count 0
    b.s.detect = 4;
    b.s.xoff = bit;
    co_await b.events(3, p, kDetect);
    b.s.xoff = 0;  // cut one cycle before the declaration
    co_await b.cycle();
    b.s.xoff = bit;
    at = co_await b.events(4, p, kDetect);
    TB_CHECK(at == std::vector<int>{3}) << "count restarted after the cut: " << list(at);
    b.s.xoff = 0;
    co_await b.cycle();  // RECOVER (1 cycle)
    co_await b.cycle();  // MONITOR
    b.s.detect = 2;
    b.s.recover = 4;
    b.s.drop_mode = true;
    b.s.xoff = bit;
    at = co_await b.events(2, p, kDetect);
    TB_CHECK(at == std::vector<int>{1}) << "detect 2: " << list(at);
    b.s.drop_mode = false;
    b.s.enable = 0;
    b.s.xoff = 0;
    for (int c = 0; c < 5; ++c) {
      const auto x = co_await b.cycle();
      const bool rec = c < 4;
      TB_CHECK(((x.ignore & bit) != 0) == rec && ((x.drop & bit) != 0) == rec)
          << "recover 4 with drop mode latched at entry, enable low: cycle " << c;
      TB_CHECK(((x.evt_recover & bit) != 0) == (c == 3)) << "evt_recover at " << c;
    }
  }
  // detect 3, recover 2: a held queue deadlocks every 5 cycles. limit 2,
  // window 15: the third deadlock (cycle 12) disables.
  {
    Bench b(dut, clk);
    b.s = {kAll, 0, 3, 2, false, 15, 2, 0};
    co_await reset(dut, clk, b.s);
    b.s.xoff = bit;
    std::vector<int> det;
    std::vector<int> dis;
    for (int c = 0; c < 13; ++c) {
      const auto x = co_await b.cycle();
      if ((x.evt_detect & bit) != 0) {
        det.push_back(c);
      }
      if ((x.evt_disable & bit) != 0) {
        dis.push_back(c);
      }
    }
    TB_CHECK(det == (std::vector<int>{2, 7, 12})) << list(det);
    TB_CHECK(dis == std::vector<int>{12}) << list(dis);
    // Cycle 13: DISABLED; reenable there: MONITOR from 14, the window (opened
    // in 2, it would close in 17) cleared, so the deadlock in 16 counts 1 of
    // a new window: RECOVER, not DISABLED again.
    b.s.reenable = bit;
    auto x = co_await b.cycle();
    TB_CHECK(state_of(x, p) == kDis && (x.pfc_off & bit) != 0 && (x.ignore & bit) != 0 &&
             (x.drop & bit) == 0)
        << "DISABLED after the third deadlock";
    b.s.reenable = 0;
    x = co_await b.cycle();
    TB_CHECK(state_of(x, p) == kMon && x.ignore == 0 && x.pfc_off == 0);
    x = co_await b.cycle();
    TB_CHECK(x.evt_detect == 0);
    x = co_await b.cycle();
    TB_CHECK((x.evt_detect & bit) != 0 && x.evt_disable == 0)
        << "the deadlock 3 cycles after reenable starts a new window";
    x = co_await b.cycle();
    TB_CHECK(state_of(x, p) == kRec);
  }
  // limit 1: the second deadlock 5 cycles after the first disables iff it is
  // inside the window. window 5: it falls in the closing cycle of the first
  // window and opens a new one (count 1), forever; window 6: disabled.
  for (const std::uint32_t window : {5U, 6U}) {
    Bench b(dut, clk);
    b.s = {kAll, 0, 3, 2, false, window, 1, 0};
    co_await reset(dut, clk, b.s);
    b.s.xoff = bit;
    const auto det = co_await b.events(30, p, kDetect);
    b.s.xoff = 0;
    if (window == 5) {
      TB_CHECK(det == (std::vector<int>{2, 7, 12, 17, 22, 27})) << list(det);
    } else {
      TB_CHECK(det == (std::vector<int>{2, 7})) << list(det);
    }
  }
  // A window that closes without a deadlock resets the count: limit 1,
  // window 8, deadlocks 9 cycles apart never disable; 7 apart do.
  for (const int gap : {9, 7}) {
    Bench b(dut, clk);
    b.s = {kAll, 0, 2, 1, false, 8, 1, 0};
    co_await reset(dut, clk, b.s);
    std::vector<int> dis;
    for (int round = 0; round < 3; ++round) {
      b.s.xoff = bit;
      auto d = co_await b.events(2, p, kDisable);  // deadlock in the 2nd cycle
      for (const int c : d) {
        dis.push_back(round * 100 + c);
      }
      b.s.xoff = 0;
      d = co_await b.events(gap - 2, p, kDisable);
      for (const int c : d) {
        dis.push_back(round * 100 + 2 + c);
      }
    }
    if (gap == 9) {
      TB_CHECK(dis.empty()) << "deadlocks 9 cycles apart, window 8: " << list(dis);
    } else {
      TB_CHECK(dis == std::vector<int>{101}) << "deadlocks 7 cycles apart, window 8: " << list(dis);
    }
  }
}
