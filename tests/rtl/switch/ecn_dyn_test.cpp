// ecn_dyn (rtl/switch/ecn_dyn.sv) against hand sequences from
// docs/switch-ecn-dynamic.md: the worked example of section 8 window by
// window (the effective values and the state in every cycle), its clamp
// cases, the law off, and a queue of another output and priority that must
// not move.
//
// Parameters of the verilated model (tests/rtl/switch/CMakeLists.txt):
// NumOut 2, NumIn 8 (NUM_PORTS 8 as in the example), NumPrio 8, the
// register widths of section 6.
#include <Vecn_dyn.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <span>
#include <sstream>
#include <string>

#include "pfc_ports.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::tb::pfc::field;
using syncfab::tb::pfc::pack;

namespace {

constexpr unsigned kOut = 2;
constexpr unsigned kPrio = 8;
constexpr unsigned kQueues = kOut * kPrio;
constexpr unsigned kQLenW = 16;
constexpr unsigned kProbW = 8;
constexpr unsigned kShW = 3;
constexpr unsigned kActW = 8;
constexpr unsigned kInW = 8;
constexpr SimTime kPeriod = 10'000;

// The queue of the example: queue 3 of output 1 (index o * kPrio + q).
constexpr unsigned kO = 1;
constexpr unsigned kQ = 3;
constexpr unsigned kIdx = kO * kPrio + kQ;

struct Config {
  std::uint8_t en = 0;
  std::uint8_t win = 10;
  std::uint8_t fan_sh = 7;
  std::uint16_t qref = 64;
  std::uint8_t plo = 0;
  std::uint8_t phi = 255;
  std::uint8_t pup = 8;
  std::uint8_t pdn = 8;
};

struct Inputs {
  std::array<std::uint16_t, kQueues> ks_min{};
  std::array<std::uint16_t, kQueues> ks_max{};
  std::array<std::uint8_t, kQueues> ps{};
  std::array<std::uint16_t, kQueues> qlen{};
  std::array<std::uint8_t, kQueues> enq{};
  std::array<std::uint8_t, kOut> pause{};
};

struct Out {
  unsigned ke_min;
  unsigned ke_max;
  unsigned pe;
  unsigned sh;
  unsigned active;
};

class Bench {
 public:
  Bench(Vecn_dyn& d, Clock& c) : dut(d), clk(c) {}

  void drive() {
    dut.en_i = cfg.en;
    dut.win_i = cfg.win;
    dut.fan_sh_i = cfg.fan_sh;
    dut.qref_i = cfg.qref;
    dut.plo_i = cfg.plo;
    dut.phi_i = cfg.phi;
    dut.pup_i = cfg.pup;
    dut.pdn_i = cfg.pdn;
    pack(dut.ks_min_i, std::span<const std::uint16_t>(in.ks_min), kQLenW);
    pack(dut.ks_max_i, std::span<const std::uint16_t>(in.ks_max), kQLenW);
    pack(dut.ps_i, std::span<const std::uint8_t>(in.ps), kProbW);
    pack(dut.qlen_i, std::span<const std::uint16_t>(in.qlen), kQLenW);
    pack(dut.enq_i, std::span<const std::uint8_t>(in.enq), kInW);
    pack(dut.pause_i, std::span<const std::uint8_t>(in.pause), kPrio);
  }

  [[nodiscard]] Out out(unsigned idx) const {
    return Out{static_cast<unsigned>(field(dut.ke_min_o, idx, kQLenW)),
               static_cast<unsigned>(field(dut.ke_max_o, idx, kQLenW)),
               static_cast<unsigned>(field(dut.pe_o, idx, kProbW)),
               static_cast<unsigned>(field(dut.sh_o, idx, kShW)),
               static_cast<unsigned>(field(dut.active_o, idx, kActW))};
  }

  Task<> reset() {
    drive();
    dut.rst_ni = 0;
    co_await ClockCycles(clk, 2);
    dut.rst_ni = 1;
    t = 0;
  }

  // Runs cycle t with the current inputs; returns the queue's values in
  // cycle t + 1 (after the edge that ends t). The measured inputs go back to
  // idle afterwards.
  Task<Out> cycle() {
    drive();
    co_await RisingEdge(clk);
    co_await ReadOnly();
    ++t;
    in.enq.fill(0);
    in.pause.fill(0);
    co_return out(kIdx);
  }

  Vecn_dyn& dut;
  Clock& clk;
  Config cfg;
  Inputs in;
  unsigned t = 0;  // the cycle the next cycle() runs (win_cnt's value then)
};

std::uint8_t mask_of(std::initializer_list<unsigned> ports) {
  unsigned m = 0;
  for (const unsigned p : ports) {
    m |= 1U << p;
  }
  return static_cast<std::uint8_t>(m);
}

std::string show(const Out& o) {
  std::ostringstream os;
  os << "Ke_min " << o.ke_min << ", Ke_max " << o.ke_max << ", Pe " << o.pe << ", sh " << o.sh
     << ", active " << o.active;
  return os.str();
}

bool same(const Out& a, const Out& b) {
  return a.ke_min == b.ke_min && a.ke_max == b.ke_max && a.pe == b.pe && a.sh == b.sh &&
         a.active == b.active;
}

// The example's static registers and globals (section 8), law off.
void example_setup(Bench& b) {
  b.cfg = Config{
      .en = 0, .win = 4, .fan_sh = 1, .qref = 48, .plo = 16, .phi = 200, .pup = 24, .pdn = 4};
  b.in = Inputs{};
  b.in.ks_min.fill(64);
  b.in.ks_max.fill(512);
  b.in.ps.fill(32);
}

// One window of the example, cycles b.t .. last: per cycle the queue length
// and the enqueue mask (qlen_of, enq_of); the values of the window before
// must hold until its end, then `after` applies from the next cycle.
template <class QlenOf, class EnqOf, class PauseOf>
Task<> window(Bench& b, unsigned last, QlenOf qlen_of, EnqOf enq_of, PauseOf pause_of, Out before,
              Out after, std::string what) {
  while (b.t <= last) {
    const unsigned t = b.t;
    b.in.qlen[kIdx] = qlen_of(t);
    b.in.enq[kIdx] = enq_of(t);
    b.in.pause[kO] = pause_of(t) ? static_cast<std::uint8_t>(1U << kQ) : std::uint8_t{0};
    const Out o = co_await b.cycle();
    const Out& want = t == last ? after : before;
    TB_CHECK(same(o, want)) << what << ": cycle " << t + 1 << " shows {" << show(o)
                            << "}, expected {" << show(want) << "}";
  }
}

}  // namespace

// Section 8's table, window by window, with the status values of section 6
// (ACTIVE = n of the last window) and the other queues static.
SYNCFAB_TEST(ecn_dyn, worked_example) {
  auto& dut = ctx.make_dut<Vecn_dyn>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench b(dut, clk);
  example_setup(b);
  // Another queue of the same priority on output 0 with its own static
  // values and no traffic, and queue 2 of output 1 (law off).
  b.in.ks_min[kQ] = 100;
  b.in.ks_max[kQ] = 300;
  b.in.ps[kQ] = 7;
  co_await b.reset();
  const auto none = [](unsigned) { return false; };
  // Cycle 0, law off: P takes Ps = 32.
  Out o = co_await b.cycle();
  TB_CHECK(same(o, Out{64, 512, 32, 0, 0})) << "law off: static, " << show(o);
  b.cfg.en = 0x08;
  // Window 0 (1..15): enq from {0, 1, 2, 4, 6}, qlen 10..70.
  co_await window(
      b, 15, [](unsigned t) { return static_cast<std::uint16_t>(t == 9 ? 70 : 10 + 3 * (t - 1)); },
      [](unsigned t) {
        constexpr std::array<unsigned, 5> kIn{0, 1, 2, 4, 6};
        return mask_of({kIn[t % 5]});
      },
      none, Out{64, 512, 32, 0, 0}, Out{32, 256, 56, 1, 5}, "window 0");
  // Window 1 (16..31): port 5 only, qlen 0 at cycle 20, max 20.
  co_await window(
      b, 31,
      [](unsigned t) { return static_cast<std::uint16_t>(t == 20 ? 0 : (t == 25 ? 20 : 5)); },
      [](unsigned t) { return t == 18 ? mask_of({5}) : std::uint8_t{0}; }, none,
      Out{32, 256, 56, 1, 5}, Out{64, 512, 52, 0, 1}, "window 1");
  // Window 2 (32..47): every port, qlen max 48 (= QREF: not above).
  co_await window(
      b, 47, [](unsigned t) { return static_cast<std::uint16_t>(t == 40 ? 48 : 12); },
      [](unsigned t) { return mask_of({t % 8}); }, none, Out{64, 512, 52, 0, 1},
      Out{16, 128, 52, 2, 8}, "window 2");
  // Window 3 (48..63): nothing enqueued, qlen 0: n = 0 holds.
  co_await window(
      b, 63, [](unsigned) { return std::uint16_t{0}; }, [](unsigned) { return std::uint8_t{0}; },
      none, Out{16, 128, 52, 2, 8}, Out{64, 512, 52, 0, 0}, "window 3");
  // Window 4 (64..79): ports {3, 7}, qlen 0 at 64, max 30, a pause at 70.
  co_await window(
      b, 79,
      [](unsigned t) { return static_cast<std::uint16_t>(t == 64 ? 0 : (t == 75 ? 30 : 9)); },
      [](unsigned t) {
        return t == 66 ? mask_of({3}) : (t == 79 ? mask_of({7}) : std::uint8_t{0});
      },
      [](unsigned t) { return t == 70; }, Out{64, 512, 52, 0, 0}, Out{64, 512, 52, 0, 2},
      "window 4");
  // Window 5 (80..95): ports {0..3}, qlen max 400.
  co_await window(
      b, 95, [](unsigned t) { return static_cast<std::uint16_t>(t == 95 ? 400 : 50); },
      [](unsigned t) { return mask_of({t % 4}); }, none, Out{64, 512, 52, 0, 2},
      Out{32, 256, 76, 1, 4}, "window 5");
  // The queues without the law (output 0's queue 3 has the law on but no
  // traffic: shift 0, its P walked from its Ps by nothing but clamps).
  const Out q2 = b.out(kO * kPrio + 2);
  TB_CHECK(same(q2, Out{64, 512, 32, 0, 0})) << "queue 2 (law off): " << show(q2);
  const Out other = b.out(kQ);
  TB_CHECK(other.ke_min == 100 && other.ke_max == 300 && other.sh == 0 && other.active == 0)
      << "output 0 queue 3: " << show(other);
  // Law off again: static, no shift, no active inputs.
  b.cfg.en = 0;
  o = co_await b.cycle();
  TB_CHECK(same(o, Out{64, 512, 32, 0, 0})) << "law off: " << show(o);
}

// The clamp cases of section 8: P = 190 above QREF -> 214 -> PHI 200;
// P = 18 empty with n = 3 -> 14 -> PLO 16; P = 2, PDN 4 -> 0 -> PLO 16. P
// starts from Ps (the law off for one cycle), the first window is partial.
SYNCFAB_TEST(ecn_dyn, clamps) {
  auto& dut = ctx.make_dut<Vecn_dyn>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench b(dut, clk);
  struct Case {
    std::uint8_t ps;
    bool above;
    std::uint8_t want;
  };
  for (const Case c : {Case{190, true, 200}, Case{18, false, 16}, Case{2, false, 16}}) {
    example_setup(b);
    b.in.ps[kIdx] = c.ps;
    co_await b.reset();
    co_await b.cycle();  // law off in cycle 0: P = Ps
    b.cfg.en = 0x08;
    const unsigned ports = c.above ? 1 : 3;
    co_await window(
        b, 15,
        [&c](unsigned t) { return static_cast<std::uint16_t>(c.above ? 49 : (t == 4 ? 0 : 5)); },
        [ports](unsigned t) { return static_cast<std::uint8_t>(1U << (t % ports)); },
        [](unsigned) { return false; }, Out{64, 512, c.ps, 0, 0}, Out{64, 512, c.want, 0, ports},
        "clamp from P " + std::to_string(c.ps));
  }
}

// Window length follows WIN as it is: the law runs at win_cnt's low WIN bits
// all ones (WIN 5: cycles 31, 63), and the queue's accumulators start over
// after each end; reset restarts the window counter.
SYNCFAB_TEST(ecn_dyn, window_length) {
  auto& dut = ctx.make_dut<Vecn_dyn>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench b(dut, clk);
  example_setup(b);
  b.cfg.win = 5;
  b.cfg.en = 0x08;
  b.in.ps[kIdx] = 100;
  co_await b.reset();
  // From reset the law is on: P starts at its reset value 0, not at Ps.
  // Above QREF in window 0 only: 0 + 24 = 24.
  co_await window(
      b, 31, [](unsigned t) { return static_cast<std::uint16_t>(t == 3 ? 60 : 1); },
      [](unsigned) { return mask_of({2}); }, [](unsigned) { return false; }, Out{64, 512, 0, 0, 0},
      Out{64, 512, 24, 0, 1}, "WIN 5, window 0");
  // Window 1 (32..63): never above, never empty: hold.
  co_await window(
      b, 63, [](unsigned) { return std::uint16_t{1}; },
      [](unsigned t) {
        return t == 40 ? mask_of({0, 1}) : std::uint8_t{0};
      },
      [](unsigned) { return false; }, Out{64, 512, 24, 0, 1}, Out{64, 512, 24, 0, 2},
      "WIN 5, window 1");
}

// The law switched on for a queue mid-window (section 2): queue 2 keeps the
// window counter running from reset, queue 3 is switched on in cycle 6. Its
// first window is the rest of the running one (cycles 6..15, WIN 4): it ends
// with queue 2's at cycle 15, starts from Ps, and counts only the inputs
// that enqueued from cycle 6 on (port 5 before, while off, does not count).
SYNCFAB_TEST(ecn_dyn, on_mid_window) {
  auto& dut = ctx.make_dut<Vecn_dyn>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench b(dut, clk);
  example_setup(b);
  b.cfg.en = 0x04;
  co_await b.reset();
  const Out off{64, 512, 32, 0, 0};
  while (b.t < 6) {
    b.in.qlen[kIdx] = 1;
    b.in.enq[kIdx] = mask_of({5});
    const Out o = co_await b.cycle();
    TB_CHECK(same(o, off)) << "queue 3 off: cycle " << b.t << " shows {" << show(o) << "}";
  }
  b.cfg.en = 0x0C;
  co_await window(
      b, 15, [](unsigned t) { return static_cast<std::uint16_t>(t == 10 ? 49 : 1); },
      [](unsigned t) { return t == 8 ? mask_of({1}) : std::uint8_t{0}; },
      [](unsigned) { return false; }, off, Out{64, 512, 56, 0, 1}, "queue 3 on from cycle 6");
}
