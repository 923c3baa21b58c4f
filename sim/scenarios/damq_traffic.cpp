// `make run` scenario: the DAMQ as the NIC's request DAMQ under notification
// traffic. Notifications for NumQueues barrier contexts arrive at an offered
// load; each context's descriptor is present (draining its queue) or absent
// (notifications park) for random stretches; a notification that finds the
// DAMQ full is NACKed and its sender retries after a delay, as in DESIGN §5a.
// Every dequeued notification is checked against a per-context FIFO, and all
// must drain once traffic stops. A table per offered load summarises ACKs,
// NACKs, retries, occupancy and waiting time.
#include <Vdamq.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr unsigned kQueues = 4;  // the PARAMS of vl_damq
constexpr unsigned kSlots = 16;
constexpr SimTime kPeriod = 10'000;  // 100 MHz

struct Pending {
  std::uint32_t id;
  unsigned ctx;
  std::uint64_t ready_at;  // cycle the sender may (re)send
  std::uint64_t born;      // cycle it was first offered
};

struct Row {
  unsigned load_pct = 0;
  std::uint64_t offered = 0, acked = 0, nacks = 0, drained = 0;
  std::uint64_t full_cycles = 0, almost_full_cycles = 0, cycles = 0;
  std::uint64_t wait_sum = 0, wait_max = 0;
  unsigned max_occupancy = 0;
};

Task<> reset(Vdamq& dut, Clock& clk) {
  dut.rst_ni = 0;
  dut.enq_valid_i = 0;
  dut.deq_valid_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
  co_await RisingEdge(clk);
}

// One offered load: `cycles` of traffic, then a drain with every descriptor present.
Task<Row> run_load(TestContext& ctx, Vdamq& dut, Clock& clk, unsigned load_pct,
                   std::uint64_t cycles, std::uint64_t retry_delay, std::uint64_t active_len,
                   std::uint64_t idle_len, std::uint32_t& next_id) {
  Row row;
  row.load_pct = load_pct;
  auto& rng = ctx.rng();
  std::bernoulli_distribution arrive(load_pct / 100.0);
  std::uniform_int_distribution<unsigned> pick_ctx(0, kQueues - 1);
  // Descriptor present for ~active_len cycles, absent for ~idle_len.
  std::geometric_distribution<unsigned> active_stretch(1.0 / static_cast<double>(active_len));
  std::geometric_distribution<unsigned> idle_stretch(1.0 / static_cast<double>(idle_len));
  std::array<std::deque<std::pair<std::uint32_t, std::uint64_t>>, kQueues> parked;  // id, born
  std::array<bool, kQueues> active{};
  std::array<std::uint64_t, kQueues> flip_at{};
  for (unsigned q = 0; q < kQueues; ++q) {
    active[q] = (q % 2) == 0;
    flip_at[q] = active[q] ? active_stretch(rng) : idle_stretch(rng);
  }
  // Senders by (time they may send, id): NACKed ones come back after the delay.
  std::map<std::pair<std::uint64_t, std::uint32_t>, Pending> senders;
  unsigned rr = 0;

  co_await reset(dut, clk);
  for (std::uint64_t cyc = 0;; ++cyc) {
    const bool traffic = cyc < cycles;
    if (!traffic && senders.empty() &&
        std::all_of(parked.begin(), parked.end(), [](const auto& d) { return d.empty(); })) {
      break;
    }
    TB_CHECK(cyc < cycles + 100'000) << "load " << load_pct << "%: DAMQ did not drain";
    if (traffic && arrive(rng)) {
      const Pending p{next_id++, pick_ctx(rng), cyc, cyc};
      senders.emplace(std::pair{p.ready_at, p.id}, p);
      ++row.offered;
    }
    for (unsigned q = 0; q < kQueues; ++q) {
      if (!traffic) {
        active[q] = true;
      } else if (cyc >= flip_at[q]) {
        active[q] = !active[q];
        flip_at[q] = cyc + 1 + (active[q] ? active_stretch(rng) : idle_stretch(rng));
      }
    }
    // Drive: the oldest sender whose retry delay has passed; one drain port,
    // round-robin over active, non-empty contexts.
    const auto sender = senders.begin();
    const bool enq = sender != senders.end() && sender->second.ready_at <= cyc;
    dut.enq_valid_i = enq ? 1 : 0;
    if (enq) {
      dut.enq_queue_i = static_cast<CData>(sender->second.ctx);
      dut.enq_data_i = sender->second.id;
    }
    int deq_q = -1;
    for (unsigned i = 0; i < kQueues; ++i) {
      const unsigned q = (rr + i) % kQueues;
      if (active[q] && !parked[q].empty()) {
        deq_q = static_cast<int>(q);
        break;
      }
    }
    dut.deq_valid_i = deq_q >= 0 ? 1 : 0;
    dut.deq_queue_i = static_cast<CData>(deq_q >= 0 ? deq_q : 0);

    co_await ReadOnly();  // settled: these handshakes happen at the next edge
    const bool acked = enq && dut.enq_ready_o;
    if (deq_q >= 0) {
      TB_CHECK(dut.deq_ready_o) << "context " << deq_q << " holds " << parked[deq_q].size()
                                << " notifications but the DAMQ says it is empty";
      TB_CHECK_EQ(dut.deq_data_o, parked[deq_q].front().first)
          << "context " << deq_q << " drained out of order at cycle " << cyc;
      const std::uint64_t wait = cyc - parked[deq_q].front().second;
      row.wait_sum += wait;
      row.wait_max = std::max(row.wait_max, wait);
      parked[deq_q].pop_front();
      ++row.drained;
      rr = static_cast<unsigned>(deq_q) + 1;
    }
    if (enq) {
      Pending p = sender->second;
      senders.erase(sender);
      if (acked) {
        parked[p.ctx].emplace_back(p.id, p.born);
        ++row.acked;
      } else {
        ++row.nacks;  // DAMQ full: NACK, the sender retries after the delay
        p.ready_at = cyc + retry_delay;
        senders.emplace(std::pair{p.ready_at, p.id}, p);
      }
    }
    row.full_cycles += dut.full_o;
    row.almost_full_cycles += dut.almost_full_o;
    row.max_occupancy = std::max(row.max_occupancy, kSlots - dut.free_count_o);
    ++row.cycles;
    co_await RisingEdge(clk);
  }
  TB_CHECK_EQ(row.acked, row.offered) << "every offered notification must be accepted eventually";
  TB_CHECK_EQ(row.drained, row.acked) << "every accepted notification must drain";
  TB_CHECK_EQ(dut.free_count_o, kSlots);
  co_return row;
}

}  // namespace

SYNCFAB_TEST(run, damq_traffic) {
  auto& dut = ctx.make_dut<Vdamq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  const auto cycles = static_cast<std::uint64_t>(ctx.param("cycles", 40'000));
  const auto retry_delay = static_cast<std::uint64_t>(ctx.param("retry_delay", 64));
  const auto active_len = static_cast<std::uint64_t>(ctx.param("active_len", 200));
  const auto idle_len = static_cast<std::uint64_t>(ctx.param("idle_len", 40));
  TB_CHECK(active_len > 0 && idle_len > 0) << "active_len and idle_len must be positive";
  std::uint32_t next_id = 1;
  std::vector<Row> rows;
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned load : {20U, 40U, 60U, 80U, 95U}) {
    rows.push_back(
        co_await run_load(ctx, dut, clk, load, cycles, retry_delay, active_len, idle_len, next_id));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf(
      "\nRequest DAMQ under notification traffic: %u contexts, %u shared slots, NACK retry "
      "after %llu cycles; each context's descriptor is present for ~%llu cycles, then absent "
      "for ~%llu (its notifications park). Load = notifications offered per cycle; waits in "
      "cycles from first offer to drain.\n\n",
      kQueues, kSlots, static_cast<unsigned long long>(retry_delay),
      static_cast<unsigned long long>(active_len), static_cast<unsigned long long>(idle_len));
  std::printf(
      "| load | offered | ACKed | NACKs | NACKs per offer | cycles full | cycles almost "
      "full | max occupancy | mean wait | max wait |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::uint64_t sim_cycles = 0;
  for (const Row& r : rows) {
    sim_cycles += r.cycles;
    std::printf("| %u%% | %llu | %llu | %llu | %.3f | %.1f%% | %.1f%% | %u/%u | %.1f | %llu |\n",
                r.load_pct, static_cast<unsigned long long>(r.offered),
                static_cast<unsigned long long>(r.acked), static_cast<unsigned long long>(r.nacks),
                r.offered ? static_cast<double>(r.nacks) / static_cast<double>(r.offered) : 0.0,
                100.0 * static_cast<double>(r.full_cycles) / static_cast<double>(r.cycles),
                100.0 * static_cast<double>(r.almost_full_cycles) / static_cast<double>(r.cycles),
                r.max_occupancy, kSlots,
                r.drained ? static_cast<double>(r.wait_sum) / static_cast<double>(r.drained) : 0.0,
                static_cast<unsigned long long>(r.wait_max));
  }
  std::printf(
      "\nEvery notification drained in order, none lost. %llu cycles simulated in %.2f s "
      "(%.0f cycles/s%s).\n\n",
      static_cast<unsigned long long>(sim_cycles), secs, static_cast<double>(sim_cycles) / secs,
      ctx.tracing() ? ", tracing on" : "");
}
