// The reaction point's rate law (docs/nic/dcqcn.md section 5) against
// sequences computed by hand from the section's formulas.
#include <gtest/gtest.h>

#include <cstdint>

#include <syncfab/fmt/formats.hpp>
#include <syncfab/model/dcqcn_rp.hpp>

namespace syncfab::model {
namespace {

struct State {
  std::uint32_t rc, rt, alpha, t, bc;
};

void expect(const DcqcnRp& rp, const State& s, const char* where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(rp.rc(), s.rc);
  EXPECT_EQ(rp.rt(), s.rt);
  EXPECT_EQ(rp.alpha(), s.alpha);
  EXPECT_EQ(rp.timer_stage(), s.t);
  EXPECT_EQ(rp.byte_stage(), s.bc);
}

void idle(DcqcnRp& rp, const DcqcnParams& p, unsigned cycles) {
  for (unsigned i = 0; i < cycles; ++i) {
    rp.end_cycle(p, false);
  }
}

// g = 1/16, alpha timer 10, rate timer 100, byte counter 50 flits, F = 2,
// R_AI 1000, R_HAI 5000.
DcqcnParams small() {
  DcqcnParams p;
  p.g_shift = 4;
  p.alpha_timer = 10;
  p.rate_timer = 100;
  p.byte_counter = 50;
  p.stages = 2;
  p.rate_ai = 1000;
  p.rate_hai = 5000;
  p.rate_min = 16;
  return p;
}

TEST(DcqcnRp, StartsAtLineRateWithAlphaOne) {
  const DcqcnRp rp;
  expect(rp, {fmt::kRateLine, fmt::kRateLine, fmt::kAlphaOne, 0, 0}, "new flow");
}

TEST(DcqcnRp, AlphaDecaysEachTimerPeriodWithoutCnp) {
  const DcqcnParams p = small();
  DcqcnRp rp;
  idle(rp, p, 9);
  EXPECT_EQ(rp.alpha(), 65536U);  // the 10th cycle expires the timer
  idle(rp, p, 1);
  EXPECT_EQ(rp.alpha(), 61440U);  // 65536 - 65536/16
  idle(rp, p, 10);
  EXPECT_EQ(rp.alpha(), 57600U);  // 61440 - 3840
}

TEST(DcqcnRp, HandComputedSequence) {
  const DcqcnParams p = small();
  DcqcnRp rp;
  idle(rp, p, 10);
  expect(rp, {65536, 65536, 61440, 0, 0}, "alpha decayed once");
  // RT = RC; RC -= RC*alpha >> 17 = 65536*61440/2^17 = 30720;
  // alpha = 61440 - 3840 + 4096.
  rp.end_cycle(p, true);
  expect(rp, {34816, 65536, 61696, 0, 0}, "CNP 1");
  // cut 34816*61696/2^17 = 16388; alpha = 61696 - 3856 + 4096.
  rp.end_cycle(p, true);
  expect(rp, {18428, 34816, 61936, 0, 0}, "CNP 2");
  // 99 cycles: nine alpha decays, no rate event yet.
  idle(rp, p, 99);
  expect(rp, {18428, 34816, 34650, 0, 0}, "99 cycles");
  // Rate timer: T = 1 <= F, fast recovery RC = (34816 + 18428) / 2.
  idle(rp, p, 1);
  expect(rp, {26622, 34816, 32485, 1, 0}, "fast recovery 1");
  idle(rp, p, 100);
  expect(rp, {30719, 34816, 17040, 2, 0}, "fast recovery 2");
  // T = 3 > F, BC = 0: additive RT = 34816 + 1000, RC = (35816 + 30719) / 2.
  idle(rp, p, 100);
  expect(rp, {33267, 35816, 8940, 3, 0}, "additive increase");
  // 150 flits: one byte-counter stage per cycle.
  rp.add_flits(150);
  idle(rp, p, 1);
  expect(rp, {35041, 36816, 8940, 3, 1}, "byte counter 1: additive");
  idle(rp, p, 1);
  expect(rp, {36428, 37816, 8940, 3, 2}, "byte counter 2: additive");
  // T = BC = 3 > F: hyper, i = 1, RT = 37816 + 5000.
  idle(rp, p, 1);
  expect(rp, {39622, 42816, 8940, 3, 3}, "byte counter 3: hyper");
  idle(rp, p, 1);
  expect(rp, {39622, 42816, 8940, 3, 3}, "no flits left: nothing");
}

TEST(DcqcnRp, HyperIncreaseStepGrowsWithTheSmallerStage) {
  DcqcnParams p = small();
  p.alpha_timer = 1000000;
  p.rate_hai = 2000;
  DcqcnRp rp;
  rp.end_cycle(p, true);  // RC 32768, RT 65536
  rp.end_cycle(p, true);  // RC 16384, RT 32768
  rp.add_flits(5 * 50);
  idle(rp, p, 5);  // BC 1..5: FR, FR, AI, AI, AI
  EXPECT_EQ(rp.byte_stage(), 5U);
  EXPECT_EQ(rp.rt(), 32768U + 3 * 1000);
  // T 1, 2: additive (BC > F already); T 3, 4, 5: hyper with i = 1, 2, 3.
  idle(rp, p, 500);
  EXPECT_EQ(rp.timer_stage(), 5U);
  EXPECT_EQ(rp.rt(), 32768U + 3 * 1000 + 2 * 1000 + (1 + 2 + 3) * 2000);
}

TEST(DcqcnRp, RateNeverBelowMinimumNorAboveLine) {
  DcqcnParams p = small();
  DcqcnRp rp;
  for (int i = 0; i < 20; ++i) {
    rp.end_cycle(p, true);  // alpha stays 1: each CNP halves RC
  }
  EXPECT_EQ(rp.rc(), p.rate_min);
  EXPECT_EQ(rp.rt(), p.rate_min);
  EXPECT_EQ(rp.alpha(), fmt::kAlphaOne);
  p.rate_hai = fmt::kRateLine;
  rp.add_flits(10 * 50);
  idle(rp, p, 1000);
  EXPECT_EQ(rp.rt(), fmt::kRateLine);
  EXPECT_LE(rp.rc(), fmt::kRateLine);
}

TEST(DcqcnRp, CnpResetsTheStages) {
  const DcqcnParams p = small();
  DcqcnRp rp;
  rp.end_cycle(p, true);
  idle(rp, p, 300);
  rp.add_flits(60);
  idle(rp, p, 1);
  EXPECT_EQ(rp.timer_stage(), 3U);
  EXPECT_EQ(rp.byte_stage(), 1U);
  rp.end_cycle(p, true);
  EXPECT_EQ(rp.timer_stage(), 0U);
  EXPECT_EQ(rp.byte_stage(), 0U);
  rp.add_flits(40);  // the 10 left over were cleared by the CNP
  idle(rp, p, 1);
  EXPECT_EQ(rp.byte_stage(), 0U);
}

}  // namespace
}  // namespace syncfab::model
