// damq (NumQueues=4, NumSlots=16, Width=32, AlmostFullSlots=2) against
// ref::Damq, every output compared every cycle. `damq.random` runs `ops`
// random operations (cycles with an enqueue or dequeue attempt; default one
// million) biased towards full/empty and simultaneous enqueue+dequeue, with
// resets in the middle, and fails if a required corner was never reached.
#include <Vdamq.h>

#include <array>
#include <iostream>
#include <ostream>
#include <random>
#include <sstream>
#include <string>

#include "ref/damq_ref.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr unsigned kQueues = 4;
constexpr unsigned kSlots = 16;
constexpr unsigned kAlmostFull = 2;
constexpr unsigned kCntW = 5;  // $clog2(NumSlots + 1)
constexpr SimTime kPeriod = 10'000;

unsigned queue_count(const Vdamq& dut, unsigned q) {
  return static_cast<unsigned>((static_cast<std::uint64_t>(dut.queue_count_o) >> (q * kCntW)) &
                               ((1U << kCntW) - 1));
}

std::string state_of(const ref::Damq& m) {
  std::ostringstream os;
  os << "model: counts";
  for (unsigned q = 0; q < kQueues; ++q) {
    os << " " << m.count(q);
  }
  os << ", free " << m.free_count();
  return os.str();
}

// Where a comparison happens; formatted only when a check fails.
struct Where {
  const char* phase;
  std::int64_t op;
  std::int64_t cycle;
  bool enq;
  unsigned enq_q;
  bool deq;
  unsigned deq_q;
};
std::ostream& operator<<(std::ostream& os, const Where& w) {
  os << w.phase << " op " << w.op << " cycle " << w.cycle << " (enq ";
  if (w.enq) {
    os << "q" << w.enq_q;
  } else {
    os << "-";
  }
  os << ", deq ";
  if (w.deq) {
    os << "q" << w.deq_q;
  } else {
    os << "-";
  }
  return os << ")";
}

// Every output against the model, for the deq_queue_i currently driven.
void compare(const Vdamq& dut, const ref::Damq& m, unsigned deq_q, const Where& where) {
  TB_CHECK_EQ(dut.enq_ready_o, m.enq_ready()) << where << "; " << state_of(m);
  TB_CHECK_EQ(dut.full_o, m.full()) << where << "; " << state_of(m);
  TB_CHECK_EQ(dut.almost_full_o, m.almost_full()) << where << "; " << state_of(m);
  TB_CHECK_EQ(dut.free_count_o, m.free_count()) << where << "; " << state_of(m);
  TB_CHECK_EQ(dut.queue_empty_o, m.empty_mask()) << where << "; " << state_of(m);
  for (unsigned q = 0; q < kQueues; ++q) {
    TB_CHECK_EQ(queue_count(dut, q), m.count(q))
        << "queue " << q << ", " << where << "; " << state_of(m);
  }
  TB_CHECK_EQ(dut.deq_ready_o, m.deq_ready(deq_q)) << "deq_queue " << deq_q << ", " << where;
  if (m.deq_ready(deq_q)) {
    TB_CHECK_EQ(dut.deq_data_o, m.head(deq_q)) << "head of queue " << deq_q << ", " << where;
  }
}

struct Mode {
  const char* name;
  double enq;         // enqueue attempt probability
  double deq;         // dequeue attempt probability
  double same_queue;  // enqueue to the queue being dequeued
  double hog;         // enqueue to the hog queue
};
constexpr std::array<Mode, 6> kModes = {{
    {"fill", 0.9, 0.15, 0.2, 0.0},
    {"drain", 0.15, 0.9, 0.2, 0.0},
    {"balanced", 0.6, 0.6, 0.3, 0.0},
    {"both", 0.95, 0.95, 0.5, 0.0},
    {"hog", 0.85, 0.1, 0.0, 0.95},
    {"same", 0.8, 0.8, 0.9, 0.0},
}};

Task<> reset(Vdamq& dut, Clock& clk) {
  dut.rst_ni = 0;
  dut.enq_valid_i = 0;
  dut.deq_valid_i = 0;
  dut.enq_queue_i = 0;
  dut.deq_queue_i = 0;
  dut.enq_data_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
}

}  // namespace

SYNCFAB_TEST(damq, random) {
  auto& dut = ctx.make_dut<Vdamq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto ops_target = ctx.param("ops", 1'000'000);
  ref::Damq m(kQueues, kSlots, kAlmostFull);

  Corners cov("damq.random");
  const auto c_full = cov.require("full");
  const auto c_almost = cov.require("almost full, not full");
  const auto c_all_empty = cov.require("all queues empty");
  const auto c_enq_full = cov.require("enqueue refused: full");
  const auto c_enq_full_deq = cov.require("enqueue refused: full, same-cycle dequeue frees a slot");
  const auto c_deq_empty = cov.require("dequeue refused: queue empty");
  const auto c_same = cov.require("enqueue+dequeue same queue, both happen");
  const auto c_diff = cov.require("enqueue+dequeue different queues, both happen");
  const auto c_bypass = cov.require("enqueue+dequeue same empty queue (no bypass)");
  const auto c_hog = cov.require("one queue holds every slot");
  const auto c_reset = cov.require("reset while not empty");
  std::array<Corners::Id, kQueues> c_deq{};
  std::array<Corners::Id, kQueues> c_drained{};
  for (unsigned q = 0; q < kQueues; ++q) {
    c_deq[q] = cov.require("dequeue from queue " + std::to_string(q));
    c_drained[q] = cov.require("queue " + std::to_string(q) + " drained to empty");
  }
  const auto c_enqs = cov.track("enqueues");
  const auto c_deqs = cov.track("dequeues");

  std::uniform_int_distribution<std::uint32_t> data;
  std::uniform_int_distribution<unsigned> any_q(0, kQueues - 1);
  std::bernoulli_distribution pick_nonempty(0.85);
  std::bernoulli_distribution switch_mode(1.0 / 64);
  std::discrete_distribution<std::size_t> pick_mode({20, 20, 20, 15, 10, 15});
  const Mode* mode = &kModes[0];
  unsigned hog_q = 0;
  RandomResets resets(ops_target, rng);

  co_await reset(dut, clk);
  std::int64_t ops = 0;
  std::int64_t cycle = 0;
  for (; ops < ops_target; ++cycle) {
    if (switch_mode(rng)) {
      mode = &kModes[pick_mode(rng)];
      hog_q = any_q(rng);
    }
    const bool in_reset = resets.step(ops);
    if (resets.started() && m.used() != 0) {
      cov.hit(c_reset);
    }
    if (in_reset) {
      m.reset();
    }
    dut.rst_ni = in_reset ? 0 : 1;

    const bool enq = std::bernoulli_distribution(mode->enq)(rng);
    const bool deq = std::bernoulli_distribution(mode->deq)(rng);
    unsigned deq_q = any_q(rng);
    if (pick_nonempty(rng) && m.used() != 0) {
      while (m.empty(deq_q)) {
        deq_q = (deq_q + 1) % kQueues;
      }
    }
    unsigned enq_q = any_q(rng);
    if (std::bernoulli_distribution(mode->hog)(rng)) {
      enq_q = hog_q;
    } else if (std::bernoulli_distribution(mode->same_queue)(rng)) {
      enq_q = deq_q;
    }
    const std::uint32_t d = data(rng);
    dut.enq_valid_i = enq;
    dut.enq_queue_i = enq_q;
    dut.enq_data_i = d;
    dut.deq_valid_i = deq;
    dut.deq_queue_i = deq_q;

    co_await ReadOnly();
    const Where where{in_reset ? "in reset," : "at", ops, cycle, enq, enq_q, deq, deq_q};
    compare(dut, m, deq_q, where);
    if (in_reset) {
      co_await RisingEdge(clk);
      continue;
    }

    if (m.full()) {
      cov.hit(c_full);
    }
    if (m.almost_full() && !m.full()) {
      cov.hit(c_almost);
    }
    if (m.used() == 0) {
      cov.hit(c_all_empty);
    }
    for (unsigned q = 0; q < kQueues; ++q) {
      if (m.count(q) == kSlots) {
        cov.hit(c_hog);
      }
    }
    if (enq && m.full()) {
      cov.hit(deq && m.deq_ready(deq_q) ? c_enq_full_deq : c_enq_full);
    }
    if (deq && !m.deq_ready(deq_q)) {
      cov.hit(c_deq_empty);
    }
    if (enq && deq && enq_q == deq_q && m.empty(deq_q)) {
      cov.hit(c_bypass);
    }
    const unsigned before = m.count(deq_q);

    co_await RisingEdge(clk);
    const auto fired = m.edge(enq, enq_q, d, deq, deq_q);
    if (enq || deq) {
      ++ops;
    }
    cov.hit(c_enqs, fired.enq ? 1 : 0);
    cov.hit(c_deqs, fired.deq ? 1 : 0);
    if (fired.enq && fired.deq) {
      cov.hit(enq_q == deq_q ? c_same : c_diff);
    }
    if (fired.deq) {
      cov.hit(c_deq[deq_q]);
      if (before == 1 && m.empty(deq_q)) {
        cov.hit(c_drained[deq_q]);
      }
    }
  }
  std::cout << "  damq: " << ops << " ops in " << cycle << " cycles, " << cov.count("enqueues")
            << " enqueues, " << cov.count("dequeues") << " dequeues, 0 mismatches\n";
  std::cout << cov.report();
  cov.check();
}

// Spelled-out corners: fill one queue to every slot (almost-full and full
// flags on the way), a full buffer refuses an enqueue even when a dequeue
// frees a slot in that cycle, no bypass of an empty queue, FIFO order.
SYNCFAB_TEST(damq, directed) {
  auto& dut = ctx.make_dut<Vdamq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  ref::Damq m(kQueues, kSlots, kAlmostFull);
  co_await reset(dut, clk);
  co_await ReadOnly();
  compare(dut, m, 0, Where{"after reset", 0, 0, false, 0, false, 0});
  TB_CHECK_EQ(dut.free_count_o, kSlots);
  TB_CHECK_EQ(dut.queue_empty_o, 0xF);

  auto cycle = [&](bool enq, unsigned eq, std::uint32_t d, bool deq,
                   unsigned dq) -> Task<ref::Damq::Fired> {
    co_await RisingEdge(clk);
    dut.enq_valid_i = enq;
    dut.enq_queue_i = eq;
    dut.enq_data_i = d;
    dut.deq_valid_i = deq;
    dut.deq_queue_i = dq;
    co_await ReadOnly();
    compare(dut, m, dq, Where{"directed", 0, 0, enq, eq, deq, dq});
    co_await RisingEdge(clk);
    auto f = m.edge(enq, eq, d, deq, dq);
    dut.enq_valid_i = 0;
    dut.deq_valid_i = 0;
    co_await ReadOnly();
    compare(dut, m, dq, Where{"directed, after the edge", 0, 0, enq, eq, deq, dq});
    co_return f;
  };

  // No bypass: enqueue and dequeue the same empty queue in one cycle.
  auto f = co_await cycle(true, 1, 0xB0, true, 1);
  TB_CHECK(f.enq && !f.deq);
  TB_CHECK_EQ(queue_count(dut, 1), 1U);

  // Fill queue 2 with the remaining 15 slots.
  for (std::uint32_t i = 0; i < kSlots - 1; ++i) {
    f = co_await cycle(true, 2, 0x200 + i, false, 0);
    TB_CHECK(f.enq);
    TB_CHECK_EQ(dut.almost_full_o, m.free_count() <= kAlmostFull);
  }
  TB_CHECK_EQ(dut.full_o, 1);
  TB_CHECK_EQ(dut.enq_ready_o, 0);
  TB_CHECK_EQ(queue_count(dut, 2), kSlots - 1);

  // Full: enqueue to queue 3 while dequeuing queue 1 -> only the dequeue.
  f = co_await cycle(true, 3, 0x300, true, 1);
  TB_CHECK(!f.enq && f.deq);
  TB_CHECK_EQ(dut.free_count_o, 1);
  TB_CHECK_EQ(queue_count(dut, 3), 0U);

  // Now one free slot: queue 2 takes it and holds all 16.
  f = co_await cycle(true, 2, 0x20F, false, 0);
  TB_CHECK(f.enq);
  TB_CHECK_EQ(queue_count(dut, 2), kSlots);

  // Drain queue 2 in FIFO order while enqueuing to queue 0 after the first
  // slot is free again.
  for (std::uint32_t i = 0; i < kSlots; ++i) {
    co_await RisingEdge(clk);
    dut.deq_queue_i = 2;
    co_await ReadOnly();
    TB_CHECK_EQ(dut.deq_data_o, 0x200 + i) << "FIFO order in queue 2";
    f = co_await cycle(i > 0, 0, 0x100 + i, true, 2);
    TB_CHECK(f.deq);
  }
  TB_CHECK_EQ(queue_count(dut, 2), 0U);
  TB_CHECK_EQ(queue_count(dut, 0), kSlots - 1);
}
