// nic_top under the unchanged driver (Nic / BarrierContext on RtlDevice), with
// a host memory on the memory port and a network BFM playing every peer
// (nic_top_bench.hpp). Expected results come from docs/barrier-protocol.md:
// completions (§7), the round gate and the completion rule as safety checks
// (§6, §7), counters (§4, §6, §7) — the rule is named next to each check.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nic_top_bench.hpp"
#include "syncfab/driver/barrier_desc.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/nic_regs.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::nic_top;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace nic = syncfab::hw::nic;
namespace fmt = syncfab::fmt;

namespace {

constexpr auto kTimeout = std::chrono::microseconds(400);

struct Counters {
  std::uint32_t sent, recv, nack_sent, nack_recv, retry, completion, error, drop, dup;
};
Counters read_counters(hw::Device& d) {
  hw::Csr c(d);
  return {c.read(nic::CNT_NOTIF_SENT), c.read(nic::CNT_NOTIF_RECV), c.read(nic::CNT_NACK_SENT),
          c.read(nic::CNT_NACK_RECV),  c.read(nic::CNT_RETRY),      c.read(nic::CNT_COMPLETION),
          c.read(nic::CNT_ERROR),      c.read(nic::CNT_DROP),       c.read(nic::CNT_DUP)};
}

// Counter identities of this single-NIC world: every peer NOTIFY is one the
// NIC expects, so each ACK is a RECV (§4 rule 5/6) and each NACK a NACK_SENT;
// every NACK the peers send matches a send in flight (NACK_RECV = RETRY,
// retry limit 0); garbage is DROP; a repeated NOTIFY is DUP or DROP.
void check_counters(Bench& b, unsigned errors) {
  const Counters c = read_counters(b.dev);
  const NetCounts& n = b.world.counts();
  TB_CHECK_EQ(c.sent, n.notif_sent) << "CNT_NOTIF_SENT";
  TB_CHECK_EQ(c.retry, n.resends) << "CNT_RETRY";
  TB_CHECK_EQ(c.nack_recv, n.nacks_to_nic) << "CNT_NACK_RECV";
  TB_CHECK_EQ(c.retry, c.nack_recv) << "every NACK re-sent (limit 0)";
  TB_CHECK_EQ(c.recv, n.acks_from_nic) << "CNT_NOTIF_RECV";
  TB_CHECK_EQ(c.nack_sent, n.nacks_from_nic) << "CNT_NACK_SENT";
  // A NOTIFY sent again after its ACK (Knobs::dup) is DUP while its
  // barrier runs and DROP (stale) after: the two together.
  TB_CHECK_EQ(c.drop + c.dup, n.garbage + n.dup_acks) << "CNT_DROP + CNT_DUP";
  TB_CHECK(c.drop >= n.garbage) << "CNT_DROP";
  TB_CHECK_EQ(c.completion, b.mem.cq_writes().size()) << "CNT_COMPLETION";
  TB_CHECK_EQ(c.error, errors) << "CNT_ERROR";
}

// One driver barrier on `bc`, the peers scheduled first (skew cycles).
void run_barrier(Bench& b, drv::BarrierContext& bc, const std::vector<std::uint16_t>& lids,
                 unsigned skew, std::optional<drv::SubmitPath> path = std::nullopt,
                 drv::WaitMode mode = drv::WaitMode::kPoll) {
  const std::uint16_t epoch = bc.next_descriptor(mode).epoch();
  b.world.expect(bc.id(), epoch, bc.schedule(), lids, skew, 0);
  if (path) {
    bc.arrive(*path, mode);
  } else {
    bc.arrive(drv::SubmitPath::kHdq, mode);
  }
  TB_CHECK(bc.wait(kTimeout)) << "barrier ctx " << bc.id() << " epoch " << epoch
                              << " did not complete within " << kTimeout.count() << " us";
}

void finish(Bench& b, unsigned errors) {
  b.idle_cycles(200);  // last responses out
  TB_CHECK(b.net.idle()) << "network BFM still has packets to inject";
  b.world.verify(b.mem.cq_writes());
  check_counters(b, errors);
}

}  // namespace

// One barrier over the HDQ, completion by CQ polling; checks the identity,
// HW_CFG, the figures (cycles from arrive to the CQ entry).
SYNCFAB_TEST(nic_top, hdq_poll) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  TB_CHECK_EQ(n.hw().num_ctx, kNumCtx);
  TB_CHECK_EQ(n.hw().k_max, 4U);
  TB_CHECK_EQ(n.hw().hdq_depth, 2U);
  const auto lids = rank_lids(8, 3);
  auto bc = n.open_context(drv::ContextConfig(1, 3, 8, 1, lids, drv::SubmitPath::kHdq));
  const std::uint64_t start = b.clk.cycles();
  run_barrier(b, bc, lids, 0);
  const auto& cq = b.mem.cq_writes();
  TB_CHECK_EQ(cq.size(), 1U);
  const std::uint64_t heard = b.world.last_accept_cycle(1, cq[0].epoch);
  std::cout << "nic_top.hdq_poll: p=8 k=1 (3 rounds): arrive() to CQ entry " << cq[0].cycle - start
            << " cycles (HDQ PIO included); last NOTIFY taken to CQ entry " << cq[0].cycle - heard
            << " cycles\n";
  finish(b, 0);
}

// Same over the SDQ (descriptor fetched by DMA), random memory latency.
SYNCFAB_TEST(nic_top, sdq_poll) {
  Knobs k;
  k.mem_latency = 6;
  k.mem_stall = 0.3;
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(27, 5);
  auto bc = n.open_context(drv::ContextConfig(2, 5, 27, 2, lids, drv::SubmitPath::kSdq));
  const std::uint64_t start = b.clk.cycles();
  run_barrier(b, bc, lids, 50, drv::SubmitPath::kSdq);
  std::cout << "nic_top.sdq_poll: p=27 k=2: arrive() to CQ entry "
            << b.mem.cq_writes().at(0).cycle - start << " cycles\n";
  finish(b, 0);
}

// Completion by interrupt (flag_irq, INTR_STATUS.DONE, the intr line).
SYNCFAB_TEST(nic_top, interrupt) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(5, 0);
  auto bc = n.open_context(drv::ContextConfig(0, 0, 5, 3, lids));
  run_barrier(b, bc, lids, 100, drv::SubmitPath::kHdq, drv::WaitMode::kInterrupt);
  TB_CHECK(n.stats().done_irqs >= 1U) << "the driver saw the DONE interrupt";
  finish(b, 0);
}

// Two contexts at once, one through each queue.
SYNCFAB_TEST(nic_top, two_contexts) {
  Knobs k;
  k.tx_stall = 0.3;
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto la = rank_lids(16, 7);
  const auto lb = rank_lids(9, 2);
  auto a = n.open_context(drv::ContextConfig(0, 7, 16, 1, la));
  auto c = n.open_context(drv::ContextConfig(3, 2, 9, 2, lb));
  b.world.expect(0, a.next_descriptor(drv::WaitMode::kPoll).epoch(), a.schedule(), la, 300, 0);
  b.world.expect(3, c.next_descriptor(drv::WaitMode::kPoll).epoch(), c.schedule(), lb, 300, 0);
  a.arrive(drv::SubmitPath::kHdq);
  c.arrive(drv::SubmitPath::kSdq);
  TB_CHECK(a.wait(kTimeout)) << "ctx 0";
  TB_CHECK(c.wait(kTimeout)) << "ctx 3";
  finish(b, 0);
}

// Consecutive barriers on one context; the peers of barrier n+1 start while
// this NIC is still in n (their NOTIFYs park, §4 rule 6, and drain, §5).
SYNCFAB_TEST(nic_top, consecutive) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(6, 4);
  auto bc = n.open_context(drv::ContextConfig(2, 4, 6, 1, lids));
  const unsigned count = 5;
  std::uint16_t epoch = bc.next_descriptor(drv::WaitMode::kPoll).epoch();
  b.world.expect(2, epoch, bc.schedule(), lids, 40, 0);
  const std::uint64_t start = b.clk.cycles();
  for (unsigned i = 0; i < count; ++i) {
    bc.arrive(i % 2 == 0 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq);
    if (i + 1 < count) {
      b.world.expect(2, static_cast<std::uint16_t>(epoch + 1), bc.schedule(), lids, 40, 0);
    }
    TB_CHECK(bc.wait(kTimeout)) << "barrier " << i;
    ++epoch;
  }
  std::cout << "nic_top.consecutive: " << count << " barriers p=6 in " << b.clk.cycles() - start
            << " cycles (" << (b.clk.cycles() - start) / count << " per barrier with the driver)\n";
  finish(b, 0);
}

// A malformed descriptor completes with DESC_ERROR and its code (§3, §7); the
// next descriptor still runs.
SYNCFAB_TEST(nic_top, malformed_then_good) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(4, 1);
  auto bc = n.open_context(drv::ContextConfig(1, 1, 4, 1, lids));
  fmt::BarrierDesc bad = bc.next_descriptor(drv::WaitMode::kPoll);
  bad.set_opcode(static_cast<fmt::Opcode>(0x7E)).set_epoch(0x4242).set_flag_cq_entry(false);
  const auto t1 = n.submit_raw_descriptor(bad, drv::SubmitPath::kHdq);
  const drv::CqRecord r1 = n.wait_raw(t1, kTimeout);
  TB_CHECK(r1.status == fmt::CqStatus::kDescError && r1.err == fmt::ErrCode::kBadOpcode)
      << drv::describe(r1);
  TB_CHECK_EQ(r1.epoch, 0x4242U) << "raw epoch in the entry (§7)";
  fmt::BarrierDesc rounds = bc.next_descriptor(drv::WaitMode::kPoll);
  rounds.set_num_rounds(21).set_epoch(0x4243);
  const auto t2 = n.submit_raw_descriptor(rounds, drv::SubmitPath::kSdq);
  const drv::CqRecord r2 = n.wait_raw(t2, kTimeout);
  TB_CHECK(r2.err == fmt::ErrCode::kBadRounds) << drv::describe(r2);
  run_barrier(b, bc, lids, 20);
  finish(b, 2);
}

// Descriptor fields the driver never sets, as raw descriptors (§2, §7): the
// most rounds a descriptor carries (MAX_ROUNDS, every round to one peer)
// with a completion write beside the CQ entry, then a descriptor of no
// rounds and no completion flag, which completes silently (counted, no
// entry, no write), and one whose completion write the memory refuses.
SYNCFAB_TEST(nic_top, completion_write_max_rounds) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(2, 0);
  const drv::BarrierSchedule s{0, 2, 1,
                               std::vector<drv::BarrierRoundPeers>(
                                   drv::kBarrierMaxRounds, drv::BarrierRoundPeers{{1}, {1}})};
  const hw::BusAddr addr = kMemBase + kMemBytes - 64;  // above the driver's rings
  const std::uint64_t value = 0x5EED'0000'0000'0000ULL | ctx.seed();
  drv::BarrierCompletion cw;
  cw.write = true;
  cw.addr = addr;
  cw.value = value;
  const std::uint16_t epoch = 0x0100;
  b.world.expect(3, epoch, s, lids, 10, 0);
  const auto t = n.submit_raw_descriptor(drv::encode_barrier_desc(s, lids, 3, epoch, cw),
                                         drv::SubmitPath::kHdq);
  const drv::CqRecord r = n.wait_raw(t, kTimeout);
  TB_CHECK(r.ok()) << drv::describe(r);
  std::array<std::byte, 8> got{};
  b.memory.read(addr, got);
  std::uint64_t word = 0;
  for (unsigned i = 0; i < 8; ++i) {
    word |= std::uint64_t{std::to_integer<std::uint8_t>(got[i])} << (8 * i);
  }
  TB_CHECK_EQ(word, value) << "completion write (§7, little-endian)";

  hw::Csr csr(b.dev);
  const std::uint32_t done = csr.read(nic::CNT_COMPLETION);
  drv::BarrierCompletion none;
  none.cq_entry = false;
  const drv::BarrierSchedule alone{0, 1, 1, {}};
  n.submit_raw_descriptor(drv::encode_barrier_desc(alone, rank_lids(1, 0), 3, epoch + 1, none),
                          drv::SubmitPath::kSdq);
  b.idle_cycles(400);
  TB_CHECK_EQ(csr.read(nic::CNT_COMPLETION), done + 1) << "a silent completion is counted";
  TB_CHECK_EQ(b.mem.cq_writes().size(), 1U) << "and posts no entry";

  // A completion write the memory refuses (past its end): the entry says
  // NET_ERROR / DMA_ERROR (§7 step 1).
  drv::BarrierCompletion refused;
  refused.write = true;
  refused.addr = kMemBase + kMemBytes;
  const auto t3 = n.submit_raw_descriptor(
      drv::encode_barrier_desc(alone, rank_lids(1, 0), 3, epoch + 2, refused),
      drv::SubmitPath::kHdq);
  const drv::CqRecord r3 = n.wait_raw(t3, kTimeout);
  TB_CHECK(r3.status == fmt::CqStatus::kNetError && r3.err == fmt::ErrCode::kDmaError)
      << drv::describe(r3);
  TB_CHECK(b.net.idle()) << "network BFM still has packets to inject";
  b.world.verify(b.mem.cq_writes());
}

// Every NOTIFY the NIC ACKs comes once more (its ACK lost, §4), 1 to 200
// cycles after its ACK: while the barrier runs the copy is DUP (rule 5:
// already marked; rule 6: already parked), after it a stale DROP (rule 4);
// each is ACKed again and the barrier is unaffected. The peers' rounds come
// 400 cycles apart, so the copies of rounds 0 and 1 arrive before round 2's
// NOTIFYs and are DUP whatever the NIC's timing; those of round 2 race the
// completion, and one more copy sent after the CQ entry is certainly stale.
SYNCFAB_TEST(nic_top, duplicate_notify) {
  constexpr unsigned kRoundGap = 400;
  Knobs k;
  k.dup = 1.0;
  k.peer_retry = 200;
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(27, 4);
  auto bc = n.open_context(drv::ContextConfig(1, 4, 27, 2, lids));
  const std::uint16_t epoch = bc.next_descriptor(drv::WaitMode::kPoll).epoch();
  b.world.expect(bc.id(), epoch, bc.schedule(), lids, 30, kRoundGap);
  bc.arrive(drv::SubmitPath::kHdq, drv::WaitMode::kPoll);
  TB_CHECK(bc.wait(kTimeout)) << "barrier did not complete within " << kTimeout.count() << " us";
  const unsigned last = static_cast<unsigned>(bc.schedule().rounds.size()) - 1;
  const std::uint16_t late = lids.at(bc.schedule().rounds.at(last).expect_from.at(0));
  b.world.send_again(bc.id(), epoch, last, late, 1);
  b.idle_cycles(600);  // the last copies after the completion
  const Counters c = read_counters(b.dev);
  TB_CHECK(c.dup >= 4) << "CNT_DUP " << c.dup << ": the copies of rounds 0 and 1";
  TB_CHECK(c.drop >= 1) << "CNT_DROP " << c.drop << ": the copy after the completion";
  TB_CHECK_EQ(b.world.counts().dup_acks, 7U) << "every NOTIFY heard came once more, one twice";
  std::cout << "nic_top.duplicate_notify: " << c.dup << " DUP, " << c.drop << " DROP\n";
  finish(b, 0);
}

// NACKs: the peers NACK our NOTIFYs (TE re-sends after RETRY_DELAY, §6) and
// flood the 4-slot request DAMQ before the descriptor arrives (SE NACKs,
// §4 rule 6; the peers re-send).
SYNCFAB_TEST(nic_top, nack_retry) {
  Knobs k;
  k.peer_retry = 60;
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b, 25));
  b.watch_cq();
  const auto lids = rank_lids(64, 10);  // k = 3: 3 rounds, 9 expected NOTIFYs
  auto bc = n.open_context(drv::ContextConfig(0, 10, 64, 3, lids));
  b.world.force_nacks(4);
  run_barrier(b, bc, lids, 0);
  const NetCounts& c = b.world.counts();
  TB_CHECK(c.nacks_from_nic > 0) << "the DAMQ flood made SE NACK";
  TB_CHECK_EQ(c.nacks_to_nic, 4U);
  finish(b, 0);
}

// RETRY_LIMIT (§6): the peer NACKs every NOTIFY; after the original and
// RETRY_LIMIT re-sends TE gives up and the descriptor completes with
// NET_ERROR / RETRY_LIMIT.
SYNCFAB_TEST(nic_top, retry_limit) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::NicOptions o = nic_options(b, 8);
  o.retry_limit = 2;
  drv::Nic n(b.dev, b.memory, o);
  b.watch_cq();
  const auto lids = rank_lids(2, 0);
  auto bc = n.open_context(drv::ContextConfig(2, 0, 2, 1, lids));
  b.world.force_nacks(16);
  const fmt::BarrierDesc d = bc.next_descriptor(drv::WaitMode::kPoll);
  b.world.expect(2, d.epoch(), bc.schedule(), lids, 0, 0);
  const drv::CqRecord r = n.wait_raw(n.submit_raw_descriptor(d, drv::SubmitPath::kHdq), kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kNetError && r.err == fmt::ErrCode::kRetryLimit)
      << drv::describe(r);
  hw::Csr csr(b.dev);
  TB_CHECK_EQ(csr.read(nic::CNT_RETRY), 2U) << "RETRY_LIMIT re-sends, then the error";
  TB_CHECK_EQ(csr.read(nic::CNT_ERROR), 1U);
}

// A NOTIFY that reaches the engine before the driver enables it is NACKed
// (§4 rule 2); the peer re-sends it and the barrier completes once enabled.
SYNCFAB_TEST(nic_top, nack_while_disabled) {
  Knobs k;
  k.peer_retry_min = 20;
  k.peer_retry = 40;
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  const auto lids = rank_lids(2, 1);
  b.world.expect(1, 7, drv::build_barrier_schedule(1, 2, 1), lids, 0, 0);
  b.idle_cycles(20);
  TB_CHECK(b.world.counts().nacks_from_nic > 0) << "the disabled engine NACKed the NOTIFY";
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  auto bc = n.open_context(drv::ContextConfig(1, 1, 2, 1, lids, drv::SubmitPath::kHdq,
                                              drv::WaitMode::kPoll, std::uint16_t{7}));
  bc.arrive();
  TB_CHECK(bc.wait(kTimeout)) << "barrier ctx 1 epoch 7 did not complete";
  finish(b, 0);
}

// CTRL.SOFT_RESET (§8) mid-barrier, through the driver's close(): a context
// waiting for notifications that never come and a NOTIFY parked for a context
// with no descriptor are wiped (SE clears its contexts and walks the request
// DAMQ out; TE, OF, CQ reset); STATUS shows nothing active; afterwards the
// parked barrier runs from scratch: its NOTIFY must be heard again (RECV, not
// DUP), so the parked copy is gone.
SYNCFAB_TEST(nic_top, soft_reset) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  const auto l4 = rank_lids(4, 0);
  const auto l2 = rank_lids(2, 1);
  {
    drv::NicOptions o = nic_options(b);
    o.drain_timeout = std::chrono::microseconds(2);
    drv::Nic n(b.dev, b.memory, o);
    b.watch_cq();
    auto stuck = n.open_context(drv::ContextConfig(0, 0, 4, 1, l4));
    const std::uint16_t e0 = stuck.next_descriptor(drv::WaitMode::kPoll).epoch();
    // Registered with the peers but with no NOTIFY: the NIC sends round 0
    // and then waits for ever.
    auto silent = drv::build_barrier_schedule(0, 4, 1);
    b.world.expect(0, e0, silent, l4, 0, 0, 1'000'000);
    stuck.arrive();
    // A NOTIFY of ctx 1 epoch 7 parks (no descriptor on ctx 1 yet).
    b.world.expect(1, 7, drv::build_barrier_schedule(1, 2, 1), l2, 0, 0);
    b.idle_cycles(300);
    TB_CHECK_EQ(hw::Csr(b.dev).read(nic::STATUS_ACTIVE_CTX), 1U);
    b.world.abandon(1, 7);
    stuck.close();
    TB_CHECK_EQ(n.close(), 1U) << "one barrier abandoned by close()";
    b.world.abandon(0, e0);
  }
  TB_CHECK(b.world.empty()) << "nothing left to inject";
  hw::Csr csr(b.dev);
  TB_CHECK_EQ(csr.read(nic::STATUS_ACTIVE_CTX), 0U) << "§8: every context gone";
  TB_CHECK_EQ(csr.read(nic::STATUS_BUSY), 0U) << "§8: nothing queued or running";
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  auto again = n.open_context(drv::ContextConfig(1, 1, 2, 1, l2, drv::SubmitPath::kHdq,
                                                 drv::WaitMode::kPoll, std::uint16_t{7}));
  b.idle_cycles(50);
  run_barrier(b, again, l2, 100);
  finish(b, 0);
}

// An unaligned CSR access is a bus error (§8): PSLVERR for reads and writes
// at each byte offset past a register, PRDATA 0, nothing written (SCRATCH
// and NODE_LID keep their values, CTRL.ENABLE stays 0). The driver's
// RtlDevice refuses such an offset before the bus; the APB port is driven
// here directly.
SYNCFAB_TEST(nic_top, csr_unaligned_pslverr) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  const auto scratch = static_cast<std::uint32_t>(ctx.rng()());
  TB_CHECK(!(co_await b.apb.write(nic::SCRATCH.offset, scratch)).error);
  for (const std::uint32_t reg : {nic::SCRATCH.offset, nic::CTRL.offset, nic::NODE_LID.offset}) {
    for (std::uint32_t lsb = 1; lsb < 4; ++lsb) {
      const std::uint32_t a = reg + lsb;
      const ApbResult w = co_await b.apb.write(a, 0xFFFF'FFFFU);
      TB_CHECK(w.error) << "unaligned write of offset " << a << " did not answer PSLVERR";
      const ApbResult r = co_await b.apb.read(a);
      TB_CHECK(r.error) << "unaligned read of offset " << a << " did not answer PSLVERR";
      TB_CHECK_EQ(r.data, 0U) << "unaligned read of offset " << a << ": PRDATA";
    }
  }
  hw::Csr csr(b.dev);
  TB_CHECK_EQ(csr.read(nic::SCRATCH), scratch) << "SCRATCH written unaligned";
  TB_CHECK_EQ(csr.read(nic::NODE_LID), kOwnLid) << "NODE_LID written unaligned";
  TB_CHECK_EQ(csr.read(nic::CTRL_ENABLE), 0U) << "CTRL.ENABLE written unaligned";
}

// Random: barriers of random size, fan-out and rank on random contexts (up
// to four at once), random paths and wait modes, peer skew, NACKs both ways,
// garbage headers, tx and memory backpressure. Every barrier is checked for
// safety; counters at the end.
SYNCFAB_TEST(nic_top, random) {
  auto& rng = ctx.rng();
  Knobs k;
  k.tx_stall = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
  k.mem_stall = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
  k.mem_latency = 1 + static_cast<unsigned>(rng() % 12);
  k.nack = std::uniform_real_distribution<double>(0.0, 0.3)(rng);
  k.resp_delay = 1 + static_cast<unsigned>(rng() % 30);
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  drv::Nic n(b.dev, b.memory, nic_options(b, static_cast<std::uint32_t>(rng() % 40)));
  b.watch_cq();
  const auto rounds = static_cast<unsigned>(ctx.param("rounds", 12));
  const auto wall0 = std::chrono::steady_clock::now();
  const std::uint64_t cyc0 = b.clk.cycles();
  unsigned barriers = 0;
  for (unsigned it = 0; it < rounds; ++it) {
    const unsigned nctx = 1 + static_cast<unsigned>(rng() % kNumCtx);
    std::vector<drv::BarrierContext> ctxs;
    std::vector<std::vector<std::uint16_t>> lidsv;
    std::vector<drv::WaitMode> modes;
    for (unsigned c = 0; c < nctx; ++c) {
      const auto p = static_cast<std::uint32_t>(1 + rng() % 40);
      const auto rank = static_cast<std::uint32_t>(rng() % p);
      const auto fan = static_cast<unsigned>(1 + rng() % 4);
      lidsv.push_back(rank_lids(p, rank));
      ctxs.push_back(n.open_context(drv::ContextConfig(c, rank, p, fan, lidsv.back())));
      modes.push_back(rng() % 3 == 0 ? drv::WaitMode::kInterrupt : drv::WaitMode::kPoll);
    }
    if (rng() % 2 == 0) {  // garbage: unknown type, foreign dst, stray and unmatched responses
      fmt::PktHdr g;
      switch (rng() % 4) {
        case 0:
          g.set_pkt_type(fmt::PktType::kCombArrive).set_len_flits(1).set_dst_lid(kOwnLid);
          break;
        case 1:
          g.set_pkt_type(fmt::PktType::kNotify).set_len_flits(1).set_dst_lid(0x0777);
          break;
        case 2:
          g.set_pkt_type(fmt::PktType::kAck).set_len_flits(2).set_dst_lid(kOwnLid);
          break;
        default:
          g.set_pkt_type(fmt::PktType::kNack).set_len_flits(1).set_dst_lid(kOwnLid);
          g.set_src_lid(0x0FFF).set_ctx(1).set_epoch(0x9999);
          break;
      }
      b.world.inject_garbage(g, rng() % 200);
    }
    for (unsigned c = 0; c < nctx; ++c) {
      const std::uint16_t epoch = ctxs[c].next_descriptor(modes[c]).epoch();
      b.world.expect(c, epoch, ctxs[c].schedule(), lidsv[c], static_cast<unsigned>(rng() % 400),
                     static_cast<unsigned>(rng() % 30));
      ctxs[c].arrive(rng() % 2 == 0 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq, modes[c]);
    }
    for (unsigned c = 0; c < nctx; ++c) {
      TB_CHECK(ctxs[c].wait(kTimeout)) << "iteration " << it << " ctx " << c;
      ++barriers;
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const std::uint64_t cycles = b.clk.cycles() - cyc0;
  std::cout << "nic_top.random: " << barriers << " barriers in " << cycles << " cycles, "
            << static_cast<std::uint64_t>(static_cast<double>(cycles) / wall)
            << " cycles/s (driver, APB and BFMs included)\n";
  finish(b, 0);
}
