// The schedule builder against the property the barrier's safety rests on:
// knowledge propagation. Every rank starts knowing only itself; in round s a
// rank that receives from j learns everything j knew at the end of round s-1
// (j sends round s only after hearing all of rounds < s). After the last round
// every rank must know every rank, and after round s it must know exactly the
// ranks the schedule's form claims -- never more (no rank could complete
// early) and never less.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/driver/barrier_schedule.hpp"

namespace syncfab::driver {
namespace {

class Bits {
 public:
  explicit Bits(std::uint32_t n) : w_((n + 63) / 64, 0) {}
  void set(std::uint32_t i) { w_[i / 64] |= 1ULL << (i % 64); }
  [[nodiscard]] bool test(std::uint32_t i) const { return ((w_[i / 64] >> (i % 64)) & 1U) != 0; }
  // Sets bits [lo, lo + n), n >= 1, lo + n <= size: word at a time.
  void set_range(std::uint32_t lo, std::uint32_t n) {
    std::uint32_t b = lo;
    const std::uint32_t end = lo + n;
    while (b < end) {
      const std::uint32_t take = std::min(64 - b % 64, end - b);
      const std::uint64_t ones = take == 64 ? ~0ULL : ((1ULL << take) - 1);
      w_[b / 64] |= ones << (b % 64);
      b += take;
    }
  }
  friend bool operator==(const Bits&, const Bits&) = default;
  void merge(const Bits& o) {
    for (std::size_t i = 0; i < w_.size(); ++i) {
      w_[i] |= o.w_[i];
    }
  }
  [[nodiscard]] std::uint32_t count() const {
    std::uint32_t c = 0;
    for (auto w : w_) {
      c += static_cast<std::uint32_t>(__builtin_popcountll(w));
    }
    return c;
  }

 private:
  std::vector<std::uint64_t> w_;
};

void check_size(std::uint32_t p, unsigned k) {
  SCOPED_TRACE("p=" + std::to_string(p) + " k=" + std::to_string(k));
  std::vector<BarrierSchedule> s;
  s.reserve(p);
  for (std::uint32_t i = 0; i < p; ++i) {
    s.push_back(build_barrier_schedule(i, p, k));
  }
  const unsigned rounds = dissemination_rounds(p, k);

  // ceil(log_{k+1} p), computed independently.
  unsigned want = 0;
  for (std::uint64_t reach = 1; reach < p; reach *= (k + 1)) {
    ++want;
  }
  ASSERT_EQ(rounds, want);

  std::vector<Bits> know(p, Bits(p));
  for (std::uint32_t i = 0; i < p; ++i) {
    know[i].set(i);
  }
  std::uint64_t claimed = 1;  // (k+1)^(s+1), capped by p
  for (unsigned r = 0; r < rounds; ++r) {
    std::vector<Bits> next = know;
    for (std::uint32_t i = 0; i < p; ++i) {
      ASSERT_EQ(s[i].rounds.size(), rounds);
      const auto& rp = s[i].rounds[r];
      ASSERT_LE(rp.send_to.size(), k);
      ASSERT_LE(rp.expect_from.size(), k);
      for (std::size_t a = 0; a < rp.send_to.size(); ++a) {
        const std::uint32_t j = rp.send_to[a];
        ASSERT_LT(j, p);
        ASSERT_NE(j, i) << "self-target, rank " << i << " round " << r;
        for (std::size_t b = a + 1; b < rp.send_to.size(); ++b) {
          ASSERT_NE(j, rp.send_to[b]) << "repeated peer, rank " << i << " round " << r;
        }
        // Every send has its expect on the peer, in the same round.
        const auto& pe = s[j].rounds[r].expect_from;
        ASSERT_NE(std::find(pe.begin(), pe.end(), i), pe.end())
            << "rank " << i << " sends to " << j << " in round " << r << ", " << j
            << " does not expect it";
        next[j].merge(know[i]);
      }
      for (std::size_t a = 0; a < rp.expect_from.size(); ++a) {
        const std::uint32_t j = rp.expect_from[a];
        ASSERT_LT(j, p);
        ASSERT_NE(j, i);
        for (std::size_t b = a + 1; b < rp.expect_from.size(); ++b) {
          ASSERT_NE(j, rp.expect_from[b]);
        }
        // Every expect has its send (else the barrier would hang).
        const auto& ps = s[j].rounds[r].send_to;
        ASSERT_NE(std::find(ps.begin(), ps.end(), i), ps.end())
            << "rank " << i << " expects " << j << " in round " << r << ", " << j
            << " never sends it";
      }
    }
    know = std::move(next);
    claimed = std::min<std::uint64_t>(p, claimed * (k + 1));
    for (std::uint32_t i = 0; i < p; ++i) {
      // Exactly the claimed interval i, i-1, ..., i-claimed+1.
      ASSERT_EQ(know[i].count(), claimed) << "rank " << i << " after round " << r;
      // Ranks i - claimed + 1 .. i, wrapping below 0.
      Bits want(p);
      const auto c = static_cast<std::uint32_t>(claimed);
      if (c <= i + 1) {
        want.set_range(i + 1 - c, c);
      } else {
        want.set_range(0, i + 1);
        want.set_range(p - (c - i - 1), c - i - 1);
      }
      ASSERT_TRUE(know[i] == want)
          << "rank " << i << " after round " << r << " does not know exactly ranks " << i
          << " down to " << (i + p + 1 - c) % p;
      if (r + 1 < rounds) {
        ASSERT_LT(know[i].count(), p) << "rank " << i << " knows all before the last round";
      }
    }
  }
  for (std::uint32_t i = 0; i < p; ++i) {
    ASSERT_EQ(know[i].count(), p) << "rank " << i;
  }
}

TEST(BarrierSchedule, KnowledgePropagatesForEverySizeAndFanout) {
  for (unsigned k = 1; k <= kBarrierMaxFanout; ++k) {
    for (std::uint32_t p = 2; p <= 1000; ++p) {
      check_size(p, k);
      if (HasFatalFailure()) {
        return;
      }
    }
  }
}

TEST(BarrierSchedule, SingleRankHasNoRounds) {
  const auto s = build_barrier_schedule(0, 1, 2);
  EXPECT_TRUE(s.rounds.empty());
  EXPECT_EQ(dissemination_rounds(1, 3), 0U);
}

TEST(BarrierSchedule, RoundCounts) {
  EXPECT_EQ(dissemination_rounds(2, 1), 1U);
  EXPECT_EQ(dissemination_rounds(128, 1), 7U);
  EXPECT_EQ(dissemination_rounds(129, 1), 8U);
  EXPECT_EQ(dissemination_rounds(9, 2), 2U);
  EXPECT_EQ(dissemination_rounds(10, 2), 3U);
  EXPECT_EQ(dissemination_rounds(128, 2), 5U);
  EXPECT_EQ(dissemination_rounds(128, 3), 4U);  // 4^3 = 64 < 128 <= 256
  EXPECT_EQ(dissemination_rounds(1U << 20, 1), 20U);
}

TEST(BarrierSchedule, Fanout2MatchesDesignForm) {
  // p = 10, k = 2, rank 4: round 0 offsets 1, 2; round 1 offsets 3, 6; round 2
  // offset 9 only (18 >= p is skipped).
  const auto s = build_barrier_schedule(4, 10, 2);
  ASSERT_EQ(s.rounds.size(), 3U);
  EXPECT_EQ(s.rounds[0].send_to, (std::vector<std::uint32_t>{5, 6}));
  EXPECT_EQ(s.rounds[0].expect_from, (std::vector<std::uint32_t>{3, 2}));
  EXPECT_EQ(s.rounds[1].send_to, (std::vector<std::uint32_t>{7, 0}));
  EXPECT_EQ(s.rounds[1].expect_from, (std::vector<std::uint32_t>{1, 8}));
  EXPECT_EQ(s.rounds[2].send_to, (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(s.rounds[2].expect_from, (std::vector<std::uint32_t>{5}));
}

TEST(BarrierSchedule, LargestSizeThatFitsTwentyRounds) {
  const auto s = build_barrier_schedule(12345, 1U << 20, 1);
  EXPECT_EQ(s.rounds.size(), 20U);
  try {
    (void)build_barrier_schedule(0, (1U << 20) + 1, 1);
    FAIL() << "expected a too-many-rounds error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs 21 rounds"), std::string::npos) << e.what();
  }
}

void expect_error(std::uint32_t rank, std::uint32_t size, unsigned k, const std::string& text) {
  try {
    (void)build_barrier_schedule(rank, size, k);
    FAIL() << "no error for rank " << rank << " size " << size << " k " << k;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(BarrierSchedule, ArgumentErrorsNameTheProblem) {
  expect_error(0, 0, 1, "size 0");
  expect_error(5, 5, 1, "rank 5 is not below the communicator size 5");
  expect_error(7, 3, 2, "rank 7");
  expect_error(0, 4, 0, "fan-out k = 0");
  expect_error(0, 4, kBarrierMaxFanout + 1, "out of range 1..4");
  EXPECT_THROW((void)dissemination_rounds(0, 1), std::invalid_argument);
  EXPECT_THROW((void)dissemination_rounds(4, 0), std::invalid_argument);
}

}  // namespace
}  // namespace syncfab::driver
