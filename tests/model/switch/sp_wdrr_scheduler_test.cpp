// SpWdrrScheduler against the switch-egress spec: SP precedence, the WDRR
// steps (credit, same-cycle grant, deficit reset), ready-low holds the state,
// long-run flit shares proportional to the weights, work conservation (exact
// when every quantum covers the head packet, bounded idle otherwise), and
// the weight/length-1 corners.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <syncfab/test/seeds.hpp>
#include "syncfab/model/sp_wdrr_scheduler.hpp"

namespace syncfab::model {
namespace {

using syncfab::test::replay_command;
using syncfab::test::seeds;

struct Queues {
  explicit Queues(unsigned n, std::uint32_t len = 1, std::uint32_t weight = 1)
      : len(n, len), weight(n, weight) {}
  std::uint64_t valid = 0;
  std::uint64_t sp = 0;
  std::vector<std::uint32_t> len;
  std::vector<std::uint32_t> weight;
  [[nodiscard]] SchedInputs in() const { return {valid, sp, len, weight}; }
};

TEST(SpWdrr, SpWinsHighestIndexAndLeavesWdrrAlone) {
  SpWdrrScheduler s;
  Queues q(8, 3, 4);
  q.valid = 0xFF;
  // Give WDRR some state first.
  s.step(q.in(), true);
  const unsigned ptr = s.ptr();
  const std::vector<std::uint64_t> def(s.deficits().begin(), s.deficits().end());
  q.sp = 0b0101'0010;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 6}));
  }
  q.valid = 0b0001'0011;  // 6 went empty: 4 is the highest valid SP queue
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 4}));
  EXPECT_EQ(s.ptr(), ptr);
  EXPECT_TRUE(std::equal(def.begin(), def.end(), s.deficits().begin()));
  // An SP queue that is not valid does not block WDRR.
  q.valid = 0b0000'0001;
  EXPECT_TRUE(s.step(q.in(), true).valid);
}

// From reset ptr = 0 with deficit 0, so the first credit goes to the queue
// after 0; the walk below is the spec's steps 3 and 4 by hand.
TEST(SpWdrr, DeficitWalkAndResetWhenPtrQueueEmpties) {
  SpWdrrScheduler s;
  Queues q(8, 3, 10);
  q.valid = 0b11;
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 1}));  // ptr 0 -> 1, d1 = 10 - 3
  EXPECT_EQ(s.ptr(), 1U);
  EXPECT_EQ(s.deficit(1), 7U);
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 1}));  // d1 = 4
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 1}));  // d1 = 1
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 0}));  // 1 short: ptr -> 0, d0 = 7
  EXPECT_EQ(s.deficit(1), 1U) << "a queue left with a short deficit keeps it";
  EXPECT_EQ(s.deficit(0), 7U);
  // No valid WDRR queue: no grant and no state change, even with ready.
  q.valid = 0;
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{false, 0}));
  EXPECT_EQ(s.deficit(0), 7U);
  // Queue 0 (at ptr) went empty: its deficit is cleared, 1 gets its quantum.
  q.valid = 0b10;
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 1}));
  EXPECT_EQ(s.deficit(0), 0U);
  EXPECT_EQ(s.deficit(1), 1U + 10U - 3U);
  EXPECT_EQ(s.ptr(), 1U);
  // ptr turned SP: it counts as not in W, its deficit is cleared too.
  q.valid = 0b110;
  q.sp = 0b010;
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 1}));  // SP serves 1, no WDRR change
  EXPECT_EQ(s.deficit(1), 8U);
  q.valid = 0b100;
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 2}));
  EXPECT_EQ(s.deficit(1), 0U);
  EXPECT_EQ(s.deficit(2), 7U);
}

TEST(SpWdrr, CreditWithoutGrantWhenQuantumIsShort) {
  SpWdrrScheduler s;
  Queues q(8, 1, 1);
  q.valid = 0b100;
  q.len[2] = 5;
  q.weight[2] = 2;
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{false, 0}));  // ptr -> 2, d2 = 2
  EXPECT_EQ(s.ptr(), 2U);
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{false, 0}));  // n == ptr: d2 = 4
  EXPECT_EQ(s.deficit(2), 4U);
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 2}));  // d2 = 6 - 5
  EXPECT_EQ(s.deficit(2), 1U);
}

TEST(SpWdrr, ReadyLowShowsChoiceButHoldsState) {
  SpWdrrScheduler s;
  Queues q(8, 2, 3);
  q.valid = 0b1000'0100;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(s.step(q.in(), false), (SchedGrant{true, 2}));
    EXPECT_EQ(s.ptr(), 0U);
    EXPECT_EQ(s.deficit(2), 0U);
  }
  EXPECT_EQ(s.peek(q.in()), (SchedGrant{true, 2}));
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 2}));
  EXPECT_EQ(s.deficit(2), 1U);
}

TEST(SpWdrr, WeightAndLengthOneIsRoundRobin) {
  SpWdrrScheduler s;
  Queues q(8, 1, 1);
  q.valid = 0xFF;
  for (unsigned i = 1; i <= 40; ++i) {
    EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, i % 8})) << "grant " << i;
  }
}

TEST(SpWdrr, WeightOneLongPacketWaitsLenCycles) {
  SpWdrrScheduler s;
  Queues q(8, 1, 1);
  q.valid = 0b1000;
  q.len[3] = 255;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 254; ++i) {
      ASSERT_FALSE(s.step(q.in(), true).valid) << "round " << round << " cycle " << i;
    }
    EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 3}));
    EXPECT_EQ(s.deficit(3), 0U);
  }
}

TEST(SpWdrr, MaxWeightLengthOneBurst) {
  SpWdrrScheduler s;
  Queues q(8, 1, 255);
  q.valid = 0b11;
  // 0 is skipped first (deficit 0 at reset), then 255 grants per visit.
  for (const unsigned expect : {1U, 0U, 1U}) {
    for (int i = 0; i < 255; ++i) {
      ASSERT_EQ(s.step(q.in(), true), (SchedGrant{true, expect})) << "grant " << i;
    }
  }
}

TEST(SpWdrr, SingleQueue) {
  SpWdrrScheduler s(SchedParams{1, 4, 4});
  Queues q(1, 3, 2);
  q.valid = 1;
  EXPECT_FALSE(s.step(q.in(), true).valid);                // d = 2
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 0}));  // d = 4 - 3
  q.sp = 1;
  EXPECT_EQ(s.step(q.in(), true), (SchedGrant{true, 0}));
}

TEST(SpWdrr, RejectsBadInputs) {
  EXPECT_THROW(SpWdrrScheduler(SchedParams{0, 8, 8}), std::invalid_argument);
  EXPECT_THROW(SpWdrrScheduler(SchedParams{65, 8, 8}), std::invalid_argument);
  EXPECT_THROW(SpWdrrScheduler(SchedParams{8, 0, 8}), std::invalid_argument);
  SpWdrrScheduler s;
  Queues q(8, 1, 1);
  q.valid = 1;
  q.weight[5] = 0;  // a non-SP queue, even an idle one
  EXPECT_THROW((void)s.peek(q.in()), std::invalid_argument);
  q.sp = 1U << 5;  // fine for an SP queue
  EXPECT_NO_THROW((void)s.peek(q.in()));
  q.len[0] = 0;  // a valid queue
  EXPECT_THROW((void)s.peek(q.in()), std::invalid_argument);
  q.valid = 0b10;  // fine for an idle one
  EXPECT_NO_THROW((void)s.peek(q.in()));
  q.len[1] = 256;
  EXPECT_THROW((void)s.peek(q.in()), std::out_of_range);
  Queues bad(7, 1, 1);
  EXPECT_THROW((void)s.peek(bad.in()), std::invalid_argument);
}

// Backlogged WDRR queues with random head lengths: every queue earns one
// quantum per round and keeps less than one packet of deficit, so after any
// prefix the normalised service flits_q / w_q of two queues differs by at
// most 2 + 2 * Lmax / w_min (in rounds); and over a long run the share of
// flits is within 2% of w_q / sum(w).
TEST(SpWdrr, RandomSharesFollowWeights) {
  for (const auto seed : seeds({1, 2, 3, 4})) {
    std::mt19937_64 rng(seed);
    SpWdrrScheduler s;
    Queues q(8);
    std::uniform_int_distribution<std::uint32_t> wd(1, 64);
    std::uniform_int_distribution<std::uint32_t> ld(1, 64);
    q.sp = rng() & 0b1100'0000;  // SP queues stay idle, they only shrink W
    q.valid = 0xFF & ~q.sp & (rng() | 0b11);
    for (auto& w : q.weight) {
      w = wd(rng);
    }
    for (auto& l : q.len) {
      l = ld(rng);
    }
    std::array<double, 8> flits{};
    double total = 0;
    double w_sum = 0;
    std::uint32_t w_min = 255;
    for (unsigned i = 0; i < 8; ++i) {
      if ((q.valid >> i & 1U) != 0) {
        w_sum += q.weight[i];
        w_min = std::min(w_min, q.weight[i]);
      }
    }
    const double max_gap = 2.0 + 2.0 * 64.0 / w_min;
    for (int cycle = 0; cycle < 400'000; ++cycle) {
      const auto g = s.step(q.in(), true);
      if (!g.valid) {
        continue;
      }
      ASSERT_TRUE((q.valid >> g.queue & 1U) != 0);
      flits[g.queue] += q.len[g.queue];
      total += q.len[g.queue];
      q.len[g.queue] = ld(rng);  // next head packet
      double lo = 1e300;
      double hi = 0;
      for (unsigned i = 0; i < 8; ++i) {
        if ((q.valid >> i & 1U) != 0) {
          lo = std::min(lo, flits[i] / q.weight[i]);
          hi = std::max(hi, flits[i] / q.weight[i]);
        }
      }
      ASSERT_LE(hi - lo, max_gap) << "cycle " << cycle << "\n  replay: " << replay_command(seed);
    }
    for (unsigned i = 0; i < 8; ++i) {
      if ((q.valid >> i & 1U) != 0) {
        EXPECT_NEAR(flits[i] / total, q.weight[i] / w_sum, 0.02)
            << "queue " << i << " weight " << q.weight[i] << "\n  replay: " << replay_command(seed);
      }
    }
  }
}

// Random traffic, SP masks and ready. Work conservation: when every quantum
// covers its queue's longest packet, a cycle with ready and a valid queue
// always grants; otherwise, with inputs held, idle cycles in a row are at
// most sum over W of (ceil(len/w) - 1). Also the invariants: grants only go
// to valid queues, SP first, and deficits stay within their width.
TEST(SpWdrr, RandomWorkConservationAndInvariants) {
  for (const auto seed : seeds({1, 2, 3, 4})) {
    std::mt19937_64 rng(seed);
    for (const bool big_quanta : {true, false}) {
      SpWdrrScheduler s;
      Queues q(8);
      std::uniform_int_distribution<std::uint32_t> byte(1, 255);
      std::uint64_t idle_run = 0;
      std::uint64_t idle_bound = 0;
      for (int cycle = 0; cycle < 200'000; ++cycle) {
        const bool hold = cycle % 1000 >= 500;  // half the time the inputs are held
        if (!hold || cycle % 1000 == 500) {
          q.valid = rng() & 0xFF;
          q.sp = (rng() % 4 == 0) ? rng() & 0xFF : 0;
          for (unsigned i = 0; i < 8; ++i) {
            q.len[i] = (rng() % 3 == 0) ? 1 : byte(rng);
            q.weight[i] = big_quanta ? std::max<std::uint32_t>(q.len[i], byte(rng)) : byte(rng);
          }
          idle_run = 0;
          idle_bound = 0;
          for (unsigned i = 0; i < 8; ++i) {
            if ((q.valid >> i & 1U) != 0 && (q.sp >> i & 1U) == 0) {
              idle_bound += (q.len[i] + q.weight[i] - 1) / q.weight[i] - 1;
            }
          }
        }
        const bool ready = hold || rng() % 8 != 0;
        const auto peeked = s.peek(q.in());
        const auto g = s.step(q.in(), ready);
        ASSERT_EQ(g, peeked);
        if (g.valid) {
          ASSERT_TRUE((q.valid >> g.queue & 1U) != 0) << "granted an empty queue";
          if ((q.valid & q.sp) != 0) {
            ASSERT_TRUE((q.sp >> g.queue & 1U) != 0) << "WDRR won over a valid SP queue";
          }
        } else {
          ASSERT_EQ(g.queue, 0U);
          ASSERT_EQ(q.valid & q.sp, 0U) << "a valid SP queue was not served";
        }
        if (ready && q.valid != 0 && !g.valid) {
          ASSERT_FALSE(big_quanta) << "idle with a valid queue at cycle " << cycle
                                   << "\n  replay: " << replay_command(seed);
          ++idle_run;
          ASSERT_LE(idle_run, idle_bound)
              << "cycle " << cycle << "\n  replay: " << replay_command(seed);
        } else if (g.valid) {
          idle_run = 0;
        }
        for (unsigned i = 0; i < 8; ++i) {
          ASSERT_EQ(s.deficit(i) >> s.deficit_w(), 0U);
          if (i != s.ptr()) {
            ASSERT_LT(s.deficit(i), 256U) << "a queue off ptr keeps less than one packet";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace syncfab::model
