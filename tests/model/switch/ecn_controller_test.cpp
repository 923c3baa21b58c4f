// EcnController against docs/switch-ecn-dynamic.md: the worked example of §8
// cycle by cycle, the clamps, the law switched off and on, the register
// refusals of §6, and a seeded random run against a reference that keeps
// every sample of a window and applies §4 to them at its end.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <syncfab/test/seeds.hpp>
#include "syncfab/model/ecn_controller.hpp"

namespace syncfab::model {
namespace {

using syncfab::test::replay_command;
using syncfab::test::seeds;

EcnDynConfig example_config() {
  EcnDynConfig c;
  c.enable = 0x08;
  c.win = 4;
  c.fan_sh = 1;
  c.qref = 48;
  c.plo = 16;
  c.phi = 200;
  c.pup = 24;
  c.pdn = 4;
  return c;
}

const WredConfig kStatic{true, 64, 512, 32};

// Drives one controller cycle by cycle from cycle 0.
struct Driver {
  EcnDynConfig cfg = example_config();
  WredConfig stat = kStatic;
  EcnController c;
  std::uint64_t cycle = 0;
  void step(bool on, EcnCtrlInputs in) {
    c.step(on, EcnController::window_end(cycle, cfg.win), cfg, in, stat);
    ++cycle;
  }
  // Cycles up to and including `last`, qlen from `q(t)`, enqueues from
  // `enq(t)`, a pause in cycle `pause_at`.
  template <class Q, class E>
  void run_to(std::uint64_t last, Q q, E enq, std::uint64_t pause_at = ~std::uint64_t{0}) {
    while (cycle <= last) {
      step(true, EcnCtrlInputs{q(cycle), enq(cycle), cycle == pause_at});
    }
  }
  [[nodiscard]] WredConfig eff() const { return c.effective(true, stat); }
};

void expect_eff(const Driver& d, std::uint32_t kmin, std::uint32_t kmax, std::uint32_t pmax) {
  const WredConfig e = d.eff();
  EXPECT_EQ(e.kmin, kmin) << "cycle " << d.cycle;
  EXPECT_EQ(e.kmax, kmax) << "cycle " << d.cycle;
  EXPECT_EQ(e.pmax, pmax) << "cycle " << d.cycle;
  EXPECT_TRUE(e.enable);
}

TEST(EcnController, WorkedExample) {
  Driver d;
  d.step(false, {});  // cycle 0: law off, P takes Ps
  EXPECT_EQ(d.c.level(), 32U);
  expect_eff(d, 64, 512, 32);
  const auto none = [](std::uint64_t) { return std::uint64_t{0}; };
  // Window 0 (1..15): ports {0,1,2,4,6}, qlen 10..70, never 0.
  d.run_to(
      14, [](std::uint64_t t) { return static_cast<std::uint32_t>(10 + (t - 1) * 4); },
      [](std::uint64_t t) {
        return std::uint64_t{1} << std::vector<int>{0, 1, 2, 4, 6}[t % 5];
      });
  expect_eff(d, 64, 512, 32);  // nothing moves before the window's end
  d.step(true, {70, 0, false});
  expect_eff(d, 32, 256, 56);
  EXPECT_EQ(d.c.active_last(), 5U);
  EXPECT_EQ(d.c.status_k(true, d.stat), 0x0100'0020U);
  EXPECT_EQ(d.c.status_state(true, d.stat), 0x0005'0138U);
  // Window 1 (16..31): port 5 only, qlen 0 at cycle 20, max 20.
  d.run_to(
      31, [](std::uint64_t t) { return t == 20 ? 0U : static_cast<std::uint32_t>(t - 11); },
      [](std::uint64_t) { return std::uint64_t{1} << 5; });
  expect_eff(d, 64, 512, 52);
  EXPECT_EQ(d.c.active_last(), 1U);
  // Window 2 (32..47): every port, qlen max 48 (= QREF: no raise), never 0.
  d.run_to(
      47, [](std::uint64_t t) { return static_cast<std::uint32_t>(t + 1); },
      [](std::uint64_t t) { return std::uint64_t{1} << (t % 8); });
  expect_eff(d, 16, 128, 52);
  EXPECT_EQ(d.c.shift(), 2U);
  // Window 3 (48..63): nothing enqueued, queue empty: n = 0 holds.
  d.run_to(
      63, [](std::uint64_t) { return 0U; }, none);
  expect_eff(d, 64, 512, 52);
  EXPECT_EQ(d.c.active_last(), 0U);
  // Window 4 (64..79): ports {3,7}, empty at 64, max 30, a pause at 70.
  d.run_to(
      79, [](std::uint64_t t) { return static_cast<std::uint32_t>(t == 64 ? 0 : 30); },
      [](std::uint64_t t) { return std::uint64_t{1} << (t % 2 == 0 ? 3 : 7); }, 70);
  expect_eff(d, 64, 512, 52);
  EXPECT_EQ(d.c.active_last(), 2U);
  // Window 5 (80..95): ports 0..3, max 400.
  d.run_to(
      95, [](std::uint64_t t) { return t == 90 ? 400U : 100U; },
      [](std::uint64_t t) { return std::uint64_t{1} << (t % 4); });
  expect_eff(d, 32, 256, 76);
}

TEST(EcnController, ClampsAtBounds) {
  struct Case {
    std::uint32_t ps;      // level taken while off
    std::uint32_t qlen;    // held over the window
    std::uint32_t expect;  // level after the window
  };
  // Window of 16 from cycle 0 with the level Ps taken at the off cycle 15
  // (the window end at 15 is then spent off), so the run is cycles 16..31.
  for (const Case k : {Case{190, 100, 200}, Case{18, 0, 16}, Case{2, 0, 16}, Case{250, 10, 200},
                       Case{5, 10, 16}}) {
    SCOPED_TRACE("Ps " + std::to_string(k.ps) + " qlen " + std::to_string(k.qlen));
    Driver d;
    d.stat.pmax = k.ps;
    while (d.cycle < 16) {
      d.step(false, {});
    }
    EXPECT_EQ(d.c.level(), k.ps);
    d.run_to(
        31, [&](std::uint64_t) { return k.qlen; }, [](std::uint64_t) { return std::uint64_t{7}; });
    EXPECT_EQ(d.c.level(), k.expect);
  }
}

TEST(EcnController, OffPassesStaticAndRestartsFromIt) {
  Driver d;
  d.step(false, {});
  d.run_to(
      15, [](std::uint64_t) { return 500U; }, [](std::uint64_t) { return std::uint64_t{0xFF}; });
  expect_eff(d, 16, 128, 56);
  // Off: the static values, whatever the state; the status words follow.
  const WredConfig off = d.c.effective(false, d.stat);
  EXPECT_EQ(off.kmin, 64U);
  EXPECT_EQ(off.kmax, 512U);
  EXPECT_EQ(off.pmax, 32U);
  d.stat.pmax = 40;
  d.step(false, {500, 0xFF, true});
  EXPECT_EQ(d.c.level(), 40U);
  EXPECT_EQ(d.c.shift(), 0U);
  EXPECT_EQ(d.c.active_last(), 0U);
  EXPECT_EQ(d.c.status_k(false, d.stat), 64U | 512U << 16);
  EXPECT_EQ(d.c.status_state(false, d.stat), 40U);
  // Back on mid-window (cycle 17): the first window ends at 31 and only
  // holds what came after the switch.
  d.run_to(
      31, [](std::uint64_t) { return 20U; }, [](std::uint64_t) { return std::uint64_t{1}; });
  expect_eff(d, 64, 512, 40);
  EXPECT_EQ(d.c.active_last(), 1U);
}

TEST(EcnController, WindowEndAndLog) {
  EXPECT_TRUE(EcnController::window_end(15, 4));
  EXPECT_FALSE(EcnController::window_end(16, 4));
  EXPECT_TRUE(EcnController::window_end(1023, 10));
  EXPECT_FALSE(EcnController::window_end(1023, 11));
  // The 20-bit counter wraps: cycle 2^20 is window cycle 0 again.
  EXPECT_TRUE(EcnController::window_end((std::uint64_t{1} << 20) - 1, 20));
  EXPECT_FALSE(EcnController::window_end(std::uint64_t{1} << 20, 4));
  EXPECT_TRUE(EcnController::window_end((std::uint64_t{1} << 20) + 15, 4));
  EXPECT_EQ(EcnController::floor_log2(0), 0U);
  EXPECT_EQ(EcnController::floor_log2(1), 0U);
  EXPECT_EQ(EcnController::floor_log2(3), 1U);
  EXPECT_EQ(EcnController::floor_log2(16), 4U);
  EXPECT_EQ(EcnController::floor_log2(255), 7U);
}

TEST(EcnController, RefusedRegisterValues) {
  const EcnDynConfig ok = example_config();
  EXPECT_TRUE(EcnDynConfig::ctrl_write_ok(ok.ctrl_word()));
  EXPECT_TRUE(EcnDynConfig::pmax_write_ok(ok.pmax_word()));
  EXPECT_NO_THROW(ok.validate());
  for (const unsigned win : {0U, 3U, 21U, 31U}) {
    EcnDynConfig c = ok;
    c.win = win;
    EXPECT_FALSE(EcnDynConfig::ctrl_write_ok(c.ctrl_word())) << "WIN " << win;
    EXPECT_THROW(c.validate(), std::invalid_argument) << "WIN " << win;
  }
  for (const unsigned win : {4U, 20U}) {
    EcnDynConfig c = ok;
    c.win = win;
    EXPECT_TRUE(EcnDynConfig::ctrl_write_ok(c.ctrl_word())) << "WIN " << win;
  }
  EcnDynConfig c = ok;
  c.plo = 201;
  EXPECT_FALSE(EcnDynConfig::pmax_write_ok(c.pmax_word()));
  EXPECT_THROW(c.validate(), std::invalid_argument);
  c.plo = 200;  // PLO == PHI: one fixed level, legal
  EXPECT_TRUE(EcnDynConfig::pmax_write_ok(c.pmax_word()));
  c = ok;
  c.fan_sh = 8;
  EXPECT_THROW(c.validate(), std::invalid_argument);
  // Reset values (§6) are legal and round-trip through the words.
  const EcnDynConfig r;
  EXPECT_EQ(r.ctrl_word(), 0x0007'0A00U);
  EXPECT_EQ(r.target_word(), 64U);
  EXPECT_EQ(r.pmax_word(), 0x0808'FF00U);
  EXPECT_NO_THROW(r.validate());
  const EcnDynConfig back =
      EcnDynConfig::from_words(ok.ctrl_word(), ok.target_word(), ok.pmax_word());
  EXPECT_EQ(back.pmax_word(), ok.pmax_word());
  EXPECT_EQ(back.ctrl_word(), ok.ctrl_word());
  EXPECT_EQ(back.qref, ok.qref);
  EcnController e;
  EXPECT_THROW(e.step(true, false, ok, EcnCtrlInputs{0x10000, 0, false}, kStatic),
               std::out_of_range);
}

// §3/§4 applied to a window's samples kept whole.
struct Reference {
  std::vector<EcnCtrlInputs> win;
  unsigned sh = 0, p = 0, n_last = 0;
  void step(bool on, bool last, const EcnDynConfig& cfg, const EcnCtrlInputs& in,
            const WredConfig& stat) {
    if (!on) {
      win.clear();
      sh = 0;
      n_last = 0;
      p = stat.pmax;
      return;
    }
    win.push_back(in);
    if (!last) {
      return;
    }
    std::uint32_t qmax = 0;
    bool empty = false, paused = false;
    std::uint64_t act = 0;
    for (const auto& s : win) {
      qmax = std::max(qmax, s.qlen);
      empty = empty || s.qlen == 0;
      paused = paused || s.pause;
      act |= s.enq;
    }
    win.clear();
    const int n = std::popcount(act);
    int lg = 0;
    while ((n >> (lg + 1)) != 0) {
      ++lg;
    }
    sh = static_cast<unsigned>(std::max(0, lg - static_cast<int>(cfg.fan_sh)));
    int raw = static_cast<int>(p);
    if (qmax > cfg.qref) {
      raw += cfg.pup;
    } else if (empty && n > 0 && !paused) {
      raw = std::max(0, raw - cfg.pdn);
    }
    p = static_cast<unsigned>(
        std::clamp(raw, static_cast<int>(cfg.plo), static_cast<int>(cfg.phi)));
    n_last = static_cast<unsigned>(n);
  }
};

TEST(EcnController, RandomAgainstReference) {
  for (const auto seed : seeds({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + "; replay: " + replay_command(seed));
    std::mt19937_64 rng(seed);
    EcnDynConfig cfg;
    EcnController dut;
    Reference ref;
    WredConfig stat{true, 0, 0, 0};
    for (std::uint64_t t = 0; t < 20000; ++t) {
      if (rng() % 500 == 0) {  // registers rewritten now and then, legal values
        cfg.enable = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0 : 1);
        cfg.win = 4 + static_cast<unsigned>(rng() % 4);
        cfg.fan_sh = static_cast<unsigned>(rng() % 8);
        cfg.qref = static_cast<std::uint16_t>(rng() % 300);
        cfg.plo = static_cast<std::uint8_t>(rng() % 64);
        cfg.phi = static_cast<std::uint8_t>(cfg.plo + rng() % (256 - cfg.plo));
        cfg.pup = static_cast<std::uint8_t>(rng() % 256);
        cfg.pdn = static_cast<std::uint8_t>(rng() % 256);
        stat = WredConfig{true, static_cast<std::uint32_t>(rng() % 0x10000),
                          static_cast<std::uint32_t>(rng() % 0x10000),
                          static_cast<std::uint32_t>(rng() % 256)};
      }
      const EcnCtrlInputs in{rng() % 8 == 0 ? 0U : static_cast<std::uint32_t>(rng() % 0x10000),
                             rng() % 3 == 0 ? rng() : rng() & rng() & 0xFFFF, rng() % 200 == 0};
      const bool on = cfg.on(0);
      const bool last = EcnController::window_end(t, cfg.win);
      dut.step(on, last, cfg, in, stat);
      ref.step(on, last, cfg, in, stat);
      ASSERT_EQ(dut.shift(), ref.sh) << "cycle " << t;
      ASSERT_EQ(dut.level(), ref.p) << "cycle " << t;
      ASSERT_EQ(dut.active_last(), ref.n_last) << "cycle " << t;
      const WredConfig e = dut.effective(on, stat);
      ASSERT_EQ(e.kmin, on ? stat.kmin >> ref.sh : stat.kmin) << "cycle " << t;
      ASSERT_EQ(e.kmax, on ? stat.kmax >> ref.sh : stat.kmax) << "cycle " << t;
      ASSERT_EQ(e.pmax, on ? ref.p : stat.pmax) << "cycle " << t;
    }
  }
}

}  // namespace
}  // namespace syncfab::model
