// Harness tests with a real verilated model (tests/tb/fixtures/tb_counter.sv).
// Some fail on purpose (RTL errors must fail a test), so vlt_runner_test.cpp
// runs this binary and checks each outcome.
#include <Vtb_counter.h>

#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {
struct Counter {
  Vtb_counter& dut;
  Clock& clk;
};

Counter start(TestContext& ctx, std::string_view name = "dut") {
  auto& dut = ctx.make_dut<Vtb_counter>(name);
  auto& clk = ctx.sim().add_clock(std::string(name) + "_clk", dut.clk_i, 10'000);
  dut.rst_ni = 0;
  dut.en_i = 0;
  dut.error_i = 0;
  dut.assert_i = 0;
  return {dut, clk};
}

Task<> reset(Counter& c) {
  c.dut.rst_ni = 0;
  co_await ClockCycles(c.clk, 2);
  c.dut.rst_ni = 1;
}
}  // namespace

SYNCFAB_TEST(vlt, count) {
  auto c = start(ctx);
  co_await reset(c);
  c.dut.en_i = 1;
  const auto n = ctx.param("cycles", 10);
  co_await ClockCycles(c.clk, static_cast<std::uint64_t>(n));
  TB_CHECK_EQ(c.dut.count_o, n);
  c.dut.en_i = 0;
  co_await ClockCycles(c.clk, 3);
  co_await ReadOnly();
  TB_CHECK_EQ(c.dut.count_o, n);
}

SYNCFAB_TEST(vlt, rtl_error) {
  auto c = start(ctx);
  co_await reset(c);
  co_await ClockCycles(c.clk, 3);
  c.dut.error_i = 1;
  co_await ClockCycles(c.clk, 5);
}

SYNCFAB_TEST(vlt, assertion) {
  auto c = start(ctx);
  co_await reset(c);
  co_await ClockCycles(c.clk, 4);
  c.dut.assert_i = 1;
  co_await ClockCycles(c.clk, 5);
}

SYNCFAB_TEST(vlt, two_duts) {
  auto a = start(ctx, "a");
  auto b = start(ctx, "b");
  co_await reset(a);
  co_await reset(b);
  a.dut.en_i = 1;
  b.dut.en_i = 1;
  co_await ClockCycles(a.clk, 4);
  TB_CHECK_EQ(a.dut.count_o, 4U);
}
