// Ring mode of the switch's combine unit (rtl/switch/switch_combine.sv,
// docs/group-barrier.md section 9) on the 4-port switch (vl_switch_top), the
// shape every test build and the coverage tree have: the rules of
// switch_combine_ring_test.cpp (the 8-port switch) that fit on four ports,
// driven the same way (raw TBL_* writes, COMB_ARRIVE / COMB_SHARE packets
// as the member NIC and the ring neighbours would send them). Expected
// results are worked out by hand from sections 9.2 to 9.4; the rule is named
// next to each check.
//
// The entry of most cases (MLID 0xC001), a switch at E = 10 with one member
// on port 0 and two phases:
//   phase 0: LEN 4, POS 1, PLUS port 1, MINUS port 2, ORIGIN, EXPECT {0, 2, 3};
//            R+ = 2, R- = 1: the own share goes to ports 1 and 2.
//   phase 1: LEN 2, POS 0, PLUS = MINUS = port 3, ORIGIN, EXPECT {1};
//            R+ = 1, R- = 0: the own share goes to port 3 only.
// A share reaches this switch travelling + from MINUS (distance
// k = (POS - o) mod LEN) or travelling - from PLUS (k = (o - POS) mod LEN):
// in phase 0, origin 0 from port 2 (k = 1, forwarded to port 1), origin 3
// from port 2 (k = 2) and origin 2 from port 1 (k = 1); in phase 1, origin 1
// from port 3 (k = 1).
#include <Vswitch_top.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "switch_combine_ring.hpp"
#include "switch_top_bench.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_top_bench;
using namespace syncfab::tb::switch_combine_ring;
namespace fmt = syncfab::fmt;

static_assert(kPorts == 4, "built against vl_switch_top (4 ports)");

namespace {

constexpr unsigned kMember = 0;
constexpr unsigned kPlus0 = 1;
constexpr unsigned kMinus0 = 2;
constexpr unsigned kRing1 = 3;
constexpr std::uint32_t kOwn0 = (1U << kPlus0) | (1U << kMinus0);
constexpr std::uint32_t kOwn1 = 1U << kRing1;
constexpr std::uint32_t kRelease = 1U << kMember;

RingEntry two_phase_entry() {
  RingEntry x;
  x.children = 1U << kMember;
  x.phases = 2;
  x.geo[0] =
      Geo{.origin = true, .plus = kPlus0, .minus = kMinus0, .pos = 1, .len = 4, .expect = 0xD};
  x.geo[1] =
      Geo{.origin = true, .plus = kRing1, .minus = kRing1, .pos = 0, .len = 2, .expect = 0x2};
  x.geo[2] = Geo{.valid = false};
  x.epoch = kE;
  return x;
}

// Every share of epoch e the two-phase entry expects.
void send_all_shares(Bench& b, std::uint16_t e, std::uint32_t flow) {
  b.send(kMinus0, share(e, 0, 0, flow));
  b.send(kPlus0, share(e, 0, 2, flow + 1));
  b.send(kMinus0, share(e, 0, 3, flow + 2));
  b.send(kRing1, share(e, 1, 1, flow + 3));
}

}  // namespace

// One barrier, step by step (sections 9.3, 9.4): a share heard before the
// member arrived is recorded and forwarded within its reach; the own share
// of phase 0 leaves with the arrival, that of phase 1 (R- = 0: PLUS only)
// when phase 0's EXPECT is heard, the release when phase 1's is; E advances.
SYNCFAB_TEST(switch_combine_ring4, barrier_step_by_step) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  // Origin 0 from MINUS: +, k = 1, forwarded (k + 1 = 2 <= R+) to PLUS.
  Marks m = mark(b);
  b.send(kMinus0, share(kE, 0, 0, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share o=0"), 1U << kPlus0) << "forwarded to PLUS only";
  check_made(b.out[kPlus0].back(), kCombShare, kE, 0, 0, false, 1, "forwarded share");
  // The member arrives: A = children, the own share of phase 0.
  m = mark(b);
  b.send(kMember, arrive(kE, 2));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "arrival"), kOwn0) << "own share of phase 0";
  check_made(b.out[kPlus0].back(), kCombShare, kE, 0, 1, false, 2, "own share 0 (PLUS)");
  check_made(b.out[kMinus0].back(), kCombShare, kE, 0, 1, false, 2, "own share 0 (MINUS)");
  // Origin 2 from PLUS: -, k = 1 = R-: recorded, not forwarded.
  m = mark(b);
  b.send(kPlus0, share(kE, 0, 2, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share o=2"), 0U) << "end of its reach";
  // Origin 3 from MINUS: +, k = 2 = R+: done_0, the own share of phase 1.
  m = mark(b);
  b.send(kMinus0, share(kE, 0, 3, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share o=3"), kOwn1) << "own share of phase 1, PLUS only";
  check_made(b.out[kRing1].back(), kCombShare, kE, 1, 0, false, 4, "own share 1");
  TB_CHECK_EQ(epoch_of(b, kMlid), kE) << "phase 1 not heard yet";
  // Phase 1's origin 1 (from port 3 = MINUS, checked first: +, k = 1 = R+):
  // complete, COMB_RELEASE(E) to the member, E + 1.
  m = mark(b);
  b.send(kRing1, share(kE, 1, 1, 5));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share 1 o=1"), kRelease) << "the release";
  check_made(b.out[kMember].back(), kCombRelease, kE, 0, 0, false, 5, "release");
  TB_CHECK_EQ(epoch_of(b, kMlid), kE + 1);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "barrier");
}

// Holds (section 9.4): every share of E heard before the member arrives, so
// the arrival makes three emissions, one per engine take, in the pending
// order (own share 0, own share 1, release): the first two takes hold the
// packet and write their emission into a fresh cell of input 0, the third
// pops it. The emissions leave one engine cycle apart; every cell comes
// back.
SYNCFAB_TEST(switch_combine_ring4, hold_three_emissions) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  send_all_shares(b, kE, 1);
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[kPlus0].size(), 1U) << "only the forward of o=0 so far";
  const Marks m = mark(b);
  b.send(kMember, arrive(kE, 7));
  co_await b.drain(100);
  TB_CHECK_EQ(new_ports(b, m, "arrival"), kOwn0 | kOwn1 | kRelease)
      << "shares 0 and 1 and the release";
  check_made(b.out[kPlus0].back(), kCombShare, kE, 0, 1, false, 7, "own share 0 (PLUS)");
  check_made(b.out[kMinus0].back(), kCombShare, kE, 0, 1, false, 7, "own share 0 (MINUS)");
  check_made(b.out[kRing1].back(), kCombShare, kE, 1, 0, false, 7, "own share 1");
  check_made(b.out[kMember].back(), kCombRelease, kE, 0, 0, false, 7, "release");
  const std::uint64_t t0 = b.out[kPlus0].back().first_cycle;
  const std::uint64_t t1 = b.out[kRing1].back().first_cycle;
  const std::uint64_t t2 = b.out[kMember].back().first_cycle;
  TB_CHECK_EQ(b.out[kMinus0].back().first_cycle, t0) << "one emission's copies leave together";
  TB_CHECK_EQ(t1, t0 + 1) << "one emission per take, one take per cycle";
  TB_CHECK_EQ(t2, t1 + 1) << "one emission per take, one take per cycle";
  TB_CHECK_EQ(epoch_of(b, kMlid), kE + 1);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "holds");
}

// A packet with a copy of its own (a forward) and a pending emission, its
// input buffer full: the holding take would need a fresh cell that is not
// there, so the engine does not take it (section 9.4) and serves input 1's
// data meanwhile; once the data leaves, the forward and the own share go
// through, nothing is dropped and every cell comes back.
SYNCFAB_TEST(switch_combine_ring4, hold_waits_for_a_cell) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  program_ring(b, two_phase_entry());
  sw.set_lft(0x20, kMember);
  sw.enable(true);
  // A = children and phase 0 needs only o = 0: own share 0 sent.
  b.send(kPlus0, share(kE, 0, 2, 1));
  b.send(kMinus0, share(kE, 0, 3, 2));
  b.send(kMember, arrive(kE, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[kRing1].size(), 0U) << "phase 1 waits for o=0";
  // Fill input 2's buffer but one cell with data to the held member port.
  const unsigned fill = (kBufCells - 1) / 5;
  b.hold_tx(kMember, true);
  for (unsigned k = 0; k < fill; ++k) {
    b.send(kMinus0, make_packet(Hdr{.len = 5, .dst = 0x20, .prio = 0, .flow = 100 + k}));
  }
  co_await b.drain(20);
  const unsigned left = kBufCells - 5 * fill;
  TB_CHECK_EQ(free_cells(b).at(kMinus0), left) << "cells left";
  const Marks m = mark(b);
  for (unsigned k = 0; k + 1 < left; ++k) {
    b.send(kMinus0, make_packet(Hdr{.len = 1, .dst = 0x20, .prio = 0, .flow = 500 + k}));
  }
  b.send(kMinus0, share(kE, 0, 0, 9));  // takes the last cell
  b.send(kPlus0, make_packet(Hdr{.len = 1, .dst = 0x20, .prio = 0, .flow = 900}));
  co_await b.drain(60);
  TB_CHECK_EQ(free_cells(b).at(kMinus0), 0U);
  TB_CHECK_EQ(new_ports(b, m, "share with no free cell"), 0U) << "not taken: no fresh cell";
  b.hold_tx(kMember, false);
  co_await b.drain(600);
  TB_CHECK_EQ(b.out[kPlus0].size() - m.n[kPlus0], 1U) << "the forward";
  TB_CHECK_EQ(b.out[kRing1].size() - m.n[kRing1], 1U) << "own share 1";
  check_made(b.out[kPlus0].back(), kCombShare, kE, 0, 0, false, 9, "forward");
  check_made(b.out[kRing1].back(), kCombShare, kE, 1, 0, false, 9, "own share 1");
  TB_CHECK_EQ(b.out[kMember].size(), fill + left) << "the data, input 1's included; no release";
  TB_CHECK_EQ(epoch_of(b, kMlid), kE) << "phase 1 not heard";
  TB_CHECK_EQ(drops(b), 0U);
  TB_CHECK_EQ(b.count(kMinus0, 0, K::kDropBuf), 0U);
  check_no_cell_held(b, "hold waits");
}

// Arrivals of two members pending in the same cycle are decided together
// (partners, as in tree mode), on a one-phase entry (MLID 0xC006, members on
// ports 0 and 3; LEN 4, POS 1, PLUS 1, MINUS 2, ORIGIN, EXPECT {0}): one own
// share, no duplicate; origin 0 then completes, one release to each member.
SYNCFAB_TEST(switch_combine_ring4, partners) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC006;
  x.children = (1U << kMember) | (1U << kRing1);
  x.phases = 1;
  x.geo[0] =
      Geo{.origin = true, .plus = kPlus0, .minus = kMinus0, .pos = 1, .len = 4, .expect = 0x1};
  x.geo[1] = Geo{.valid = false};
  x.geo[2] = Geo{.valid = false};
  x.epoch = kE;
  program_ring(b, x);
  b.sw().enable(true);
  b.send(kMember, pkt(P{.type = kCombArrive, .mlid = x.mlid, .flow = 1}));
  b.send(kRing1, pkt(P{.type = kCombArrive, .mlid = x.mlid, .flow = 2}));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[kPlus0].size(), 1U) << "one own share";
  TB_CHECK_EQ(b.out[kMinus0].size(), 1U) << "one own share";
  const Marks m = mark(b);
  b.send(kMinus0, pkt(P{.type = kCombShare, .mlid = x.mlid, .flow = 3}));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "origin 0"), (1U << kPlus0) | kRelease | (1U << kRing1))
      << "the forward and the release to both members";
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE + 1);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "partners");
}

// Repairs (section 9.3): a share of E + 1 that comes before E completes is
// remembered; the member's re-sent arrival of E + 1 re-asks: the own shares
// of the phases reached go again (answer 0, ask PHASES); a first send of E
// (now E - 1 here, ask 0) is not answered; a share of E with ask >= 1 is
// answered with this switch's own share of E (answer 1, ask 0), after its
// forward when it has one; an answer is not answered; an arrival of E - 1
// gets the release of E - 1.
SYNCFAB_TEST(switch_combine_ring4, repairs) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  constexpr std::uint16_t kE1 = kE + 1;
  b.send(kMinus0, share(kE1, 0, 0, 1));  // E + 1's origin 0 first (remembered)
  send_all_shares(b, kE, 2);
  b.send(kMember, arrive(kE, 7));
  co_await b.drain(100);
  TB_CHECK_EQ(epoch_of(b, kMlid), kE1);
  TB_CHECK_EQ(b.out[kMember].size(), 1U) << "released E";
  // E + 1: the member and origin 2; phase 0 still lacks origin 3.
  b.send(kMember, arrive(kE1, 10));
  b.send(kPlus0, share(kE1, 0, 2, 11));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[kRing1].size(), 1U) << "E's own share 1 only";
  Marks m = mark(b);
  b.send(kMinus0, share(kE1, 0, 3, 12));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "phase 0 of E+1 heard"), kOwn1) << "origin 0 was remembered";
  check_made(b.out[kRing1].back(), kCombShare, kE1, 1, 0, false, 12, "own share 1 of E+1");
  // The member re-sends E + 1: both phases reached, both own shares again,
  // asking PHASES = 2 levels.
  m = mark(b);
  b.send(kMember, arrive(kE1, 14));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "re-sent arrival"), kOwn0 | kOwn1) << "own shares again";
  check_made(b.out[kPlus0].back(), kCombShare, kE1, 0, 1, false, 14, "own share 0 again", 2);
  check_made(b.out[kMinus0].back(), kCombShare, kE1, 0, 1, false, 14, "own share 0 again", 2);
  check_made(b.out[kRing1].back(), kCombShare, kE1, 1, 0, false, 14, "own share 1 again", 2);
  // A first send of E (ask 0): nothing was lost yet, no answer.
  m = mark(b);
  b.send(kMinus0, share(kE, 0, 3, 20));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-1 first send"), 0U) << "a first send is not answered";
  // Origin 3 asks (ask 1): answered in phase 0, to PLUS and MINUS.
  m = mark(b);
  b.send(kMinus0, share(kE, 0, 3, 15, false, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-1 request"), kOwn0) << "the answer";
  check_made(b.out[kPlus0].back(), kCombShare, kE, 0, 1, true, 15, "answer (PLUS)");
  check_made(b.out[kMinus0].back(), kCombShare, kE, 0, 1, true, 15, "answer (MINUS)");
  // Phase 1's origin asks: answered in phase 1.
  m = mark(b);
  b.send(kRing1, share(kE, 1, 1, 16, false, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-1 request, phase 1"), kOwn1);
  check_made(b.out[kRing1].back(), kCombShare, kE, 1, 0, true, 16, "answer, phase 1");
  // Origin 0 asks from MINUS, k = 1: forwarded unchanged (first take, a
  // fresh cell), then answered (retake).
  m = mark(b);
  b.send(kMinus0, share(kE, 0, 0, 17, false, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[kPlus0].size() - m.n[kPlus0], 2U) << "forward and answer on PLUS";
  TB_CHECK_EQ(b.out[kMinus0].size() - m.n[kMinus0], 1U) << "answer on MINUS";
  check_made(b.out[kPlus0].at(m.n[kPlus0]), kCombShare, kE, 0, 0, false, 17, "forward first", 3);
  check_made(b.out[kPlus0].at(m.n[kPlus0] + 1), kCombShare, kE, 0, 1, true, 17, "then the answer");
  // An answer (answer 1) is not answered.
  m = mark(b);
  b.send(kPlus0, share(kE, 0, 2, 18, true, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "answer received"), 0U);
  // The member missed release E: its arrival of E gets it again.
  m = mark(b);
  b.send(kMember, arrive(kE, 19));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-1 arrival"), kRelease);
  check_made(b.out[kMember].back(), kCombRelease, kE, 0, 0, false, 19, "re-sent release");
  TB_CHECK_EQ(epoch_of(b, kMlid), kE1);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "repairs");
}

// A switch without members (MLID 0xC004, no children, no MFT entry), stuck
// at E: phase 0 without ORIGIN (LEN 4, POS 1, PLUS 1, MINUS 2, EXPECT {0,
// 3}), phase 1 with ORIGIN (LEN 2, POS 0, PLUS = MINUS = 3, EXPECT {1}).
// A share of E with ask 1 only counts; one with ask 2 re-asks with ask 1
// (section 9.3): phase 0 is short, so a query of phase 0 goes out (member
// POS, ask 1); phase 1 is not done_0: no share. A share of E + 1 with ask 2
// re-asks too. Once phase 0 is heard the own share of phase 1 carries ask
// 1, and the entry completes (nothing to release to).
SYNCFAB_TEST(switch_combine_ring4, reask_on_share_memberless) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC004;
  x.phases = 2;
  x.geo[0] =
      Geo{.origin = false, .plus = kPlus0, .minus = kMinus0, .pos = 1, .len = 4, .expect = 0x9};
  x.geo[1] =
      Geo{.origin = true, .plus = kRing1, .minus = kRing1, .pos = 0, .len = 2, .expect = 0x2};
  x.geo[2] = Geo{.valid = false};
  x.epoch = kE;
  program_ring(b, x);
  b.sw().enable(true);
  auto sh = [&](std::uint16_t e, unsigned d, unsigned o, std::uint8_t ask, std::uint32_t flow) {
    return share_for(x.mlid, e, d, o, ask, flow);
  };
  auto made = [&](const RxPacket& g, std::uint16_t e, unsigned d, unsigned o, std::uint32_t flow,
                  std::uint8_t ask, const std::string& what) {
    check_made_for(x.mlid, g, kCombShare, e, d, o, false, flow, what, ask);
  };
  Marks m = mark(b);
  b.send(kRing1, sh(kE + 1, 1, 1, 1, 1));  // E + 1, ask 1: recorded for E + 1 only
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E+1 ask 1"), 0U) << "ask 1 re-asks nobody";
  m = mark(b);
  b.send(kRing1, sh(kE, 1, 1, 2, 2));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "ask 2"), kOwn0) << "the query of phase 0";
  made(b.out[kPlus0].back(), kE, 0, 1, 2, 1, "query of phase 0 (PLUS)");
  made(b.out[kMinus0].back(), kE, 0, 1, 2, 1, "query of phase 0 (MINUS)");
  m = mark(b);
  b.send(kRing1, sh(kE + 1, 1, 1, 2, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E+1 ask 2"), kOwn0) << "re-asks again";
  made(b.out[kPlus0].back(), kE, 0, 1, 3, 1, "query again (PLUS)");
  m = mark(b);
  b.send(kMinus0, sh(kE, 0, 0, 0, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "origin 0"), 1U << kPlus0) << "forwarded only";
  m = mark(b);
  b.send(kMinus0, sh(kE, 0, 3, 0, 5));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "origin 3"), kOwn1);
  made(b.out[kRing1].back(), kE, 1, 0, 5, 1, "own share 1 at level 1");
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE + 1) << "complete";
  // E + 1: phase 1 was heard early (the first share); phase 0 again.
  m = mark(b);
  b.send(kMinus0, sh(kE + 1, 0, 0, 0, 6));
  b.send(kMinus0, sh(kE + 1, 0, 3, 0, 7));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[kRing1].size() - m.n[kRing1], 1U) << "own share 1 of E+1";
  made(b.out[kRing1].back(), kE + 1, 1, 0, 7, 0, "own share 1 of E+1, level 0");
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE + 2) << "E+1 complete: its phase 1 share was remembered";
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "re-ask on a share");
}

// A query (section 9.3) on a one-phase entry (MLID 0xC005, the member on
// port 0; LEN 4, POS 1, PLUS 1, MINUS 2, ORIGIN, EXPECT {0}): a query of E
// from origin 3 (ask 1) is recorded by nobody and, the entry at E, not
// answered; once E completed, the same query is answered with the own share
// of E (answer 1, ask 0). A request of E - 2 is answered too (any epoch
// behind E), a share of E + 2 asking is not.
SYNCFAB_TEST(switch_combine_ring4, query_answered_after_completion) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC005;
  x.children = 1U << kMember;
  x.phases = 1;
  x.geo[0] =
      Geo{.origin = true, .plus = kPlus0, .minus = kMinus0, .pos = 1, .len = 4, .expect = 0x1};
  x.geo[1] = Geo{.valid = false};
  x.geo[2] = Geo{.valid = false};
  x.epoch = kE;
  program_ring(b, x);
  b.sw().enable(true);
  auto mk = [&](std::uint8_t type, std::uint16_t e, unsigned o, std::uint8_t ask,
                std::uint32_t flow) {
    return pkt(P{.type = type, .mlid = x.mlid, .epoch = e, .member = o, .ask = ask, .flow = flow});
  };
  auto answer = [&](std::uint16_t e, std::uint32_t flow) {
    return flit_of(hdr_of(P{.type = kCombShare,
                            .mlid = x.mlid,
                            .epoch = e,
                            .member = 1,
                            .answer = true,
                            .flow = flow,
                            .src = 0})
                       .bytes());
  };
  b.send(kMember, mk(kCombArrive, kE, 0, 0, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[kPlus0].size(), 1U) << "own share";
  Marks m = mark(b);
  b.send(kMinus0, mk(kCombShare, kE, 3, 1, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "query at E"), 0U) << "not recorded, not answered";
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE) << "a query completes nothing";
  m = mark(b);
  b.send(kMinus0, mk(kCombShare, kE, 0, 0, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "origin 0"), (1U << kPlus0) | kRelease) << "forward and release";
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE + 1);
  m = mark(b);
  b.send(kMinus0, mk(kCombShare, kE, 3, 1, 5));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "query after completion"), kOwn0);
  TB_CHECK(b.out[kPlus0].back().flits.at(0) == answer(kE, 5)) << "the answer (PLUS)";
  TB_CHECK(b.out[kMinus0].back().flits.at(0) == answer(kE, 5)) << "the answer (MINUS)";
  m = mark(b);
  constexpr auto kBehind = static_cast<std::uint16_t>(kE - 2);
  b.send(kMinus0, mk(kCombShare, kBehind, 3, 1, 6));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-2 request"), kOwn0);
  TB_CHECK(b.out[kPlus0].back().flits.at(0) == answer(kBehind, 6)) << "the answer of E - 2";
  m = mark(b);
  b.send(kMinus0, mk(kCombShare, static_cast<std::uint16_t>(kE + 3), 3, 1, 7));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E+2 request"), 0U) << "ahead, not behind: not answered";
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "query");
}

// A relay (no members, no EXPECT, no MFT entry): shares pass within their
// reach whatever their epoch; it never completes.
SYNCFAB_TEST(switch_combine_ring4, relay) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC002;
  x.phases = 1;
  x.geo[0] = Geo{.plus = 2, .minus = 3, .pos = 2, .len = 5};  // R+ = 2, R- = 2
  x.geo[1] = Geo{.valid = false};
  x.geo[2] = Geo{.valid = false};
  x.epoch = 0xFFFF;
  program_ring(b, x);
  b.sw().enable(true);
  auto sh = [](std::uint16_t e, unsigned o, std::uint32_t flow) {
    return pkt(P{.type = kCombShare, .mlid = 0xC002, .epoch = e, .member = o, .flow = flow});
  };
  b.send(3, sh(0x1234, 1, 1));  // +, k = 1: forwarded to PLUS
  b.send(2, sh(0xFFFF, 3, 2));  // -, k = 1: forwarded to MINUS
  b.send(3, sh(0, 0, 3));       // +, k = 2 = R+: end of reach
  b.send(2, sh(0, 4, 4));       // -, k = 2 = R-: end of reach
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[2].size(), 1U);
  TB_CHECK_EQ(b.out[3].size(), 1U);
  TB_CHECK_EQ(got_hdr(b.out[2][0]).flow_label(), 1U);
  TB_CHECK_EQ(got_hdr(b.out[2][0]).src_lid(), 0U);
  TB_CHECK_EQ(got_hdr(b.out[3][0]).flow_label(), 2U);
  TB_CHECK(b.out[0].empty() && b.out[1].empty());
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "relay");
}

// Every refusal of sections 9.2 and 9.3 that four ports can show is one
// DROP_NO_ROUTE at the input and the packet's priority, with no copy and no
// change to the entry.
SYNCFAB_TEST(switch_combine_ring4, drops) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  program_ring(b, two_phase_entry());
  struct Bad {
    const char* what;
    RingEntry x;
    bool no_mft = false;
  };
  std::vector<Bad> bad;
  auto base = [](std::uint16_t mlid) {
    RingEntry x;
    x.mlid = mlid;
    x.children = 1U << kMember;
    x.phases = 1;
    x.geo[0] =
        Geo{.origin = true, .plus = kPlus0, .minus = kMinus0, .pos = 1, .len = 4, .expect = 0x1};
    x.geo[1] = Geo{.valid = false};
    x.geo[2] = Geo{.valid = false};
    x.epoch = kE;
    return x;
  };
  std::uint16_t mlid = kMlid + 1;  // 0xC002 on: the 4-port switch has 16 MFT entries
  auto add = [&](const char* what, auto f, bool no_mft = false) {
    RingEntry x = base(mlid++);
    f(x);
    bad.push_back(Bad{what, x, no_mft});
  };
  add("PHASES 0", [](RingEntry& x) { x.phases = 0; });
  add("PLUS a child", [](RingEntry& x) { x.geo[0].plus = kMember; });
  add("MINUS a child", [](RingEntry& x) { x.geo[0].minus = kMember; });
  add("PLUS beyond the ports", [](RingEntry& x) { x.geo[0].plus = kPorts; });
  add("MINUS beyond the ports", [](RingEntry& x) { x.geo[0].minus = kPorts; });
  add("LEN 1", [](RingEntry& x) {
    x.geo[0].len = 1;
    x.geo[0].pos = 0;
    x.geo[0].expect = 0;
  });
  add("LEN 33", [](RingEntry& x) { x.geo[0].len = 33; });
  add("POS = LEN", [](RingEntry& x) { x.geo[0].pos = 4; });
  add("EXPECT beyond LEN", [](RingEntry& x) { x.geo[0].expect = 0x11; });
  add("EXPECT has POS", [](RingEntry& x) { x.geo[0].expect = 0x2; });
  add("second phase inconsistent", [](RingEntry& x) {
    x.phases = 2;
    x.geo[1] = Geo{.origin = true, .plus = kRing1, .minus = kRing1, .pos = 2, .len = 2};
  });
  add(
      "children without MFT entry", [](RingEntry&) {}, true);
  TB_CHECK(mlid <= 0xC00F) << "the bad entries fit the MFT";
  for (Bad& z : bad) {
    if (z.no_mft) {
      const unsigned idx = z.x.mlid - fmt::kMlidBase;
      tbl_write(b, kTblChildren, idx, z.x.children);
      tbl_write(b, kTblRing, idx * 4, geo_word(z.x.geo[0]));
      tbl_write(b, kTblExpect, idx * 4, z.x.geo[0].expect);
      tbl_write(b, kTblCtrl, idx, ring_ctrl(true, z.x.phases, z.x.epoch));
    } else {
      program_ring(b, z.x);
    }
  }
  sw.enable(true);
  for (Bad& z : bad) {
    const std::uint32_t before = b.count(kMember, kPrio, K::kDropNoRoute);
    b.send(kMember, pkt(P{.type = kCombArrive, .mlid = z.x.mlid, .flow = 1}));
    co_await b.drain(30);
    TB_CHECK_EQ(b.count(kMember, kPrio, K::kDropNoRoute) - before, 1U) << z.what;
  }
  struct Case {
    const char* what;
    unsigned in;
    P p;
  };
  const std::vector<Case> cases = {
      {"COMB_RELEASE in ring mode", kMember, P{.type = kCombRelease}},
      {"arrival from a port not a child", kPlus0, P{.type = kCombArrive}},
      {"arrival of E + 1", kMember, P{.type = kCombArrive, .epoch = kE + 1}},
      {"arrival of E - 2", kMember, P{.type = kCombArrive, .epoch = kE - 2}},
      {"share of phase >= PHASES", kMinus0, P{.type = kCombShare, .round = 2, .member = 0}},
      {"share of phase 3", kMinus0, P{.type = kCombShare, .round = 3, .member = 0}},
      {"share from a member's port", kMember, P{.type = kCombShare, .member = 0}},
      {"share from phase 1's port in phase 0", kRing1, P{.type = kCombShare, .member = 0}},
      {"share with origin = LEN", kMinus0, P{.type = kCombShare, .member = 4}},
      {"share with origin = POS", kMinus0, P{.type = kCombShare, .member = 1}},
      {"share beyond R- (phase 0, from PLUS, k = 2)", kPlus0, P{.type = kCombShare, .member = 3}},
      {"share beyond R+ (phase 0, from MINUS, k = 3)", kMinus0, P{.type = kCombShare, .member = 2}},
      {"share with origin = POS in phase 1", kRing1,
       P{.type = kCombShare, .round = 1, .member = 0}},
      {"share of a two-flit packet", kMinus0, P{.type = kCombShare, .member = 0, .len = 2}},
      {"share to an MLID without entry", kMinus0, P{.type = kCombShare, .mlid = 0xC00F}},
  };
  for (const Case& c : cases) {
    const std::uint32_t before = b.count(c.in, kPrio, K::kDropNoRoute);
    const Marks m = mark(b);
    b.send(c.in, pkt(c.p));
    co_await b.drain(30);
    TB_CHECK_EQ(b.count(c.in, kPrio, K::kDropNoRoute) - before, 1U) << c.what;
    TB_CHECK_EQ(new_ports(b, m, c.what), 0U) << c.what;
  }
  TB_CHECK_EQ(epoch_of(b, kMlid), kE);
  // The entry is unchanged: the barrier still needs everything.
  const Marks m = mark(b);
  b.send(kMember, arrive(kE, 50));
  co_await b.drain(30);
  TB_CHECK_EQ(new_ports(b, m, "the member after the drops"), kOwn0);
  check_no_cell_held(b, "drops");
}

// Seeded random arrivals and shares on the two-phase entry, starting next to
// the epoch wrap: valid ones near the entry's epoch, asking and answering
// ones, wrong ports, wrong epochs and out-of-reach origins, several inputs
// at once. Safety (section 9.5) is judged from the inputs only: a release
// of e leaves only after the member's arrival of e and every EXPECT position
// of both phases of e were received, with own shares of both phases made,
// once per epoch; an own share of (e, d) only after done_(d-1) for e; an
// answer only for a completed epoch (or the one before the programmed
// epoch). At the end no cell is held. --param rounds (default 60).
SYNCFAB_TEST(switch_combine_ring4, random_safety) {
  const auto rounds = static_cast<unsigned>(ctx.param("rounds", 60));
  std::cout << "  replay: --test switch_combine_ring4.random_safety --seed " << ctx.seed() << "\n";
  Bench b(ctx);
  co_await b.reset();
  RingEntry x = two_phase_entry();
  x.epoch = 0xFFFE;
  program_ring(b, x);
  b.sw().enable(true);
  auto& rng = ctx.rng();
  std::uniform_int_distribution<unsigned> pct(0, 99);
  std::uniform_int_distribution<int> de(-1, 2);
  struct Src {
    unsigned in;
    unsigned d;
    unsigned o;
  };
  const std::vector<Src> valid = {{kMinus0, 0, 0}, {kMinus0, 0, 3}, {kPlus0, 0, 2}, {kRing1, 1, 1}};
  struct Rx {
    std::uint64_t cycle;
    P p;
    unsigned in;
  };
  std::vector<std::vector<P>> sent(kPorts);
  std::uint16_t e_now = x.epoch;
  std::uint32_t flow = 0;
  for (unsigned k = 0; k < rounds; ++k) {
    const unsigned burst = 1 + pct(rng) % 5;
    for (unsigned j = 0; j < burst; ++j) {
      const int off = pct(rng) < 60 ? 0 : de(rng);
      P p{.epoch = static_cast<std::uint16_t>(e_now + off), .prio = kPrio, .flow = ++flow};
      unsigned in = kMember;
      const unsigned c = pct(rng);
      if (c < 30) {
        p.type = kCombArrive;
      } else if (c < 85) {
        const Src& s = valid.at(pct(rng) % valid.size());
        p.type = kCombShare;
        p.round = s.d;
        p.member = s.o;
        p.answer = pct(rng) < 10;
        p.ask = static_cast<std::uint8_t>(pct(rng) % 4);
        in = s.in;
      } else {
        p.type = pct(rng) < 50 ? kCombShare : kCombArrive;
        p.round = pct(rng) % 3;
        p.member = pct(rng) % 5;
        in = pct(rng) % kPorts;
      }
      sent.at(in).push_back(p);
      b.send(in, pkt(p));
    }
    co_await b.drain(40);
    for (const RxPacket& g : b.out[kMember]) {
      const auto e1 = static_cast<std::uint16_t>(got_hdr(g).epoch() + 1);
      if (static_cast<std::int16_t>(e1 - e_now) > 0) {
        e_now = e1;
      }
    }
  }
  std::vector<Rx> rx;
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(sent.at(p).size(), b.rx_last_cycle.at(p).size()) << "port " << p;
    for (std::size_t i = 0; i < sent.at(p).size(); ++i) {
      rx.push_back(Rx{b.rx_last_cycle.at(p).at(i), sent.at(p).at(i), p});
    }
  }
  auto arrived = [&](std::uint16_t e, std::uint64_t t) {
    return std::any_of(rx.begin(), rx.end(), [&](const Rx& z) {
      return z.cycle < t && z.in == kMember && z.p.type == kCombArrive && z.p.epoch == e;
    });
  };
  auto heard = [&](const Src& s, std::uint16_t e, std::uint64_t t) {
    return std::any_of(rx.begin(), rx.end(), [&](const Rx& z) {
      return z.cycle < t && z.in == s.in && z.p.type == kCombShare && z.p.epoch == e &&
             z.p.round == s.d && z.p.member == s.o && z.p.len == 1;
    });
  };
  auto done = [&](int d, std::uint16_t e, std::uint64_t t) {
    bool ok = arrived(e, t);
    for (const Src& s : valid) {
      if (static_cast<int>(s.d) <= d) {
        ok = ok && heard(s, e, t);
      }
    }
    return ok;
  };
  // Own shares (member = POS, answer 0), per (e, d): first tx. Phase 0's
  // leave by PLUS (port 1) and phase 1's by port 3.
  std::map<std::pair<std::uint16_t, unsigned>, std::uint64_t> own;
  std::set<std::uint16_t> answered;
  unsigned n_own = 0;
  for (unsigned d = 0; d < 2; ++d) {
    const unsigned out = d == 0 ? kPlus0 : kRing1;
    const unsigned pos = d == 0 ? 1 : 0;
    for (const RxPacket& g : b.out.at(out)) {
      const fmt::PktHdr h = got_hdr(g);
      if (h.pkt_type() != fmt::PktType::kCombShare || h.member() != pos || h.round() != d) {
        continue;
      }
      if (h.answer()) {
        answered.insert(h.epoch());
        continue;
      }
      ++n_own;
      TB_CHECK(done(static_cast<int>(d) - 1, h.epoch(), g.first_cycle))
          << "own share of phase " << d << " for " << h.epoch() << " at " << g.first_cycle
          << " before done_" << static_cast<int>(d) - 1;
      own.try_emplace({h.epoch(), d}, g.first_cycle);
    }
  }
  // Releases: a completion is the first release of an epoch that follows
  // the epoch's every input; later ones of the same epoch are re-sends
  // (an arrival of E - 1).
  std::set<std::uint16_t> completed;
  const auto before_first = static_cast<std::uint16_t>(x.epoch - 1);
  completed.insert(before_first);
  unsigned n_rel = 0;
  for (const RxPacket& g : b.out[kMember]) {
    const fmt::PktHdr h = got_hdr(g);
    TB_CHECK(h.pkt_type() == fmt::PktType::kCombRelease) << "the member gets only releases";
    if (completed.count(h.epoch()) == 1) {
      continue;  // a re-send
    }
    completed.insert(h.epoch());
    ++n_rel;
    TB_CHECK(done(1, h.epoch(), g.first_cycle))
        << "release of " << h.epoch() << " at " << g.first_cycle << " before complete";
    TB_CHECK(own.count({h.epoch(), 0}) == 1) << "release of " << h.epoch() << " without share 0";
    TB_CHECK(own.count({h.epoch(), 1}) == 1) << "release of " << h.epoch() << " without share 1";
  }
  for (const std::uint16_t e : answered) {
    TB_CHECK(completed.count(e) == 1) << "answer of " << e << " that was never completed";
  }
  check_no_cell_held(b, "random");
  std::cout << "  " << flow << " packets: " << n_rel << " barriers released, " << n_own
            << " own shares, " << answered.size() << " epochs answered, " << drops(b)
            << " refused\n";
}
