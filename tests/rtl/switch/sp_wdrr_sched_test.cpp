// sp_wdrr_sched (rtl/switch/) against syncfab::model::SpWdrrScheduler, both
// written from the switch-egress spec by different people. Every cycle:
// grant_valid_o and grant_q_o compared with the model's combinational choice
// (also while ready is low), then the edge applied to the model.
//
//   sp_wdrr_sched.random  phases of queue traffic (backlogs, pauses, head
//                         lengths that change only when a packet leaves),
//                         chaos (every input random every cycle: lengths of
//                         idle queues 0, weights of SP queues 0) and held
//                         inputs (long credit-only runs); random SP masks,
//                         weights/lengths biased to 1 and max, ready in long
//                         bursts; resets; a corner table per spec rule.
//
// Parameters (NumQ, LenW, WeightW) come from tests/rtl/switch/CMakeLists.txt.
#include <Vsp_wdrr_sched.h>

#include <array>
#include <bit>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "syncfab/model/sp_wdrr_scheduler.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::model::SchedDecision;
using syncfab::model::SchedInputs;
using syncfab::model::SchedParams;
using syncfab::model::SchedRule;
using syncfab::model::SpWdrrScheduler;

namespace {

constexpr unsigned kNumQ = SF_NUM_Q;
constexpr unsigned kLenW = SF_LEN_W;
constexpr unsigned kWeightW = SF_WEIGHT_W;
constexpr std::uint64_t kAll = (std::uint64_t{1} << kNumQ) - 1;
constexpr std::uint32_t kLenMax = (1U << kLenW) - 1;
constexpr std::uint32_t kWeightMax = (1U << kWeightW) - 1;
constexpr SimTime kPeriod = 10'000;
static_assert(kNumQ * kLenW <= 64 && kNumQ * kWeightW <= 64, "packed ports wider than 64 bits");

struct Stim {
  std::uint64_t valid = 0;
  std::uint64_t sp = 0;
  std::array<std::uint32_t, kNumQ> len{};
  std::array<std::uint32_t, kNumQ> weight{};
  bool ready = false;

  Stim() {
    len.fill(1);
    weight.fill(1);
  }
  [[nodiscard]] SchedInputs in() const { return {valid, sp, len, weight}; }
};

std::string show(const Stim& s) {
  std::ostringstream os;
  os << "valid 0x" << std::hex << s.valid << " sp 0x" << s.sp << std::dec << " ready " << s.ready
     << " len [";
  for (unsigned q = 0; q < kNumQ; ++q) {
    os << (q ? " " : "") << s.len[q];
  }
  os << "] weight [";
  for (unsigned q = 0; q < kNumQ; ++q) {
    os << (q ? " " : "") << s.weight[q];
  }
  os << "]";
  return os.str();
}

std::string show(const SpWdrrScheduler& m) {
  std::ostringstream os;
  os << "ptr " << m.ptr() << " deficit [";
  for (unsigned q = 0; q < kNumQ; ++q) {
    os << (q ? " " : "") << m.deficit(q);
  }
  os << "]";
  return os.str();
}

std::uint64_t pack(const std::array<std::uint32_t, kNumQ>& v, unsigned width) {
  std::uint64_t out = 0;
  for (unsigned q = 0; q < kNumQ; ++q) {
    out |= std::uint64_t{v[q]} << (q * width);
  }
  return out;
}

void drive(Vsp_wdrr_sched& dut, const Stim& s) {
  dut.q_valid_i = s.valid;
  dut.sp_mask_i = s.sp;
  dut.q_len_i = pack(s.len, kLenW);
  dut.weight_i = pack(s.weight, kWeightW);
  dut.ready_i = s.ready;
}

Task<> reset(Vsp_wdrr_sched& dut, Clock& clk) {
  drive(dut, Stim{});
  dut.rst_ni = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
}

enum class Phase { kTraffic, kChaos, kHold };

class StimGen {
 public:
  explicit StimGen(std::mt19937_64& rng) : rng_(rng) {}

  bool chance(unsigned one_in) { return pick(one_in) == 0; }
  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
  std::uint32_t len() {
    switch (pick(5)) {
      case 0:
        return 1;
      case 1:
        return kLenMax;
      default:
        return std::uniform_int_distribution<std::uint32_t>(1, kLenMax)(rng_);
    }
  }
  std::uint32_t weight() {
    switch (pick(5)) {
      case 0:
        return 1;
      case 1:
        return kWeightMax;
      default:
        return std::uniform_int_distribution<std::uint32_t>(1, kWeightMax)(rng_);
    }
  }
  std::uint64_t mask() { return rng_() & kAll; }
  std::uint64_t sp_mask() {
    switch (pick(6)) {
      case 0:
      case 1:
        return 0;
      case 2:
        return kAll;
      case 3:
        return kAll & ~(kAll >> (1 + pick(kNumQ)));  // the top queues, as a switch uses it
      default:
        return mask();
    }
  }
  // Weights for non-SP queues are >= 1 (spec assertion); SP queues may get 0.
  void weights(Stim& s) {
    for (unsigned q = 0; q < kNumQ; ++q) {
      s.weight[q] = ((s.sp >> q & 1U) != 0 && chance(3)) ? 0 : weight();
    }
  }

 private:
  std::mt19937_64& rng_;
};

}  // namespace

SYNCFAB_TEST(sp_wdrr_sched, random) {
  auto& dut = ctx.make_dut<Vsp_wdrr_sched>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 1'000'000);
  SpWdrrScheduler model(SchedParams{kNumQ, kLenW, kWeightW});
  StimGen gen(rng);

  Corners cov("sp_wdrr_sched.random (NumQ " + std::to_string(kNumQ) + ", LenW " +
              std::to_string(kLenW) + ", WeightW " + std::to_string(kWeightW) + ")");
  const bool multi = kNumQ > 1;
  const auto c_sp = cov.require("rule 1: SP grant");
  const auto c_sp_over = multi ? cov.require("rule 1: SP grant while a WDRR queue is valid")
                               : cov.track("rule 1: SP grant while a WDRR queue is valid");
  const auto c_sp_multi = multi ? cov.require("rule 1: several SP queues valid")
                                : cov.track("rule 1: several SP queues valid");
  const auto c_idle = cov.require("rule 2: nothing valid, ready");
  const auto c_stay = cov.require("rule 3: ptr sends again");
  const auto c_move = multi ? cov.require("rule 4: ptr moves to n != ptr, n sends")
                            : cov.track("rule 4: ptr moves to n != ptr, n sends");
  const auto c_self = cov.require("rule 4: n == ptr re-credited, sends");
  const auto c_credit = multi ? cov.require("rule 4: n != ptr credited, too short")
                              : cov.track("rule 4: n != ptr credited, too short");
  const auto c_self_credit = cov.require("rule 4: n == ptr re-credited, too short");
  const auto c_zero = multi ? cov.require("rule 4: ptr not eligible (empty), deficit cleared")
                            : cov.track("rule 4: ptr not eligible (empty), deficit cleared");
  const auto c_zero_sp = multi ? cov.require("rule 4: ptr turned SP, deficit cleared")
                               : cov.track("rule 4: ptr turned SP, deficit cleared");
  const auto c_wrap = multi ? cov.require("rule 4: n found after wrapping past NumQ-1")
                            : cov.track("rule 4: n found after wrapping past NumQ-1");
  const auto c_not_ready = cov.require("ready low with a grant pending (state held)");
  const auto c_w1 = cov.require("weight 1 credited");
  const auto c_wmax = cov.require("weight max credited");
  const auto c_l1 = cov.require("len 1 granted");
  const auto c_lmax = cov.require("len max granted");
  const auto c_len0 = cov.require("idle queue with len 0 driven");
  const auto c_w0 = cov.require("SP queue with weight 0 driven");
  const auto c_all = cov.require("all queues valid");
  const auto c_long_credit = cov.require("8+ credit-only cycles in a row");
  const auto c_reset = cov.require("reset mid-run");
  std::array<Corners::Id, kNumQ> c_q{};
  for (unsigned q = 0; q < kNumQ; ++q) {
    c_q[q] = cov.require("granted queue " + std::to_string(q) + " with ready");
  }
  const auto when = [&](bool cond, Corners::Id id) {
    if (cond) {
      cov.hit(id);
    }
  };

  std::uniform_int_distribution<std::int64_t> phase_len(50, 3000);
  RandomResets resets(cycles, rng);
  std::int64_t phase_end = 0;
  Phase phase = Phase::kTraffic;
  Stim s;
  // Traffic phase: packets queued per queue, paused queues, arrival odds.
  std::array<unsigned, kNumQ> backlog{};
  std::uint64_t paused = 0;
  unsigned arrive_one_in = 4;
  unsigned ready_mode = 0;
  unsigned credit_run = 0;

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

    if (cycle >= phase_end) {
      phase_end = cycle + phase_len(rng);
      phase = static_cast<Phase>(gen.pick(5) < 3 ? 0 : gen.pick(2) + 1);
      s.sp = gen.sp_mask();
      gen.weights(s);
      ready_mode = gen.pick(4);
      arrive_one_in = 1 + gen.pick(12);
      if (phase == Phase::kTraffic) {
        for (unsigned q = 0; q < kNumQ; ++q) {
          backlog[q] = gen.chance(2) ? 0 : gen.pick(20);
          s.len[q] = gen.len();
        }
        paused = 0;
      }
    }
    switch (phase) {
      case Phase::kTraffic:
        for (unsigned q = 0; q < kNumQ; ++q) {
          if (gen.chance(arrive_one_in)) {
            ++backlog[q];
          }
        }
        if (gen.chance(50)) {
          paused ^= std::uint64_t{1} << gen.pick(kNumQ);
        }
        if (gen.chance(500)) {
          s.sp = gen.sp_mask();
          gen.weights(s);
        }
        s.valid = 0;
        for (unsigned q = 0; q < kNumQ; ++q) {
          if (backlog[q] > 0 && (paused >> q & 1U) == 0) {
            s.valid |= std::uint64_t{1} << q;
          }
        }
        break;
      case Phase::kChaos:
        s.valid = gen.mask();
        s.sp = gen.chance(3) ? 0 : gen.mask();
        for (unsigned q = 0; q < kNumQ; ++q) {
          const bool v = (s.valid >> q & 1U) != 0;
          s.len[q] = (!v && gen.chance(3)) ? 0 : gen.len();
        }
        gen.weights(s);
        break;
      case Phase::kHold:
        if (s.valid == 0) {
          s.valid = gen.mask();
        }
        for (unsigned q = 0; q < kNumQ; ++q) {
          if ((s.valid >> q & 1U) != 0 && s.len[q] == 0) {
            s.len[q] = gen.len();
          }
        }
        break;
    }
    switch (ready_mode) {
      case 0:
        s.ready = true;
        break;  // long burst
      case 1:
        s.ready = gen.chance(2);
        break;  // random
      case 2:
        s.ready = gen.chance(40) ? !s.ready : s.ready;
        break;  // long runs
      default:
        s.ready = !gen.chance(8);
        break;  // mostly ready
    }
    if (phase == Phase::kHold) {
      s.ready = true;
    }
    if (in_reset) {
      s.valid = 0;
    }
    drive(dut, s);

    co_await ReadOnly();
    const SchedInputs in = s.in();
    const SchedDecision d = model.decide(in);
    const bool rtl_valid = dut.grant_valid_o != 0;
    const unsigned rtl_q = dut.grant_q_o;
    if (rtl_valid != d.grant.valid || rtl_q != d.grant.queue) {
      std::ostringstream os;
      os << "sp_wdrr_sched mismatch at cycle " << cycle << ": inputs {" << show(s)
         << "}, model state {" << show(model) << "}: RTL grant valid/q = " << rtl_valid << "/"
         << rtl_q << ", model = " << d.grant.valid << "/" << d.grant.queue;
      TB_FAIL(os.str());
    }
    // Independent of the model: the highest valid SP queue always wins.
    if ((s.valid & s.sp) != 0) {
      TB_CHECK(rtl_valid && rtl_q == 63U - std::countl_zero(s.valid & s.sp))
          << "cycle " << cycle << ": SP precedence broken: " << show(s);
    }

    if (!in_reset) {
      const std::uint64_t w = s.valid & ~s.sp & kAll;
      const unsigned ptr = model.ptr();
      const bool rdy = s.ready;
      const bool wdrr_move = d.rule == SchedRule::kWdrrMove || d.rule == SchedRule::kWdrrCredit;
      when(rdy && d.rule == SchedRule::kSp, c_sp);
      when(rdy && d.rule == SchedRule::kSp && w != 0, c_sp_over);
      when(rdy && std::popcount(s.valid & s.sp) > 1, c_sp_multi);
      when(rdy && s.valid == 0, c_idle);
      when(rdy && d.rule == SchedRule::kWdrrStay, c_stay);
      when(rdy && d.rule == SchedRule::kWdrrMove && d.ptr != ptr, c_move);
      when(rdy && d.rule == SchedRule::kWdrrMove && d.ptr == ptr, c_self);
      when(rdy && d.rule == SchedRule::kWdrrCredit && d.ptr != ptr, c_credit);
      when(rdy && d.rule == SchedRule::kWdrrCredit && d.ptr == ptr, c_self_credit);
      when(rdy && d.zero_old && (s.sp >> ptr & 1U) == 0 && model.deficit(ptr) != 0, c_zero);
      when(rdy && d.zero_old && (s.sp >> ptr & 1U) != 0 && model.deficit(ptr) != 0, c_zero_sp);
      when(rdy && wdrr_move && d.ptr < ptr, c_wrap);
      when(!rdy && d.grant.valid, c_not_ready);
      when(rdy && wdrr_move && s.weight[d.ptr] == 1, c_w1);
      when(rdy && wdrr_move && s.weight[d.ptr] == kWeightMax, c_wmax);
      when(rdy && d.grant.valid && s.len[d.grant.queue] == 1, c_l1);
      when(rdy && d.grant.valid && s.len[d.grant.queue] == kLenMax, c_lmax);
      for (unsigned q = 0; q < kNumQ; ++q) {
        when((s.valid >> q & 1U) == 0 && s.len[q] == 0, c_len0);
        when((s.sp >> q & 1U) != 0 && s.weight[q] == 0, c_w0);
      }
      when(s.valid == kAll, c_all);
      when(rdy && d.grant.valid, c_q[d.grant.queue]);
      credit_run = (rdy && d.rule == SchedRule::kWdrrCredit) ? credit_run + 1
                   : rdy                                     ? 0
                                                             : credit_run;
      when(credit_run == 8, c_long_credit);
    }

    co_await RisingEdge(clk);
    if (!in_reset) {
      model.step(in, s.ready);
      if (phase == Phase::kTraffic && s.ready && d.grant.valid) {
        --backlog[d.grant.queue];
        s.len[d.grant.queue] = gen.len();  // the next head packet
      }
    }
  }
  std::cout << cov.report();
  cov.check();
}
