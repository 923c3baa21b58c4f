// Ring mode of the switch's combine unit (rtl/switch/switch_combine.sv,
// docs/group-barrier.md section 9) on one 8-port switch (vl_switch_top8),
// driven directly: raw TBL_* writes for the combine and ring tables, and
// COMB_ARRIVE / COMB_SHARE packets as the member NICs and the ring
// neighbours would send them. Expected results are worked out by hand from
// sections 9.2 to 9.4; the rule is named next to each check.
//
// The entry of most cases (MLID 0xC001, index 1), a switch at E = 10 with
// two members on ports 0 and 1 and two phases:
//   phase 0: LEN 4, POS 1, PLUS port 2, MINUS port 3, ORIGIN, EXPECT {0, 2, 3};
//            R+ = 2, R- = 1: the own share goes to ports 2 and 3.
//   phase 1: LEN 3, POS 0, PLUS port 4, MINUS port 5, ORIGIN, EXPECT {1, 2};
//            R+ = 1, R- = 1: the own share goes to ports 4 and 5.
// A share reaches this switch travelling + from MINUS (distance
// k = (POS - o) mod LEN) or travelling - from PLUS (k = (o - POS) mod LEN).
#include <Vswitch_top.h>
#include <Vswitch_top___024root.h>

#include <algorithm>
#include <array>
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
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_top_bench;
using namespace syncfab::tb::switch_combine_ring;
namespace hw = syncfab::hw;
namespace fmt = syncfab::fmt;
namespace r = syncfab::hw::switch_regs;

static_assert(kPorts == 8, "built with SF_SWITCH_TOP8 against vl_switch_top8");

namespace {

// The entry of most cases (see the top of the file).
RingEntry two_phase_entry() {
  RingEntry x;
  x.children = 0x3;
  x.phases = 2;
  x.geo[0] = Geo{.origin = true, .plus = 2, .minus = 3, .pos = 1, .len = 4, .expect = 0xD};
  x.geo[1] = Geo{.origin = true, .plus = 4, .minus = 5, .pos = 0, .len = 3, .expect = 0x6};
  x.geo[2] = Geo{.valid = false};
  x.epoch = kE;
  return x;
}

}  // namespace

// VERSION.MINOR 3; TABLE 4 and 5 (switch_csr.rdl): the ring words and the
// control word's RING and PHASES read back; the index is (MLID - MLID_BASE)
// * 4 + phase, so its limit is MFT_ENTRIES * 4 (one past it raises
// TBL_ERROR, the last one does not); a phase-3 word holds nothing; a
// geometry word with VALID 0 reads 0.
SYNCFAB_TEST(switch_combine_ring, tables) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  TB_CHECK((hw::Csr(b.dev).read(r::VERSION) & 0xFFFFU) >= 3U) << "VERSION.MINOR 3: ring mode";
  const Geo g{.origin = true, .plus = 6, .minus = 7, .pos = 17, .len = 32};
  tbl_write(b, kTblRing, 5 * 4 + 2, geo_word(g));
  tbl_write(b, kTblExpect, 5 * 4 + 2, 0x8001'0000U);
  TB_CHECK_EQ(tbl_read(b, kTblRing, 5 * 4 + 2), geo_word(g));
  TB_CHECK_EQ(tbl_read(b, kTblExpect, 5 * 4 + 2), 0x8001'0000U);
  TB_CHECK_EQ(tbl_read(b, kTblRing, 5 * 4 + 1), 0U) << "never written";
  tbl_write(b, kTblRing, 5 * 4 + 3, geo_word(g));
  tbl_write(b, kTblExpect, 5 * 4 + 3, 0x1234U);
  TB_CHECK_EQ(tbl_read(b, kTblRing, 5 * 4 + 3), 0U) << "phase 3: no word";
  TB_CHECK_EQ(tbl_read(b, kTblExpect, 5 * 4 + 3), 0U) << "phase 3: no word";
  tbl_write(b, kTblRing, 5 * 4 + 2, geo_word(Geo{.valid = false, .plus = 1}));
  TB_CHECK_EQ(tbl_read(b, kTblRing, 5 * 4 + 2), 0U) << "VALID 0 reads as unprogrammed";
  tbl_write(b, kTblCtrl, 5, ring_ctrl(true, 3, 0x1234));
  TB_CHECK_EQ(tbl_read(b, kTblCtrl, 5), ring_ctrl(true, 3, 0x1234));
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, 0U);
  tbl_write(b, kTblRing, kMftEntries * 4 - 1, geo_word(g));
  tbl_write(b, kTblExpect, kMftEntries * 4 - 1, 1);
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, 0U) << "the last ring index is in range";
  tbl_write(b, kTblRing, kMftEntries * 4, geo_word(g));
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, kIntrTblError) << "TABLE 4 past 4 * MFT";
  sw.clear_interrupts(kIntrTblError);
  (void)tbl_read(b, kTblExpect, kMftEntries * 4 + 7);
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, kIntrTblError) << "TABLE 5 past 4 * MFT";
  sw.clear_interrupts(kIntrTblError);
  tbl_write(b, 7, 0, 1);
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, kIntrTblError) << "TABLE 7 does not exist";
}

// One barrier through the entry, step by step (sections 9.3, 9.4): shares
// heard before done_-1 are only recorded (and forwarded within reach); the
// own share of phase 0 leaves to PLUS and MINUS with the last member's
// arrival, that of phase 1 only when phase 0's EXPECT is heard, the release
// to both members only when phase 1's is; E advances.
SYNCFAB_TEST(switch_combine_ring, barrier_step_by_step) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  // Member 0 arrives: absorbed (A = {0}, done_-1 not yet).
  Marks m = mark(b);
  b.send(0, arrive(kE, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "arrive 0"), 0U) << "absorbed";
  // Share (E, 0, o=0) from MINUS: travelling +, k = 1 <= R+ = 2, forwarded
  // (k + 1 = 2 <= 2) to PLUS unchanged but src_lid; recorded.
  m = mark(b);
  b.send(3, share(kE, 0, 0, 2));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share o=0"), 1U << 2) << "forwarded to PLUS only";
  check_made(b.out[2].back(), kCombShare, kE, 0, 0, false, 2, "forwarded share");
  // Member 1 arrives: A = children, the own share of phase 0 (E, round 0,
  // member POS 1, answer 0) to PLUS and MINUS; phase 1 waits for phase 0.
  m = mark(b);
  b.send(1, arrive(kE, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "arrive 1"), (1U << 2) | (1U << 3)) << "own share of phase 0";
  check_made(b.out[2].back(), kCombShare, kE, 0, 1, false, 3, "own share 0 on PLUS");
  check_made(b.out[3].back(), kCombShare, kE, 0, 1, false, 3, "own share 0 on MINUS");
  // Share (E, 0, o=2) from PLUS: travelling -, k = 1 = R-: recorded, not
  // forwarded.
  m = mark(b);
  b.send(2, share(kE, 0, 2, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share o=2"), 0U) << "end of its reach";
  // Share (E, 0, o=3) from MINUS: travelling +, k = 2 = R+: recorded; phase
  // 0 is heard, so done_0: the own share of phase 1 to ports 4 and 5.
  m = mark(b);
  b.send(3, share(kE, 0, 3, 5));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share o=3"), (1U << 4) | (1U << 5)) << "own share of phase 1";
  check_made(b.out[4].back(), kCombShare, kE, 1, 0, false, 5, "own share 1 on PLUS");
  check_made(b.out[5].back(), kCombShare, kE, 1, 0, false, 5, "own share 1 on MINUS");
  // Share (E, 1, o=1) from PLUS_1: travelling -, k = 1 = R-: recorded; not
  // complete yet (position 2 missing): no release.
  m = mark(b);
  b.send(4, share(kE, 1, 1, 6));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share 1 o=1"), 0U) << "no release before complete";
  TB_CHECK_EQ(epoch_of(b, kMlid), kE);
  // Share (E, 1, o=2) from MINUS_1: travelling +, k = 1 = R+: complete:
  // COMB_RELEASE(E) to both members (round, member, answer 0); E + 1.
  m = mark(b);
  b.send(5, share(kE, 1, 2, 7));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share 1 o=2"), 0x3U) << "the release to the members";
  check_made(b.out[0].back(), kCombRelease, kE, 0, 0, false, 7, "release to member 0");
  check_made(b.out[1].back(), kCombRelease, kE, 0, 0, false, 7, "release to member 1");
  TB_CHECK_EQ(epoch_of(b, kMlid), kE + 1);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "barrier");
}

// Holds (section 9.4): with every share of E heard before the members
// arrive, the last arrival makes three emissions, one per engine take, in
// the pending order (own share 0, own share 1, release): the first two
// takes hold the packet and write their emission into a fresh cell of
// input 1, the third pops it and writes its own cell. The emissions leave
// one engine cycle apart, and every cell comes back.
SYNCFAB_TEST(switch_combine_ring, hold_three_emissions) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  b.send(3, share(kE, 0, 0, 1));
  b.send(2, share(kE, 0, 2, 2));
  b.send(3, share(kE, 0, 3, 3));
  b.send(4, share(kE, 1, 1, 4));
  b.send(5, share(kE, 1, 2, 5));
  b.send(0, arrive(kE, 6));
  co_await b.drain(60);
  Marks m = mark(b);
  TB_CHECK_EQ(b.out[2].size(), 1U) << "only the forward of o=0 so far";
  b.send(1, arrive(kE, 7));
  co_await b.drain(100);
  TB_CHECK_EQ(new_ports(b, m, "last arrival"), 0x3FU) << "shares 0 and 1 and the release";
  check_made(b.out[2].back(), kCombShare, kE, 0, 1, false, 7, "own share 0 (PLUS)");
  check_made(b.out[3].back(), kCombShare, kE, 0, 1, false, 7, "own share 0 (MINUS)");
  check_made(b.out[4].back(), kCombShare, kE, 1, 0, false, 7, "own share 1 (PLUS)");
  check_made(b.out[5].back(), kCombShare, kE, 1, 0, false, 7, "own share 1 (MINUS)");
  check_made(b.out[0].back(), kCombRelease, kE, 0, 0, false, 7, "release (member 0)");
  check_made(b.out[1].back(), kCombRelease, kE, 0, 0, false, 7, "release (member 1)");
  const std::uint64_t t0 = b.out[2].back().first_cycle;
  const std::uint64_t t1 = b.out[4].back().first_cycle;
  const std::uint64_t t2 = b.out[0].back().first_cycle;
  TB_CHECK_EQ(b.out[3].back().first_cycle, t0) << "one emission's copies leave together";
  TB_CHECK_EQ(b.out[5].back().first_cycle, t1);
  TB_CHECK_EQ(b.out[1].back().first_cycle, t2);
  TB_CHECK_EQ(t1, t0 + 1) << "one emission per take, one take per cycle";
  TB_CHECK_EQ(t2, t1 + 1) << "one emission per take, one take per cycle";
  std::cout << "switch_combine_ring.hold_three_emissions: last arrival's last rx flit to the "
               "release's first tx flit "
            << t2 - b.rx_last_cycle[1].back() << " cycles\n";
  TB_CHECK_EQ(epoch_of(b, kMlid), kE + 1);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "holds");
}

// A packet with a copy of its own (a forward) and a pending emission: the
// first take emits the forward into a fresh cell and holds; the retake
// emits the own share into the packet's cell. With input 3's buffer full
// (data to a held port) the holding take would need a cell that is not
// there: the engine does not take it (section 9.4) and serves input 6's
// data meanwhile; once the data leaves, the share goes through, nothing is
// dropped and every cell comes back.
SYNCFAB_TEST(switch_combine_ring, hold_waits_for_a_cell) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  program_ring(b, two_phase_entry());
  sw.set_lft(0x40, 7);
  sw.enable(true);
  // A = children and phase 0 needs only o = 0: own share 0 sent.
  b.send(2, share(kE, 0, 2, 1));
  b.send(3, share(kE, 0, 3, 2));
  b.send(0, arrive(kE, 3));
  b.send(1, arrive(kE, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[2].size(), 1U);
  TB_CHECK_EQ(b.out[4].size(), 0U) << "phase 1 waits for o=0";
  // Fill input 3's buffer but one cell: 51 five-flit packets to port 7, held.
  b.hold_tx(7, true);
  for (unsigned k = 0; k < 51; ++k) {
    b.send(3, make_packet(Hdr{.len = 5, .dst = 0x40, .prio = 0, .flow = 100 + k}));
  }
  co_await b.drain(20);
  TB_CHECK_EQ(free_cells(b).at(3), 1U) << "one cell left";
  const Marks m = mark(b);
  b.send(3, share(kE, 0, 0, 9));  // takes the last cell
  b.send(6, make_packet(Hdr{.len = 1, .dst = 0x40, .prio = 0, .flow = 900}));
  co_await b.drain(60);
  TB_CHECK_EQ(free_cells(b).at(3), 0U);
  TB_CHECK_EQ(new_ports(b, m, "share with no free cell"), 0U) << "not taken: no fresh cell";
  b.hold_tx(7, false);
  co_await b.drain(600);
  for (unsigned p = 0; p < 7; ++p) {
    const std::size_t want = (p == 2 || p == 4 || p == 5) ? 1 : 0;  // forward, own share 1
    TB_CHECK_EQ(b.out.at(p).size() - m.n.at(p), want) << "after the data left, port " << p;
  }
  check_made(b.out[2].back(), kCombShare, kE, 0, 0, false, 9, "forward");
  check_made(b.out[4].back(), kCombShare, kE, 1, 0, false, 9, "own share 1");
  TB_CHECK_EQ(b.out[7].size(), 52U) << "the data, input 6's included";
  TB_CHECK_EQ(drops(b), 0U);
  TB_CHECK_EQ(b.count(3, 0, K::kDropBuf), 0U);
  check_no_cell_held(b, "hold waits");
}

// Arrivals of both members pending in the same cycle are decided together
// (partners, as in tree mode): one own share of phase 0, no duplicate.
SYNCFAB_TEST(switch_combine_ring, partners) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  b.send(0, arrive(kE, 1));
  b.send(1, arrive(kE, 2));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[2].size(), 1U) << "one own share of phase 0";
  TB_CHECK_EQ(b.out[3].size(), 1U);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "partners");
}

// Repairs (section 9.3): a share of E + 1 that comes before E completes is
// remembered; after E completes, a member's re-sent arrival of E + 1
// re-asks: the own shares of the phases reached go again (answer 0, ask
// PHASES); a first send of E (now E - 1 here, ask 0) is only forwarded; a
// share of E with answer 0 and ask >= 1 is forwarded and answered with
// this switch's own share of E, answer 1, ask 0; an answer is not answered;
// an arrival of E - 1 gets the release of E - 1 on its port only.
SYNCFAB_TEST(switch_combine_ring, repairs) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  constexpr std::uint16_t kE1 = kE + 1;
  // E + 1's position 0 of phase 0 first (forwarded, remembered).
  b.send(3, share(kE1, 0, 0, 1));
  // All of E.
  b.send(3, share(kE, 0, 0, 2));
  b.send(2, share(kE, 0, 2, 3));
  b.send(3, share(kE, 0, 3, 4));
  b.send(4, share(kE, 1, 1, 5));
  b.send(5, share(kE, 1, 2, 6));
  b.send(0, arrive(kE, 7));
  b.send(1, arrive(kE, 8));
  co_await b.drain(100);
  TB_CHECK_EQ(epoch_of(b, kMlid), kE1);
  TB_CHECK_EQ(b.out[0].size(), 1U) << "released E";
  // E + 1: members arrive; positions 2 and 3 of phase 0 suffice (0 was
  // remembered): the own share of phase 1 goes out.
  b.send(0, arrive(kE1, 10));
  b.send(1, arrive(kE1, 11));
  b.send(2, share(kE1, 0, 2, 12));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[4].size(), 1U)
      << "phase 0 of E+1 still lacks position 3 (E's own share 1 only)";
  Marks m = mark(b);
  b.send(3, share(kE1, 0, 3, 13));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "phase 0 of E+1 heard"), (1U << 4) | (1U << 5))
      << "E+1's position 0 was remembered";
  check_made(b.out[4].back(), kCombShare, kE1, 1, 0, false, 13, "own share 1 of E+1");
  // Member 0 re-sends E + 1: both phases are reached, both own shares again,
  // asking PHASES = 2 levels.
  m = mark(b);
  b.send(0, arrive(kE1, 14));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "re-sent arrival"), 0x3CU) << "own shares 0 and 1 again";
  check_made(b.out[2].back(), kCombShare, kE1, 0, 1, false, 14, "own share 0 again", 2);
  check_made(b.out[3].back(), kCombShare, kE1, 0, 1, false, 14, "own share 0 again (MINUS)", 2);
  check_made(b.out[4].back(), kCombShare, kE1, 1, 0, false, 14, "own share 1 again (PLUS)", 2);
  check_made(b.out[5].back(), kCombShare, kE1, 1, 0, false, 14, "own share 1 again", 2);
  // A first send of E (now E - 1 here; ask 0) from position 3 of phase 0
  // (from MINUS, k = 2: not forwarded): nothing was lost yet, no answer.
  m = mark(b);
  b.send(3, share(kE, 0, 3, 20));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-1 first send"), 0U) << "a first send is not answered";
  // Position 3 asks (answer 0, ask 1): answered with the own share of E,
  // answer 1, ask 0, to PLUS and MINUS.
  m = mark(b);
  b.send(3, share(kE, 0, 3, 15, false, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-1 request"), (1U << 2) | (1U << 3)) << "the answer";
  check_made(b.out[2].back(), kCombShare, kE, 0, 1, true, 15, "answer on PLUS");
  check_made(b.out[3].back(), kCombShare, kE, 0, 1, true, 15, "answer on MINUS");
  // Position 0 at E asks from MINUS, k = 1: forwarded unchanged (first take,
  // a fresh cell) and answered (retake).
  m = mark(b);
  b.send(3, share(kE, 0, 0, 16, false, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[2].size() - m.n[2], 2U) << "forward and answer on PLUS";
  TB_CHECK_EQ(b.out[3].size() - m.n[3], 1U) << "answer on MINUS";
  check_made(b.out[2].at(m.n[2]), kCombShare, kE, 0, 0, false, 16, "forward first", 3);
  check_made(b.out[2].at(m.n[2] + 1), kCombShare, kE, 0, 1, true, 16, "then the answer");
  // An answer (answer 1) of E is not answered.
  m = mark(b);
  b.send(2, share(kE, 0, 2, 17, true, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "answer received"), 0U);
  // Member 1 missed release E: its arrival of E gets it on port 1 only.
  m = mark(b);
  b.send(1, arrive(kE, 18));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-1 arrival"), 1U << 1);
  check_made(b.out[1].back(), kCombRelease, kE, 0, 0, false, 18, "re-sent release");
  TB_CHECK_EQ(epoch_of(b, kMlid), kE1);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "repairs");
}

// A member's re-sent arrival re-asks (section 9.3, re-ask(PHASES)) on a
// three-phase entry (MLID 0xC003) whose phase 1 has no ORIGIN:
//   phase 0: LEN 4, POS 1, PLUS 2, MINUS 3, ORIGIN, EXPECT {0};
//   phase 1: LEN 3, POS 0, PLUS 4, MINUS 5, no ORIGIN, EXPECT {1, 2};
//   phase 2: LEN 2, POS 0, PLUS = MINUS = 6, ORIGIN, EXPECT {1}.
// With done_0 and phase 1 short, the re-send sends the own share of phase 0
// again and a query of phase 1 (epoch E, member POS_1, answer 0), both with
// ask PHASES = 3; phase 2 (ORIGIN without done_1) sends nothing. The entry
// keeps level 3: its first send of phase 2 carries ask 3 too; completion
// clears it (E + 1's first share has ask 0).
SYNCFAB_TEST(switch_combine_ring, reask_on_resent_arrival) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC003;
  x.children = 0x3;
  x.phases = 3;
  x.geo[0] = Geo{.origin = true, .plus = 2, .minus = 3, .pos = 1, .len = 4, .expect = 0x1};
  x.geo[1] = Geo{.origin = false, .plus = 4, .minus = 5, .pos = 0, .len = 3, .expect = 0x6};
  x.geo[2] = Geo{.origin = true, .plus = 6, .minus = 6, .pos = 0, .len = 2, .expect = 0x2};
  x.epoch = kE;
  program_ring(b, x);
  b.sw().enable(true);
  auto mk = [&](std::uint8_t type, std::uint16_t e, unsigned d, unsigned o, std::uint32_t flow) {
    return pkt(P{.type = type, .mlid = x.mlid, .epoch = e, .round = d, .member = o, .flow = flow});
  };
  auto made = [&](const RxPacket& g, std::uint8_t type, std::uint16_t e, unsigned d, unsigned o,
                  std::uint32_t flow, std::uint8_t ask, const std::string& what) {
    P want{.type = type,
           .mlid = x.mlid,
           .epoch = e,
           .round = d,
           .member = o,
           .ask = ask,
           .flow = flow,
           .src = 0};
    TB_CHECK(g.flits.at(0) == flit_of(hdr_of(want).bytes()))
        << what << ": ask " << unsigned{got_hdr(g).ask()} << ", epoch " << got_hdr(g).epoch()
        << ", round " << unsigned{got_hdr(g).round()};
  };
  // Both members: the own share of phase 0, a first send (ask 0).
  Marks m = mark(b);
  b.send(0, mk(kCombArrive, kE, 0, 0, 1));
  b.send(1, mk(kCombArrive, kE, 0, 0, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "arrivals"), (1U << 2) | (1U << 3));
  made(b.out[2].back(), kCombShare, kE, 0, 1, 1, 0, "first own share 0");
  // Position 0 of phase 0 (from MINUS, k = 1, forwarded): done_0; phase 1
  // is short, so phase 2 waits.
  m = mark(b);
  b.send(3, mk(kCombShare, kE, 0, 0, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "share 0"), 1U << 2) << "forwarded only";
  // Member 0 re-sends: own share 0 again and the query of phase 1, ask 3.
  m = mark(b);
  b.send(0, mk(kCombArrive, kE, 0, 0, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "re-sent arrival"), 0x3CU) << "own share 0 and query 1";
  made(b.out[2].back(), kCombShare, kE, 0, 1, 4, 3, "own share 0 again (PLUS)");
  made(b.out[3].back(), kCombShare, kE, 0, 1, 4, 3, "own share 0 again (MINUS)");
  made(b.out[4].back(), kCombShare, kE, 1, 0, 4, 3, "query of phase 1 (PLUS)");
  made(b.out[5].back(), kCombShare, kE, 1, 0, 4, 3, "query of phase 1 (MINUS)");
  TB_CHECK(b.out[6].empty()) << "phase 2 has ORIGIN but not done_1: nothing";
  // Phase 1 heard: done_1, the own share of phase 2 (R- = 0: PLUS only)
  // with the entry's level 3.
  m = mark(b);
  b.send(4, mk(kCombShare, kE, 1, 1, 5));
  b.send(5, mk(kCombShare, kE, 1, 2, 6));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "phase 1 heard"), 1U << 6);
  made(b.out[6].back(), kCombShare, kE, 2, 0, 6, 3, "own share 2 at level 3");
  // Phase 2 heard: the release; E + 1 starts at level 0.
  m = mark(b);
  b.send(6, mk(kCombShare, kE, 2, 1, 7));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "complete"), 0x3U);
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE + 1);
  m = mark(b);
  b.send(0, mk(kCombArrive, kE + 1, 0, 0, 8));
  b.send(1, mk(kCombArrive, kE + 1, 0, 0, 8));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E+1 arrivals"), (1U << 2) | (1U << 3));
  made(b.out[2].back(), kCombShare, kE + 1, 0, 1, 8, 0, "E+1's first send: ask 0");
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "re-ask on a re-sent arrival");
}

// A switch without members (MLID 0xC004, no children, no MFT entry), stuck
// at E: phase 0 without ORIGIN (LEN 4, POS 1, PLUS 2, MINUS 3, EXPECT {0,
// 3}), phase 1 with ORIGIN (LEN 3, POS 0, PLUS 4, MINUS 5, EXPECT {1, 2}).
// A share of E with ask 1 only counts; one with ask 2 re-asks with ask 1
// (section 9.3): phase 0 is short, so a query of phase 0 goes out with ask
// 1; phase 1 is not done_0: no share. A share of E + 1 with ask 2 re-asks
// too. Once phase 0 is heard the own share of phase 1 carries ask 1, and
// the entry completes (nothing to release to).
SYNCFAB_TEST(switch_combine_ring, reask_on_share_memberless) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC004;
  x.phases = 2;
  x.geo[0] = Geo{.origin = false, .plus = 2, .minus = 3, .pos = 1, .len = 4, .expect = 0x9};
  x.geo[1] = Geo{.origin = true, .plus = 4, .minus = 5, .pos = 0, .len = 3, .expect = 0x6};
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
  // Phase 1, position 1 (from PLUS, k = 1 = R-), ask 1: recorded only.
  Marks m = mark(b);
  b.send(4, sh(kE, 1, 1, 1, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "ask 1"), 0U) << "ask 1 re-asks nobody";
  // Phase 1, position 2 (from MINUS, k = 1 = R+), ask 2: re-ask(1).
  m = mark(b);
  b.send(5, sh(kE, 1, 2, 2, 2));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "ask 2"), (1U << 2) | (1U << 3)) << "the query of phase 0";
  made(b.out[2].back(), kE, 0, 1, 2, 1, "query of phase 0 (PLUS)");
  made(b.out[3].back(), kE, 0, 1, 2, 1, "query of phase 0 (MINUS)");
  // A share of E + 1 with ask 2: this switch, still at E, re-asks again.
  m = mark(b);
  b.send(4, sh(kE + 1, 1, 1, 2, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E+1 ask 2"), (1U << 2) | (1U << 3));
  made(b.out[2].back(), kE, 0, 1, 3, 1, "query again (PLUS)");
  // Phase 0: position 0 (k = 1, forwarded), then position 3 (k = 2 = R+):
  // done_0, the own share of phase 1 at level 1, then the completion.
  m = mark(b);
  b.send(3, sh(kE, 0, 0, 0, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "position 0"), 1U << 2) << "forwarded only";
  m = mark(b);
  b.send(3, sh(kE, 0, 3, 0, 5));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "position 3"), (1U << 4) | (1U << 5));
  made(b.out[4].back(), kE, 1, 0, 5, 1, "own share 1 at level 1 (PLUS)");
  made(b.out[5].back(), kE, 1, 0, 5, 1, "own share 1 at level 1 (MINUS)");
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE + 1) << "complete";
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "re-ask on a share");
}

// Answers for any epoch behind E (section 9.3), on the two-phase entry at
// E: a request (answer 0, ask 1) of E - 2 is answered with the own share of
// E - 2 (answer 1, ask 0), in phase 0 and phase 1; a first send of E - 1
// (ask 0) is not; a share of E + 2 (ahead, not behind) asking is not
// either.
SYNCFAB_TEST(switch_combine_ring, answer_two_behind) {
  Bench b(ctx);
  co_await b.reset();
  program_ring(b, two_phase_entry());
  b.sw().enable(true);
  constexpr auto kE2 = static_cast<std::uint16_t>(kE - 2);
  // Phase 0, position 3 (from MINUS, k = 2 = R+: not forwarded).
  Marks m = mark(b);
  b.send(3, share(kE2, 0, 3, 1, false, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-2 request, phase 0"), (1U << 2) | (1U << 3));
  check_made(b.out[2].back(), kCombShare, kE2, 0, 1, true, 1, "answer of E-2 (PLUS)");
  check_made(b.out[3].back(), kCombShare, kE2, 0, 1, true, 1, "answer of E-2 (MINUS)");
  // Phase 1, position 2 (from MINUS_1, k = 1 = R+).
  m = mark(b);
  b.send(5, share(kE2, 1, 2, 2, false, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "E-2 request, phase 1"), (1U << 4) | (1U << 5));
  check_made(b.out[4].back(), kCombShare, kE2, 1, 0, true, 2, "answer of E-2, phase 1");
  // Not answered: a first send of E - 1; an asking share of E + 2.
  m = mark(b);
  b.send(3, share(kE - 1, 0, 3, 3));
  b.send(3, share(kE + 2, 0, 3, 4, false, 1));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "not behind or not asking"), 0U);
  TB_CHECK_EQ(epoch_of(b, kMlid), kE);
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "answers behind");
}

// A query (section 9.3) on a one-phase entry (MLID 0xC005, members on 0
// and 1; LEN 4, POS 1, PLUS 2, MINUS 3, ORIGIN, EXPECT {0}: positions 2 and
// 3 send no share): a query of E from position 3 (ask 1) is recorded by
// nobody (the barrier still waits for position 0) and, the entry at E, not
// answered; once E completed, the same query is answered with the own
// share of E (answer 1, ask 0).
SYNCFAB_TEST(switch_combine_ring, query_answered_after_completion) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC005;
  x.children = 0x3;
  x.phases = 1;
  x.geo[0] = Geo{.origin = true, .plus = 2, .minus = 3, .pos = 1, .len = 4, .expect = 0x1};
  x.geo[1] = Geo{.valid = false};
  x.geo[2] = Geo{.valid = false};
  x.epoch = kE;
  program_ring(b, x);
  b.sw().enable(true);
  auto mk = [&](std::uint8_t type, unsigned o, std::uint8_t ask, std::uint32_t flow) {
    return pkt(P{.type = type, .mlid = x.mlid, .epoch = kE, .member = o, .ask = ask, .flow = flow});
  };
  b.send(0, mk(kCombArrive, 0, 0, 1));
  b.send(1, mk(kCombArrive, 0, 0, 2));
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[2].size(), 1U) << "own share";
  // The query from position 3 (from MINUS, k = 2 = R+: not forwarded).
  Marks m = mark(b);
  b.send(3, mk(kCombShare, 3, 1, 3));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "query at E"), 0U) << "not recorded, not answered";
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE) << "a query completes nothing";
  // Position 0 completes E.
  m = mark(b);
  b.send(3, mk(kCombShare, 0, 0, 4));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "position 0"), 0x7U) << "forward and release";
  TB_CHECK_EQ(epoch_of(b, x.mlid), kE + 1);
  // The query again: answered.
  m = mark(b);
  b.send(3, mk(kCombShare, 3, 1, 5));
  co_await b.drain(60);
  TB_CHECK_EQ(new_ports(b, m, "query after completion"), (1U << 2) | (1U << 3));
  const P want{.type = kCombShare,
               .mlid = x.mlid,
               .epoch = kE,
               .member = 1,
               .answer = true,
               .flow = 5,
               .src = 0};
  TB_CHECK(b.out[2].back().flits.at(0) == flit_of(hdr_of(want).bytes())) << "the answer";
  TB_CHECK(b.out[3].back().flits.at(0) == flit_of(hdr_of(want).bytes())) << "the answer";
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "query");
}

// A relay (no members, no EXPECT, no MFT entry): shares pass within their
// reach whatever their epoch; it never completes.
SYNCFAB_TEST(switch_combine_ring, relay) {
  Bench b(ctx);
  co_await b.reset();
  RingEntry x;
  x.mlid = 0xC002;
  x.phases = 1;
  x.geo[0] = Geo{.plus = 6, .minus = 7, .pos = 2, .len = 5};  // R+ = 2, R- = 2
  x.geo[1] = Geo{.valid = false};
  x.geo[2] = Geo{.valid = false};
  x.epoch = 0xFFFF;
  program_ring(b, x);
  b.sw().enable(true);
  auto sh = [](std::uint16_t e, unsigned o, std::uint32_t flow) {
    return pkt(P{.type = kCombShare, .mlid = 0xC002, .epoch = e, .member = o, .flow = flow});
  };
  b.send(7, sh(0x1234, 1, 1));  // +, k = 1: forwarded to PLUS
  b.send(6, sh(0xFFFF, 3, 2));  // -, k = 1: forwarded to MINUS
  b.send(7, sh(0, 0, 3));       // +, k = 2 = R+: end of reach
  b.send(6, sh(0, 4, 4));       // -, k = 2 = R-: end of reach
  co_await b.drain(60);
  TB_CHECK_EQ(b.out[6].size(), 1U);
  TB_CHECK_EQ(b.out[7].size(), 1U);
  const fmt::PktHdr f6 = got_hdr(b.out[6][0]);
  TB_CHECK_EQ(f6.flow_label(), 1U);
  TB_CHECK_EQ(f6.src_lid(), 0U);
  TB_CHECK_EQ(got_hdr(b.out[7][0]).flow_label(), 2U);
  for (unsigned p = 0; p < 6; ++p) {
    TB_CHECK(b.out.at(p).empty()) << "port " << p;
  }
  TB_CHECK_EQ(drops(b), 0U);
  check_no_cell_held(b, "relay");
}

// Every refusal of sections 9.2 and 9.3 is one DROP_NO_ROUTE at the input
// and the packet's priority, with no copy and no change to the entry.
SYNCFAB_TEST(switch_combine_ring, drops) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  program_ring(b, two_phase_entry());
  // Inconsistent entries, one fault each, members on port 0, one phase.
  struct Bad {
    const char* what;
    RingEntry x;
    bool no_mft = false;
  };
  std::vector<Bad> bad;
  auto base = [](std::uint16_t mlid) {
    RingEntry x;
    x.mlid = mlid;
    x.children = 0x1;
    x.phases = 1;
    x.geo[0] = Geo{.origin = true, .plus = 2, .minus = 3, .pos = 1, .len = 4, .expect = 0x1};
    x.geo[1] = Geo{.valid = false};
    x.geo[2] = Geo{.valid = false};
    x.epoch = kE;
    return x;
  };
  std::uint16_t mlid = 0xC010;
  auto add = [&](const char* what, auto f, bool no_mft = false) {
    RingEntry x = base(mlid++);
    f(x);
    bad.push_back(Bad{what, x, no_mft});
  };
  add("PHASES 0", [](RingEntry& x) { x.phases = 0; });
  add("PLUS a child", [](RingEntry& x) { x.geo[0].plus = 0; });
  add("MINUS a child", [](RingEntry& x) { x.geo[0].minus = 0; });
  add("PLUS beyond the ports", [](RingEntry& x) { x.geo[0].plus = 8; });
  add("LEN 1", [](RingEntry& x) {
    x.geo[0].len = 1;
    x.geo[0].pos = 0;
    x.geo[0].expect = 0;
  });
  add("LEN 33", [](RingEntry& x) { x.geo[0].len = 33; });
  add("POS = LEN", [](RingEntry& x) { x.geo[0].pos = 4; });
  add("EXPECT beyond LEN", [](RingEntry& x) { x.geo[0].expect = 0x11; });
  add("EXPECT has POS", [](RingEntry& x) { x.geo[0].expect = 0x2; });
  add(
      "children without MFT entry", [](RingEntry&) {}, true);
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
    const std::uint32_t before = b.count(0, kPrio, K::kDropNoRoute);
    b.send(0, pkt(P{.type = kCombArrive, .mlid = z.x.mlid, .flow = 1}));
    co_await b.drain(30);
    TB_CHECK_EQ(b.count(0, kPrio, K::kDropNoRoute) - before, 1U) << z.what;
  }
  // Refused packets on the good entry.
  struct Case {
    const char* what;
    unsigned in;
    P p;
  };
  const std::vector<Case> cases = {
      {"COMB_RELEASE in ring mode", 0, P{.type = kCombRelease}},
      {"arrival from a port not a child", 2, P{.type = kCombArrive}},
      {"arrival of E + 1", 0, P{.type = kCombArrive, .epoch = kE + 1}},
      {"arrival of E - 2", 0, P{.type = kCombArrive, .epoch = kE - 2}},
      {"share of phase >= PHASES", 3, P{.type = kCombShare, .round = 2, .member = 0}},
      {"share of phase 3", 3, P{.type = kCombShare, .round = 3, .member = 0}},
      {"share of phase 255", 3, P{.type = kCombShare, .round = 255, .member = 0}},
      {"share from a port not PLUS/MINUS", 6, P{.type = kCombShare, .member = 0}},
      {"share from a member's port", 0, P{.type = kCombShare, .member = 0}},
      {"share with origin = LEN", 3, P{.type = kCombShare, .member = 4}},
      {"share with origin 4095", 3, P{.type = kCombShare, .member = 4095}},
      {"share with origin = POS", 3, P{.type = kCombShare, .member = 1}},
      {"share beyond R- (phase 0, from PLUS, k = 2)", 2, P{.type = kCombShare, .member = 3}},
      {"share beyond R+ (phase 1, from MINUS, k = 2)", 5,
       P{.type = kCombShare, .round = 1, .member = 1}},
      {"share of a two-flit packet", 3, P{.type = kCombShare, .member = 0, .len = 2}},
      {"share to an MLID past the MFT", 3,
       P{.type = kCombShare, .mlid = static_cast<std::uint16_t>(fmt::kMlidBase + kMftEntries)}},
      {"share to a unicast LID", 3, P{.type = kCombShare, .mlid = 0x0005}},
      {"share to an MLID without entry", 3, P{.type = kCombShare, .mlid = 0xC0F0}},
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
  Marks m = mark(b);
  b.send(0, arrive(kE, 50));
  co_await b.drain(30);
  TB_CHECK_EQ(new_ports(b, m, "member 0 after the drops"), 0U);
  b.send(1, arrive(kE, 51));
  co_await b.drain(30);
  TB_CHECK_EQ(new_ports(b, m, "member 1 after the drops"), (1U << 2) | (1U << 3));
  check_no_cell_held(b, "drops");
}

namespace {

// The random test's view of the entry: what was received when (rx end
// cycle), to judge each release and own share by the inputs alone.
struct Rx {
  std::uint64_t cycle;
  P p;
  unsigned in;
};

}  // namespace

// Seeded random arrivals and shares (valid ones near the entry's epoch,
// wrong ports, wrong epochs, out-of-reach origins), several inputs at once,
// on the two-phase entry starting next to the epoch wrap. Safety (section
// 9.5) is judged from the inputs only: a release of e to the members leaves
// only after both members' arrivals of e and every EXPECT position of both
// phases of e were received, and only once, with own shares of both phases
// of e made; an own share of (e, d) only after done_(d-1) for e by the same
// reading; an answer of e, and a one-port release of e, only for an e that
// was completed (or the epoch before the programmed one). At the end no cell is held. --param
// rounds (default 60).
SYNCFAB_TEST(switch_combine_ring, random_safety) {
  const auto rounds = static_cast<unsigned>(ctx.param("rounds", 60));
  std::cout << "  replay: --test switch_combine_ring.random_safety --seed " << ctx.seed() << "\n";
  Bench b(ctx);
  co_await b.reset();
  RingEntry x = two_phase_entry();
  x.epoch = 0xFFFE;
  program_ring(b, x);
  b.sw().enable(true);
  auto& rng = ctx.rng();
  std::uniform_int_distribution<unsigned> pct(0, 99);
  std::uniform_int_distribution<int> de(-1, 2);
  std::uniform_int_distribution<unsigned> any_port(0, kPorts - 1);
  // The valid (port, phase, origin) triples of this entry's rings.
  struct Src {
    unsigned in;
    unsigned d;
    unsigned o;
  };
  const std::vector<Src> valid = {{3, 0, 0}, {3, 0, 3}, {2, 0, 2}, {4, 1, 1}, {5, 1, 2}};
  std::vector<std::vector<P>> sent(kPorts);  // per port, in order
  std::uint16_t e_now = x.epoch;             // the newest epoch released + 1, as seen
  std::uint32_t flow = 0;
  for (unsigned k = 0; k < rounds; ++k) {
    const unsigned burst = 1 + pct(rng) % 6;
    for (unsigned j = 0; j < burst; ++j) {
      // Mostly the entry's epoch, else the ones around it.
      const int off = pct(rng) < 60 ? 0 : de(rng);
      const auto e = static_cast<std::uint16_t>(e_now + off);
      P p{.epoch = e, .prio = kPrio, .flow = ++flow};
      unsigned in = 0;
      const unsigned c = pct(rng);
      if (c < 35) {
        p.type = kCombArrive;
        in = pct(rng) % 2;
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
        in = any_port(rng);
        if (in >= 6) {
          in = 3;
        }
      }
      sent.at(in).push_back(p);
      b.send(in, pkt(p));
    }
    co_await b.drain(40);
    // The newest release to both members tells the epoch.
    for (const RxPacket& g : b.out[0]) {
      const fmt::PktHdr h = got_hdr(g);
      if (h.pkt_type() == fmt::PktType::kCombRelease) {
        const auto e1 = static_cast<std::uint16_t>(h.epoch() + 1);
        if (static_cast<std::int16_t>(e1 - e_now) > 0) {
          e_now = e1;
        }
      }
    }
  }
  // Every received packet with its rx end cycle.
  std::vector<Rx> rx;
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(sent.at(p).size(), b.rx_last_cycle.at(p).size()) << "port " << p;
    for (std::size_t i = 0; i < sent.at(p).size(); ++i) {
      rx.push_back(Rx{b.rx_last_cycle.at(p).at(i), sent.at(p).at(i), p});
    }
  }
  // A valid input of epoch e received strictly before cycle t.
  auto arrived = [&](unsigned member, std::uint16_t e, std::uint64_t t) {
    return std::any_of(rx.begin(), rx.end(), [&](const Rx& z) {
      return z.cycle < t && z.in == member && z.p.type == kCombArrive && z.p.epoch == e;
    });
  };
  auto heard = [&](unsigned d, unsigned o, std::uint16_t e, std::uint64_t t) {
    return std::any_of(rx.begin(), rx.end(), [&](const Rx& z) {
      if (z.cycle >= t || z.p.type != kCombShare || z.p.epoch != e || z.p.round != d ||
          z.p.member != o) {
        return false;
      }
      return std::any_of(valid.begin(), valid.end(),
                         [&](const Src& s) { return s.in == z.in && s.d == d && s.o == o; });
    });
  };
  auto done = [&](int d, std::uint16_t e, std::uint64_t t) {
    bool ok = arrived(0, e, t) && arrived(1, e, t);
    for (int q = 0; q <= d; ++q) {
      for (const Src& s : valid) {
        if (static_cast<int>(s.d) == q) {
          ok = ok && heard(s.d, s.o, e, t);
        }
      }
    }
    return ok;
  };
  // Own shares (member = POS, answer 0) leaving PLUS, per (e, d): first tx.
  std::map<std::pair<std::uint16_t, unsigned>, std::uint64_t> own;
  unsigned n_rel = 0;
  unsigned n_own = 0;
  unsigned n_ans = 0;
  for (unsigned d = 0; d < 2; ++d) {
    const unsigned plus = d == 0 ? 2 : 4;
    const unsigned pos = d == 0 ? 1 : 0;
    for (const RxPacket& g : b.out.at(plus)) {
      const fmt::PktHdr h = got_hdr(g);
      if (h.pkt_type() != fmt::PktType::kCombShare || h.member() != pos) {
        continue;
      }
      if (h.answer()) {
        ++n_ans;
        continue;
      }
      ++n_own;
      TB_CHECK(done(static_cast<int>(d) - 1, h.epoch(), g.first_cycle))
          << "own share of phase " << d << " for " << h.epoch() << " at " << g.first_cycle
          << " before done_" << static_cast<int>(d) - 1;
      auto key = std::make_pair(h.epoch(), d);
      if (own.find(key) == own.end()) {
        own[key] = g.first_cycle;
      }
    }
  }
  // Releases, by (epoch, flow label): a completion goes to both members in
  // one take (one processed packet, one flow label), a re-send to the
  // arriving member only. When a copy leaves depends on its port's queue,
  // so a completion is judged at its earlier copy against the inputs
  // received before it, and only the existence of what was made before it
  // (own shares, the completion a re-send repeats) is required.
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::pair<std::uint64_t, unsigned>> rel;
  for (unsigned p = 0; p < 2; ++p) {
    for (const RxPacket& g : b.out.at(p)) {
      const fmt::PktHdr h = got_hdr(g);
      TB_CHECK(h.pkt_type() == fmt::PktType::kCombRelease) << "members get only releases";
      auto [it, fresh] = rel.try_emplace({h.epoch(), h.flow_label()}, g.first_cycle, 0U);
      it->second.first = std::min(it->second.first, g.first_cycle);
      it->second.second |= 1U << p;
    }
  }
  // The epoch before the programmed one counts as completed: the entry
  // waits for the programmed epoch, so an arrival or a request of the one
  // before is answered as for any E - 1 (section 9.3).
  std::set<std::uint16_t> completed;
  const auto before_first = static_cast<std::uint16_t>(x.epoch - 1);
  for (const auto& [key, ev] : rel) {
    if (ev.second == 0x3U) {
      const std::uint16_t e = key.first;
      TB_CHECK(e != before_first && completed.insert(e).second)
          << "epoch " << e << " completed twice";
      TB_CHECK(done(1, e, ev.first))
          << "release of " << e << " at " << ev.first << " before complete";
      TB_CHECK(own.count({e, 0}) == 1) << "release of " << e << " without own share 0";
      TB_CHECK(own.count({e, 1}) == 1) << "release of " << e << " without own share 1";
      ++n_rel;
    }
  }
  completed.insert(before_first);
  for (const auto& [key, ev] : rel) {
    if (ev.second != 0x3U) {
      TB_CHECK(completed.count(key.first) == 1)
          << "re-sent release of " << key.first << " that was never completed";
    }
  }
  // This switch's answers (member = its POS; a forwarded share keeps its
  // sender's answer bit): only for a completed epoch.
  for (unsigned d = 0; d < 2; ++d) {
    for (const RxPacket& g : b.out.at(d == 0 ? 2 : 4)) {
      const fmt::PktHdr h = got_hdr(g);
      if (h.pkt_type() == fmt::PktType::kCombShare && h.answer() &&
          h.member() == (d == 0 ? 1 : 0)) {
        TB_CHECK(completed.count(h.epoch()) == 1)
            << "answer of " << h.epoch() << " that was never completed";
      }
    }
  }
  check_no_cell_held(b, "random");
  std::cout << "  " << flow << " packets: " << n_rel << " barriers released, " << n_own
            << " own shares, " << n_ans << " answers, " << drops(b) << " refused\n";
}
