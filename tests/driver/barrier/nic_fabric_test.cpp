// The barrier API across a torus of golden-model NICs, one Nic per node:
// two nodes and many, every submission path and wait mode, a communicator on
// a subset of the nodes with a shuffled rank -> LID table, consecutive
// barriers with a fast node running ahead, and eight contexts in flight.
// Safety is checked from the host's side: no rank's barrier completes while
// a rank has not arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include <syncfab/hw/csr.hpp>

#include "nic_fixture.hpp"

namespace syncfab::driver::test {
namespace {

TEST(NicFabric, TwoNodesEveryPathAndWaitMode) {
  FabricNodes f(torus(2, 1, 1));
  auto ctxs = f.open_all(0, 1);
  std::uint16_t epoch = 0;
  for (auto p0 : {SubmitPath::kHdq, SubmitPath::kSdq}) {
    for (auto p1 : {SubmitPath::kHdq, SubmitPath::kSdq}) {
      for (auto m : {WaitMode::kPoll, WaitMode::kInterrupt}) {
        SCOPED_TRACE("epoch " + std::to_string(epoch + 1));
        ctxs[0].arrive(p0, m);
        EXPECT_FALSE(ctxs[0].wait(500ns)) << "completed before node 1 arrived";
        ctxs[1].arrive(p1, m);
        EXPECT_TRUE(ctxs[0].wait(2us));
        EXPECT_TRUE(ctxs[1].wait(2us));
        ++epoch;
        EXPECT_EQ(ctxs[0].epoch(), epoch);
        EXPECT_EQ(ctxs[1].epoch(), epoch);
      }
    }
  }
  EXPECT_EQ(f.nic(0).stats().sdq_posts, 4U);
  EXPECT_EQ(f.nic(1).stats().sdq_posts, 4U);
  EXPECT_EQ(f.nic(0).stats().done_irqs, 4U);
  EXPECT_EQ(f.nic(1).stats().done_irqs, 4U);
}

// Every node of a 4x4x2 torus, k = 1..3, random paths, modes and arrival
// order; the last rank to arrive is held back while the others wait.
TEST(NicFabric, ManyNodesRandomPathsAndOrder) {
  for (const auto seed : seeds({1, 2, 3})) {
    SCOPED_TRACE(replay(seed));
    std::mt19937_64 rng(seed);
    FabricNodes f(torus(4, 4, 2));
    for (unsigned k = 1; k <= 3; ++k) {
      std::vector<BarrierContext> ctxs;
      for (unsigned n = 0; n < f.size(); ++n) {
        ctxs.push_back(f.nic(n).open_context(ContextConfig{
            k, n, f.size(), k, f.all_lids(), rng() % 2 ? SubmitPath::kHdq : SubmitPath::kSdq,
            rng() % 2 ? WaitMode::kPoll : WaitMode::kInterrupt}));
      }
      for (int b = 0; b < 2; ++b) {
        std::vector<unsigned> order(f.size());
        std::iota(order.begin(), order.end(), 0U);
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i = 0; i + 1 < order.size(); ++i) {
          ctxs[order[i]].arrive();
        }
        // Everyone but the last has arrived: nobody may complete.
        EXPECT_FALSE(ctxs[order[0]].wait(3us)) << "k=" << k << ": early completion";
        for (std::size_t i = 0; i + 1 < order.size(); ++i) {
          EXPECT_FALSE(ctxs[order[i]].test()) << "node " << order[i] << " k=" << k;
        }
        ctxs[order.back()].arrive();
        std::shuffle(order.begin(), order.end(), rng);
        for (auto n : order) {
          EXPECT_TRUE(ctxs[n].wait(10us)) << "node " << n << " k=" << k;
        }
      }
    }
    std::uint64_t completions = 0;
    for (unsigned n = 0; n < f.size(); ++n) {
      completions += hw::Csr(*f.devices[n]).read(hw::nic::CNT_COMPLETION);
      EXPECT_EQ(f.nic(n).stats().unclaimed, 0U);
    }
    EXPECT_EQ(completions, 3U * 2U * f.size());
  }
}

TEST(NicFabric, SubsetCommunicatorWithShuffledRankToLidTable) {
  FabricNodes f(torus(4, 3, 1));
  const std::vector<unsigned> members = {7, 2, 11, 5, 0};  // rank r lives on node members[r]
  std::vector<std::uint16_t> lids;
  lids.reserve(members.size());
  for (auto n : members) {
    lids.push_back(model::Fabric::lid_of(n));
  }
  std::vector<BarrierContext> ctxs;
  for (std::uint32_t r = 0; r < members.size(); ++r) {
    ctxs.push_back(f.nic(members[r])
                       .open_context(ContextConfig{4, r, static_cast<std::uint32_t>(members.size()),
                                                   2, lids}));
  }
  for (int b = 0; b < 3; ++b) {
    for (std::size_t r = 0; r + 1 < ctxs.size(); ++r) {
      ctxs[r].arrive(r % 2 ? SubmitPath::kSdq : SubmitPath::kHdq);
    }
    EXPECT_FALSE(ctxs[0].wait(2us));
    ctxs.back().arrive();
    for (auto& c : ctxs) {
      EXPECT_TRUE(c.wait(5us));
    }
  }
  // Nodes outside the communicator saw no barrier traffic.
  for (unsigned n = 0; n < f.size(); ++n) {
    if (std::find(members.begin(), members.end(), n) == members.end()) {
      EXPECT_EQ(hw::Csr(*f.devices[n]).read(hw::nic::CNT_NOTIF_RECV), 0U) << "node " << n;
    }
  }
}

// A fast node collects barrier n and arrives at n + 1 before the others have
// even looked at n; its notifications for n + 1 wait (parked) at the peers.
TEST(NicFabric, ConsecutiveBarriersWithAFastNode) {
  FabricNodes f(torus(2, 2, 2));
  auto ctxs = f.open_all(2, 2, SubmitPath::kSdq);
  for (std::uint16_t b = 1; b <= 6; ++b) {
    if (b == 1) {
      for (auto& c : ctxs) {
        c.arrive();
      }
    }
    ASSERT_TRUE(ctxs[0].wait(5us)) << "barrier " << b;
    if (b < 6) {
      ctxs[0].arrive(SubmitPath::kHdq);  // runs ahead
      EXPECT_EQ(ctxs[0].epoch(), b + 1);
    }
    for (unsigned n = 1; n < f.size(); ++n) {
      ASSERT_TRUE(ctxs[n].wait(5us)) << "node " << n << " barrier " << b;
      EXPECT_EQ(ctxs[n].epoch(), b);
      if (b < 6) {
        ctxs[n].arrive();
      }
    }
  }
  std::uint64_t drops = 0;
  for (unsigned n = 0; n < f.size(); ++n) {
    drops += hw::Csr(*f.devices[n]).read(hw::nic::CNT_DROP);
  }
  EXPECT_EQ(drops, 0U);  // nothing was mistaken for another epoch
}

TEST(NicFabric, EightContextsInFlightAtOnce) {
  FabricNodes f(torus(2, 2, 1));
  ASSERT_GE(f.nic(0).hw().num_ctx, 8U);
  std::vector<std::vector<BarrierContext>> ctxs(8);  // [ctx][node]
  for (unsigned c = 0; c < 8; ++c) {
    ctxs[c] = f.open_all(c, 1 + c % 3, c % 2 ? SubmitPath::kSdq : SubmitPath::kHdq,
                         c % 4 < 2 ? WaitMode::kPoll : WaitMode::kInterrupt);
  }
  for (int round = 0; round < 2; ++round) {
    for (unsigned n = 0; n + 1 < f.size(); ++n) {
      for (unsigned c = 0; c < 8; ++c) {
        ctxs[c][n].arrive();
      }
    }
    EXPECT_FALSE(ctxs[3][0].wait(3us));
    // Every context is running on every node that arrived.
    for (unsigned n = 0; n + 1 < f.size(); ++n) {
      EXPECT_EQ(hw::Csr(*f.devices[n]).read(hw::nic::STATUS_ACTIVE_CTX), 8U) << "node " << n;
    }
    for (unsigned c = 0; c < 8; ++c) {
      ctxs[c][f.size() - 1].arrive();
    }
    for (unsigned c = 8; c-- > 0;) {
      for (unsigned n = 0; n < f.size(); ++n) {
        EXPECT_TRUE(ctxs[c][n].wait(10us)) << "ctx " << c << " node " << n;
        EXPECT_EQ(ctxs[c][n].epoch(), round + 1);
      }
    }
  }
  for (unsigned n = 0; n < f.size(); ++n) {
    EXPECT_EQ(f.nic(n).stats().cq_entries, 16U);
  }
}

TEST(NicFabric, ClosedContextKeepsItsIdUntilItsBarrierEnds) {
  NicOptions o;
  o.drain_timeout = 200ns;
  FabricNodes f(torus(2, 1, 1), o);
  auto ctxs = f.open_all(1, 1);
  ctxs[0].arrive();
  ctxs[0].close();  // node 1 has not arrived: the drain runs out
  expect_error<std::logic_error>(
      [&] {
        (void)f.nic(0).open_context({1, 0, 2, 1, f.all_lids()});
      },
      "the barrier of epoch 1 of the communicator closed on this id is still running");
  ctxs[1].arrive();
  EXPECT_TRUE(ctxs[1].wait(5us));
  auto again = f.nic(0).open_context({1, 0, 2, 1, f.all_lids()});  // freed by its completion
  EXPECT_EQ(again.epoch(), 1);
  EXPECT_EQ(f.nic(0).stats().unclaimed, 0U);
  // A barrier nobody else joins is abandoned by close(), which says so.
  again.arrive();
  EXPECT_EQ(f.nic(0).close(), 1U);
  EXPECT_EQ(hw::Csr(*f.devices[0]).read(hw::nic::STATUS_BUSY), 0U);
}

}  // namespace
}  // namespace syncfab::driver::test
