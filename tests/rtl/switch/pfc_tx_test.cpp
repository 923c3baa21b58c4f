// pfc_tx (rtl/switch/) against syncfab::model::PfcTx, both written from
// docs/switch-pfc.md by different people. Every cycle every output is
// compared with the model (also in reset).
//
//   pfc_tx.random     occupancies ramping up and down through the thresholds
//                     (dwelling at them), thresholds with XON < XOFF, XON >
//                     XOFF, equal, 0 and max, refresh 0/1/small/max, frame
//                     backpressure in several modes, enables toggled while
//                     paused, quanta changed while a frame waits, resets;
//                     properties checked on the RTL alone (pause one edge
//                     after the crossing, class bits never withdrawn while
//                     waiting, no empty frame, xoff off one edge after
//                     disabling, events = sent classes); a corner table.
//   pfc_tx.directed   hand-worked: pause at the crossing, resume below XON,
//                     hysteresis at XON, backpressure with a flip to resume,
//                     the refresh interval (R+1 cycles, steps 3-5).
//
// Parameters (NumPrio, OccW, RefW) come from tests/rtl/switch/CMakeLists.txt.
#include <Vpfc_tx.h>

#include <array>
#include <bit>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pfc_ports.hpp"
#include "syncfab/model/pfc_tx.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::model::PfcTx;
using syncfab::model::PfcTxCycle;
using syncfab::model::PfcTxInputs;
using syncfab::model::PfcTxOutputs;
using syncfab::model::PfcTxParams;
using syncfab::tb::pfc::field;
using syncfab::tb::pfc::pack;

namespace {

constexpr unsigned kNumPrio = SF_NUM_PRIO;
constexpr unsigned kOccW = SF_OCC_W;
constexpr unsigned kRefW = SF_REF_W;
constexpr std::uint64_t kAll = (std::uint64_t{1} << kNumPrio) - 1;
constexpr std::uint32_t kOccMax = static_cast<std::uint32_t>((std::uint64_t{1} << kOccW) - 1);
constexpr std::uint32_t kRefMax = static_cast<std::uint32_t>((std::uint64_t{1} << kRefW) - 1);
constexpr SimTime kPeriod = 10'000;
constexpr PfcTxParams kParams{kNumPrio, kOccW, kRefW};

struct Stim {
  std::uint64_t enable = 0;
  std::array<std::uint32_t, kNumPrio> occ{};
  std::array<std::uint32_t, kNumPrio> xoff_thr{};
  std::array<std::uint32_t, kNumPrio> xon_thr{};
  std::array<std::uint16_t, kNumPrio> quanta{};
  std::uint32_t refresh = 0;
  bool ready = false;

  Stim() { quanta.fill(1); }
  [[nodiscard]] PfcTxInputs in() const {
    return {enable, occ, xoff_thr, xon_thr, quanta, refresh, ready};
  }
};

template <class A>
std::string list(const A& a) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < a.size(); ++i) {
    os << (i ? " " : "") << a[i];
  }
  os << "]";
  return os.str();
}

std::string show(const Stim& s) {
  std::ostringstream os;
  os << "enable 0x" << std::hex << s.enable << std::dec << " ready " << s.ready << " refresh "
     << s.refresh << " occ " << list(s.occ) << " xoff_thr " << list(s.xoff_thr) << " xon_thr "
     << list(s.xon_thr) << " quanta " << list(s.quanta);
  return os.str();
}

std::string show(const PfcTx& m) {
  std::ostringstream os;
  os << "xoff_q 0x" << std::hex << m.xoff() << " pend_q 0x" << m.pend() << std::dec << " ref_q [";
  for (unsigned p = 0; p < kNumPrio; ++p) {
    os << (p ? " " : "") << m.ref(p);
  }
  os << "]";
  return os.str();
}

void drive(Vpfc_tx& dut, const Stim& s) {
  dut.enable_i = s.enable;
  pack(dut.occ_i, std::span<const std::uint32_t>(s.occ), kOccW);
  pack(dut.xoff_thr_i, std::span<const std::uint32_t>(s.xoff_thr), kOccW);
  pack(dut.xon_thr_i, std::span<const std::uint32_t>(s.xon_thr), kOccW);
  pack(dut.quanta_i, std::span<const std::uint16_t>(s.quanta), 16);
  dut.refresh_i = s.refresh;
  dut.frame_ready_i = s.ready;
}

PfcTxOutputs sample(const Vpfc_tx& dut) {
  PfcTxOutputs o;
  o.frame_valid = dut.frame_valid_o != 0;
  o.class_enable = dut.frame_class_enable_o;
  for (unsigned p = 0; p < kNumPrio; ++p) {
    o.frame_quanta[p] = static_cast<std::uint16_t>(field(dut.frame_quanta_o, p, 16));
  }
  o.xoff = dut.xoff_o;
  o.evt_xoff_tx = dut.evt_xoff_tx_o;
  o.evt_xon_tx = dut.evt_xon_tx_o;
  return o;
}

// Every output, one by one: the first that differs names the signal.
void compare(const PfcTxOutputs& rtl, const PfcTxOutputs& want, const Stim& s, const PfcTx& m,
             std::int64_t cycle, bool in_reset) {
  std::ostringstream os;
  const auto bad = [&](const char* sig, std::uint64_t r, std::uint64_t w) {
    os << "pfc_tx mismatch at cycle " << cycle << (in_reset ? " (in reset)" : "") << ": " << sig
       << " RTL 0x" << std::hex << r << ", model 0x" << w << std::dec << "; inputs {" << show(s)
       << "}, model state {" << show(m) << "}";
    TB_FAIL(os.str());
  };
  if (rtl.frame_valid != want.frame_valid) {
    bad("frame_valid_o", rtl.frame_valid, want.frame_valid);
  }
  if (rtl.class_enable != want.class_enable) {
    bad("frame_class_enable_o", rtl.class_enable, want.class_enable);
  }
  for (unsigned p = 0; p < kNumPrio; ++p) {
    if (rtl.frame_quanta[p] != want.frame_quanta[p]) {
      const std::string sig = "frame_quanta_o[" + std::to_string(p) + "]";
      bad(sig.c_str(), rtl.frame_quanta[p], want.frame_quanta[p]);
    }
  }
  if (rtl.xoff != want.xoff) {
    bad("xoff_o", rtl.xoff, want.xoff);
  }
  if (rtl.evt_xoff_tx != want.evt_xoff_tx) {
    bad("evt_xoff_tx_o", rtl.evt_xoff_tx, want.evt_xoff_tx);
  }
  if (rtl.evt_xon_tx != want.evt_xon_tx) {
    bad("evt_xon_tx_o", rtl.evt_xon_tx, want.evt_xon_tx);
  }
}

Task<> reset(Vpfc_tx& dut, Clock& clk, const Stim& s) {
  drive(dut, s);
  dut.rst_ni = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
}

class StimGen : public pfc::Picks {
 public:
  explicit StimGen(std::mt19937_64& rng) : Picks(rng, kAll) {}

  // XON below XOFF mostly; XON above, equal, 0 and the top too.
  void thresholds(Stim& s, unsigned p) {
    const std::uint32_t a = any(0, kOccMax);
    const std::uint32_t b = any(0, kOccMax);
    switch (pick(8)) {
      case 0:
        s.xoff_thr[p] = std::min(a, b);
        s.xon_thr[p] = std::max(a, b);  // XON > XOFF (or equal)
        break;
      case 1:
        s.xoff_thr[p] = s.xon_thr[p] = a;
        break;
      case 2:
        s.xoff_thr[p] = chance(2) ? 0 : kOccMax;
        s.xon_thr[p] = chance(2) ? 0 : b;
        break;
      default:
        s.xoff_thr[p] = std::max(a, b);
        s.xon_thr[p] = std::min(a, b);
        break;
    }
  }
  std::uint32_t refresh() {
    switch (pick(6)) {
      case 0:
        return 0;
      case 1:
        return 1;
      case 2:
        return kRefMax;
      case 3:
        return any(1, std::min<std::uint32_t>(kRefMax, 40));
      default:
        return any(2, std::min<std::uint32_t>(kRefMax, 8));
    }
  }
  std::uint16_t quanta() {
    switch (pick(4)) {
      case 0:
        return 1;
      case 1:
        return 0xFFFF;
      default:
        return static_cast<std::uint16_t>(any(1, 0xFFFF));
    }
  }
};

}  // namespace

SYNCFAB_TEST(pfc_tx, random) {
  auto& dut = ctx.make_dut<Vpfc_tx>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 300'000);
  PfcTx model(kParams);
  StimGen gen(rng);

  Corners cov("pfc_tx.random (NumPrio " + std::to_string(kNumPrio) + ", OccW " +
              std::to_string(kOccW) + ", RefW " + std::to_string(kRefW) + ")");
  const auto c_pause = cov.require("pause sent (evt_xoff_tx)");
  const auto c_resume = cov.require("resume sent (evt_xon_tx)");
  const auto c_refresh = cov.require("pause re-sent by refresh while held");
  const auto c_due_waiting = cov.require("refresh due while p's frame waits (no stack)");
  // Saturation needs 2^RefW - 1 cycles of a held pause: narrow widths only.
  const auto c_ref_sat = kRefW <= 8 ? cov.require("ref at all ones (saturated)")
                                    : cov.track("ref at all ones (saturated)");
  const auto c_flip = cov.require("pending p flips back before leaving");
  const auto c_flip_sent = cov.require("pause pending, sent as resume");
  const auto c_bp = cov.require("frame waiting (ready low)", 10);
  const auto c_multi = cov.require("frame with 2+ classes sent");
  const auto c_xon_gt = cov.require("paused with XON > XOFF");
  const auto c_equal = cov.require("crossing with XON == XOFF");
  const auto c_at_xoff = cov.require("crossing at occ == XOFF");
  const auto c_at_xon = cov.require("held at occ == XON");
  const auto c_disable = cov.require("disabled while paused");
  const auto c_quanta_change = cov.require("quanta changed while a pause waits");
  const auto c_occ_max = cov.require("occ at max");
  const auto c_reset = cov.require("reset mid-run");
  const auto c_reset_paused = cov.require("reset while paused");
  const auto when = [&](bool cond, Corners::Id id) {
    if (cond) {
      cov.hit(id);
    }
  };

  std::uniform_int_distribution<std::int64_t> phase_len(50, 4000);
  RandomResets resets(cycles, rng);
  Stim s;
  s.enable = kAll;
  for (unsigned p = 0; p < kNumPrio; ++p) {
    gen.thresholds(s, p);
    s.quanta[p] = gen.quanta();
  }
  std::array<int, kNumPrio> dir{};
  std::array<std::uint32_t, kNumPrio> speed{};
  std::array<bool, kNumPrio> held_since_pause{};
  std::array<std::uint16_t, kNumPrio> quanta_waiting{};
  std::int64_t phase_end = 0;
  unsigned ready_mode = 0;
  PfcTxOutputs prev{};
  Stim prev_s;
  bool prev_valid = false;  // prev/prev_s hold a cycle out of reset

  co_await reset(dut, clk, s);
  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    const bool in_reset = resets.step(cycle);
    if (resets.started()) {
      cov.hit(c_reset);
      when(model.xoff() != 0, c_reset_paused);
    }
    if (in_reset) {
      model.reset();
    }
    dut.rst_ni = in_reset ? 0 : 1;

    if (cycle >= phase_end) {
      phase_end = cycle + phase_len(rng);
      ready_mode = gen.pick(5);
      s.refresh = gen.refresh();
      s.enable = gen.chance(3) ? gen.mask() : kAll;
      for (unsigned p = 0; p < kNumPrio; ++p) {
        gen.thresholds(s, p);
        speed[p] = 1 + gen.pick(std::max<unsigned>(1, kOccMax / 64 + 1));
        dir[p] = gen.chance(2) ? 1 : -1;
      }
    }
    // Occupancy ramps, turning at the ends, at random, and near thresholds.
    for (unsigned p = 0; p < kNumPrio; ++p) {
      if (gen.chance(400)) {
        gen.thresholds(s, p);
      }
      if (gen.chance(300)) {
        s.quanta[p] = gen.quanta();
      }
      if (gen.chance(3)) {
        continue;  // dwell
      }
      const std::int64_t next =
          static_cast<std::int64_t>(s.occ[p]) + dir[p] * std::int64_t{speed[p]};
      if (next <= 0 || next >= kOccMax) {
        s.occ[p] = next <= 0 ? 0 : kOccMax;
        dir[p] = -dir[p];
      } else {
        s.occ[p] = static_cast<std::uint32_t>(next);
        const bool near = s.occ[p] + 1 >= s.xoff_thr[p] && s.occ[p] <= s.xoff_thr[p] + 1;
        const bool near_on = s.occ[p] + 1 >= s.xon_thr[p] && s.occ[p] <= s.xon_thr[p] + 1;
        if (gen.chance(near || near_on ? 4 : 200)) {
          dir[p] = -dir[p];
        }
      }
    }
    if (gen.chance(2000)) {
      s.enable ^= std::uint64_t{1} << gen.pick(kNumPrio);
    }
    switch (ready_mode) {
      case 0:
        s.ready = true;
        break;
      case 1:
        s.ready = gen.chance(2);
        break;
      case 2:
        s.ready = gen.chance(30) ? !s.ready : s.ready;
        break;
      case 3:
        s.ready = !gen.chance(6);
        break;
      default:
        s.ready = gen.chance(20);  // a slow link
        break;
    }
    drive(dut, s);

    co_await ReadOnly();
    const PfcTxInputs in = s.in();
    const PfcTxCycle want = model.decide(in);
    const PfcTxOutputs rtl = sample(dut);
    compare(rtl, want.out, s, model, cycle, in_reset);

    // Properties of the RTL alone (the previous cycle was out of reset and
    // no reset hit the edge between).
    TB_CHECK(!rtl.frame_valid || rtl.class_enable != 0)
        << "cycle " << cycle << ": a frame with no class bit";
    const std::uint64_t sent_rtl = rtl.frame_valid && s.ready ? rtl.class_enable : 0;
    TB_CHECK((rtl.evt_xoff_tx | rtl.evt_xon_tx) == sent_rtl &&
             (rtl.evt_xoff_tx & rtl.evt_xon_tx) == 0)
        << "cycle " << cycle << ": events do not name the classes of the frame sent";
    if (prev_valid && !in_reset) {
      for (unsigned p = 0; p < kNumPrio; ++p) {
        const std::uint64_t bit = std::uint64_t{1} << p;
        const bool en = (prev_s.enable & bit) != 0;
        if ((prev.xoff & bit) == 0 && en && prev_s.occ[p] >= prev_s.xoff_thr[p]) {
          TB_CHECK(rtl.frame_valid && (rtl.class_enable & bit) != 0 && (rtl.xoff & bit) != 0)
              << "cycle " << cycle << ": XOFF crossing of priority " << p
              << " in the previous cycle, no pause frame at this edge";
        }
        if (!en) {
          TB_CHECK((rtl.xoff & bit) == 0)
              << "cycle " << cycle << ": xoff_o[" << p << "] one cycle after it was disabled";
        }
      }
      if (prev.frame_valid && !prev_s.ready) {
        TB_CHECK(rtl.frame_valid && (rtl.class_enable & prev.class_enable) == prev.class_enable)
            << "cycle " << cycle << ": class bits withdrawn while the frame waited";
      }
    }

    if (!in_reset) {
      for (unsigned p = 0; p < kNumPrio; ++p) {
        const std::uint64_t bit = std::uint64_t{1} << p;
        const bool xoff_q = (model.xoff() & bit) != 0;
        const bool pend_q = (model.pend() & bit) != 0;
        const bool sent = (want.sent & bit) != 0;
        const bool xoff_d = (want.xoff_d & bit) != 0;
        when((want.out.evt_xoff_tx & bit) != 0, c_pause);
        when((want.out.evt_xon_tx & bit) != 0, c_resume);
        when((want.out.evt_xoff_tx & bit) != 0 && held_since_pause[p], c_refresh);
        when((want.due & bit) != 0 && pend_q && !sent, c_due_waiting);
        when(xoff_q && model.ref(p) == kRefMax, c_ref_sat);
        when(pend_q && !sent && xoff_d != xoff_q, c_flip);
        when(pend_q && !xoff_q && quanta_waiting[p] != 0 && sent, c_flip_sent);
        when(xoff_q && s.xon_thr[p] > s.xoff_thr[p], c_xon_gt);
        when(!xoff_q && xoff_d && s.xon_thr[p] == s.xoff_thr[p], c_equal);
        when(!xoff_q && xoff_d && s.occ[p] == s.xoff_thr[p], c_at_xoff);
        when(xoff_q && xoff_d && (s.enable & bit) != 0 && s.occ[p] == s.xon_thr[p], c_at_xon);
        when(xoff_q && (s.enable & bit) == 0, c_disable);
        when(pend_q && !sent && quanta_waiting[p] != 0 &&
                 quanta_waiting[p] != want.out.frame_quanta[p] && want.out.frame_quanta[p] != 0,
             c_quanta_change);
        when(s.occ[p] == kOccMax, c_occ_max);
        // Bookkeeping for the corners above.
        if ((want.out.evt_xoff_tx & bit) != 0) {
          held_since_pause[p] = true;
        }
        if (!xoff_d) {
          held_since_pause[p] = false;
        }
        quanta_waiting[p] = pend_q && !sent ? want.out.frame_quanta[p] : 0;
        if (!pend_q) {
          quanta_waiting[p] = 0;
        }
      }
      when(want.out.frame_valid && !s.ready, c_bp);
      when(std::popcount(want.sent) >= 2, c_multi);
    } else {
      held_since_pause.fill(false);
      quanta_waiting.fill(0);
    }
    prev = rtl;
    prev_s = s;
    prev_valid = !in_reset;

    co_await RisingEdge(clk);
    if (!in_reset) {
      model.step(in);
    }
  }
  std::cout << cov.report();
  cov.check();
}

namespace {

// One cycle of a directed test: drive, compare with the model, return what
// the RTL showed, clock both.
class Bench {
 public:
  Bench(Vpfc_tx& dut, Clock& clk) : dut_(dut), clk_(clk), model_(kParams) {}
  Stim s;
  Task<PfcTxOutputs> cycle() {
    drive(dut_, s);
    co_await ReadOnly();
    const PfcTxOutputs rtl = sample(dut_);
    compare(rtl, model_.eval(s.in()), s, model_, n_, false);
    co_await RisingEdge(clk_);
    model_.step(s.in());
    ++n_;
    co_return rtl;
  }
  [[nodiscard]] std::int64_t now() const { return n_; }

 private:
  Vpfc_tx& dut_;
  Clock& clk_;
  PfcTx model_;
  std::int64_t n_ = 0;
};

}  // namespace

// Expectations by hand from the spec (the model is compared as well, but the
// checks below are the spec's numbers).
SYNCFAB_TEST(pfc_tx, directed) {
  auto& dut = ctx.make_dut<Vpfc_tx>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  static_assert(kOccW >= 4, "the directed thresholds need occupancies up to 12");
  Bench b(dut, clk);
  b.s.xoff_thr.fill(10);
  b.s.xon_thr.fill(5);
  b.s.quanta.fill(0x1234);
  b.s.ready = true;
  const unsigned p = kNumPrio - 1;
  const std::uint64_t bit = std::uint64_t{1} << p;
  co_await reset(dut, clk, b.s);

  // Pause at the crossing: occ reaches XOFF in cycle t, the frame is valid
  // in t+1 (taken at once, ready high), xoff_o from t+1.
  b.s.enable = bit;
  b.s.occ[p] = 9;
  auto o = co_await b.cycle();
  TB_CHECK(!o.frame_valid && o.xoff == 0);
  b.s.occ[p] = 10;
  o = co_await b.cycle();
  TB_CHECK(!o.frame_valid && o.xoff == 0) << "registered: no frame in the crossing cycle";
  b.s.occ[p] = 7;
  o = co_await b.cycle();
  TB_CHECK(o.frame_valid && o.class_enable == bit && o.frame_quanta[p] == 0x1234 && o.xoff == bit &&
           o.evt_xoff_tx == bit && o.evt_xon_tx == 0)
      << "pause frame in the cycle after the crossing";
  // Held between XON and XOFF and at XON itself (not below): nothing sent.
  for (const std::uint32_t occ : {7U, 5U, 5U, 6U}) {
    b.s.occ[p] = occ;
    o = co_await b.cycle();
    TB_CHECK(!o.frame_valid && o.xoff == bit) << "occ " << occ;
  }
  // Resume below XON, one cycle later.
  b.s.occ[p] = 4;
  o = co_await b.cycle();
  TB_CHECK(!o.frame_valid && o.xoff == bit);
  o = co_await b.cycle();
  TB_CHECK(o.frame_valid && o.class_enable == bit && o.frame_quanta[p] == 0 && o.xoff == 0 &&
           o.evt_xon_tx == bit && o.evt_xoff_tx == 0)
      << "resume frame one cycle after occ fell below XON";
  o = co_await b.cycle();
  TB_CHECK(!o.frame_valid);

  // Backpressure: the pause waits; it flips back to resume before leaving
  // and goes out with quanta 0.
  b.s.ready = false;
  b.s.occ[p] = 12;
  co_await b.cycle();
  for (int i = 0; i < 3; ++i) {
    o = co_await b.cycle();
    TB_CHECK(o.frame_valid && o.class_enable == bit && o.frame_quanta[p] == 0x1234 &&
             o.evt_xoff_tx == 0 && o.evt_xon_tx == 0);
  }
  b.s.occ[p] = 0;
  o = co_await b.cycle();
  TB_CHECK(o.frame_quanta[p] == 0x1234) << "state flips at the edge ending this cycle";
  o = co_await b.cycle();
  TB_CHECK(o.frame_valid && o.class_enable == bit && o.frame_quanta[p] == 0 && o.xoff == 0);
  b.s.ready = true;
  o = co_await b.cycle();
  TB_CHECK(o.evt_xon_tx == bit && o.evt_xoff_tx == 0);
  o = co_await b.cycle();
  TB_CHECK(!o.frame_valid);

  // Refresh R = 3 (fits RefW >= 2): a pause sent in cycle c restarts ref at
  // the edge; ref is 0..2 in c+1..c+3, due in c+3 (ref >= R-1), the refresh
  // leaves in c+4 and, being the frame sent, is not due again (step 3's
  // !sent): one frame every R+1 cycles.
  b.s.refresh = 3;
  b.s.occ[p] = 11;
  co_await b.cycle();  // crossing
  std::vector<std::int64_t> sent;
  const std::int64_t first = b.now();
  for (int i = 0; i < 16; ++i) {
    o = co_await b.cycle();
    if ((o.evt_xoff_tx & bit) != 0) {
      sent.push_back(b.now() - 1 - first);
    }
  }
  TB_CHECK(sent == (std::vector<std::int64_t>{0, 4, 8, 12}))
      << "pause frames at cycles " << list(sent) << " after the first";
  // Disabling a paused priority resumes the peer one edge later.
  b.s.enable = 0;
  o = co_await b.cycle();
  TB_CHECK(o.xoff == bit);
  o = co_await b.cycle();
  TB_CHECK(o.xoff == 0 && o.frame_valid && o.class_enable == bit && o.evt_xon_tx == bit);
}
