// Ring mode of the switch's combine unit (docs/group-barrier.md §9) in the
// whole-switch model. One switch, hand-checked from the spec: own shares
// only after done_(d-1), forwarding reach, E + 1 shares kept across the
// epoch change, release only on completion, re-sent arrivals, answers,
// re-asks and queries, every refusal, the one-packet-per-take holds and
// their cells. Then model switches wired by the test into a ring and tori,
// members emulated as the NIC behaves (§3), with and without losses.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <syncfab/hw/switch_regs.hpp>

#include "switch_model_fixture.hpp"
#include "syncfab/test/seeds.hpp"

namespace syncfab::model::test {
namespace {

namespace r = hw::switch_regs;
using fmt::PktType;
using fmt::SwCounter;
using syncfab::test::replay_command;
using syncfab::test::seeds;

constexpr unsigned kX = 3;  // combine entry / MFT index of the switch under test
constexpr std::uint16_t kGroup = fmt::kMlidBase + kX;
constexpr unsigned kTblChildren = 2;
constexpr unsigned kTblControl = 3;
constexpr unsigned kTblGeometry = 4;
constexpr unsigned kTblExpect = 5;

std::uint32_t ring_control(std::uint16_t epoch, unsigned phases, bool valid = true) {
  return (valid ? CombineEntry::kValidBit : 0U) | CombineEntry::kRingBit |
         (phases << CombineEntry::kPhasesShift) |
         (std::uint32_t{epoch} << CombineEntry::kEpochShift);
}
std::uint32_t geometry(unsigned plus, unsigned minus, unsigned pos, unsigned len, bool origin,
                       bool valid = true) {
  return (valid ? RingPhase::kValidBit : 0U) | (origin ? RingPhase::kOriginBit : 0U) |
         (len << RingPhase::kLenShift) | (pos << RingPhase::kPosShift) |
         (minus << RingPhase::kMinusShift) | plus;
}

struct Pkt {
  PktType type = PktType::kCombArrive;
  std::uint16_t epoch = 0;
  unsigned phase = 0;   // COMB_SHARE: round
  unsigned origin = 0;  // COMB_SHARE: member
  bool answer = false;
  unsigned ask = 0;  // COMB_SHARE: ask
  std::uint16_t dst = kGroup;
  unsigned len = 1;
};

std::vector<Flit> flits(const Pkt& c) {
  fmt::PktHdr h;
  h.set_pkt_type(c.type)
      .set_len_flits(static_cast<std::uint8_t>(c.len))
      .set_src_lid(c.type == PktType::kCombArrive ? 0x0011 : 0)
      .set_dst_lid(c.dst)
      .set_prio(3)
      .set_dscp(9)
      .set_ecn(fmt::Ecn::kEct0)
      .set_flow_label(0x12345)
      .set_ctx(2)
      .set_epoch(c.epoch)
      .set_round(static_cast<std::uint8_t>(c.phase))
      .set_member(static_cast<std::uint16_t>(c.origin))
      .set_answer(c.answer)
      .set_ask(static_cast<std::uint8_t>(c.ask));
  std::vector<Flit> f(c.len, Flit{});
  f[0] = h.bytes();
  return f;
}
Pkt arrive(std::uint16_t epoch) { return {.epoch = epoch}; }
Pkt share(std::uint16_t epoch, unsigned phase, unsigned origin, bool answer = false,
          unsigned ask = 0) {
  return {.type = PktType::kCombShare,
          .epoch = epoch,
          .phase = phase,
          .origin = origin,
          .answer = answer,
          .ask = ask};
}

void table_write(SwitchCsrModel& csr, unsigned table, unsigned index, std::uint32_t data) {
  csr.write32(r::TBL_ADDR.offset, r::TBL_ADDR_INDEX.put(index) | r::TBL_ADDR_TABLE.put(table));
  csr.write32(r::TBL_WDATA.offset, data);
  csr.write32(r::TBL_CMD.offset, r::TBL_CMD_WRITE.put(1));
}
std::uint32_t table_read(SwitchCsrModel& csr, unsigned table, unsigned index) {
  csr.write32(r::TBL_ADDR.offset, r::TBL_ADDR_INDEX.put(index) | r::TBL_ADDR_TABLE.put(table));
  csr.write32(r::TBL_CMD.offset, r::TBL_CMD_READ.put(1));
  return csr.read32(r::TBL_RDATA.offset);
}

// One phase of a ring-mode entry as the subnet manager writes it.
struct PhaseCfg {
  std::uint32_t geometry = 0;
  std::uint32_t expect = 0;
};

// A ring-mode entry: the MFT (when it has children), the children, the ring
// words, then the control word.
void program_ring(SwitchModel& m, driver::Switch& sw, unsigned x, std::uint32_t children,
                  const std::vector<PhaseCfg>& phases, std::uint16_t epoch) {
  if (children != 0) {
    sw.set_mft(static_cast<std::uint16_t>(fmt::kMlidBase + x), children);
  }
  table_write(m.csr(), kTblChildren, x, children);
  for (unsigned d = 0; d < phases.size(); ++d) {
    table_write(m.csr(), kTblGeometry, x * kRingWordsPerEntry + d, phases[d].geometry);
    table_write(m.csr(), kTblExpect, x * kRingWordsPerEntry + d, phases[d].expect);
  }
  table_write(m.csr(), kTblControl, x, ring_control(epoch, static_cast<unsigned>(phases.size())));
}

constexpr unsigned kPorts = 8;

// One packet per engine cycle, all its copies at once, a one-flit packet's
// copies leaving together (the RTL's enqueue rate and shared read), and the
// least forwarding latency of the model's hand-worked tests.
SwitchModelParams ring_params(unsigned buf_cells) {
  SwitchModelParams p;
  p.csr = SwitchCsrParams{kPorts, buf_cells, 64, 16};
  p.enqueue_per_cycle = 1;
  p.enqueue_by_packet = true;
  p.shared_read = true;
  return p;
}

// The switch under test, S, is at position 1 of a ring of 4 in phase 0
// (PLUS 2, MINUS 3: R+ = 2, R- = 1; members of the ring at positions 0 and
// 3) and at position 0 of a ring of 3 in phase 1 (PLUS 4, MINUS 5: R+ = 1,
// R- = 1; the switch at position 2 has an ORIGIN_1); its members are on
// ports 0 and 1. E starts at 10.
constexpr std::uint32_t kChildren = 0b11;
constexpr std::uint16_t kE = 10;
const std::vector<PhaseCfg> kS = {{geometry(2, 3, 1, 4, true), 0b1001},
                                  {geometry(4, 5, 0, 3, true), 0b100}};

class RingTest : public SwitchModelTest {
 protected:
  explicit RingTest(unsigned buf_cells = 64) : SwitchModelTest(ring_params(buf_cells)) {}

  std::uint64_t send(unsigned port, const Pkt& c) {
    const auto f = flits(c);
    const std::uint64_t at = std::max(m.cycle(), next_[port]);
    next_[port] = at + f.size();
    return m.receive(port, f, at);
  }
  void settle() { ASSERT_TRUE(m.run_until_idle(1000)); }
  std::vector<TxPacket> sent(unsigned port) {
    const auto& log = m.transmitted(port);
    std::vector<TxPacket> got(log.begin() + static_cast<std::ptrdiff_t>(seen_[port]), log.end());
    seen_[port] = log.size();
    return got;
  }
  // Nothing left any port since the last look.
  void expect_silent() {
    for (unsigned p = 0; p < kPorts; ++p) {
      EXPECT_TRUE(sent(p).empty()) << "port " << p;
    }
  }
  [[nodiscard]] const CombineEntry& entry(unsigned x = kX) { return m.csr().combine()[x]; }
  std::uint16_t entry_epoch() {
    return static_cast<std::uint16_t>(table_read(m.csr(), kTblControl, kX) >>
                                      CombineEntry::kEpochShift);
  }
  std::uint32_t no_route(unsigned port) { return cnt(port, 3, SwCounter::kDropNoRoute); }
  void expect_empty_buffers() {
    for (unsigned p = 0; p < kPorts; ++p) {
      EXPECT_EQ(m.buffer_used(p), 0U) << "port " << p;
    }
    EXPECT_EQ(m.stored_packets(), 0U);
  }
  // Exactly one packet on each port of `ports` (and, with `only`, on no
  // other port), each a copy of the same emission; returns its header.
  fmt::PktHdr one_on(std::uint32_t ports) {
    fmt::PktHdr h;
    bool first = true;
    for (unsigned p = 0; p < kPorts; ++p) {
      const auto s = sent(p);
      if ((ports >> p & 1U) == 0) {
        EXPECT_TRUE(s.empty()) << "port " << p;
        continue;
      }
      EXPECT_EQ(s.size(), 1U) << "port " << p;
      if (s.empty()) {
        continue;
      }
      if (first) {
        h = s[0].header();
        first = false;
      } else {
        EXPECT_EQ(s[0].header().bytes(), h.bytes()) << "port " << p;
      }
    }
    return h;
  }
  // Brings S to the point where epoch `e` is complete: both arrivals, the
  // phase 0 shares of positions 0 and 3, the phase 1 share of position 2.
  void complete_epoch(std::uint16_t e) {
    send(0, arrive(e));
    send(1, arrive(e));
    send(3, share(e, 0, 3));
    send(3, share(e, 0, 0));
    send(5, share(e, 1, 2));
    settle();
    for (unsigned p = 0; p < kPorts; ++p) {
      sent(p);
    }
    ASSERT_EQ(entry_epoch(), static_cast<std::uint16_t>(e + 1U));
  }

  std::array<std::uint64_t, kPorts> next_{};
  std::array<std::size_t, kPorts> seen_{};
};

void expect_share(const fmt::PktHdr& h, std::uint16_t epoch, unsigned phase, unsigned member,
                  bool answer, unsigned ask = 0) {
  EXPECT_EQ(h.pkt_type(), PktType::kCombShare);
  EXPECT_EQ(h.epoch(), epoch);
  EXPECT_EQ(h.round(), phase);
  EXPECT_EQ(h.member(), member);
  EXPECT_EQ(h.answer(), answer);
  EXPECT_EQ(h.ask(), ask);
  EXPECT_EQ(h.src_lid(), fmt::kLidNone);
  EXPECT_EQ(h.dst_lid(), kGroup);
  EXPECT_EQ(h.len_flits(), 1);
  EXPECT_EQ(h.ctx(), 2);
  EXPECT_EQ(h.prio(), 3);
  EXPECT_EQ(h.dscp(), 9);
  EXPECT_EQ(h.ecn(), fmt::Ecn::kEct0);
  EXPECT_EQ(h.flow_label(), 0x12345U);
}
void expect_release(const fmt::PktHdr& h, std::uint16_t epoch) {
  EXPECT_EQ(h.pkt_type(), PktType::kCombRelease);
  EXPECT_EQ(h.epoch(), epoch);
  EXPECT_EQ(h.src_lid(), fmt::kLidNone);
  EXPECT_EQ(h.dst_lid(), kGroup);
  EXPECT_EQ(h.round(), 0);  // nothing of the share that completed the entry
  EXPECT_EQ(h.member(), 0);
  EXPECT_FALSE(h.answer());
  EXPECT_EQ(h.ask(), 0);
  EXPECT_EQ(h.ctx(), 2);
  EXPECT_EQ(h.prio(), 3);
}

TEST_F(RingTest, TablesReadBackAndTheirIndexIsBoundByTheMft) {
  program_ring(m, sw, kX, kChildren, kS, 0x1234);
  EXPECT_EQ(table_read(m.csr(), kTblControl, kX), ring_control(0x1234, 2));
  EXPECT_EQ(table_read(m.csr(), kTblGeometry, kX * 4 + 0), geometry(2, 3, 1, 4, true));
  EXPECT_EQ(table_read(m.csr(), kTblGeometry, kX * 4 + 1), geometry(4, 5, 0, 3, true));
  EXPECT_EQ(table_read(m.csr(), kTblExpect, kX * 4 + 0), 0b1001U);
  EXPECT_EQ(table_read(m.csr(), kTblExpect, kX * 4 + 1), 0b100U);
  // Reserved geometry bits are not stored; EXPECT keeps all 32.
  table_write(m.csr(), kTblGeometry, 15 * 4 + 3, 0xFFFF'FFFFU);
  EXPECT_EQ(table_read(m.csr(), kTblGeometry, 15 * 4 + 3), RingPhase::kStored);
  table_write(m.csr(), kTblExpect, 15 * 4 + 3, 0xFFFF'FFFFU);
  EXPECT_EQ(table_read(m.csr(), kTblExpect, 15 * 4 + 3), 0xFFFF'FFFFU);
  EXPECT_EQ(sw.interrupt_status() & r::INTR_STATUS_TBL_ERROR.mask, 0U);
  // 16 MFT entries: ring words 0 .. 63; 64 is outside, and so is every
  // index of table 7, which does not exist, and of table 6 (port groups)
  // from PORT_GROUPS on.
  table_write(m.csr(), kTblExpect, 64, 1);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_TBL_ERROR.mask, 0U);
  sw.clear_interrupts(r::INTR_STATUS_TBL_ERROR.mask);
  EXPECT_EQ(table_read(m.csr(), kTblGeometry, 64), 0xFFFF'FFFFU);  // RDATA as it was
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_TBL_ERROR.mask, 0U);
  sw.clear_interrupts(r::INTR_STATUS_TBL_ERROR.mask);
  table_write(m.csr(), 7, 0, 1);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_TBL_ERROR.mask, 0U);
  sw.clear_interrupts(r::INTR_STATUS_TBL_ERROR.mask);
  table_write(m.csr(), 6, fmt::kPortGroups, 1);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_TBL_ERROR.mask, 0U);
  // A control-word write clears the arrivals and the ring state.
  send(0, arrive(0x1234));
  send(3, share(0x1234, 0, 0));
  send(3, share(0x1235, 0, 3));
  send(0, arrive(0x1234));  // re-sent: re-ask(PHASES)
  settle();
  EXPECT_EQ(entry().arrived, 0b01U);
  EXPECT_EQ(entry().heard[0][0], 0b0001U);
  EXPECT_EQ(entry().heard[1][0], 0b1000U);
  EXPECT_EQ(entry().level, 2U);
  table_write(m.csr(), kTblControl, kX, ring_control(0x1234, 2));
  EXPECT_EQ(entry().arrived, 0U);
  EXPECT_EQ(entry().heard[0][0], 0U);
  EXPECT_EQ(entry().heard[1][0], 0U);
  EXPECT_EQ(entry().level, 0U);
  EXPECT_EQ(entry().query, 0U);
}

TEST_F(RingTest, OwnSharesOnlyAfterDoneAndTheReleaseOnlyOnCompletion) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  settle();
  expect_silent();  // done_(-1) needs both members
  send(1, arrive(kE));
  settle();
  // Own share of phase 0: position 1, to PLUS and MINUS (R+ = 2, R- = 1).
  expect_share(one_on(0b1100), kE, 0, 1, false);
  EXPECT_EQ(entry().sent, 0b01U);
  // Position 3's share travelling + (in at MINUS): 2 hops = R+, the end of
  // its reach; phase 1 still waits for position 0.
  send(3, share(kE, 0, 3));
  settle();
  expect_silent();
  // Position 0's share, 1 hop: forwarded to PLUS unchanged but for src_lid;
  // done_0 now holds, so the own share of phase 1 follows.
  send(3, share(kE, 0, 0));
  settle();
  auto s = sent(2);
  ASSERT_EQ(s.size(), 1U);
  expect_share(s[0].header(), kE, 0, 0, false);
  expect_share(one_on(0b11'0000), kE, 1, 0, false);
  EXPECT_EQ(entry().sent, 0b11U);
  EXPECT_EQ(entry_epoch(), kE);  // phase 1 not heard: not complete
  send(5, share(kE, 1, 2));      // in at MINUS of phase 1: 1 hop = R+
  settle();
  expect_release(one_on(kChildren), kE);
  EXPECT_EQ(entry_epoch(), kE + 1);
  EXPECT_EQ(entry().arrived, 0U);
  EXPECT_EQ(entry().sent, 0U);
  EXPECT_EQ(entry().heard[kE & 1U][0], 0U);  // the completed parity is E + 2's now
  EXPECT_EQ(no_route(3) + no_route(5), 0U);
  expect_empty_buffers();
}

TEST_F(RingTest, ThePhaseOneShareLeavesWithDoneZero) {
  // The same as above, watched on ports 4 and 5: nothing there before
  // done_0, the own share of phase 1 right after it.
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(3, share(kE, 0, 3));
  send(3, share(kE, 0, 0));  // forwarded; done_0 still needs the members
  send(5, share(kE, 1, 2));
  settle();
  EXPECT_EQ(sent(2).size(), 1U);
  expect_silent();
  send(0, arrive(kE));
  send(1, arrive(kE));
  settle();
  // One arrival completes done_(-1) and done_0 at once: the own shares of
  // phases 0 and 1, then the release, one per take.
  for (const unsigned p : {2U, 3U}) {
    const auto s = sent(p);
    ASSERT_EQ(s.size(), 1U) << p;
    expect_share(s[0].header(), kE, 0, 1, false);
  }
  for (const unsigned p : {4U, 5U}) {
    const auto s = sent(p);
    ASSERT_EQ(s.size(), 1U) << p;
    expect_share(s[0].header(), kE, 1, 0, false);
  }
  expect_release(one_on(kChildren), kE);
  EXPECT_LT(m.transmitted(2)[1].first_cycle, m.transmitted(4)[0].first_cycle);
  EXPECT_LT(m.transmitted(4)[0].first_cycle, m.transmitted(0)[0].first_cycle);
  expect_empty_buffers();
}

// A relay (no children, no EXPECT) on a ring of 5 at position 2: R+ = R- =
// 2; it forwards whatever the epoch and never completes.
TEST_F(RingTest, SharesAreForwardedOnlyWithinTheirReach) {
  constexpr unsigned kRelay = 5;
  program_ring(m, sw, kRelay, 0, {{geometry(2, 3, 2, 5, false), 0}}, 40);
  const auto at = [](std::uint16_t ep, unsigned o) {
    Pkt p = share(ep, 0, o);
    p.dst = fmt::kMlidBase + kRelay;
    return p;
  };
  // In at MINUS: travelling +, k = (2 - o) mod 5.
  send(3, at(40, 1));      // k = 1: forwarded to PLUS
  send(3, at(0x1234, 0));  // k = 2 = R+: end of reach, absorbed
  send(3, at(40, 4));      // k = 3 > R+: dropped
  send(3, at(40, 3));      // k = 4: dropped
  // In at PLUS: travelling -, k = (o - 2) mod 5.
  send(2, at(7, 3));  // k = 1: forwarded to MINUS
  send(2, at(7, 4));  // k = 2 = R-: absorbed
  send(2, at(7, 0));  // k = 3: dropped
  send(2, at(7, 1));  // k = 4: dropped
  settle();
  auto s = sent(2);
  ASSERT_EQ(s.size(), 1U);
  EXPECT_EQ(s[0].header().member(), 1U);
  EXPECT_EQ(s[0].header().epoch(), 40);
  EXPECT_EQ(s[0].header().src_lid(), fmt::kLidNone);
  s = sent(3);
  ASSERT_EQ(s.size(), 1U);
  EXPECT_EQ(s[0].header().member(), 3U);
  EXPECT_EQ(s[0].header().epoch(), 7);
  expect_silent();
  EXPECT_EQ(no_route(3), 2U);
  EXPECT_EQ(no_route(2), 2U);
  EXPECT_EQ(m.csr().combine()[kRelay].epoch, 40);
  // A ring of 2 (PLUS = MINUS = 4): in at MINUS, travelling +, 1 hop = R+.
  constexpr unsigned kPair = 6;
  program_ring(m, sw, kPair, 0, {{geometry(4, 4, 0, 2, false), 0}}, 1);
  Pkt p = share(1, 0, 1);
  p.dst = fmt::kMlidBase + kPair;
  send(4, p);
  settle();
  expect_silent();
  EXPECT_EQ(no_route(4), 0U);
  expect_empty_buffers();
}

TEST_F(RingTest, EveryRefusalIsDropNoRoute) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  unsigned expected = 0;
  const auto refused = [&](unsigned port, Pkt p) {
    send(port, p);
    ++expected;
  };
  refused(3, {.type = PktType::kCombRelease, .epoch = kE});  // releases only go to members
  refused(0, {.type = PktType::kCombRelease, .epoch = kE - 1});
  refused(2, arrive(kE));      // not a child
  refused(0, arrive(kE + 1));  // other epochs
  refused(0, arrive(kE - 2));
  refused(3, share(kE, 2, 0));  // phase 2 >= PHASES
  refused(0, share(kE, 0, 0));  // a child port
  refused(4, share(kE, 0, 0));  // another phase's port
  refused(3, share(kE, 0, 4));  // origin >= LEN
  refused(3, share(kE, 0, 1));  // origin = POS
  refused(2, share(kE, 0, 3));  // travelling -, 2 hops > R- = 1
  Pkt multi = share(kE, 0, 0);
  multi.len = 2;
  refused(3, multi);  // more than one flit
  // Inconsistent entries, one each (the share would be taken by a good one).
  struct Bad {
    std::uint32_t children;
    std::vector<PhaseCfg> phases;
    std::uint32_t mft;  // 0: not programmed
    unsigned phases_field;
  };
  const std::vector<Bad> bad = {
      {0, {{geometry(2, 3, 1, 4, false), 0}}, 0, 0},            // PHASES 0
      {0, {{geometry(9, 3, 1, 4, false), 0}}, 0, 1},            // PLUS beyond the ports
      {0b1000, {{geometry(2, 3, 1, 4, false), 0}}, 0b1000, 1},  // MINUS a child
      {0, {{geometry(2, 3, 0, 1, false), 0}}, 0, 1},            // LEN 1
      {0, {{geometry(2, 3, 1, 33, false), 0}}, 0, 1},           // LEN 33
      {0, {{geometry(2, 3, 4, 4, false), 0}}, 0, 1},            // POS >= LEN
      {0, {{geometry(2, 3, 1, 4, false), 0b1'0000}}, 0, 1},     // EXPECT beyond LEN
      {0, {{geometry(2, 3, 1, 4, false), 0b10}}, 0, 1},         // EXPECT has POS
      {0b1, {{geometry(2, 3, 1, 4, true), 0}}, 0, 1},           // MFT not valid
      {0b11, {{geometry(2, 3, 1, 4, true), 0}}, 0b01, 1},       // children outside it
      {0, {{geometry(2, 3, 1, 4, false), 0}, {geometry(4, 5, 0, 3, false, false), 0}}, 0, 2},
  };
  for (unsigned k = 0; k < bad.size(); ++k) {
    const unsigned x = 4 + k;
    if (bad[k].mft != 0) {
      sw.set_mft(static_cast<std::uint16_t>(fmt::kMlidBase + x), bad[k].mft);
    }
    table_write(m.csr(), kTblChildren, x, bad[k].children);
    for (unsigned d = 0; d < bad[k].phases.size(); ++d) {
      table_write(m.csr(), kTblGeometry, x * 4 + d, bad[k].phases[d].geometry);
      table_write(m.csr(), kTblExpect, x * 4 + d, bad[k].phases[d].expect);
    }
    table_write(m.csr(), kTblControl, x, ring_control(1, bad[k].phases_field));
    // The last one is consistent, but its phase 1 is not valid.
    Pkt p = k + 1 == bad.size() ? share(1, 1, 0) : share(1, 0, 0);
    p.dst = static_cast<std::uint16_t>(fmt::kMlidBase + x);
    refused(3, p);
  }
  // A ring entry written with VALID 0, and a share at a tree-mode entry.
  table_write(m.csr(), kTblControl, 15, ring_control(1, 1, false));
  Pkt p = share(1, 0, 0);
  p.dst = fmt::kMlidBase + 15;
  refused(3, p);
  sw.set_mft(fmt::kMlidBase + 2, 0b1001);
  table_write(m.csr(), kTblChildren, 2, 0b0001);
  table_write(m.csr(), kTblControl, 2, CombineEntry::kValidBit | 3U);
  p.dst = fmt::kMlidBase + 2;
  refused(3, p);
  settle();
  expect_silent();
  std::uint32_t total = 0;
  for (unsigned port = 0; port < kPorts; ++port) {
    total += no_route(port);
  }
  EXPECT_EQ(total, expected);
  EXPECT_EQ(m.drops().size(), expected);
  for (const auto& d : m.drops()) {
    EXPECT_EQ(d.reason, SwCounter::kDropNoRoute);
  }
  // Refusals leave the entry untouched.
  EXPECT_EQ(entry().arrived, 0U);
  EXPECT_EQ(entry().heard[0][0] | entry().heard[1][0], 0U);
  EXPECT_EQ(entry_epoch(), kE);
  expect_empty_buffers();
}

TEST_F(RingTest, SharesOfENextAreKeptAcrossTheEpochChange) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  send(1, arrive(kE));
  settle();
  sent(2);
  sent(3);
  // E + 1's shares come before E is complete here (their origins completed
  // E first); an E + 2 share is only forwarded (here: end of reach).
  send(3, share(kE + 1, 0, 3));
  send(3, share(kE + 1, 0, 0));
  send(5, share(kE + 1, 1, 2));
  send(3, share(kE + 2, 0, 3));
  settle();
  EXPECT_EQ(sent(2).size(), 1U);  // position 0's, forwarded
  expect_silent();
  EXPECT_EQ(entry().heard[(kE + 1) & 1U][0], 0b1001U);
  EXPECT_EQ(entry().heard[(kE + 1) & 1U][1], 0b100U);
  EXPECT_EQ(entry().heard[kE & 1U][0], 0U);
  EXPECT_EQ(entry_epoch(), kE);
  send(3, share(kE, 0, 3));
  send(3, share(kE, 0, 0));
  send(5, share(kE, 1, 2));
  settle();
  sent(2);
  sent(4);
  sent(5);
  expect_release(one_on(kChildren), kE);
  EXPECT_EQ(entry_epoch(), kE + 1);
  EXPECT_EQ(entry().heard[(kE + 1) & 1U][0], 0b1001U);  // kept
  // The members arrive at E + 1: everything else is already heard, so the
  // last arrival makes both own shares and the release.
  send(0, arrive(kE + 1));
  send(1, arrive(kE + 1));
  settle();
  for (const unsigned p : {2U, 3U}) {
    const auto s = sent(p);
    ASSERT_EQ(s.size(), 1U) << p;
    expect_share(s[0].header(), kE + 1, 0, 1, false);
  }
  for (const unsigned p : {4U, 5U}) {
    const auto s = sent(p);
    ASSERT_EQ(s.size(), 1U) << p;
    expect_share(s[0].header(), kE + 1, 1, 0, false);
  }
  expect_release(one_on(kChildren), kE + 1);
  EXPECT_EQ(entry_epoch(), kE + 2);
  expect_empty_buffers();
}

TEST_F(RingTest, AReSentArrivalReEmitsTheSharesOfThePhasesReached) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  // Re-sent before done_(-1): no phase reached, nothing sent; but the level
  // is re-ask(PHASES)'s, 2, for what the entry sends until completion.
  send(0, arrive(kE));
  settle();
  expect_silent();
  EXPECT_EQ(entry().level, 2U);
  send(1, arrive(kE));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, false, 2);
  // Re-sent: phase 0 reached, phase 1 not (ORIGIN_1 without done_0 sends
  // nothing).
  send(0, arrive(kE));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, false, 2);
  send(3, share(kE, 0, 3));
  send(3, share(kE, 0, 0));
  settle();
  sent(2);
  // The level stays until the completion: the phase 1 share asks too.
  expect_share(one_on(0b11'0000), kE, 1, 0, false, 2);
  send(1, arrive(kE));  // re-sent: both phases reached, two packets
  settle();
  for (const unsigned p : {2U, 3U}) {
    const auto s = sent(p);
    ASSERT_EQ(s.size(), 1U) << p;
    expect_share(s[0].header(), kE, 0, 1, false, 2);
  }
  expect_share(one_on(0b11'0000), kE, 1, 0, false, 2);
  EXPECT_EQ(entry().query, 0U);  // no phase without ORIGIN
  EXPECT_EQ(entry_epoch(), kE);
  EXPECT_EQ(no_route(0) + no_route(1), 0U);
  expect_empty_buffers();
}

TEST_F(RingTest, ARequestOfTheLastEpochIsAnsweredAnAnswerIsNot) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  complete_epoch(kE);
  // Position 0 is still at E (it lacks S's share): its share of E, 1 hop,
  // is forwarded and answered with S's own share of E, answer 1.
  send(3, share(kE, 0, 0, false, 1));
  settle();
  auto s = sent(2);
  ASSERT_EQ(s.size(), 2U);
  expect_share(s[0].header(), kE, 0, 0, false, 1);  // forwarded first
  expect_share(s[1].header(), kE, 0, 1, true);      // then the answer
  s = sent(3);
  ASSERT_EQ(s.size(), 1U);
  expect_share(s[0].header(), kE, 0, 1, true);
  EXPECT_EQ(entry().owe, 0U);
  // An answer is never answered; a request of phase 1 is.
  send(3, share(kE, 0, 3, true));
  settle();
  expect_silent();
  send(5, share(kE, 1, 2, false, 1));
  settle();
  expect_share(one_on(0b11'0000), kE, 1, 0, true);
  // A first send (ask 0) is not answered: nothing was lost yet.
  send(5, share(kE, 1, 2));
  settle();
  expect_silent();
  // Position 2 is not expected in phase 0, but S has ORIGIN_0: answered.
  send(2, share(kE, 0, 2, false, 1));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, true);
  EXPECT_EQ(entry_epoch(), kE + 1);
  // A relay (no ORIGIN) only forwards a request.
  constexpr unsigned kRelay = 5;
  program_ring(m, sw, kRelay, 0, {{geometry(2, 3, 1, 4, false), 0}}, kE + 1);
  Pkt p = share(kE, 0, 0, false, 1);
  p.dst = fmt::kMlidBase + kRelay;
  send(3, p);
  settle();
  EXPECT_EQ(sent(2).size(), 1U);
  expect_silent();
  expect_empty_buffers();
}

TEST_F(RingTest, AnArrivalOfTheLastEpochGetsTheReleaseAgain) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  complete_epoch(kE);
  send(1, arrive(kE));
  settle();
  expect_release(one_on(0b10), kE);
  EXPECT_EQ(entry_epoch(), kE + 1);
  EXPECT_EQ(entry().arrived, 0U);
  expect_empty_buffers();
}

// Re-asks (§9.3). Q is S's hand-written variant with three phases, the
// upper two without ORIGIN (a subnet manager gives a switch with members an
// ORIGIN in every phase, but the rules are per phase): phase 1 as S's (ring
// of 3, position 0, PLUS 4, MINUS 5, position 2 expected), phase 2 a ring of
// 2 (PLUS = MINUS = 6, position 1, position 0 expected; R+ = 1, R- = 0).
const std::vector<PhaseCfg> kQ = {{geometry(2, 3, 1, 4, true), 0b1001},
                                  {geometry(4, 5, 0, 3, false), 0b100},
                                  {geometry(6, 6, 1, 2, false), 0b1}};

TEST_F(RingTest, AReSentArrivalQueriesShortPhasesAndReSendsReachedOnes) {
  program_ring(m, sw, kX, kChildren, kQ, kE);
  send(0, arrive(kE));
  send(1, arrive(kE));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, false);
  expect_silent();  // phases 1 and 2 have no ORIGIN: nothing to send
  // Re-sent: re-ask(PHASES = 3): the reached share of phase 0 again,
  // then queries of the short phases 1 and 2, lowest first, all with ask 3.
  const std::uint64_t t = m.cycle();
  send(0, arrive(kE));
  settle();
  const auto own = sent(2);
  ASSERT_EQ(own.size(), 1U);
  expect_share(own[0].header(), kE, 0, 1, false, 3);
  EXPECT_EQ(sent(3).size(), 1U);
  const auto q1 = sent(4);
  ASSERT_EQ(q1.size(), 1U);
  expect_share(q1[0].header(), kE, 1, 0, false, 3);
  const auto q1m = sent(5);
  ASSERT_EQ(q1m.size(), 1U);
  EXPECT_EQ(q1m[0].header().bytes(), q1[0].header().bytes());
  const auto q2 = sent(6);
  ASSERT_EQ(q2.size(), 1U);
  expect_share(q2[0].header(), kE, 2, 1, false, 3);
  expect_silent();
  EXPECT_LT(own[0].first_cycle, q1[0].first_cycle);
  EXPECT_LT(q1[0].first_cycle, q2[0].first_cycle);
  EXPECT_GT(q1[0].first_cycle, t);
  EXPECT_EQ(entry().level, 3U);
  EXPECT_EQ(entry().query, 0U);
  // Phases 1 and 2 heard (no longer short): a re-sent arrival only re-sends
  // phase 0's share, which is still short itself.
  send(5, share(kE, 1, 2));
  send(6, share(kE, 2, 0));
  settle();
  expect_silent();
  EXPECT_EQ(entry().heard[kE & 1U][1], 0b100U);
  EXPECT_EQ(entry().heard[kE & 1U][2], 0b1U);
  send(1, arrive(kE));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, false, 3);
  EXPECT_EQ(entry().query, 0U);
  // The completion clears the level.
  send(3, share(kE, 0, 3));
  send(3, share(kE, 0, 0));
  settle();
  sent(2);
  expect_release(one_on(kChildren), kE);
  EXPECT_EQ(entry_epoch(), kE + 1);
  EXPECT_EQ(entry().level, 0U);
  EXPECT_EQ(no_route(0) + no_route(1) + no_route(3) + no_route(5) + no_route(6), 0U);
  expect_empty_buffers();
}

// M, a switch without members: switch 3 of the fabric tests' 3 x 2 torus.
// Phase 0 a ring of 3 (PLUS 2, MINUS 3, position 0, no ORIGIN; position 2
// has members and is expected), phase 1 a ring of 2 (PLUS = MINUS = 4,
// position 1, ORIGIN_1; position 0 expected).
constexpr unsigned kM = 9;
constexpr std::uint16_t kGroupM = fmt::kMlidBase + kM;
const std::vector<PhaseCfg> kMemberless = {{geometry(2, 3, 0, 3, false), 0b100},
                                           {geometry(4, 4, 1, 2, true), 0b1}};
Pkt to_m(Pkt p) {
  p.dst = kGroupM;
  return p;
}

TEST_F(RingTest, AShareWithAskTwoAtAShortSwitchReAsksWithAskOne) {
  // S with both members in and its phase 0 share sent, short of positions
  // 0 and 3 in phase 0: position 3's share with ask 2 (2 hops, the end of
  // its reach) is recorded and re-asks(1): the phase 0 share again with ask
  // 1; phase 1 has ORIGIN but not done_0 and sends nothing.
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  send(1, arrive(kE));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, false);
  send(3, share(kE, 0, 3, false, 2));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, false, 1);
  EXPECT_EQ(entry().heard[kE & 1U][0], 0b1000U);
  EXPECT_EQ(entry().level, 1U);
  // M, short of position 2 in phase 0: position 0's phase 1 share with ask
  // 2 re-asks(1): a query of phase 0 with ask 1 both ways; its own phase 1
  // share waits for done_0.
  program_ring(m, sw, kM, 0, kMemberless, kE);
  send(4, to_m(share(kE, 1, 0, false, 2)));
  settle();
  fmt::PktHdr q = one_on(0b1100);
  EXPECT_EQ(q.dst_lid(), kGroupM);
  EXPECT_EQ(q.pkt_type(), PktType::kCombShare);
  EXPECT_EQ(q.epoch(), kE);
  EXPECT_EQ(q.round(), 0);
  EXPECT_EQ(q.member(), 0);
  EXPECT_FALSE(q.answer());
  EXPECT_EQ(q.ask(), 1);
  EXPECT_EQ(m.csr().combine()[kM].level, 1U);
  // The answer (position 2 completed E): done_0, so M's own phase 1 share,
  // with ask = level; then M is complete and moves on without a packet.
  send(3, to_m(share(kE, 0, 2, true)));
  settle();
  const fmt::PktHdr o = one_on(0b1'0000);
  EXPECT_EQ(o.round(), 1);
  EXPECT_EQ(o.member(), 1);
  EXPECT_EQ(o.epoch(), kE);
  EXPECT_FALSE(o.answer());
  EXPECT_EQ(o.ask(), 1);
  EXPECT_EQ(m.csr().combine()[kM].epoch, kE + 1);
  EXPECT_EQ(m.csr().combine()[kM].level, 0U);
  expect_empty_buffers();
}

TEST_F(RingTest, AShareWithAskZeroAsksNothing) {
  program_ring(m, sw, kM, 0, kMemberless, kE);
  send(4, to_m(share(kE, 1, 0)));      // recorded, nothing asked
  send(4, to_m(share(kE + 1, 1, 0)));  // E + 1: likewise
  send(2, to_m(share(kE, 0, 1)));      // position 1 is no origin: a query, not recorded
  settle();
  expect_silent();
  const CombineEntry& e = m.csr().combine()[kM];
  EXPECT_EQ(e.heard[kE & 1U][1], 0b1U);
  EXPECT_EQ(e.heard[(kE + 1) & 1U][1], 0b1U);
  EXPECT_EQ(e.heard[kE & 1U][0], 0U);
  EXPECT_EQ(e.query, 0U);
  EXPECT_EQ(e.level, 0U);
  EXPECT_EQ(e.epoch, kE);
  // S with both members in: a share with ask 0 is forwarded and recorded,
  // no own share goes again.
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  send(1, arrive(kE));
  settle();
  sent(2);
  sent(3);
  send(3, share(kE, 0, 0));
  settle();
  const auto f = sent(2);
  ASSERT_EQ(f.size(), 1U);
  expect_share(f[0].header(), kE, 0, 0, false);
  expect_silent();
  EXPECT_EQ(entry().level, 0U);
  expect_empty_buffers();
}

TEST_F(RingTest, AnENextShareWithAskReAsksForEAndAnOldOneOnlyGetsItsAnswer) {
  // M at E: a share of E + 1 with ask 2 (its origin moved on and waits for
  // M) is recorded for E + 1 and re-asks(1) for E: a query of phase 0, E,
  // ask 1.
  program_ring(m, sw, kM, 0, kMemberless, kE);
  send(4, to_m(share(kE + 1, 1, 0, false, 2)));
  settle();
  const fmt::PktHdr q = one_on(0b1100);
  EXPECT_EQ(q.epoch(), kE);
  EXPECT_EQ(q.round(), 0);
  EXPECT_EQ(q.member(), 0);
  EXPECT_FALSE(q.answer());
  EXPECT_EQ(q.ask(), 1);
  const CombineEntry& e = m.csr().combine()[kM];
  EXPECT_EQ(e.heard[(kE + 1) & 1U][1], 0b1U);
  EXPECT_EQ(e.heard[kE & 1U][1], 0U);
  // An E + 2 share with ask is only taken to the end of its reach.
  send(4, to_m(share(kE + 2, 1, 0, false, 3)));
  settle();
  expect_silent();
  // M completes E (the answer and position 0's share of E) and moves on.
  send(3, to_m(share(kE, 0, 2, true)));
  send(4, to_m(share(kE, 1, 0)));
  settle();
  EXPECT_EQ(one_on(0b1'0000).epoch(), kE);
  EXPECT_EQ(e.epoch, kE + 1);
  // Position 0 still at E asks with ask 3: M completed E, so it owes an
  // answer (ask 0) and re-asks nothing.
  send(4, to_m(share(kE, 1, 0, false, 3)));
  settle();
  const fmt::PktHdr a = one_on(0b1'0000);
  EXPECT_EQ(a.epoch(), kE);
  EXPECT_EQ(a.round(), 1);
  EXPECT_EQ(a.member(), 1);
  EXPECT_TRUE(a.answer());
  EXPECT_EQ(a.ask(), 0);
  EXPECT_EQ(e.level, 0U);
  EXPECT_EQ(e.query, 0U);
  expect_empty_buffers();
}

TEST_F(RingTest, AQueryIsAnsweredByACompletedSwitchAndRecordedByNobody) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  // A query from position 2 (no ORIGIN_0, not in S's EXPECT_0), in at PLUS,
  // travelling - 1 hop = R-: S at E records nothing and sends nothing.
  send(2, share(kE, 0, 2));
  settle();
  expect_silent();
  EXPECT_EQ(entry().heard[kE & 1U][0], 0U);
  EXPECT_EQ(entry().owe, 0U);
  // S completes E; the same query (with ask 2, E - 1 for S now) gets S's
  // share of E as an answer, ask 0, and re-asks nothing.
  complete_epoch(kE);
  send(2, share(kE, 0, 2, false, 2));
  settle();
  expect_share(one_on(0b1100), kE, 0, 1, true, 0);
  EXPECT_EQ(entry().level, 0U);
  EXPECT_EQ(entry_epoch(), kE + 1);
  // A relay (no ORIGIN, no EXPECT) only forwards a query, ask and all.
  constexpr unsigned kRelay = 5;
  program_ring(m, sw, kRelay, 0, {{geometry(2, 3, 1, 4, false), 0}}, kE);
  Pkt p = share(kE, 0, 0, false, 2);
  p.dst = fmt::kMlidBase + kRelay;
  send(3, p);
  settle();
  const auto f = sent(2);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].header().ask(), 2);
  EXPECT_EQ(f[0].header().member(), 0U);
  expect_silent();
  expect_empty_buffers();
}

// S with both members in, position 3 and phase 1's position 2 heard: the
// share of position 0 (1 hop) has three emissions: its own forwarded copy,
// S's own share of phase 1, the release.
TEST_F(RingTest, AHeldPacketEmitsOnePacketPerEngineTake) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  send(1, arrive(kE));
  send(3, share(kE, 0, 3));
  send(5, share(kE, 1, 2));
  settle();
  sent(2);
  sent(3);
  const std::uint64_t t = m.cycle();
  send(3, share(kE, 0, 0));
  // Cycle t: the share's flit comes in and the engine takes it: the
  // forwarded copy into a fresh cell, the packet held.
  run_to(t + 1);
  EXPECT_EQ(m.buffer_used(3), 2U);
  settle();
  const auto fwd = sent(2);
  ASSERT_EQ(fwd.size(), 1U);
  const auto own = sent(4);
  ASSERT_EQ(own.size(), 1U);
  const auto rel = sent(0);
  ASSERT_EQ(rel.size(), 1U);
  // One take per cycle, the retakes in the next cycles (no other input
  // waits); every copy leaves fwd_latency = 1 after its take.
  EXPECT_EQ(fwd[0].first_cycle, t + 1);
  EXPECT_EQ(own[0].first_cycle, t + 2);
  EXPECT_EQ(m.transmitted(5).back().first_cycle, t + 2);
  EXPECT_EQ(rel[0].first_cycle, t + 3);
  EXPECT_EQ(m.transmitted(1).back().first_cycle, t + 3);
  expect_share(fwd[0].header(), kE, 0, 0, false);
  expect_share(own[0].header(), kE, 1, 0, false);
  expect_release(rel[0].header(), kE);
  // The emissions of the takes that held the packet had cells of their own.
  EXPECT_NE(fwd[0].pkt_id, rel[0].pkt_id);
  EXPECT_NE(own[0].pkt_id, rel[0].pkt_id);
  expect_empty_buffers();
}

TEST_F(RingTest, RetakesWaitForTheRoundRobin) {
  sw.set_lft(0x0031, 7);
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  send(1, arrive(kE));
  send(3, share(kE, 0, 3));
  send(5, share(kE, 1, 2));
  settle();
  for (unsigned p = 0; p < kPorts; ++p) {
    sent(p);
  }
  // Input 6 completes a DATA packet every cycle while S's share is held:
  // the engine alternates between inputs 3 and 6.
  const std::uint64_t t = m.cycle();
  send(3, share(kE, 0, 0));
  for (unsigned k = 0; k < 4; ++k) {
    m.receive(6, make_packet({.dst = 0x0031, .prio = 3}), t + k);
  }
  settle();
  std::vector<std::uint64_t> data;
  for (const auto& p : sent(7)) {
    data.push_back(p.first_cycle);
  }
  const std::uint64_t fwd = sent(2).at(0).first_cycle;
  const std::uint64_t own = sent(4).at(0).first_cycle;
  const std::uint64_t rel = sent(0).at(0).first_cycle;
  // The round robin last served input 5, so input 6 goes first at t; then
  // 3 (t + 1), 6 (t + 2), 3 (t + 3), 6 (t + 4), 3 (t + 5), 6 (t + 6).
  EXPECT_EQ(data, (std::vector<std::uint64_t>{t + 1, t + 3, t + 5, t + 7}));
  EXPECT_EQ(fwd, t + 2);
  EXPECT_EQ(own, t + 4);
  EXPECT_EQ(rel, t + 6);
  expect_empty_buffers();
}

// The model's other engine conventions: every packet in its arrival cycle
// (enqueue_per_cycle 0: a held packet is retaken at once, so all its
// emissions go in that cycle), and one copy per cycle (a take's copies over
// several cycles, the next take after the last of them).
class RingEngineTest : public SwitchModelTest,
                       public ::testing::WithParamInterface<std::pair<unsigned, bool>> {
 protected:
  RingEngineTest() : SwitchModelTest(params()) {}
  static SwitchModelParams params() {
    SwitchModelParams p = ring_params(64);
    p.enqueue_per_cycle = GetParam().first;
    p.enqueue_by_packet = GetParam().second;
    return p;
  }
  std::uint64_t first_tx(unsigned port) { return m.transmitted(port).at(0).first_cycle; }
};

TEST_P(RingEngineTest, AHeldPacketsEmissionsFollowTheEnqueueRate) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  for (const auto& [port, p] : std::vector<std::pair<unsigned, Pkt>>{
           {0, arrive(kE)}, {1, arrive(kE)}, {3, share(kE, 0, 3)}, {5, share(kE, 1, 2)}}) {
    m.receive(port, flits(p), m.cycle());
  }
  ASSERT_TRUE(m.run_until_idle(100));
  const std::size_t before = m.transmitted(2).size();
  ASSERT_EQ(before, 1U);  // the own share of phase 0
  const std::uint64_t t = m.cycle();
  m.receive(3, flits(share(kE, 0, 0)), t);
  ASSERT_TRUE(m.run_until_idle(100));
  ASSERT_EQ(m.transmitted(2).size(), 2U);
  const std::uint64_t fwd = m.transmitted(2)[1].first_cycle;
  if (GetParam().first == 0) {
    // Forwarded copy, own share of phase 1 and release: all taken in t, so
    // all ready at t + 1; three packets of one input leave through its one
    // read port in three cycles (in the outputs' round-robin order), each
    // one-flit packet's copies together.
    std::vector<std::uint64_t> c = {fwd, first_tx(4), first_tx(0)};
    std::sort(c.begin(), c.end());
    EXPECT_EQ(c, (std::vector<std::uint64_t>{t + 1, t + 2, t + 3}));
    EXPECT_EQ(first_tx(5), first_tx(4));
    EXPECT_EQ(first_tx(1), first_tx(0));
  } else {
    // One copy per cycle: t the forwarded copy, t + 1 and t + 2 the own
    // share's two, t + 3 and t + 4 the release's two.
    EXPECT_EQ(fwd, t + 1);
    EXPECT_EQ(first_tx(4), t + 2);
    EXPECT_EQ(first_tx(5), t + 3);
    EXPECT_EQ(first_tx(0), t + 4);
    EXPECT_EQ(first_tx(1), t + 5);
  }
  expect_release(m.transmitted(0)[0].header(), kE);
  expect_share(m.transmitted(4)[0].header(), kE, 1, 0, false);
  for (unsigned p = 0; p < kPorts; ++p) {
    EXPECT_EQ(m.buffer_used(p), 0U);
  }
  EXPECT_EQ(m.stored_packets(), 0U);
}

INSTANTIATE_TEST_SUITE_P(Unlimited, RingEngineTest, ::testing::Values(std::make_pair(0U, false)));
INSTANTIATE_TEST_SUITE_P(OneCopyPerCycle, RingEngineTest,
                         ::testing::Values(std::make_pair(1U, false)));

class RingTwoCellTest : public RingTest {
 protected:
  RingTwoCellTest() : RingTest(2) {}
};

// Two cells per input: the held share and its forwarded copy, which cannot
// leave (output 2 stalled), fill input 3. The next take would hold the
// packet again and needs a cell: it does not happen until the copy left.
TEST_F(RingTwoCellTest, AHoldingTakeWaitsForAFreeCell) {
  program_ring(m, sw, kX, kChildren, kS, kE);
  send(0, arrive(kE));
  send(1, arrive(kE));
  send(3, share(kE, 0, 3));
  send(5, share(kE, 1, 2));
  settle();
  sent(2);
  sent(3);
  m.set_tx_stalled(2, true);
  send(3, share(kE, 0, 0));
  m.run(20);
  EXPECT_EQ(m.buffer_used(3), 2U);
  expect_silent();
  EXPECT_EQ(m.voq_depth(3, 2, 3), 1U);
  const std::uint64_t u = m.cycle();
  m.set_tx_stalled(2, false);
  settle();
  // Cycle u: the copy leaves (its cell returns at the edge); u + 1: the
  // retake, own share of phase 1, a fresh cell again (the release is still
  // pending); u + 2: the last retake, the release in the packet's own cell.
  EXPECT_EQ(sent(2).at(0).first_cycle, u);
  EXPECT_EQ(sent(4).at(0).first_cycle, u + 2);
  EXPECT_EQ(sent(5).at(0).first_cycle, u + 2);
  EXPECT_EQ(sent(0).at(0).first_cycle, u + 3);
  EXPECT_EQ(sent(1).at(0).first_cycle, u + 3);
  expect_empty_buffers();
}

// ---------------------------------------------------------------------------
// Model switches wired by the test into a torus (dimensions of size 1 left
// out, so {5} is a ring of five), the group's entries computed as §9.1 says
// the subnet manager does, members emulated as §3's NIC: post epoch E, send
// COMB_ARRIVE, re-send it after `timeout` cycles without the release,
// complete on COMB_RELEASE(E).

struct FabricCfg {
  std::vector<unsigned> dims;          // switches per dimension
  std::vector<unsigned> members;       // per switch: members on ports 0 .. n - 1 (at most 2)
  std::uint16_t first_epoch = 0xFFFE;  // wraps during the run
  unsigned barriers = 2;
  std::uint64_t timeout = 0;  // 0: members never re-send
  double lose_share = 0;      // per COMB_SHARE crossing a link
  double lose_release = 0;    // per COMB_RELEASE to a member
  double lose_arrive = 0;     // per COMB_ARRIVE from a member
  unsigned post_delay = 0;    // a member posts its next barrier 0 .. post_delay cycles after
  std::uint64_t seed = 1;
  std::uint64_t max_cycles = 20000;
};

class RingFabric {
 public:
  static constexpr unsigned kFx = 7;  // the group's MFT index on every switch
  static constexpr std::uint16_t kMlid = fmt::kMlidBase + kFx;

  explicit RingFabric(const FabricCfg& cfg) : cfg_(cfg), rng_(cfg.seed) {
    for (unsigned k = 0; k < cfg.dims.size(); ++k) {
      if (cfg.dims[k] > 1) {
        phase_dim_.push_back(k);
      }
    }
    n_ = 1;
    for (const unsigned l : cfg.dims) {
      n_ *= l;
    }
    for (unsigned s = 0; s < n_; ++s) {
      SwitchModelParams p = ring_params(64);
      p.fwd_latency = 3;  // the RTL's, as in the co-simulation
      p.shared_wred = true;
      sw_.push_back(std::make_unique<SwitchModel>(p));
      // RING_TRACE set: every switch's combine decisions on stdout.
      if (std::getenv("RING_TRACE") != nullptr) {
        sw_.back()->set_trace([s](std::string_view t) {
          if (t.find("COMBINE") != std::string_view::npos) {
            std::printf("s%u %.*s\n", s, static_cast<int>(t.size()), t.data());
          }
        });
      }
      drv_.push_back(std::make_unique<driver::Switch>(sw_.back()->csr()));
      drv_.back()->enable(true);
      for (unsigned port = 0; port < cfg.members.at(s); ++port) {
        members_.push_back({.sw = s, .port = port, .releases = {}});
      }
    }
    seen_.assign(n_, std::vector<std::size_t>(kPorts, 0));
    next_rx_.assign(n_, std::vector<std::uint64_t>(kPorts, 0));
    program();
  }

  // Runs every barrier to its end (or max_cycles), then drains the switches.
  // Failures are reported through GoogleTest.
  void run() {
    while (!all_done() && now() < cfg_.max_cycles) {
      step();
    }
    EXPECT_TRUE(all_done()) << "not every member completed " << cfg_.barriers
                            << " barriers by cycle " << now() << " (" << stuck() << ")";
    for (unsigned k = 0; k < 200 && !idle(); ++k) {
      step();
    }
    EXPECT_TRUE(idle()) << "switches still busy after the last release";
  }

  // Loses a share switch `from` sent on `port` when it returns true.
  void set_loss(std::function<bool(unsigned from, unsigned port, const fmt::PktHdr&)> lose) {
    lose_ = std::move(lose);
  }
  [[nodiscard]] std::uint64_t now() const { return sw_[0]->cycle(); }
  [[nodiscard]] SwitchModel& sw(unsigned s) { return *sw_.at(s); }
  [[nodiscard]] unsigned switches() const { return n_; }
  // Releases each member received per epoch offset (0 .. barriers - 1).
  [[nodiscard]] unsigned releases(unsigned member, unsigned b) const {
    return members_.at(member).releases.at(b);
  }
  [[nodiscard]] unsigned member_count() const { return static_cast<unsigned>(members_.size()); }
  [[nodiscard]] unsigned resends() const { return resends_; }
  [[nodiscard]] unsigned lost() const { return lost_; }
  [[nodiscard]] std::uint64_t completion(unsigned b) const { return last_release_.at(b); }
  [[nodiscard]] std::uint32_t no_route() {
    std::uint32_t n = 0;
    for (auto& d : drv_) {
      for (unsigned port = 0; port < kPorts; ++port) {
        for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
          n += d->counter(port, q, SwCounter::kDropNoRoute);
        }
      }
    }
    return n;
  }
  // Whether switch s's entry waits for something (a relay does not).
  [[nodiscard]] bool waits(unsigned s) const { return waits_.at(s); }
  [[nodiscard]] std::uint16_t epoch(unsigned s) const {
    return sw_.at(s)->csr().combine()[kFx].epoch;
  }

 private:
  struct Member {
    unsigned sw = 0;
    unsigned port = 0;
    unsigned done = 0;  // barriers completed
    bool active = false;
    std::uint64_t post_at = 0;
    std::uint64_t sent_at = 0;
    std::vector<unsigned> releases;
  };

  [[nodiscard]] unsigned coord(unsigned s, unsigned k) const {
    unsigned stride = 1;
    for (unsigned j = 0; j < k; ++j) {
      stride *= cfg_.dims[j];
    }
    return s / stride % cfg_.dims[k];
  }
  [[nodiscard]] unsigned with_coord(unsigned s, unsigned k, unsigned c) const {
    unsigned stride = 1;
    for (unsigned j = 0; j < k; ++j) {
      stride *= cfg_.dims[j];
    }
    return s - coord(s, k) * stride + c * stride;
  }
  [[nodiscard]] unsigned phases() const { return static_cast<unsigned>(phase_dim_.size()); }
  // Domain d of s (§9.1): the switches agreeing with s on every phase
  // dimension above d; d = -1 is s itself.
  [[nodiscard]] bool in_domain(unsigned s, unsigned t, int d) const {
    if (d < 0) {
      return s == t;
    }
    for (unsigned p = static_cast<unsigned>(d) + 1; p < phases(); ++p) {
      if (coord(s, phase_dim_[p]) != coord(t, phase_dim_[p])) {
        return false;
      }
    }
    return true;
  }
  [[nodiscard]] bool origin(unsigned s, unsigned d) const {
    for (unsigned t = 0; t < n_; ++t) {
      if (cfg_.members[t] > 0 && in_domain(s, t, static_cast<int>(d) - 1)) {
        return true;
      }
    }
    return false;
  }
  [[nodiscard]] static unsigned plus_port(unsigned d) { return 2 + 2 * d; }
  [[nodiscard]] unsigned minus_port(unsigned d) const {
    return cfg_.dims[phase_dim_[d]] == 2 ? plus_port(d) : 3 + 2 * d;
  }

  // What §9.1 says the subnet manager gives each switch, written through
  // the tables; the links of every phase's rings.
  void program() {
    waits_.assign(n_, false);
    for (unsigned s = 0; s < n_; ++s) {
      const std::uint32_t children = (1U << cfg_.members[s]) - 1U;
      std::vector<PhaseCfg> ph(phases());
      bool any = children != 0;
      bool waits = children != 0;
      for (unsigned d = 0; d < phases(); ++d) {
        const unsigned k = phase_dim_[d];
        const unsigned len = cfg_.dims[k];
        bool needs = cfg_.members[s] > 0;
        for (unsigned e = d + 1; e < phases(); ++e) {
          needs = needs || origin(s, e);
        }
        bool valid = false;
        std::uint32_t expect = 0;
        for (unsigned c = 0; c < len; ++c) {
          const unsigned t = with_coord(s, k, c);
          valid = valid || origin(t, d);
          if (t != s && origin(t, d) && needs) {
            expect |= 1U << c;
          }
        }
        if (valid) {
          ph[d] = {geometry(plus_port(d), minus_port(d), coord(s, k), len, origin(s, d)), expect};
          any = true;
          waits = waits || expect != 0;
        }
        // Links: PLUS of s to MINUS of its + neighbour, both ways.
        const unsigned nb = with_coord(s, k, (coord(s, k) + 1) % len);
        link_[{s, plus_port(d)}] = {nb, minus_port(d)};
        link_[{nb, minus_port(d)}] = {s, plus_port(d)};
      }
      waits_[s] = waits;
      if (any) {
        program_ring(*sw_[s], *drv_[s], kFx, children, ph, cfg_.first_epoch);
      }
    }
    for (Member& m : members_) {
      m.releases.assign(cfg_.barriers, 0);
    }
    last_release_.assign(cfg_.barriers, 0);
  }

  bool chance(double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  void deliver(unsigned s, unsigned port, const std::vector<Flit>& f) {
    std::uint64_t& at = next_rx_[s][port];
    at = std::max(at, sw_[s]->cycle());
    sw_[s]->receive(port, f, at);
    at += f.size();
  }

  void send_arrival(Member& m) {
    const std::uint16_t e = epoch_of(m.done);
    m.sent_at = now();
    if (chance(cfg_.lose_arrive)) {
      ++lost_;
      return;
    }
    fmt::PktHdr h;
    h.set_pkt_type(PktType::kCombArrive)
        .set_len_flits(1)
        .set_src_lid(static_cast<std::uint16_t>(0x100 + m.sw * 4 + m.port))
        .set_dst_lid(kMlid)
        .set_prio(3)
        .set_ctx(1)
        .set_epoch(e);
    deliver(m.sw, m.port, {h.bytes()});
  }

  [[nodiscard]] std::uint16_t epoch_of(unsigned b) const {
    return static_cast<std::uint16_t>(cfg_.first_epoch + b);
  }

  void step() {
    const std::uint64_t t = now();
    for (unsigned k = 0; k < members_.size(); ++k) {
      Member& m = members_[k];
      if (!m.active && m.done < cfg_.barriers && t >= m.post_at) {
        m.active = true;
        posted_[m.done].insert_or_assign(k, t);
        send_arrival(m);
      } else if (m.active && cfg_.timeout != 0 && t - m.sent_at >= cfg_.timeout) {
        ++resends_;
        send_arrival(m);
      }
    }
    for (auto& s : sw_) {
      s->tick();
    }
    for (unsigned s = 0; s < n_; ++s) {
      for (unsigned port = 0; port < kPorts; ++port) {
        const auto& log = sw_[s]->transmitted(port);
        for (std::size_t& i = seen_[s][port]; i < log.size(); ++i) {
          const fmt::PktHdr h = log[i].header();
          if (port < cfg_.members[s]) {
            to_member(s, port, h);
            continue;
          }
          EXPECT_EQ(h.pkt_type(), PktType::kCombShare) << "switch " << s << " port " << port;
          const auto l = link_.find({s, port});
          ASSERT_NE(l, link_.end()) << "switch " << s << " sent on unlinked port " << port;
          if (chance(cfg_.lose_share) || (lose_ && lose_(s, port, h))) {
            ++lost_;
            continue;
          }
          deliver(l->second.first, l->second.second, log[i].flits);
        }
      }
    }
  }

  void to_member(unsigned s, unsigned port, const fmt::PktHdr& h) {
    ASSERT_EQ(h.pkt_type(), PktType::kCombRelease) << "switch " << s << " port " << port;
    unsigned k = 0;
    while (members_[k].sw != s || members_[k].port != port) {
      ++k;
    }
    Member& m = members_[k];
    // Which barrier: the epochs of this run are first_epoch + 0 .. barriers - 1.
    const auto b = static_cast<unsigned>(static_cast<std::uint16_t>(h.epoch() - cfg_.first_epoch));
    ASSERT_LT(b, cfg_.barriers) << "release of epoch " << h.epoch() << " nobody posted";
    // Safety: every member posted barrier b before any release of it.
    ASSERT_EQ(posted_[b].size(), members_.size())
        << "release of epoch " << h.epoch() << " at cycle " << now() << " to switch " << s
        << " port " << port << " before every member arrived";
    if (chance(cfg_.lose_release)) {
      ++lost_;
      return;
    }
    ++m.releases[b];
    last_release_[b] = std::max(last_release_[b], now());
    if (m.active && b == m.done) {
      m.active = false;
      ++m.done;
      m.post_at = now() + (cfg_.post_delay == 0
                               ? 0
                               : std::uniform_int_distribution<unsigned>(0, cfg_.post_delay)(rng_));
    } else {
      ASSERT_LT(b, m.done) << "a release of a barrier the member has not reached";
    }
  }

  [[nodiscard]] bool all_done() const {
    return std::all_of(members_.begin(), members_.end(),
                       [&](const Member& m) { return m.done == cfg_.barriers; });
  }
  [[nodiscard]] bool idle() const {
    return std::all_of(sw_.begin(), sw_.end(), [](const auto& s) { return s->idle(); });
  }
  [[nodiscard]] std::string stuck() const {
    std::string out;
    for (const Member& m : members_) {
      out += "s" + std::to_string(m.sw) + "p" + std::to_string(m.port) + ":" +
             std::to_string(m.done) + " ";
    }
    for (unsigned s = 0; s < n_; ++s) {
      out += "E" + std::to_string(s) + "=" + std::to_string(epoch(s)) + " ";
    }
    return out;
  }

  FabricCfg cfg_;
  std::mt19937_64 rng_;
  std::vector<unsigned> phase_dim_;
  unsigned n_ = 0;
  std::vector<std::unique_ptr<SwitchModel>> sw_;
  std::vector<std::unique_ptr<driver::Switch>> drv_;
  std::vector<Member> members_;
  std::map<std::pair<unsigned, unsigned>, std::pair<unsigned, unsigned>> link_;
  std::vector<std::vector<std::size_t>> seen_;
  std::vector<std::vector<std::uint64_t>> next_rx_;
  std::map<unsigned, std::map<unsigned, std::uint64_t>> posted_;  // barrier -> member -> cycle
  std::vector<std::uint64_t> last_release_;
  std::vector<bool> waits_;
  std::function<bool(unsigned, unsigned, const fmt::PktHdr&)> lose_;
  unsigned resends_ = 0;
  unsigned lost_ = 0;
};

// Every member released exactly once per barrier, nothing refused, every
// entry that waits for something at the epoch after the last barrier.
void expect_clean(RingFabric& f, const FabricCfg& cfg) {
  for (unsigned k = 0; k < f.member_count(); ++k) {
    for (unsigned b = 0; b < cfg.barriers; ++b) {
      EXPECT_EQ(f.releases(k, b), 1U) << "member " << k << " barrier " << b;
    }
  }
  EXPECT_EQ(f.no_route(), 0U);
  EXPECT_EQ(f.resends(), 0U);
  for (unsigned s = 0; s < f.switches(); ++s) {
    if (f.waits(s)) {
      EXPECT_EQ(f.epoch(s), static_cast<std::uint16_t>(cfg.first_epoch + cfg.barriers))
          << "switch " << s;
    }
  }
}

TEST(RingFabric, RingOfFiveWithRelaysReleasesEveryMemberOncePerBarrier) {
  // Members on switches 0 (two), 2 and 3; switches 1 and 4 only relay.
  const FabricCfg cfg{.dims = {5}, .members = {2, 0, 1, 1, 0}};
  RingFabric f(cfg);
  f.run();
  expect_clean(f, cfg);
  EXPECT_FALSE(f.waits(1));
  EXPECT_FALSE(f.waits(4));
}

TEST(RingFabric, ThreeByTwoTorusReleasesEveryMemberOncePerBarrier) {
  // Switches 1, 3 and 4 have no members but carry phase 0's result of
  // their row into phase 1 (ORIGIN_1).
  const FabricCfg cfg{
      .dims = {3, 2}, .members = {2, 0, 1, 0, 0, 1}, .barriers = 3, .post_delay = 7};
  RingFabric f(cfg);
  f.run();
  expect_clean(f, cfg);
}

// Members on 0, 2 and 5; switch 3 has none. Its phase 1 share (row 1 is
// in) is what switch 0 waits for, and it needs 5's phase 0 share for it;
// that share is lost. Switch 5 completes without switch 3 (it needs only 2's
// phase 1 share), so its members never re-send, and switch 3 has no members
// to time out. Switch 0's members re-send: its re-ask sends its phase 1
// share with ask 1 to switch 3, which re-asks in turn: a query of phase 0
// (it has no ORIGIN_0), which switch 5, having completed E, answers.
TEST(RingFabric, MemberlessSwitchShortOfAShareRecovers) {
  bool lost = false;
  const FabricCfg cfg{.dims = {3, 2},
                      .members = {2, 0, 1, 0, 0, 1},
                      .barriers = 2,
                      .timeout = 80,
                      .max_cycles = 5000};
  RingFabric f(cfg);
  f.set_loss([&](unsigned from, unsigned port, const fmt::PktHdr& h) {
    if (lost || from != 5 || port != 2 || h.round() != 0) {
      return false;
    }
    lost = true;
    return true;
  });
  f.run();
  EXPECT_TRUE(lost);
  EXPECT_GT(f.resends(), 0U);
  for (unsigned k = 0; k < f.member_count(); ++k) {
    for (unsigned b = 0; b < cfg.barriers; ++b) {
      EXPECT_EQ(f.releases(k, b), 1U) << "member " << k << " barrier " << b;
    }
  }
  EXPECT_EQ(f.no_route(), 0U);
}

// Not live as docs/group-barrier.md §9 stands. The same torus. Switch 3
// needs no phase 1 result (no members, no ORIGIN above phase 1: EXPECT_1 =
// 0), so it completes an epoch on switch 5's phase 0 share alone. In the
// first epoch e, switch 3's phase 1 share to switch 0 and switch 2's phase 0
// share to switch 0 are lost. Switch 5 completes e without switch 0 (it
// needs 2's phase 1 share, and 2 heard 0's phase 0 share), its member
// arrives at e + 1 and switch 3 completes e + 1. Switch 0's members re-send
// after the timeout; 2 answers, 0 reaches done_0 and sends its phase 1
// share of e (with ask), but switch 3 is at e + 2 by then: it answers with
// its share of e, since it answers a share that asks for any epoch behind
// its own (an answer only for E - 1 would leave switch 0's members waiting
// for ever).
TEST(RingFabric, MemberlessSwitchTwoEpochsAheadAnswers) {
  unsigned lost = 0;
  const FabricCfg cfg{.dims = {3, 2},
                      .members = {2, 0, 1, 0, 0, 1},
                      .barriers = 3,
                      .timeout = 80,
                      .max_cycles = 5000};
  RingFabric f(cfg);
  f.set_loss([&](unsigned from, unsigned /*port*/, const fmt::PktHdr& h) {
    if (h.epoch() != cfg.first_epoch || h.answer() || h.ask() != 0) {
      return false;
    }
    if ((from == 3 && h.round() == 1) || (from == 2 && h.round() == 0)) {
      ++lost;
      return true;
    }
    return false;
  });
  f.run();
  EXPECT_GT(lost, 0U);
}

// Seeded losses of shares, releases and arrivals; members re-send after a
// timeout as the NIC does. Every barrier must still complete, and no
// release may come before every member arrived.
void run_lossy(const FabricCfg& base, std::uint64_t seed) {
  FabricCfg cfg = base;
  cfg.seed = seed;
  SCOPED_TRACE("seed " + std::to_string(seed) + "; replay: " + replay_command(seed));
  std::printf("replay: %s\n", replay_command(seed).c_str());
  RingFabric f(cfg);
  f.run();
  for (unsigned k = 0; k < f.member_count(); ++k) {
    for (unsigned b = 0; b < cfg.barriers; ++b) {
      EXPECT_GE(f.releases(k, b), 1U) << "member " << k << " barrier " << b;
    }
  }
  std::printf("seed %llu: %u packets lost, %u re-sends, last release at cycle %llu\n",
              static_cast<unsigned long long>(seed), f.lost(), f.resends(),
              static_cast<unsigned long long>(f.completion(cfg.barriers - 1)));
  EXPECT_GT(f.lost(), 0U);
}

TEST(RingFabric, RandomLossesOnARingStillCompleteWithoutEarlyRelease) {
  const FabricCfg cfg{.dims = {5},
                      .members = {2, 0, 1, 1, 0},
                      .barriers = 6,
                      .timeout = 80,
                      .lose_share = 0.2,
                      .lose_release = 0.1,
                      .lose_arrive = 0.1,
                      .post_delay = 20,
                      .max_cycles = 50000};
  for (const auto seed : seeds({1, 2, 3, 4})) {
    run_lossy(cfg, seed);
    if (HasFailure()) {
      return;
    }
  }
}

TEST(RingFabric, RandomLossesOnATorusStillCompleteWithoutEarlyRelease) {
  // Every switch has members: §9.5's liveness argument (a switch short of a
  // share has members that time out) covers every switch.
  const FabricCfg cfg{.dims = {3, 2},
                      .members = {1, 2, 1, 1, 1, 2},
                      .barriers = 6,
                      .timeout = 80,
                      .lose_share = 0.2,
                      .lose_release = 0.1,
                      .lose_arrive = 0.1,
                      .post_delay = 20,
                      .max_cycles = 50000};
  for (const auto seed : seeds({1, 2, 3, 4})) {
    run_lossy(cfg, seed);
    if (HasFailure()) {
      return;
    }
  }
}

// A third of these seeds (3, 4, 7, ...) meet the case of
// MemberlessSwitchTwoEpochsAheadAnswers, a switch two epochs ahead of one
// that waits on it.
TEST(RingFabric, RandomLossesOnATorusWithMemberlessSwitchesStillComplete) {
  // Switches 1, 3 and 4 have no members: a share they lack is asked for only
  // through the re-asks of the switches that wait on them.
  const FabricCfg cfg{.dims = {3, 2},
                      .members = {2, 0, 1, 0, 0, 1},
                      .barriers = 6,
                      .timeout = 80,
                      .lose_share = 0.2,
                      .lose_release = 0.1,
                      .lose_arrive = 0.1,
                      .post_delay = 20,
                      .max_cycles = 50000};
  for (const auto seed : seeds({1, 2, 3, 4})) {
    run_lossy(cfg, seed);
    if (HasFailure()) {
      return;
    }
  }
}

TEST(RingFabric, RandomLossesOnAThreeDimensionalTorusWithFewMembersStillComplete) {
  // 3 x 3 x 2, members on 4 of the 18 switches: three phases, so re-asks
  // go two levels deep, and whole rows and planes have no members.
  std::vector<unsigned> members(18, 0);
  members[0] = 2;   // (0, 0, 0)
  members[4] = 1;   // (1, 1, 0)
  members[11] = 1;  // (2, 0, 1)
  members[15] = 1;  // (0, 2, 1)
  const FabricCfg cfg{.dims = {3, 3, 2},
                      .members = members,
                      .barriers = 4,
                      .timeout = 120,
                      .lose_share = 0.15,
                      .lose_release = 0.1,
                      .lose_arrive = 0.1,
                      .post_delay = 20,
                      .max_cycles = 80000};
  for (const auto seed : seeds({1, 2})) {
    run_lossy(cfg, seed);
    if (HasFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace syncfab::model::test
