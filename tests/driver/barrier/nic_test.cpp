// The barrier API on one golden-model NIC: opening and closing the device,
// communicators of one over both submission paths and both wait modes,
// non-blocking test(), epochs, queue-full handling, every context of the
// device at once.
#include <gtest/gtest.h>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/driver/errors.hpp>
#include <syncfab/driver/memory_device.hpp>
#include <syncfab/hw/csr.hpp>

#include "nic_fixture.hpp"

namespace syncfab::driver::test {
namespace {

ContextConfig solo(unsigned id, SubmitPath path = SubmitPath::kHdq,
                   WaitMode mode = WaitMode::kPoll) {
  return ContextConfig{id, 0, 1, 2, {7}, path, mode, std::nullopt};
}

TEST(Nic, OpenProgramsTheDeviceAndCloseDetachesIt) {
  model::EngineConfig ec;
  ec.num_ctx = 12;
  ec.hdq_depth = 3;
  SingleNode node(ec);
  hw::Csr csr(node.device);
  auto opt = node.options();
  opt.cq_entries = 32;
  opt.sdq_entries = 5;
  opt.retry_delay_cycles = 77;
  opt.retry_limit = 9;
  Nic nic(node.device, node.memory, opt);
  EXPECT_EQ(nic.hw().num_ctx, 12U);
  EXPECT_EQ(nic.hw().hdq_depth, 3U);
  EXPECT_EQ(nic.hw().k_max, 4U);
  EXPECT_EQ(nic.hw().max_rounds, 20U);
  EXPECT_EQ(nic.hw().identity, expected_identity());
  EXPECT_EQ(csr.read(hw::nic::CTRL_ENABLE), 1U);
  EXPECT_EQ(csr.read(hw::nic::CQ_SIZE), 32U);
  EXPECT_EQ(csr.read(hw::nic::SDQ_SIZE), 5U);
  EXPECT_EQ(csr.read(hw::nic::RETRY_DELAY), 77U);
  EXPECT_EQ(csr.read(hw::nic::RETRY_LIMIT), 9U);
  EXPECT_EQ(csr.read(hw::nic::INTR_ENABLE), 0xFU);
  const auto cq = csr.read64(hw::nic::CQ_BASE_LO, hw::nic::CQ_BASE_HI);
  const auto sdq = csr.read64(hw::nic::SDQ_BASE_LO, hw::nic::SDQ_BASE_HI);
  EXPECT_GE(cq, kMemBase);
  EXPECT_GE(sdq, cq + 32 * fmt::CqEntry::kSizeBytes);  // rings do not overlap
  EXPECT_EQ(sdq % 64, 0U);

  auto ctx = nic.open_context(solo(0));
  ctx.barrier(1us);
  EXPECT_EQ(nic.close(), 0U);
  EXPECT_FALSE(nic.is_open());
  EXPECT_EQ(csr.read(hw::nic::CTRL_ENABLE), 0U);
  EXPECT_EQ(csr.read(hw::nic::INTR_ENABLE), 0U);
  EXPECT_EQ(csr.read(hw::nic::CQ_SIZE), 0U);
  EXPECT_EQ(csr.read(hw::nic::SDQ_SIZE), 0U);
  EXPECT_EQ(csr.read(hw::nic::STATUS_BUSY), 0U);
  EXPECT_FALSE(ctx.is_open());
  expect_error<std::logic_error>([&] { ctx.arrive(); }, "the Nic is closed");
  EXPECT_EQ(nic.close(), 0U);  // idempotent
}

TEST(Nic, RefusesAForeignDevice) {
  MemoryDevice wrong;
  wrong.write32(hw::nic::ID.offset, 0x12345678);
  expect_error<DeviceMismatch>(
      [&] {
        Nic n(wrong, wrong.dma(), {kMemBase, 1 << 20});
      },
      "wrong block type");
  MemoryDevice empty;  // right identity, HW_CFG all zero
  expect_error<DeviceMismatch>(
      [&] {
        Nic n(empty, empty.dma(), {kMemBase, 1 << 20});
      },
      "reports no contexts");
}

TEST(Nic, SingleRankBarrierOnEveryPathAndWaitMode) {
  SingleNode node;
  node.record_trace();
  Nic nic(node.device, node.memory, node.options());
  auto ctx = nic.open_context(solo(3));
  EXPECT_EQ(ctx.epoch(), 0);  // first barrier gets epoch 1
  std::uint16_t epoch = 0;
  for (auto path : {SubmitPath::kHdq, SubmitPath::kSdq}) {
    for (auto mode : {WaitMode::kPoll, WaitMode::kInterrupt}) {
      const auto before = nic.stats();
      ctx.arrive(path, mode);
      ++epoch;
      EXPECT_EQ(ctx.epoch(), epoch);
      EXPECT_TRUE(ctx.pending());
      EXPECT_TRUE(ctx.wait(2us));
      EXPECT_FALSE(ctx.pending());
      const auto& after = nic.stats();
      EXPECT_EQ(after.hdq_posts - before.hdq_posts, path == SubmitPath::kHdq ? 1U : 0U);
      EXPECT_EQ(after.sdq_posts - before.sdq_posts, path == SubmitPath::kSdq ? 1U : 0U);
      // The interrupt wait is woken by DONE; the polling wait never sees it.
      EXPECT_EQ(after.done_irqs - before.done_irqs, mode == WaitMode::kInterrupt ? 1U : 0U);
      if (mode == WaitMode::kInterrupt) {
        EXPECT_GE(after.irq_wakeups - before.irq_wakeups, 1U);
        EXPECT_EQ(after.poll_slices - before.poll_slices, 0U);  // slept, did not poll
      } else {
        EXPECT_GE(after.poll_slices - before.poll_slices, 1U);
      }
    }
  }
  EXPECT_EQ(node.trace_count("of.fetch hdq"), 2U);
  EXPECT_EQ(node.trace_count("of.fetch sdq"), 2U);
  ASSERT_EQ(node.engine.completions().size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(node.engine.completions()[i].ctx, 3);
    EXPECT_EQ(node.engine.completions()[i].epoch, i + 1);
  }
  // The second HDQ descriptor differs from the first in the epoch and flag
  // words only: the window is not rewritten in full.
  EXPECT_LT(nic.stats().hdq_window_writes, kBarrierDescWords + 4);
}

TEST(Nic, TestDoesNotBlockAndCollectsOnce) {
  SingleNode node;
  Nic nic(node.device, node.memory, node.options());
  auto ctx = nic.open_context(solo(0, SubmitPath::kSdq));
  ctx.arrive();
  const auto cycle = node.engine.cycle();
  EXPECT_FALSE(ctx.test());  // no device time has passed: nothing can be done
  EXPECT_EQ(node.engine.cycle(), cycle);
  node.engine.run(100);
  EXPECT_TRUE(ctx.test());
  expect_error<std::logic_error>([&] { (void)ctx.test(); }, "no barrier pending; arrive() first");
  expect_error<std::logic_error>([&] { (void)ctx.wait(1us); },
                                 "no barrier pending; arrive() first");
}

TEST(Nic, ArriveWhilePendingSaysWhy) {
  SingleNode node;
  Nic nic(node.device, node.memory, node.options());
  auto ctx = nic.open_context(solo(5));
  ctx.arrive();
  expect_error<std::logic_error>([&] { ctx.arrive(); },
                                 "arrive(context 5): the barrier of epoch 1 is still pending");
  node.engine.run(100);  // done on the NIC, not collected by the host
  expect_error<std::logic_error>([&] { ctx.arrive(); },
                                 "epoch 1 has completed but was not collected");
  EXPECT_TRUE(ctx.wait(1us));
  EXPECT_EQ(ctx.epoch(), 1);  // the refused arrives used no epoch
  ctx.barrier(1us);
  EXPECT_EQ(ctx.epoch(), 2);
}

TEST(Nic, FullHdqThrowsOrWaits) {
  model::EngineConfig ec;
  ec.hdq_depth = 2;
  {
    SingleNode node(ec);
    auto opt = node.options();
    opt.on_full = QueueFullPolicy::kThrow;
    Nic nic(node.device, node.memory, opt);
    auto a = nic.open_context(solo(0));
    auto b = nic.open_context(solo(1));
    auto c = nic.open_context(solo(2));
    a.arrive();
    b.arrive();  // no device time passes: the HDQ holds both
    expect_error<QueueFull>([&] { c.arrive(); }, "HDQ full (2 descriptors, HW_CFG.HDQ_DEPTH)");
    EXPECT_FALSE(c.pending());
    EXPECT_EQ(c.epoch(), 0);
    c.arrive(SubmitPath::kSdq);  // the other queue has room
    EXPECT_TRUE(a.wait(1us));
    EXPECT_TRUE(b.wait(1us));
    EXPECT_TRUE(c.wait(1us));
    EXPECT_EQ(nic.stats().queue_full_waits, 1U);
    EXPECT_EQ(nic.stats().hdq_overflows, 0U);  // the driver never overflows the HDQ
  }
  {
    SingleNode node(ec);
    Nic nic(node.device, node.memory, node.options());  // QueueFullPolicy::kWait
    std::vector<BarrierContext> ctxs;
    for (unsigned i = 0; i < 6; ++i) {
      ctxs.push_back(nic.open_context(solo(i)));
      ctxs.back().arrive();
    }
    EXPECT_GE(nic.stats().queue_full_waits, 1U);
    for (auto& c : ctxs) {
      EXPECT_TRUE(c.wait(1us));
    }
  }
}

TEST(Nic, FullSdqThrowsOrWaits) {
  SingleNode node;
  auto opt = node.options();
  opt.sdq_entries = 3;  // holds 2
  opt.on_full = QueueFullPolicy::kThrow;
  Nic nic(node.device, node.memory, opt);
  auto a = nic.open_context(solo(0, SubmitPath::kSdq));
  auto b = nic.open_context(solo(1, SubmitPath::kSdq));
  auto c = nic.open_context(solo(2, SubmitPath::kSdq));
  a.arrive();
  b.arrive();
  expect_error<QueueFull>([&] { c.arrive(); }, "SDQ ring full (2 descriptors in a 3-slot ring)");
  EXPECT_TRUE(a.wait(1us));
  c.arrive();  // the engine has fetched since: room again
  EXPECT_TRUE(b.wait(1us));
  EXPECT_TRUE(c.wait(1us));

  SingleNode node2;
  auto opt2 = node2.options();
  opt2.sdq_entries = 3;
  opt2.full_timeout = 50ns;
  Nic nic2(node2.device, node2.memory, opt2);  // kWait
  std::vector<BarrierContext> ctxs;
  for (unsigned i = 0; i < 7; ++i) {
    ctxs.push_back(nic2.open_context(solo(i, SubmitPath::kSdq)));
    ctxs.back().arrive();
  }
  for (auto& c2 : ctxs) {
    EXPECT_TRUE(c2.wait(1us));
  }
  EXPECT_GE(nic2.stats().queue_full_waits, 1U);
  // 0 ns of patience: the wait runs out at once and says how long it waited.
  nic2.close();
  SingleNode node3;
  auto opt3 = node3.options();
  opt3.sdq_entries = 2;  // holds 1
  opt3.full_timeout = 0ns;
  Nic nic3(node3.device, node3.memory, opt3);
  auto x = nic3.open_context(solo(0, SubmitPath::kSdq));
  auto y = nic3.open_context(solo(1, SubmitPath::kSdq));
  x.arrive();
  expect_error<QueueFull>([&] { y.arrive(); }, "for 0 ns of device time; nothing submitted");
}

TEST(Nic, EveryContextOfTheDeviceAtOnce) {
  model::EngineConfig ec;
  ec.num_ctx = 16;
  SingleNode node(ec);
  Nic nic(node.device, node.memory, node.options());
  ASSERT_EQ(nic.hw().num_ctx, 16U);
  std::vector<BarrierContext> ctxs;
  for (unsigned i = 0; i < 16; ++i) {
    ctxs.push_back(nic.open_context(solo(i, i % 2 ? SubmitPath::kSdq : SubmitPath::kHdq,
                                         i % 3 ? WaitMode::kPoll : WaitMode::kInterrupt)));
  }
  for (int round = 0; round < 3; ++round) {
    for (auto& c : ctxs) {
      c.arrive();
    }
    for (auto it = ctxs.rbegin(); it != ctxs.rend(); ++it) {
      EXPECT_TRUE(it->wait(2us)) << "context " << it->id();
      EXPECT_EQ(it->epoch(), round + 1);
    }
  }
  EXPECT_EQ(nic.stats().cq_entries, 48U);
  EXPECT_EQ(nic.stats().unclaimed, 0U);
}

// A 4-entry CQ (holds 3): the engine holds completions back while it is
// full, the driver's tail writes release them, and the phase bit flips on
// every wrap.
TEST(Nic, SmallCompletionQueueWrapsAndHoldsBack) {
  SingleNode node;
  auto opt = node.options();
  opt.cq_entries = 4;
  Nic nic(node.device, node.memory, opt);
  std::vector<BarrierContext> ctxs;
  for (unsigned i = 0; i < 6; ++i) {
    ctxs.push_back(nic.open_context(solo(i, i < 3 ? SubmitPath::kHdq : SubmitPath::kSdq)));
  }
  for (int round = 1; round <= 5; ++round) {
    for (auto& c : ctxs) {
      c.arrive();
    }
    node.engine.run(500);  // without the host: three entries, then the CQ is full
    EXPECT_EQ(node.engine.completions().size(), 6U * (round - 1) + 3U);
    EXPECT_EQ(hw::Csr(node.device).read(hw::nic::STATUS_BUSY), 1U);
    for (auto& c : ctxs) {
      EXPECT_TRUE(c.wait(2us)) << "round " << round << " context " << c.id();
      EXPECT_EQ(c.epoch(), round);
    }
  }
  EXPECT_EQ(nic.stats().cq_entries, 30U);
  EXPECT_EQ(nic.stats().unclaimed, 0U);
}

TEST(Nic, ReopenedContextContinuesItsEpochs) {
  SingleNode node;
  Nic nic(node.device, node.memory, node.options());
  {
    auto ctx = nic.open_context(solo(2));
    for (int i = 0; i < 3; ++i) {
      ctx.barrier(1us);
    }
  }
  auto again = nic.open_context(solo(2));
  EXPECT_EQ(again.epoch(), 3);
  again.barrier(1us);
  EXPECT_EQ(node.engine.completions().back().epoch, 4);
  again.close();
  auto cfg = solo(2);
  cfg.first_epoch = 0x8000;  // explicitly chosen and newer: fine
  auto third = nic.open_context(cfg);
  third.barrier(1us);
  EXPECT_EQ(node.engine.completions().back().epoch, 0x8000);
}

TEST(Nic, ClosingUncollectedContextAndNicIsClean) {
  SingleNode node;
  auto nic = std::make_unique<Nic>(node.device, node.memory, node.options());
  auto ctx = nic->open_context(solo(0));
  ctx.arrive();
  ctx.close();  // drains: the barrier of one completes, the id is free again
  auto again = nic->open_context(solo(0));
  again.barrier(1us);
  again.arrive();
  EXPECT_EQ(nic->close(), 0U);  // drained, nothing abandoned
  EXPECT_EQ(node.engine.completions().size(), 3U);
  nic.reset();
  expect_error<std::logic_error>([&] { (void)again.pending(); }, "the Nic is closed");
}

}  // namespace
}  // namespace syncfab::driver::test
