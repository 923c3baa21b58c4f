// The switch's combine unit (docs/group-barrier.md §5) in the whole-switch
// model: a one-switch group, a non-root entry with its parent port driven by
// the test, two switches wired by the test, duplicates, re-sent releases,
// refused packets, the combine tables and the cells of absorbed packets.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <syncfab/hw/switch_regs.hpp>

#include "switch_model_fixture.hpp"

namespace syncfab::model::test {
namespace {

namespace r = hw::switch_regs;
using fmt::PktType;
using fmt::SwCounter;

constexpr unsigned kX = 3;  // combine entry / MFT index
constexpr std::uint16_t kGroup = fmt::kMlidBase + kX;
constexpr unsigned kTblChildren = 2;
constexpr unsigned kTblControl = 3;

std::uint32_t control(bool valid, bool root, unsigned parent, std::uint16_t epoch) {
  return (valid ? CombineEntry::kValidBit : 0U) | (root ? CombineEntry::kRootBit : 0U) |
         (std::uint32_t{epoch} << CombineEntry::kEpochShift) | parent;
}

struct Comb {
  PktType type = PktType::kCombArrive;
  std::uint16_t epoch = 0;
  std::uint16_t dst = kGroup;
  std::uint16_t src = 0x0011;
  unsigned prio = 3;
  std::uint8_t ctx = 2;
  unsigned len = 1;
};

std::vector<Flit> comb_flits(const Comb& c) {
  fmt::PktHdr h;
  h.set_pkt_type(c.type)
      .set_len_flits(static_cast<std::uint8_t>(c.len))
      .set_src_lid(c.src)
      .set_dst_lid(c.dst)
      .set_prio(static_cast<std::uint8_t>(c.prio))
      .set_dscp(9)
      .set_ecn(fmt::Ecn::kEct0)
      .set_flow_label(0x12345)
      .set_ctx(c.ctx)
      .set_epoch(c.epoch);
  std::vector<Flit> f(c.len, Flit{});
  f[0] = h.bytes();
  return f;
}

// Table access through the CSR block, as software does it.
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

// Programs a combine entry the way the subnet manager does: the MFT, the
// children, then the control word.
void program(SwitchModel& m, driver::Switch& sw, std::uint32_t children, bool root, unsigned parent,
             std::uint16_t epoch, unsigned x = kX) {
  sw.set_mft(static_cast<std::uint16_t>(fmt::kMlidBase + x),
             root ? children : children | (1U << parent));
  table_write(m.csr(), kTblChildren, x, children);
  table_write(m.csr(), kTblControl, x, control(true, root, parent, epoch));
}

class CombineTest : public SwitchModelTest {
 protected:
  std::uint64_t send(unsigned port, const Comb& c) {
    const auto f = comb_flits(c);
    const std::uint64_t at = std::max(m.cycle(), next_[port]);
    next_[port] = at + f.size();
    return m.receive(port, f, at);
  }
  void settle() { ASSERT_TRUE(m.run_until_idle(1000)); }
  // Copies sent on a port since the last look.
  std::vector<TxPacket> sent(unsigned port) {
    const auto& log = m.transmitted(port);
    std::vector<TxPacket> got(log.begin() + static_cast<std::ptrdiff_t>(seen_[port]), log.end());
    seen_[port] = log.size();
    return got;
  }
  std::uint16_t entry_epoch() {
    return static_cast<std::uint16_t>(table_read(m.csr(), kTblControl, kX) >>
                                      CombineEntry::kEpochShift);
  }
  void expect_empty_buffers() {
    for (unsigned p = 0; p < m.ports(); ++p) {
      EXPECT_EQ(m.buffer_used(p), 0U) << "port " << p;
    }
    EXPECT_EQ(m.stored_packets(), 0U);
  }
  std::uint32_t no_route(unsigned port, unsigned prio = 3) {
    return cnt(port, prio, SwCounter::kDropNoRoute);
  }

  std::array<std::uint64_t, 4> next_{};
  std::array<std::size_t, 4> seen_{};
};

void expect_emitted(const TxPacket& p, PktType type, std::uint16_t epoch) {
  const fmt::PktHdr h = p.header();
  EXPECT_EQ(h.pkt_type(), type);
  EXPECT_EQ(h.src_lid(), fmt::kLidNone);
  EXPECT_EQ(h.dst_lid(), kGroup);
  EXPECT_EQ(h.len_flits(), 1);
  EXPECT_EQ(p.flits.size(), 1U);
  EXPECT_EQ(h.epoch(), epoch);
  EXPECT_EQ(h.ctx(), 2);
  EXPECT_EQ(h.prio(), 3);
  EXPECT_EQ(h.dscp(), 9);
  EXPECT_EQ(h.ecn(), fmt::Ecn::kEct0);
  EXPECT_EQ(h.flow_label(), 0x12345U);
}

TEST_F(CombineTest, RootCombinesAOneSwitchGroupAndReleasesEveryChild) {
  program(m, sw, 0b0111, true, 0, 5);
  send(0, {.epoch = 5});
  send(1, {.epoch = 5});
  settle();
  for (unsigned p = 0; p < 4; ++p) {
    EXPECT_TRUE(sent(p).empty()) << p;
  }
  expect_empty_buffers();  // absorbed arrivals free their cells at once
  EXPECT_EQ(entry_epoch(), 5);
  const std::uint64_t t = m.cycle();
  send(2, {.epoch = 5});
  settle();
  for (unsigned p = 0; p < 3; ++p) {  // every child, the last arrival's port included
    const auto s = sent(p);
    ASSERT_EQ(s.size(), 1U) << p;
    expect_emitted(s[0], PktType::kCombRelease, 5);
    EXPECT_EQ(s[0].in_port, 2U);
  }
  // Like any multicast copy: the first leaves the cycle after the arrival,
  // the others after it through the input's one read port.
  std::uint64_t first = ~0ULL;
  for (unsigned p = 0; p < 3; ++p) {
    first = std::min(first, m.transmitted(p)[0].first_cycle);
  }
  EXPECT_EQ(first, t + 1);
  EXPECT_TRUE(sent(3).empty());
  EXPECT_EQ(entry_epoch(), 6);
  EXPECT_EQ(m.csr().combine()[kX].arrived, 0U);
  for (unsigned p = 0; p < 3; ++p) {
    EXPECT_EQ(cnt(p, 3, SwCounter::kRx), 1U);
    EXPECT_EQ(cnt(p, 3, SwCounter::kTx), 1U);
    EXPECT_EQ(no_route(p), 0U);
  }
  expect_empty_buffers();
}

TEST_F(CombineTest, DuplicateArrivalsAtARootAreAbsorbed) {
  program(m, sw, 0b0011, true, 0, 9);
  send(0, {.epoch = 9});
  send(0, {.epoch = 9});  // re-sent
  settle();
  EXPECT_TRUE(sent(0).empty());
  EXPECT_EQ(m.csr().combine()[kX].arrived, 0b0001U);
  send(1, {.epoch = 9});
  settle();
  EXPECT_EQ(sent(0).size(), 1U);
  EXPECT_EQ(sent(1).size(), 1U);
  EXPECT_EQ(no_route(0), 0U);
  expect_empty_buffers();
}

TEST_F(CombineTest, ArrivalOfThePreviousEpochGetsTheReleaseOnItsPortOnly) {
  program(m, sw, 0b0111, true, 0, 0);
  for (unsigned p = 0; p < 3; ++p) {
    send(p, {.epoch = 0});
  }
  settle();
  for (unsigned p = 0; p < 3; ++p) {
    sent(p);
  }
  send(1, {.epoch = 0});  // its release was lost
  settle();
  const auto s = sent(1);
  ASSERT_EQ(s.size(), 1U);
  expect_emitted(s[0], PktType::kCombRelease, 0);
  EXPECT_TRUE(sent(0).empty());
  EXPECT_TRUE(sent(2).empty());
  EXPECT_EQ(entry_epoch(), 1);
  // Any other epoch (E + 1, E - 2) is dropped.
  send(0, {.epoch = 2});
  send(0, {.epoch = 0xFFFF});
  settle();
  EXPECT_EQ(no_route(0), 2U);
  expect_empty_buffers();
}

TEST_F(CombineTest, EpochWrapsAndEMinusOneIsModulo) {
  program(m, sw, 0b0011, true, 0, 0xFFFF);
  send(0, {.epoch = 0xFFFF});
  send(1, {.epoch = 0xFFFF});
  settle();
  EXPECT_EQ(entry_epoch(), 0);
  sent(0);
  sent(1);
  send(0, {.epoch = 0xFFFF});  // E - 1 mod 2^16
  settle();
  EXPECT_EQ(sent(0).size(), 1U);
}

TEST_F(CombineTest, NonRootSendsOneArrivalUpAndReSendsClimb) {
  program(m, sw, 0b0011, false, 3, 20);  // children 0, 1; parent 3
  send(0, {.epoch = 20});
  settle();
  EXPECT_TRUE(sent(3).empty());
  send(0, {.epoch = 20});  // a duplicate while not complete: absorbed
  settle();
  EXPECT_TRUE(sent(3).empty());
  send(1, {.epoch = 20});
  settle();
  auto up = sent(3);
  ASSERT_EQ(up.size(), 1U);
  expect_emitted(up[0], PktType::kCombArrive, 20);
  EXPECT_EQ(entry_epoch(), 20);  // waits for its release
  // A re-send while the entry waits for its release climbs again.
  send(0, {.epoch = 20});
  settle();
  up = sent(3);
  ASSERT_EQ(up.size(), 1U);
  expect_emitted(up[0], PktType::kCombArrive, 20);
  EXPECT_TRUE(sent(0).empty());
  EXPECT_TRUE(sent(1).empty());
  expect_empty_buffers();
}

TEST_F(CombineTest, ReleaseFromTheParentAdvancesFromAChildIsDropped) {
  program(m, sw, 0b0011, false, 3, 20);
  send(0, {.epoch = 20});
  send(1, {.epoch = 20});
  settle();
  sent(3);
  send(0, {.type = PktType::kCombRelease, .epoch = 20});  // from a child
  settle();
  EXPECT_EQ(no_route(0), 1U);
  EXPECT_EQ(entry_epoch(), 20);
  send(3, {.type = PktType::kCombRelease, .epoch = 20, .src = 0});
  settle();
  for (unsigned p = 0; p < 2; ++p) {
    const auto s = sent(p);
    ASSERT_EQ(s.size(), 1U) << p;
    expect_emitted(s[0], PktType::kCombRelease, 20);
  }
  EXPECT_TRUE(sent(3).empty());
  EXPECT_EQ(entry_epoch(), 21);
  // The parent re-sends release 20 (a member below re-sent): down again.
  send(3, {.type = PktType::kCombRelease, .epoch = 20, .src = 0});
  settle();
  EXPECT_EQ(sent(0).size(), 1U);
  EXPECT_EQ(sent(1).size(), 1U);
  // Release 21 before its arrivals, release 22: dropped.
  send(3, {.type = PktType::kCombRelease, .epoch = 21, .src = 0});
  send(3, {.type = PktType::kCombRelease, .epoch = 22, .src = 0});
  // An arrival from the parent port: not a child.
  send(3, {.epoch = 21});
  settle();
  EXPECT_EQ(no_route(3), 3U);
  EXPECT_EQ(entry_epoch(), 21);
  expect_empty_buffers();
}

TEST_F(CombineTest, ReleaseAtARootIsDropped) {
  program(m, sw, 0b0011, true, 3, 1);
  send(3, {.type = PktType::kCombRelease, .epoch = 1});
  send(0, {.type = PktType::kCombRelease, .epoch = 0});
  settle();
  EXPECT_EQ(no_route(3), 1U);
  EXPECT_EQ(no_route(0), 1U);
  EXPECT_EQ(entry_epoch(), 1);
  expect_empty_buffers();
}

TEST_F(CombineTest, InconsistentOrMissingEntriesDropAndCount) {
  // Entry 3: MFT mask differs from the children of a root.
  sw.set_mft(kGroup, 0b0111);
  table_write(m.csr(), kTblChildren, kX, 0b0011);
  table_write(m.csr(), kTblControl, kX, control(true, true, 0, 1));
  send(0, {.epoch = 1});
  // Entry 4: non-root whose parent is a child.
  sw.set_mft(kGroup + 1, 0b0011);
  table_write(m.csr(), kTblChildren, kX + 1, 0b0011);
  table_write(m.csr(), kTblControl, kX + 1, control(true, false, 1, 1));
  send(0, {.epoch = 1, .dst = kGroup + 1});
  // Entry 5: consistent but not valid; entry 6: valid, MFT not programmed.
  program(m, sw, 0b0011, true, 0, 1, kX + 2);
  table_write(m.csr(), kTblControl, kX + 2, control(false, true, 0, 1));
  send(0, {.epoch = 1, .dst = kGroup + 2});
  table_write(m.csr(), kTblChildren, kX + 3, 0b0011);
  table_write(m.csr(), kTblControl, kX + 3, control(true, true, 0, 1));
  send(0, {.epoch = 1, .dst = kGroup + 3});
  // Entry 7: non-root whose parent port does not exist.
  sw.set_mft(kGroup + 4, 0b0011);
  table_write(m.csr(), kTblChildren, kX + 4, 0b0011);
  table_write(m.csr(), kTblControl, kX + 4, control(true, false, 9, 1));
  send(0, {.epoch = 1, .dst = kGroup + 4});
  // A unicast destination and an MLID beyond the 16 MFT entries.
  send(0, {.epoch = 1, .dst = 0x0005});
  send(0, {.type = PktType::kCombRelease, .epoch = 1, .dst = fmt::kMlidBase + 16});
  settle();
  EXPECT_EQ(no_route(0), 7U);
  EXPECT_EQ(cnt(0, 3, SwCounter::kRx), 7U);
  for (unsigned p = 0; p < 4; ++p) {
    EXPECT_TRUE(sent(p).empty());
  }
  EXPECT_EQ(m.drops().size(), 7U);
  for (const auto& d : m.drops()) {
    EXPECT_EQ(d.reason, SwCounter::kDropNoRoute);
    EXPECT_EQ(d.port, 0U);
    EXPECT_EQ(d.prio, 3U);
  }
  EXPECT_EQ(m.csr().combine()[kX].arrived, 0U);  // an inconsistent entry is not touched
  expect_empty_buffers();
}

TEST_F(CombineTest, MultiFlitCombinePacketIsRefused) {
  program(m, sw, 0b0011, true, 0, 1);
  send(0, {.epoch = 1, .len = 2});
  settle();
  EXPECT_EQ(no_route(0), 1U);
  EXPECT_EQ(m.csr().combine()[kX].arrived, 0U);
  expect_empty_buffers();
}

TEST_F(CombineTest, TablesReadBackAndAControlWriteClearsTheArrivals) {
  EXPECT_GE(m.csr().read32(offsetof(switch_csr_t, VERSION)) & SWITCH_CSR__VERSION__MINOR_bm, 3U);
  program(m, sw, 0b0111, false, 3, 0x1234);
  EXPECT_EQ(table_read(m.csr(), kTblChildren, kX), 0b0111U);
  EXPECT_EQ(table_read(m.csr(), kTblControl, kX), control(true, false, 3, 0x1234));
  // Bits beyond the ports are not stored in the children mask.
  table_write(m.csr(), kTblChildren, kX + 1, 0xFFFF'FFF3U);
  EXPECT_EQ(table_read(m.csr(), kTblChildren, kX + 1), 0b0011U);
  send(0, {.epoch = 0x1234});
  settle();
  EXPECT_EQ(m.csr().combine()[kX].arrived, 0b0001U);
  table_write(m.csr(), kTblControl, kX, control(true, false, 3, 0x1234));
  EXPECT_EQ(m.csr().combine()[kX].arrived, 0U);
  send(1, {.epoch = 0x1234});
  send(2, {.epoch = 0x1234});
  settle();
  EXPECT_TRUE(sent(3).empty());  // port 0's arrival went with the write
  send(0, {.epoch = 0x1234});
  settle();
  EXPECT_EQ(sent(3).size(), 1U);
  send(3, {.type = PktType::kCombRelease, .epoch = 0x1234});
  settle();
  EXPECT_EQ(table_read(m.csr(), kTblControl, kX), control(true, false, 3, 0x1235));
  // An index beyond the MFT: TBL_ERROR.
  table_write(m.csr(), kTblControl, 16, 0);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_TBL_ERROR.mask, 0U);
}

TEST_F(CombineTest, ArriveAndReleaseAreForwardedLikeAnyPacket) {
  sw.set_lft(0x0031, 2);
  sw.set_mft(kGroup, 0b1011);
  send(0, {.type = PktType::kArrive, .epoch = 4, .dst = 0x0031});
  send(1, {.type = PktType::kRelease, .epoch = 4, .dst = kGroup, .src = 0x0031});
  settle();
  const auto a = sent(2);
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].header().pkt_type(), PktType::kArrive);
  EXPECT_EQ(a[0].header().src_lid(), 0x0011);  // untouched
  EXPECT_EQ(sent(0).size(), 1U);
  EXPECT_TRUE(sent(1).empty());  // not back to the input port
  EXPECT_EQ(sent(3).size(), 1U);
}

TEST_F(CombineTest, DisabledSwitchDropsCombinePacketsFirst) {
  program(m, sw, 0b0011, true, 0, 1);
  sw.enable(false);
  send(0, {.epoch = 1});
  settle();
  EXPECT_EQ(cnt(0, 3, SwCounter::kDropDisabled), 1U);
  EXPECT_EQ(m.csr().combine()[kX].arrived, 0U);
}

// Two switches wired by the test: a leaf (children: member ports 0, 1;
// parent: port 3) under the root (children: port 0 = the leaf, port 1 = a
// member), two barriers in a row and a lost release repaired by a re-send.
class TwoLevelCombineTest : public ::testing::Test {
 protected:
  TwoLevelCombineTest()
      : leaf_(small_switch()), root_(small_switch()), lsw_(leaf_.csr()), rsw_(root_.csr()) {
    lsw_.enable(true);
    rsw_.enable(true);
    program(leaf_, lsw_, 0b0011, false, 3, 7);
    program(root_, rsw_, 0b0011, true, 0, 7);
  }
  // One cycle of both switches; leaf port 3 <-> root port 0. A packet the
  // test loses on the way down is not delivered.
  void tick() {
    leaf_.tick();
    root_.tick();
    move(leaf_, 3, root_, 0, up_seen_, false);
    move(root_, 0, leaf_, 3, down_seen_, lose_down_);
  }
  static void move(SwitchModel& from, unsigned out, SwitchModel& to, unsigned in, std::size_t& seen,
                   bool lose) {
    const auto& log = from.transmitted(out);
    for (; seen < log.size(); ++seen) {
      if (!lose) {
        to.receive(in, log[seen].flits, to.cycle());
      }
    }
  }
  void member(SwitchModel& sw, unsigned port, std::uint16_t epoch) {
    sw.receive(port, comb_flits({.epoch = epoch}), sw.cycle());
  }
  void run(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      tick();
    }
  }
  static unsigned releases(const SwitchModel& sw, unsigned port, std::uint16_t epoch) {
    unsigned n = 0;
    for (const auto& p : sw.transmitted(port)) {
      n += p.header().pkt_type() == PktType::kCombRelease && p.header().epoch() == epoch ? 1U : 0U;
    }
    return n;
  }

  SwitchModel leaf_;
  SwitchModel root_;
  driver::Switch lsw_;
  driver::Switch rsw_;
  std::size_t up_seen_ = 0;
  std::size_t down_seen_ = 0;
  bool lose_down_ = false;
};

TEST_F(TwoLevelCombineTest, ArrivalsClimbAndTheReleaseReachesEveryMember) {
  for (std::uint16_t ep = 7; ep < 9; ++ep) {
    member(leaf_, 0, ep);
    member(root_, 1, ep);
    run(10);
    EXPECT_EQ(releases(root_, 1, ep), 0U) << "released before every member arrived";
    member(leaf_, 1, ep);
    run(20);
    EXPECT_EQ(releases(leaf_, 0, ep), 1U);
    EXPECT_EQ(releases(leaf_, 1, ep), 1U);
    EXPECT_EQ(releases(root_, 1, ep), 1U);
    EXPECT_EQ(releases(root_, 0, ep), 1U);  // to the leaf switch
  }
  EXPECT_EQ(leaf_.csr().combine()[kX].epoch, 9);
  EXPECT_EQ(root_.csr().combine()[kX].epoch, 9);
  EXPECT_TRUE(leaf_.idle());
  EXPECT_TRUE(root_.idle());
  EXPECT_EQ(leaf_.buffer_used(0) + leaf_.buffer_used(1) + leaf_.buffer_used(3), 0U);
  EXPECT_EQ(root_.buffer_used(0) + root_.buffer_used(1), 0U);
}

TEST_F(TwoLevelCombineTest, ALostReleaseIsRepairedByTheMembersReSend) {
  lose_down_ = true;
  member(leaf_, 0, 7);
  member(leaf_, 1, 7);
  member(root_, 1, 7);
  run(20);
  EXPECT_EQ(releases(root_, 1, 7), 1U);
  EXPECT_EQ(releases(leaf_, 0, 7), 0U);  // lost between root and leaf
  EXPECT_EQ(root_.csr().combine()[kX].epoch, 8);
  EXPECT_EQ(leaf_.csr().combine()[kX].epoch, 7);
  lose_down_ = false;
  // Member 0 below the leaf times out and re-sends: the leaf waits for its
  // release, so the arrival climbs; the root already advanced (e = E - 1)
  // and re-sends release 7 down that port.
  member(leaf_, 0, 7);
  run(20);
  EXPECT_EQ(releases(root_, 0, 7), 2U);
  EXPECT_EQ(releases(leaf_, 0, 7), 1U);
  EXPECT_EQ(releases(leaf_, 1, 7), 1U);
  EXPECT_EQ(releases(root_, 1, 7), 1U);  // the other member is not bothered
  EXPECT_EQ(leaf_.csr().combine()[kX].epoch, 8);
}

}  // namespace
}  // namespace syncfab::model::test
