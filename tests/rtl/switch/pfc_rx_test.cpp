// pfc_rx (rtl/switch/) against syncfab::model::PfcRx, both written from
// docs/switch-pfc.md by different people. Every cycle every output is
// compared with the model (also in reset).
//
//   pfc_rx.random     random frames (class bits incl. none and all, quanta 0,
//                     small, random and 0xFFFF), cycles per quantum 1/small/
//                     max, enables toggled under running timers, ignore runs,
//                     resets; properties on the RTL alone (stop = xoff and not
//                     ignore, events = taken classes by quanta, a pause taken
//                     shows xoff at the next edge, a disabled p has no xoff
//                     one edge later); a corner table.
//   pfc_rx.directed   hand-worked: q x cpq cycles of xoff, a frame replacing
//                     a running timer (shorter, longer, resume), disabled
//                     classes, ignore masking only stop.
//
// Parameters (NumPrio, CpqW) come from tests/rtl/switch/CMakeLists.txt.
#include <Vpfc_rx.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "pfc_ports.hpp"
#include "syncfab/model/pfc_rx.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::model::PfcRx;
using syncfab::model::PfcRxCycle;
using syncfab::model::PfcRxInputs;
using syncfab::model::PfcRxOutputs;
using syncfab::model::PfcRxParams;
using syncfab::tb::pfc::pack;

namespace {

constexpr unsigned kNumPrio = SF_NUM_PRIO;
constexpr unsigned kCpqW = SF_CPQ_W;
constexpr std::uint64_t kAll = (std::uint64_t{1} << kNumPrio) - 1;
constexpr std::uint32_t kCpqMax = static_cast<std::uint32_t>((std::uint64_t{1} << kCpqW) - 1);
constexpr SimTime kPeriod = 10'000;
constexpr PfcRxParams kParams{kNumPrio, kCpqW};

struct Stim {
  std::uint64_t enable = 0;
  std::uint32_t cpq = 1;
  bool frame_valid = false;
  std::uint64_t class_enable = 0;
  std::array<std::uint16_t, kNumPrio> quanta{};
  std::uint64_t ignore = 0;

  [[nodiscard]] PfcRxInputs in() const {
    return {enable, cpq, frame_valid, class_enable, quanta, ignore};
  }
};

std::string show(const Stim& s) {
  std::ostringstream os;
  os << "enable 0x" << std::hex << s.enable << " ignore 0x" << s.ignore << std::dec << " cpq "
     << s.cpq << " frame_valid " << s.frame_valid << " class 0x" << std::hex << s.class_enable
     << std::dec << " quanta [";
  for (unsigned p = 0; p < kNumPrio; ++p) {
    os << (p ? " " : "") << s.quanta[p];
  }
  os << "]";
  return os.str();
}

std::string show(const PfcRx& m) {
  std::ostringstream os;
  os << "timer_q [";
  for (unsigned p = 0; p < kNumPrio; ++p) {
    os << (p ? " " : "") << m.timer(p);
  }
  os << "]";
  return os.str();
}

void drive(Vpfc_rx& dut, const Stim& s) {
  dut.enable_i = s.enable;
  dut.cyc_per_quantum_i = s.cpq;
  dut.frame_valid_i = s.frame_valid;
  dut.frame_class_enable_i = s.class_enable;
  pack(dut.frame_quanta_i, std::span<const std::uint16_t>(s.quanta), 16);
  dut.ignore_i = s.ignore;
}

PfcRxOutputs sample(const Vpfc_rx& dut) {
  return {dut.xoff_o, dut.stop_o, dut.evt_xoff_rx_o, dut.evt_xon_rx_o};
}

void compare(const PfcRxOutputs& rtl, const PfcRxOutputs& want, const Stim& s, const PfcRx& m,
             std::int64_t cycle, bool in_reset) {
  const auto bad = [&](const char* sig, std::uint64_t r, std::uint64_t w) {
    std::ostringstream os;
    os << "pfc_rx mismatch at cycle " << cycle << (in_reset ? " (in reset)" : "") << ": " << sig
       << " RTL 0x" << std::hex << r << ", model 0x" << w << std::dec << "; inputs {" << show(s)
       << "}, model state {" << show(m) << "}";
    TB_FAIL(os.str());
  };
  if (rtl.xoff != want.xoff) {
    bad("xoff_o", rtl.xoff, want.xoff);
  }
  if (rtl.stop != want.stop) {
    bad("stop_o", rtl.stop, want.stop);
  }
  if (rtl.evt_xoff_rx != want.evt_xoff_rx) {
    bad("evt_xoff_rx_o", rtl.evt_xoff_rx, want.evt_xoff_rx);
  }
  if (rtl.evt_xon_rx != want.evt_xon_rx) {
    bad("evt_xon_rx_o", rtl.evt_xon_rx, want.evt_xon_rx);
  }
}

Task<> reset(Vpfc_rx& dut, Clock& clk, const Stim& s) {
  drive(dut, s);
  dut.rst_ni = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
}

class StimGen : public pfc::Picks {
 public:
  explicit StimGen(std::mt19937_64& rng) : Picks(rng, kAll) {}
  std::uint32_t cpq() {
    switch (pick(5)) {
      case 0:
        return 1;
      case 1:
        return kCpqMax;
      default:
        return any(1, std::min<std::uint32_t>(kCpqMax, 4));
    }
  }
  // Mostly short pauses so that timers run out between frames.
  std::uint16_t quanta() {
    switch (pick(10)) {
      case 0:
      case 1:
      case 2:
        return 0;
      case 3:
        return 0xFFFF;
      case 4:
        return static_cast<std::uint16_t>(any(1, 0xFFFF));
      default:
        return static_cast<std::uint16_t>(any(1, 12));
    }
  }
  std::uint64_t classes() {
    switch (pick(6)) {
      case 0:
        return 0;
      case 1:
        return kAll;
      case 2:
        return std::uint64_t{1} << pick(kNumPrio);
      default:
        return mask();
    }
  }
};

}  // namespace

SYNCFAB_TEST(pfc_rx, random) {
  auto& dut = ctx.make_dut<Vpfc_rx>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 300'000);
  PfcRx model(kParams);
  StimGen gen(rng);

  Corners cov("pfc_rx.random (NumPrio " + std::to_string(kNumPrio) + ", CpqW " +
              std::to_string(kCpqW) + ")");
  const auto c_pause = cov.require("pause taken on an idle priority");
  const auto c_replace_short = cov.require("frame replacing a running timer (shorter)");
  const auto c_replace_long = cov.require("frame replacing a running timer (longer)");
  const auto c_resume_running = cov.require("resume (quanta 0) on a running timer");
  const auto c_resume_idle = cov.require("resume on an idle priority");
  const auto c_expire = cov.require("timer ran out (xoff falls without a frame)");
  const auto c_expire_long = cov.require("pause of 256+ quanta ran out (quiet phase)");
  const auto c_disabled_frame = cov.require("frame class for a disabled priority (ignored)");
  const auto c_disable_running = cov.require("disabled with a running timer (cleared)");
  const auto c_ignore = cov.require("xoff masked by ignore (stop low)");
  const auto c_stop = cov.require("stop high");
  const auto c_no_class = cov.require("frame with no class bit");
  const auto c_all_class = cov.require("frame with every class bit, all enabled");
  const auto c_cpq_max = cov.require("pause taken with cpq max");
  const auto c_q_max = cov.require("pause taken with quanta 0xFFFF");
  const auto c_reset = cov.require("reset mid-run");
  const auto c_reset_running = cov.require("reset with a running timer");
  const auto when = [&](bool cond, Corners::Id id) {
    if (cond) {
      cov.hit(id);
    }
  };

  std::uniform_int_distribution<std::int64_t> phase_len(50, 3000);
  RandomResets resets(cycles, rng);
  Stim s;
  s.enable = kAll;
  std::int64_t phase_end = 0;
  unsigned frame_one_in = 8;  // 0: a quiet phase, no frames, long pauses run out
  bool quiet = false;
  int phase_no = 0;
  bool long_pause = false;
  std::array<std::uint16_t, kNumPrio> start_q{};  // quanta of each running pause
  PfcRxOutputs prev{};
  Stim prev_s;
  bool prev_valid = false;

  co_await reset(dut, clk, s);
  // Besides the random resets: one now and then shortly after a quiet
  // phase's long pauses were taken, so that a reset meets running timers.
  std::int64_t forced_reset = -1;
  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    const bool forced = cycle == forced_reset || cycle == forced_reset + 1;
    if (cycle == forced_reset + 2) {
      long_pause = true;  // the quiet phase goes on with fresh long pauses
    }
    const bool in_reset = resets.step(cycle) || forced;
    if (resets.started() || cycle == forced_reset) {
      cov.hit(c_reset);
      bool running = false;
      for (unsigned p = 0; p < kNumPrio; ++p) {
        running = running || model.timer(p) != 0;
      }
      when(running, c_reset_running);
    }
    if (in_reset) {
      model.reset();
    }
    dut.rst_ni = in_reset ? 0 : 1;

    if (cycle >= phase_end) {
      // A quiet phase opens with one long pause on every class (at most
      // 0xFFFF x 1 cycles) and then takes no frames until they all ran out.
      quiet = phase_no == 1 || gen.chance(10);  // at least one per run
      ++phase_no;
      phase_end = cycle + (quiet ? 66'000 : phase_len(rng));
      frame_one_in = quiet ? 0 : 1 + gen.pick(40);
      if (quiet && gen.chance(2)) {
        forced_reset = cycle + 100;
      }
      s.cpq = gen.cpq();
      s.enable = gen.chance(3) ? gen.mask() : kAll;
      long_pause = quiet;
    }
    if (!quiet && gen.chance(500)) {
      s.enable ^= std::uint64_t{1} << gen.pick(kNumPrio);
    }
    if (gen.chance(50)) {
      s.cpq = gen.cpq();
    }
    if (gen.chance(20)) {
      s.ignore = gen.chance(2) ? 0 : gen.mask();
    }
    s.frame_valid = frame_one_in != 0 && gen.chance(frame_one_in);
    s.class_enable = gen.classes();
    for (unsigned p = 0; p < kNumPrio; ++p) {
      s.quanta[p] = gen.quanta();
    }
    if (long_pause) {
      s.frame_valid = true;
      s.class_enable = kAll;
      s.enable = kAll;
      const bool top = gen.chance(2);
      s.cpq = top ? 1 : gen.any(1, std::min<std::uint32_t>(3, kCpqMax));
      for (unsigned p = 0; p < kNumPrio; ++p) {
        s.quanta[p] = top && gen.chance(2) ? std::uint16_t{0xFFFF}
                                           : static_cast<std::uint16_t>(gen.any(256, 0x3FFF));
      }
      long_pause = false;
    }
    drive(dut, s);

    co_await ReadOnly();
    const PfcRxInputs in = s.in();
    const PfcRxCycle want = model.decide(in);
    const PfcRxOutputs rtl = sample(dut);
    compare(rtl, want.out, s, model, cycle, in_reset);

    // Properties of the RTL alone.
    TB_CHECK(rtl.stop == (rtl.xoff & ~s.ignore))
        << "cycle " << cycle << ": stop_o is not xoff_o && !ignore_i";
    std::uint64_t nonzero = 0;
    for (unsigned p = 0; p < kNumPrio; ++p) {
      nonzero |= s.quanta[p] != 0 ? std::uint64_t{1} << p : 0;
    }
    const std::uint64_t taken = s.frame_valid ? s.class_enable & s.enable : 0;
    TB_CHECK(rtl.evt_xoff_rx == (taken & nonzero) && rtl.evt_xon_rx == (taken & ~nonzero))
        << "cycle " << cycle << ": events do not name the taken classes";
    if (prev_valid && !in_reset) {
      const std::uint64_t prev_taken = prev_s.frame_valid ? prev_s.class_enable & prev_s.enable : 0;
      std::uint64_t prev_nonzero = 0;
      for (unsigned p = 0; p < kNumPrio; ++p) {
        prev_nonzero |= prev_s.quanta[p] != 0 ? std::uint64_t{1} << p : 0;
      }
      TB_CHECK((rtl.xoff & prev_taken & prev_nonzero) == (prev_taken & prev_nonzero))
          << "cycle " << cycle << ": a pause taken last cycle does not show on xoff_o";
      TB_CHECK((rtl.xoff & prev_taken & ~prev_nonzero) == 0)
          << "cycle " << cycle << ": a resume taken last cycle left xoff_o high";
      TB_CHECK((rtl.xoff & ~prev_s.enable) == 0)
          << "cycle " << cycle << ": xoff_o high one edge after the priority was disabled";
    }

    if (!in_reset) {
      for (unsigned p = 0; p < kNumPrio; ++p) {
        const std::uint64_t bit = std::uint64_t{1} << p;
        const bool hit = (want.hit & bit) != 0;
        const std::uint64_t t = model.timer(p);
        const std::uint64_t len = std::uint64_t{s.quanta[p]} * s.cpq;
        when(hit && t == 0 && len != 0, c_pause);
        when(hit && t > 1 && len != 0 && len < t - 1, c_replace_short);
        when(hit && t != 0 && len > t, c_replace_long);
        when(hit && t != 0 && len == 0, c_resume_running);
        when(hit && t == 0 && len == 0, c_resume_idle);
        when(!hit && t == 1 && (s.enable & bit) != 0, c_expire);
        when(!hit && t == 1 && (s.enable & bit) != 0 && start_q[p] >= 256, c_expire_long);
        if (hit) {
          start_q[p] = s.quanta[p];
        }
        when(s.frame_valid && (s.class_enable & bit) != 0 && (s.enable & bit) == 0,
             c_disabled_frame);
        when(t > 1 && (s.enable & bit) == 0, c_disable_running);
        when(t != 0 && (s.ignore & bit) != 0, c_ignore);
        when((want.out.stop & bit) != 0, c_stop);
        when(hit && len != 0 && s.cpq == kCpqMax, c_cpq_max);
        when(hit && s.quanta[p] == 0xFFFF, c_q_max);
      }
      when(s.frame_valid && s.class_enable == 0, c_no_class);
      when(s.frame_valid && s.class_enable == kAll && s.enable == kAll, c_all_class);
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

class Bench {
 public:
  Bench(Vpfc_rx& dut, Clock& clk) : dut_(dut), clk_(clk), model_(kParams) {}
  Stim s;
  // One cycle with or without a frame; the frame is taken at this edge.
  Task<PfcRxOutputs> cycle(bool frame = false, std::uint64_t classes = 0) {
    s.frame_valid = frame;
    s.class_enable = classes;
    drive(dut_, s);
    co_await ReadOnly();
    const PfcRxOutputs rtl = sample(dut_);
    compare(rtl, model_.eval(s.in()), s, model_, n_, false);
    co_await RisingEdge(clk_);
    model_.step(s.in());
    ++n_;
    co_return rtl;
  }
  // Cycles with xoff bit p high, counted from the next cycle until it falls.
  Task<int> high_cycles(unsigned p) {
    int n = 0;
    for (;;) {
      const PfcRxOutputs o = co_await cycle();
      if ((o.xoff >> p & 1U) == 0) {
        co_return n;
      }
      ++n;
    }
  }

 private:
  Vpfc_rx& dut_;
  Clock& clk_;
  PfcRx model_;
  std::int64_t n_ = 0;
};

}  // namespace

SYNCFAB_TEST(pfc_rx, directed) {
  auto& dut = ctx.make_dut<Vpfc_rx>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench b(dut, clk);
  b.s.enable = kAll;
  co_await reset(dut, clk, b.s);
  const unsigned p = kNumPrio - 1;
  const std::uint64_t bit = std::uint64_t{1} << p;

  // q x cpq cycles of xoff from the edge ending the receiving cycle.
  for (const auto& [q, cpq] : {std::pair<std::uint16_t, std::uint32_t>{5, 3},
                               {1, 1},
                               {1, kCpqMax},
                               {7, 1},
                               {40, std::min<std::uint32_t>(2, kCpqMax)},
                               {0xFFFF, 3}}) {
    b.s.cpq = cpq;
    b.s.quanta[p] = q;
    const PfcRxOutputs o = co_await b.cycle(true, bit);
    TB_CHECK(o.xoff == 0 && o.evt_xoff_rx == bit && o.evt_xon_rx == 0);
    const int n = co_await b.high_cycles(p);
    TB_CHECK(n == static_cast<int>(q * cpq))
        << "xoff held " << n << " cycles for q " << q << " x cpq " << cpq;
  }

  // A frame replaces the running time: 10 cycles, after 3 a frame of 2.
  b.s.cpq = 1;
  b.s.quanta[p] = 10;
  co_await b.cycle(true, bit);
  co_await b.cycle();
  co_await b.cycle();
  b.s.quanta[p] = 2;
  PfcRxOutputs o = co_await b.cycle(true, bit);
  TB_CHECK(o.xoff == bit && o.evt_xoff_rx == bit);
  int n = co_await b.high_cycles(p);
  TB_CHECK(n == 2) << "a shorter frame replaces (not adds): " << n;
  b.s.quanta[p] = 3;
  co_await b.cycle(true, bit);
  co_await b.cycle();
  b.s.quanta[p] = 20;
  co_await b.cycle(true, bit);
  n = co_await b.high_cycles(p);
  TB_CHECK(n == 20) << "a longer frame replaces: " << n;
  b.s.quanta[p] = 50;
  co_await b.cycle(true, bit);
  co_await b.cycle();
  b.s.quanta[p] = 0;
  o = co_await b.cycle(true, bit);
  TB_CHECK(o.xoff == bit && o.evt_xon_rx == bit && o.evt_xoff_rx == 0);
  o = co_await b.cycle();
  TB_CHECK(o.xoff == 0) << "resume ends the pause at the next edge";

  // Disabled priorities: frames ignored, a running timer cleared.
  b.s.quanta.fill(4);
  b.s.enable = kAll & ~std::uint64_t{1};
  o = co_await b.cycle(true, kAll);
  TB_CHECK(o.evt_xoff_rx == (kAll & ~std::uint64_t{1}) && o.evt_xon_rx == 0);
  o = co_await b.cycle();
  TB_CHECK(o.xoff == (kAll & ~std::uint64_t{1}));
  b.s.enable = 1;
  o = co_await b.cycle();
  TB_CHECK(o.xoff == (kAll & ~std::uint64_t{1}));
  o = co_await b.cycle();
  TB_CHECK(o.xoff == 0) << "disabling clears the timers at the next edge";

  // Ignore masks stop only; the timer runs on.
  b.s.enable = kAll;
  b.s.cpq = 1;
  b.s.quanta[p] = 6;
  co_await b.cycle(true, bit);
  for (int i = 0; i < 6; ++i) {
    b.s.ignore = i < 3 ? bit : 0;
    o = co_await b.cycle();
    TB_CHECK(o.xoff == bit && o.stop == (i < 3 ? 0 : bit)) << "cycle " << i << " of the pause";
  }
  b.s.ignore = 0;
  o = co_await b.cycle();
  TB_CHECK(o.xoff == 0 && o.stop == 0);
}
