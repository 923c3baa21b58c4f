// WredEcn against the switch-egress spec: the region rules, the ECN/lossless
// rules, the LFSR step semantics, and the marked fraction at a held queue
// length against the linear WRED line (exact over the LFSR period, and a
// 4-sigma binomial bound over shorter windows).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>

#include <syncfab/test/seeds.hpp>
#include "syncfab/model/wred_ecn.hpp"

namespace syncfab::model {
namespace {

using syncfab::test::replay_command;
using syncfab::test::seeds;

constexpr std::uint32_t kPeriod = 65535;  // every non-zero 16-bit state once
constexpr Ecn kAllEcn[] = {Ecn::kNotEct, Ecn::kEct1, Ecn::kEct0, Ecn::kCe};

// The WRED line: P(select) at qlen between Kmin and Kmax.
double wred_line(const WredParams& p, const WredConfig& c, std::uint32_t qlen) {
  return static_cast<double>(c.pmax) / std::ldexp(1.0, static_cast<int>(p.prob_w)) *
         (qlen - c.kmin) / (c.kmax - c.kmin);
}

TEST(WredEcn, LfsrRuleAndFullPeriod) {
  EXPECT_EQ(WredEcn::lfsr_next(1), 0xD008);
  EXPECT_EQ(WredEcn::lfsr_next(2), 1);
  WredEcn w;
  EXPECT_EQ(w.lfsr_state(), 0xACE1);
  std::set<std::uint16_t> seen;
  for (std::uint32_t i = 0; i < kPeriod; ++i) {
    ASSERT_TRUE(seen.insert(w.lfsr_state()).second) << "state repeated at step " << i;
    w.clock(true);
  }
  EXPECT_EQ(w.lfsr_state(), 0xACE1) << "period is not 2^16-1";
  EXPECT_EQ(seen.count(0), 0U);
}

TEST(WredEcn, StepSemantics) {
  WredEcn w;
  const WredConfig cfg{true, 10, 20, 255};
  const WredPacket pkt{15, Ecn::kEct0, false};
  const auto s0 = w.lfsr_state();
  const auto d0 = w.decide(pkt, cfg);
  EXPECT_EQ(w.lfsr_state(), s0) << "decide() must not step";
  w.clock(false);
  EXPECT_EQ(w.lfsr_state(), s0) << "no enqueue, no step";
  EXPECT_EQ(w.enqueue(pkt, cfg), d0) << "an enqueue uses the state before its step";
  EXPECT_EQ(w.lfsr_state(), WredEcn::lfsr_next(s0));
  // The LFSR steps on every enqueue whatever the decision, even disabled.
  w.enqueue(pkt, WredConfig{false, 0, 0, 0});
  EXPECT_EQ(w.lfsr_state(), WredEcn::lfsr_next(WredEcn::lfsr_next(s0)));
  w.reset();
  EXPECT_EQ(w.lfsr_state(), 0xACE1);
}

// r is the LFSR state, so a seed picks r: kmin 100, kmax 200, Pmax 128/256,
// qlen 150 gives P = 1/4, i.e. select iff r * 100 < 32768 * 50, iff r < 16384.
TEST(WredEcn, ThresholdIsExact) {
  const WredConfig cfg{true, 100, 200, 128};
  const WredPacket pkt{150, Ecn::kEct1, false};
  for (const auto& [r, hit] : {std::pair{1, true}, {16383, true}, {16384, false}, {65535, false}}) {
    WredEcn w(WredParams{16, 8, static_cast<std::uint16_t>(r)});
    EXPECT_EQ(w.decide(pkt, cfg).hit, hit) << "r = " << r;
  }
  // Full width (32-bit products): 0xFF00 * 0xFFFE = 4278059520 against
  // r * 0xFFFF: 65279 -> 4278059265 (select), 65280 -> 4278124800 (not).
  const WredConfig wide{true, 0, 0xFFFF, 0xFF};
  EXPECT_TRUE(WredEcn(WredParams{16, 8, 65279}).decide({0xFFFE, Ecn::kEct1, false}, wide).hit);
  EXPECT_FALSE(WredEcn(WredParams{16, 8, 65280}).decide({0xFFFE, Ecn::kEct1, false}, wide).hit);
}

TEST(WredEcn, BelowKminNever) {
  WredEcn w;
  const WredConfig cfg{true, 1000, 2000, 255};
  for (std::uint32_t i = 0; i < kPeriod; ++i) {
    for (const Ecn e : kAllEcn) {
      const auto d = w.decide({i % 1000, e, false}, cfg);
      ASSERT_FALSE(d.hit || d.mark || d.drop) << "qlen " << i % 1000;
      ASSERT_EQ(d.ecn, e) << "ECN must pass unchanged";
    }
    w.clock(true);
  }
}

TEST(WredEcn, AtOrAboveKmaxAlways) {
  WredEcn w;
  const WredConfig cfg{true, 1000, 2000, 0};  // Pmax does not matter above Kmax
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint32_t> q(2000, 0xFFFF);
  for (std::uint32_t i = 0; i < 20000; ++i) {
    const std::uint32_t qlen = i == 0 ? 2000 : q(rng);
    for (const bool lossless : {false, true}) {
      const auto ect = w.decide({qlen, Ecn::kEct1, lossless}, cfg);
      ASSERT_TRUE(ect.hit && ect.mark && !ect.drop && ect.ecn == Ecn::kCe);
      const auto ect0 = w.decide({qlen, Ecn::kEct0, lossless}, cfg);
      ASSERT_TRUE(ect0.mark && !ect0.drop && ect0.ecn == Ecn::kCe);
      const auto ce = w.decide({qlen, Ecn::kCe, lossless}, cfg);
      ASSERT_TRUE(ce.mark && !ce.drop && ce.ecn == Ecn::kCe) << "CE stays CE";
      const auto not_ect = w.decide({qlen, Ecn::kNotEct, lossless}, cfg);
      ASSERT_FALSE(not_ect.mark);
      ASSERT_EQ(not_ect.drop, !lossless) << "lossless is never dropped, only Not-ECT drops";
      ASSERT_EQ(not_ect.ecn, Ecn::kNotEct);
    }
    w.clock(true);
  }
}

TEST(WredEcn, KmaxNotAboveKmin) {
  WredEcn w;
  for (const WredConfig cfg :
       {WredConfig{true, 50, 50, 0}, WredConfig{true, 50, 10, 255}, WredConfig{true, 0, 0, 0}}) {
    for (std::uint32_t qlen = 0; qlen < 200; ++qlen) {
      EXPECT_EQ(w.decide({qlen, Ecn::kEct0, false}, cfg).hit, qlen >= cfg.kmin)
          << "kmin " << cfg.kmin << " kmax " << cfg.kmax << " qlen " << qlen;
      w.clock(true);
    }
  }
}

TEST(WredEcn, DisabledNever) {
  WredEcn w;
  const WredConfig cfg{false, 0, 0, 255};
  for (std::uint32_t qlen : {0U, 1U, 0xFFFFU}) {
    for (const Ecn e : kAllEcn) {
      const auto d = w.decide({qlen, e, false}, cfg);
      EXPECT_FALSE(d.hit || d.mark || d.drop);
      EXPECT_EQ(d.ecn, e);
    }
  }
}

TEST(WredEcn, BetweenNotEctDropsUnlessLossless) {
  WredEcn w;
  const WredConfig cfg{true, 0, 100, 255};
  std::uint32_t hits = 0;
  for (std::uint32_t i = 0; i < 10000; ++i) {
    const auto lossy = w.decide({60, Ecn::kNotEct, false}, cfg);
    const auto lossless = w.decide({60, Ecn::kNotEct, true}, cfg);
    const auto ect = w.decide({60, Ecn::kEct1, true}, cfg);
    ASSERT_EQ(lossy.drop, lossy.hit);
    ASSERT_FALSE(lossy.mark);
    ASSERT_FALSE(lossless.drop || lossless.mark);
    ASSERT_EQ(ect.mark, lossy.hit) << "same r, same selection";
    ASSERT_EQ(ect.ecn, ect.mark ? Ecn::kCe : Ecn::kEct1);
    hits += lossy.hit ? 1 : 0;
    w.clock(true);
  }
  EXPECT_GT(hits, 0U);
  EXPECT_LT(hits, 10000U);
}

TEST(WredEcn, RejectsOutOfRange) {
  EXPECT_THROW(WredEcn(WredParams{0, 8, 1}), std::invalid_argument);
  EXPECT_THROW(WredEcn(WredParams{17, 8, 1}), std::invalid_argument);
  EXPECT_THROW(WredEcn(WredParams{16, 0, 1}), std::invalid_argument);
  EXPECT_THROW(WredEcn(WredParams{16, 8, 0}), std::invalid_argument);
  WredEcn w(WredParams{8, 4, 1});
  EXPECT_THROW((void)w.decide({256, Ecn::kCe, false}, {true, 0, 10, 1}), std::out_of_range);
  EXPECT_THROW((void)w.decide({5, Ecn::kCe, false}, {true, 0, 10, 16}), std::out_of_range);
  EXPECT_THROW((void)w.decide({5, static_cast<Ecn>(4), false}, {true, 0, 10, 1}),
               std::out_of_range);
}

// Over one full LFSR period r takes every value 1..65535 once, so the count
// of selected packets at a held qlen is ceil(T/D) - 1 with T/D = 65536 * P:
// within 2 packets of 65535 * P (the line), for any parameters.
TEST(WredEcn, MarkedFractionExactOverPeriod) {
  for (const WredParams p : {WredParams{16, 8, 0xACE1}, WredParams{8, 4, 1},
                             WredParams{12, 16, 0x1234}, WredParams{4, 1, 0xFFFF}}) {
    const std::uint32_t qmax = (1U << p.qlen_w) - 1;
    const std::uint32_t pmax_max = (1U << p.prob_w) - 1;
    const std::uint32_t kmin = qmax / 4;
    const std::uint32_t kmax = qmax - qmax / 8;
    for (const std::uint32_t pmax : {1U, pmax_max / 2 + 1, pmax_max}) {
      const WredConfig cfg{true, kmin, kmax, pmax};
      for (std::uint32_t qlen = kmin; qlen < kmax; qlen += std::max(1U, (kmax - kmin) / 5)) {
        WredEcn w(p);
        std::uint32_t marked = 0;
        for (std::uint32_t i = 0; i < kPeriod; ++i) {
          marked += w.enqueue({qlen, Ecn::kEct0, false}, cfg).mark ? 1 : 0;
        }
        const double line = wred_line(p, cfg, qlen) * kPeriod;
        EXPECT_LE(std::abs(marked - line), 2.0)
            << "QLenW " << p.qlen_w << " ProbW " << p.prob_w << " kmin " << kmin << " kmax " << kmax
            << " pmax " << pmax << " qlen " << qlen << ": " << marked << " marked, line " << line;
      }
    }
  }
}

// Shorter windows from a random LFSR phase: within 4 binomial sigmas (+1) of
// the line. The LFSR is not an independent source (consecutive states are
// shifts of each other); this checks that it is random enough for marking.
TEST(WredEcn, RandomWindowsWithinFourSigma) {
  for (const auto seed : seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::uint32_t> phase(1, 0xFFFF);
    std::uniform_int_distribution<std::uint32_t> kd(0, 30000);
    for (int trial = 0; trial < 20; ++trial) {
      const WredParams p{16, 8, static_cast<std::uint16_t>(phase(rng))};
      const std::uint32_t kmin = kd(rng);
      const std::uint32_t kmax = kmin + 1 + kd(rng);
      const WredConfig cfg{true, kmin, kmax,
                           std::uniform_int_distribution<std::uint32_t>(1, 255)(rng)};
      const std::uint32_t qlen = std::uniform_int_distribution<std::uint32_t>(kmin, kmax - 1)(rng);
      constexpr std::uint32_t kN = 8192;
      WredEcn w(p);
      std::uint32_t marked = 0;
      for (std::uint32_t i = 0; i < kN; ++i) {
        marked += w.enqueue({qlen, Ecn::kEct1, false}, cfg).mark ? 1 : 0;
      }
      const double pr = wred_line(p, cfg, qlen);
      const double bound = 4.0 * std::sqrt(kN * pr * (1.0 - pr)) + 1.0;
      EXPECT_LE(std::abs(marked - kN * pr), bound)
          << "kmin " << kmin << " kmax " << kmax << " pmax " << cfg.pmax << " qlen " << qlen
          << " phase " << p.lfsr_seed << ": " << marked << " of " << kN << ", line " << kN * pr
          << "\n  replay: " << replay_command(seed);
    }
  }
}

}  // namespace
}  // namespace syncfab::model
