// lfsr (Width=16, Seed=1) against ref::Lfsr: random enable/seed traffic
// compared every cycle, and the free-running period, which must be exactly
// 2^16 - 1 with every non-zero state visited once.
#include <Vlfsr.h>

#include <iostream>
#include <random>
#include <vector>

#include "ref/lfsr_ref.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr unsigned kWidth = 16;
constexpr std::uint64_t kSeed = 1;  // the module's default Seed parameter
constexpr std::uint64_t kStates = (1ULL << kWidth) - 1;
constexpr SimTime kPeriod = 10'000;

Task<> reset(Vlfsr& dut, Clock& clk) {
  dut.rst_ni = 0;
  dut.en_i = 0;
  dut.seed_valid_i = 0;
  dut.seed_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
}

}  // namespace

SYNCFAB_TEST(lfsr, random) {
  auto& dut = ctx.make_dut<Vlfsr>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 200'000);
  ref::Lfsr model(kWidth, kSeed);

  Corners cov("lfsr.random");
  const auto c_step = cov.require("step");
  const auto c_hold = cov.require("hold (en low)");
  const auto c_seed = cov.require("seed load");
  const auto c_seed_en = cov.require("seed load with en high (seed wins)");
  const auto c_seed_zero = cov.require("zero seed (loads Seed)");
  const auto c_reset = cov.require("reset mid-run");

  std::bernoulli_distribution en_p(0.7);
  std::bernoulli_distribution seed_p(0.05);
  std::bernoulli_distribution zero_p(0.2);
  std::uniform_int_distribution<std::uint32_t> seed_v(1, kStates);
  RandomResets resets(cycles, rng);

  co_await reset(dut, clk);
  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    const bool in_reset = resets.step(cycle);
    if (resets.started()) {
      cov.hit(c_reset);
    }
    if (in_reset) {
      model.reset();
    }
    dut.rst_ni = in_reset ? 0 : 1;
    const bool en = en_p(rng);
    const bool load = seed_p(rng);
    const std::uint32_t seed = zero_p(rng) ? 0 : seed_v(rng);
    dut.en_i = en;
    dut.seed_valid_i = load;
    dut.seed_i = seed;

    co_await ReadOnly();
    TB_CHECK_EQ(dut.state_o, model.state()) << "cycle " << cycle;
    if (!in_reset) {
      if (load) {
        cov.hit(c_seed);
        if (en) {
          cov.hit(c_seed_en);
        }
        if (seed == 0) {
          cov.hit(c_seed_zero);
        }
      } else {
        cov.hit(en ? c_step : c_hold);
      }
    }
    co_await RisingEdge(clk);
    if (!in_reset) {
      model.edge(en, load, seed);
    }
  }
  std::cout << cov.report();
  cov.check();
}

SYNCFAB_TEST(lfsr, period) {
  auto& dut = ctx.make_dut<Vlfsr>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  ref::Lfsr model(kWidth, kSeed);
  co_await reset(dut, clk);
  co_await ReadOnly();
  TB_CHECK_EQ(dut.state_o, kSeed) << "reset loads Seed";

  co_await RisingEdge(clk);
  dut.en_i = 1;
  std::vector<bool> seen(kStates + 1, false);
  std::uint64_t period = 0;
  for (;;) {
    co_await ReadOnly();
    const std::uint64_t s = dut.state_o;
    TB_CHECK_EQ(s, model.state()) << "step " << period;
    TB_CHECK_NE(s, 0U) << "the lock-up state appeared at step " << period;
    if (period > 0 && s == kSeed) {
      break;
    }
    TB_CHECK(!seen[s]) << "state 0x" << std::hex << s << std::dec << " repeated at step " << period
                       << " before the sequence closed";
    seen[s] = true;
    TB_CHECK(period <= kStates) << "no return to the seed within 2^16-1 steps";
    co_await RisingEdge(clk);
    model.edge(true, false, 0);
    ++period;
  }
  std::cout << "  lfsr period: " << period << " (2^" << kWidth << "-1 = " << kStates << ")\n";
  TB_CHECK_EQ(period, kStates);
}
