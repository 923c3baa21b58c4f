// PfcRx against the switch-pfc spec, expectations by hand: a pause of q
// quanta received in cycle t holds xoff from the edge ending t for exactly
// q x cpq cycles; a frame replaces the running time (shorter, longer, or 0 =
// resume); disabled priorities ignore frames and lose their timer; ignore
// masks only stop; the timer is exact at the widest product.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include <syncfab/test/seeds.hpp>
#include "syncfab/model/pfc_rx.hpp"

namespace syncfab::model {
namespace {

using syncfab::test::replay_command;
using syncfab::test::seeds;

struct Rx {
  explicit Rx(PfcRxParams p = {}) : m(p) {}
  PfcRx m;
  // Room for any priority count the block takes; the default one (the format
  // spec's NUM_PRIO) all enabled.
  std::uint64_t enable = (std::uint64_t{1} << fmt::kNumPrio) - 1;
  std::uint32_t cpq = 1;
  std::array<std::uint16_t, kPfcMaxPrio> quanta{};
  PfcRxOutputs idle(std::uint64_t ignore = 0) {
    return m.step({enable, cpq, false, 0, std::span(quanta).first(m.params().num_prio), ignore});
  }
  PfcRxOutputs frame(std::uint64_t cls, std::uint64_t ignore = 0) {
    return m.step({enable, cpq, true, cls, std::span(quanta).first(m.params().num_prio), ignore});
  }
};

// Cycles in which xoff bit p is high after a frame in cycle 0, until it falls.
int high_cycles(Rx& r, unsigned p, int limit = 100000) {
  int n = 0;
  for (int c = 1; c < limit; ++c) {
    if ((r.idle().xoff >> p & 1U) == 0) {
      break;
    }
    ++n;
  }
  return n;
}

TEST(PfcRx, PauseLastsQuantaTimesCyclesPerQuantum) {
  for (const auto& [q, cpq] : {std::pair{5, 3}, {1, 1}, {1, 255}, {7, 1}, {300, 2}}) {
    Rx r;
    r.cpq = static_cast<std::uint32_t>(cpq);
    r.quanta[1] = static_cast<std::uint16_t>(q);
    const auto o = r.frame(0b10);
    EXPECT_EQ(o.xoff, 0U) << "registered: not in the receiving cycle";
    EXPECT_EQ(o.evt_xoff_rx, 0b10U);
    EXPECT_EQ(o.evt_xon_rx, 0U);
    EXPECT_EQ(high_cycles(r, 1), q * cpq) << "q " << q << " cpq " << cpq;
  }
}

TEST(PfcRx, FrameReplacesTheRunningTimer) {
  Rx r;
  r.quanta[0] = 10;
  r.frame(1);  // cycle 0: 10 cycles
  r.idle();    // cycle 1: timer 10
  r.idle();    // cycle 2: 9
  r.quanta[0] = 2;
  auto o = r.frame(1);  // cycle 3: timer 8, replaced by 2 (not 8 + 2)
  EXPECT_EQ(o.xoff, 1U);
  EXPECT_EQ(high_cycles(r, 0), 2);
  r.quanta[0] = 3;
  r.frame(1);
  r.idle();
  r.quanta[0] = 20;
  r.frame(1);  // a longer pause also replaces
  EXPECT_EQ(high_cycles(r, 0), 20);
  r.quanta[0] = 50;
  r.frame(1);
  r.idle();
  r.quanta[0] = 0;
  o = r.frame(1);  // resume
  EXPECT_EQ(o.xoff, 1U);
  EXPECT_EQ(o.evt_xon_rx, 1U);
  EXPECT_EQ(o.evt_xoff_rx, 0U);
  EXPECT_EQ(r.idle().xoff, 0U);
}

TEST(PfcRx, OnlyEnabledClassesOfTheFrameHit) {
  Rx r;
  r.enable = 0b0101;
  r.quanta = {4, 4, 4, 0, 4, 4, 4, 4};
  const auto o = r.frame(0b1111);
  EXPECT_EQ(o.evt_xoff_rx, 0b0101U);
  EXPECT_EQ(o.evt_xon_rx, 0U) << "3 is disabled: its resume is not taken either";
  EXPECT_EQ(r.idle().xoff, 0b0101U);
  r.enable = 0b0001;  // disabling 2 clears its timer at the next edge
  EXPECT_EQ(r.idle().xoff, 0b0101U);
  EXPECT_EQ(r.idle().xoff, 0b0001U);
  r.enable = 0b0101;
  EXPECT_EQ(r.idle().xoff, 0b0001U) << "re-enabling does not bring the time back";
}

TEST(PfcRx, IgnoreMasksStopButNotTheTimer) {
  Rx r;
  r.cpq = 2;
  r.quanta[6] = 3;
  r.frame(1U << 6);
  for (int c = 0; c < 6; ++c) {
    const std::uint64_t ignore = c < 3 ? 1U << 6 : 0;
    const auto o = r.idle(ignore);
    EXPECT_EQ(o.xoff, 1U << 6) << c;
    EXPECT_EQ(o.stop, c < 3 ? 0U : 1U << 6) << c;
  }
  EXPECT_EQ(r.idle().xoff, 0U);
}

TEST(PfcRx, WidestProductIsExact) {
  Rx r(PfcRxParams{3, 8});
  r.enable = 0b111;
  r.cpq = 255;
  r.quanta[2] = 0xFFFF;
  r.frame(0b100);
  EXPECT_EQ(r.m.timer(2), 0xFFFFULL * 255);
  Rx n(PfcRxParams{3, 2});
  n.enable = 0b111;
  n.cpq = 3;
  n.quanta[0] = 0xFFFF;
  n.frame(1);
  EXPECT_EQ(n.m.timer(0), 0xFFFFULL * 3);
  EXPECT_THROW(n.m.step({1, 4, false, 0, std::span(n.quanta).first(3), 0}), std::out_of_range);
  EXPECT_THROW(n.m.step({1, 0, true, 1, std::span(n.quanta).first(3), 0}), std::invalid_argument);
}

TEST(PfcRx, RandomPropertiesOfTheSpec) {
  for (const auto seed : seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    Rx r(PfcRxParams{3, 2});
    r.enable = 0b111;
    std::array<std::uint64_t, 3> left{};  // independent countdown per priority
    for (int c = 0; c < 20000; ++c) {
      if (rng() % 40 == 0) {
        r.enable = rng() & 0b111;
      }
      r.cpq = 1 + static_cast<std::uint32_t>(rng() % 3);
      const bool fv = rng() % 4 == 0;
      const std::uint64_t cls = rng() & 0b111;
      const std::uint64_t ign = rng() & 0b111;
      for (auto& q : r.quanta) {
        q = static_cast<std::uint16_t>(rng() % 3 == 0 ? 0 : rng() % 6);
      }
      const auto o = fv ? r.frame(cls, ign) : r.idle(ign);
      for (unsigned p = 0; p < 3; ++p) {
        ASSERT_EQ(o.xoff >> p & 1U, left[p] != 0 ? 1U : 0U)
            << "cycle " << c << " " << replay_command(seed);
        ASSERT_EQ(o.stop, o.xoff & ~ign) << replay_command(seed);
        const bool en = (r.enable >> p & 1U) != 0;
        if (!en) {
          left[p] = 0;
        } else if (fv && (cls >> p & 1U) != 0) {
          left[p] = std::uint64_t{r.quanta[p]} * r.cpq;
        } else if (left[p] != 0) {
          --left[p];
        }
      }
    }
  }
}

}  // namespace
}  // namespace syncfab::model
