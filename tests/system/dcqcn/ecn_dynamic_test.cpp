// The dynamic ECN law (docs/switch-ecn-dynamic.md) on the golden-model incast:
// a short run whose fan-in steps 2 -> 8. What must hold whatever the tuning:
// the fan-in shift follows the active inputs, the marking level moves, the
// run stays lossless and every sender is served; with the law off, the
// static registers stay in force. Its gain on the queue is measured by
// syncfab-ecn-sweep, not asserted here.
#include <gtest/gtest.h>
#include <syncfab/test/seeds.hpp>

#include "incast.hpp"

namespace syncfab::sim::dcqcn {
namespace {

IncastConfig step_2_to_8(std::uint64_t seed) {
  IncastConfig cfg;
  cfg.seed = seed;
  cfg.cycles = 40000;
  cfg.warmup = 5000;
  cfg.fanin = {{0, 2}, {20000, 8}};
  cfg.ecn_dyn.win = 10;
  cfg.ecn_dyn.fan_sh = 1;
  cfg.ecn_dyn.qref = 64;
  cfg.ecn_dyn.pup = 16;
  cfg.ecn_dyn.pdn = 4;
  return cfg;
}

TEST(DcqcnEcnDynamic, ShiftFollowsFanInAndLevelMoves) {
  for (const auto seed : syncfab::test::seeds({1, 2})) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 "; replay: " + syncfab::test::replay_command(seed));
    IncastConfig cfg = step_2_to_8(seed);
    cfg.ecn_dynamic = true;
    const IncastResult dyn = run_incast(cfg);
    cfg.fanin = {{0, 2}};
    const IncastResult two = run_incast(cfg);
    cfg = step_2_to_8(seed);
    const IncastResult off = run_incast(cfg);
    SCOPED_TRACE("dynamic: " + to_string(dyn) + "\n2 only: " + to_string(two) +
                 "\nstatic: " + to_string(off));
    // 8 inputs: floor(log2 8) - FAN_SH = 2; 2 inputs: 1 - 1 = 0.
    EXPECT_EQ(dyn.ecn_shift_max, 2U);
    EXPECT_EQ(two.ecn_shift_max, 0U);
    EXPECT_LT(dyn.ecn_level_min, dyn.ecn_level_max);
    EXPECT_EQ(off.ecn_shift_max, 0U);
    EXPECT_EQ(off.ecn_level_min, cfg.pmax);
    EXPECT_EQ(off.ecn_level_max, cfg.pmax);
    for (const auto* r : {&dyn, &two, &off}) {
      EXPECT_EQ(r->lossless_drops, 0U);
      EXPECT_GT(r->ecn_marks, 0U);
      EXPECT_LE(r->throughput, 1.0);
    }
    for (unsigned s = 0; s < cfg.senders; ++s) {
      EXPECT_GT(dyn.share[s], 0.0) << "sender " << s;
    }
    EXPECT_EQ(two.share[2], 0.0);  // never joined
  }
}

}  // namespace
}  // namespace syncfab::sim::dcqcn
