// PfcTx against the switch-pfc spec, expectations worked out by hand from the
// spec's steps 1-5: the pause one edge after the XOFF crossing, the XON
// hysteresis, backpressure holding a frame (and a flip to resume while it
// waits), the refresh timing and its saturating counter, disabling while
// paused.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include <syncfab/test/seeds.hpp>
#include "syncfab/model/pfc_tx.hpp"

namespace syncfab::model {
namespace {

using syncfab::test::replay_command;
using syncfab::test::seeds;

struct Tx {
  explicit Tx(PfcTxParams p = {}) : m(p) {
    xoff_thr.fill(10);
    xon_thr.fill(5);
    quanta.fill(0x100);
  }
  PfcTx m;
  std::uint64_t enable = 0;
  // Room for any priority count the block takes (the default is the format
  // spec's NUM_PRIO).
  std::array<std::uint32_t, kPfcMaxPrio> occ{};
  std::array<std::uint32_t, kPfcMaxPrio> xoff_thr{};
  std::array<std::uint32_t, kPfcMaxPrio> xon_thr{};
  std::array<std::uint16_t, kPfcMaxPrio> quanta{};
  std::uint32_t refresh = 0;
  bool ready = true;
  [[nodiscard]] PfcTxInputs in() const {
    const unsigned n = m.params().num_prio;
    return {enable,
            std::span(occ).first(n),
            std::span(xoff_thr).first(n),
            std::span(xon_thr).first(n),
            std::span(quanta).first(n),
            refresh,
            ready};
  }
  PfcTxOutputs step() { return m.step(in()); }
};

TEST(PfcTx, PauseOneEdgeAfterXoffCrossingThenResumeBelowXon) {
  Tx t;
  t.enable = 1U << 2;
  t.occ[2] = 9;  // one below XOFF
  auto o = t.step();
  EXPECT_FALSE(o.frame_valid);
  t.occ[2] = 10;  // the crossing, cycle 1: outputs are still from state
  o = t.step();
  EXPECT_FALSE(o.frame_valid);
  EXPECT_EQ(o.xoff, 0U);
  t.occ[2] = 7;  // between XON and XOFF: stays paused
  o = t.step();  // cycle 2: the pause frame, taken at once
  EXPECT_TRUE(o.frame_valid);
  EXPECT_EQ(o.class_enable, 1U << 2);
  EXPECT_EQ(o.frame_quanta[2], 0x100);
  EXPECT_EQ(o.frame_quanta[0], 0);
  EXPECT_EQ(o.xoff, 1U << 2);
  EXPECT_EQ(o.evt_xoff_tx, 1U << 2);
  EXPECT_EQ(o.evt_xon_tx, 0U);
  t.occ[2] = 5;  // == XON: not below, stays paused
  for (int i = 0; i < 5; ++i) {
    o = t.step();
    EXPECT_FALSE(o.frame_valid) << "refresh 0 never re-sends";
    EXPECT_EQ(o.xoff, 1U << 2);
  }
  t.occ[2] = 4;  // below XON
  o = t.step();
  EXPECT_FALSE(o.frame_valid);
  o = t.step();  // the resume
  EXPECT_TRUE(o.frame_valid);
  EXPECT_EQ(o.class_enable, 1U << 2);
  EXPECT_EQ(o.frame_quanta[2], 0);
  EXPECT_EQ(o.xoff, 0U);
  EXPECT_EQ(o.evt_xon_tx, 1U << 2);
  EXPECT_EQ(o.evt_xoff_tx, 0U);
  o = t.step();
  EXPECT_FALSE(o.frame_valid);
}

TEST(PfcTx, DisabledPriorityNeverPausesAndDisablingResumes) {
  Tx t;
  t.occ.fill(100);
  auto o = t.step();
  o = t.step();
  EXPECT_FALSE(o.frame_valid);
  t.enable = 0b11;
  t.step();
  o = t.step();
  EXPECT_EQ(o.class_enable, 0b11U);
  EXPECT_EQ(o.xoff, 0b11U);
  t.enable = 0b01;  // priority 1 disabled while paused
  o = t.step();
  EXPECT_FALSE(o.frame_valid);
  o = t.step();
  EXPECT_EQ(o.xoff, 0b01U);
  EXPECT_EQ(o.class_enable, 0b10U);
  EXPECT_EQ(o.evt_xon_tx, 0b10U);
}

TEST(PfcTx, BackpressureHoldsTheFrameAndAFlipGoesOutAsResume) {
  Tx t;
  t.enable = 0b1001;
  t.ready = false;
  t.occ[0] = 10;
  t.step();
  auto o = t.step();
  EXPECT_TRUE(o.frame_valid);
  EXPECT_EQ(o.evt_xoff_tx | o.evt_xon_tx, 0U) << "not ready: nothing sent";
  t.occ[3] = 12;  // a second priority joins the waiting frame
  o = t.step();
  EXPECT_EQ(o.class_enable, 0b1U);
  o = t.step();
  EXPECT_EQ(o.class_enable, 0b1001U);
  EXPECT_EQ(o.frame_quanta[3], 0x100);
  t.occ[0] = 0;  // 0 flips back while still waiting
  o = t.step();
  EXPECT_EQ(o.frame_quanta[0], 0x100);
  o = t.step();
  EXPECT_EQ(o.class_enable, 0b1001U);
  EXPECT_EQ(o.frame_quanta[0], 0) << "a pending p whose state flipped back goes out as resume";
  t.ready = true;
  o = t.step();
  EXPECT_EQ(o.evt_xon_tx, 0b1U);
  EXPECT_EQ(o.evt_xoff_tx, 0b1000U);
  o = t.step();
  EXPECT_FALSE(o.frame_valid);
}

// refresh R: a frame sent in cycle c resets ref at the edge, ref counts 0..R-1
// in cycles c+1..c+R, due in c+R, the refresh frame in c+R+1; in that cycle
// the frame itself is the refresh (step 3's !sent), so it goes out once and
// the count restarts. With the first pause in cycle 1: frames in 1 + k(R+1).
TEST(PfcTx, RefreshEveryRPlusOneCycles) {
  for (const std::uint32_t r : {1U, 2U, 4U, 7U}) {
    Tx t;
    t.enable = 1U;
    t.refresh = r;
    t.occ[0] = 10;
    t.step();  // cycle 0: crossing
    std::vector<int> sent;
    for (int c = 1; c < 40; ++c) {
      const auto o = t.step();
      if ((o.evt_xoff_tx & 1U) != 0) {
        sent.push_back(c);
      }
    }
    std::vector<int> want;
    for (int c = 1; c < 40; c += static_cast<int>(r) + 1) {
      want.push_back(c);
    }
    EXPECT_EQ(sent, want) << "refresh " << r;
  }
}

TEST(PfcTx, RefreshWaitsForBackpressureWithoutStacking) {
  Tx t(PfcTxParams{8, 16, 3});
  t.enable = 1U;
  t.refresh = 3;
  t.occ[0] = 10;
  t.step();
  t.step();  // cycle 1: first pause sent, ref -> 0
  EXPECT_EQ(t.m.ref(0), 0U);
  t.ready = false;
  for (int c = 0; c < 20; ++c) {
    t.step();
  }
  EXPECT_EQ(t.m.ref(0), 7U) << "ref saturates at all ones (RefW 3)";
  EXPECT_EQ(t.m.pend(), 1U);
  t.ready = true;
  auto o = t.step();
  EXPECT_EQ(o.evt_xoff_tx, 1U);
  EXPECT_EQ(t.m.ref(0), 0U);
  o = t.step();  // the waiting refresh went out once: nothing stacked behind it
  EXPECT_FALSE(o.frame_valid);
  o = t.step();
  EXPECT_FALSE(o.frame_valid);
  o = t.step();  // ref 0, 1, 2 >= R-1: due, then the next refresh
  EXPECT_FALSE(o.frame_valid);
  o = t.step();
  EXPECT_EQ(o.evt_xoff_tx, 1U);
}

TEST(PfcTx, EqualThresholdsAndXonAboveXoff) {
  Tx t;
  t.enable = 1U;
  t.xoff_thr[0] = 6;
  t.xon_thr[0] = 6;
  t.occ[0] = 6;
  t.step();
  EXPECT_EQ(t.m.xoff(), 1U);
  t.occ[0] = 5;
  t.step();
  EXPECT_EQ(t.m.xoff(), 0U);
  // XON above XOFF: paused at 6, and 7 < 8 resumes at once, 6 pauses again.
  t.xon_thr[0] = 8;
  t.occ[0] = 7;
  t.step();
  EXPECT_EQ(t.m.xoff(), 1U);
  t.step();
  EXPECT_EQ(t.m.xoff(), 0U);
  t.step();
  EXPECT_EQ(t.m.xoff(), 1U);
}

TEST(PfcTx, RandomPropertiesOfTheSpec) {
  for (const auto seed : seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    Tx t(PfcTxParams{8, 4, 3});
    for (int c = 0; c < 20000; ++c) {
      if (rng() % 50 == 0) {
        t.enable = rng() & 0xFF;
        t.refresh = rng() % 8;
      }
      for (unsigned p = 0; p < 8; ++p) {
        t.occ[p] = rng() % 16;
        if (rng() % 200 == 0) {
          t.xoff_thr[p] = rng() % 16;
          t.xon_thr[p] = rng() % 16;
        }
      }
      t.ready = rng() % 3 != 0;
      const std::uint64_t xoff_q = t.m.xoff();
      std::uint64_t crossing = 0;
      for (unsigned p = 0; p < 8; ++p) {
        if ((xoff_q >> p & 1U) == 0 && (t.enable >> p & 1U) != 0 && t.occ[p] >= t.xoff_thr[p]) {
          crossing |= 1U << p;
        }
      }
      const auto o = t.step();
      ASSERT_TRUE(!o.frame_valid || o.class_enable != 0) << replay_command(seed);
      ASSERT_EQ(o.evt_xoff_tx | o.evt_xon_tx, t.ready && o.frame_valid ? o.class_enable : 0U)
          << replay_command(seed);
      ASSERT_EQ(t.m.pend() & crossing, crossing) << "cycle " << c << ": " << replay_command(seed);
      ASSERT_EQ(t.m.xoff() & ~t.enable, 0U) << replay_command(seed);
    }
  }
}

}  // namespace
}  // namespace syncfab::model
