// The model's reading of the dissemination schedule and descriptor
// (cpp-model/network dissemination.hpp) on its own -- knowledge propagation,
// the property barrier safety rests on -- and against the driver's builder and
// encoder. The model never calls the driver; this test is where the two
// independent readings of docs/barrier-protocol.md section 1 must agree, so
// that a bug in either shows up here instead of hiding in both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/driver/barrier_schedule.hpp>
#include <syncfab/fmt/formats.hpp>
#include <syncfab/model/dissemination.hpp>

namespace syncfab::model {
namespace {

// Every rank starts knowing itself; a rank that hears from j in round s learns
// what j knew after round s-1. After the last round every rank knows all, and
// no rank knows all earlier (else it could complete before someone arrived).
void check_knowledge(unsigned p, unsigned k) {
  SCOPED_TRACE("p=" + std::to_string(p) + " k=" + std::to_string(k));
  std::vector<std::vector<DisseminationRound>> s;
  s.reserve(p);
  for (unsigned i = 0; i < p; ++i) {
    s.push_back(dissemination_schedule(i, p, k));
  }
  const unsigned rounds = dissemination_rounds(p, k);
  std::vector<std::vector<bool>> know(p, std::vector<bool>(p, false));
  for (unsigned i = 0; i < p; ++i) {
    know[i][i] = true;
  }
  for (unsigned r = 0; r < rounds; ++r) {
    auto next = know;
    for (unsigned i = 0; i < p; ++i) {
      ASSERT_EQ(s[i].size(), rounds);
      const auto& round = s[i][r];
      ASSERT_LE(round.send_to.size(), k);
      ASSERT_LE(round.expect_from.size(), k);
      for (const unsigned j : round.send_to) {
        ASSERT_LT(j, p);
        ASSERT_NE(j, i) << "self-target, rank " << i << " round " << r;
        ASSERT_EQ(std::count(round.send_to.begin(), round.send_to.end(), j), 1)
            << "repeated peer, rank " << i << " round " << r;
        const auto& pe = s[j][r].expect_from;
        ASSERT_NE(std::find(pe.begin(), pe.end(), i), pe.end())
            << "rank " << i << " sends to " << j << " in round " << r << ", " << j
            << " does not expect it";
        for (unsigned x = 0; x < p; ++x) {
          if (know[i][x]) {
            next[j][x] = true;
          }
        }
      }
      for (const unsigned j : round.expect_from) {
        ASSERT_LT(j, p);
        ASSERT_NE(j, i);
        ASSERT_EQ(std::count(round.expect_from.begin(), round.expect_from.end(), j), 1);
        const auto& ps = s[j][r].send_to;
        ASSERT_NE(std::find(ps.begin(), ps.end(), i), ps.end())
            << "rank " << i << " expects " << j << " in round " << r << ", " << j
            << " never sends it";
      }
    }
    know = std::move(next);
    for (unsigned i = 0; i < p; ++i) {
      const auto n = static_cast<unsigned>(std::count(know[i].begin(), know[i].end(), true));
      if (r + 1 < rounds) {
        ASSERT_LT(n, p) << "rank " << i << " knows all before the last round";
      } else {
        ASSERT_EQ(n, p) << "rank " << i << " does not know all after the last round";
      }
    }
  }
}

TEST(Dissemination, KnowledgePropagates) {
  for (unsigned k = 1; k <= fmt::kKMax; ++k) {
    for (unsigned p = 2; p <= 300; ++p) {
      check_knowledge(p, k);
      if (HasFatalFailure()) {
        return;
      }
    }
  }
}

TEST(Dissemination, SingleRankHasNoRounds) {
  EXPECT_EQ(dissemination_rounds(1, 2), 0U);
  EXPECT_TRUE(dissemination_schedule(0, 1, 2).empty());
}

TEST(Dissemination, ArgumentErrors) {
  EXPECT_THROW((void)dissemination_rounds(0, 1), std::invalid_argument);
  EXPECT_THROW((void)dissemination_rounds(4, 0), std::invalid_argument);
  EXPECT_THROW((void)dissemination_schedule(4, 4, 1), std::invalid_argument);
  EXPECT_THROW((void)dissemination_schedule(0, 4, fmt::kKMax + 1), std::invalid_argument);
  // One rank more than MAX_ROUNDS rounds of fan-out 1 can reach.
  EXPECT_NO_THROW((void)dissemination_schedule(0, 1U << fmt::kMaxRounds, 1));
  EXPECT_THROW((void)dissemination_schedule(0, (1U << fmt::kMaxRounds) + 1, 1),
               std::invalid_argument);
}

// The same schedule, round for round, as the driver's builder -- every rank of
// every size the barrier-protocol doc promises to test, every fan-out.
TEST(Dissemination, SameScheduleAsTheDriver) {
  for (unsigned k = 1; k <= fmt::kKMax; ++k) {
    for (unsigned p = 1; p <= 1000; ++p) {
      ASSERT_EQ(dissemination_rounds(p, k), driver::dissemination_rounds(p, k))
          << "p=" << p << " k=" << k;
      for (unsigned i = 0; i < p; ++i) {
        const auto ours = dissemination_schedule(i, p, k);
        const auto theirs = driver::build_barrier_schedule(i, p, k);
        ASSERT_EQ(ours.size(), theirs.rounds.size()) << "p=" << p << " k=" << k << " rank " << i;
        for (std::size_t r = 0; r < ours.size(); ++r) {
          const auto& d = theirs.rounds[r];
          ASSERT_TRUE(std::equal(ours[r].send_to.begin(), ours[r].send_to.end(), d.send_to.begin(),
                                 d.send_to.end()))
              << "send_to, p=" << p << " k=" << k << " rank " << i << " round " << r;
          ASSERT_TRUE(std::equal(ours[r].expect_from.begin(), ours[r].expect_from.end(),
                                 d.expect_from.begin(), d.expect_from.end()))
              << "expect_from, p=" << p << " k=" << k << " rank " << i << " round " << r;
        }
      }
    }
  }
}

// The same descriptor bytes as the driver's encoder, with and without a
// completion write, for LIDs that are not the ranks (a LID table matters).
TEST(Dissemination, SameDescriptorAsTheDriver) {
  for (const unsigned p : {2U, 3U, 7U, 10U, 27U, 64U, 100U}) {
    std::vector<std::uint16_t> lids(p);
    for (unsigned r = 0; r < p; ++r) {
      lids[r] = static_cast<std::uint16_t>(0x0100 + 3 * (p - r));
    }
    for (unsigned k = 1; k <= fmt::kKMax; ++k) {
      for (unsigned i = 0; i < p; i += 1 + p / 8) {
        for (const bool write : {false, true}) {
          const HostCompletion ours{write, write ? 0x1000'0040ULL : 0, write ? 0xABCDULL : 0,
                                    !write, write};
          const driver::BarrierCompletion theirs{ours.write, ours.addr, ours.value, ours.cq_entry,
                                                 ours.irq};
          const auto a = dissemination_descriptor(i, k, lids, 5, 0x1234, ours);
          const auto b = driver::encode_barrier_desc(driver::build_barrier_schedule(i, p, k), lids,
                                                     5, 0x1234, theirs);
          ASSERT_EQ(a.bytes(), b.bytes())
              << "p=" << p << " k=" << k << " rank " << i << " write " << write;
        }
      }
    }
  }
}

}  // namespace
}  // namespace syncfab::model
