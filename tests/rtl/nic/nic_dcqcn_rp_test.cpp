// nic_dcqcn_rp (the DCQCN reaction point's rate law, docs/nic/dcqcn.md §5)
// against the golden model: one model::DcqcnRp per flow, driven with the same
// events (START, matched CNPs, granted packets, RUNNING or not, parameter
// changes, resets). After every rising edge every flow's RC, RT, alpha and
// stages T and BC must equal the model's exactly (tolerance: none), and
// every flow's token-bucket credit and tx_ok the reference of §6 kept here
// (the golden model's bucket is part of its whole data path, not DcqcnRp).
//
// Tests: the worked example of §5 (its table checked by value as well), two
// increase events in one cycle and the bucket by hand, and a random test:
// several flows interleaved, CNPs, grants as the network arbiter makes them
// (a flow its bucket allows, a new packet only after the last flit of the
// previous one), flows started and stopped, RP_ENABLE on and off, random
// resets, and parameter sets that switch during the run between the register
// defaults, the extremes of every range and random values with short timers.
#include <Vnic_dcqcn_rp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/model/dcqcn_rp.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::model::DcqcnParams;
using syncfab::model::DcqcnRp;

namespace {

constexpr SimTime kPeriod = 10'000;
constexpr unsigned kFlows = syncfab::fmt::kNumFlows;
constexpr unsigned kFracBits = syncfab::fmt::kRateFracBits;
// The widths of the RTL's packed per-flow outputs, derived as the RTL derives
// them (nic_dcqcn_rp.sv localparams).
constexpr unsigned kRateW = std::bit_width(syncfab::fmt::kRateLine);  // RateW, AlphaW
constexpr unsigned kStageW = 8;  // StageW: the stages saturate at 255 (§5)
constexpr unsigned kFlitsW = std::bit_width(syncfab::fmt::kDataMaxPayloadFlits + 1);  // len_flits
constexpr unsigned kCreditW = kFlitsW + kFracBits + 1;                                // CreditW
static_assert(syncfab::fmt::kRateLine < (1U << kRateW) && syncfab::fmt::kAlphaOne < (1U << kRateW));

// Field `idx` of `width` bits of a packed-array output port.
std::uint32_t field(std::uint64_t port, unsigned idx, unsigned width) {
  return static_cast<std::uint32_t>((port >> (idx * width)) & ((1ULL << width) - 1));
}
template <std::size_t N>
std::uint32_t field(const VlWide<N>& port, unsigned idx, unsigned width) {
  const unsigned lo = idx * width;
  const unsigned w = lo / 32;
  std::uint64_t v = port[w];
  if (w + 1 < N) {
    v |= static_cast<std::uint64_t>(port[w + 1]) << 32U;
  }
  return field(v >> (lo % 32), 0, width);
}

struct Events {
  std::uint32_t running = 0;  // one bit per flow
  bool start = false;
  unsigned start_idx = 0;
  bool cnp = false;
  unsigned cnp_idx = 0;
  bool grant = false;
  unsigned grant_idx = 0;
  unsigned grant_flits = 0;
};

class Bench {
 public:
  explicit Bench(Vnic_dcqcn_rp& dut) : dut_(dut) {}

  // CTRL.RP_ENABLE.
  void set_rp_enable(bool on) {
    rp_enable_ = on;
    dut_.rp_enable_i = on ? 1 : 0;
  }
  // FLOW_CFG.PAYLOAD_FLITS of flow f (set before its START, kept while it runs).
  void set_payload(unsigned f, unsigned flits) {
    payload_.at(f) = flits;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < kFlows; ++i) {
      v |= static_cast<std::uint64_t>(payload_.at(i)) << (i * kFlitsW);
    }
    dut_.payload_flits_i = v;
  }
  [[nodiscard]] bool rp_enable() const { return rp_enable_; }
  [[nodiscard]] unsigned payload(unsigned f) const { return payload_.at(f); }
  // §6: the cost of one packet of flow f.
  [[nodiscard]] std::uint32_t cap(unsigned f) const { return (payload_.at(f) + 1) << kFracBits; }
  // §6: whether the arbiter may grant flow f (the state before the coming edge).
  [[nodiscard]] bool tx_ok(unsigned f) const { return !rp_enable_ || credit_.at(f) >= cap(f); }

  void set_params(const DcqcnParams& p) {
    p_ = p;
    dut_.g_shift_i = static_cast<std::uint8_t>(p.g_shift);
    dut_.alpha_timer_i = p.alpha_timer;
    dut_.rate_timer_i = p.rate_timer;
    dut_.byte_counter_i = p.byte_counter;
    dut_.stages_i = static_cast<std::uint8_t>(p.stages);
    dut_.rate_ai_i = p.rate_ai;
    dut_.rate_hai_i = p.rate_hai;
    dut_.rate_min_i = p.rate_min;
  }
  [[nodiscard]] const DcqcnParams& params() const { return p_; }

  // The inputs of the coming cycle.
  void drive(const Events& e) {
    ev_ = e;
    dut_.running_i = static_cast<std::uint8_t>(e.running);
    dut_.start_i = e.start ? 1 : 0;
    dut_.start_idx_i = static_cast<std::uint8_t>(e.start_idx);
    dut_.cnp_i = e.cnp ? 1 : 0;
    dut_.cnp_idx_i = static_cast<std::uint8_t>(e.cnp_idx);
    dut_.grant_i = e.grant ? 1 : 0;
    dut_.grant_idx_i = static_cast<std::uint8_t>(e.grant_idx);
    dut_.grant_flits_i = static_cast<std::uint8_t>(e.grant_flits);
  }

  // The model's side of the edge that took the driven inputs.
  void step_model(bool in_reset) {
    before_ = model_;
    for (unsigned f = 0; f < kFlows; ++f) {
      const bool granted = ev_.grant && ev_.grant_idx == f;
      if (in_reset) {
        model_.at(f).reset();
        credit_.at(f) = 0;
      } else if (ev_.start && ev_.start_idx == f) {
        model_.at(f).reset();
        credit_.at(f) = cap(f);
      } else if ((ev_.running >> f) & 1U) {
        if (granted) {
          model_.at(f).add_flits(ev_.grant_flits);
        }
        model_.at(f).end_cycle(p_, ev_.cnp && ev_.cnp_idx == f);
        // §6: the grant's cost, then the refill by RC as just updated, capped.
        const std::uint32_t left = credit_.at(f) - (granted && rp_enable_ ? cap(f) : 0);
        credit_.at(f) = std::min(left + model_.at(f).rc(), cap(f));
      }
    }
  }

  // Every flow, every field, exactly.
  void compare(std::int64_t cycle) const {
    for (unsigned f = 0; f < kFlows; ++f) {
      const DcqcnRp& m = model_.at(f);
      const DcqcnRp& b = before_.at(f);
      const std::string at =
          "cycle " + std::to_string(cycle) + " flow " + std::to_string(f) + " (before: RC " +
          std::to_string(b.rc()) + " RT " + std::to_string(b.rt()) + " alpha " +
          std::to_string(b.alpha()) + " T " + std::to_string(b.timer_stage()) + " BC " +
          std::to_string(b.byte_stage()) + "; events: running " +
          std::to_string((ev_.running >> f) & 1U) + " cnp " +
          std::to_string(ev_.cnp && ev_.cnp_idx == f) + " flits " +
          std::to_string(ev_.grant && ev_.grant_idx == f ? ev_.grant_flits : 0) + "; G " +
          std::to_string(p_.g_shift) + " K " + std::to_string(p_.alpha_timer) + " TP " +
          std::to_string(p_.rate_timer) + " B " + std::to_string(p_.byte_counter) + " F " +
          std::to_string(p_.stages) + " R_AI " + std::to_string(p_.rate_ai) + " R_HAI " +
          std::to_string(p_.rate_hai) + " R_MIN " + std::to_string(p_.rate_min) + ")";
      TB_CHECK_EQ(field(dut_.rc_o, f, kRateW), m.rc()) << at << ": RC";
      TB_CHECK_EQ(field(dut_.rt_o, f, kRateW), m.rt()) << at << ": RT";
      TB_CHECK_EQ(field(dut_.alpha_o, f, kRateW), m.alpha()) << at << ": alpha";
      TB_CHECK_EQ(field(dut_.t_stage_o, f, kStageW), m.timer_stage()) << at << ": T";
      TB_CHECK_EQ(field(dut_.bc_stage_o, f, kStageW), m.byte_stage()) << at << ": BC";
      TB_CHECK_EQ(field(dut_.credit_o, f, kCreditW), credit_.at(f)) << at << ": credit";
      TB_CHECK_EQ(field(dut_.tx_ok_o, f, 1), tx_ok(f) ? 1U : 0U) << at << ": tx_ok";
    }
  }

  [[nodiscard]] const DcqcnRp& model(unsigned f) const { return model_.at(f); }

 private:
  Vnic_dcqcn_rp& dut_;
  DcqcnParams p_;
  Events ev_;
  std::array<DcqcnRp, kFlows> model_{};
  std::array<DcqcnRp, kFlows> before_{};  // the state before the last edge, for the messages
  bool rp_enable_ = true;
  std::array<unsigned, kFlows> payload_{};
  std::array<std::uint32_t, kFlows> credit_{};  // §6's bucket, the reference
};

Task<> reset_dut(Vnic_dcqcn_rp& dut, Clock& clk, Bench& bench) {
  bench.drive({});
  dut.rst_ni = 0;
  co_await ClockCycles(clk, 2);
  bench.step_model(true);
  dut.rst_ni = 1;
}

// One cycle: drive `e`, take the edge, step the model, compare every flow.
Task<> cycle(Clock& clk, Bench& bench, const Events& e, std::int64_t n) {
  bench.drive(e);
  co_await RisingEdge(clk);
  bench.step_model(false);
  bench.compare(n);
}

}  // namespace

// docs/nic/dcqcn.md §5, "Worked example": flow 2 (any flow; 2 shows that the
// CNP and the grant reach the flow they name), the table's rows by value.
SYNCFAB_TEST(nic_dcqcn_rp, worked_example) {
  auto& dut = ctx.make_dut<Vnic_dcqcn_rp>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench bench(dut);
  DcqcnParams p;
  p.g_shift = 4;
  p.alpha_timer = 10;
  p.rate_timer = 100;
  p.byte_counter = 50;
  p.stages = 2;
  p.rate_ai = 1000;
  p.rate_hai = 5000;
  p.rate_min = 16;
  bench.set_params(p);
  constexpr unsigned kFlow = 2;
  bench.set_rp_enable(true);
  bench.set_payload(kFlow, 149);  // the example's 150-flit packet
  co_await reset_dut(dut, clk, bench);

  std::int64_t n = 0;
  Events start;
  start.start = true;
  start.start_idx = kFlow;
  co_await cycle(clk, bench, start, n++);
  Events run;
  run.running = 1U << kFlow;
  auto idle = [&](unsigned cycles) -> Task<> {
    for (unsigned i = 0; i < cycles; ++i) {
      co_await cycle(clk, bench, run, n++);
    }
  };
  struct Row {
    std::uint32_t rc, rt, alpha, t, bc;
  };
  auto expect = [&](const Row& r, const char* after) {
    const DcqcnRp& m = bench.model(kFlow);
    TB_CHECK_EQ(m.rc(), r.rc) << after << ": RC";
    TB_CHECK_EQ(m.rt(), r.rt) << after << ": RT";
    TB_CHECK_EQ(m.alpha(), r.alpha) << after << ": alpha";
    TB_CHECK_EQ(m.timer_stage(), r.t) << after << ": T";
    TB_CHECK_EQ(m.byte_stage(), r.bc) << after << ": BC";
  };
  Events cnp = run;
  cnp.cnp = true;
  cnp.cnp_idx = kFlow;

  co_await idle(10);
  expect({65536, 65536, 61440, 0, 0}, "10 cycles without CNP");
  co_await cycle(clk, bench, cnp, n++);
  expect({34816, 65536, 61696, 0, 0}, "a CNP");
  co_await cycle(clk, bench, cnp, n++);
  expect({18428, 34816, 61936, 0, 0}, "a second CNP");
  co_await idle(100);
  expect({26622, 34816, 32485, 1, 0}, "100 more cycles (fast recovery)");
  co_await idle(100);
  expect({30719, 34816, 17040, 2, 0}, "100 more (fast recovery)");
  co_await idle(100);
  expect({33267, 35816, 8940, 3, 0}, "100 more (additive)");
  Events grant = run;
  grant.grant = true;
  grant.grant_idx = kFlow;
  grant.grant_flits = 150;
  co_await cycle(clk, bench, grant, n++);
  expect({35041, 36816, 8940, 3, 1}, "150 flits granted, 1 cycle (additive)");
  co_await idle(1);
  expect({36428, 37816, 8940, 3, 2}, "1 cycle (additive)");
  co_await idle(1);
  expect({39622, 42816, 8940, 3, 3}, "1 cycle (hyper, i = 1)");
}

// Both increase events in one cycle (docs/nic/dcqcn.md §7): the timer's
// event sees T updated and BC not yet (additive), the byte counter's sees
// both (hyper, i = 1). Worked by hand from §5: after START, CNPs in two
// cycles: RC 65536 -> 32768 -> 16384, RT 32768, alpha stays ONE; then one
// two-flit packet with TP = B = 1: T = 1, additive RT 33768, RC (33768 + 16384) >> 1 =
// 25076; BC = 1, hyper RT 38768, RC (38768 + 25076) >> 1 = 31922.
SYNCFAB_TEST(nic_dcqcn_rp, timer_then_byte_event) {
  auto& dut = ctx.make_dut<Vnic_dcqcn_rp>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench bench(dut);
  DcqcnParams p;
  p.g_shift = 4;
  p.alpha_timer = 1'000'000;
  p.rate_timer = 1;
  p.byte_counter = 1;
  p.stages = 0;
  p.rate_ai = 1000;
  p.rate_hai = 5000;
  p.rate_min = 16;
  bench.set_params(p);
  constexpr unsigned kFlow = 5;
  bench.set_rp_enable(true);
  bench.set_payload(kFlow, 1);
  co_await reset_dut(dut, clk, bench);
  Events e;
  e.start = true;
  e.start_idx = kFlow;
  co_await cycle(clk, bench, e, 0);
  e = {};
  e.running = 1U << kFlow;
  e.cnp = true;
  e.cnp_idx = kFlow;
  co_await cycle(clk, bench, e, 1);
  co_await cycle(clk, bench, e, 2);
  TB_CHECK_EQ(bench.model(kFlow).rc(), 16384U);
  TB_CHECK_EQ(bench.model(kFlow).rt(), 32768U);
  e.cnp = false;
  e.grant = true;
  e.grant_idx = kFlow;
  e.grant_flits = 2;  // B = 1: one byte-counter stage, a flit left over
  co_await cycle(clk, bench, e, 3);
  const DcqcnRp& m = bench.model(kFlow);
  TB_CHECK_EQ(m.rc(), 31922U);
  TB_CHECK_EQ(m.rt(), 38768U);
  TB_CHECK_EQ(m.alpha(), syncfab::fmt::kAlphaOne);
  TB_CHECK_EQ(m.timer_stage(), 1U);
  TB_CHECK_EQ(m.byte_stage(), 1U);
}

// §6 by hand: a flow of 2-flit packets (C = 2 << 16) at RC = RATE_LINE sends
// back to back (the bucket refills by C in the two cycles a packet takes);
// a CNP in the cycle of a grant halves RC to 32768, and the bucket then
// needs four cycles to refill; with RP_ENABLE 0 a grant costs nothing.
SYNCFAB_TEST(nic_dcqcn_rp, token_bucket) {
  auto& dut = ctx.make_dut<Vnic_dcqcn_rp>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench bench(dut);
  bench.set_params(DcqcnParams{});
  constexpr unsigned kFlow = 7;
  bench.set_rp_enable(true);
  bench.set_payload(kFlow, 1);
  co_await reset_dut(dut, clk, bench);
  constexpr std::uint32_t kC = 2U << kFracBits;
  auto credit = [&] { return field(dut.credit_o, kFlow, kCreditW); };
  auto tx_ok = [&] { return field(dut.tx_ok_o, kFlow, 1) != 0; };
  std::int64_t n = 0;
  Events e;
  e.start = true;
  e.start_idx = kFlow;
  co_await cycle(clk, bench, e, n++);
  TB_CHECK_EQ(credit(), kC) << "START fills the bucket";
  TB_CHECK(tx_ok());
  Events run;
  run.running = 1U << kFlow;
  Events grant = run;
  grant.grant = true;
  grant.grant_idx = kFlow;
  grant.grant_flits = 2;
  co_await cycle(clk, bench, grant, n++);
  TB_CHECK_EQ(credit(), kC / 2) << "C spent, RC = line added";
  TB_CHECK(!tx_ok());
  co_await cycle(clk, bench, run, n++);
  TB_CHECK_EQ(credit(), kC);
  TB_CHECK(tx_ok()) << "back to back at the line rate";
  Events grant_cnp = grant;
  grant_cnp.cnp = true;
  grant_cnp.cnp_idx = kFlow;
  co_await cycle(clk, bench, grant_cnp, n++);
  TB_CHECK_EQ(bench.model(kFlow).rc(), 32768U);
  TB_CHECK_EQ(credit(), 32768U) << "refilled by the RC the CNP left";
  for (std::uint32_t k = 2; k <= 4; ++k) {
    TB_CHECK(!tx_ok()) << "after " << k - 1 << " refills";
    co_await cycle(clk, bench, run, n++);
    TB_CHECK_EQ(credit(), k * 32768U);
  }
  TB_CHECK(tx_ok());
  bench.set_rp_enable(false);
  co_await cycle(clk, bench, grant, n++);
  TB_CHECK_EQ(credit(), kC) << "RP_ENABLE 0: the grant costs nothing";
  TB_CHECK(tx_ok());
}

namespace {

// A parameter set for the random test: the defaults, an extreme of each
// range, or random values with timers short enough for many events.
DcqcnParams draw_params(std::mt19937_64& rng) {
  auto pick = [&](std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
  };
  constexpr std::uint32_t kLine = syncfab::fmt::kRateLine;
  DcqcnParams p;  // the register defaults
  switch (pick(0, 5)) {
    case 0:
      break;
    case 1:  // the smallest of every range: an event every cycle
      p.g_shift = 1;
      p.alpha_timer = p.rate_timer = p.byte_counter = 1;
      p.stages = 0;
      p.rate_ai = p.rate_hai = p.rate_min = 1;
      break;
    case 2:  // the largest
      p.g_shift = 16;
      p.alpha_timer = p.rate_timer = p.byte_counter = 0xFFFF'FFFFU;
      p.stages = 255;
      p.rate_ai = p.rate_hai = p.rate_min = kLine;
      break;
    case 3:  // fast events, large steps: the line cap and saturated stages
      p.g_shift = pick(1, 16);
      p.alpha_timer = pick(1, 4);
      p.rate_timer = pick(1, 3);
      p.byte_counter = pick(1, 8);
      p.stages = pick(0, 3);
      p.rate_ai = pick(kLine / 2, kLine);
      p.rate_hai = pick(kLine / 2, kLine);
      p.rate_min = pick(1, kLine);
      break;
    default:  // random, short timers
      p.g_shift = pick(1, 16);
      p.alpha_timer = pick(1, 200);
      p.rate_timer = pick(1, 300);
      p.byte_counter = pick(1, 600);
      p.stages = pick(0, 8);
      p.rate_ai = pick(1, 4096);
      p.rate_hai = pick(1, 16384);
      p.rate_min = pick(1, 4096);
      break;
  }
  return p;
}

}  // namespace

SYNCFAB_TEST(nic_dcqcn_rp, random_vs_model) {
  const std::int64_t cycles = ctx.param("cycles", 40000);
  auto& rng = ctx.rng();
  auto& dut = ctx.make_dut<Vnic_dcqcn_rp>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Bench bench(dut);
  bench.set_params(draw_params(rng));
  co_await reset_dut(dut, clk, bench);

  Corners cov("nic_dcqcn_rp random");
  const auto c_reset = cov.require("reset mid-run");
  const auto c_params = cov.require("parameter set changed", 10);
  const auto c_cnp = cov.require("CNP", 50);
  const auto c_cnp_grant = cov.require("CNP and grant to one flow in one cycle");
  const auto c_additive = cov.require("additive region (max(T,BC) > F >= min(T,BC))");
  const auto c_hyper = cov.require("hyper region (min(T,BC) > F)");
  const auto c_rc_min = cov.require("RC at R_MIN");
  const auto c_stage_sat = cov.require("a stage at 255");
  const auto c_no_credit = cov.require("running flow held back by its bucket", 10);
  const auto c_rp_off = cov.require("grant with RP_ENABLE 0", 10);

  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<unsigned> any_flow(0, kFlows - 1);
  std::uniform_int_distribution<unsigned> payload(1, syncfab::fmt::kDataMaxPayloadFlits);
  RandomResets resets(cycles, rng);
  std::uint32_t running = 0;
  unsigned busy = 0;  // cycles left of the packet in flight: no grant before
  double p_cnp = 0.01;
  std::int64_t next_params = 0;
  for (std::int64_t n = 0; n < cycles; ++n) {
    if (n >= next_params) {
      bench.set_params(draw_params(rng));
      p_cnp = std::array{0.0, 0.002, 0.02, 0.2}.at(any_flow(rng) % 4);
      bench.set_rp_enable(u(rng) < 0.8);
      next_params = n + std::uniform_int_distribution<std::int64_t>(200, 3000)(rng);
      cov.hit(c_params);
    }
    if (resets.step(n)) {
      if (resets.started()) {
        cov.hit(c_reset);
      }
      running = 0;
      busy = 0;
      co_await reset_dut(dut, clk, bench);
      continue;
    }
    Events e;
    e.running = running;
    const unsigned f = any_flow(rng);
    const bool run_f = ((running >> f) & 1U) != 0;
    if (!run_f && u(rng) < 0.02) {
      e.start = true;
      e.start_idx = f;
      // Short packets mostly, so that the bucket, not the link, limits a flow.
      bench.set_payload(f, u(rng) < 0.7 ? std::min(payload(rng), 8U) : payload(rng));
    }
    const unsigned g = any_flow(rng);
    if (busy > 0) {
      --busy;
    } else if (((running >> g) & 1U) != 0 && u(rng) < 0.7) {
      if (bench.tx_ok(g)) {
        e.grant = true;
        e.grant_idx = g;
        e.grant_flits = bench.payload(g) + 1;
        busy = e.grant_flits - 1;
        if (!bench.rp_enable()) {
          cov.hit(c_rp_off);
        }
      } else {
        cov.hit(c_no_credit);
      }
    }
    const unsigned c = u(rng) < 0.3 && e.grant ? g : any_flow(rng);
    if (((running >> c) & 1U) != 0 && u(rng) < p_cnp) {
      e.cnp = true;
      e.cnp_idx = c;
      cov.hit(c_cnp);
      if (e.grant && e.grant_idx == c) {
        cov.hit(c_cnp_grant);
      }
    }
    co_await cycle(clk, bench, e, n);

    // The flow table: START makes a flow RUNNING from the next cycle; a
    // running flow stops now and then (STOP or DONE) and keeps its state.
    if (e.start) {
      running |= 1U << e.start_idx;
    }
    const unsigned s = any_flow(rng);
    if (((running >> s) & 1U) != 0 && !(e.grant && e.grant_idx == s) && u(rng) < 0.0005) {
      running &= ~(1U << s);
    }
    const DcqcnParams& p = bench.params();
    for (unsigned i = 0; i < kFlows; ++i) {
      const DcqcnRp& m = bench.model(i);
      const unsigned lo = std::min(m.timer_stage(), m.byte_stage());
      const unsigned hi = std::max(m.timer_stage(), m.byte_stage());
      if (hi > p.stages && lo <= p.stages) {
        cov.hit(c_additive);
      }
      if (lo > p.stages) {
        cov.hit(c_hyper);
      }
      if (((running >> i) & 1U) != 0 && m.rc() == p.rate_min) {
        cov.hit(c_rc_min);
      }
      if (hi == (1U << kStageW) - 1) {
        cov.hit(c_stage_sat);
      }
    }
  }
  std::cout << cov.report();
  cov.check();
}
