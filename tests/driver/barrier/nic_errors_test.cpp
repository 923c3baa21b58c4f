// What the barrier API refuses, and what the device reports: every argument
// error's message, malformed descriptors (through the raw-descriptor test
// hook, on both paths) completing with their error codes while good
// barriers keep working, and a barrier's own error completion (the NACK
// retry limit) surfacing as BarrierError.
#include <gtest/gtest.h>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/driver/memory_device.hpp>
#include <syncfab/hw/csr.hpp>

#include "nic_fixture.hpp"

namespace syncfab::driver::test {
namespace {

TEST(NicErrors, EveryArgumentErrorNamesTheProblem) {
  SingleNode node;
  Nic nic(node.device, node.memory, node.options());
  const std::vector<std::uint16_t> four = {1, 2, 3, 4};
  const auto open = [&](const ContextConfig& c) { (void)nic.open_context(c); };
  expect_error<std::invalid_argument>(
      [&] {
        open({8, 0, 4, 1, four});
      },
      "open_context(context 8): no such context: the device has 8 (HW_CFG.NUM_CTX), ids 0..7");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 0, 0, 1, {}});
      },
      "open_context(context 0): barrier communicator size 0: a barrier needs at least one rank");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 4, 4, 1, four});
      },
      "open_context(context 0): barrier rank 4 is not below the communicator size 4");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 0, 4, 0, four});
      },
      "barrier fan-out k = 0 is out of range 1..4");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 0, 4, 5, four});
      },
      "barrier fan-out k = 5 is out of range 1..4");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 0, (1U << 20) + 1, 1, {}});
      },
      "needs 21 rounds; a descriptor holds at most 20");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 0, 4, 1, {1, 2, 3}});
      },
      "barrier of 4 ranks needs 4 rank LIDs, got 3");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 0, 4, 1, {1, 2, 0xC001, 4}});
      },
      "LID 0xc001 of rank 2 is not a unicast LID");
  expect_error<std::invalid_argument>(
      [&] {
        open({0, 0, 4, 1, {1, 2, 2, 4}});
      },
      "LID 0x0002 is given to two ranks");

  auto ctx = nic.open_context({6, 0, 1, 1, {1}});
  expect_error<std::invalid_argument>(
      [&] {
        open({6, 0, 1, 1, {1}});
      },
      "open_context(context 6): the context is already open");
  ctx.barrier(1us);
  ctx.close();
  ContextConfig stale{6, 0, 1, 1, {1}};
  stale.first_epoch = 1;
  expect_error<std::invalid_argument>(
      [&] { open(stale); }, "first epoch 1 is not newer than epoch 1 last used on this context");

  expect_error<std::logic_error>([&] { ctx.arrive(); },
                                 "context 6: not open (default-constructed or moved from)");
  auto c2 = nic.open_context({6, 0, 1, 1, {1}});
  auto moved = std::move(c2);
  // NOLINTNEXTLINE(bugprone-use-after-move): using the moved-from handle is the point
  expect_error<std::logic_error>([&] { c2.arrive(); }, "not open");
  BarrierContext none;
  expect_error<std::logic_error>([&] { (void)none.test(); }, "not open");
  expect_error<std::logic_error>([&] { (void)moved.wait(1us); }, "no barrier pending");

  expect_error<std::invalid_argument>(
      [&] { (void)nic.submit_raw_descriptor(std::vector<std::uint32_t>(5), SubmitPath::kHdq); },
      "5 words given, a descriptor is 88");
  expect_error<std::invalid_argument>([&] { (void)nic.raw_result(RawTicket{99}); },
                                      "ticket 99 is unknown or already collected");

  // Options and the DMA region.
  auto bad = node.options();
  bad.cq_entries = 1;
  expect_error<std::invalid_argument>([&] { Nic n(node.device, node.memory, bad); },
                                      "cq_entries = 1 is out of range 2..65535");
  bad = node.options();
  bad.sdq_entries = 70000;
  expect_error<std::invalid_argument>([&] { Nic n(node.device, node.memory, bad); },
                                      "sdq_entries = 70000 is out of range");
  expect_error<std::invalid_argument>(
      [&] {
        Nic n(node.device, node.memory, DmaRegion{kMemBase, 1024}, node.options());
      },
      "the DMA region of 1024 bytes is too small for a 64-entry CQ and a 16-slot SDQ");
}

// A device built narrower than the format (the model always reports the
// format's K_MAX and MAX_ROUNDS, so a register-only device plays it): the
// limits come from HW_CFG, and the messages say so.
TEST(NicErrors, LimitsComeFromHwCfg) {
  MemoryDevice dev;
  dev.write32(hw::nic::HW_CFG.offset,
              hw::nic::HW_CFG_NUM_CTX.put(3) | hw::nic::HW_CFG_K_MAX.put(2) |
                  hw::nic::HW_CFG_MAX_ROUNDS.put(3) | hw::nic::HW_CFG_HDQ_DEPTH.put(1));
  Nic nic(dev, dev.dma(), {kMemBase, 1 << 20});
  EXPECT_EQ(nic.hw().num_ctx, 3U);
  EXPECT_EQ(nic.hw().k_max, 2U);
  EXPECT_EQ(nic.hw().max_rounds, 3U);
  EXPECT_EQ(nic.hw().hdq_depth, 1U);
  std::vector<std::uint16_t> lids(9);
  for (unsigned i = 0; i < lids.size(); ++i) {
    lids[i] = static_cast<std::uint16_t>(i + 1);
  }
  expect_error<std::invalid_argument>(
      [&] {
        (void)nic.open_context({3, 0, 9, 2, lids});
      },
      "the device has 3 (HW_CFG.NUM_CTX), ids 0..2");
  expect_error<std::invalid_argument>(
      [&] {
        (void)nic.open_context({0, 0, 9, 3, lids});
      },
      "fan-out k = 3 exceeds the device's K_MAX 2 (HW_CFG.K_MAX)");
  expect_error<std::invalid_argument>(
      [&] {
        (void)nic.open_context({0, 0, 9, 1, lids});
      },
      "barrier of 9 ranks with fan-out 1 needs 4 rounds; the device runs at most 3 "
      "(HW_CFG.MAX_ROUNDS)");
  EXPECT_NO_THROW((void)nic.open_context({2, 8, 9, 2, lids}));  // 2 rounds at k = 2
}

TEST(NicErrors, MalformedDescriptorsCompleteWithTheirCodeAndGoodBarriersFollow) {
  SingleNode node;
  Nic nic(node.device, node.memory, node.options());
  auto ctx = nic.open_context({1, 0, 1, 2, {9}, SubmitPath::kHdq, WaitMode::kInterrupt});
  // A well-formed 3-round descriptor to spoil field by field.
  const auto sched = build_barrier_schedule(0, 20, 2);
  std::vector<std::uint16_t> lids(20);
  for (unsigned i = 0; i < 20; ++i) {
    lids[i] = static_cast<std::uint16_t>(i + 1);
  }
  const auto good = encode_barrier_desc(sched, lids, 2, 500, {});
  struct Case {
    const char* what;
    fmt::ErrCode err;
    std::function<void(fmt::BarrierDesc&)> spoil;
  };
  const std::vector<Case> cases = {
      {"opcode 0 (zeroed slot)", fmt::ErrCode::kBadOpcode,
       [](auto& d) { d.set_opcode(static_cast<fmt::Opcode>(0)); }},
      {"opcode 0x7f", fmt::ErrCode::kBadOpcode,
       [](auto& d) { d.set_opcode(static_cast<fmt::Opcode>(0x7f)); }},
      {"version 2", fmt::ErrCode::kBadVersion, [](auto& d) { d.set_version(2); }},
      {"21 rounds", fmt::ErrCode::kBadRounds, [](auto& d) { d.set_num_rounds(21); }},
      {"k = 0", fmt::ErrCode::kBadFanout, [](auto& d) { d.set_fanout_k(0); }},
      {"k = 5", fmt::ErrCode::kBadFanout, [](auto& d) { d.set_fanout_k(5); }},
      {"completion address 0", fmt::ErrCode::kBadAddr,
       [](auto& d) { d.set_flag_cmpl_write(true).set_cmpl_addr(0); }},
      {"completion address unaligned", fmt::ErrCode::kBadAddr,
       [](auto& d) { d.set_flag_cmpl_write(true).set_cmpl_addr(kMemBase + 4); }},
      {"context 200", fmt::ErrCode::kBadContext, [](auto& d) { d.set_ctx(200); }},
      {"multicast LID", fmt::ErrCode::kBadLid, [](auto& d) { d.set_round_dst_lid(1, 0, 0xC123); }},
      {"peer twice in a round", fmt::ErrCode::kBadLid,
       [](auto& d) { d.set_round_src_lid(0, 1, d.round_src_lid(0, 0)); }},
  };
  std::uint16_t epoch = 500;
  for (auto path : {SubmitPath::kHdq, SubmitPath::kSdq}) {
    for (const auto& c : cases) {
      SCOPED_TRACE(std::string(c.what) + (path == SubmitPath::kHdq ? " via HDQ" : " via SDQ"));
      auto bad = good;
      bad.set_epoch(++epoch);
      c.spoil(bad);
      const auto words = desc_words(bad);
      const auto t = nic.submit_raw_descriptor(words, path);
      const CqRecord r = nic.wait_raw(t, 2us);
      EXPECT_EQ(r.status, fmt::CqStatus::kDescError);
      EXPECT_EQ(r.err, c.err) << describe(r);
      EXPECT_EQ(r.ctx, bad.ctx());
      EXPECT_EQ(r.epoch, epoch);
      // The engine takes the next descriptor: a good barrier completes.
      ctx.arrive(path);
      EXPECT_TRUE(ctx.wait(2us));
    }
  }
  const auto& st = nic.stats();
  EXPECT_EQ(st.error_irqs, 2 * cases.size());
  EXPECT_EQ(st.unclaimed, 0U);
  EXPECT_EQ(hw::Csr(node.device).read(hw::nic::CNT_ERROR), 2 * cases.size());
}

TEST(NicErrors, BusyContextRejectsASecondDescriptorWithoutDisturbingTheFirst) {
  FabricNodes f(torus(2, 1, 1));
  auto ctxs = f.open_all(0, 1);
  ctxs[0].arrive();                                     // waits for node 1
  EXPECT_FALSE(ctxs[0].wait(1us));                      // safety: not before node 1 arrives
  auto dup = ctxs[0].next_descriptor(WaitMode::kPoll);  // same context, epoch 2
  const auto t = f.nic(0).submit_raw_descriptor(dup, SubmitPath::kSdq);
  const auto r = f.nic(0).wait_raw(t, 2us);
  EXPECT_EQ(r, (CqRecord{0, 2, fmt::CqStatus::kDescError, fmt::ErrCode::kCtxBusy}));
  ctxs[1].arrive();
  EXPECT_TRUE(ctxs[0].wait(5us));
  EXPECT_TRUE(ctxs[1].wait(5us));
}

// A completion nobody asked for (here a descriptor posted behind the
// driver's back on a context that is running another epoch) is kept aside,
// not taken for the running barrier.
TEST(NicErrors, ForeignCompletionIsUnclaimedAndDoesNotEndTheRunningBarrier) {
  FabricNodes f(torus(2, 1, 1));
  auto ctxs = f.open_all(0, 1, SubmitPath::kSdq);
  ctxs[0].arrive();
  fmt::BarrierDesc foreign = ctxs[0].next_descriptor(WaitMode::kPoll);
  foreign.set_epoch(77).set_opcode(static_cast<fmt::Opcode>(0x42));
  hw::Csr csr(*f.devices[0]);
  csr.write_hdq_window(desc_words(foreign));  // the driver only uses the SDQ below
  csr.write(hw::nic::HDQ_POST, {{hw::nic::HDQ_POST_POST, 1}});
  EXPECT_FALSE(ctxs[0].wait(1us));  // the error entry arrived; the barrier still runs
  EXPECT_TRUE(ctxs[0].pending());
  EXPECT_EQ(f.nic(0).take_unclaimed(),
            (std::vector<CqRecord>{{0, 77, fmt::CqStatus::kDescError, fmt::ErrCode::kBadOpcode}}));
  EXPECT_TRUE(f.nic(0).take_unclaimed().empty());
  ctxs[1].arrive();
  EXPECT_TRUE(ctxs[0].wait(5us));
  EXPECT_TRUE(ctxs[1].wait(5us));
}

TEST(NicErrors, RetryLimitBecomesABarrierErrorAndTheNextBarrierRuns) {
  // Node 1's driver is not open yet: its engine is disabled and NACKs.
  model::FabricConfig fc = torus(2, 1, 1);
  NicOptions o;
  o.retry_limit = 2;
  o.retry_delay_cycles = 20;
  FabricNodes f(fc, o, {true, false});
  auto c0 = f.nic(0).open_context({0, 0, 2, 1, f.all_lids()});
  c0.arrive(SubmitPath::kSdq, WaitMode::kInterrupt);
  try {
    (void)c0.wait(20us);
    ADD_FAILURE() << "no BarrierError";
  } catch (const BarrierError& e) {
    EXPECT_EQ(e.status(), fmt::CqStatus::kNetError);
    EXPECT_EQ(e.err(), fmt::ErrCode::kRetryLimit);
    EXPECT_NE(std::string(e.what()).find("ctx 0 epoch 1: NET_ERROR / RETRY_LIMIT"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(c0.pending());  // the error was collected
  EXPECT_EQ(hw::Csr(*f.devices[0]).read(hw::nic::CNT_RETRY), 2U);
  // Node 1 comes up; epoch 1 was lost on node 0, so both go on with epoch 2.
  f.open_nic(1, o);
  ContextConfig c1cfg{0, 1, 2, 1, f.all_lids()};
  c1cfg.first_epoch = 2;
  auto c1 = f.nic(1).open_context(c1cfg);
  c0.arrive();
  c1.arrive();
  EXPECT_TRUE(c0.wait(5us));
  EXPECT_TRUE(c1.wait(5us));
  EXPECT_EQ(c0.epoch(), 2);
}

}  // namespace
}  // namespace syncfab::driver::test
