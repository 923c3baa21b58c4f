// rr_arbiter (NumReq=5) against ref::RrArbiter, compared every cycle, plus an
// independent fairness bound: a requester that keeps requesting is granted
// before NumReq other grants are acknowledged.
#include <Vrr_arbiter.h>

#include <array>
#include <iostream>
#include <random>
#include <string>

#include "ref/rr_arbiter_ref.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr unsigned kNumReq = 5;
constexpr std::uint32_t kAll = (1U << kNumReq) - 1;
constexpr SimTime kPeriod = 10'000;

// Request patterns, chosen per cycle with these weights.
enum class Pattern { none, all, one_hot, sparse, dense, half };

}  // namespace

SYNCFAB_TEST(rr_arbiter, random) {
  auto& dut = ctx.make_dut<Vrr_arbiter>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 200'000);
  ref::RrArbiter model(kNumReq);

  Corners cov("rr_arbiter.random");
  const auto c_none = cov.require("no request");
  const auto c_all = cov.require("all request");
  const auto c_wrap = cov.require("winner found after wrapping past NumReq-1");
  const auto c_at_ptr = cov.require("winner is the pointer itself");
  const auto c_ack_none = cov.require("ack without any request");
  const auto c_hold = cov.require("request without ack (pointer holds)");
  const auto c_ptr_wrap = cov.require("pointer wraps NumReq-1 -> 0");
  const auto c_reset = cov.require("reset with pointer != 0");
  std::array<Corners::Id, kNumReq> c_granted{};
  std::array<Corners::Id, kNumReq> c_ptr{};
  for (unsigned i = 0; i < kNumReq; ++i) {
    c_granted[i] = cov.require("granted requester " + std::to_string(i));
    c_ptr[i] = cov.require("grant acked with pointer " + std::to_string(i));
  }

  std::discrete_distribution<int> pattern({8, 15, 20, 20, 20, 17});
  std::uniform_int_distribution<unsigned> one(0, kNumReq - 1);
  std::uniform_int_distribution<std::uint32_t> any(0, kAll);
  std::bernoulli_distribution ack_p(0.7);
  RandomResets resets(cycles, rng);
  // Acked grants to others while requester i kept requesting.
  std::array<unsigned, kNumReq> waited{};

  dut.rst_ni = 0;
  dut.req_i = 0;
  dut.ack_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;

  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    const bool in_reset = resets.step(cycle);
    if (resets.started() && model.pointer() != 0) {
      cov.hit(c_reset);
    }
    if (in_reset) {
      model.reset();
      waited.fill(0);
    }
    dut.rst_ni = in_reset ? 0 : 1;

    std::uint32_t req = 0;
    switch (static_cast<Pattern>(pattern(rng))) {
      case Pattern::none:
        break;
      case Pattern::all:
        req = kAll;
        break;
      case Pattern::one_hot:
        req = 1U << one(rng);
        break;
      case Pattern::sparse:
        req = any(rng);
        req &= any(rng);
        break;
      case Pattern::dense:
        req = any(rng);
        req |= any(rng);
        break;
      case Pattern::half:
        req = any(rng);
        break;
    }
    const bool ack = ack_p(rng);
    dut.req_i = req;
    dut.ack_i = ack;

    co_await ReadOnly();
    TB_CHECK_EQ(dut.gnt_o, model.gnt(req)) << "cycle " << cycle << " req 0x" << std::hex << req
                                           << " pointer " << std::dec << model.pointer();
    TB_CHECK_EQ(dut.gnt_idx_o, model.gnt_idx(req)) << "cycle " << cycle;
    TB_CHECK_EQ(dut.gnt_valid_o, model.gnt_valid(req)) << "cycle " << cycle;

    if (!in_reset) {
      const auto w = model.winner(req);
      if (req == 0) {
        cov.hit(c_none);
      }
      if (req == kAll) {
        cov.hit(c_all);
      }
      if (w && *w < model.pointer()) {
        cov.hit(c_wrap);
      }
      if (w && *w == model.pointer()) {
        cov.hit(c_at_ptr);
      }
      if (ack && !w) {
        cov.hit(c_ack_none);
      }
      if (!ack && w) {
        cov.hit(c_hold);
      }
      if (w) {
        cov.hit(c_granted[*w]);
      }
      if (ack && w) {
        cov.hit(c_ptr[model.pointer()]);
        if (*w == kNumReq - 1) {
          cov.hit(c_ptr_wrap);
        }
        for (unsigned i = 0; i < kNumReq; ++i) {
          const bool requesting = ((req >> i) & 1U) != 0;
          if (i == *w || !requesting) {
            waited[i] = 0;
          } else {
            ++waited[i];
            TB_CHECK(waited[i] < kNumReq) << "requester " << i << " starved for " << waited[i]
                                          << " acknowledged grants (cycle " << cycle << ")";
          }
        }
      } else {
        for (unsigned i = 0; i < kNumReq; ++i) {
          if (((req >> i) & 1U) == 0) {
            waited[i] = 0;
          }
        }
      }
    }
    co_await RisingEdge(clk);
    if (!in_reset) {
      model.edge(req, ack);
    }
  }
  std::cout << cov.report();
  cov.check();
}

// All requesting and every grant acked: grants rotate 0,1,2,3,4,0,...; a
// grant without ack repeats.
SYNCFAB_TEST(rr_arbiter, rotation) {
  auto& dut = ctx.make_dut<Vrr_arbiter>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  dut.rst_ni = 0;
  dut.req_i = 0;
  dut.ack_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
  dut.req_i = kAll;
  dut.ack_i = 1;
  for (unsigned k = 0; k < 3 * kNumReq; ++k) {
    co_await ReadOnly();
    TB_CHECK_EQ(dut.gnt_idx_o, k % kNumReq);
    TB_CHECK_EQ(dut.gnt_o, 1U << (k % kNumReq));
    co_await RisingEdge(clk);
  }
  dut.ack_i = 0;
  co_await ReadOnly();
  const auto held = dut.gnt_idx_o;
  co_await RisingEdge(clk);
  co_await ReadOnly();
  TB_CHECK_EQ(dut.gnt_idx_o, held) << "no ack: the pointer holds";
  co_await RisingEdge(clk);
  dut.req_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.gnt_valid_o, 0);
  TB_CHECK_EQ(dut.gnt_o, 0);
  TB_CHECK_EQ(dut.gnt_idx_o, 0) << "gnt_idx_o is 0 without a grant";
}
