// The driver's barrier on the virtual platform: every node's unchanged
// driver on its own SC_THREAD over TLM, on the golden network, with
// golden-model NICs, verilated RTL NICs, and a mix of both -- a single
// barrier, consecutive barriers, several fan-outs and shapes, both
// submission paths and both wait modes. The run's checks
// (vp::BarrierRun::check) and the TLM error counts decide. One platform per
// process (SystemC elaborates once): each case is a test of its own.
#include <gtest/gtest.h>
#include <syncfab/test/seeds.hpp>

#include <string>
#include <vector>

#include "syncfab/vp/barrier_run.hpp"
#include "syncfab/vp/platform.hpp"

namespace syncfab::vp {
namespace {

struct Case {
  const char* name;
  unsigned x, y, z;
  std::vector<unsigned> ks;
  unsigned barriers;
  BarrierRunConfig::Submit submit;
  driver::WaitMode wait;
  std::vector<unsigned> rtl{};  // nodes with the RTL NIC; kAll: every node
};

constexpr unsigned kAll = ~0U;

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class VpBarrier : public ::testing::TestWithParam<Case> {};

TEST_P(VpBarrier, CompletesOnEveryNode) {
  const Case& c = GetParam();
  const auto seed = syncfab::test::seeds({1}).front();
  SCOPED_TRACE("replay: " + syncfab::test::replay_command(seed));
  PlatformConfig pc;
  pc.fabric.x = c.x;
  pc.fabric.y = c.y;
  pc.fabric.z = c.z;
  pc.rtl_nodes = c.rtl;
  if (c.rtl == std::vector<unsigned>{kAll}) {
    pc.rtl_nodes.clear();
    for (unsigned n = 0; n < c.x * c.y * c.z; ++n) {
      pc.rtl_nodes.push_back(n);
    }
  }
  BarrierRunConfig bc;
  bc.ks = c.ks;
  bc.barriers = c.barriers;
  bc.submit = c.submit;
  bc.wait = c.wait;
  bc.seed = seed;
  BarrierRun run(bc, pc);
  Platform p("vp", pc, [&run](unsigned n, Host& h) { run.program(n, h); });
  ASSERT_TRUE(p.run(sc_core::sc_time(10, sc_core::SC_MS))) << "hosts still running";
  for (const auto& bad : run.check(p)) {
    ADD_FAILURE() << bad;
  }
  EXPECT_EQ(run.completions(), std::uint64_t{c.x} * c.y * c.z * c.ks.size() * c.barriers);
  for (unsigned n = 0; n < p.size(); ++n) {
    EXPECT_EQ(p.nic(n).errors().total(), 0U) << "node " << n;
    EXPECT_EQ(p.memory(n).errors().total(), 0U) << "node " << n;
    if (c.wait == driver::WaitMode::kInterrupt) {
      EXPECT_EQ(run.log(n).stats.done_irqs, c.ks.size() * c.barriers) << "node " << n;
    }
  }
}

using S = BarrierRunConfig::Submit;
using W = driver::WaitMode;
INSTANTIATE_TEST_SUITE_P(
    Shapes, VpBarrier,
    ::testing::Values(
        Case{"SingleBarrierTwoNodes", 2, 1, 1, {1}, 1, S::kHdq, W::kPoll},
        Case{"ConsecutiveHdqSdqPoll", 2, 2, 2, {2}, 20, S::kAlternate, W::kPoll},
        Case{"ConsecutiveSdqIrq", 3, 3, 1, {2}, 10, S::kSdq, W::kInterrupt},
        Case{"FanOuts1To4", 4, 2, 2, {1, 2, 3, 4}, 5, S::kAlternate, W::kPoll},
        Case{"ThirtyTwoNodesIrq", 4, 4, 2, {2}, 3, S::kHdq, W::kInterrupt},
        Case{"OneNode", 1, 1, 1, {1}, 3, S::kAlternate, W::kPoll},
        // The same with the verilated RTL NIC on every node.
        Case{"RtlSingleBarrierTwoNodes", 2, 1, 1, {1}, 1, S::kHdq, W::kPoll, {kAll}},
        Case{"RtlConsecutiveHdqSdqPoll", 2, 2, 2, {2}, 20, S::kAlternate, W::kPoll, {kAll}},
        Case{"RtlConsecutiveSdqIrq", 3, 3, 1, {2}, 10, S::kSdq, W::kInterrupt, {kAll}},
        Case{"RtlFanOuts1To4", 4, 2, 2, {1, 2, 3, 4}, 5, S::kAlternate, W::kPoll, {kAll}},
        Case{"RtlThirtyTwoNodesIrq", 4, 4, 2, {2}, 3, S::kHdq, W::kInterrupt, {kAll}},
        Case{"RtlOneNode", 1, 1, 1, {1}, 3, S::kAlternate, W::kPoll, {kAll}},
        // Model and RTL NICs in one barrier.
        Case{"MixedHdqSdqPoll", 2, 2, 2, {1, 2}, 10, S::kAlternate, W::kPoll, {0, 3, 5}},
        Case{"MixedSdqIrq", 3, 3, 1, {2}, 5, S::kSdq, W::kInterrupt, {4}},
        Case{"MixedFanOuts1To4",
             4,
             2,
             2,
             {1, 2, 3, 4},
             5,
             S::kAlternate,
             W::kPoll,
             {0, 2, 4, 6, 8, 10, 12, 14}}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace syncfab::vp
