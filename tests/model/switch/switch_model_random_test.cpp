// Conservation under a seeded random load: every packet received is either
// dropped once at ingress for a reason its header and the rules allow, or
// each copy the rules give it (LFT port, or MFT mask minus the input) leaves
// exactly once or is dropped once (DROP_WRED, DROP_WD); nothing else leaves.
// Copies keep their order per (input, output, queue), carry the exact
// payload, prio = q, DSCP as remapped, ECN unchanged or CE where WRED is on;
// lossless priorities are never DROP_WRED / DROP_BUF; counters match.
// The expectations come from the test's own reading of the rules, not from
// the model's internals.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "switch_model_fixture.hpp"
#include "syncfab/test/seeds.hpp"

namespace syncfab::model::test {
namespace {

using syncfab::test::replay_command;
using syncfab::test::seeds;

constexpr unsigned kPorts = 4;
constexpr unsigned kLossless = 3;  // lossless priority on every port
constexpr std::uint8_t kUplinks = 0b1100;

struct Sent {
  unsigned port = 0;
  PktSpec spec;
  std::vector<Flit> flits;
  bool pfc = false;
};

unsigned remap_prio(unsigned p) { return (p + 1) % fmt::kNumPrio; }
unsigned remap_dscp(unsigned p) { return 40 + p; }

void run_seed(std::uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + "; replay: " + replay_command(seed));
  std::mt19937_64 rng(seed);
  const auto uni = [&](unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
  };
  const auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };

  // Even seeds run the latencies and matching the RTL documents
  // (switch_top RTL section), odd seeds the model's defaults.
  SwitchModelParams params = small_switch(256);
  if (seed % 2 == 0) {
    params.fwd_latency = 2;
    params.starts_per_cycle = 1;
    params.shared_wred = true;
    params.egress_gap = 1;
    params.pfc_rx_latency = 3;
  }
  if (seed % 3 == 0) {
    // A limited engine, by packet with shared reads (the RTL's) on odd
    // seeds, by copy on even.
    params.enqueue_per_cycle = 1;
    params.enqueue_by_packet = seed % 2 == 1;
    params.shared_read = seed % 2 == 1;
  }
  SwitchModel m(params);
  driver::Switch sw(m.csr());
  sw.enable(true);
  // Tables: LIDs 1..20 routed (half to output 0), 21..24 not; MLIDs 0xC000..0xC003 random
  // masks, 0xC004 not programmed.
  std::map<unsigned, unsigned> lft;
  for (std::uint16_t lid = 1; lid <= 20; ++lid) {
    lft[lid] = chance(0.5) ? 0 : uni(0, kPorts - 1);  // a hot output
    sw.set_lft(lid, lft[lid]);
  }
  std::map<unsigned, unsigned> mft;
  for (unsigned g = 0; g < 4; ++g) {
    mft[0xC000 + g] = uni(1, (1U << kPorts) - 1);
    sw.set_mft(static_cast<std::uint16_t>(0xC000 + g), mft[0xC000 + g]);
  }
  sw.set_pfc_timing({8, 100});
  for (unsigned p = 0; p < kPorts; ++p) {
    driver::PfcPortConfig c{};
    c[kLossless] = {true, 24, 12, 50};
    sw.configure_pfc(p, c, driver::LinkParams{2, 16});
    for (unsigned q : {0U, 1U, kLossless}) {
      sw.configure_wred(p, q, {true, 4, 40, 128});
    }
    driver::SchedConfig sc;
    sc.sp_mask = 0x80;
    for (auto& w : sc.weight) {
      w = static_cast<std::uint8_t>(uni(1, 8));
    }
    sw.configure_scheduler(p, sc);
  }
  sw.configure_watchdog({150, 200, 5000, 0});
  // On the lossless queue (pfc_rx honours pauses only there): drop mode on
  // port 1, ignore on port 2.
  sw.configure_watchdog_port(1, {1U << kLossless, true});
  sw.configure_watchdog_port(2, {1U << kLossless, false});
  driver::RemapConfig rc;
  rc.enable = true;
  rc.uplink_mask = kUplinks;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    rc.map[p] = {static_cast<std::uint8_t>(remap_prio(p)),
                 static_cast<std::uint8_t>(remap_dscp(p))};
  }
  sw.configure_remap(rc);

  std::mt19937_64 stall_rng(seed ^ 0x5757U);
  bool stalls_on = true;
  m.set_tx_ready([&](unsigned, std::uint64_t) {
    return !stalls_on || std::bernoulli_distribution(0.8)(stall_rng);
  });

  std::map<std::uint64_t, Sent> sent;
  std::vector<std::uint64_t> free_at(kPorts, 0);
  const std::uint64_t traffic_cycles = 6000;
  for (std::uint64_t c = 0; c < traffic_cycles; ++c) {
    for (unsigned i = 0; i < kPorts; ++i) {
      if (free_at[i] > c || !chance(0.35)) {
        continue;
      }
      Sent s;
      s.port = i;
      if (chance(0.02)) {
        // A peer's PFC frame (sometimes malformed), short pauses.
        s.pfc = true;
        s.flits = make_pfc(static_cast<std::uint8_t>(uni(1, 255)),
                           static_cast<std::uint16_t>(uni(0, 60)));
        if (chance(0.2)) {
          s.flits.push_back(s.flits.back());
        }
      } else {
        PktSpec& p = s.spec;
        const unsigned kind = uni(0, 99);
        // Unknown types: above COMB_SHARE (0x0C), the last the switch knows.
        p.type = kind < 3 ? static_cast<fmt::PktType>(uni(0x0D, 255))
                          : static_cast<fmt::PktType>(uni(1, 5));
        p.len = uni(1, 16);
        p.flits = kind >= 3 && kind < 8 ? static_cast<int>(uni(1, 17)) : -1;
        const unsigned d = uni(0, 29);
        p.dst = d < 24 ? static_cast<std::uint16_t>(d + 1)
                       : static_cast<std::uint16_t>(0xC000 + (d - 24) % 5);
        p.prio = uni(0, 7);
        // The upstream peer honours our pause: no new lossless packet
        // while pfc_tx holds it paused.
        if (p.prio == kLossless && (m.pfc_tx(i).xoff() >> kLossless & 1U) != 0) {
          p.prio = 0;
        }
        p.ecn = static_cast<fmt::Ecn>(uni(0, 3));
        p.dscp = uni(0, 63);
        p.flow = static_cast<std::uint32_t>(sent.size());
        s.flits = make_packet(p);
      }
      const std::uint64_t id = m.receive(i, s.flits, c);
      free_at[i] = c + s.flits.size() + uni(0, 3);
      sent.emplace(id, std::move(s));
    }
    m.tick();
  }
  stalls_on = false;
  ASSERT_TRUE(m.run_until_idle(200000)) << "the switch did not drain";
  ASSERT_TRUE(m.violations().empty()) << m.violations().front();

  // Index what happened by packet id.
  std::map<std::uint64_t, std::vector<DropRecord>> drops;
  for (const DropRecord& d : m.drops()) {
    drops[d.pkt_id].push_back(d);
  }
  std::map<std::uint64_t, std::vector<std::pair<unsigned, const TxPacket*>>> txs;
  for (unsigned o = 0; o < kPorts; ++o) {
    // Order per (input, output, queue): ids were given in arrival order
    // per input, and a packet is admitted when its header arrives.
    std::map<std::pair<unsigned, unsigned>, std::uint64_t> last;
    for (const TxPacket& t : m.transmitted(o)) {
      txs[t.pkt_id].emplace_back(o, &t);
      const auto key = std::make_pair(t.in_port, t.queue);
      if (last.contains(key)) {
        EXPECT_LT(last[key], t.pkt_id)
            << "order broken at output " << o << " input " << t.in_port << " queue " << t.queue;
      }
      last[key] = t.pkt_id;
    }
  }

  std::array<std::array<std::array<std::uint64_t, fmt::kSwCounterCount>, fmt::kNumPrio>, kPorts>
      expect_cnt{};
  std::size_t copies = 0;
  std::array<std::array<std::uint64_t, fmt::kNumPrio>, kPorts> ce_on_wred{};
  for (const auto& [id, s] : sent) {
    const auto& dr = drops[id];
    const auto& tx = txs[id];
    const std::string what = "packet " + std::to_string(id) + " in port " + std::to_string(s.port);
    if (s.pfc) {
      EXPECT_TRUE(tx.empty()) << what << ": a PFC frame was forwarded";
      if (s.flits.size() == 2) {
        EXPECT_TRUE(dr.empty()) << what;
      } else {
        ASSERT_EQ(dr.size(), 1U) << what;
        EXPECT_EQ(dr[0].reason, fmt::SwCounter::kDropBadPkt) << what;
        expect_cnt[s.port][dr[0].prio][static_cast<unsigned>(fmt::SwCounter::kDropBadPkt)]++;
      }
      continue;
    }
    const PktSpec& p = s.spec;
    expect_cnt[s.port][p.prio][static_cast<unsigned>(fmt::SwCounter::kRx)]++;
    const bool bad_type = static_cast<unsigned>(p.type) < 1 || static_cast<unsigned>(p.type) > 5;
    std::uint32_t outs = 0;
    if (p.dst >= 0xC000) {
      outs = mft.contains(p.dst) ? mft[p.dst] & ~(1U << s.port) : 0;
    } else if (lft.contains(p.dst)) {
      outs = 1U << lft[p.dst];
    }
    const bool bad_len = p.flits >= 0 && static_cast<unsigned>(p.flits) != p.len;
    // Ingress outcome.
    std::vector<DropRecord> ingress;
    for (const DropRecord& d : dr) {
      if (d.reason != fmt::SwCounter::kDropWred && d.reason != fmt::SwCounter::kDropWd) {
        ingress.push_back(d);
      }
    }
    if (bad_type || outs == 0) {
      ASSERT_EQ(ingress.size(), 1U) << what;
      EXPECT_EQ(ingress[0].reason,
                bad_type ? fmt::SwCounter::kDropBadPkt : fmt::SwCounter::kDropNoRoute)
          << what;
    } else if (!ingress.empty()) {
      ASSERT_EQ(ingress.size(), 1U) << what;
      const fmt::SwCounter why = ingress[0].reason;
      EXPECT_TRUE(why == fmt::SwCounter::kDropBadPkt
                      ? bad_len
                      : why == fmt::SwCounter::kDropBuf && p.prio != kLossless)
          << what << " dropped " << to_string(why);
    } else {
      EXPECT_FALSE(bad_len) << what << ": a packet of the wrong length was forwarded";
    }
    if (!ingress.empty()) {
      EXPECT_EQ(ingress[0].port, s.port);
      EXPECT_EQ(ingress[0].prio, p.prio);
      expect_cnt[s.port][p.prio][static_cast<unsigned>(ingress[0].reason)]++;
      EXPECT_TRUE(tx.empty() && dr.size() == 1) << what << ": dropped at ingress and forwarded";
      continue;
    }
    // Copies: exactly one fate per output of the set.
    std::set<unsigned> seen;
    for (unsigned o = 0; o < kPorts; ++o) {
      if ((outs >> o & 1U) == 0) {
        continue;
      }
      ++copies;
      const bool hook = (kUplinks >> s.port & 1U) != 0 && (kUplinks >> o & 1U) != 0;
      const unsigned q = hook ? remap_prio(p.prio) : p.prio;
      int fates = 0;
      for (const auto& [port, t] : tx) {
        if (port != o) {
          continue;
        }
        ++fates;
        EXPECT_EQ(t->queue, q) << what;
        PktSpec want = p;
        want.prio = q;
        want.dscp = hook ? remap_dscp(p.prio) : p.dscp;
        const fmt::Ecn got = t->header().ecn();
        const bool wred_q = q == 0 || q == 1 || q == kLossless;
        if (wred_q && p.ecn == fmt::Ecn::kCe) {
          ce_on_wred[o][q]++;  // a mark of a CE copy changes nothing visible
        }
        if (got != p.ecn) {
          EXPECT_TRUE(got == fmt::Ecn::kCe && p.ecn != fmt::Ecn::kNotEct && wred_q)
              << what << ": ECN changed without a WRED mark";
          want.ecn = fmt::Ecn::kCe;
          expect_cnt[o][q][static_cast<unsigned>(fmt::SwCounter::kEcnMark)]++;
        }
        EXPECT_EQ(t->flits, make_packet(want)) << what << " at output " << o;
        expect_cnt[o][q][static_cast<unsigned>(fmt::SwCounter::kTx)]++;
      }
      for (const DropRecord& d : dr) {
        if (d.port != o) {
          continue;
        }
        ++fates;
        EXPECT_EQ(d.prio, q) << what;
        EXPECT_FALSE(d.reason == fmt::SwCounter::kDropWred && q == kLossless)
            << what << ": lossless copy dropped by WRED";
        if (d.reason == fmt::SwCounter::kDropWred) {
          EXPECT_EQ(p.ecn, fmt::Ecn::kNotEct) << what << ": an ECT copy dropped by WRED";
        }
        expect_cnt[o][q][static_cast<unsigned>(d.reason)]++;
      }
      EXPECT_EQ(fates, 1) << what << " output " << o;
      seen.insert(o);
    }
    for (const auto& [port, t] : tx) {
      EXPECT_TRUE(seen.contains(port)) << what << ": a copy left output " << port;
    }
  }
  // Counters in the CSR block agree with what happened (PFC and watchdog
  // kinds are not packet fates and are left out).
  for (unsigned port = 0; port < kPorts; ++port) {
    for (unsigned prio = 0; prio < fmt::kNumPrio; ++prio) {
      for (fmt::SwCounter k :
           {fmt::SwCounter::kRx, fmt::SwCounter::kTx, fmt::SwCounter::kDropWred,
            fmt::SwCounter::kDropNoRoute, fmt::SwCounter::kDropBadPkt, fmt::SwCounter::kDropWd,
            fmt::SwCounter::kDropBuf, fmt::SwCounter::kDropDisabled}) {
        EXPECT_EQ(sw.counter(port, prio, static_cast<fmt::SwCounter>(k)),
                  expect_cnt[port][prio][static_cast<unsigned>(k)])
            << to_string(k) << " port " << port << " prio " << prio;
      }
      // A marked copy the watchdog then discards, or a CE copy marked
      // again, shows its mark only in the counter: between the marks seen
      // and those plus CE copies and DROP_WD.
      const std::uint32_t marks = sw.counter(port, prio, fmt::SwCounter::kEcnMark);
      const auto seen_marks =
          expect_cnt[port][prio][static_cast<unsigned>(fmt::SwCounter::kEcnMark)];
      EXPECT_GE(marks, seen_marks) << "ECN_MARK port " << port << " prio " << prio;
      EXPECT_LE(marks, seen_marks + ce_on_wred[port][prio] +
                           expect_cnt[port][prio][static_cast<unsigned>(fmt::SwCounter::kDropWd)])
          << "ECN_MARK port " << port << " prio " << prio;
    }
    EXPECT_EQ(m.buffer_used(port), 0U);
  }
  EXPECT_EQ(m.stored_packets(), 0U);
  // The load must have exercised the rules, or the test proves nothing.
  std::map<fmt::SwCounter, unsigned> reasons;
  for (const DropRecord& d : m.drops()) {
    reasons[d.reason]++;
  }
  std::uint64_t pauses = 0;
  std::uint64_t detects = 0;
  for (unsigned port = 0; port < kPorts; ++port) {
    for (unsigned prio = 0; prio < fmt::kNumPrio; ++prio) {
      pauses += sw.counter(port, prio, fmt::SwCounter::kPauseTx);
      detects += sw.counter(port, prio, fmt::SwCounter::kWdDetect);
    }
  }
  std::printf(
      "seed %llu: %zu packets, %zu copies, drops NO_ROUTE %u BAD_PKT %u BUF %u WRED %u WD %u, "
      "PAUSE_TX %llu, WD_DETECT %llu, drained at cycle %llu\n",
      static_cast<unsigned long long>(seed), sent.size(), copies,
      reasons[fmt::SwCounter::kDropNoRoute], reasons[fmt::SwCounter::kDropBadPkt],
      reasons[fmt::SwCounter::kDropBuf], reasons[fmt::SwCounter::kDropWred],
      reasons[fmt::SwCounter::kDropWd], static_cast<unsigned long long>(pauses),
      static_cast<unsigned long long>(detects), static_cast<unsigned long long>(m.cycle()));
  EXPECT_GT(copies, 500U);
  EXPECT_GT(pauses, 0U);
  EXPECT_GT(reasons[fmt::SwCounter::kDropNoRoute], 0U);
  EXPECT_GT(reasons[fmt::SwCounter::kDropBadPkt], 0U);
  EXPECT_GT(reasons[fmt::SwCounter::kDropWred], 0U);
  ::testing::Test::RecordProperty("copies_seed" + std::to_string(seed), static_cast<int>(copies));
}

TEST(SwitchModelRandom, ConservationUnderLoad) {
  for (const auto seed : seeds({1, 2, 3})) {
    run_seed(seed);
    if (HasFatalFailure() || HasNonfatalFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace syncfab::model::test
