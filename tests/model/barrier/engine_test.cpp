// Directed tests of the barrier protocol rules (docs/barrier-protocol.md §
// "Rules"), one NIC, the test playing the peers.
#include <cstdlib>

#include "engine_fixture.hpp"

namespace syncfab::model::test {
namespace {

using fmt::PktType;

constexpr std::uint16_t kA = 0x21;
constexpr std::uint16_t kB = 0x22;
constexpr std::uint16_t kC = 0x23;

bool done(const BarrierEngine& e, std::size_t n = 1) { return e.completions().size() >= n; }

TEST_F(EngineTest, ZeroRoundsCompletesAtOnceWithEveryFlag) {
  post(desc(1, 7, 1, {}));
  ASSERT_TRUE(run_until([&] { return done(eng_); }, 100));
  const auto& c = eng_.completions()[0];
  EXPECT_EQ(c.status, fmt::CqStatus::kOk);
  EXPECT_EQ(mem_.read64(kFlagAddr + 8), 0xC0DE0007U);
  const auto e = cq_entry(0);
  EXPECT_EQ(e.ctx(), 1);
  EXPECT_EQ(e.epoch(), 7);
  EXPECT_EQ(e.status(), fmt::CqStatus::kOk);
  EXPECT_EQ(e.err_code(), fmt::ErrCode::kNone);
  EXPECT_TRUE(e.phase());
  EXPECT_EQ(reg(nic::CQ_HEAD), 1U);
  EXPECT_TRUE(eng_.irq());
  EXPECT_EQ(reg(nic::INTR_STATUS), nic::INTR_STATUS_DONE.mask);
  eng_.csr_write(nic::INTR_STATUS.offset, nic::INTR_STATUS_DONE.mask);
  EXPECT_FALSE(eng_.irq());
  EXPECT_EQ(cnt(Counter::kCompletion), 1U);
  EXPECT_TRUE(out_.empty());
}

TEST_F(EngineTest, RoundRSentOnlyAfterRoundsBelowHeardAndDoneAfterAllAcks) {
  // Round 0: send A, expect C. Round 1: send B, expect A.
  post(desc(0, 1, 1, {{{kA}, {kC}}, {{kB}, {kA}}}));
  run(50);
  auto sent = take(PktType::kNotify);
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].dst_lid(), kA);
  EXPECT_EQ(sent[0].src_lid(), kMe);
  EXPECT_EQ(sent[0].round(), 0);
  EXPECT_EQ(sent[0].epoch(), 1);
  // Round 1's own notification arrives early: taken, but round 1 not sent.
  notify(kA, 0, 1, 1);
  run(20);
  EXPECT_TRUE(take(PktType::kNotify).empty());
  ASSERT_EQ(take(PktType::kAck).size(), 1U);
  notify(kC, 0, 1, 0);  // round 0 complete -> round 1 may go
  run(20);
  sent = take(PktType::kNotify);
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].dst_lid(), kB);
  EXPECT_EQ(sent[0].round(), 1);
  // Everything heard, but not every send ACKed: not complete.
  run(50);
  EXPECT_FALSE(done(eng_));
  ack(kA, 0, 1, 0);
  run(20);
  EXPECT_FALSE(done(eng_));
  ack(kB, 0, 1, 1);
  ASSERT_TRUE(run_until([&] { return done(eng_); }, 100));
  EXPECT_EQ(eng_.completions()[0].status, fmt::CqStatus::kOk);
  EXPECT_EQ(cnt(Counter::kNotifSent), 2U);
  EXPECT_EQ(cnt(Counter::kNotifRecv), 2U);
}

TEST_F(EngineTest, AckCopiesContextEpochRoundAndSwapsLids) {
  post(desc(2, 9, 1, {{{kA}, {kB}}}));
  run(20);
  notify(kB, 2, 9, 0);
  run(10);
  const auto acks = take(PktType::kAck);
  ASSERT_EQ(acks.size(), 1U);
  EXPECT_EQ(acks[0].src_lid(), kMe);
  EXPECT_EQ(acks[0].dst_lid(), kB);
  EXPECT_EQ(acks[0].ctx(), 2);
  EXPECT_EQ(acks[0].epoch(), 9);
  EXPECT_EQ(acks[0].round(), 0);
  EXPECT_EQ(acks[0].len_flits(), 1);
}

TEST_F(EngineTest, NotificationBeforeDescriptorIsParkedAckedAndDrainedOnActivation) {
  notify(kB, 0, 4, 0);
  run(5);
  EXPECT_EQ(take(PktType::kAck).size(), 1U);
  EXPECT_EQ(eng_.request_damq().used(), 1U);
  EXPECT_EQ(eng_.request_damq().depth(0), 1U);
  post(desc(0, 4, 1, {{{kA}, {kB}}}));
  run(20);
  EXPECT_EQ(eng_.request_damq().used(), 0U);
  ack(kA, 0, 4, 0);
  ASSERT_TRUE(run_until([&] { return done(eng_); }, 100));
  EXPECT_EQ(cnt(Counter::kNotifRecv), 1U);  // counted once, when parked
}

TEST_F(EngineTest, NackOnlyWhenDamqFullAndNoActiveMatch) {
  // Capacity 4, context 1 idle: four park, the fifth is NACKed.
  for (std::uint8_t r = 0; r < 5; ++r) {
    notify(kA, 1, 3, r);
  }
  run(10);
  EXPECT_EQ(take(PktType::kAck).size(), 4U);
  const auto nacks = take(PktType::kNack);
  ASSERT_EQ(nacks.size(), 1U);
  EXPECT_EQ(nacks[0].round(), 4);
  EXPECT_EQ(nacks[0].dst_lid(), kA);
  EXPECT_EQ(cnt(Counter::kNackSent), 1U);
  // DAMQ still full, but an active descriptor's match needs no space: ACK.
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  run(20);
  notify(kB, 0, 1, 0);
  run(10);
  EXPECT_EQ(take(PktType::kAck).size(), 1U);
  EXPECT_TRUE(take(PktType::kNack).empty());
  EXPECT_TRUE(eng_.request_damq().full());
}

TEST_F(EngineTest, LaterEpochStaysParkedOlderEpochIsDropped) {
  post(desc(0, 5, 1, {{{kA}, {kB}}}));
  run(20);
  notify(kB, 0, 6, 0);  // next barrier's notification: parked
  notify(kB, 0, 4, 0);  // an old barrier's: dropped, ACKed
  run(10);
  EXPECT_EQ(take(PktType::kAck).size(), 2U);
  EXPECT_EQ(cnt(Counter::kDrop), 1U);
  EXPECT_EQ(eng_.request_damq().depth(0), 1U);
  notify(kB, 0, 5, 0);
  ack(kA, 0, 5, 0);
  ASSERT_TRUE(run_until([&] { return done(eng_); }, 100));
  EXPECT_EQ(eng_.request_damq().depth(0), 1U);  // epoch 6 still parked after 5 completed
  // After completion of 5, epoch 5 again is stale.
  notify(kB, 0, 5, 0);
  run(10);
  EXPECT_EQ(cnt(Counter::kDrop), 2U);
  post(desc(0, 6, 1, {{{kA}, {kB}}}));
  run(30);
  EXPECT_EQ(eng_.request_damq().used(), 0U);
  ack(kA, 0, 6, 0);
  ASSERT_TRUE(run_until([&] { return done(eng_, 2); }, 100));
  EXPECT_EQ(eng_.completions()[1].epoch, 6);
}

TEST_F(EngineTest, ActivationDropsParkedEntriesOfOlderEpochsAndUnexpectedSources) {
  notify(kA, 0, 2, 0);  // epoch 2 never runs here
  notify(kC, 0, 3, 0);  // epoch 3, but C is not expected
  notify(kB, 0, 3, 0);
  run(10);
  EXPECT_EQ(eng_.request_damq().used(), 3U);
  post(desc(0, 3, 1, {{{kA}, {kB}}}));
  run(20);
  EXPECT_EQ(eng_.request_damq().used(), 0U);
  EXPECT_EQ(cnt(Counter::kDrop), 2U);
}

TEST_F(EngineTest, DuplicateIsAckedAndCountedNeverDoubleCounted) {
  post(desc(0, 1, 2, {{{kA}, {kB, kC}}}));
  run(20);
  notify(kB, 0, 1, 0);
  notify(kB, 0, 1, 0);
  ack(kA, 0, 1, 0);
  run(50);
  EXPECT_EQ(take(PktType::kAck).size(), 2U);
  EXPECT_EQ(cnt(Counter::kDup), 1U);
  EXPECT_EQ(cnt(Counter::kNotifRecv), 1U);
  EXPECT_FALSE(done(eng_)) << "a duplicate must not stand in for C";
  // A duplicate of a parked notification too.
  notify(kB, 1, 1, 0);
  notify(kB, 1, 1, 0);
  run(10);
  EXPECT_EQ(cnt(Counter::kDup), 2U);
  EXPECT_EQ(eng_.request_damq().depth(1), 1U);
  notify(kC, 0, 1, 0);
  ASSERT_TRUE(run_until([&] { return done(eng_); }, 100));
}

TEST_F(EngineTest, UnexpectedSourceIsDroppedCountedAndAcked) {
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  run(20);
  notify(kC, 0, 1, 0);  // C is nobody this descriptor expects
  notify(kB, 0, 1, 3);  // B, but in a round that does not exist
  run(10);
  EXPECT_EQ(take(PktType::kAck).size(), 2U);
  EXPECT_EQ(cnt(Counter::kDrop), 2U);
  EXPECT_EQ(cnt(Counter::kNotifRecv), 0U);
  notify(kB, 9, 1, 0);  // no such context (4 implemented)
  run(10);
  EXPECT_EQ(take(PktType::kAck).size(), 1U);
  EXPECT_EQ(cnt(Counter::kDrop), 3U);
}

TEST_F(EngineTest, NackResendsAfterTheProgrammedDelay) {
  eng_.csr_write(nic::RETRY_DELAY.offset, 100);
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  ASSERT_TRUE(run_until([&] { return !out_.empty(); }, 50));
  take(PktType::kNotify);
  nack(kA, 0, 1, 0);
  const auto t0 = eng_.cycle();
  ASSERT_TRUE(run_until([&] { return !out_.empty(); }, 500));
  const auto resent = take(PktType::kNotify);
  ASSERT_EQ(resent.size(), 1U);
  EXPECT_EQ(resent[0].dst_lid(), kA);
  EXPECT_GE(eng_.cycle() - t0, 100U);
  EXPECT_LE(eng_.cycle() - t0, 110U);
  EXPECT_EQ(cnt(Counter::kNackRecv), 1U);
  EXPECT_EQ(cnt(Counter::kRetry), 1U);
  EXPECT_EQ(cnt(Counter::kNotifSent), 2U);
  notify(kB, 0, 1, 0);
  ack(kA, 0, 1, 0);
  ASSERT_TRUE(run_until([&] { return done(eng_); }, 100));
  EXPECT_EQ(eng_.completions()[0].status, fmt::CqStatus::kOk);
}

TEST_F(EngineTest, RetryLimitTurnsEndlessNacksIntoAnErrorCompletion) {
  eng_.csr_write(nic::RETRY_DELAY.offset, 10);
  eng_.csr_write(nic::RETRY_LIMIT.offset, 2);
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(run_until([&] { return !out_.empty(); }, 100)) << "send " << i;
    take(PktType::kNotify);
    nack(kA, 0, 1, 0);
  }
  ASSERT_TRUE(run_until([&] { return done(eng_); }, 100));
  const auto& c = eng_.completions()[0];
  EXPECT_EQ(c.status, fmt::CqStatus::kNetError);
  EXPECT_EQ(c.err, fmt::ErrCode::kRetryLimit);
  EXPECT_EQ(cnt(Counter::kRetry), 2U);
  EXPECT_EQ(cnt(Counter::kNackRecv), 3U);
  EXPECT_EQ(cnt(Counter::kError), 1U);
  EXPECT_EQ(mem_.read64(kFlagAddr), 0U) << "no completion write on error";
  EXPECT_EQ(cq_entry(0).err_code(), fmt::ErrCode::kRetryLimit);
  EXPECT_NE(reg(nic::INTR_STATUS) & nic::INTR_STATUS_ERROR.mask, 0U);
  EXPECT_FALSE(eng_.ctx_active(0));
  // A late notification of the failed epoch is stale now; the context runs on.
  notify(kB, 0, 1, 0);
  run(10);
  EXPECT_EQ(cnt(Counter::kDrop), 1U);
  post(desc(0, 2, 1, {{{kA}, {kB}}}));
  notify(kB, 0, 2, 0);
  run(30);
  ack(kA, 0, 2, 0);
  ASSERT_TRUE(run_until([&] { return done(eng_, 2); }, 100));
  EXPECT_EQ(eng_.completions()[1].status, fmt::CqStatus::kOk);
}

TEST_F(EngineTest, StrayResponsesAndUnknownPacketsAreDroppedAndCounted) {
  ack(kA, 0, 1, 0);
  nack(kA, 0, 1, 0);
  auto data = pkt(PktType::kData, kA, 0, 0, 0);
  eng_.receive(data);
  auto odd = pkt(static_cast<PktType>(0x7F), kA, 0, 0, 0);
  eng_.receive(odd);
  auto longn = pkt(PktType::kNotify, kA, 0, 1, 0);
  longn.set_len_flits(2);
  eng_.receive(longn);
  eng_.receive(pkt(PktType::kNotify, kA, 0, 1, 0, /*dst=*/0x55));  // misrouted
  run(20);
  EXPECT_EQ(cnt(Counter::kDrop), 6U);
  EXPECT_EQ(cnt(Counter::kNackRecv), 0U);
  EXPECT_TRUE(out_.empty()) << "nothing is answered";
}

TEST_F(EngineTest, DisabledEngineNacksAndRunsNothing) {
  eng_.csr_write(nic::CTRL.offset, 0);
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  notify(kB, 0, 1, 0);
  run(50);
  EXPECT_EQ(take(PktType::kNack).size(), 1U);
  EXPECT_TRUE(take(PktType::kNotify).empty());
  EXPECT_EQ(nic::HDQ_POST_LEVEL.get(reg(nic::HDQ_POST)), 1U);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  run(20);
  EXPECT_EQ(take(PktType::kNotify).size(), 1U);
}

TEST_F(EngineTest, EveryNotificationLandsInExactlyOneCounter) {
  // RECV + DUP + DROP(notify) + NACK_SENT == notifications received.
  post(desc(0, 1, 2, {{{kA, kB}, {kB, kC}}, {{kC}, {kA}}}));
  run(10);
  unsigned sent = 0;
  for (std::uint16_t src : {kA, kB, kC, kB}) {
    for (std::uint8_t ep : {1, 2, 0}) {
      for (std::uint8_t ctx : {0, 1, 7}) {
        notify(src, ctx, ep, 0);
        ++sent;
      }
    }
  }
  run(200);
  EXPECT_EQ(
      cnt(Counter::kNotifRecv) + cnt(Counter::kDup) + cnt(Counter::kDrop) + cnt(Counter::kNackSent),
      sent);
  EXPECT_EQ(take(PktType::kAck).size() + take(PktType::kNack).size(), sent);
}

TEST_F(EngineTest, SeveralContextsRunIndependently) {
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  post(desc(1, 1, 1, {{{kA}, {kB}}}));
  post(desc(2, 8, 1, {{{kC}, {kA}}}));
  run(50);
  EXPECT_EQ(take(PktType::kNotify).size(), 3U);
  EXPECT_EQ(nic::STATUS_ACTIVE_CTX.get(reg(nic::STATUS)), 3U);
  notify(kA, 2, 8, 0);
  ack(kC, 2, 8, 0);
  notify(kB, 1, 1, 0);
  ack(kA, 1, 1, 0);
  ASSERT_TRUE(run_until([&] { return done(eng_, 2); }, 100));
  EXPECT_EQ(eng_.completions()[0].ctx, 2);
  EXPECT_EQ(eng_.completions()[1].ctx, 1);
  EXPECT_TRUE(eng_.ctx_active(0));
}

}  // namespace
}  // namespace syncfab::model::test
