// PfcWatchdog against the switch-pfc spec, expectations by hand: a queue held
// in XOFF from cycle s is declared deadlocked in s + detect - 1; RECOVER lasts
// recover cycles (ignore_o high for exactly those), with the drop mode latched
// at entry; a still-paused queue deadlocks again detect cycles after; the
// (limit+1)-th deadlock within a window disables; a deadlock in the closing
// cycle of a window starts a new one; reenable; saturation of the count.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <syncfab/test/seeds.hpp>
#include "syncfab/model/pfc_watchdog.hpp"

namespace syncfab::model {
namespace {

using syncfab::test::replay_command;
using syncfab::test::seeds;

constexpr std::uint64_t kRec = static_cast<std::uint64_t>(fmt::WdState::kRecover);
constexpr std::uint64_t kDis = static_cast<std::uint64_t>(fmt::WdState::kDisabled);

struct Wd {
  explicit Wd(PfcWatchdogParams p = {}) : m(p) {}
  PfcWatchdog m;
  PfcWatchdogInputs in{1, 0, 5, 3, false, 1000, 0, 0};
  PfcWatchdogOutputs step() { return m.step(in); }
};

// Runs `n` cycles from now and returns the cycles (0-based from now) in which
// the event mask has bit 0.
template <class Get>
std::vector<int> events(Wd& w, int n, Get get) {
  std::vector<int> at;
  for (int c = 0; c < n; ++c) {
    if ((get(w.step()) & 1U) != 0) {
      at.push_back(c);
    }
  }
  return at;
}

TEST(PfcWatchdog, DetectAtExactlyDetectCyclesThenRecoverThenAgain) {
  Wd w;  // detect 5, recover 3
  w.step();
  w.step();       // cycles 0, 1: not paused
  w.in.xoff = 1;  // from cycle s = 2
  std::vector<PfcWatchdogOutputs> o;
  for (int c = 2; c < 30; ++c) {
    o.push_back(w.step());
  }
  auto at = [&](int c) { return o[static_cast<std::size_t>(c - 2)]; };
  for (int c = 2; c < 6; ++c) {
    EXPECT_EQ(at(c).evt_detect, 0U) << c;
    EXPECT_EQ(at(c).ignore, 0U) << c;
  }
  EXPECT_EQ(at(6).evt_detect, 1U) << "s + detect - 1";
  EXPECT_EQ(at(6).evt_disable, 0U);
  EXPECT_EQ(at(6).ignore, 0U);
  for (int c = 7; c <= 9; ++c) {  // recover 3 cycles
    EXPECT_EQ(at(c).ignore, 1U) << c;
    EXPECT_EQ(at(c).state, kRec) << c;
    EXPECT_EQ(at(c).drop, 0U) << c;
    EXPECT_EQ(at(c).evt_recover, c == 9 ? 1U : 0U) << c;
  }
  EXPECT_EQ(at(10).ignore, 0U);
  EXPECT_EQ(at(10).state, 0U);
  // Watched again from 0: the next deadlock is detect cycles later.
  for (int c = 10; c < 14; ++c) {
    EXPECT_EQ(at(c).evt_detect, 0U) << c;
  }
  EXPECT_EQ(at(14).evt_detect, 1U);
  EXPECT_EQ(at(18).evt_detect, 0U);
  EXPECT_EQ(at(17).evt_recover, 1U);
  EXPECT_EQ(at(22).evt_detect, 1U);
}

TEST(PfcWatchdog, InterruptedPauseOrDisabledQueueRestartsTheCount) {
  Wd w;
  w.in.xoff = 1;
  EXPECT_TRUE(events(w, 4, [](const auto& o) { return o.evt_detect; }).empty());
  w.in.xoff = 0;
  w.step();
  w.in.xoff = 1;
  EXPECT_TRUE(events(w, 4, [](const auto& o) { return o.evt_detect; }).empty());
  w.in.enable = 0;
  w.step();
  w.in.enable = 1;
  EXPECT_EQ(events(w, 5, [](const auto& o) { return o.evt_detect; }), std::vector<int>{4});
}

TEST(PfcWatchdog, DetectOneDeclaresInTheFirstPausedCycle) {
  Wd w;
  w.in.detect = 1;
  w.in.recover = 1;
  w.in.xoff = 1;
  // detect in 0, RECOVER in 1 (recover 1: ends in 1), MONITOR in 2, detect in 2, ...
  EXPECT_EQ(events(w, 7, [](const auto& o) { return o.evt_detect; }),
            (std::vector<int>{0, 2, 4, 6}));
}

TEST(PfcWatchdog, DropModeLatchedAtEntryAndEnableLowDoesNotCutRecovery) {
  Wd w;
  w.in.detect = 2;
  w.in.recover = 4;
  w.in.drop_mode = true;
  w.in.xoff = 1;
  w.step();
  auto o = w.step();  // cycle 1: declared, drop mode 1 latched
  EXPECT_EQ(o.evt_detect, 1U);
  w.in.drop_mode = false;
  w.in.enable = 0;
  w.in.xoff = 0;
  for (int c = 2; c <= 5; ++c) {
    o = w.step();
    EXPECT_EQ(o.drop, 1U) << c;
    EXPECT_EQ(o.ignore, 1U) << c;
    EXPECT_EQ(o.evt_recover, c == 5 ? 1U : 0U) << c;
  }
  o = w.step();
  EXPECT_EQ(o.drop, 0U);
  EXPECT_EQ(o.ignore, 0U);
}

// detect 3, recover 2: a held queue deadlocks every 5 cycles (d1, d1+5, ...).
TEST(PfcWatchdog, DisableAfterLimitPlusOneDeadlocksInAWindow) {
  Wd w;
  w.in.detect = 3;
  w.in.recover = 2;
  w.in.limit = 2;
  w.in.window = 100;
  w.in.xoff = 1;
  std::vector<int> det;
  std::vector<int> dis;
  std::vector<PfcWatchdogOutputs> o;
  for (int c = 0; c < 40; ++c) {
    o.push_back(w.step());
    if ((o.back().evt_detect & 1U) != 0) {
      det.push_back(c);
    }
    if ((o.back().evt_disable & 1U) != 0) {
      dis.push_back(c);
    }
  }
  EXPECT_EQ(det, (std::vector<int>{2, 7, 12}));
  EXPECT_EQ(dis, std::vector<int>{12});
  for (int c = 13; c < 40; ++c) {
    EXPECT_EQ(o[static_cast<std::size_t>(c)].state, kDis) << c;
    EXPECT_EQ(o[static_cast<std::size_t>(c)].pfc_off, 1U) << c;
    EXPECT_EQ(o[static_cast<std::size_t>(c)].ignore, 1U) << c;
    EXPECT_EQ(o[static_cast<std::size_t>(c)].drop, 0U) << c;
  }
}

// limit 1: the second deadlock 5 cycles after the first disables iff it is
// inside the window: the window opened at d1 closes in d1 + window, and a
// deadlock declared in that closing cycle opens a new window with count 1.
TEST(PfcWatchdog, WindowClosingResetsTheCount) {
  for (const std::uint32_t window : {5U, 6U}) {
    Wd w;
    w.in.detect = 3;
    w.in.recover = 2;
    w.in.limit = 1;
    w.in.window = window;
    w.in.xoff = 1;
    std::vector<int> dis;
    std::vector<int> det;
    for (int c = 0; c < 30; ++c) {
      const auto o = w.step();
      if ((o.evt_detect & 1U) != 0) {
        det.push_back(c);
      }
      if ((o.evt_disable & 1U) != 0) {
        dis.push_back(c);
      }
    }
    if (window == 5) {
      EXPECT_EQ(det, (std::vector<int>{2, 7, 12, 17, 22, 27}));
      EXPECT_TRUE(dis.empty()) << "each deadlock falls in the closing cycle of the last window";
      EXPECT_EQ(w.m.queue(0).dl, 1U);
    } else {
      EXPECT_EQ(det, (std::vector<int>{2, 7}));
      EXPECT_EQ(dis, std::vector<int>{7});
    }
  }
  // A window that closes with no deadlock: count back to 0, window shut.
  Wd w;
  w.in.detect = 2;
  w.in.recover = 1;
  w.in.window = 4;
  w.in.xoff = 1;
  w.step();
  w.step();  // cycle 1: deadlock, window opens (win 0 in cycle 2)
  w.in.xoff = 0;
  for (int c = 2; c <= 4; ++c) {
    w.step();
    EXPECT_TRUE(w.m.queue(0).win_open) << c;
  }
  EXPECT_EQ(w.m.queue(0).dl, 1U);
  w.step();  // cycle 5 = 1 + window: closes
  EXPECT_FALSE(w.m.queue(0).win_open);
  EXPECT_EQ(w.m.queue(0).dl, 0U);
}

TEST(PfcWatchdog, ReenableOnlyLeavesDisabledAndClearsTheWindow) {
  Wd w;
  w.in.detect = 2;
  w.in.recover = 1;
  w.in.limit = 1;
  w.in.xoff = 1;
  w.in.reenable = 1;  // no effect in MONITOR / RECOVER
  std::vector<int> dis;
  for (int c = 0; c < 5; ++c) {
    if ((w.step().evt_disable & 1U) != 0) {
      dis.push_back(c);
    }
  }
  // deadlocks at 1 and 4 (period detect + recover = 3): disabled at 4.
  EXPECT_EQ(dis, std::vector<int>{4});
  EXPECT_EQ(w.m.queue(0).state, fmt::WdState::kDisabled) << "reenable held high before the disable";
  w.in.reenable = 0;
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(w.step().state, kDis);
  }
  w.in.reenable = 1;
  auto o = w.step();  // the pulse
  EXPECT_EQ(o.state, kDis);
  w.in.reenable = 0;
  EXPECT_FALSE(w.m.queue(0).win_open);
  EXPECT_EQ(w.m.queue(0).dl, 0U);
  o = w.step();  // MONITOR, count 0 -> 1
  EXPECT_EQ(o.state, 0U);
  EXPECT_EQ(o.evt_detect, 0U);
  o = w.step();  // detect 2 cycles after: counted as 1 in a new window
  EXPECT_EQ(o.evt_detect, 1U);
  EXPECT_EQ(o.evt_disable, 0U);
  EXPECT_EQ(w.step().state, kRec);
}

TEST(PfcWatchdog, CountSaturatesAndTheTopLimitNeverDisables) {
  Wd w(PfcWatchdogParams{3, 4, 2});
  w.in.detect = 1;
  w.in.recover = 1;
  w.in.window = 15;
  w.in.limit = 3;
  w.in.xoff = 1;
  std::vector<int> det;
  for (int c = 0; c < 14; ++c) {
    const auto o = w.step();
    EXPECT_EQ(o.evt_disable, 0U) << c;
    if ((o.evt_detect & 1U) != 0) {
      det.push_back(c);
    }
  }
  EXPECT_EQ(det, (std::vector<int>{0, 2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(w.m.queue(0).dl, 3U);
  EXPECT_THROW(w.m.step({1, 0, 0, 1, false, 1, 0, 0}), std::invalid_argument);
  EXPECT_THROW(w.m.step({1, 0, 16, 1, false, 1, 0, 0}), std::out_of_range);
  EXPECT_NO_THROW(w.m.step({0, 0, 0, 0, false, 0, 0, 0}));
}

// A time of 0 is legal while no queue is enabled and acts as 2^TimeW: with
// TimeW 4 a recovery running into recover 0 lasts 16 cycles, a window
// running into window 0 closes 16 cycles after it opened.
TEST(PfcWatchdog, ZeroTimeWhileDisabledActsAsTwoToTheTimeW) {
  Wd w(PfcWatchdogParams{3, 4, 2});
  w.in = {1, 1, 1, 5, false, 3, 0, 0};
  EXPECT_EQ(w.step().evt_detect, 1U);  // cycle 0: deadlock, window opens
  w.in = {0, 1, 0, 0, false, 0, 0, 0};
  for (int c = 1; c <= 16; ++c) {
    const auto o = w.step();
    EXPECT_EQ(o.state, kRec) << c;
    EXPECT_EQ(o.evt_recover, c == 16 ? 1U : 0U) << c;
    EXPECT_EQ(w.m.queue(0).win_open, c < 16) << c;
  }
  EXPECT_EQ(w.step().state, 0U);
}

TEST(PfcWatchdog, RandomOutputsAgreeWithTheState) {
  for (const auto seed : seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    Wd w(PfcWatchdogParams{3, 4, 2});
    w.in = {7, 0, 1, 1, false, 15, 1, 0};
    for (int c = 0; c < 50000; ++c) {
      if (rng() % 100 == 0) {
        w.in.detect = 1 + static_cast<std::uint32_t>(rng() % 6);
        w.in.recover = 1 + static_cast<std::uint32_t>(rng() % 6);
        w.in.window = 1 + static_cast<std::uint32_t>(rng() % 15);
        w.in.limit = static_cast<std::uint32_t>(rng() % 4);
        w.in.enable = rng() & 7;
      }
      if (rng() % 8 == 0) {
        w.in.xoff ^= std::uint64_t{1} << (rng() % 3);
      }
      w.in.reenable = rng() % 30 == 0 ? rng() & 7 : 0;
      w.in.drop_mode = (rng() & 1U) != 0;
      const auto o = w.step();
      for (unsigned p = 0; p < 3; ++p) {
        const auto st = o.state >> (2 * p) & 3U;
        ASSERT_LT(st, 3U) << replay_command(seed);
        ASSERT_EQ(o.ignore >> p & 1U, st != 0 ? 1U : 0U) << replay_command(seed);
        ASSERT_EQ(o.pfc_off >> p & 1U, st == kDis ? 1U : 0U) << replay_command(seed);
        ASSERT_TRUE((o.drop >> p & 1U) == 0 || st == kRec) << replay_command(seed);
        ASSERT_TRUE((o.evt_detect >> p & 1U) == 0 || (st == 0 && (w.in.xoff >> p & 1U) != 0))
            << replay_command(seed);
        ASSERT_TRUE((o.evt_disable >> p & 1U) == 0 || (o.evt_detect >> p & 1U) != 0)
            << replay_command(seed);
      }
    }
  }
}

}  // namespace
}  // namespace syncfab::model
