// The multicast-group join/leave protocol (FULB-MC paper section 3.2):
// one route computation per group whatever the join order, Ready reported to
// a state query, leaves never recompute, timeouts destroy, MLIDs come back.
//
// Seeds: SYNCFAB_SEED=n runs one seed, SYNCFAB_SEEDS=a-b a range; otherwise
// each random test runs its own short list. A failure prints the seed and the
// command that replays it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/mcg_protocol.hpp"
#include "syncfab/test/seeds.hpp"

namespace syncfab::sm {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Kind = McgEventKind;

using syncfab::test::seeds;

std::string replay(std::uint64_t seed) {
  return "seed " + std::to_string(seed) + "; replay: " + syncfab::test::replay_command(seed);
}

// Counts the router calls per MLID on top of the real engine (FULB-MC,
// every tree checked), and can be told to fail.
class CountingRouter : public McgRouter {
 public:
  explicit CountingRouter(const MinHop& mh) : inner_(mh, route_fulb_mc, true) {}
  McTree route(const Group& group) override {
    ++calls_[group.mlid];
    ++total_calls;
    last_group = group;
    if (fail_next) {
      fail_next = false;
      throw FabricError("injected routing failure");
    }
    return inner_.route(group);
  }
  void withdraw(const McTree& tree) override {
    ++withdraws;
    inner_.withdraw(tree);
  }
  [[nodiscard]] int calls(Lid mlid) const {
    const auto it = calls_.find(mlid);
    return it == calls_.end() ? 0 : it->second;
  }
  [[nodiscard]] std::size_t live_trees() const { return inner_.live_trees(); }
  const McLoad& load() { return inner_.load(); }

  int total_calls = 0;
  int withdraws = 0;
  bool fail_next = false;
  Group last_group;

 private:
  FabricMcgRouter inner_;
  std::map<Lid, int> calls_;
};

Mgid mgid(std::uint64_t n) { return Mgid{0xff12'401b'ffff'0000ULL, n}; }

// A small fat tree (16 end nodes) or a larger one (128) with the router.
struct Env {
  Fabric fabric;
  MinHop mh;
  CountingRouter router;
  McgProtocol sm;
  explicit Env(std::string_view spec = "fattree:ports=4,levels=3", McgConfig cfg = cfg_default())
      : fabric(make_fabric(spec)), mh(fabric), router(mh), sm(fabric, router, cfg) {}
  static McgConfig cfg_default() {
    McgConfig c;
    c.join_timeout = seconds(5);
    c.leave_timeout = seconds(3);
    c.destroy_linger = milliseconds(500);
    return c;
  }
  [[nodiscard]] NodeId hca(std::size_t i) const { return fabric.hcas()[i]; }
  [[nodiscard]] std::vector<Kind> kinds(const Mgid& g) const {
    std::vector<Kind> k;
    for (const auto& e : sm.events()) {
      if (e.mgid == g) {
        k.push_back(e.kind);
      }
    }
    return k;
  }
  [[nodiscard]] std::string log() const {
    std::string s;
    for (const auto& e : sm.events()) {
      s += to_string(e) + "\n";
    }
    return s;
  }
  [[nodiscard]] McgState state(const Mgid& g) { return sm.query(StateQuery{g}, sm.now()).state; }
};

McgTime ms(std::int64_t n) { return milliseconds(n); }

// ----------------------------------------------------------------------------
// The whole life of one group, event by event.

TEST(McgProtocol, LifecycleFollowsTheTransitionTable) {
  Env env;
  const Mgid g = mgid(1);
  const NodeId a = env.hca(0);
  const NodeId b = env.hca(5);
  const NodeId c = env.hca(12);
  auto r = env.sm.join({g, a, 3}, ms(0));
  EXPECT_EQ(r.status, McgStatus::kOk);
  EXPECT_EQ(r.record, (McgStateRecord{g, McgState::kReceivingJoinReq, 0xC000}));
  EXPECT_EQ(env.sm.join({g, b, 3}, ms(10)).record.state, McgState::kReceivingJoinReq);
  EXPECT_EQ(env.sm.tick(ms(20)), 0u) << "routes computed before all members joined";
  EXPECT_EQ(env.router.total_calls, 0);
  r = env.sm.join({g, c, 3}, ms(30));
  EXPECT_EQ(r.record.state, McgState::kComputingRoutes);
  EXPECT_EQ(env.sm.query({g}, ms(31)).state, McgState::kComputingRoutes);
  EXPECT_EQ(env.sm.tick(ms(40)), 1u);
  EXPECT_EQ(env.sm.query({g}, ms(41)), (McgStateRecord{g, McgState::kReady, 0xC000}));
  EXPECT_EQ(env.router.last_group.members, (std::vector<NodeId>{a, b, c}));
  auto mft = env.sm.take_mft_updates();
  ASSERT_EQ(mft.size(), 1u);
  EXPECT_EQ(mft[0].op, MftUpdate::Op::kProgram);
  EXPECT_EQ(mft[0].mlid, 0xC000);
  EXPECT_FALSE(mft[0].entries.empty());
  const auto programmed = mft[0].entries;

  // Leaves: no recomputation, no MFT change until the last one.
  EXPECT_EQ(env.sm.leave({g, b}, ms(1000)).record.state, McgState::kReceivingLeaveReq);
  EXPECT_EQ(env.sm.leave({g, a}, ms(1100)).record.state, McgState::kReceivingLeaveReq);
  EXPECT_TRUE(env.sm.take_mft_updates().empty());
  EXPECT_EQ(env.sm.leave({g, c}, ms(1200)).record.state, McgState::kDestroying);
  mft = env.sm.take_mft_updates();
  ASSERT_EQ(mft.size(), 1u);
  EXPECT_EQ(mft[0].op, MftUpdate::Op::kRemove);
  EXPECT_EQ(mft[0].entries, programmed);
  EXPECT_EQ(env.router.withdraws, 1);
  EXPECT_EQ(env.router.live_trees(), 0u);
  EXPECT_EQ(env.sm.query({g}, ms(1699)).state, McgState::kDestroying);
  EXPECT_EQ(env.sm.free_mlids(), kMulticastLidCount - 1) << "MLID freed before the linger ended";
  EXPECT_EQ(env.sm.query({g}, ms(1700)), (McgStateRecord{g, McgState::kGone, 0}));
  EXPECT_EQ(env.sm.free_mlids(), kMulticastLidCount);
  EXPECT_EQ(env.sm.live_groups(), 0u);
  EXPECT_EQ(env.router.total_calls, 1);

  const std::vector<Kind> want{Kind::kCreated, Kind::kJoined,     Kind::kJoined,
                               Kind::kJoined,  Kind::kAllJoined,  Kind::kRoutesComputed,
                               Kind::kLeft,    Kind::kLeft,       Kind::kLeft,
                               Kind::kAllLeft, Kind::kDestroying, Kind::kGone};
  EXPECT_EQ(env.kinds(g), want) << env.log();
  EXPECT_EQ(env.sm.events().back().time, ms(1700));
  const auto& k = env.sm.counters();
  EXPECT_EQ(k.groups_created, 1u);
  EXPECT_EQ(k.groups_ready, 1u);
  EXPECT_EQ(k.groups_gone, 1u);
  EXPECT_EQ(k.joins_with(McgStatus::kOk), 3u);
  EXPECT_EQ(k.leaves_with(McgStatus::kOk), 3u);
}

// ----------------------------------------------------------------------------
// Join orders.

// Every permutation of a 5-member group, with a tick and a query between
// joins: exactly one route computation, and the same tree every time.
TEST(McgProtocol, EveryJoinOrderGivesOneComputationAndTheSameTree) {
  const std::vector<std::size_t> idx{0, 3, 6, 9, 15};
  std::vector<std::size_t> order(idx.size());
  std::iota(order.begin(), order.end(), 0);
  std::optional<std::vector<MftEntry>> first_tree;
  int permutations = 0;
  do {
    Env env;
    const Mgid g = mgid(7);
    McgTime t{0};
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto r = env.sm.join({g, env.hca(idx[order[i]]), 5}, t);
      ASSERT_EQ(r.status, McgStatus::kOk);
      const bool last = i + 1 == order.size();
      EXPECT_EQ(r.record.state, last ? McgState::kComputingRoutes : McgState::kReceivingJoinReq);
      t += ms(1);
      if (!last) {
        env.sm.tick(t);
        EXPECT_EQ(env.sm.query({g}, t).state, McgState::kReceivingJoinReq);
      }
    }
    env.sm.tick(t);
    EXPECT_EQ(env.sm.query({g}, t).state, McgState::kReady);
    EXPECT_EQ(env.router.total_calls, 1);
    const auto tree = env.sm.group(g)->tree;
    ASSERT_TRUE(tree.has_value());
    if (!first_tree) {
      first_tree = tree->entries;
    }
    EXPECT_EQ(tree->entries, *first_tree);
    ++permutations;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(permutations, 120);
}

// Larger groups, random order, every join sent one to three times (copies
// reordered among the other joins), ticks at random points.
TEST(McgProtocol, RandomJoinOrderWithDuplicatesRoutesOnce) {
  for (const auto seed : seeds({1, 2, 3, 4, 5})) {
    SCOPED_TRACE(replay(seed));
    std::mt19937_64 rng(seed);
    Env env("fattree:ports=8,levels=3");  // 128 end nodes
    const std::size_t n_nodes = env.fabric.hcas().size();
    const auto size = std::uniform_int_distribution<std::size_t>(2, n_nodes)(rng);
    std::vector<std::size_t> pick(n_nodes);
    std::iota(pick.begin(), pick.end(), 0);
    std::shuffle(pick.begin(), pick.end(), rng);
    pick.resize(size);
    std::vector<NodeId> msgs;
    std::size_t copies = 0;
    for (const auto i : pick) {
      const int c = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int k = 0; k < c; ++k) {
        msgs.push_back(env.hca(i));
      }
      copies += static_cast<std::size_t>(c - 1);
    }
    std::shuffle(msgs.begin(), msgs.end(), rng);
    const Mgid g = mgid(seed);
    McgTime t{0};
    for (const NodeId n : msgs) {
      const auto r = env.sm.join({g, n, static_cast<std::uint32_t>(size)}, t);
      ASSERT_TRUE(r.status == McgStatus::kOk || r.status == McgStatus::kDuplicate)
          << to_string(r.status) << ": " << r.detail;
      if (rng() % 4 == 0) {
        env.sm.tick(t);
      }
      t += std::chrono::microseconds(100);
    }
    env.sm.tick(t);
    EXPECT_EQ(env.sm.query({g}, t).state, McgState::kReady) << env.log();
    EXPECT_EQ(env.router.total_calls, 1);
    const auto info = env.sm.group(g);
    EXPECT_EQ(info->joined, size);
    EXPECT_EQ(info->duplicate_joins, copies);
    EXPECT_EQ(env.sm.counters().joins_with(McgStatus::kDuplicate), copies);
    EXPECT_EQ(env.sm.take_mft_updates().size(), 1u);
  }
}

// ----------------------------------------------------------------------------
// Duplicates and stale requests.

TEST(McgProtocol, DuplicateAndStaleRequestsAreIdempotentAndCounted) {
  Env env;
  const Mgid g = mgid(2);
  const NodeId a = env.hca(1);
  const NodeId b = env.hca(2);
  EXPECT_EQ(env.sm.join({g, a, 2}, ms(0)).status, McgStatus::kOk);
  auto r = env.sm.join({g, a, 2}, ms(1));
  EXPECT_EQ(r.status, McgStatus::kDuplicate);
  EXPECT_EQ(r.record.state, McgState::kReceivingJoinReq);
  EXPECT_EQ(env.sm.join({g, b, 2}, ms(2)).status, McgStatus::kOk);
  env.sm.tick(ms(3));
  // A retransmitted join after Ready is answered with Ready (its first answer
  // was lost), and does not recompute.
  r = env.sm.join({g, b, 2}, ms(4));
  EXPECT_EQ(r.status, McgStatus::kDuplicate);
  EXPECT_EQ(r.record.state, McgState::kReady);
  env.sm.tick(ms(5));
  EXPECT_EQ(env.sm.leave({g, a}, ms(10)).status, McgStatus::kOk);
  EXPECT_EQ(env.sm.leave({g, a}, ms(11)).status, McgStatus::kDuplicate);
  // A's join, delayed past its own leave: still a duplicate, A stays left.
  EXPECT_EQ(env.sm.join({g, a, 2}, ms(12)).status, McgStatus::kDuplicate);
  EXPECT_EQ(env.sm.group(g)->left, 1u);
  EXPECT_EQ(env.sm.leave({g, b}, ms(13)).record.state, McgState::kDestroying);
  // Late copies while Destroying, and after the group is gone.
  EXPECT_EQ(env.sm.leave({g, b}, ms(14)).status, McgStatus::kGroupDestroying);
  EXPECT_EQ(env.sm.leave({g, b}, ms(2000)).status, McgStatus::kNoSuchGroup);
  EXPECT_EQ(env.router.total_calls, 1);
  const auto& k = env.sm.counters();
  EXPECT_EQ(k.joins_with(McgStatus::kDuplicate), 3u);
  EXPECT_EQ(k.leaves_with(McgStatus::kDuplicate), 1u);
  EXPECT_EQ(k.leaves_with(McgStatus::kGroupDestroying), 1u);
  EXPECT_EQ(k.leaves_with(McgStatus::kNoSuchGroup), 1u);
}

// ----------------------------------------------------------------------------
// Bad requests: each a clear outcome, none changes the group.

TEST(McgProtocol, BadJoinsAreRejectedWithAReason) {
  Env env;
  const Mgid g = mgid(3);
  const NodeId a = env.hca(0);
  // Unknown node: beyond the fabric, or a switch.
  auto r = env.sm.join({g, 100000, 3}, ms(0));
  EXPECT_EQ(r.status, McgStatus::kUnknownNode);
  EXPECT_NE(r.detail.find("node 100000"), std::string::npos) << r.detail;
  r = env.sm.join({g, env.fabric.switch_node(0), 3}, ms(0));
  EXPECT_EQ(r.status, McgStatus::kUnknownNode);
  EXPECT_NE(r.detail.find(env.fabric.name(env.fabric.switch_node(0))), std::string::npos);
  EXPECT_EQ(env.sm.live_groups(), 0u) << "a rejected first join created a group";
  // MemberCount of 1, or more than the 16 end nodes.
  EXPECT_EQ(env.sm.join({g, a, 1}, ms(0)).status, McgStatus::kBadMemberCount);
  r = env.sm.join({g, a, 17}, ms(0));
  EXPECT_EQ(r.status, McgStatus::kBadMemberCount);
  EXPECT_NE(r.detail.find("2..16"), std::string::npos) << r.detail;
  EXPECT_EQ(env.sm.live_groups(), 0u);
  EXPECT_EQ(env.sm.free_mlids(), kMulticastLidCount);

  ASSERT_EQ(env.sm.join({g, a, 3}, ms(1)).status, McgStatus::kOk);
  // Inconsistent MemberCount: rejected, the group keeps its own count.
  r = env.sm.join({g, env.hca(1), 4}, ms(2));
  EXPECT_EQ(r.status, McgStatus::kMemberCountMismatch);
  EXPECT_NE(r.detail.find("MemberCount 4, the group has 3"), std::string::npos) << r.detail;
  EXPECT_EQ(env.sm.join({g, a, 2}, ms(2)).status, McgStatus::kMemberCountMismatch);
  EXPECT_EQ(env.sm.group(g)->joined, 1u);
  EXPECT_EQ(env.sm.join({g, env.hca(1), 3}, ms(3)).status, McgStatus::kOk);
  EXPECT_EQ(env.sm.join({g, env.hca(2), 3}, ms(4)).status, McgStatus::kOk);
  // A fourth node once all three joined: the membership is fixed.
  r = env.sm.join({g, env.hca(3), 3}, ms(5));
  EXPECT_EQ(r.status, McgStatus::kGroupClosed);
  EXPECT_EQ(r.record.state, McgState::kComputingRoutes);
  env.sm.tick(ms(6));
  r = env.sm.join({g, env.hca(3), 3}, ms(7));
  EXPECT_EQ(r.status, McgStatus::kGroupClosed);
  EXPECT_EQ(r.record.state, McgState::kReady);
  EXPECT_EQ(env.sm.group(g)->rejected, 4u);  // the four after the group existed
  EXPECT_EQ(env.router.total_calls, 1);
  // Every rejection is in the log with its status.
  std::size_t logged = 0;
  for (const auto& e : env.sm.events()) {
    if (e.kind == Kind::kJoinRejected) {
      EXPECT_NE(e.status, McgStatus::kOk);
      EXPECT_FALSE(e.detail.empty());
      ++logged;
    }
  }
  EXPECT_EQ(logged, 8u);
}

TEST(McgProtocol, BadLeavesAreRejectedWithAReason) {
  Env env;
  const Mgid g = mgid(4);
  EXPECT_EQ(env.sm.leave({g, env.hca(0)}, ms(0)).status, McgStatus::kNoSuchGroup);
  env.sm.join({g, env.hca(0), 2}, ms(0));
  // A leave before Ready (a stale one from an earlier group with this MGID)
  // must not tear the new group down.
  auto r = env.sm.leave({g, env.hca(0)}, ms(1));
  EXPECT_EQ(r.status, McgStatus::kNotReady);
  EXPECT_EQ(r.record.state, McgState::kReceivingJoinReq);
  env.sm.join({g, env.hca(1), 2}, ms(2));
  EXPECT_EQ(env.sm.leave({g, env.hca(1)}, ms(3)).status, McgStatus::kNotReady);
  env.sm.tick(ms(4));
  r = env.sm.leave({g, env.hca(7)}, ms(5));
  EXPECT_EQ(r.status, McgStatus::kNotMember);
  EXPECT_EQ(r.record.state, McgState::kReady);
  EXPECT_EQ(env.sm.group(g)->left, 0u);
  EXPECT_EQ(env.sm.counters().leaves_with(McgStatus::kNotReady), 2u);
}

// ----------------------------------------------------------------------------
// Lost requests and crashes.

// One member's join is lost: the group times out exactly join_timeout after
// its first join, rank 0's poll sees Destroying, nothing was routed, and the
// MLID is reused once the group is gone.
TEST(McgProtocol, LostJoinTimesOutToDestroyingAndFreesEverything) {
  Env env;  // join timeout 5 s, linger 500 ms
  const Mgid g = mgid(5);
  env.sm.join({g, env.hca(0), 3}, ms(100));
  env.sm.join({g, env.hca(4), 3}, ms(4000));  // a late join does not extend the deadline
  EXPECT_EQ(env.sm.group(g)->deadline, ms(5100));
  EXPECT_EQ(env.sm.query({g}, ms(5099)).state, McgState::kReceivingJoinReq);
  EXPECT_EQ(env.sm.query({g}, ms(5100)), (McgStateRecord{g, McgState::kDestroying, 0xC000}));
  // The lost member's retransmission arrives too late.
  EXPECT_EQ(env.sm.join({g, env.hca(8), 3}, ms(5200)).status, McgStatus::kGroupDestroying);
  EXPECT_EQ(env.sm.tick(ms(5300)), 0u);
  EXPECT_EQ(env.sm.query({g}, ms(5600)).state, McgState::kGone);
  EXPECT_EQ(env.router.total_calls, 0);
  EXPECT_EQ(env.router.withdraws, 0);
  EXPECT_TRUE(env.sm.take_mft_updates().empty());
  EXPECT_EQ(env.sm.live_groups(), 0u);
  EXPECT_EQ(env.sm.free_mlids(), kMulticastLidCount);
  EXPECT_EQ(env.sm.counters().join_timeouts, 1u);
  const std::vector<Kind> want{Kind::kCreated,     Kind::kJoined,     Kind::kJoined,
                               Kind::kJoinTimeout, Kind::kDestroying, Kind::kJoinRejected,
                               Kind::kGone};
  EXPECT_EQ(env.kinds(g), want) << env.log();
  // The job retries with the same MGID: a new group, the same MLID.
  EXPECT_EQ(env.sm.join({g, env.hca(0), 2}, ms(6000)).record,
            (McgStateRecord{g, McgState::kReceivingJoinReq, 0xC000}));
}

// Deadlines fire at their own time even when nothing calls in between: one
// tick long after both the join timeout and the linger drops the group.
TEST(McgProtocol, TimeoutsDoNotDependOnTickRate) {
  Env env;
  const Mgid g = mgid(6);
  env.sm.join({g, env.hca(0), 3}, ms(0));
  env.sm.tick(ms(60000));
  EXPECT_EQ(env.sm.live_groups(), 0u);
  const auto& ev = env.sm.events();
  ASSERT_GE(ev.size(), 3u);
  EXPECT_EQ(ev[ev.size() - 3].kind, Kind::kJoinTimeout);
  EXPECT_EQ(ev[ev.size() - 3].time, ms(5000));
  EXPECT_EQ(ev.back().kind, Kind::kGone);
  EXPECT_EQ(ev.back().time, ms(5500));
  EXPECT_THROW(env.sm.tick(ms(59999)), std::invalid_argument);
}

// A member crashes before leaving: leave timeout from the first leave, then
// Destroying, routes removed, and still no recomputation.
TEST(McgProtocol, MemberCrashBeforeLeavingTimesOut) {
  Env env;  // leave timeout 3 s
  const Mgid g = mgid(7);
  for (std::size_t i = 0; i < 4; ++i) {
    env.sm.join({g, env.hca(i * 3), 4}, ms(0));
  }
  env.sm.tick(ms(1));
  ASSERT_EQ(env.state(g), McgState::kReady);
  (void)env.sm.take_mft_updates();
  env.sm.leave({g, env.hca(0)}, ms(10000));  // Ready has no timeout
  env.sm.leave({g, env.hca(3)}, ms(11000));
  env.sm.leave({g, env.hca(6)}, ms(12000));  // hca(9) crashed
  EXPECT_EQ(env.sm.query({g}, ms(12999)).state, McgState::kReceivingLeaveReq);
  EXPECT_TRUE(env.sm.take_mft_updates().empty()) << "a leave changed the MFTs";
  EXPECT_EQ(env.sm.query({g}, ms(13000)).state, McgState::kDestroying);
  const auto mft = env.sm.take_mft_updates();
  ASSERT_EQ(mft.size(), 1u);
  EXPECT_EQ(mft[0].op, MftUpdate::Op::kRemove);
  EXPECT_EQ(env.router.withdraws, 1);
  EXPECT_EQ(env.router.live_trees(), 0u);
  EXPECT_EQ(env.router.total_calls, 1);
  EXPECT_EQ(env.sm.counters().leave_timeouts, 1u);
  EXPECT_EQ(env.sm.query({g}, ms(13500)).state, McgState::kGone);
  EXPECT_EQ(env.sm.free_mlids(), kMulticastLidCount);
}

// Members of a 16-node group leave in random order with ticks between:
// routing never runs again and the MFTs stay until the last leave.
TEST(McgProtocol, LeavesNeverRecompute) {
  for (const auto seed : seeds({11, 12, 13})) {
    SCOPED_TRACE(replay(seed));
    std::mt19937_64 rng(seed);
    Env env;
    const Mgid g = mgid(8);
    std::vector<NodeId> members(env.fabric.hcas().begin(), env.fabric.hcas().end());
    for (const NodeId n : members) {
      env.sm.join({g, n, 16}, ms(0));
    }
    env.sm.tick(ms(1));
    (void)env.sm.take_mft_updates();
    std::shuffle(members.begin(), members.end(), rng);
    McgTime t = ms(100);
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto r = env.sm.leave({g, members[i]}, t);
      EXPECT_EQ(r.status, McgStatus::kOk);
      const bool last = i + 1 == members.size();
      EXPECT_EQ(r.record.state, last ? McgState::kDestroying : McgState::kReceivingLeaveReq);
      env.sm.tick(t);
      if (!last) {
        EXPECT_TRUE(env.sm.take_mft_updates().empty());
      }
      t += ms(10);
    }
    EXPECT_EQ(env.router.total_calls, 1);
    EXPECT_EQ(env.sm.counters().route_computations, 1u);
  }
}

TEST(McgProtocol, RoutingFailureDestroysTheGroup) {
  Env env;
  const Mgid g = mgid(9);
  env.router.fail_next = true;
  env.sm.join({g, env.hca(0), 2}, ms(0));
  env.sm.join({g, env.hca(1), 2}, ms(0));
  env.sm.tick(ms(1));
  EXPECT_EQ(env.state(g), McgState::kDestroying);
  EXPECT_EQ(env.sm.counters().route_failures, 1u);
  const auto& ev = env.sm.events();
  const auto it = std::find_if(ev.begin(), ev.end(),
                               [](const McgEvent& e) { return e.kind == Kind::kRouteFailed; });
  ASSERT_NE(it, ev.end());
  EXPECT_EQ(it->detail, "injected routing failure");
  EXPECT_TRUE(env.sm.take_mft_updates().empty());
}

// ----------------------------------------------------------------------------
// MLIDs.

TEST(McgProtocol, MlidSpaceExhaustionIsAClearErrorAndFreedMlidsAreReused) {
  Env env;
  for (std::size_t i = 0; i < kMulticastLidCount; ++i) {
    const auto r = env.sm.join({mgid(i), env.hca(i % 16), 2}, ms(0));
    ASSERT_EQ(r.status, McgStatus::kOk);
    ASSERT_EQ(r.record.mlid, fmt::kMlidBase + i);
  }
  auto r = env.sm.join({mgid(99999), env.hca(0), 2}, ms(1));
  EXPECT_EQ(r.status, McgStatus::kMlidExhausted);
  EXPECT_NE(r.detail.find("all 16383 MLIDs of 0xC000..0xFFFE"), std::string::npos) << r.detail;
  EXPECT_EQ(env.sm.live_groups(), kMulticastLidCount);
  // Complete and destroy group 0x123 (MLID 0xC123); its MLID is next.
  env.sm.join({mgid(0x123), env.hca(0x123 % 16 == 0 ? 1 : 0), 2}, ms(2));
  env.sm.tick(ms(3));
  ASSERT_EQ(env.state(mgid(0x123)), McgState::kReady);
  env.sm.leave({mgid(0x123), env.hca(0x123 % 16)}, ms(4));
  env.sm.leave({mgid(0x123), env.hca(0)}, ms(4));
  EXPECT_EQ(env.sm.join({mgid(99999), env.hca(0), 2}, ms(5)).status, McgStatus::kMlidExhausted)
      << "MLID reused while the old group was Destroying";
  // Gone after the 500 ms linger: the lowest free MLID is the freed one.
  r = env.sm.join({mgid(99999), env.hca(0), 2}, ms(505));
  EXPECT_EQ(r.status, McgStatus::kOk);
  EXPECT_EQ(r.record.mlid, 0xC123);
}

TEST(McgProtocol, NarrowMlidRangeAndBadConfig) {
  McgConfig cfg = Env::cfg_default();
  cfg.first_mlid = 0xC010;
  cfg.last_mlid = 0xC011;
  Env env("fattree:ports=4,levels=3", cfg);
  EXPECT_EQ(env.sm.join({mgid(1), env.hca(0), 2}, ms(0)).record.mlid, 0xC010);
  EXPECT_EQ(env.sm.join({mgid(2), env.hca(0), 2}, ms(0)).record.mlid, 0xC011);
  const auto r = env.sm.join({mgid(3), env.hca(0), 2}, ms(0));
  EXPECT_EQ(r.status, McgStatus::kMlidExhausted);
  EXPECT_NE(r.detail.find("0xC010..0xC011"), std::string::npos) << r.detail;

  const Fabric f = make_fabric("fattree:ports=4,levels=3");
  const MinHop mh(f);
  FabricMcgRouter router(mh);
  McgConfig bad;
  bad.join_timeout = McgTime{0};
  EXPECT_THROW(McgProtocol(f, router, bad), std::invalid_argument);
  bad = McgConfig{};
  bad.first_mlid = 0xBFFF;
  EXPECT_THROW(McgProtocol(f, router, bad), std::invalid_argument);
}

// ----------------------------------------------------------------------------
// Many groups at once.

// 300 random groups on a 128-node fat tree, all joins interleaved in one
// random stream (some duplicated), ticks at random points: each group routed
// exactly once, distinct MLIDs, every tree valid (the router checks), the
// load the router keeps equals the sum of the trees; then all leave in one
// interleaved stream, everything is freed.
TEST(McgProtocol, ManyGroupsInterleaved) {
  for (const auto seed : seeds({21, 22, 23})) {
    SCOPED_TRACE(replay(seed));
    std::mt19937_64 rng(seed);
    Env env("fattree:ports=8,levels=3");
    const std::size_t n_nodes = env.fabric.hcas().size();
    constexpr std::size_t kGroups = 300;
    std::vector<std::vector<NodeId>> members(kGroups);
    struct Msg {
      std::size_t group;
      NodeId node;
    };
    std::vector<Msg> joins;
    for (std::size_t gi = 0; gi < kGroups; ++gi) {
      const auto size = std::uniform_int_distribution<std::size_t>(2, 24)(rng);
      std::vector<std::size_t> pick(n_nodes);
      std::iota(pick.begin(), pick.end(), 0);
      std::shuffle(pick.begin(), pick.end(), rng);
      for (std::size_t k = 0; k < size; ++k) {
        members[gi].push_back(env.hca(pick[k]));
        joins.push_back({gi, env.hca(pick[k])});
        if (rng() % 8 == 0) {
          joins.push_back({gi, env.hca(pick[k])});
        }
      }
    }
    std::shuffle(joins.begin(), joins.end(), rng);
    McgTime t{0};
    for (const auto& m : joins) {
      const auto r = env.sm.join(
          {mgid(m.group), m.node, static_cast<std::uint32_t>(members[m.group].size())}, t);
      ASSERT_TRUE(r.status == McgStatus::kOk || r.status == McgStatus::kDuplicate)
          << to_string(r.status) << ": " << r.detail;
      if (rng() % 16 == 0) {
        env.sm.tick(t);
      }
      t += std::chrono::microseconds(10);
    }
    env.sm.tick(t);
    std::set<Lid> mlids;
    McLoad sum(env.fabric);
    for (std::size_t gi = 0; gi < kGroups; ++gi) {
      const auto rec = env.sm.query({mgid(gi)}, t);
      EXPECT_EQ(rec.state, McgState::kReady) << "group " << gi << "\n" << env.log();
      EXPECT_EQ(env.router.calls(rec.mlid), 1) << "group " << gi;
      mlids.insert(rec.mlid);
      sum.add(*env.sm.group(mgid(gi))->tree);
    }
    EXPECT_EQ(mlids.size(), kGroups);
    EXPECT_EQ(env.router.total_calls, static_cast<int>(kGroups));
    EXPECT_EQ(env.sm.take_mft_updates().size(), kGroups);
    const auto& load = env.router.load();
    for (SwitchIdx s = 0; s < env.fabric.switches().size(); ++s) {
      for (int p = 1; p <= env.fabric.num_ports(env.fabric.switch_node(s)); ++p) {
        const auto port = static_cast<PortNum>(p);
        ASSERT_EQ(load.efi(s, port), sum.efi(s, port)) << "switch " << s << " port " << p;
      }
    }

    std::vector<Msg> leaves;
    for (std::size_t gi = 0; gi < kGroups; ++gi) {
      for (const NodeId n : members[gi]) {
        leaves.push_back({gi, n});
      }
    }
    std::shuffle(leaves.begin(), leaves.end(), rng);
    for (const auto& m : leaves) {
      ASSERT_EQ(env.sm.leave({mgid(m.group), m.node}, t).status, McgStatus::kOk);
      t += std::chrono::microseconds(10);
    }
    env.sm.tick(t + seconds(1));
    EXPECT_EQ(env.sm.live_groups(), 0u);
    EXPECT_EQ(env.sm.free_mlids(), kMulticastLidCount);
    EXPECT_EQ(env.router.live_trees(), 0u);
    EXPECT_EQ(env.router.total_calls, static_cast<int>(kGroups));
    EXPECT_EQ(env.sm.counters().groups_gone, kGroups);
    EXPECT_EQ(env.router.load().stats().used_all_links, 0u);
  }
}

// ----------------------------------------------------------------------------
// Rank 0's view: poll MCGStateRecord until Ready, over a lossy path.

// Every member retransmits its join every 200 ms until it is answered; each
// request and each answer is lost with probability 1/4. Rank 0 polls every
// 50 ms (polls are lost too). The SM routes every 100 ms. Rank 0 must see
// ReceivingJoinReq / ComputingRoutes then Ready, in that order, within the
// join timeout; then "tells the others" (here: every member's view is Ready
// at that time).
TEST(McgProtocol, RankZeroPollsUntilReadyOverLossyRequests) {
  for (const auto seed : seeds({31, 32, 33, 34, 35, 36})) {
    SCOPED_TRACE(replay(seed));
    std::mt19937_64 rng(seed);
    Env env("fattree:ports=8,levels=3");
    const Mgid g = mgid(seed);
    const std::size_t size = 2 + rng() % 40;
    std::vector<NodeId> members;
    for (std::size_t i = 0; i < size; ++i) {
      members.push_back(env.hca((i * 3) % env.fabric.hcas().size()));
    }
    std::vector<bool> answered(size, false);
    auto lost = [&] { return rng() % 4 == 0; };
    std::vector<McgState> seen;
    McgTime t{0};
    McgTime ready_at{-1};
    for (; t < seconds(5); t += ms(10)) {
      const auto step = t.count() / 1000;  // in ms
      if (step % 200 == 0) {
        for (std::size_t i = 0; i < size; ++i) {
          if (!answered[i] && !lost()) {
            const auto r = env.sm.join({g, members[i], static_cast<std::uint32_t>(size)}, t);
            ASSERT_TRUE(r.status == McgStatus::kOk || r.status == McgStatus::kDuplicate)
                << r.detail;
            answered[i] = !lost();
          }
        }
      }
      if (step % 100 == 0) {
        env.sm.tick(t);
      }
      if (step % 50 == 0 && !lost()) {
        const auto rec = env.sm.query({g}, t);
        if (seen.empty() || seen.back() != rec.state) {
          seen.push_back(rec.state);
        }
        if (rec.state == McgState::kReady) {
          ready_at = t;
          break;
        }
      }
    }
    ASSERT_GE(ready_at.count(), 0) << "rank 0 never saw Ready\n" << env.log();
    // Gone first (rank 0's own join lost), then only forward.
    std::vector<McgState> order{McgState::kGone, McgState::kReceivingJoinReq,
                                McgState::kComputingRoutes, McgState::kReady};
    auto pos = order.begin();
    for (const auto s : seen) {
      pos = std::find(pos, order.end(), s);
      ASSERT_NE(pos, order.end()) << "state went backwards: " << to_string(s);
    }
    EXPECT_EQ(env.router.total_calls, 1);
    EXPECT_EQ(env.sm.group(g)->joined, size);
    EXPECT_EQ(env.sm.counters().joins_with(McgStatus::kOk), size);
    // Members whose answer was lost learn Ready from rank 0's multicast; a
    // retransmission now would be answered with Ready too.
    for (std::size_t i = 0; i < size; ++i) {
      EXPECT_EQ(env.sm.join({g, members[i], static_cast<std::uint32_t>(size)}, t).record.state,
                McgState::kReady);
    }
  }
}

}  // namespace
}  // namespace syncfab::sm
