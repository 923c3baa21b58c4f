// The golden-model incast (sim/dcqcn): short runs that check what must hold
// whatever the tuning -- no lossless drop, every sender served, CNPs only
// with DCQCN, fewer pause frames with it. The targets are measured
// by syncfab-dcqcn-incast, not asserted here.
#include <gtest/gtest.h>
#include <syncfab/test/seeds.hpp>

#include "incast.hpp"

namespace syncfab::sim::dcqcn {
namespace {

TEST(DcqcnIncast, PfcOnlyAndDcqcnAreLosslessAndServeEverySender) {
  for (const auto seed : syncfab::test::seeds({1, 2})) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 "; replay: " + syncfab::test::replay_command(seed));
    IncastConfig cfg;
    cfg.seed = seed;
    cfg.cycles = 40000;
    cfg.warmup = 10000;
    cfg.dcqcn = false;
    const IncastResult pfc = run_incast(cfg);
    cfg.dcqcn = true;
    const IncastResult dq = run_incast(cfg);
    SCOPED_TRACE("pfc-only: " + to_string(pfc) + "\ndcqcn: " + to_string(dq));
    EXPECT_EQ(pfc.lossless_drops, 0U);
    EXPECT_EQ(dq.lossless_drops, 0U);
    EXPECT_EQ(pfc.cnps, 0U);
    EXPECT_GT(dq.cnps, 0U);
    EXPECT_GT(pfc.pause_frames, 0U);  // eight senders at line rate into one port
    EXPECT_LT(dq.pause_frames, pfc.pause_frames);
    for (const auto* r : {&pfc, &dq}) {
      ASSERT_EQ(r->share.size(), cfg.senders);
      for (const double s : r->share) {
        EXPECT_GT(s, 0.0);
      }
      EXPECT_LE(r->throughput, 1.0);
    }
  }
}

}  // namespace
}  // namespace syncfab::sim::dcqcn
