// The group protocol over the fabric (docs/group-protocol.md): every NIC's
// driver joins its groups through its NIC's mailbox (driver::GroupClient),
// the management datagrams cross the switches to the subnet-manager agent
// on an end node (SmAgent: McgProtocol, FULB-MC, the switches programmed
// through their drivers), READY reaches every member, and switch-combined
// and multicast-release barriers run on the groups the protocol made. Lost,
// duplicated and reordered joins, a lost READY, a member that never joins
// and one that leaves early, a management packet of a bad length.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "barrier_run.hpp"
#include "fabric_setup.hpp"
#include "program.hpp"
#include "routing.hpp"
#include "sm_agent.hpp"
#include "syncfab/driver/group_client.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

namespace {

using Kind = driver::GroupBarrierKind;

constexpr std::uint64_t kProtocolLimit = 200'000;  // cycles for the joins of one test
constexpr std::uint64_t kResendNs = 3'000;         // a client re-sends after this (1 cycle = 1 ns)

// The 16-end-node fat tree with its last end node the agent's host: 15 NICs.
struct Rig {
  sm::Fabric smf = fat_tree_16();
  std::unique_ptr<SystemFabric> sys;
  std::unique_ptr<SmAgent> agent;
  std::vector<std::unique_ptr<driver::GroupClient>> clients;  // per NIC

  Rig(TestContext& ctx, Backend b, sm::McgConfig protocol = {}) {
    SystemConfig cfg;
    cfg.backend = [b](sm::NodeId) { return b; };
    const sm::NodeId host = *smf.find("nic15");
    cfg.bulk_host = [host](sm::NodeId n) { return n == host; };
    cfg.max_pkt_flits = fmt::kMgmtFlits;
    sys = std::make_unique<SystemFabric>(ctx, smf, cfg);
    sys->start(fabric::nic_options(ctx.sim(), kRetryDelay));
    RoutingOptions ro;
    ro.unicast = "ftree";
    ro.mc.clear();  // every group comes from the protocol
    (void)program_and_verify(*sys, route_system(smf, ro));
    SmAgentOptions ao;
    ao.protocol = protocol;
    agent = std::make_unique<SmAgent>(*sys, 0, ao);
    for (unsigned r = 0; r < sys->nic_count(); ++r) {
      driver::GroupClientOptions co;
      SystemFabric* s = sys.get();
      co.clock_ns = [s] { return s->cycle(); };
      co.resend_ns = kResendNs;
      co.timeout_ns = kProtocolLimit / 2;
      clients.push_back(
          std::make_unique<driver::GroupClient>(sys->nic(r).device(), agent->lid(), co));
    }
  }

  // Polls every client and the agent until `done` or the limit.
  template <typename Done>
  void run_until(Done done, const std::string& what) {
    const std::uint64_t end = sys->cycle() + kProtocolLimit;
    while (!done()) {
      TB_CHECK(sys->cycle() < end) << what << ": not done after " << kProtocolLimit << " cycles";
      for (auto& c : clients) {
        c->poll();
      }
      agent->poll();
      sys->idle_cycles(4);
    }
  }
};

struct Joined {
  std::vector<unsigned> members;  // NIC index of member i
  std::vector<unsigned> handles;  // per member, its client's join
};

// Joins the group `id` of the NICs `members` (member i = members[i]) in the
// order `order` (indices into members), one join started every `gap`
// cycles, and waits for every READY.
Joined join_all(Rig& rig, std::uint64_t id, const std::vector<unsigned>& members,
                const std::vector<unsigned>& order, std::uint64_t gap) {
  Joined j{members, std::vector<unsigned>(members.size())};
  for (const unsigned i : order) {
    j.handles[i] = rig.clients[members[i]]->join(
        {0xFF12, id}, static_cast<std::uint16_t>(members.size()), static_cast<std::uint16_t>(i), 1);
    for (std::uint64_t c = 0; c < gap; c += 4) {
      for (auto& cl : rig.clients) {
        cl->poll();
      }
      rig.agent->poll();
      rig.sys->idle_cycles(4);
    }
  }
  rig.run_until(
      [&] {
        for (std::size_t i = 0; i < members.size(); ++i) {
          if (rig.clients[members[i]]->state(j.handles[i]) == driver::RequestState::kPending) {
            return false;
          }
        }
        return true;
      },
      "joins of group " + std::to_string(id));
  for (std::size_t i = 0; i < members.size(); ++i) {
    const driver::GroupClient& c = *rig.clients[members[i]];
    TB_CHECK(c.state(j.handles[i]) == driver::RequestState::kDone)
        << rig.sys->nic(members[i]).name() << ": " << c.describe(j.handles[i]);
  }
  return j;
}

// Barriers of `kind` on a joined group, every check of run_barriers.
BarrierResult barriers_on(Rig& rig, const Joined& j, Kind kind, unsigned ctx, unsigned n,
                          std::mt19937_64& rng) {
  const driver::GroupClient& c0 = *rig.clients[j.members[0]];
  const driver::GroupTarget t = c0.target(j.handles[0], kind);
  TB_CHECK_EQ(t.root_lid, rig.sys->nic_lid(j.members[0])) << "READY names member 0's LID";
  for (std::size_t i = 0; i < j.members.size(); ++i) {
    const driver::GroupClient& c = *rig.clients[j.members[i]];
    TB_CHECK_EQ(c.target(j.handles[i], kind).mlid, t.mlid) << "every member got the same MLID";
    TB_CHECK_EQ(c.first_epoch(j.handles[i]), c0.first_epoch(j.handles[0]));
  }
  BarrierRun run;
  run.ctx = ctx;
  run.barriers = n;
  run.skew = 100;
  run.limit = kLimit;
  run.group = GroupRun{kind, t.mlid, j.members, c0.first_epoch(j.handles[0])};
  BarrierResult r = run_barriers(*rig.sys, run, rng);
  print_run(std::string(driver::to_string(kind)) + " on MLID " + sm::hex_lid(t.mlid), run, r);
  return r;
}

std::vector<unsigned> iota(unsigned n) {
  std::vector<unsigned> v(n);
  for (unsigned i = 0; i < n; ++i) {
    v[i] = i;
  }
  return v;
}

void groups_then_barriers(TestContext& ctx, Backend b) {
  Rig rig(ctx, b);
  std::mt19937_64 rng(ctx.seed());
  // Group 1: every NIC, joins in a random order (reordered).
  std::vector<unsigned> all = iota(rig.sys->nic_count());
  std::vector<unsigned> order = iota(rig.sys->nic_count());
  std::shuffle(order.begin(), order.end(), rng);
  const Joined g1 = join_all(rig, 1, all, order, 8);
  // Group 2: six NICs across the leaves; NIC 3's first datagram (its JOIN)
  // is lost on its link, and member 2's READY on the way to it.
  const std::vector<unsigned> m2{3, 0, 9, 12, 6, 14};
  rig.sys->nic_link(3).drop_next(rig.sys->nic(3).port(0), PktKind::kMgmt);
  Link& to_m2 = rig.sys->nic_link(m2[2]);
  // The direction into the NIC: drop from the switch's end.
  Port& sw_end = to_m2.a().port == &rig.sys->nic(m2[2]).port(0) ? *to_m2.b().port : *to_m2.a().port;
  to_m2.drop_next(sw_end, PktKind::kMgmt);
  const Joined g2 = join_all(rig, 2, m2, iota(6), 0);
  // A duplicated join: NIC 0 sends a second JOIN for group 2 (a new
  // request); the agent answers it as a duplicate with READY.
  const unsigned again = rig.clients[0]->join({0xFF12, 2}, 6, 1, 1);
  rig.run_until([&] { return rig.clients[0]->state(again) != driver::RequestState::kPending; },
                "the duplicate join");
  TB_CHECK(rig.clients[0]->state(again) == driver::RequestState::kDone)
      << rig.clients[0]->describe(again);

  const auto& ac = rig.agent->agent().protocol().counters();
  std::cout << "agent: " << ac.join_requests << " join requests, "
            << ac.joins_with(sm::McgStatus::kDuplicate) << " duplicates, " << ac.groups_ready
            << " groups ready, " << ac.route_computations << " route computations; "
            << rig.agent->programmer().entries_written() << " MFT + combine entries written\n";
  TB_CHECK_EQ(ac.route_computations, 2U) << "one route computation per group";
  TB_CHECK(ac.joins_with(sm::McgStatus::kDuplicate) >= 2U)
      << "the re-sent JOIN (its READY lost) and the second JOIN are duplicates";

  (void)barriers_on(rig, g1, Kind::kSwitchCombined, 0, 3, rng);
  (void)barriers_on(rig, g2, Kind::kSwitchCombined, 1, 3, rng);
  (void)barriers_on(rig, g2, Kind::kMulticastRelease, 2, 3, rng);

  // Leaves: member 0 of group 2 first, then the rest; the tables go.
  const driver::GroupTarget t2 = rig.clients[m2[0]]->target(g2.handles[0], Kind::kSwitchCombined);
  std::vector<std::pair<unsigned, unsigned>> leaves;
  leaves.reserve(m2.size());
  for (const unsigned n : m2) {
    leaves.emplace_back(n, rig.clients[n]->leave({0xFF12, 2}));
  }
  rig.run_until(
      [&] {
        return std::all_of(leaves.begin(), leaves.end(), [&](const auto& l) {
          return rig.clients[l.first]->state(l.second) != driver::RequestState::kPending;
        });
      },
      "leaves of group 2");
  rig.sys->idle_cycles(200);
  for (unsigned s = 0; s < rig.sys->switch_count(); ++s) {
    TB_CHECK(!rig.sys->sw(s).driver().mft(t2.mlid).has_value())
        << rig.sys->sw(s).name() << " still has MLID " << sm::hex_lid(t2.mlid);
  }
  std::cout << "group 2 left: its MFT and combine entries removed from every switch\n";
}

}  // namespace

SYNCFAB_TEST(group_protocol, joins_then_barriers) {
  groups_then_barriers(ctx, Backend::kRtl);
  co_return;
}

SYNCFAB_TEST(group_protocol, joins_then_barriers_model) {
  groups_then_barriers(ctx, Backend::kModel);
  co_return;
}

// A member that never joins: the others wait until the agent's join timeout
// destroys the group; their clients see the group Destroying (a refusal)
// or time out, and nothing is programmed.
SYNCFAB_TEST(group_protocol, member_never_joins) {
  sm::McgConfig pc;
  pc.join_timeout = std::chrono::microseconds(20);  // 20,000 cycles
  Rig rig(ctx, Backend::kRtl, pc);
  std::vector<unsigned> h;
  for (unsigned i = 0; i < 2; ++i) {
    h.push_back(rig.clients[i]->join({0xFF12, 5}, 3, static_cast<std::uint16_t>(i), 1));
  }
  rig.run_until(
      [&] {
        return rig.clients[0]->state(h[0]) != driver::RequestState::kPending &&
               rig.clients[1]->state(h[1]) != driver::RequestState::kPending;
      },
      "the incomplete group");
  for (unsigned i = 0; i < 2; ++i) {
    TB_CHECK(rig.clients[i]->state(h[i]) != driver::RequestState::kDone)
        << rig.clients[i]->describe(h[i]);
    std::cout << rig.sys->nic(i).name() << ": " << rig.clients[i]->describe(h[i]) << "\n";
  }
  TB_CHECK_EQ(rig.agent->agent().protocol().counters().join_timeouts, 1U);
  TB_CHECK_EQ(rig.agent->programmer().entries_written(), 0U)
      << "an incomplete group is never programmed";
  co_return;
}

// A member that leaves before the group is Ready is refused (NOT_READY);
// the group still completes and runs barriers.
SYNCFAB_TEST(group_protocol, early_leave_refused) {
  Rig rig(ctx, Backend::kRtl);
  const unsigned first = rig.clients[4]->join({0xFF12, 6}, 3, 0, 1);
  rig.run_until([&] { return rig.agent->agent().counters().requests >= 1; }, "the first join");
  const unsigned leave = rig.clients[4]->leave({0xFF12, 6});
  rig.run_until([&] { return rig.clients[4]->state(leave) != driver::RequestState::kPending; },
                "the early leave");
  TB_CHECK(rig.clients[4]->state(leave) == driver::RequestState::kRefused)
      << rig.clients[4]->describe(leave);
  TB_CHECK(rig.clients[4]->answer(leave)->status() == fmt::MgmtStatus::kNotReady)
      << rig.clients[4]->describe(leave);
  Joined j{{4, 8, 13}, {first, 0, 0}};
  j.handles[1] = rig.clients[8]->join({0xFF12, 6}, 3, 1, 1);
  j.handles[2] = rig.clients[13]->join({0xFF12, 6}, 3, 2, 1);
  rig.run_until(
      [&] {
        return rig.clients[4]->state(first) != driver::RequestState::kPending &&
               rig.clients[8]->state(j.handles[1]) != driver::RequestState::kPending &&
               rig.clients[13]->state(j.handles[2]) != driver::RequestState::kPending;
      },
      "group 6");
  std::mt19937_64 rng(ctx.seed());
  (void)barriers_on(rig, j, Kind::kSwitchCombined, 0, 2, rng);
  co_return;
}

// A management packet whose len_flits (2, with 2 flits) is not MGMT_FLITS:
// the switches forward it, the NIC drops it and counts it (CNT_DROP), and
// its mailbox takes the next, well-formed datagram.
SYNCFAB_TEST(group_protocol, bad_length_datagram_dropped) {
  Rig rig(ctx, Backend::kRtl);
  BulkHost& host = rig.sys->host(0);
  MalformedSpec m;
  m.type = fmt::PktType::kMgmt;
  m.dst_lid = rig.sys->nic_lid(2);
  m.prio = 3;
  m.len_flits = 2;
  m.flits = 2;
  m.at_cycle = rig.sys->cycle();
  host.inject_malformed(m);
  const fabric::Counters before = fabric::read_counters(rig.sys->nic(2).device());
  rig.sys->idle_cycles(200);
  const fabric::Counters after = fabric::read_counters(rig.sys->nic(2).device());
  TB_CHECK_EQ(after.drop - before.drop, 1U) << "the NIC dropped and counted it";
  TB_CHECK_EQ(after.mgmt_recv - before.mgmt_recv, 0U);
  const unsigned h = rig.clients[2]->join({0xFF12, 7}, 2, 0, 1);
  const unsigned h2 = rig.clients[5]->join({0xFF12, 7}, 2, 1, 1);
  rig.run_until(
      [&] {
        return rig.clients[2]->state(h) != driver::RequestState::kPending &&
               rig.clients[5]->state(h2) != driver::RequestState::kPending;
      },
      "the group after the bad datagram");
  TB_CHECK(rig.clients[2]->state(h) == driver::RequestState::kDone) << rig.clients[2]->describe(h);
  co_return;
}

// An SM whose MLID range holds one MLID: the second group's join is refused
// MLID_EXHAUSTED over the fabric (the member's client reports it, nothing
// is programmed for it), and the first group keeps running barriers.
SYNCFAB_TEST(group_protocol, join_beyond_mlid_space_refused) {
  sm::McgConfig pc;
  pc.first_mlid = fmt::kMlidBase;
  pc.last_mlid = fmt::kMlidBase;
  Rig rig(ctx, Backend::kRtl, pc);
  const Joined j = join_all(rig, 8, {0, 5, 10}, {0, 1, 2}, 0);
  const std::size_t written = rig.agent->programmer().entries_written();
  const unsigned h = rig.clients[3]->join({0xFF12, 9}, 2, 0, 1);
  rig.run_until([&] { return rig.clients[3]->state(h) != driver::RequestState::kPending; },
                "the join beyond the MLID space");
  TB_CHECK(rig.clients[3]->state(h) == driver::RequestState::kRefused)
      << rig.clients[3]->describe(h);
  TB_CHECK(rig.clients[3]->answer(h)->status() == fmt::MgmtStatus::kMlidExhausted)
      << rig.clients[3]->describe(h);
  std::cout << rig.sys->nic(3).name() << ": " << rig.clients[3]->describe(h) << "\n";
  TB_CHECK_EQ(rig.agent->programmer().entries_written(), written)
      << "nothing programmed for the refused group";
  std::mt19937_64 rng(ctx.seed());
  (void)barriers_on(rig, j, Kind::kSwitchCombined, 0, 2, rng);
  (void)barriers_on(rig, j, Kind::kMulticastRelease, 1, 2, rng);
  co_return;
}
