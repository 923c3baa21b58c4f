// The sweep's fan-in schedules: every step inside the run, in time order,
// within the 15 senders of the sweep; `alternate` switches 2 <-> 15 at every
// eighth of the run.
#include <gtest/gtest.h>

#include <stdexcept>

#include "fanin_patterns.hpp"

namespace syncfab::sim::dcqcn {
namespace {

TEST(FaninPatterns, StepsInsideTheRunInOrder) {
  for (const char* name : {"step", "burst", "ramp", "alternate"}) {
    SCOPED_TRACE(name);
    const auto s = fanin_pattern(name, 400000);
    ASSERT_FALSE(s.empty());
    EXPECT_EQ(s.front().at, 0U);
    for (std::size_t i = 0; i < s.size(); ++i) {
      EXPECT_LT(s[i].at, 400000U);
      EXPECT_GE(s[i].active, 2U);
      EXPECT_LE(s[i].active, 15U);
      if (i > 0) {
        EXPECT_GT(s[i].at, s[i - 1].at);
        EXPECT_NE(s[i].active, s[i - 1].active);
      }
    }
  }
}

TEST(FaninPatterns, AlternateSwitchesEveryEighth) {
  const auto s = fanin_pattern("alternate", 400000);
  ASSERT_EQ(s.size(), 8U);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].at, 50000U * i);
    EXPECT_EQ(s[i].active, i % 2 == 0 ? 2U : 15U);
  }
}

TEST(FaninPatterns, UnknownNameIsRefused) {
  EXPECT_THROW((void)fanin_pattern("sawtooth", 400000), std::invalid_argument);
}

}  // namespace
}  // namespace syncfab::sim::dcqcn
