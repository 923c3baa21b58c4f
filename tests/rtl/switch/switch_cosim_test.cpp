// Co-simulation of the verilated switch_top against the golden model
// SwitchModel (docs/switch-datapath.md, "What the co-simulation checks"):
// one configuration through the unchanged driver::Switch on both, one seeded
// stimulus (switch_cosim_bench.hpp: the RTL run is closed loop, the model
// replays the RTL's arrivals and tx_ready).
//
// Compared, per run against the rules and then RTL against model:
//   - every copy that leaves: it belongs to a packet that passes the header
//     checks, on an output of its LFT/MFT set (multicast: the mask minus the
//     input), at most once; header = the sent one with prio = q and DSCP
//     remapped on a hook flow, ECN unchanged except on a WRED-enabled queue
//     (there: CE only for an ECT or CE packet); payload exact;
//   - order per (input, output, q): arrival order at the input;
//   - a copy that does not leave is explained by a rule: its whole packet was
//     lossy and refused at admission (DROP_BUF), or the copy was Not-ECT in a
//     WRED-enabled queue that is not lossless or that the watchdog may have
//     DISABLED (DROP_WRED), or its queue is in watchdog drop mode (DROP_WD);
//     a packet whose header arrived while CTRL.ENABLE was 0 is DROP_DISABLED;
//   - RTL vs model: the same copies leave, with the same bytes, except where
//     one of those two timing-dependent outcomes differs (counted, printed);
//   - counters per (port, prio): RX, DROP_NO_ROUTE, DROP_DISABLED, PAUSE_RX,
//     RESUME_RX, WD_DETECT, WD_RECOVER, WD_DISABLE equal between the runs
//     (RX, DROP_NO_ROUTE, DROP_DISABLED also to the stimulus); DROP_WD equal
//     where no copy of that queue differs; TX,
//     DROP_BUF, DROP_BAD_PKT, DROP_WRED, ECN_MARK equal to what each run's
//     copies show (and between the runs where no timing-dependent outcome
//     differs); PAUSE_TX / RESUME_TX equal to the frames each run sent;
//     conservation on both.
// Properties of the RTL run: a pause frame leaves port i within
// 1 + max packet + 2 cycles (not counting tx-stalled cycles) of the
// occupancy of a lossless priority crossing XOFF (occupancy counted from the
// flits at the ports); zero loss on PFC priorities.
// WRED property of both runs, on every enqueue decision (the RTL's read from
// its engine by probe_enqueue, the model's from its trace): a mark or WRED
// drop only on a WRED-enabled queue at a queue length >= Kmin, no WRED drop
// on a lossless queue (unless its watchdog may DISABLE it), and the logged
// decisions equal the ECN_MARK / DROP_WRED counters. The statistical side
// (marked fraction at a held length) is switch_wred_stats_test.cpp.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "switch_cosim_bench.hpp"
#include "switch_cosim_ecn.hpp"
#include "switch_cosim_scenarios.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/model/port_group.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_cosim;
namespace drv = syncfab::driver;
namespace fmt = syncfab::fmt;
namespace model = syncfab::model;

namespace {

using K = fmt::SwCounter;
constexpr std::size_t kFlitBytes = syncfab::model::kFlitBytes;
constexpr unsigned kPfcFrameFlits = syncfab::model::kPfcFrameFlits;

fmt::PktHdr hdr_of(const Flit& f) { return fmt::PktHdr(f); }

bool valid_type(std::uint8_t t) { return t >= 0x01 && t <= 0x05; }

// What the rules say about one stimulus packet, timing aside.
struct Copy {
  unsigned out = 0;
  unsigned q = 0;
  Flit hdr{};  // as it must leave (ECN as sent)
};
struct Expect {
  enum class Fate : std::uint8_t { kAdmit, kBadType, kNoRoute, kBadLen, kPfc, kBadPfc, kDisabled };
  Fate fate = Fate::kAdmit;
  bool lossy = true;
  bool group_skip = false;   // a port group skipped a member (GROUP_SKIPS)
  std::vector<Copy> copies;  // kAdmit and kBadLen (which never leave)
};

// `disabled`: the header arrived while CTRL.ENABLE was 0 (PFC frames bypass
// it); `port_up`: PORT_UP when it arrived.
Expect expect(const Setup& s, const StimPacket& p, bool disabled, std::uint32_t port_up) {
  Expect e;
  const Flit& f0 = p.flits.at(0);
  const fmt::PktHdr h = hdr_of(f0);
  const auto type = static_cast<std::uint8_t>(h.pkt_type());
  if (type == static_cast<std::uint8_t>(fmt::PktType::kPfc)) {
    e.fate = p.flits.size() == kPfcFrameFlits && h.len_flits() == kPfcFrameFlits
                 ? Expect::Fate::kPfc
                 : Expect::Fate::kBadPfc;
    return e;
  }
  if (disabled) {
    e.fate = Expect::Fate::kDisabled;
    return e;
  }
  if (!valid_type(type)) {
    e.fate = Expect::Fate::kBadType;
    return e;
  }
  e.lossy = !s.lossless(p.in, h.prio());
  std::uint32_t mask = 0;
  const std::uint16_t dst = h.dst_lid();
  if (dst >= fmt::kMlidBase) {
    for (const auto& [mlid, m] : s.mft) {
      if (mlid == dst) {
        mask = m & ~(1U << p.in);
      }
    }
  } else {
    for (const drv::LftEntry& l : s.lft) {
      if (l.lid == dst && !l.group) {
        mask = 1U << l.port;
      }
      if (l.lid == dst && l.group) {
        // docs/switch-ecmp.md section 2 (the model's member choice).
        for (const drv::PortGroupEntry& g : s.groups) {
          if (g.group == l.port) {
            const model::MemberChoice c =
                model::choose_member(g.members, port_up, p.in, kPorts,
                                     model::flow_hash(h.src_lid(), dst, h.flow_label()));
            mask = c.port < 0 ? 0U : 1U << static_cast<unsigned>(c.port);
            e.group_skip = c.skipped;
          }
        }
      }
    }
  }
  if (mask == 0) {
    e.fate = Expect::Fate::kNoRoute;
    return e;
  }
  e.fate = h.len_flits() == p.flits.size() && h.len_flits() != 0 ? Expect::Fate::kAdmit
                                                                 : Expect::Fate::kBadLen;
  for (unsigned o = 0; o < kPorts; ++o) {
    if ((mask >> o & 1U) == 0) {
      continue;
    }
    const bool hook = s.remap.enable && (s.remap.uplink_mask >> p.in & 1U) != 0 &&
                      (s.remap.uplink_mask >> o & 1U) != 0;
    fmt::PktHdr c = h;
    unsigned q = h.prio();
    if (hook) {
      q = s.remap.map[h.prio()].prio;
      c.set_dscp(s.remap.map[h.prio()].dscp);
    }
    c.set_prio(static_cast<std::uint8_t>(q));
    e.copies.push_back(Copy{o, q, c.bytes()});
  }
  return e;
}

// A copy may be missing for a WRED drop: Not-ECT, WRED on, not lossless
// (or lossless but its watchdog may DISABLE it, which makes it lossy).
bool wred_droppable(const Setup& s, const Copy& c) {
  const auto ecn = static_cast<std::uint8_t>(hdr_of(c.hdr).ecn());
  return s.wred_on(c.out, c.q) && (!s.lossless(c.out, c.q) || s.wd_may_disable(c.out, c.q)) &&
         ecn == 0;
}

// ... or for watchdog drop mode on its queue.
bool wd_droppable(const Setup& s, const Copy& c) { return s.wd_drops(c.out, c.q); }

// Per run: which copies left, with which bytes, checked against the rules.
struct Seen {
  // [stim index] -> output -> flits
  std::map<std::size_t, std::map<unsigned, std::vector<Flit>>> copies;
  std::set<std::size_t> whole_missing;  // admitted-looking packets with no copy out
  Counters derived{};                   // counters as the copies and frames show them
  unsigned marks = 0;
};

std::string where(const char* run, std::size_t pkt) {
  return std::string(run) + " run, packet " + std::to_string(pkt);
}

Seen check_run(const char* run, const Setup& s, const Stimulus& st, const std::vector<Expect>& ex,
               const RunLog& rtl, const RunLog& log) {
  Seen seen;
  // Position of each packet at its input (arrival order, the same in both).
  std::vector<std::size_t> pos(st.pkts.size(), SIZE_MAX);
  for (unsigned i = 0; i < kPorts; ++i) {
    for (std::size_t k = 0; k < rtl.rx[i].size(); ++k) {
      pos[rtl.rx[i][k].pkt] = k;
    }
  }
  std::map<std::tuple<unsigned, unsigned, unsigned>, std::size_t> last_pos;
  for (unsigned o = 0; o < kPorts; ++o) {
    for (const TxEntry& t : log.data[o]) {
      TB_CHECK(!t.flits.empty());
      const fmt::PktHdr h = hdr_of(t.flits[0]);
      const std::size_t k = h.flow_label();
      TB_CHECK(k < st.pkts.size() && !st.pkts[k].pfc)
          << run << " run: output " << o << " sent a packet that was never sent (flow " << k << ")";
      const StimPacket& sp = st.pkts[k];
      const Expect& e = ex[k];
      TB_CHECK(e.fate == Expect::Fate::kAdmit)
          << where(run, k) << " left output " << o << " but must be dropped (fate "
          << static_cast<int>(e.fate) << ")";
      const auto c =
          std::find_if(e.copies.begin(), e.copies.end(), [o](const Copy& x) { return x.out == o; });
      TB_CHECK(c != e.copies.end()) << where(run, k) << " left output " << o
                                    << ", which is not in its LFT/MFT set (input " << sp.in << ")";
      TB_CHECK(seen.copies[k].count(o) == 0) << where(run, k) << " left output " << o << " twice";
      TB_CHECK_EQ(t.flits.size(), sp.flits.size()) << where(run, k) << " on output " << o;
      Flit want = c->hdr;
      const std::uint8_t sent_ecn = static_cast<std::uint8_t>(hdr_of(want).ecn());
      const auto got_ecn = static_cast<std::uint8_t>(h.ecn());
      if (s.wred_on(o, c->q) && got_ecn != sent_ecn) {
        TB_CHECK(got_ecn == static_cast<std::uint8_t>(fmt::Ecn::kCe) &&
                 sent_ecn != static_cast<std::uint8_t>(fmt::Ecn::kNotEct))
            << where(run, k) << " on output " << o << ": ECN " << int(sent_ecn) << " -> "
            << int(got_ecn) << " (only ECT -> CE is a mark)";
        fmt::PktHdr w(want);
        w.set_ecn(fmt::Ecn::kCe);
        want = w.bytes();
        ++seen.derived[o][c->q][static_cast<unsigned>(K::kEcnMark)];
        ++seen.marks;
      }
      TB_CHECK(t.flits[0] == want) << where(run, k) << " on output " << o << " q " << c->q
                                   << ": header differs from the rules' (prio/DSCP/ECN)";
      for (std::size_t f = 1; f < t.flits.size(); ++f) {
        TB_CHECK(t.flits[f] == sp.flits[f])
            << where(run, k) << ": payload flit " << f << " differs";
      }
      auto& lp = last_pos[{sp.in, o, c->q}];
      TB_CHECK(lp == 0 || pos[k] + 1 > lp) << where(run, k) << ": out of order on (input " << sp.in
                                           << ", output " << o << ", q " << c->q << ")";
      lp = pos[k] + 1;
      seen.copies[k][o] = t.flits;
      ++seen.derived[o][c->q][static_cast<unsigned>(K::kTx)];
    }
  }
  // Missing copies: explained by DROP_BUF (whole lossy packet) or DROP_WRED.
  for (std::size_t k = 0; k < st.pkts.size(); ++k) {
    const Expect& e = ex[k];
    const StimPacket& sp = st.pkts[k];
    const unsigned p = sp.pfc ? 0 : hdr_of(sp.flits[0]).prio();
    auto& d = seen.derived[sp.in][p];
    switch (e.fate) {
      case Expect::Fate::kPfc:
        continue;
      case Expect::Fate::kBadPfc:
        ++d[static_cast<unsigned>(K::kDropBadPkt)];
        continue;
      case Expect::Fate::kBadType:
        ++d[static_cast<unsigned>(K::kRx)];
        ++d[static_cast<unsigned>(K::kDropBadPkt)];
        continue;
      case Expect::Fate::kDisabled:
        ++d[static_cast<unsigned>(K::kRx)];
        ++d[static_cast<unsigned>(K::kDropDisabled)];
        continue;
      case Expect::Fate::kNoRoute:
        ++d[static_cast<unsigned>(K::kRx)];
        ++d[static_cast<unsigned>(K::kDropNoRoute)];
        continue;
      case Expect::Fate::kBadLen:
        ++d[static_cast<unsigned>(K::kRx)];
        continue;  // DROP_BAD_PKT or DROP_BUF: settled with the counters
      case Expect::Fate::kAdmit:
        break;
    }
    ++d[static_cast<unsigned>(K::kRx)];
    const auto it = seen.copies.find(k);
    if (it == seen.copies.end()) {
      seen.whole_missing.insert(k);
      continue;
    }
    for (const Copy& c : e.copies) {
      if (it->second.count(c.out) != 0) {
        continue;
      }
      TB_CHECK(wred_droppable(s, c) || wd_droppable(s, c))
          << where(run, k) << " (input " << sp.in << ", prio " << p << "): copy for output "
          << c.out << " q " << c.q << " missing, and no rule allows dropping it";
      ++seen.derived[c.out][c.q]
                    [static_cast<unsigned>(wd_droppable(s, c) ? K::kDropWd : K::kDropWred)];
    }
  }
  for (unsigned port = 0; port < kPorts; ++port) {
    for (const TxEntry& f : log.frames[port]) {
      fmt::PfcFrame::Bytes img{};
      std::copy_n(f.flits[0].begin(), kFlitBytes, img.begin());
      std::copy_n(f.flits[1].begin(), kFlitBytes, img.begin() + kFlitBytes);
      const fmt::PfcFrame fr(img);
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        if ((fr.class_enable() >> q & 1U) == 0) {
          continue;
        }
        ++seen.derived[port][q]
                      [static_cast<unsigned>(fr.quanta(q) != 0 ? K::kPauseTx : K::kResumeTx)];
      }
    }
  }
  return seen;
}

// Counters of one run against what its copies show and the stimulus.
void check_counters(const char* run, const Setup& s, const Stimulus& st,
                    const std::vector<Expect>& ex, const Seen& seen, const RunLog& log) {
  const auto C = [&](unsigned p, unsigned q, K k) {
    return log.counters[p][q][static_cast<unsigned>(k)];
  };
  const auto D = [&](unsigned p, unsigned q, K k) {
    return seen.derived[p][q][static_cast<unsigned>(k)];
  };
  // Per (input, prio): whole-missing admitted packets, bad-length packets.
  std::array<std::array<unsigned, fmt::kNumPrio>, kPorts> missing{}, wred_only{}, badlen{};
  for (std::size_t k : seen.whole_missing) {
    const StimPacket& sp = st.pkts[k];
    const unsigned p = hdr_of(sp.flits[0]).prio();
    ++missing[sp.in][p];
    bool all_wred = true;  // every copy may be gone by DROP_WRED or DROP_WD
    for (const Copy& c : ex[k].copies) {
      all_wred = all_wred && (wred_droppable(s, c) || wd_droppable(s, c));
    }
    if (all_wred) {
      ++wred_only[sp.in][p];
    } else {
      TB_CHECK(ex[k].lossy) << where(run, k) << ": lossless packet (input " << sp.in << ", prio "
                            << p << ") never left";
    }
  }
  for (std::size_t k = 0; k < st.pkts.size(); ++k) {
    if (ex[k].fate == Expect::Fate::kBadLen) {
      ++badlen[st.pkts[k].in][hdr_of(st.pkts[k].flits[0]).prio()];
    }
  }
  std::uint64_t wred_total = 0;
  std::uint64_t wred_seen = 0;
  std::uint64_t wred_amb_copies = 0;
  std::uint64_t wd_total = 0;
  std::uint64_t wd_seen = 0;
  std::uint64_t wd_amb_copies = 0;
  for (std::size_t k : seen.whole_missing) {
    for (const Copy& c : ex[k].copies) {
      wred_amb_copies += wred_droppable(s, c) ? 1 : 0;
      wd_amb_copies += wd_droppable(s, c) ? 1 : 0;
    }
  }
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      const std::string at = std::string(run) + " run, port " + std::to_string(p) + " prio " +
                             std::to_string(q) + ": ";
      for (K k : {K::kRx, K::kDropNoRoute, K::kDropDisabled, K::kTx, K::kPauseTx, K::kResumeTx}) {
        TB_CHECK_EQ(C(p, q, k), D(p, q, k)) << at << fmt::to_string(k);
      }
      if (s.wd_drops(p, q)) {
        TB_CHECK(C(p, q, K::kDropWd) >= D(p, q, K::kDropWd))
            << at << "DROP_WD " << C(p, q, K::kDropWd) << " < " << D(p, q, K::kDropWd)
            << " copies missing";
      } else {
        TB_CHECK_EQ(C(p, q, K::kDropWd), 0U) << at << "DROP_WD without watchdog drop mode";
      }
      wd_total += C(p, q, K::kDropWd);
      wd_seen += D(p, q, K::kDropWd);
      if (!s.wd_on(p, q)) {
        for (K k : {K::kWdDetect, K::kWdRecover, K::kWdDisable}) {
          TB_CHECK_EQ(C(p, q, k), 0U) << at << fmt::to_string(k) << " without the watchdog";
        }
      }
      // Ingress: BAD_PKT covers bad types, bad PFC frames and the bad-length
      // packets DROP_BUF did not take first; DROP_BUF the rest of the
      // bad-length ones and the whole-missing lossy packets.
      const std::uint32_t bad_fixed = D(p, q, K::kDropBadPkt);
      const std::uint32_t bad = C(p, q, K::kDropBadPkt);
      const std::uint32_t buf = C(p, q, K::kDropBuf);
      TB_CHECK(bad >= bad_fixed && bad <= bad_fixed + badlen[p][q])
          << at << "DROP_BAD_PKT " << bad << ", rules: " << bad_fixed << " + up to " << badlen[p][q]
          << " bad lengths";
      const std::uint32_t buf_max = badlen[p][q] + missing[p][q];
      const std::uint32_t buf_min =
          (badlen[p][q] - (bad - bad_fixed)) + missing[p][q] - wred_only[p][q];
      TB_CHECK(buf >= buf_min && buf <= buf_max)
          << at << "DROP_BUF " << buf << ", copies show " << buf_min << ".." << buf_max;
      if (s.lossless(p, q)) {
        TB_CHECK_EQ(buf, 0U) << at << "DROP_BUF on a lossless priority";
      }
      if (s.lossless(p, q) && !s.wd_may_disable(p, q)) {
        TB_CHECK_EQ(C(p, q, K::kDropWred), 0U) << at << "DROP_WRED on a lossless queue";
      }
      wred_total += C(p, q, K::kDropWred);
      wred_seen += D(p, q, K::kDropWred);
      // ECN_MARK: every ECT -> CE seen, plus marks of CE copies (unchanged).
      if (s.wred_on(p, q)) {
        TB_CHECK(C(p, q, K::kEcnMark) >= D(p, q, K::kEcnMark))
            << at << "ECN_MARK " << C(p, q, K::kEcnMark) << " < " << D(p, q, K::kEcnMark)
            << " marked copies seen";
        TB_CHECK(C(p, q, K::kDropWred) >= D(p, q, K::kDropWred)) << at << "DROP_WRED";
      } else {
        TB_CHECK_EQ(C(p, q, K::kEcnMark), 0U) << at << "ECN_MARK without WRED";
        TB_CHECK_EQ(C(p, q, K::kDropWred), 0U) << at << "DROP_WRED without WRED";
      }
    }
  }
  TB_CHECK(wred_total >= wred_seen && wred_total <= wred_seen + wred_amb_copies)
      << run << " run: DROP_WRED " << wred_total << ", copies show " << wred_seen << " + up to "
      << wred_amb_copies;
  TB_CHECK(wd_total >= wd_seen && wd_total <= wd_seen + wd_amb_copies)
      << run << " run: DROP_WD " << wd_total << ", copies show " << wd_seen << " + up to "
      << wd_amb_copies;
}

// RTL against model: the same copies with the same bytes, except timing-
// dependent outcomes. Returns how many copies differ for such a reason.
unsigned compare_runs(const Setup& s, const Stimulus& st, const std::vector<Expect>& ex,
                      const Seen& r, const Seen& m, const RunLog& rl, const RunLog& ml,
                      unsigned& compared) {
  unsigned timing = 0;
  std::set<std::tuple<unsigned, unsigned>> touched;  // (port, prio) with a differing outcome
  std::array<std::array<unsigned, fmt::kNumPrio>, kPorts> badlen{};
  for (std::size_t k = 0; k < st.pkts.size(); ++k) {
    if (ex[k].fate == Expect::Fate::kBadLen) {
      ++badlen[st.pkts[k].in][hdr_of(st.pkts[k].flits[0]).prio()];
    }
  }
  for (std::size_t k = 0; k < st.pkts.size(); ++k) {
    if (ex[k].fate != Expect::Fate::kAdmit) {
      continue;
    }
    const auto ri = r.copies.find(k);
    const auto mi = m.copies.find(k);
    const unsigned p = hdr_of(st.pkts[k].flits[0]).prio();
    // Gone in both runs, every copy droppable after admission: one run may
    // have refused it (DROP_BUF) where the other dropped its copies (DROP_WRED
    // / DROP_WD); each run's own check already accepted either.
    if (ri == r.copies.end() && mi == m.copies.end() && ex[k].lossy &&
        std::all_of(ex[k].copies.begin(), ex[k].copies.end(),
                    [&s](const Copy& c) { return wred_droppable(s, c) || wd_droppable(s, c); })) {
      touched.insert({st.pkts[k].in, 100 + p});
      for (const Copy& c : ex[k].copies) {
        touched.insert({c.out, c.q});
      }
    }
    for (const Copy& c : ex[k].copies) {
      const bool in_r = ri != r.copies.end() && ri->second.count(c.out) != 0;
      const bool in_m = mi != m.copies.end() && mi->second.count(c.out) != 0;
      if (in_r && in_m) {
        ++compared;
        const auto& a = ri->second.at(c.out);
        const auto& b = mi->second.at(c.out);
        Flit ha = a[0];
        Flit hb = b[0];
        if (s.wred_on(c.out, c.q)) {
          if (ha != hb) {
            ++timing;
            touched.insert({c.out, c.q});
          }
          fmt::PktHdr x(ha);
          fmt::PktHdr y(hb);
          x.set_ecn(fmt::Ecn::kNotEct);
          y.set_ecn(fmt::Ecn::kNotEct);
          ha = x.bytes();
          hb = y.bytes();
        }
        TB_CHECK(ha == hb && std::equal(a.begin() + 1, a.end(), b.begin() + 1, b.end()))
            << "packet " << k << " output " << c.out << ": RTL and model copies differ";
      } else if (in_r != in_m) {
        // Each run's check already tied a missing copy to DROP_BUF/DROP_WRED.
        ++timing;
        touched.insert({c.out, c.q});
        touched.insert({st.pkts[k].in, 100 + p});
      }
    }
  }
  for (unsigned port = 0; port < kPorts; ++port) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      const auto R = [&](K k) { return rl.counters[port][q][static_cast<unsigned>(k)]; };
      const auto M = [&](K k) { return ml.counters[port][q][static_cast<unsigned>(k)]; };
      for (K k : {K::kRx, K::kDropNoRoute, K::kDropDisabled, K::kPauseRx, K::kResumeRx,
                  K::kWdDetect, K::kWdRecover, K::kWdDisable}) {
        TB_CHECK_EQ(R(k), M(k)) << "port " << port << " prio " << q << " " << fmt::to_string(k)
                                << ": RTL vs model";
      }
      // Which copies a drop-mode recovery reads out depends on when they
      // were enqueued (the RTL's and the model's round robins differ).
      if (touched.count({port, q}) == 0) {
        TB_CHECK_EQ(R(K::kDropWd), M(K::kDropWd))
            << "port " << port << " q " << q << " DROP_WD: RTL vs model";
      }
      if (touched.count({port, q}) == 0 && !s.wred_on(port, q)) {
        TB_CHECK_EQ(R(K::kTx), M(K::kTx)) << "port " << port << " q " << q << " TX: RTL vs model";
      }
      // A bad-length lossy packet is DROP_BUF or DROP_BAD_PKT depending on
      // the buffer when it arrived: then only the sum is deterministic.
      if (touched.count({port, 100 + q}) == 0 && badlen[port][q] == 0) {
        TB_CHECK_EQ(R(K::kDropBuf), M(K::kDropBuf))
            << "port " << port << " prio " << q << " DROP_BUF: RTL vs model";
        TB_CHECK_EQ(R(K::kDropBadPkt), M(K::kDropBadPkt))
            << "port " << port << " prio " << q << " DROP_BAD_PKT: RTL vs model";
      } else if (touched.count({port, 100 + q}) == 0) {
        TB_CHECK_EQ(R(K::kDropBuf) + R(K::kDropBadPkt), M(K::kDropBuf) + M(K::kDropBadPkt))
            << "port " << port << " prio " << q << " DROP_BUF + DROP_BAD_PKT: RTL vs model";
      }
    }
  }
  return timing;
}

// Pause property on the RTL run: per lossless (input, prio), the occupancy
// from the ports (a cell per flit taken of a packet the input stores, freed
// at the edge after the last flit of its last copy, or of itself if it is
// malformed) with pfc_tx's hysteresis; every XOFF crossing needs a pause
// frame for that priority by t + 1 + max packet + 2 + stalled cycles.
// Returns the largest delay seen (stalled cycles not counted).
unsigned check_pause_timing(const Setup& s, const Stimulus& st, const std::vector<Expect>& ex,
                            const Seen& seen, const RunLog& log, unsigned& crossings) {
  unsigned worst = 0;
  std::vector<std::uint64_t> done(st.pkts.size(), 0);  // last tx cycle of the last copy
  for (unsigned o = 0; o < kPorts; ++o) {
    for (const TxEntry& t : log.data[o]) {
      const std::size_t k = hdr_of(t.flits[0]).flow_label();
      done[k] = std::max(done[k], t.last);
    }
  }
  // A copy that never left (DROP_WD, or DROP_WRED on a DISABLED queue)
  // frees its cells at a cycle the ports do not show: the occupancy of that
  // (input, prio) cannot be rebuilt, so the property is not checked there.
  std::set<std::pair<unsigned, unsigned>> unknown;
  for (std::size_t k = 0; k < st.pkts.size(); ++k) {
    if (ex[k].fate != Expect::Fate::kAdmit) {
      continue;
    }
    const auto it = seen.copies.find(k);
    if (it == seen.copies.end() || it->second.size() != ex[k].copies.size()) {
      unknown.insert({st.pkts[k].in, hdr_of(st.pkts[k].flits[0]).prio()});
    }
  }
  const unsigned maxpkt = s.link.max_pkt_flits;
  for (unsigned i = 0; i < kPorts; ++i) {
    for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
      const drv::PfcPriority& pc = s.pfc[i][p];
      if (!pc.lossless || (unknown.count({i, p}) != 0 && s.wd)) {
        continue;
      }
      // Events: cycle -> delta (ins at their cycle, frees at the last cycle).
      std::map<std::uint64_t, std::pair<int, int>> ev;  // cycle -> (in, out)
      std::set<std::uint64_t> malformed_in;
      for (const RxEntry& r : log.rx[i]) {
        const StimPacket& sp = st.pkts[r.pkt];
        const Expect& e = ex[r.pkt];
        if (sp.pfc || (e.fate != Expect::Fate::kAdmit && e.fate != Expect::Fate::kBadLen)) {
          continue;
        }
        const fmt::PktHdr h = hdr_of(sp.flits[0]);
        if (h.prio() != p) {
          continue;
        }
        const std::size_t cells = std::min<std::size_t>(r.cycles.size(), h.len_flits());
        for (std::size_t f = 0; f < cells; ++f) {
          ++ev[r.cycles[f]].first;
          if (e.fate == Expect::Fate::kBadLen) {
            malformed_in.insert(r.cycles[f]);
          }
        }
        const std::uint64_t free_at =
            e.fate == Expect::Fate::kBadLen ? r.cycles.back() : done[r.pkt];
        ev[free_at].second += static_cast<int>(cells);
      }
      // Cycles at which the occupancy is below XON: a pause still waiting
      // then leaves as a resume (docs/switch-pfc.md frame rule), which is
      // the right frame for that crossing.
      std::vector<std::uint64_t> below_xon;
      {
        int o = 0;
        for (const auto& [cyc, d] : ev) {
          o += d.first - d.second;
          if (o < pc.xon) {
            below_xon.push_back(cyc);
          }
        }
      }
      const auto fell_below_xon = [&below_xon](std::uint64_t from, std::uint64_t to) {
        const auto it = std::lower_bound(below_xon.begin(), below_xon.end(), from);
        return it != below_xon.end() && *it < to;
      };
      int occ = 0;
      bool xoff = false;
      for (const auto& [cyc, d] : ev) {
        const int before = occ;
        occ += d.first - d.second;
        if (xoff) {
          xoff = occ >= pc.xon;
          continue;
        }
        if (occ < pc.xoff) {
          continue;
        }
        xoff = true;
        if (before >= pc.xoff || d.first == 0) {
          continue;
        }
        if (malformed_in.count(cyc) != 0) {
          continue;
        }
        ++crossings;
        // Deadline: 1 + max packet + 2 ready cycles of port i after the crossing.
        std::uint64_t deadline = cyc;
        for (unsigned need = 1 + maxpkt + 2; need > 0; ++deadline) {
          const std::uint64_t c = deadline + 1;
          if (c >= log.ready.size() || (log.ready[c] >> i & 1U) != 0) {
            --need;
          }
        }
        bool ok = false;
        for (const TxEntry& f : log.frames[i]) {
          if (f.first + maxpkt + 4 < cyc || f.first > deadline) {
            continue;
          }
          fmt::PfcFrame::Bytes img{};
          std::copy_n(f.flits[0].begin(), kFlitBytes, img.begin());
          std::copy_n(f.flits[1].begin(), kFlitBytes, img.begin() + kFlitBytes);
          const fmt::PfcFrame fr(img);
          if ((fr.class_enable() >> p & 1U) != 0 &&
              (fr.quanta(p) != 0 || fell_below_xon(cyc, f.first))) {
            ok = true;
            if (f.first > cyc) {
              unsigned stalls = 0;
              for (std::uint64_t c = cyc + 1; c < f.first && c < log.ready.size(); ++c) {
                stalls += (log.ready[c] >> i & 1U) == 0 ? 1U : 0U;
              }
              worst = std::max(worst, static_cast<unsigned>(f.first - cyc - stalls));
            }
            break;
          }
        }
        TB_CHECK(ok) << "input " << i << " prio " << p << ": occupancy reached XOFF " << pc.xoff
                     << " in cycle " << cyc << ", no pause frame by cycle " << deadline
                     << " (1 + max packet + 2 ready cycles)";
      }
    }
  }
  return worst;
}

// WRED property on every enqueue decision of a run (the RTL's from its
// engine, the model's from its trace): a mark or a WRED drop only on a
// WRED-enabled queue at a queue length >= Kmin (the static one; with
// register accesses while traffic runs, `dyn`, the effective Kmin the
// decision used, which check_ecn_law ties to the law), never a drop on a lossless
// queue the watchdog cannot DISABLE; and the decisions add up to the run's
// ECN_MARK and DROP_WRED counters, so no decision escaped the log. Returns
// the marks + drops checked and the least queue length among them.
struct WredSeen {
  std::uint64_t decisions = 0;
  std::uint64_t hits = 0;
  std::uint32_t min_qlen = UINT32_MAX;
};
WredSeen check_wred_property(const char* run, const Setup& s, const RunLog& log, bool dyn) {
  WredSeen w;
  Counters hit{};
  for (const EnqEvent& e : log.enq) {
    ++w.decisions;
    if (!e.mark && !e.drop) {
      continue;
    }
    TB_CHECK(!(e.mark && e.drop)) << run << " run, cycle " << e.cycle << ": mark and drop";
    const drv::WredQueue& wq = s.wred.at(e.out).at(e.q);
    TB_CHECK(wq.enable) << run << " run, cycle " << e.cycle << ": WRED "
                        << (e.mark ? "mark" : "drop") << " on (" << e.out << ", " << e.q
                        << ") without WRED_EN";
    if (!dyn) {
      TB_CHECK_EQ(e.kmin, wq.kmin) << run << " run, cycle " << e.cycle
                                   << ": the Kmin WRED used on (" << e.out << ", " << e.q << ")";
    }
    TB_CHECK(e.qlen >= e.kmin) << run << " run, cycle " << e.cycle << ": WRED "
                               << (e.mark ? "mark" : "drop") << " on (" << e.out << ", " << e.q
                               << ") at queue length " << e.qlen << " < Kmin " << e.kmin;
    TB_CHECK(!e.drop || !s.lossless(e.out, e.q) || s.wd_may_disable(e.out, e.q))
        << run << " run, cycle " << e.cycle << ": WRED drop on lossless (" << e.out << ", " << e.q
        << ")";
    ++hit[e.out][e.q][static_cast<unsigned>(e.mark ? K::kEcnMark : K::kDropWred)];
    ++w.hits;
    w.min_qlen = std::min(w.min_qlen, e.qlen);
  }
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      for (K k : {K::kEcnMark, K::kDropWred}) {
        TB_CHECK_EQ(hit[p][q][static_cast<unsigned>(k)],
                    log.counters[p][q][static_cast<unsigned>(k)])
            << run << " run, port " << p << " q " << q << " " << fmt::to_string(k)
            << ": enqueue decisions logged vs counter";
      }
    }
  }
  return w;
}

// Timing of one run from its port logs (--param why=1): per output the idle
// cycles between consecutive transmissions (0 = back to back) and the
// forwarding latency (a copy's first flit after its packet's last rx flit).
void print_timing(const char* run, const Stimulus& st, const RunLog& rtl, const RunLog& log) {
  std::vector<std::uint64_t> rx_last(st.pkts.size(), 0);
  for (unsigned p = 0; p < kPorts; ++p) {
    for (const RxEntry& r : rtl.rx[p]) {
      rx_last[r.pkt] = r.cycles.back();
    }
  }
  std::array<std::uint64_t, 4> gaps{};  // 0, 1, 2, 3+ idle cycles between two transmissions
  std::uint64_t lat_min = UINT64_MAX;
  std::uint64_t lat_sum = 0;
  std::uint64_t n = 0;
  for (unsigned o = 0; o < kPorts; ++o) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (const TxEntry& t : log.data[o]) {
      spans.emplace_back(t.first, t.last);
      const std::uint64_t r = rx_last[hdr_of(t.flits[0]).flow_label()];
      lat_min = std::min(lat_min, t.first - r);
      lat_sum += t.first - r;
      ++n;
    }
    for (const TxEntry& t : log.frames[o]) {
      spans.emplace_back(t.first, t.last);
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t k = 1; k < spans.size(); ++k) {
      ++gaps[std::min<std::uint64_t>(spans[k].first - spans[k - 1].second - 1, 3)];
    }
  }
  std::cout << "  " << run << ": gaps between transmissions 0/1/2/3+ idle cycles: " << gaps[0]
            << "/" << gaps[1] << "/" << gaps[2] << "/" << gaps[3] << "; forwarding latency min "
            << lat_min << " mean "
            << (n != 0 ? static_cast<double>(lat_sum) / static_cast<double>(n) : 0.0) << "\n";
}

// Both runs, every check; prints the figures. `more` runs further checks
// on the two logs.
using MoreChecks = std::function<void(const RunLog& rtl, const RunLog& mdl)>;
Task<> cosim(TestContext& ctx, const char* name, const Setup& setup, const Stimulus& stim,
             const MoreChecks& more = {}) {
  const RunLog rtl = co_await run_rtl(ctx, setup, stim);
  TB_CHECK_EQ(rtl.enable_writes.size(), 2 * stim.disabled.size()) << "CTRL.ENABLE writes done";
  // Header cycle of each packet at its input, against the ENABLE windows.
  std::vector<std::uint64_t> hdr_cycle(stim.pkts.size(), 0);
  for (unsigned p = 0; p < kPorts; ++p) {
    for (const RxEntry& r : rtl.rx[p]) {
      hdr_cycle[r.pkt] = r.cycles.at(0);
    }
  }
  const auto disabled_at = [&rtl](std::uint64_t cyc) {
    bool on = true;  // programmed enabled before traffic
    for (const auto& [at, v] : rtl.enable_writes) {
      if (at <= cyc) {
        on = v;
      }
    }
    return !on;
  };
  TB_CHECK_EQ(rtl.port_up_writes.size(), stim.port_up.size()) << "PORT_UP writes done";
  const auto port_up_at = [&rtl, &setup](std::uint64_t cyc) {
    std::uint32_t up = setup.port_up;
    for (const auto& [at, v] : rtl.port_up_writes) {
      if (at <= cyc) {
        up = v;
      }
    }
    return up;
  };
  std::vector<Expect> ex;
  ex.reserve(stim.pkts.size());
  unsigned n_disabled = 0;
  std::uint32_t n_skips = 0;
  for (std::size_t k = 0; k < stim.pkts.size(); ++k) {
    ex.push_back(expect(setup, stim.pkts[k], disabled_at(hdr_cycle[k]), port_up_at(hdr_cycle[k])));
    n_disabled += ex.back().fate == Expect::Fate::kDisabled ? 1U : 0U;
    n_skips += ex.back().group_skip ? 1U : 0U;
  }
  // GROUP_SKIPS: one per packet whose group skipped a member, on both sides.
  TB_CHECK_EQ(rtl.group_skips, n_skips) << "RTL GROUP_SKIPS";
  std::size_t taken = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    taken += rtl.rx[p].size();
  }
  TB_CHECK_EQ(taken, stim.pkts.size()) << "the RTL took every packet";
  ModelTiming mt;
  mt.fwd_latency = static_cast<unsigned>(ctx.param("fwd_latency", mt.fwd_latency));
  mt.egress_gap = static_cast<unsigned>(ctx.param("egress_gap", mt.egress_gap));
  mt.starts_per_cycle = static_cast<unsigned>(ctx.param("starts", mt.starts_per_cycle));
  mt.enqueue_per_cycle = static_cast<unsigned>(ctx.param("enqueue", mt.enqueue_per_cycle));
  const RunLog mdl = run_model(setup, stim, rtl, mt);
  TB_CHECK_EQ(mdl.group_skips, n_skips) << "model GROUP_SKIPS";
  if (!setup.groups.empty()) {
    std::cout << name << ": GROUP_SKIPS RTL/model/expected " << rtl.group_skips << "/"
              << mdl.group_skips << "/" << n_skips << " (" << stim.port_up.size()
              << " PORT_UP writes)\n";
  }
  const auto checks0 = std::chrono::steady_clock::now();
  for (const std::string& v : mdl.violations) {
    TB_CHECK(false) << "model: " << v;
  }
  if (ctx.param("dump", 0) != 0) {
    // Every non-zero counter, RTL / model (--param dump=1).
    for (unsigned p = 0; p < kPorts; ++p) {
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
          const std::uint32_t a = rtl.counters[p][q][k];
          const std::uint32_t b = mdl.counters[p][q][k];
          if (a != 0 || b != 0) {
            std::cout << "  port " << p << " prio " << q << " " << fmt::to_string(static_cast<K>(k))
                      << ": RTL " << a << " model " << b << "\n";
          }
        }
      }
    }
  }
  if (ctx.param("why", 0) != 0) {
    print_timing("RTL", stim, rtl, rtl);
    print_timing("model", stim, rtl, mdl);
  }
  const WredSeen rw = check_wred_property("RTL", setup, rtl, !stim.csr.empty());
  const WredSeen mw = check_wred_property("model", setup, mdl, !stim.csr.empty());
  const Seen r = check_run("RTL", setup, stim, ex, rtl, rtl);
  const Seen m = check_run("model", setup, stim, ex, rtl, mdl);
  check_counters("RTL", setup, stim, ex, r, rtl);
  check_counters("model", setup, stim, ex, m, mdl);
  unsigned compared = 0;
  const unsigned timing = compare_runs(setup, stim, ex, r, m, rtl, mdl, compared);
  unsigned crossings = 0;
  const unsigned worst = check_pause_timing(setup, stim, ex, r, rtl, crossings);
  if (more) {
    more(rtl, mdl);
  }
  const double checks_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - checks0).count();
  std::uint64_t copies = 0;
  std::uint64_t frames = 0;
  std::uint64_t mframes = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    copies += rtl.data[p].size();
    frames += rtl.frames[p].size();
    mframes += mdl.frames[p].size();
  }
  std::uint64_t rlast = 0;
  std::uint64_t mlast = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    for (const TxEntry& t : rtl.data[p]) {
      rlast = std::max(rlast, t.last);
    }
    for (const TxEntry& t : mdl.data[p]) {
      mlast = std::max(mlast, t.last);
    }
  }
  std::uint32_t rbuf = 0;
  std::uint32_t mbuf = 0;
  std::uint32_t rwred = 0;
  std::uint32_t mwred = 0;
  std::array<std::uint32_t, fmt::kSwCounterCount> rall{};
  std::array<std::uint32_t, fmt::kSwCounterCount> mall{};
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      rbuf += rtl.counters[p][q][static_cast<unsigned>(K::kDropBuf)];
      mbuf += mdl.counters[p][q][static_cast<unsigned>(K::kDropBuf)];
      rwred += rtl.counters[p][q][static_cast<unsigned>(K::kDropWred)];
      mwred += mdl.counters[p][q][static_cast<unsigned>(K::kDropWred)];
      for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
        rall[k] += rtl.counters[p][q][k];
        mall[k] += mdl.counters[p][q][k];
      }
    }
  }
  const auto both = [&](K k) {
    const auto i = static_cast<unsigned>(k);
    return std::to_string(rall[i]) + "/" + std::to_string(mall[i]);
  };
  std::cout << "switch_cosim." << name << " seed " << ctx.seed() << ": " << stim.pkts.size()
            << " packets/frames in, " << copies << " copies out (" << compared
            << " compared byte for byte with the model, " << timing
            << " timing-dependent differences), RTL " << rtl.cycles << " cycles in " << rtl.wall_s
            << " s, last copy out in cycle " << rlast << " (model " << mlast
            << "); pause frames RTL " << frames << " model " << mframes << "; XOFF crossings "
            << crossings << ", worst pause delay " << worst << " (bound "
            << 1 + setup.link.max_pkt_flits + 2 << "); DROP_BUF RTL " << rbuf << " model " << mbuf
            << "; DROP_WRED RTL " << rwred << " model " << mwred << "; ECN marks seen RTL "
            << r.marks << " model " << m.marks << "; RTL/model DROP_BAD_PKT "
            << both(K::kDropBadPkt) << ", DROP_DISABLED " << both(K::kDropDisabled) << " ("
            << n_disabled << " headers in ENABLE=0 windows), WD_DETECT " << both(K::kWdDetect)
            << ", WD_RECOVER " << both(K::kWdRecover) << ", WD_DISABLE " << both(K::kWdDisable)
            << ", DROP_WD " << both(K::kDropWd) << "; WRED decisions RTL " << rw.decisions
            << " model " << mw.decisions << ", marks+drops RTL " << rw.hits << " model " << mw.hits
            << " all at queue length >= Kmin (least "
            << (rw.hits != 0 ? std::to_string(rw.min_qlen) : "-") << "/"
            << (mw.hits != 0 ? std::to_string(mw.min_qlen) : "-") << "); PAUSE_TX RTL/model "
            << both(K::kPauseTx) << "\n";
  // Speed of the three parts (make bench reads this line).
  std::cout << "switch_cosim." << name << " speed: " << rtl.cycles << " cycles; RTL run "
            << rtl.wall_s << " s, model run " << mdl.wall_s << " s, checks " << checks_s
            << " s; co-simulation "
            << static_cast<double>(rtl.cycles) / (rtl.wall_s + mdl.wall_s + checks_s)
            << " cycles/s\n";
}

}  // namespace

// Directed smoke: unicast only, no PFC, no WRED, no remap: the RTL and the
// model must agree copy for copy and counter for counter.
SYNCFAB_TEST(switch_cosim, unicast_smoke) {
  const Scenario sc = unicast_smoke(ctx, static_cast<unsigned>(ctx.param("packets", 300)));
  co_await cosim(ctx, "unicast_smoke", sc.setup, sc.stim);
}

// Everything at once: unicast, multicast, misses, bad types and lengths,
// received PFC frames (some malformed), PFC on 3 and 5, WRED, SP + WDRR,
// hook-flow remap, rx gaps and tx backpressure.
// Port groups (docs/switch-ecmp.md): a three-member group, a group of every
// port (the input is never a member), a two-member group, plain entries
// besides; every packet its own flow label, so the hash spreads them; PORT_UP
// takes a port out, then two (a group without live members from some
// inputs: DROP_NO_ROUTE), then every port back, while traffic runs.
SYNCFAB_TEST(switch_cosim, port_groups) {
  const Scenario sc = port_groups(ctx, static_cast<unsigned>(ctx.param("packets", 600)));
  co_await cosim(ctx, "port_groups", sc.setup, sc.stim);
}

SYNCFAB_TEST(switch_cosim, random_mix) {
  const Scenario sc = random_mix(ctx, static_cast<unsigned>(ctx.param("packets", 1500)));
  co_await cosim(ctx, "random_mix", sc.setup, sc.stim);
}

// Full load on the lossless priorities: every input sends back to back,
// prio 3 all to LID 2 (output 2: 3-to-1 plus itself) and prio 5 to random
// outputs, lossy traffic besides, output stalls. Zero drops on 3 and 5 with
// the sources honouring the switch's pauses; the pause timing property.
SYNCFAB_TEST(switch_cosim, lossless_full_load) {
  const Scenario sc = lossless_full_load(ctx, static_cast<unsigned>(ctx.param("packets", 1500)));
  co_await cosim(ctx, "lossless_full_load", sc.setup, sc.stim);
}

// The random mix with the watchdog and CTRL.ENABLE = 0 windows
// (switch_cosim_scenarios.cpp): DROP_WD in drop mode, ignore mode, a queue
// DISABLED over the limit that WRED may then drop on, DROP_DISABLED.
SYNCFAB_TEST(switch_cosim, watchdog_and_disable) {
  const Scenario sc = watchdog_and_disable(ctx, static_cast<unsigned>(ctx.param("packets", 1500)));
  co_await cosim(ctx, "watchdog_and_disable", sc.setup, sc.stim);
}

// The dynamic ECN law on (switch_cosim_scenarios.cpp, ecn_dynamic): every
// check above, and the RTL's law of every (output, queue) in every cycle
// against the golden EcnController on the RTL's measured inputs and the
// registers as a golden CSR block holds them after the same accesses; the
// status reads and refused writes of both runs against it. The run must
// move the law: a window that raised P, one that lowered it, sh >= 2,
// marks with shifted thresholds.
SYNCFAB_TEST(switch_cosim, ecn_dynamic) {
  const Scenario sc = ecn_dynamic(ctx, static_cast<unsigned>(ctx.param("scale", 4)));
  EcnLawSeen law;
  co_await cosim(ctx, "ecn_dynamic", sc.setup, sc.stim, [&](const RunLog& rtl, const RunLog& mdl) {
    law = check_ecn_law(sc.setup, sc.stim, rtl, mdl);
  });
  std::cout << "switch_cosim.ecn_dynamic seed " << ctx.seed() << ": law compared in " << law.cycles
            << " cycles (" << law.values_compared << " values), " << law.window_ends
            << " window ends of law-on queues (" << law.raised << " raised P, " << law.lowered
            << " lowered, " << law.paused_holds << " held with a pause), most sh " << law.max_sh
            << "; " << law.reads << " status reads = golden, " << law.refused
            << " refused writes on all three; RTL marks on law-on queues " << law.marks_on << " ("
            << law.marks_shifted << " with sh > 0); " << law.decisions
            << " WRED decisions and the ECN of " << law.flits_ecn
            << " copies sent equal the golden WRED's; model against the golden law on its own "
               "inputs: "
            << law.model.window_ends << " window ends (" << law.model.raised << " raised, "
            << law.model.lowered << " lowered), " << law.model.reads << " status reads, "
            << law.model.decisions << " WRED decisions, ECN of " << law.model.flits_ecn
            << " copies, all equal; status reads equal RTL/model " << law.reads_rtl_eq_model
            << " of " << law.reads << "\n";
  TB_CHECK(law.raised > 0) << "no window raised P";
  TB_CHECK(law.lowered > 0) << "no window lowered P";
  TB_CHECK(law.max_sh >= 2) << "sh never reached 2";
  TB_CHECK(law.marks_shifted > 0) << "no mark with shifted thresholds";
  TB_CHECK(law.paused_holds > 0) << "no window held by a pause";
  TB_CHECK(law.refused >= 5) << "refused writes";
}
