// Directed tests of the group barriers in one NIC (docs/group-barrier.md
// §2-4, §6): validation, a member's arrival, release, timeout and re-send,
// the root's arrival set and released epoch, the registers.
#include <stdexcept>

#include <syncfab/hw/errors.hpp>

#include "group_fixture.hpp"

namespace syncfab::model::test {
namespace {

using fmt::ErrCode;
using fmt::Opcode;
using fmt::PktType;

constexpr std::uint16_t kM1 = 0x41;
constexpr std::uint16_t kM2 = 0x42;
constexpr std::uint16_t kM3 = 0x43;

// ------------------------------------------------------------------ validation

struct BadDesc {
  const char* what;
  fmt::BarrierDesc desc;
  ErrCode err;
};

std::vector<BadDesc> bad_descs() {
  std::vector<BadDesc> v;
  const auto m = [](std::uint16_t member, std::uint16_t members) {
    return GroupTest::mcast(1, 5, member, members);
  };
  auto d = m(1, 4);
  d.set_opcode(static_cast<Opcode>(0x04));
  v.push_back({"opcode 4", d, ErrCode::kBadOpcode});
  d = m(1, 4);
  d.set_version(2);
  v.push_back({"version", d, ErrCode::kBadVersion});
  d = m(1, 4);
  d.set_ctx(4);
  v.push_back({"ctx 4 of 4", d, ErrCode::kBadContext});
  d = m(1, 4);
  d.set_cmpl_addr(kFlagAddr + 4).set_mlid(0x10).set_members(0);
  v.push_back({"cmpl_addr before mlid and members", d, ErrCode::kBadAddr});
  d = m(1, 4);
  d.set_mlid(fmt::kMlidBase - 1).set_members(0);
  v.push_back({"mlid below MLID_BASE (before members)", d, ErrCode::kBadLid});
  d = GroupTest::comb(1, 5, 4);
  d.set_mlid(0x0005);
  v.push_back({"COMB mlid unicast", d, ErrCode::kBadLid});
  d = m(1, 4);
  d.set_root_lid(fmt::kLidNone);
  v.push_back({"member > 0, root_lid 0", d, ErrCode::kBadLid});
  d = m(2, 4);
  d.set_root_lid(fmt::kMlidBase);
  v.push_back({"member > 0, root_lid an MLID", d, ErrCode::kBadLid});
  v.push_back({"members 0", m(0, 0), ErrCode::kBadMembers});
  v.push_back({"member = members", m(4, 4), ErrCode::kBadMembers});
  v.push_back({"COMB member = members", GroupTest::gdesc(Opcode::kCombBarrier, 1, 5, 3, 3),
               ErrCode::kBadMembers});
  v.push_back({"MCAST members 4097", m(5, 4097), ErrCode::kBadMembers});
  v.push_back({"root members > MAX_MEMBERS", m(0, 257), ErrCode::kBadMembers});
  return v;
}

TEST_F(GroupTest, EachValidationFailureGivesItsCodeInOrder) {
  const auto cases = bad_descs();
  for (const auto& c : cases) {
    const std::size_t n = eng_.completions().size();
    eng_.csr_write(nic::CQ_TAIL.offset, reg(nic::CQ_HEAD));  // software read the CQ
    post(c.desc);
    ASSERT_TRUE(run_until([&] { return done(n + 1); }, 100)) << c.what;
    EXPECT_EQ(last().status, fmt::CqStatus::kDescError) << c.what;
    EXPECT_EQ(last().err, c.err) << c.what;
  }
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(cnt(Counter::kError), cases.size());
}

TEST_F(GroupTest, RootOnlyIgnoresRootLidAndRoundsAndLargeGroupsPassWhereAllowed) {
  // member 0 needs no root_lid; num_rounds/fanout are not looked at;
  // a member of a group larger than MAX_MEMBERS (not its root) and a
  // COMB_BARRIER beyond MCAST_MAX_MEMBERS are fine.
  auto root = gdesc(Opcode::kMcastBarrier, 0, 1, 0, 3, kMlid, fmt::kLidNone);
  root.set_num_rounds(200).set_fanout_k(0);
  post(root);
  post(mcast(1, 1, 5, 257));
  post(gdesc(Opcode::kCombBarrier, 2, 1, 4999, 5000));
  run(40);
  EXPECT_TRUE(eng_.completions().empty());
  EXPECT_TRUE(eng_.ctx_active(0));
  EXPECT_TRUE(eng_.ctx_active(1));
  EXPECT_TRUE(eng_.ctx_active(2));
  // A second descriptor on a running context.
  post(mcast(1, 2, 5, 257));
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(last().err, ErrCode::kCtxBusy);
}

TEST_F(GroupTest, GroupOfOneCompletesAtOnceAndSendsNothing) {
  post(mcast(0, 7, 0, 1));
  post(gdesc(Opcode::kCombBarrier, 1, 9, 0, 1));
  ASSERT_TRUE(run_until([&] { return done(2); }, 100));
  for (const auto& c : eng_.completions()) {
    EXPECT_EQ(c.status, fmt::CqStatus::kOk);
  }
  EXPECT_EQ(mem_.read64(kFlagAddr), 0xC0DE0007U);
  EXPECT_EQ(mem_.read64(kFlagAddr + 8), 0xC0DE0009U);
  run(20);
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(cnt(Counter::kArriveSent) + cnt(Counter::kReleaseSent), 0U);
}

// -------------------------------------------------------------------- a member

TEST_F(GroupTest, McastMemberSendsArriveAndCompletesOnTheRelease) {
  eng_.csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(5));
  post(mcast(2, 11, 3, 4));
  run(20);
  const auto a = take(PktType::kArrive);
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].dst_lid(), kRoot);
  EXPECT_EQ(a[0].src_lid(), kMe);
  EXPECT_EQ(a[0].ctx(), 2);
  EXPECT_EQ(a[0].epoch(), 11);
  EXPECT_EQ(a[0].member(), 3);
  EXPECT_EQ(a[0].round(), 0);
  EXPECT_EQ(a[0].len_flits(), 1);
  EXPECT_EQ(a[0].prio(), 5);
  EXPECT_EQ(cnt(Counter::kArriveSent), 1U);
  EXPECT_FALSE(done());
  release(2, 11);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(last().status, fmt::CqStatus::kOk);
  EXPECT_EQ(last().epoch, 11);
  EXPECT_EQ(mem_.read64(kFlagAddr + 16), 0xC0DE000BU);
  EXPECT_EQ(cnt(Counter::kReleaseRecv), 1U);
  EXPECT_TRUE(out_.empty());  // a release is not answered
}

TEST_F(GroupTest, ReleaseToOwnLidCompletesAMcastMember) {
  post(mcast(0, 3, 1, 2));
  run(10);
  release(0, 3, kMe);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(last().status, fmt::CqStatus::kOk);
  EXPECT_EQ(cnt(Counter::kReleaseRecv), 1U);
}

TEST_F(GroupTest, CombMemberSendsCombArriveToTheMlidAndTakesOnlyCombRelease) {
  post(comb(1, 40, 8));
  run(20);
  const auto a = take(PktType::kCombArrive);
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].dst_lid(), kMlid);
  EXPECT_EQ(a[0].src_lid(), kMe);
  EXPECT_EQ(a[0].member(), 0);
  EXPECT_EQ(a[0].epoch(), 40);
  // A RELEASE, a COMB_RELEASE to another group or to this node's LID: not it.
  release(1, 40);
  release(1, 40, kMlid + 1, PktType::kCombRelease);
  release(1, 40, kMe, PktType::kCombRelease);
  run(10);
  EXPECT_FALSE(done());
  EXPECT_EQ(cnt(Counter::kDrop), 3U);
  release(1, 40, kMlid, PktType::kCombRelease);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(last().status, fmt::CqStatus::kOk);
  EXPECT_EQ(cnt(Counter::kReleaseRecv), 1U);
}

TEST_F(GroupTest, DuplicateAndStaleReleasesCountDupOrDrop) {
  post(mcast(0, 10, 1, 2));
  run(10);
  release(0, 10);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(take(PktType::kArrive).size(), 1U);
  release(0, 10);                                // duplicate of the finished epoch
  release(0, 9, kMe);                            // older, to own LID
  release(0, 10, kMlid, PktType::kCombRelease);  // a COMB_RELEASE of an old epoch
  run(10);
  EXPECT_EQ(cnt(Counter::kDup), 3U);
  EXPECT_EQ(cnt(Counter::kDrop), 0U);
  release(0, 11);        // newer: no barrier waits for it
  release(3, 10);        // a context that never ran
  release(9, 10);        // no such context
  release(0, 10, 0x77);  // another node's LID
  eng_.receive(group_pkt(PktType::kCombArrive, kM1, kMlid, 0, 10));  // for switches
  run(10);
  EXPECT_EQ(cnt(Counter::kDup), 3U);
  EXPECT_EQ(cnt(Counter::kDrop), 5U);
  EXPECT_EQ(cnt(Counter::kReleaseRecv), 1U);
  EXPECT_EQ(eng_.completions().size(), 1U);
  EXPECT_TRUE(out_.empty());
}

TEST_F(GroupTest, ReleaseOfTheActiveEpochAtTheWrongContextDoesNotComplete) {
  post(mcast(0, 10, 1, 2));
  run(10);
  release(1, 10);
  release(0, 11);
  run(10);
  EXPECT_FALSE(done());
  EXPECT_EQ(cnt(Counter::kDrop), 2U);
}

TEST_F(GroupTest, TimeoutResendsAfterExactCyclesAndTheLimitEndsWithReleaseTimeout) {
  set_timeout(100, 2);
  post(mcast(0, 4, 2, 3));
  run_timed(400);
  const auto a = take(PktType::kArrive);
  ASSERT_EQ(timed_.size(), 3U);
  // HDQ post at cycle 0, dispatched two cycles later, granted and sent in
  // cycle 3; each expiry (100 cycles after the arrival left) re-sends in the
  // next cycle; the third expiry (LIMIT 2 re-sends used) fails.
  EXPECT_EQ(timed_[0].first, 3U);
  EXPECT_EQ(timed_[1].first, 3U + 100 + 1);
  EXPECT_EQ(timed_[2].first, 3U + 2 * 101);
  for (const auto& [t, p] : timed_) {
    EXPECT_EQ(p.pkt_type(), PktType::kArrive) << t;
    EXPECT_EQ(p.epoch(), 4) << t;
  }
  ASSERT_TRUE(done());
  EXPECT_EQ(last().status, fmt::CqStatus::kNetError);
  EXPECT_EQ(last().err, ErrCode::kReleaseTimeout);
  // Ended by the third expiry (cycle 3 + 3*101 - 1), then the completion unit.
  EXPECT_EQ(last().cycle, 3U + 3 * 101 - 1 + eng_.config().completion_cycles);
  EXPECT_EQ(cq_entry(0).err_code(), ErrCode::kReleaseTimeout);
  EXPECT_EQ(cnt(Counter::kArriveSent), 3U);
  EXPECT_EQ(cnt(Counter::kGroupRetry), 2U);
  EXPECT_EQ(cnt(Counter::kError), 1U);
  // The epoch is finished: a late release is a duplicate.
  release(0, 4);
  run(5);
  EXPECT_EQ(cnt(Counter::kDup), 1U);
}

TEST_F(GroupTest, ResendsGoOnWithoutALimitAndStopAtTheRelease) {
  set_timeout(50, 0);
  post(comb(0, 4, 3));
  run_timed(250);  // sends in 3, 54, 105, 156, 207
  EXPECT_EQ(timed_.size(), 5U);
  EXPECT_EQ(cnt(Counter::kGroupRetry), 4U);
  release(0, 4, kMlid, PktType::kCombRelease);
  run_timed(500);
  EXPECT_EQ(timed_.size(), 5U);
  ASSERT_TRUE(done());
  EXPECT_EQ(last().status, fmt::CqStatus::kOk);
  EXPECT_TRUE(eng_.quiescent());
}

TEST_F(GroupTest, TimeoutZeroNeverResendsAndTheEngineIsQuiescent) {
  set_timeout(0, 1);
  post(mcast(0, 4, 2, 3));
  run(20);
  EXPECT_TRUE(eng_.quiescent());
  eng_.skip(100'000);
  run(10);
  EXPECT_EQ(cnt(Counter::kArriveSent), 1U);
  EXPECT_FALSE(done());
}

// ------------------------------------------------------------------- the root

TEST_F(GroupTest, RootTakesLiveArrivalsAndMulticastsTheRelease) {
  post(mcast(1, 20, 0, 4));
  run(10);
  arrive(kM1, 1, 1, 20);
  arrive(kM2, 2, 1, 20);
  arrive(kM2, 2, 1, 20);  // re-sent: duplicate
  arrive(kM3, 0, 1, 20);  // member 0 is the root itself
  arrive(kM3, 4, 1, 20);  // beyond the group
  run(10);
  EXPECT_FALSE(done());
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(cnt(Counter::kArriveRecv), 2U);
  EXPECT_EQ(cnt(Counter::kDup), 1U);
  EXPECT_EQ(cnt(Counter::kDrop), 2U);
  arrive(kM3, 3, 1, 20);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  const auto r = take(PktType::kRelease);
  ASSERT_EQ(r.size(), 1U);
  EXPECT_EQ(r[0].dst_lid(), kMlid);
  EXPECT_EQ(r[0].src_lid(), kMe);
  EXPECT_EQ(r[0].ctx(), 1);
  EXPECT_EQ(r[0].epoch(), 20);
  EXPECT_EQ(last().status, fmt::CqStatus::kOk);
  EXPECT_EQ(cnt(Counter::kReleaseSent), 1U);
  EXPECT_EQ(cnt(Counter::kArriveRecv), 3U);
  const auto s = eng_.arrival_set(1);
  EXPECT_TRUE(s.released_valid);
  EXPECT_EQ(s.released_epoch, 20);
}

TEST_F(GroupTest, RootCompletesOnlyOnceTheReleaseLeft) {
  post(mcast(0, 1, 0, 2));
  run(10);
  eng_.set_tx_ready(false);
  arrive(kM1, 1, 0, 1);
  run(30);
  EXPECT_FALSE(done());
  EXPECT_TRUE(eng_.ctx_active(0));
  eng_.set_tx_ready(true);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(take(PktType::kRelease).size(), 1U);
}

TEST_F(GroupTest, EarlyArrivalsAreRecordedAndTakenAtActivation) {
  arrive(kM1, 1, 2, 8);
  arrive(kM1, 1, 2, 8);    // duplicate, early
  arrive(kM2, 0, 2, 8);    // member 0: dropped
  arrive(kM2, 256, 2, 8);  // >= MAX_MEMBERS: dropped
  arrive(kM3, 3, 2, 8);
  run(10);
  auto s = eng_.arrival_set(2);
  EXPECT_EQ(s.count, 2U);
  EXPECT_EQ(s.largest, 3U);
  EXPECT_EQ(s.epoch, 8);
  EXPECT_FALSE(s.released_valid);
  EXPECT_EQ(cnt(Counter::kArriveRecv), 2U);
  EXPECT_EQ(cnt(Counter::kDup), 1U);
  EXPECT_EQ(cnt(Counter::kDrop), 2U);
  post(mcast(2, 8, 0, 4));
  run(20);
  EXPECT_FALSE(done());
  arrive(kM3, 3, 2, 8);  // already in the set: duplicate
  arrive(kM2, 2, 2, 8);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(cnt(Counter::kDup), 2U);
  EXPECT_EQ(take(PktType::kRelease).size(), 1U);
}

TEST_F(GroupTest, EveryArrivalEarlyReleasesAtActivation) {
  arrive(kM1, 1, 0, 30);
  arrive(kM2, 2, 0, 30);
  run(5);
  post(mcast(0, 30, 0, 3));
  run_timed(20);
  ASSERT_TRUE(done());
  ASSERT_EQ(timed_.size(), 1U);
  EXPECT_EQ(timed_[0].second.pkt_type(), PktType::kRelease);
  // Post in cycle 5, dispatched in 7, the RELEASE granted and sent in 8.
  EXPECT_EQ(timed_[0].first, 8U);
}

TEST_F(GroupTest, NewerEarlyEpochEmptiesTheSetAndOlderIsDropped) {
  arrive(kM1, 1, 0, 8);
  arrive(kM2, 2, 0, 9);  // newer: the set starts over for 9
  arrive(kM3, 3, 0, 8);  // older than the set: dropped
  run(10);
  const auto s = eng_.arrival_set(0);
  EXPECT_EQ(s.count, 1U);
  EXPECT_EQ(s.epoch, 9);
  EXPECT_EQ(cnt(Counter::kDrop), 1U);
  // Activation at another epoch empties the set.
  post(mcast(0, 10, 0, 4));
  run(10);
  EXPECT_EQ(eng_.arrival_set(0).count, 0U);
  EXPECT_EQ(eng_.arrival_set(0).epoch, 10);
}

TEST_F(GroupTest, EarlySetWithAnIndexBeyondTheGroupIsDiscardedAtActivation) {
  arrive(kM1, 1, 0, 5);
  arrive(kM2, 7, 0, 5);  // the group will have 3 members
  run(5);
  EXPECT_EQ(cnt(Counter::kArriveRecv), 2U);
  post(mcast(0, 5, 0, 3));
  run(10);
  EXPECT_EQ(cnt(Counter::kDrop), 1U);  // once for the whole set
  EXPECT_EQ(eng_.arrival_set(0).count, 0U);
  // The real members re-send.
  arrive(kM1, 1, 0, 5);
  run(5);
  EXPECT_FALSE(done());
  arrive(kM3, 2, 0, 5);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(last().status, fmt::CqStatus::kOk);
}

TEST_F(GroupTest, ArriveForTheReleasedEpochGetsAUnicastRelease) {
  post(mcast(3, 2, 0, 2));
  run(10);
  arrive(kM1, 1, 3, 2);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  out_.clear();
  arrive(kM1, 1, 3, 2);  // the member missed the multicast
  run(10);
  const auto r = take(PktType::kRelease);
  ASSERT_EQ(r.size(), 1U);
  EXPECT_EQ(r[0].dst_lid(), kM1);
  EXPECT_EQ(r[0].src_lid(), kMe);
  EXPECT_EQ(r[0].ctx(), 3);
  EXPECT_EQ(r[0].epoch(), 2);
  EXPECT_EQ(cnt(Counter::kReleaseSent), 2U);
  EXPECT_EQ(cnt(Counter::kArriveRecv), 1U);
  // An epoch older than the released one is stale.
  arrive(kM1, 1, 3, 1);
  run(10);
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(cnt(Counter::kDrop), 1U);
}

TEST_F(GroupTest, ConsecutiveEpochsOnTheRoot) {
  for (std::uint16_t ep = 0xFFFE; ep != 3; ++ep) {  // across the wrap
    arrive(kM1, 1, 0, ep);                          // early for the next barrier
    run(5);
    post(mcast(0, ep, 0, 3));
    run(10);
    arrive(kM2, 2, 0, ep);
    const std::size_t n = eng_.completions().size();
    ASSERT_TRUE(run_until([&] { return done(n + 1); }, 100)) << ep;
    EXPECT_EQ(last().status, fmt::CqStatus::kOk) << ep;
    EXPECT_EQ(eng_.arrival_set(0).released_epoch, ep);
  }
  EXPECT_EQ(cnt(Counter::kReleaseSent), 5U);
  EXPECT_EQ(cnt(Counter::kArriveRecv), 10U);
  EXPECT_EQ(cnt(Counter::kDrop), 0U);
}

TEST_F(GroupTest, ArriveWhileDisabledOrToAnotherNodeIsDropped) {
  post(mcast(0, 1, 0, 2));
  run(10);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(0));
  arrive(kM1, 1, 0, 1);
  arrive(kM1, 1, 9, 1);  // no such context
  eng_.receive(group_pkt(PktType::kArrive, kM1, 0x55, 0, 1, 1));
  run(10);
  EXPECT_EQ(cnt(Counter::kDrop), 3U);
  EXPECT_EQ(cnt(Counter::kArriveRecv), 0U);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  arrive(kM1, 1, 0, 1);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
}

TEST_F(GroupTest, AMemberTakesItsReleaseWhileDisabled) {
  post(mcast(0, 1, 1, 2));
  run(10);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(0));
  release(0, 1);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_EQ(last().status, fmt::CqStatus::kOk);
}

TEST_F(GroupTest, SoftResetClearsTheGroupState) {
  set_timeout(20, 0);
  post(mcast(0, 1, 0, 2));
  post(mcast(1, 1, 1, 2));
  run(10);
  arrive(kM1, 1, 0, 1);
  arrive(kM1, 1, 2, 6);
  ASSERT_TRUE(run_until([&] { return done(); }, 100));
  EXPECT_TRUE(eng_.arrival_set(0).released_valid);
  EXPECT_EQ(eng_.arrival_set(2).count, 1U);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1) | nic::CTRL_SOFT_RESET.put(1));
  EXPECT_FALSE(eng_.arrival_set(0).released_valid);
  EXPECT_EQ(eng_.arrival_set(2).count, 0U);
  EXPECT_FALSE(eng_.ctx_active(1));
  out_.clear();
  run(100);
  EXPECT_TRUE(out_.empty());  // the member's timeout went with it
  EXPECT_TRUE(eng_.quiescent());
  arrive(kM1, 1, 0, 1);  // no released epoch any more: an early arrival
  run(5);
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(eng_.arrival_set(0).count, 1U);
}

// ------------------------------------------------------------------ registers

TEST_F(GroupTest, GroupRegistersAndVersion) {
  EXPECT_GE(nic::VERSION_MINOR.get(reg(nic::VERSION)), nic::kGroupRegsMinor);
  EXPECT_EQ(group_regs::kHwCfg2MaxMembers.get(eng_.csr_read(group_regs::kHwCfg2.offset)), 256U);
  EXPECT_EQ(eng_.csr_read(group_regs::kGroupTimeout.offset), 4096U);
  EXPECT_EQ(eng_.csr_read(group_regs::kGroupRetryLimit.offset), 0U);
  set_timeout(0xFFFF'FFFF, 0xFFFF'FFFF);
  EXPECT_EQ(eng_.csr_read(group_regs::kGroupTimeout.offset), 0xFFFF'FFFFU);
  EXPECT_EQ(eng_.csr_read(group_regs::kGroupRetryLimit.offset), 0xFFFFU);
  EXPECT_THROW(eng_.csr_write(group_regs::kHwCfg2.offset, 1), hw::BusError);
  for (auto c : {Counter::kArriveSent, Counter::kArriveRecv, Counter::kReleaseSent,
                 Counter::kReleaseRecv, Counter::kGroupRetry}) {
    EXPECT_THROW(eng_.csr_write(nic::kCounters[static_cast<unsigned>(c)].offset, 0), hw::BusError);
  }
}

TEST(GroupEngineConfig, MaxMembersIsAParameterWithinMcastMaxMembers) {
  hw::HostMemory mem(kMemBase, 4096);
  EngineConfig c;
  c.max_members = 64;
  BarrierEngine e(c, mem);
  EXPECT_EQ(group_regs::kHwCfg2MaxMembers.get(e.csr_read(group_regs::kHwCfg2.offset)), 64U);
  c.max_members = 0;
  EXPECT_THROW(BarrierEngine(c, mem), std::invalid_argument);
  c.max_members = fmt::kMcastMaxMembers + 1;
  EXPECT_THROW(BarrierEngine(c, mem), std::invalid_argument);
  c.max_members = fmt::kMcastMaxMembers;
  EXPECT_NO_THROW(BarrierEngine(c, mem));
}

}  // namespace
}  // namespace syncfab::model::test
