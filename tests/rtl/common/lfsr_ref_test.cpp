// The reference LFSR's mask table (from the lfsr spec) gives a maximal-length
// sequence for widths 3..20, and the reference's load/enable rules.
#include <gtest/gtest.h>

#include "ref/lfsr_ref.hpp"

namespace syncfab::tb::ref {
namespace {

TEST(LfsrRef, MaximalPeriodForWidths3To20) {
  for (unsigned w = 3; w <= 20; ++w) {
    const std::uint64_t mask = lfsr_mask(w);
    // The top tap must be set, or the state would shrink to fewer bits.
    ASSERT_NE(mask >> (w - 1), 0U) << "width " << w;
    ASSERT_EQ(mask >> w, 0U) << "width " << w;
    const std::uint64_t states = (1ULL << w) - 1;
    std::uint64_t s = 1;
    std::uint64_t period = 0;
    do {
      s = lfsr_next(s, mask);
      ++period;
      ASSERT_NE(s, 0U) << "width " << w << " reached the lock-up state";
    } while (s != 1 && period <= states);
    EXPECT_EQ(period, states) << "width " << w << " mask 0x" << std::hex << mask;
  }
}

TEST(LfsrRef, LoadAndEnableRules) {
  Lfsr l(16, 1);
  EXPECT_EQ(l.state(), 1U);
  l.edge(false, false, 0);
  EXPECT_EQ(l.state(), 1U);  // hold
  l.edge(true, false, 0);
  EXPECT_EQ(l.state(), 0xD008U);  // 1 -> (0 ^ mask)
  l.edge(true, true, 0x1234);
  EXPECT_EQ(l.state(), 0x1234U);  // seed wins over enable
  l.edge(false, true, 0);
  EXPECT_EQ(l.state(), 1U);  // zero seed loads Seed
  l.edge(true, false, 0);
  l.reset();
  EXPECT_EQ(l.state(), 1U);
  EXPECT_THROW(lfsr_mask(2), std::invalid_argument);
  EXPECT_THROW(lfsr_mask(33), std::invalid_argument);
}

}  // namespace
}  // namespace syncfab::tb::ref
