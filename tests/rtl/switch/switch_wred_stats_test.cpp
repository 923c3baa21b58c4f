// WRED/ECN on the whole verilated switch, statistically (the requirement:
// "the marked fraction at a held queue length within a stated statistical
// bound of the WRED line"; docs/switch-datapath.md, "WRED line on the whole
// switch").
//
// Programmed through driver::Switch on RtlDevice: WRED on queue 1 (lossy) and
// queue 3 (lossless: PFC_EN on the output) of output 2, Kmin 16, Kmax 48,
// Pmax 200/256. Output 2's tx_ready is held low, so one copy sits in its
// stream and every other copy of the queue waits; one-flit packets from
// input 0 then hold the queue length at a level L: after each test packet
// that is kept, one tx_ready pulse lets the held copy out and the next one
// starts (one cell less waiting). The length every decision used is read
// from the engine (probe_enqueue) and must equal the level held, so the
// table is about exactly that length. Between test packets 0..3 spacer
// packets from input 1 to output 3 step the switch's one LFSR a seeded
// random number of times, so the LFSR states the test packets see are a
// seeded sample, not one fixed run of the sequence.
//
// Per level: n test packets, the count of marks (ECT/CE) or drops (Not-ECT,
// lossy), against p(L) computed with the RTL's integer compare
// (docs/switch-egress.md: #{r in 1..65535 : r*(Kmax-Kmin) < (Pmax<<8)*(L-Kmin)}
// / 65535): below Kmin and at Kmin exactly 0, from Kmax on exactly n, else
// within 3 binomial sigmas. Every copy that leaves is checked against its
// decision (CE iff marked, else the ECN sent), the decisions against the
// ECN_MARK / DROP_WRED counters, and the lossless queue never drops.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "switch_cosim_bench.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/host_memory.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_cosim;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace fmt = syncfab::fmt;

namespace {

using K = fmt::SwCounter;

constexpr unsigned kIn = 0;         // test packets and fillers
constexpr unsigned kSpacerIn = 1;   // LFSR spacers
constexpr unsigned kOut = 2;        // the held output
constexpr unsigned kSpacerOut = 3;  // free-running
constexpr std::uint16_t kLid = 0x10;
constexpr std::uint16_t kSpacerLid = 0x11;
constexpr unsigned kLossyQ = 1;
constexpr unsigned kLosslessQ = 3;
constexpr drv::WredQueue kWred{true, 16, 48, 200};

// p(L) with the RTL's integer compare (16-bit LFSR, r in 1..65535, ProbW 8).
double p_line(const drv::WredQueue& w, std::uint32_t len) {
  if (len < w.kmin) {
    return 0.0;
  }
  if (len >= w.kmax) {
    return 1.0;
  }
  const std::uint64_t span = w.kmax - w.kmin;
  const std::uint64_t t = (std::uint64_t{w.pmax} << 8) * (len - w.kmin);
  const std::uint64_t hits = t == 0 ? 0 : std::min<std::uint64_t>((t + span - 1) / span - 1, 65535);
  return static_cast<double>(hits) / 65535.0;
}

Flit packet(std::uint16_t dst, unsigned prio, fmt::Ecn ecn, std::uint32_t flow) {
  fmt::PktHdr h;
  h.set_pkt_type(fmt::PktType::kData)
      .set_len_flits(1)
      .set_dst_lid(dst)
      .set_src_lid(0x100)
      .set_prio(static_cast<std::uint8_t>(prio))
      .set_ecn(ecn)
      .set_flow_label(flow);
  return h.bytes();
}

struct Sent {
  fmt::Ecn ecn = fmt::Ecn::kNotEct;
  bool mark = false;
  bool decided = false;
  bool dropped = false;
};

// The switch, its pins driven one cycle at a time, and what left output 2.
class Rig {
 public:
  explicit Rig(TestContext& c)
      : ctx(c),
        dut(c.make_dut<Vswitch_top>()),
        clk(c.sim().add_clock("clk", dut.clk_i, kPeriod)),
        apb(clk, apb_pins_of(dut, kCsrWindow)),
        memory(0x8000'0000, 4096),
        dev(
            c.sim(), clk, apb, [this] { return dut.intr_o != 0; }, memory, kCsrWindow) {}

  Task<> reset() { co_await reset_switch(dut, apb, clk); }

  // One cycle: the flits on inputs kIn / kSpacerIn (one-flit packets), a
  // tx_ready pulse on kOut or not. The engine's decision, if any, goes to `decided`.
  Task<> cycle(std::optional<Flit> test, std::optional<Flit> spacer, bool pulse) {
    auto* rx = reinterpret_cast<std::uint32_t*>(&dut.rx_data_i);
    std::uint32_t valid = 0;
    if (test) {
      valid |= 1U << kIn;
      words_of_flit(*test, rx + std::size_t{4} * kIn);
    }
    if (spacer) {
      valid |= 1U << kSpacerIn;
      words_of_flit(*spacer, rx + std::size_t{4} * kSpacerIn);
    }
    const std::uint32_t ready = ((1U << kPorts) - 1) & ~((hold && !pulse) ? 1U << kOut : 0U);
    dut.rx_valid_i = valid;
    dut.rx_last_i = valid;
    dut.tx_ready_i = ready;
    co_await ReadOnly();
    TB_CHECK((dut.rx_ready_o & valid) == valid)
        << "cycle " << now << ": the switch refused a flit (rx_ready low)";
    probe_enqueue(dut, now, decided);
    const auto* tx = reinterpret_cast<const std::uint32_t*>(&dut.tx_data_o);
    if (((dut.tx_valid_o >> kOut) & 1U) != 0 && ((ready >> kOut) & 1U) != 0) {
      TB_CHECK(((dut.tx_last_o >> kOut) & 1U) != 0) << "one-flit packets only";
      out.push_back(flit_of_words(tx + std::size_t{4} * kOut));
    }
    co_await RisingEdge(clk);
    dut.rx_valid_i = 0;
    dut.rx_last_i = 0;
    ++now;
  }

  TestContext& ctx;
  Vswitch_top& dut;
  Clock& clk;
  ApbMaster apb;
  hw::HostMemory memory;
  drv::RtlDevice dev;
  bool hold = true;               // tx_ready of kOut low
  std::uint64_t now = 0;          // cycles since traffic started
  std::vector<EnqEvent> decided;  // engine decisions not yet consumed
  std::vector<Flit> out;          // copies that left kOut, in order
};

// One row of the table.
struct Level {
  unsigned q = 0;
  bool ect = true;
  std::uint32_t len = 0;
};

struct Row {
  Level lv;
  double p = 0.0;
  unsigned n = 0;
  unsigned hits = 0;
  bool ok = false;
};

// The held queue and its bookkeeping: what waits, what streams, every test
// packet's decision, every filler's.
class Held {
 public:
  Held(Rig& r, std::mt19937_64& g) : rig(r), rng(g) {}

  // Sends `pkt` on kIn (plus `spacers` on kSpacerIn, one per cycle from the
  // same cycle on) and runs until the engine decided it. Returns the decision.
  Task<EnqEvent> send(unsigned q, fmt::Ecn ecn, unsigned spacers) {
    const std::uint32_t flow = next_flow++;
    sent[flow] = Sent{ecn};
    std::optional<Flit> t = packet(kLid, q, ecn, flow);
    for (unsigned k = 0;; ++k) {
      std::optional<Flit> s;
      if (k < spacers) {
        s = packet(kSpacerLid, 0, fmt::Ecn::kEct0, 0xFFFFF);
      }
      co_await rig.cycle(t, s, false);
      t.reset();
      for (const EnqEvent& e : rig.decided) {
        if (e.in == kIn) {
          TB_CHECK(e.out == kOut && e.q == q)
              << "engine decision for (" << e.out << ", " << e.q << ")";
          rig.decided.clear();
          Sent& x = sent[flow];
          x.decided = true;
          x.mark = e.mark;
          x.dropped = e.drop;
          if (!e.drop) {
            if (streaming) {
              ++waiting;
            } else {
              streaming = true;
            }
            ++kept;
          }
          co_return e;
        }
      }
      rig.decided.clear();
      TB_CHECK(k < 16) << "flow " << flow << " not enqueued after 16 cycles";
    }
  }

  // One tx_ready pulse: the held copy leaves, the next one (if any) starts.
  Task<> release() {
    TB_CHECK(streaming) << "release with nothing held";
    co_await rig.cycle(std::nullopt, std::nullopt, true);
    if (waiting > 0) {
      --waiting;
    } else {
      streaming = false;
    }
    // The output is idle after the pulse, matches the next copy the cycle
    // after: that copy has left the waiting count before the next decision.
    for (unsigned k = 0; k < kSettle; ++k) {
      co_await rig.cycle(std::nullopt, std::nullopt, false);
    }
  }

  // Fills (ECT fillers, always kept) or releases until `len` cells wait.
  Task<> level(unsigned q, std::uint32_t len) {
    while (waiting < len || !streaming) {
      co_await send(q, fmt::Ecn::kEct0, 0);
      for (unsigned k = 0; k < kSettle; ++k) {
        co_await rig.cycle(std::nullopt, std::nullopt, false);
      }
    }
    while (waiting > len) {
      co_await release();
    }
  }

  // Lets everything out and checks every copy against its decision.
  Task<> drain() {
    rig.hold = false;
    for (unsigned k = 0; k < 40 || rig.out.size() < kept; ++k) {
      co_await rig.cycle(std::nullopt, std::nullopt, false);
      TB_CHECK(k < 100'000) << "output " << kOut << " did not drain";
    }
    rig.hold = true;
    TB_CHECK_EQ(rig.out.size(), kept) << "copies out vs copies kept";
    for (const Flit& f : rig.out) {
      const fmt::PktHdr h(f);
      const auto it = sent.find(h.flow_label());
      TB_CHECK(it != sent.end() && it->second.decided && !it->second.dropped)
          << "copy of flow " << h.flow_label() << " left but was not kept";
      const fmt::Ecn want = it->second.mark ? fmt::Ecn::kCe : it->second.ecn;
      TB_CHECK(h.ecn() == want) << "flow " << h.flow_label() << ": ECN " << int(h.ecn())
                                << ", decision says " << int(want);
      sent.erase(it);
    }
    for (const auto& [flow, x] : sent) {
      TB_CHECK(x.dropped) << "flow " << flow << " kept but never left";
    }
    rig.out.clear();
    sent.clear();
    kept = 0;
    waiting = 0;
    streaming = false;
  }

  static constexpr unsigned kSettle = 1;
  Rig& rig;
  std::mt19937_64& rng;
  std::uint32_t waiting = 0;  // cells waiting for (kOut, q): the WRED queue length
  bool streaming = false;     // a copy sits in kOut's stream
  std::size_t kept = 0;
  std::uint32_t next_flow = 1;
  std::map<std::uint32_t, Sent> sent;
};

// One level: n test packets at a held length. Marks for ECT (random ECT(0),
// ECT(1), CE), drops for Not-ECT.
// On the lossless queue a Not-ECT packet is never dropped: its expected
// drop probability is 0 whatever the line says.
Task<Row> measure(Held& h, const Level& lv, unsigned n) {
  co_await h.level(lv.q, lv.len);
  Row row;
  row.lv = lv;
  row.n = n;
  row.p = lv.q == kLosslessQ && !lv.ect ? 0.0 : p_line(kWred, lv.len);
  static constexpr std::array<fmt::Ecn, 3> kEct{fmt::Ecn::kEct0, fmt::Ecn::kEct1, fmt::Ecn::kCe};
  std::uniform_int_distribution<unsigned> pick(0, 2);
  std::uniform_int_distribution<unsigned> sp(0, 3);
  for (unsigned k = 0; k < n; ++k) {
    const fmt::Ecn ecn = lv.ect ? kEct[pick(h.rng)] : fmt::Ecn::kNotEct;
    const EnqEvent e = co_await h.send(lv.q, ecn, sp(h.rng));
    TB_CHECK_EQ(e.qlen, lv.len) << "queue length the decision used vs the level held (packet " << k
                                << " of level " << lv.len << ")";
    TB_CHECK(!(e.mark && !lv.ect)) << "Not-ECT marked";
    TB_CHECK(!(e.drop && lv.ect)) << "ECT dropped";
    row.hits += (e.mark || e.drop) ? 1U : 0U;
    if (!e.drop) {
      co_await h.release();
    } else {
      for (unsigned s = 0; s < Held::kSettle; ++s) {
        co_await h.rig.cycle(std::nullopt, std::nullopt, false);
      }
    }
  }
  if (row.p == 0.0) {
    row.ok = row.hits == 0;
  } else if (row.p == 1.0) {
    row.ok = row.hits == n;
  } else {
    const double sigma = std::sqrt(row.p * (1.0 - row.p) / n);
    row.ok = std::abs(static_cast<double>(row.hits) / n - row.p) <= 3.0 * sigma;
  }
  co_return row;
}

std::string fmt_row(const Row& r, bool lossless) {
  std::ostringstream os;
  const double sigma = std::sqrt(r.p * (1.0 - r.p) / r.n);
  os << std::fixed << std::setprecision(4) << "  q" << r.lv.q
     << (lossless ? " lossless" : " lossy   ") << (r.lv.ect ? " ECT    " : " Not-ECT") << "  L "
     << std::setw(3) << r.lv.len << "  p(L) " << r.p << "  n " << r.n << "  "
     << (r.lv.ect ? "marks " : "drops ") << std::setw(5) << r.hits << "  fraction "
     << static_cast<double>(r.hits) / r.n << "  3-sigma band [" << std::max(0.0, r.p - 3 * sigma)
     << ", " << std::min(1.0, r.p + 3 * sigma) << "]  " << (r.ok ? "ok" : "OUT");
  return os.str();
}

}  // namespace

// The table: lossy queue, ECT at every level and Not-ECT at some; lossless
// queue: Not-ECT never dropped (not even from Kmax on), ECT marked on the
// line. --param n=<packets per level> (default 2000).
SYNCFAB_TEST(switch_wred_stats, held_queue_line) {
  Rig rig(ctx);
  co_await rig.reset();
  drv::Switch sw(rig.dev);
  const std::vector<drv::LftEntry> lft{drv::LftEntry{kLid, kOut},
                                       drv::LftEntry{kSpacerLid, kSpacerOut}};
  sw.program_lft(lft);
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  drv::PfcPortConfig pfc{};
  pfc[kLosslessQ] = drv::PfcPriority{true, 16, 8, 20};
  sw.configure_pfc(kOut, pfc, drv::LinkParams{4, 8});
  sw.configure_wred(kOut, kLossyQ, kWred);
  sw.configure_wred(kOut, kLosslessQ, kWred);
  drv::SchedConfig sc;
  sc.weight = {8, 8, 8, 8, 8, 8, 8, 8};
  for (unsigned p = 0; p < kPorts; ++p) {
    sw.configure_scheduler(p, sc);
  }
  sw.enable(true);

  const auto n = static_cast<unsigned>(ctx.param("n", 2000));
  Held h(rig, ctx.rng());
  std::vector<std::pair<Row, bool>> rows;
  const auto groups = std::vector<std::pair<unsigned, std::vector<Level>>>{
      {kLossyQ,
       {{kLossyQ, true, 8},
        {kLossyQ, true, 16},
        {kLossyQ, true, 24},
        {kLossyQ, true, 32},
        {kLossyQ, true, 40},
        {kLossyQ, true, 47},
        {kLossyQ, true, 48},
        {kLossyQ, true, 56}}},
      {kLossyQ,
       {{kLossyQ, false, 8},
        {kLossyQ, false, 16},
        {kLossyQ, false, 32},
        {kLossyQ, false, 47},
        {kLossyQ, false, 48},
        {kLossyQ, false, 56}}},
      {kLosslessQ,
       {{kLosslessQ, false, 32},
        {kLosslessQ, false, 56},
        {kLosslessQ, true, 32},
        {kLosslessQ, true, 48}}},
  };
  std::array<std::uint32_t, 2> c0{sw.counter(kOut, kLossyQ, K::kEcnMark),
                                  sw.counter(kOut, kLosslessQ, K::kEcnMark)};
  std::uint64_t marks_logged = 0;
  std::uint64_t drops_logged = 0;
  for (const auto& [q, levels] : groups) {
    for (const Level& lv : levels) {
      rows.emplace_back(co_await measure(h, lv, n), q == kLosslessQ);
      std::cout << fmt_row(rows.back().first, rows.back().second) << std::endl;
    }
    for (const auto& [flow, x] : h.sent) {
      marks_logged += x.mark ? 1U : 0U;
      drops_logged += x.dropped ? 1U : 0U;
    }
    co_await h.drain();
  }
  const std::uint32_t marks_ctr = sw.counter(kOut, kLossyQ, K::kEcnMark) - c0[0] +
                                  sw.counter(kOut, kLosslessQ, K::kEcnMark) - c0[1];
  const std::uint32_t drops_ctr = sw.counter(kOut, kLossyQ, K::kDropWred);
  TB_CHECK_EQ(sw.counter(kOut, kLosslessQ, K::kDropWred), 0U) << "DROP_WRED on the lossless queue";
  TB_CHECK_EQ(marks_ctr, marks_logged) << "ECN_MARK counter vs decisions";
  TB_CHECK_EQ(drops_ctr, drops_logged) << "DROP_WRED counter vs decisions";
  unsigned out_of_band = 0;
  for (const auto& [r, lossless] : rows) {
    out_of_band += r.ok ? 0U : 1U;
    if (lossless && !r.lv.ect) {
      TB_CHECK_EQ(r.hits, 0U) << "lossless Not-ECT dropped at L " << r.lv.len;
    }
  }
  std::cout << "switch_wred_stats.held_queue_line seed " << ctx.seed() << ": " << rows.size()
            << " levels x " << n << " packets, " << rig.now << " cycles, " << marks_ctr
            << " ECN_MARK, " << drops_ctr << " DROP_WRED (= the decisions logged), " << out_of_band
            << " levels outside the 3-sigma band\n";
  for (const auto& [r, lossless] : rows) {
    TB_CHECK(r.ok) << "level outside its bound: " << fmt_row(r, lossless);
  }
}
