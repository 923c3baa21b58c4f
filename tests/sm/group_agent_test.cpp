// The group protocol's subnet-manager agent on datagrams (no fabric
// simulation): answers by txn, READY to every member with member 0's LID and
// the newest proposed epoch, the tables programmed once through the
// programmer, refusals named by status, removal when all have left.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "syncfab/sm/combine.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/group_agent.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::sm {
namespace {

using std::chrono::microseconds;

class RecordingProgrammer : public GroupProgrammer {
 public:
  explicit RecordingProgrammer(const Fabric& f) : fabric_(f) {}
  void program(const Group& group, const McTree& tree, std::uint16_t epoch) override {
    (void)combine_tree(fabric_, group, tree);  // a tree the switches can combine on
    programmed[tree.mlid] = epoch;
    ++calls;
  }
  void remove(Lid mlid, const std::vector<MftEntry>& entries) override {
    removed[mlid] = entries.size();
  }
  std::map<Lid, std::uint16_t> programmed;
  std::map<Lid, std::size_t> removed;
  int calls = 0;

 private:
  const Fabric& fabric_;
};

fmt::MgmtMsg join(std::uint64_t id, std::uint16_t count, std::uint16_t member, std::uint16_t epoch,
                  std::uint16_t txn) {
  fmt::MgmtMsg m;
  m.set_op(fmt::MgmtOp::kJoin)
      .set_mgid_prefix(0xFF12)
      .set_mgid_id(id)
      .set_member_count(count)
      .set_member(member)
      .set_epoch(epoch)
      .set_txn(txn);
  return m;
}

fmt::MgmtMsg simple(fmt::MgmtOp op, std::uint64_t id, std::uint16_t txn) {
  fmt::MgmtMsg m;
  m.set_op(op).set_mgid_prefix(0xFF12).set_mgid_id(id).set_txn(txn);
  return m;
}

struct AgentRig {
  Fabric f = make_fabric("fattree:ports=4,levels=2");
  MinHop mh{f};
  FabricMcgRouter router{mh};
  RecordingProgrammer prog{f};
  GroupAgent agent{f, router, prog};
  Lid lid(std::size_t hca) const { return f.lid(f.hcas()[hca], 1); }
};

TEST(GroupAgent, ReadyGoesToEveryMemberOnce) {
  AgentRig s;
  // Member 2 first (reordered), then 0, then 1 with the newest epoch.
  auto a = s.agent.take(s.lid(5), join(7, 3, 2, 10, 101), microseconds(1));
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].dst, s.lid(5));
  EXPECT_EQ(a[0].msg.op(), fmt::MgmtOp::kState);
  EXPECT_EQ(a[0].msg.txn(), 101);
  EXPECT_EQ(a[0].msg.state(), fmt::McgState::kReceivingJoin);
  (void)s.agent.take(s.lid(0), join(7, 3, 0, 9, 102), microseconds(2));
  // A duplicate join: answered, nothing recorded twice.
  auto dup = s.agent.take(s.lid(0), join(7, 3, 0, 9, 103), microseconds(3));
  ASSERT_EQ(dup.size(), 1U);
  EXPECT_EQ(dup[0].msg.status(), fmt::MgmtStatus::kDuplicate);
  auto last = s.agent.take(s.lid(3), join(7, 3, 1, 12, 104), microseconds(4));
  // The answer to the last join, then READY (txn 0) to the three members.
  ASSERT_EQ(last.size(), 4U);
  EXPECT_EQ(last[0].dst, s.lid(3));
  EXPECT_EQ(s.prog.calls, 1);
  std::vector<Lid> to;
  for (std::size_t i = 1; i < last.size(); ++i) {
    const fmt::MgmtMsg& r = last[i].msg;
    EXPECT_EQ(r.op(), fmt::MgmtOp::kReady);
    EXPECT_EQ(r.txn(), 0);
    EXPECT_EQ(r.root_lid(), s.lid(0));
    EXPECT_EQ(r.epoch(), 12) << "the newest proposed epoch";
    EXPECT_EQ(r.member_count(), 3);
    EXPECT_EQ(s.prog.programmed.at(r.mlid()), 12);
    to.push_back(last[i].dst);
  }
  std::sort(to.begin(), to.end());
  EXPECT_EQ(to, (std::vector<Lid>{s.lid(0), s.lid(3), s.lid(5)}));
  // A join re-sent after READY (its READY was lost) gets READY again.
  auto again = s.agent.take(s.lid(5), join(7, 3, 2, 10, 105), microseconds(5));
  ASSERT_EQ(again.size(), 1U);
  EXPECT_EQ(again[0].msg.op(), fmt::MgmtOp::kReady);
  EXPECT_EQ(again[0].msg.txn(), 105);
  EXPECT_EQ(s.prog.calls, 1) << "routes are computed once";
  auto q = s.agent.take(s.lid(1), simple(fmt::MgmtOp::kQuery, 7, 106), microseconds(6));
  EXPECT_EQ(q[0].msg.op(), fmt::MgmtOp::kReady);
}

TEST(GroupAgent, RefusalsAreNamedByStatus) {
  AgentRig s;
  (void)s.agent.take(s.lid(0), join(8, 3, 0, 1, 1), microseconds(1));
  auto taken = s.agent.take(s.lid(1), join(8, 3, 0, 1, 2), microseconds(2));
  EXPECT_EQ(taken[0].msg.status(), fmt::MgmtStatus::kBadMember) << "member 0 is taken";
  auto beyond = s.agent.take(s.lid(1), join(8, 3, 3, 1, 3), microseconds(3));
  EXPECT_EQ(beyond[0].msg.status(), fmt::MgmtStatus::kBadMember);
  auto count = s.agent.take(s.lid(1), join(8, 4, 1, 1, 4), microseconds(4));
  EXPECT_EQ(count[0].msg.status(), fmt::MgmtStatus::kMemberCountMismatch);
  auto early = s.agent.take(s.lid(0), simple(fmt::MgmtOp::kLeave, 8, 5), microseconds(5));
  EXPECT_EQ(early[0].msg.status(), fmt::MgmtStatus::kNotReady);
  auto bad = s.agent.take(s.lid(0), simple(fmt::MgmtOp::kReady, 8, 6), microseconds(6));
  EXPECT_EQ(bad[0].msg.status(), fmt::MgmtStatus::kBadRequest);
  const Lid a_switch = s.f.lid(s.f.switch_node(0));
  auto stranger = s.agent.take(a_switch, join(8, 3, 1, 1, 7), microseconds(7));
  EXPECT_EQ(stranger[0].msg.status(), fmt::MgmtStatus::kUnknownNode);
  EXPECT_EQ(s.agent.counters().bad_members, 2U);
  EXPECT_EQ(s.agent.counters().bad_requests, 1U);
}

TEST(GroupAgent, AllLeftRemovesTheTables) {
  AgentRig s;
  (void)s.agent.take(s.lid(0), join(9, 2, 0, 1, 1), microseconds(1));
  auto r = s.agent.take(s.lid(2), join(9, 2, 1, 1, 2), microseconds(2));
  const Lid mlid = r.back().msg.mlid();
  (void)s.agent.take(s.lid(0), simple(fmt::MgmtOp::kLeave, 9, 3), microseconds(3));
  EXPECT_TRUE(s.prog.removed.empty());
  (void)s.agent.take(s.lid(2), simple(fmt::MgmtOp::kLeave, 9, 4), microseconds(4));
  EXPECT_EQ(s.prog.removed.count(mlid), 1U);
}

TEST(GroupAgent, AMemberThatNeverJoinsTimesTheGroupOut) {
  AgentRig s;
  (void)s.agent.take(s.lid(0), join(10, 3, 0, 1, 1), microseconds(1));
  (void)s.agent.take(s.lid(1), join(10, 3, 1, 1, 2), microseconds(2));
  (void)s.agent.tick(std::chrono::seconds(11));
  auto q = s.agent.take(s.lid(0), simple(fmt::MgmtOp::kQuery, 10, 3), std::chrono::seconds(11));
  EXPECT_EQ(q[0].msg.state(), fmt::McgState::kDestroying);
  EXPECT_EQ(s.prog.calls, 0);
}

}  // namespace
}  // namespace syncfab::sm
