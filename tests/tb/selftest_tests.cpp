// Tests for the runner itself (run by runner_test.cpp as a subprocess). Some
// fail on purpose, so this binary is not registered with ctest directly.
#include <random>

#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

SYNCFAB_TEST(selftest, pass) {
  std::uint8_t clk = 0;
  auto& c = ctx.sim().add_clock("clk", clk, 2'000);
  const auto n = ctx.param("cycles", 3);
  co_await ClockCycles(c, static_cast<std::uint64_t>(n));
  TB_CHECK_EQ(c.cycles(), static_cast<std::uint64_t>(n));
}

// Fails with a value drawn from the seed: the replay must reproduce it.
SYNCFAB_TEST(selftest, fail) {
  co_await Timer(5, Unit::ns);
  const auto drawn = ctx.rng()() % 1000;
  TB_CHECK_EQ(drawn, 1000U) << "drawn from seed " << ctx.seed();
}

SYNCFAB_TEST(selftest, background_fail) {
  std::uint8_t clk = 0;
  auto& c = ctx.sim().add_clock("clk", clk, 2'000);
  ctx.sim().start_soon(
      [](Clock& k) -> Task<> {
        co_await ClockCycles(k, 4);
        TB_FAIL() << "monitor saw something bad";
      }(c),
      "monitor");
  co_await ClockCycles(c, 100);
}

SYNCFAB_TEST(selftest, deadlock) {
  Event never("never-set");
  co_await never.wait();
}

SYNCFAB_TEST(selftest, timeout) {
  std::uint8_t clk = 0;
  auto& c = ctx.sim().add_clock("clk", clk, 2'000);
  co_await with_timeout([](Clock& k) -> Task<> { co_await ClockCycles(k, 1000); }(c), 100, Unit::ns,
                        "slow op");
}
