// Descriptor queues, validation, completion queue and CSR behaviour of the
// golden model.
#include <syncfab/hw/errors.hpp>

#include "engine_fixture.hpp"

namespace syncfab::model::test {
namespace {

using fmt::ErrCode;
using fmt::PktType;

constexpr std::uint16_t kA = 0x21;
constexpr std::uint16_t kB = 0x22;

fmt::BarrierDesc good(std::uint8_t ctx = 0, std::uint16_t ep = 1) {
  return EngineTest::desc(ctx, ep, 1, {{{kA}, {kB}}});
}

struct Malformed {
  const char* name;
  ErrCode err;
  std::function<void(fmt::BarrierDesc&)> spoil;
};

TEST_F(EngineTest, MalformedDescriptorsCompleteWithTheirCodeAndTheNextRuns) {
  const std::vector<Malformed> cases = {
      {"opcode 0", ErrCode::kBadOpcode, [](auto& d) { d.set_opcode(static_cast<fmt::Opcode>(0)); }},
      {"opcode 0x42", ErrCode::kBadOpcode,
       [](auto& d) { d.set_opcode(static_cast<fmt::Opcode>(0x42)); }},
      {"version 2", ErrCode::kBadVersion, [](auto& d) { d.set_version(2); }},
      {"ctx 4 of 4", ErrCode::kBadContext, [](auto& d) { d.set_ctx(4); }},
      {"21 rounds", ErrCode::kBadRounds, [](auto& d) { d.set_num_rounds(21); }},
      {"k 0", ErrCode::kBadFanout, [](auto& d) { d.set_fanout_k(0); }},
      {"k 5", ErrCode::kBadFanout, [](auto& d) { d.set_fanout_k(5); }},
      {"addr 0", ErrCode::kBadAddr, [](auto& d) { d.set_cmpl_addr(0); }},
      {"addr unaligned", ErrCode::kBadAddr, [](auto& d) { d.set_cmpl_addr(kFlagAddr + 4); }},
      {"multicast dst", ErrCode::kBadLid, [](auto& d) { d.set_round_dst_lid(0, 0, 0xC000); }},
      {"peer twice", ErrCode::kBadLid,
       [](auto& d) { d.set_fanout_k(2).set_round_src_lid(0, 1, kB); }},
  };
  std::uint16_t ep = 1;
  for (const auto& m : cases) {
    SCOPED_TRACE(m.name);
    auto d = good(0, ep);
    m.spoil(d);
    post(d);
    post(good(0, ep));
    const auto before = eng_.completions().size();
    ASSERT_TRUE(run_until([&] { return eng_.completions().size() > before; }, 200));
    const auto c = eng_.completions().back();
    EXPECT_EQ(c.status, fmt::CqStatus::kDescError);
    EXPECT_EQ(c.err, m.err);
    // The good one behind it runs.
    ASSERT_TRUE(run_until([&] { return !take(PktType::kNotify).empty(); }, 200));
    notify(kB, 0, ep, 0);
    ack(kA, 0, ep, 0);
    ASSERT_TRUE(run_until([&] { return eng_.completions().size() > before + 1; }, 200));
    EXPECT_EQ(eng_.completions().back().status, fmt::CqStatus::kOk);
    EXPECT_EQ(eng_.completions().back().epoch, ep);
    eng_.csr_write(nic::CQ_TAIL.offset, reg(nic::CQ_HEAD));  // consume the entries
    ++ep;
  }
  EXPECT_EQ(cnt(Counter::kError), cases.size());
  EXPECT_EQ(cnt(Counter::kCompletion), 2 * cases.size());
}

TEST_F(EngineTest, BusyContextIsRejectedWhileTheRunningOneContinues) {
  post(good(0, 1));
  post(good(0, 2));
  ASSERT_TRUE(run_until([&] { return !eng_.completions().empty(); }, 100));
  EXPECT_EQ(eng_.completions()[0].err, ErrCode::kCtxBusy);
  EXPECT_EQ(eng_.completions()[0].epoch, 2);
  EXPECT_EQ(cq_entry(0).status(), fmt::CqStatus::kDescError);
  EXPECT_EQ(cq_entry(0).err_code(), ErrCode::kCtxBusy);
  EXPECT_TRUE(eng_.ctx_active(0));
  notify(kB, 0, 1, 0);
  ack(kA, 0, 1, 0);
  ASSERT_TRUE(run_until([&] { return eng_.completions().size() == 2; }, 100));
  EXPECT_EQ(eng_.completions()[1].status, fmt::CqStatus::kOk);
}

TEST_F(EngineTest, SdqRingIsFetchedByDmaAfterTheDoorbell) {
  eng_.csr_write(nic::SDQ_BASE_LO.offset, static_cast<std::uint32_t>(kSdqBase));
  eng_.csr_write(nic::SDQ_BASE_HI.offset, 0);
  eng_.csr_write(nic::SDQ_SIZE.offset, 4);
  // Three descriptors over the ring's wrap: slots 2, 3, 0 (start CONS at 2 by
  // first consuming two zeroed slots -> two BAD_OPCODE completions).
  eng_.csr_write(nic::SDQ_PROD.offset, 2);
  ASSERT_TRUE(run_until([&] { return eng_.completions().size() == 2; }, 200));
  EXPECT_EQ(eng_.completions()[0].err, ErrCode::kBadOpcode) << "a zeroed slot is rejected";
  EXPECT_EQ(reg(nic::SDQ_CONS), 2U);
  for (std::uint32_t i = 0; i < 3; ++i) {
    const auto d = good(static_cast<std::uint8_t>(i), 10);
    mem_.write(kSdqBase + ((2 + i) % 4) * fmt::BarrierDesc::kSizeBytes,
               std::as_bytes(std::span(d.bytes())));
  }
  eng_.csr_write(nic::SDQ_PROD.offset, 1);
  run(200);
  EXPECT_EQ(reg(nic::SDQ_CONS), 1U);
  EXPECT_EQ(take(PktType::kNotify).size(), 3U);
  for (std::uint8_t c = 0; c < 3; ++c) {
    notify(kB, c, 10, 0);
    ack(kA, c, 10, 0);
  }
  ASSERT_TRUE(run_until([&] { return eng_.completions().size() == 5; }, 200));
}

// docs/barrier-protocol.md §2: an SDQ slot is read one 64-bit word per
// cycle (44 reads), the last answered a cycle later, then judged; an HDQ
// descriptor is copied and judged. With the doorbell written before cycle
// c, the first round-0 NOTIFY leaves in c + 3 from the HDQ and in
// c + 44 + 3 from the SDQ.
TEST_F(EngineTest, SdqSlotIsReadOneWordPerCycle) {
  const auto first_send = [&] {
    const std::uint64_t c = eng_.cycle();
    EXPECT_TRUE(run_until([&] { return !out_.empty(); }, 200));
    out_.clear();
    return eng_.cycle() - 1 - c;  // the cycle the NOTIFY left, from c
  };
  post(good(0, 1));
  EXPECT_EQ(first_send(), 3U);
  eng_.csr_write(nic::SDQ_BASE_LO.offset, static_cast<std::uint32_t>(kSdqBase));
  eng_.csr_write(nic::SDQ_BASE_HI.offset, 0);
  eng_.csr_write(nic::SDQ_SIZE.offset, 2);
  const auto d = good(1, 1);
  mem_.write(kSdqBase, std::as_bytes(std::span(d.bytes())));
  eng_.csr_write(nic::SDQ_PROD.offset, 1);
  EXPECT_EQ(first_send(), fmt::BarrierDesc::kSizeBytes / 8 + 3);
}

TEST_F(EngineTest, SdqFetchOutsideMemoryIsADmaError) {
  eng_.csr_write(nic::SDQ_BASE_LO.offset, 0x100);  // below the host memory
  eng_.csr_write(nic::SDQ_SIZE.offset, 2);
  eng_.csr_write(nic::SDQ_PROD.offset, 1);
  ASSERT_TRUE(run_until([&] { return !eng_.completions().empty(); }, 200));
  EXPECT_EQ(eng_.completions()[0].err, ErrCode::kDmaError);
  EXPECT_NE(reg(nic::INTR_STATUS) & nic::INTR_STATUS_DMA_ERROR.mask, 0U);
  EXPECT_EQ(reg(nic::SDQ_CONS), 1U);
}

TEST_F(EngineTest, FullCompletionQueueHoldsCompletionsBackAndPhaseFlips) {
  // 8 entries hold 7 unread. Post 9 zero-round barriers.
  for (std::uint16_t ep = 1; ep <= 9; ++ep) {
    post(desc(static_cast<std::uint8_t>(ep % 4), ep, 1, {}));
    run(30);
  }
  run(200);
  EXPECT_EQ(eng_.completions().size(), 7U);
  EXPECT_EQ(reg(nic::CQ_HEAD), 7U);
  EXPECT_EQ(nic::STATUS_BUSY.get(reg(nic::STATUS)), 1U);
  eng_.csr_write(nic::CQ_TAIL.offset, 3);  // software read three
  ASSERT_TRUE(run_until([&] { return eng_.completions().size() == 9; }, 200));
  EXPECT_EQ(reg(nic::CQ_HEAD), 1U);
  EXPECT_TRUE(cq_entry(7).phase());
  EXPECT_FALSE(cq_entry(0).phase()) << "second pass writes phase 0";
  EXPECT_EQ(cq_entry(0).epoch(), 9);
  EXPECT_EQ(cq_entry(1).epoch(), 2) << "unread entry 1 of the first pass untouched";
}

TEST_F(EngineTest, HdqOverflowSetsItsInterruptAndDropsThePost) {
  eng_.csr_write(nic::CTRL.offset, 0);  // hold dispatch
  for (int i = 0; i < 4; ++i) {
    post(good(static_cast<std::uint8_t>(i), 1));
  }
  EXPECT_EQ(nic::HDQ_POST_FULL.get(reg(nic::HDQ_POST)), 1U);
  EXPECT_EQ(reg(nic::INTR_STATUS), 0U);
  post(good(0, 2));
  EXPECT_EQ(reg(nic::INTR_STATUS), nic::INTR_STATUS_HDQ_OVERFLOW.mask);
  EXPECT_EQ(nic::HDQ_POST_LEVEL.get(reg(nic::HDQ_POST)), 4U);
}

TEST_F(EngineTest, CsrMapMatchesTheRdl) {
  EXPECT_EQ(reg(nic::ID), nic::kMagic);
  EXPECT_EQ(nic::VERSION_MAJOR.get(reg(nic::VERSION)), nic::kVersionMajor);
  EXPECT_EQ(nic::HW_CFG_NUM_CTX.get(reg(nic::HW_CFG)), 4U);
  EXPECT_EQ(nic::HW_CFG_K_MAX.get(reg(nic::HW_CFG)), fmt::kKMax);
  EXPECT_EQ(nic::HW_CFG_MAX_ROUNDS.get(reg(nic::HW_CFG)), fmt::kMaxRounds);
  EXPECT_EQ(nic::HW_CFG_HDQ_DEPTH.get(reg(nic::HW_CFG)), 4U);
  EXPECT_EQ(reg(nic::RETRY_DELAY), 64U);
  EXPECT_EQ(reg(nic::RETRY_LIMIT), 0U);
  eng_.csr_write(nic::SCRATCH.offset, 0xA5A5'5A5A);
  EXPECT_EQ(reg(nic::SCRATCH), 0xA5A5'5A5AU);
  eng_.csr_write(nic::kHdqWindowOffset + 8, 0x1234);
  EXPECT_EQ(eng_.csr_read(nic::kHdqWindowOffset + 8), 0x1234U);
  EXPECT_EQ(reg(nic::NODE_LID), eng_.config().lid);
  eng_.csr_write(nic::NODE_LID.offset, 0x0042);
  EXPECT_EQ(reg(nic::NODE_LID), 0x42U);
  EXPECT_EQ(eng_.config().lid, 0x42U);
  EXPECT_THROW((void)eng_.csr_read(0x028), hw::BusError);  // hole
  EXPECT_THROW((void)eng_.csr_read(0x002), hw::BusError);  // unaligned
  for (std::uint32_t lsb = 1; lsb < 4; ++lsb) {            // unaligned: refused, nothing written
    EXPECT_THROW((void)eng_.csr_read(nic::SCRATCH.offset + lsb), hw::BusError) << lsb;
    EXPECT_THROW(eng_.csr_write(nic::SCRATCH.offset + lsb, 0x1111'1111), hw::BusError) << lsb;
    EXPECT_THROW(eng_.csr_write(nic::kHdqWindowOffset + 8 + lsb, 0x1111'1111), hw::BusError) << lsb;
  }
  EXPECT_EQ(reg(nic::SCRATCH), 0xA5A5'5A5AU);
  EXPECT_EQ(eng_.csr_read(nic::kHdqWindowOffset + 8), 0x1234U);
  EXPECT_THROW((void)eng_.csr_read(0xFFC), hw::BusError);  // past the map
  EXPECT_THROW(eng_.csr_write(nic::ID.offset, 0), hw::BusError);
  EXPECT_THROW(eng_.csr_write(nic::CNT_DROP.offset, 0), hw::BusError);
  EXPECT_THROW(eng_.csr_write(nic::CQ_HEAD.offset, 0), hw::BusError);
}

TEST_F(EngineTest, CountersReadThroughCsrsAndClear) {
  eng_.receive(pkt(PktType::kAck, kA, 0, 0, 0));
  run(5);
  EXPECT_EQ(reg(nic::CNT_DROP), 1U);
  for (unsigned i = 0; i < kNumCounters; ++i) {
    EXPECT_EQ(eng_.csr_read(nic::kCounters[i].offset), eng_.counter(static_cast<Counter>(i)))
        << hw::nic::to_string(static_cast<Counter>(i));
  }
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1) | nic::CTRL_CNT_CLEAR.put(1));
  EXPECT_EQ(reg(nic::CNT_DROP), 0U);
  EXPECT_EQ(nic::CTRL_ENABLE.get(reg(nic::CTRL)), 1U);
  EXPECT_EQ(nic::CTRL_CNT_CLEAR.get(reg(nic::CTRL)), 0U);
}

TEST_F(EngineTest, SoftResetEmptiesTheEngineNotTheRegisters) {
  eng_.csr_write(nic::RETRY_DELAY.offset, 33);
  post(good(0, 1));
  notify(kB, 1, 1, 0);
  run(20);
  ASSERT_TRUE(eng_.ctx_active(0));
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1) | nic::CTRL_SOFT_RESET.put(1));
  EXPECT_FALSE(eng_.ctx_active(0));
  EXPECT_EQ(eng_.request_damq().used(), 0U);
  EXPECT_EQ(reg(nic::RETRY_DELAY), 33U);
  EXPECT_EQ(nic::STATUS_BUSY.get(reg(nic::STATUS)), 0U);
  out_.clear();
  ack(kA, 0, 1, 0);  // the aborted barrier's response is now stray
  run(10);
  EXPECT_EQ(cnt(Counter::kDrop), 1U);
  EXPECT_TRUE(eng_.quiescent());
}

TEST_F(EngineTest, DriverBuiltDescriptorRunsOnTheModel) {
  // Rank 1 of 3 with fan-out 2: one round, send to 2 and 0, hear from 0 and 2.
  const std::vector<std::uint16_t> lids = {kA, kMe, kB};
  const auto s = driver::build_barrier_schedule(1, 3, 2);
  post(driver::encode_barrier_desc(s, lids, 3, 77, {true, kFlagAddr, 0x99, true, false}));
  run(30);
  const auto sent = take(PktType::kNotify);
  ASSERT_EQ(sent.size(), 2U);
  EXPECT_EQ(sent[0].dst_lid(), kB);
  EXPECT_EQ(sent[1].dst_lid(), kA);
  for (auto l : {kA, kB}) {
    notify(l, 3, 77, 0);
    ack(l, 3, 77, 0);
  }
  ASSERT_TRUE(run_until([&] { return !eng_.completions().empty(); }, 100));
  EXPECT_EQ(mem_.read64(kFlagAddr), 0x99U);
  EXPECT_FALSE(eng_.irq()) << "no interrupt flag, no DONE";
}

TEST(EngineConfigCheck, BadConfigurationsAreRefused) {
  hw::HostMemory mem(kMemBase, 4096);
  const auto refused = [&](auto change) {
    EngineConfig c;
    change(c);
    EXPECT_THROW(BarrierEngine(c, mem), std::invalid_argument);
  };
  refused([](EngineConfig& c) { c.lid = 0; });
  refused([](EngineConfig& c) { c.lid = 0xC000; });
  refused([](EngineConfig& c) { c.num_ctx = 0; });
  refused([](EngineConfig& c) { c.num_ctx = 256; });
  refused([](EngineConfig& c) { c.hdq_depth = 0; });
  refused([](EngineConfig& c) { c.req_damq_entries = 0; });
  refused([](EngineConfig& c) { c.resp_queue_depth = 0; });
}

}  // namespace
}  // namespace syncfab::model::test
