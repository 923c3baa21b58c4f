// stream_arbiter (NumReq=5) against ref::StreamArbiter, compared every cycle,
// with sources that follow the valid/ready rule (a word, once shown, stays
// until taken; now and then one withdraws, as a soft reset does), plus
// independent checks: the word on the output never changes while it waits,
// every word is taken exactly once, and a source that keeps asking is taken
// before NumReq transfers of others.
#include <Vstream_arbiter.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>
#include <string>

#include "ref/stream_arbiter_ref.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr unsigned kNumReq = 5;
constexpr std::uint32_t kAll = (1U << kNumReq) - 1;
constexpr SimTime kPeriod = 10'000;

// Per-cycle probabilities: a source without a word starts one; the output
// takes what it is shown; a source drops the word it shows.
struct Mode {
  const char* name;
  double start;
  double ready;
  double withdraw;
};
constexpr std::array<Mode, 5> kModes = {{{"flowing", 0.3, 0.9, 0.002},
                                         {"busy", 0.8, 0.6, 0.002},
                                         {"stalled", 0.5, 0.1, 0.002},
                                         {"trickle", 0.05, 0.5, 0.002},
                                         {"withdrawing", 0.6, 0.2, 0.05}}};

// The plain round-robin winner (no lock), for the coverage of the lock.
std::optional<unsigned> rr_winner(std::uint32_t valid, unsigned ptr) {
  for (unsigned k = 0; k < kNumReq; ++k) {
    const unsigned i = (ptr + k) % kNumReq;
    if ((valid >> i) & 1U) {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

SYNCFAB_TEST(stream_arbiter, random) {
  auto& dut = ctx.make_dut<Vstream_arbiter>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 200'000);
  ref::StreamArbiter model(kNumReq);

  Corners cov("stream_arbiter.random");
  const auto c_none = cov.require("no source asks");
  const auto c_all = cov.require("every source asks");
  const auto c_lock_wins = cov.require("lock holds against a source nearer the pointer", 100);
  const auto c_lock_arrival =
      cov.require("a source nearer the pointer starts while the output waits", 100);
  const auto c_release = cov.require("lock released: the waiting source withdrew");
  const auto c_release_other = cov.require("lock released and another source granted at once");
  const auto c_wrap = cov.require("winner found after wrapping past NumReq-1");
  const auto c_long_wait = cov.require("a word waits 4+ cycles on the output");
  const auto c_starve_edge = cov.require("a source taken after NumReq-1 transfers of others");
  const auto c_reset = cov.require("reset with pointer != 0");
  const auto c_reset_locked = cov.track("reset while locked");
  std::array<Corners::Id, kNumReq> c_taken{};
  for (unsigned i = 0; i < kNumReq; ++i) {
    c_taken[i] = cov.require("word of source " + std::to_string(i) + " taken");
  }
  const auto c_transfers = cov.track("transfers");
  const auto c_withdrawn = cov.track("words withdrawn");

  std::bernoulli_distribution switch_mode(1.0 / 64);
  std::uniform_int_distribution<std::size_t> pick_mode(0, kModes.size() - 1);
  const Mode* mode = &kModes[0];
  RandomResets resets(cycles, rng);

  // Source i shows word[i] (a per-source sequence number) while has[i].
  std::array<bool, kNumReq> has{};
  std::array<std::uint32_t, kNumReq> word{};
  std::array<std::uint32_t, kNumReq> next_word{};
  std::array<std::uint32_t, kNumReq> taken_word{};  // next word expected to be taken
  std::array<unsigned, kNumReq> waited{};           // transfers of others while asking
  // The output as shown in the previous cycle, if it was not taken.
  std::optional<std::pair<unsigned, std::uint32_t>> shown;
  unsigned shown_for = 0;
  std::uint32_t prev_valid = 0;

  dut.rst_ni = 0;
  dut.valid_i = 0;
  dut.ready_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;

  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    if (switch_mode(rng)) {
      mode = &kModes[pick_mode(rng)];
    }
    const bool in_reset = resets.step(cycle);
    if (resets.started() && model.pointer() != 0) {
      cov.hit(c_reset);
    }
    if (resets.started() && model.lock_pending()) {
      cov.hit(c_reset_locked);
    }
    if (in_reset) {
      model.reset();
      has.fill(false);
      waited.fill(0);
      taken_word = next_word;
      shown.reset();
    }
    dut.rst_ni = in_reset ? 0 : 1;

    // Sources: start a word, or (rarely) withdraw the one shown.
    std::uint32_t valid = 0;
    bool withdrew_locked = false;
    for (unsigned i = 0; i < kNumReq; ++i) {
      if (!in_reset && has[i] && std::bernoulli_distribution(mode->withdraw)(rng)) {
        has[i] = false;
        taken_word[i] = ++next_word[i];  // that word is gone
        cov.hit(c_withdrawn);
        withdrew_locked = withdrew_locked || (model.lock_pending() && model.lock_idx() == i);
      } else if (!in_reset && !has[i] && std::bernoulli_distribution(mode->start)(rng)) {
        has[i] = true;
        word[i] = next_word[i];
      }
      if (has[i]) {
        valid |= 1U << i;
      }
    }
    const bool ready = std::bernoulli_distribution(mode->ready)(rng);
    dut.valid_i = valid;
    dut.ready_i = ready;

    co_await ReadOnly();
    const auto w = model.winner(valid);
    TB_CHECK_EQ(dut.valid_o, w.has_value())
        << "cycle " << cycle << " valid 0x" << std::hex << valid;
    TB_CHECK_EQ(dut.gnt_o, model.gnt(valid))
        << "cycle " << cycle << " valid 0x" << std::hex << valid << " pointer " << std::dec
        << model.pointer() << (model.lock_pending() ? " locked on " : " unlocked, last ")
        << model.lock_idx();
    TB_CHECK_EQ(dut.idx_o, model.idx(valid)) << "cycle " << cycle;
    TB_CHECK_EQ(dut.ready_o, ready ? model.gnt(valid) : 0U) << "cycle " << cycle;

    if (!in_reset) {
      // The AXI-stream rule on the output, from the sources' side: what was
      // shown and not taken is shown again, unless its source withdrew it.
      if (shown && has[shown->first] && word[shown->first] == shown->second) {
        TB_CHECK(w && *w == shown->first)
            << "cycle " << cycle << ": source " << shown->first << " was shown and not taken, "
            << "but the output now shows " << (w ? std::to_string(*w) : std::string("nothing"));
        ++shown_for;
        if (shown_for >= 4) {
          cov.hit(c_long_wait);
        }
      } else {
        shown_for = 0;
      }
      if (valid == 0) {
        cov.hit(c_none);
      }
      if (valid == kAll) {
        cov.hit(c_all);
      }
      const auto plain = rr_winner(valid, model.pointer());
      if (model.locked(valid) && plain && *plain != model.lock_idx()) {
        cov.hit(c_lock_wins);
        if (((prev_valid >> *plain) & 1U) == 0) {
          cov.hit(c_lock_arrival);
        }
      }
      if (withdrew_locked) {
        cov.hit(c_release);
        if (w) {
          cov.hit(c_release_other);
        }
      }
      if (w && !model.locked(valid) && *w < model.pointer()) {
        cov.hit(c_wrap);
      }
      if (w && ready) {
        const unsigned i = *w;
        TB_CHECK_EQ(word[i], taken_word[i]) << "source " << i << ": words taken out of order";
        taken_word[i] = ++next_word[i];
        has[i] = false;
        cov.hit(c_taken[i]);
        cov.hit(c_transfers);
        if (waited[i] == kNumReq - 1) {
          cov.hit(c_starve_edge);
        }
        for (unsigned j = 0; j < kNumReq; ++j) {
          if (j == i || ((valid >> j) & 1U) == 0) {
            waited[j] = 0;
          } else {
            ++waited[j];
            TB_CHECK(waited[j] < kNumReq) << "source " << j << " starved for " << waited[j]
                                          << " transfers of others (cycle " << cycle << ")";
          }
        }
        shown.reset();
      } else {
        for (unsigned j = 0; j < kNumReq; ++j) {
          if (((valid >> j) & 1U) == 0) {
            waited[j] = 0;
          }
        }
        if (w) {
          shown = std::make_pair(*w, word[*w]);
        } else {
          shown.reset();
        }
      }
    }
    co_await RisingEdge(clk);
    prev_valid = in_reset ? 0 : valid;
    if (!in_reset) {
      model.edge(valid, ready);
    }
  }
  std::cout << cov.report();
  cov.check();
}

// The case the lock exists for, step by step: source 2 is shown and not
// taken; source 0, nearer the pointer, starts asking; the output stays on 2
// until 2 is taken, then serves 0. A source that withdraws releases the lock.
SYNCFAB_TEST(stream_arbiter, lock) {
  auto& dut = ctx.make_dut<Vstream_arbiter>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  dut.rst_ni = 0;
  dut.valid_i = 0;
  dut.ready_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;

  dut.valid_i = 0b00100;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.valid_o, 1);
  TB_CHECK_EQ(dut.idx_o, 2U);
  TB_CHECK_EQ(dut.ready_o, 0U) << "the output is not ready";
  co_await RisingEdge(clk);
  dut.valid_i = 0b00101;  // source 0 arrives; the pointer (0) favours it
  for (int k = 0; k < 3; ++k) {
    co_await ReadOnly();
    TB_CHECK_EQ(dut.idx_o, 2U) << "the waiting word keeps the output (stall cycle " << k << ")";
    TB_CHECK_EQ(dut.gnt_o, 0b00100U);
    co_await RisingEdge(clk);
  }
  dut.ready_i = 1;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.idx_o, 2U);
  TB_CHECK_EQ(dut.ready_o, 0b00100U) << "source 2 is taken";
  co_await RisingEdge(clk);
  dut.valid_i = 0b00001;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.idx_o, 0U) << "then source 0";
  TB_CHECK_EQ(dut.ready_o, 0b00001U);
  co_await RisingEdge(clk);

  // Lock on 3, then 3 withdraws: 1 is granted in that same cycle.
  dut.ready_i = 0;
  dut.valid_i = 0b01000;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.idx_o, 3U);
  co_await RisingEdge(clk);
  dut.valid_i = 0b00010;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.valid_o, 1);
  TB_CHECK_EQ(dut.idx_o, 1U) << "a withdrawn source releases the lock";
  co_await RisingEdge(clk);
  dut.valid_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.valid_o, 0);
  TB_CHECK_EQ(dut.gnt_o, 0U);
  TB_CHECK_EQ(dut.idx_o, 0U) << "idx_o is 0 without a grant";
}
