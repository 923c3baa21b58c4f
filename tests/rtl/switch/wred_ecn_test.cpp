// wred_ecn (rtl/switch/) against syncfab::model::WredEcn, both written from
// the switch-egress spec by different people. Every cycle: mark_o, drop_o and
// ecn_o compared with the model.
//
//   wred_ecn.random      random configs (Kmax <= Kmin, Kmin = Kmax, 0, max,
//                        Pmax 0/max), queue lengths biased to Kmin/Kmax +-1,
//                        0 and max, all ECN codes, lossless, idle cycles,
//                        resets; an independent property (a mark or a drop
//                        only when enabled and qlen >= Kmin); corner table.
//   wred_ecn.held_qlen   the WRED line on the RTL: at a held queue length,
//                        the selected count over 65535 enqueues (one full
//                        LFSR period, whatever its phase) is within 2 of
//                        65535 * Pmax/2^ProbW * (qlen-Kmin)/(Kmax-Kmin).
//
// Parameters (QLenW, ProbW, LfsrSeed) come from tests/rtl/switch/CMakeLists.txt.
#include <Vwred_ecn.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "syncfab/model/wred_ecn.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::model::Ecn;
using syncfab::model::WredConfig;
using syncfab::model::WredDecision;
using syncfab::model::WredEcn;
using syncfab::model::WredPacket;
using syncfab::model::WredParams;

namespace {

constexpr unsigned kQLenW = SF_QLEN_W;
constexpr unsigned kProbW = SF_PROB_W;
constexpr std::uint16_t kLfsrSeed = SF_LFSR_SEED;
constexpr std::uint32_t kQMax = (1U << kQLenW) - 1;
constexpr std::uint32_t kPMax = (1U << kProbW) - 1;
constexpr std::uint32_t kLfsrPeriod = 65535;
constexpr SimTime kPeriod = 10'000;
constexpr WredParams kParams{kQLenW, kProbW, kLfsrSeed};

struct Stim {
  bool req = false;
  WredPacket pkt;
  WredConfig cfg;
};

std::string show(const Stim& s) {
  std::ostringstream os;
  os << "req " << s.req << " qlen " << s.pkt.qlen << " ecn " << static_cast<unsigned>(s.pkt.ecn)
     << " lossless " << s.pkt.lossless << " | enable " << s.cfg.enable << " kmin " << s.cfg.kmin
     << " kmax " << s.cfg.kmax << " pmax " << s.cfg.pmax;
  return os.str();
}

void drive(Vwred_ecn& dut, const Stim& s) {
  dut.req_i = s.req;
  dut.qlen_i = s.pkt.qlen;
  dut.ecn_i = static_cast<std::uint8_t>(s.pkt.ecn);
  dut.lossless_i = s.pkt.lossless;
  dut.enable_i = s.cfg.enable;
  dut.kmin_i = s.cfg.kmin;
  dut.kmax_i = s.cfg.kmax;
  dut.pmax_i = s.cfg.pmax;
}

// The outputs the spec requires for this cycle.
WredDecision expected(const WredEcn& model, const Stim& s) {
  if (!s.req) {
    return WredDecision{false, false, false, s.pkt.ecn};
  }
  return model.decide(s.pkt, s.cfg);
}

// Compares the three outputs; the message names the cycle, the inputs, the
// LFSR state the model used and both values.
void compare(const Vwred_ecn& dut, const WredEcn& model, const Stim& s, const WredDecision& want,
             std::int64_t cycle) {
  const bool mark = dut.mark_o != 0;
  const bool drop = dut.drop_o != 0;
  const unsigned ecn = dut.ecn_o;
  if (mark != want.mark || drop != want.drop || ecn != static_cast<unsigned>(want.ecn)) {
    std::ostringstream os;
    os << "wred_ecn mismatch at cycle " << cycle << ": inputs {" << show(s) << "}, model r=0x"
       << std::hex << model.lfsr_state() << std::dec << " (hit " << want.hit
       << "): RTL mark/drop/ecn = " << mark << "/" << drop << "/" << ecn
       << ", model = " << want.mark << "/" << want.drop << "/" << static_cast<unsigned>(want.ecn);
    TB_FAIL(os.str());
  }
}

Task<> reset(Vwred_ecn& dut, Clock& clk) {
  drive(dut, Stim{});
  dut.rst_ni = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
}

// Random configurations, weighted towards the corners of the rules.
class ConfigGen {
 public:
  explicit ConfigGen(std::mt19937_64& rng) : rng_(rng) {}

  WredConfig next() {
    WredConfig c;
    c.enable = !chance(10);
    const std::uint32_t a = any_q();
    const std::uint32_t b = any_q();
    switch (pick(7)) {
      case 0:  // Kmax > Kmin, random
      case 1:
        c.kmin = std::min(a, b);
        c.kmax = std::max(a, b);
        break;
      case 2:  // Kmax < Kmin
        c.kmin = std::max(a, b);
        c.kmax = std::min(a, b);
        break;
      case 3:  // Kmin == Kmax
        c.kmin = c.kmax = a;
        break;
      case 4:  // a gap of one
        c.kmin = std::min(a, kQMax - 1);
        c.kmax = c.kmin + 1;
        break;
      case 5:  // the full range
        c.kmin = 0;
        c.kmax = kQMax;
        break;
      default:  // Kmin at 0 or Kmax at the top
        c.kmin = chance(2) ? 0 : std::min(a, b);
        c.kmax = chance(2) ? kQMax : std::max(a, b);
        break;
    }
    switch (pick(4)) {
      case 0:
        c.pmax = 0;
        break;
      case 1:
        c.pmax = kPMax;
        break;
      default:
        c.pmax = std::uniform_int_distribution<std::uint32_t>(0, kPMax)(rng_);
        break;
    }
    return c;
  }

  // A queue length near the interesting points of this config.
  std::uint32_t qlen(const WredConfig& c) {
    auto near = [&](std::uint32_t k) {
      const std::int64_t v = static_cast<std::int64_t>(k) + pick(3) - 1;
      return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, kQMax));
    };
    switch (pick(10)) {
      case 0:
      case 1:
        return near(c.kmin);
      case 2:
      case 3:
        return near(c.kmax);
      case 4:
        return 0;
      case 5:
        return kQMax;
      case 6:
      case 7:
        if (c.kmax > c.kmin) {
          return std::uniform_int_distribution<std::uint32_t>(c.kmin, c.kmax - 1)(rng_);
        }
        return any_q();
      default:
        return any_q();
    }
  }

  bool chance(unsigned one_in) { return pick(one_in) == 0; }
  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
  std::uint32_t any_q() { return std::uniform_int_distribution<std::uint32_t>(0, kQMax)(rng_); }

 private:
  std::mt19937_64& rng_;
};

}  // namespace

SYNCFAB_TEST(wred_ecn, random) {
  auto& dut = ctx.make_dut<Vwred_ecn>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 500'000);
  WredEcn model(kParams);
  ConfigGen gen(rng);

  Corners cov("wred_ecn.random (QLenW " + std::to_string(kQLenW) + ", ProbW " +
              std::to_string(kProbW) + ")");
  const auto c_idle = cov.require("no request (outputs idle, ecn passes)");
  const auto c_disabled = cov.require("disabled, qlen >= kmax (no hit)");
  const auto c_below = cov.require("qlen < kmin");
  const auto c_kmin_m1 = cov.require("qlen == kmin - 1");
  const auto c_at_kmin = cov.require("qlen == kmin < kmax");
  const auto c_kmax_m1 = cov.require("qlen == kmax - 1 >= kmin");
  const auto c_at_kmax = cov.require("qlen == kmax > kmin");
  const auto c_above = cov.require("qlen > kmax >= kmin");
  const auto c_between_hit = cov.require("kmin <= qlen < kmax, hit");
  const auto c_between_miss = cov.require("kmin <= qlen < kmax, no hit");
  const auto c_inv_below = cov.require("kmax < kmin, kmax <= qlen < kmin (below kmin wins)");
  const auto c_inv_above = cov.require("kmax < kmin, qlen >= kmin (hit)");
  const auto c_equal = cov.require("kmin == kmax, qlen == kmin (hit)");
  const auto c_q0 = cov.require("qlen 0");
  const auto c_qmax = cov.require("qlen max");
  const auto c_pmax0 = cov.require("pmax 0 between (no hit)");
  const auto c_pmax_full = cov.require("pmax max between, hit");
  const Corners::Id c_mark[3] = {cov.require("ECT(1) marked"), cov.require("ECT(0) marked"),
                                 cov.require("CE selected (stays CE)")};
  const auto c_ect_pass = cov.require("ECT not selected (unchanged)");
  const auto c_drop = cov.require("Not-ECT dropped");
  const auto c_lossless = cov.require("Not-ECT lossless selected (kept)");
  const auto c_reset = cov.require("reset mid-run");

  std::uniform_int_distribution<std::int64_t> cfg_gap(1, 400);
  std::int64_t next_cfg = 0;
  RandomResets resets(cycles, rng);
  Stim s;

  co_await reset(dut, clk);
  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    const bool in_reset = resets.step(cycle);
    if (resets.started()) {
      cov.hit(c_reset);
    }
    if (in_reset) {
      model.reset();
    }
    dut.rst_ni = in_reset ? 0 : 1;
    if (cycle == next_cfg) {
      s.cfg = gen.next();
      next_cfg += cfg_gap(rng);
    }
    s.req = !in_reset && !gen.chance(5);
    s.pkt.qlen = gen.qlen(s.cfg);
    s.pkt.ecn = static_cast<Ecn>(gen.pick(4));
    s.pkt.lossless = gen.chance(3);
    drive(dut, s);

    co_await ReadOnly();
    const WredDecision want = expected(model, s);
    compare(dut, model, s, want, cycle);
    // Independent of the model: marks (and drops) only at or above Kmin.
    if (dut.mark_o != 0 || dut.drop_o != 0) {
      TB_CHECK(s.req && s.cfg.enable && s.pkt.qlen >= s.cfg.kmin)
          << "cycle " << cycle << ": RTL marked/dropped below Kmin or disabled: " << show(s);
    }

    const auto& c = s.cfg;
    const auto q = s.pkt.qlen;
    const auto e = static_cast<unsigned>(s.pkt.ecn);
    const bool on = s.req && c.enable;
    const bool between = on && c.kmin <= q && q < c.kmax;
    const auto when = [&](bool cond, Corners::Id id) {
      if (cond) {
        cov.hit(id);
      }
    };
    when(!s.req, c_idle);
    when(s.req && !c.enable && q >= c.kmax, c_disabled);
    when(on && q < c.kmin, c_below);
    when(on && q + 1 == c.kmin, c_kmin_m1);
    when(on && q == c.kmin && c.kmin < c.kmax, c_at_kmin);
    when(on && q + 1 == c.kmax && q >= c.kmin, c_kmax_m1);
    when(on && q == c.kmax && c.kmax > c.kmin, c_at_kmax);
    when(on && q > c.kmax && c.kmax >= c.kmin, c_above);
    when(between && want.hit, c_between_hit);
    when(between && !want.hit, c_between_miss);
    when(between && c.pmax == 0, c_pmax0);
    when(between && c.pmax == kPMax && want.hit, c_pmax_full);
    when(on && c.kmax < c.kmin && q >= c.kmax && q < c.kmin, c_inv_below);
    when(on && c.kmax < c.kmin && q >= c.kmin, c_inv_above);
    when(on && c.kmin == c.kmax && q == c.kmin, c_equal);
    when(on && q == 0, c_q0);
    when(on && q == kQMax, c_qmax);
    when(on && e != 0 && want.hit, c_mark[e == 0 ? 0 : e - 1]);
    when(on && e != 0 && !want.hit, c_ect_pass);
    when(on && e == 0 && want.hit && !s.pkt.lossless, c_drop);
    when(on && e == 0 && want.hit && s.pkt.lossless, c_lossless);

    co_await RisingEdge(clk);
    if (!in_reset) {
      model.clock(s.req);
    }
  }
  std::cout << cov.report();
  cov.check();
}

// The WRED line on the RTL. Any 65535 consecutive enqueues see every LFSR
// state once, so the selected count at a held qlen is exactly ceil(T/D) - 1
// with T/D = 65536 * P: within 2 of 65535 * P. Selected = marked (ECN-capable,
// CE included) or dropped (Not-ECT, lossy); the outputs are compared with
// the model every cycle as well.
SYNCFAB_TEST(wred_ecn, held_qlen) {
  auto& dut = ctx.make_dut<Vwred_ecn>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto points = ctx.param("points", 6);
  WredEcn model(kParams);
  ConfigGen gen(rng);
  co_await reset(dut, clk);

  std::int64_t cycle = 0;
  for (std::int64_t point = 0; point < points; ++point) {
    // Kmin < Kmax with room for a queue length strictly between them.
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    while (b < a + 2) {
      a = gen.any_q();
      b = gen.any_q();
      if (a > b) {
        std::swap(a, b);
      }
    }
    Stim s;
    s.req = true;
    s.cfg = WredConfig{true, a, b, std::uniform_int_distribution<std::uint32_t>(1, kPMax)(rng)};
    s.pkt.qlen = std::uniform_int_distribution<std::uint32_t>(a + 1, b - 1)(rng);
    s.pkt.lossless = false;
    const double p = static_cast<double>(s.cfg.pmax) / std::ldexp(1.0, kProbW) *
                     (s.pkt.qlen - s.cfg.kmin) / (s.cfg.kmax - s.cfg.kmin);
    std::uint32_t selected = 0;
    for (std::uint32_t i = 0; i < kLfsrPeriod; ++i, ++cycle) {
      s.pkt.ecn = static_cast<Ecn>(gen.pick(4));
      drive(dut, s);
      co_await ReadOnly();
      compare(dut, model, s, expected(model, s), cycle);
      selected += (dut.mark_o != 0 || dut.drop_o != 0) ? 1 : 0;
      co_await RisingEdge(clk);
      model.clock(true);
    }
    const double line = p * kLfsrPeriod;
    std::cout << "  held qlen " << s.pkt.qlen << " (kmin " << s.cfg.kmin << ", kmax " << s.cfg.kmax
              << ", pmax " << s.cfg.pmax << "/2^" << kProbW << "): RTL selected " << selected
              << " of " << kLfsrPeriod << ", line " << line << "\n";
    TB_CHECK(std::abs(selected - line) <= 2.0)
        << "marked fraction off the WRED line at held qlen " << s.pkt.qlen << ": " << selected
        << " selected, line " << line << " (" << show(s) << ")";
  }
}
