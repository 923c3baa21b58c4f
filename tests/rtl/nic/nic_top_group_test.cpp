// nic_top with group barriers (docs/group-barrier.md): the unchanged driver
// posts group descriptors as raw descriptors (its group API is not written
// yet), the network BFM injects the group's packets and records what the
// engine sends (nic_top_bench.hpp). Expected results are worked out from
// docs/group-barrier.md and the timing of docs/nic/ge.md; the rule is named
// next to each check.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nic_top_bench.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/nic_regs.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::nic_top;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace fmt = syncfab::fmt;
using fmt::ErrCode;
using fmt::Opcode;
using fmt::PktType;

namespace {

constexpr auto kTimeout = std::chrono::microseconds(400);
constexpr std::uint16_t kRootLid = 0x0300;
constexpr std::uint16_t kMlid = 0xC010;
constexpr unsigned kMaxMembers = 256;  // nic_top's default MaxMembers (HW_CFG2.MAX_MEMBERS)

// The group registers by their offsets in the generated layout (the
// driver's register constants do not name them yet).
std::uint32_t reg(hw::Device& d, std::size_t off) {
  return d.read32(static_cast<std::uint32_t>(off));
}
void set_reg(hw::Device& d, std::size_t off, std::uint32_t v) {
  d.write32(static_cast<std::uint32_t>(off), v);
}
#define NIC_OFF(R) offsetof(nic_csr_t, R)

struct GroupCounts {
  std::uint32_t arrive_sent, arrive_recv, release_sent, release_recv, retry, drop, dup, error;
  bool operator==(const GroupCounts&) const = default;
};
std::ostream& operator<<(std::ostream& os, const GroupCounts& c) {
  return os << "{arrive_sent " << c.arrive_sent << ", arrive_recv " << c.arrive_recv
            << ", release_sent " << c.release_sent << ", release_recv " << c.release_recv
            << ", retry " << c.retry << ", drop " << c.drop << ", dup " << c.dup << ", error "
            << c.error << "}";
}
GroupCounts read_counts(hw::Device& d) {
  return {reg(d, NIC_OFF(CNT_ARRIVE_SENT)),  reg(d, NIC_OFF(CNT_ARRIVE_RECV)),
          reg(d, NIC_OFF(CNT_RELEASE_SENT)), reg(d, NIC_OFF(CNT_RELEASE_RECV)),
          reg(d, NIC_OFF(CNT_GROUP_RETRY)),  reg(d, NIC_OFF(CNT_DROP)),
          reg(d, NIC_OFF(CNT_DUP)),          reg(d, NIC_OFF(CNT_ERROR))};
}

fmt::BarrierDesc group_desc(Opcode op, unsigned ctx, std::uint16_t epoch, unsigned member,
                            unsigned members, std::uint16_t mlid = kMlid,
                            std::uint16_t root_lid = kRootLid) {
  fmt::BarrierDesc d;
  d.set_opcode(op)
      .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
      .set_ctx(static_cast<std::uint8_t>(ctx))
      .set_epoch(epoch)
      .set_flag_cq_entry(true)
      .set_mlid(mlid)
      .set_root_lid(root_lid)
      .set_member(static_cast<std::uint16_t>(member))
      .set_members(static_cast<std::uint16_t>(members));
  return d;
}

fmt::PktHdr group_pkt(PktType type, std::uint16_t src, std::uint16_t dst, unsigned ctx,
                      std::uint16_t epoch, unsigned member = 0) {
  fmt::PktHdr h;
  h.set_pkt_type(type).set_len_flits(1).set_src_lid(src).set_dst_lid(dst);
  h.set_ctx(static_cast<std::uint8_t>(ctx)).set_epoch(epoch);
  h.set_member(static_cast<std::uint16_t>(member));
  return h;
}

void run_until(Bench& b, const std::function<bool()>& done, std::uint64_t max, const char* what) {
  for (std::uint64_t i = 0; !done(); ++i) {
    TB_CHECK(i < max) << what << ": not within " << max << " cycles";
    b.idle_cycles(1);
  }
}

// Injects one header now and runs until it is taken; returns that cycle.
std::uint64_t deliver(Bench& b, const fmt::PktHdr& h, const char* what) {
  const std::size_t id = b.net.inject(Packet{flit_of(h)}, 0);
  run_until(
      b, [&] { return b.net.injected(id).done(); }, 2000, what);
  return b.net.injected(id).last_taken();
}

// Runs until the engine has sent `n` packets in all; returns the last.
NetworkBfm::Sent sent_nth(Bench& b, std::size_t n, std::uint64_t max, const char* what) {
  run_until(
      b, [&] { return b.net.sent().size() >= n; }, max, what);
  return b.net.sent()[n - 1];
}

void expect_pkt(const fmt::PktHdr& h, PktType type, std::uint16_t dst, unsigned ctx,
                std::uint16_t epoch, unsigned member, const std::string& what) {
  TB_CHECK_EQ(static_cast<unsigned>(h.pkt_type()), static_cast<unsigned>(type)) << what;
  TB_CHECK_EQ(h.src_lid(), kOwnLid) << what;
  TB_CHECK_EQ(h.dst_lid(), dst) << what;
  TB_CHECK_EQ(h.ctx(), ctx) << what;
  TB_CHECK_EQ(h.epoch(), epoch) << what;
  TB_CHECK_EQ(h.member(), member) << what;
  TB_CHECK_EQ(h.round(), 0U) << what;
}

// The bench with the driver's bring-up done and the CQ watched.
struct Setup {
  explicit Setup(Bench& b) : n(b.dev, b.memory, nic_options(b)) { b.watch_cq(); }
  drv::Nic n;
};

const CqWrite& last_cq(Bench& b) {
  TB_CHECK(!b.mem.cq_writes().empty()) << "no CQ entry";
  return b.mem.cq_writes().back();
}

}  // namespace

// docs/group-barrier.md §2: every validation failure of a group descriptor,
// in order, as a DESC_ERROR entry; HW_CFG2.MAX_MEMBERS and VERSION.MINOR.
SYNCFAB_TEST(nic_top_group, validation) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  Setup s(b);
  TB_CHECK_EQ(reg(b.dev, NIC_OFF(HW_CFG2)) & 0xFFFFU, kMaxMembers) << "HW_CFG2.MAX_MEMBERS";
  // The group registers came with MINOR 4; later minors only add registers.
  TB_CHECK(hw::nic::VERSION_MINOR.get(reg(b.dev, NIC_OFF(VERSION))) >= 4U) << "VERSION.MINOR";
  const Opcode mc = Opcode::kMcastBarrier;
  const Opcode cb = Opcode::kCombBarrier;
  struct Case {
    fmt::BarrierDesc d;
    ErrCode want;
    const char* rule;
  };
  std::vector<Case> cases;
  fmt::BarrierDesc d = group_desc(mc, 0, 1, 1, 4);
  d.set_opcode(static_cast<Opcode>(0x04)).set_version(0);
  cases.push_back({d, ErrCode::kBadOpcode, "rule 1"});
  d = group_desc(mc, 9, 2, 1, 4);
  d.set_version(0);
  cases.push_back({d, ErrCode::kBadVersion, "rule 2"});
  cases.push_back({group_desc(cb, kNumCtx, 3, 0, 0), ErrCode::kBadContext, "rule 3"});
  d = group_desc(mc, 1, 4, 1, 0, 0x0100);
  d.set_flag_cmpl_write(true).set_cmpl_addr(0);
  cases.push_back({d, ErrCode::kBadAddr, "rule 5"});
  cases.push_back({group_desc(cb, 1, 5, 1, 0, 0xBFFF), ErrCode::kBadLid, "rule 6 (mlid)"});
  cases.push_back({group_desc(mc, 1, 6, 1, 4, kMlid, 0), ErrCode::kBadLid, "rule 6 (root_lid 0)"});
  cases.push_back(
      {group_desc(mc, 1, 7, 1, 4, kMlid, 0xC001), ErrCode::kBadLid, "rule 6 (root_lid multicast)"});
  cases.push_back({group_desc(cb, 1, 8, 0, 0), ErrCode::kBadMembers, "rule 7 (members 0)"});
  cases.push_back({group_desc(mc, 1, 9, 4, 4), ErrCode::kBadMembers, "rule 7 (member = members)"});
  cases.push_back(
      {group_desc(mc, 1, 10, 1, 4097), ErrCode::kBadMembers, "rule 7 (MCAST_MAX_MEMBERS + 1)"});
  cases.push_back({group_desc(mc, 1, 11, 0, kMaxMembers + 1), ErrCode::kBadMembers,
                   "rule 7 (root, MAX_MEMBERS + 1)"});
  unsigned i = 0;
  for (const auto& c : cases) {
    const auto path = (i++ % 2) == 0 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq;
    const drv::CqRecord r = s.n.wait_raw(s.n.submit_raw_descriptor(c.d, path), kTimeout);
    TB_CHECK(r.status == fmt::CqStatus::kDescError) << c.rule << ": " << drv::describe(r);
    TB_CHECK(r.err == c.want) << c.rule << ": " << drv::describe(r);
    TB_CHECK_EQ(r.epoch, c.d.epoch()) << c.rule;
  }
  // Rule 8: a member waiting for its release keeps its context busy (and
  // counted in STATUS.ACTIVE_CTX): a group descriptor on it is CTX_BUSY.
  set_reg(b.dev, NIC_OFF(GROUP_TIMEOUT), 0);
  const auto t = s.n.submit_raw_descriptor(group_desc(cb, 2, 20, 1, 3), drv::SubmitPath::kHdq);
  const drv::CqRecord busy = s.n.wait_raw(
      s.n.submit_raw_descriptor(group_desc(mc, 2, 21, 0, 2), drv::SubmitPath::kHdq), kTimeout);
  TB_CHECK(busy.err == ErrCode::kCtxBusy) << drv::describe(busy);
  TB_CHECK_EQ((reg(b.dev, NIC_OFF(STATUS)) >> 8U) & 0xFFU, 1U) << "STATUS.ACTIVE_CTX counts it";
  (void)deliver(b, group_pkt(PktType::kCombRelease, 0, kMlid, 2, 20), "COMB_RELEASE");
  const drv::CqRecord ok = s.n.wait_raw(t, kTimeout);
  TB_CHECK(ok.status == fmt::CqStatus::kOk) << drv::describe(ok);
  TB_CHECK_EQ(read_counts(b.dev).error, static_cast<std::uint32_t>(cases.size() + 1));
}

// §3: members of both kinds: the arrival on the link (fields, prio = TC),
// the release by multicast or by unicast to this node, OK entries; the
// timing of the group path.
SYNCFAB_TEST(nic_top_group, member_release) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  Setup s(b);
  set_reg(b.dev, NIC_OFF(GROUP_TIMEOUT), 0);
  // MCAST member 3 of 5, released by the MLID.
  auto t = s.n.submit_raw_descriptor(group_desc(Opcode::kMcastBarrier, 1, 0x100, 3, 5),
                                     drv::SubmitPath::kHdq);
  const std::uint64_t posted = b.clk.cycles();
  NetworkBfm::Sent a = sent_nth(b, 1, 100, "ARRIVE");
  expect_pkt(a.hdr, PktType::kArrive, kRootLid, 1, 0x100, 3, "ARRIVE to root_lid");
  const std::uint64_t rel =
      deliver(b, group_pkt(PktType::kRelease, kRootLid, kMlid, 1, 0x100), "RELEASE to the MLID");
  drv::CqRecord r = s.n.wait_raw(t, kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kOk && r.ctx == 1 && r.epoch == 0x100) << drv::describe(r);
  const std::uint64_t cq_cycle = last_cq(b).cycle;
  std::cout << "nic_top_group.member_release: HDQ post written to ARRIVE shown " << a.shown - posted
            << " cycles; RELEASE taken to CQ entry written " << cq_cycle - rel << " cycles\n";
  // The group barrier's bound counts these two (docs/nic/ge.md "Behaviour
  // and timing"; sim/system/barrier_bound.hpp kNicInject, kNicEject).
  TB_CHECK_EQ(a.shown - posted, 5U) << "HDQ post to ARRIVE on the link";
  TB_CHECK_EQ(cq_cycle - rel, 5U) << "RELEASE to CQ entry";
  // The next epoch, released by a unicast RELEASE to this node (a re-send).
  t = s.n.submit_raw_descriptor(group_desc(Opcode::kMcastBarrier, 1, 0x101, 3, 5),
                                drv::SubmitPath::kSdq);
  a = sent_nth(b, 2, 400, "ARRIVE of 0x101");
  expect_pkt(a.hdr, PktType::kArrive, kRootLid, 1, 0x101, 3, "ARRIVE of the next epoch");
  (void)deliver(b, group_pkt(PktType::kRelease, kRootLid, kOwnLid, 1, 0x101), "RELEASE unicast");
  r = s.n.wait_raw(t, kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kOk && r.epoch == 0x101) << drv::describe(r);
  // COMB member: COMB_ARRIVE to the MLID, member 0; COMB_RELEASE completes.
  t = s.n.submit_raw_descriptor(group_desc(Opcode::kCombBarrier, 3, 7, 2, 3),
                                drv::SubmitPath::kHdq);
  a = sent_nth(b, 3, 100, "COMB_ARRIVE");
  expect_pkt(a.hdr, PktType::kCombArrive, kMlid, 3, 7, 0, "COMB_ARRIVE to the MLID");
  (void)deliver(b, group_pkt(PktType::kCombRelease, 0, kMlid, 3, 7), "COMB_RELEASE");
  r = s.n.wait_raw(t, kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kOk && r.ctx == 3 && r.epoch == 7) << drv::describe(r);
  // Late copies: duplicates; a release no barrier waits for: dropped.
  (void)deliver(b, group_pkt(PktType::kRelease, kRootLid, kMlid, 1, 0x100), "old RELEASE");
  (void)deliver(b, group_pkt(PktType::kCombRelease, 0, kMlid, 3, 7), "dup COMB_RELEASE");
  (void)deliver(b, group_pkt(PktType::kRelease, kRootLid, kMlid, 2, 9), "stray RELEASE");
  b.idle_cycles(20);
  const GroupCounts c = read_counts(b.dev);
  TB_CHECK_EQ(c, (GroupCounts{3, 0, 0, 3, 0, 1, 2, 0}));
}

// §3: GROUP_TIMEOUT re-sends at the documented cycle; GROUP_RETRY_LIMIT 1
// allows one re-send and the second expiry completes NET_ERROR /
// RELEASE_TIMEOUT.
SYNCFAB_TEST(nic_top_group, member_timeout) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  Setup s(b);
  constexpr std::uint32_t kT = 300;
  set_reg(b.dev, NIC_OFF(GROUP_TIMEOUT), kT);
  set_reg(b.dev, NIC_OFF(GROUP_RETRY_LIMIT), 1);
  const auto t = s.n.submit_raw_descriptor(group_desc(Opcode::kMcastBarrier, 0, 55, 1, 2),
                                           drv::SubmitPath::kHdq);
  const NetworkBfm::Sent first = sent_nth(b, 1, 100, "ARRIVE");
  const NetworkBfm::Sent again = sent_nth(b, 2, kT + 50, "re-sent ARRIVE");
  expect_pkt(again.hdr, PktType::kArrive, kRootLid, 0, 55, 1, "the re-send");
  TB_CHECK_EQ(again.shown - first.taken, kT + 2U) << "re-send T + 2 cycles after the ARRIVE left";
  const drv::CqRecord r = s.n.wait_raw(t, kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kNetError && r.err == ErrCode::kReleaseTimeout)
      << drv::describe(r);
  TB_CHECK(last_cq(b).cycle - again.taken >= kT) << "the second expiry T cycles after the re-send";
  b.idle_cycles(kT + 20);
  TB_CHECK_EQ(b.net.sent().size(), 2U) << "no third ARRIVE";
  const GroupCounts c = read_counts(b.dev);
  TB_CHECK_EQ(c, (GroupCounts{2, 0, 0, 0, 1, 0, 0, 1}));
}

// §4: the root: an early arrival (before its descriptor), a duplicate, a
// bad member, live arrivals, the multicast RELEASE and the OK entry, the
// unicast RELEASE for a re-sent ARRIVE of the released epoch, a COMB_ARRIVE
// dropped (§6), consecutive epochs, a group of one.
SYNCFAB_TEST(nic_top_group, root) {
  Bench b(ctx, Knobs{}, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  Setup s(b);
  GroupCounts want = read_counts(b.dev);
  (void)deliver(b, group_pkt(PktType::kArrive, 0x0401, kOwnLid, 2, 40, 1), "early ARRIVE");
  (void)deliver(b, group_pkt(PktType::kArrive, 0x0401, kOwnLid, 2, 40, 1), "duplicate");
  (void)deliver(b, group_pkt(PktType::kCombArrive, 0x0402, kMlid, 2, 40), "COMB_ARRIVE");
  want.arrive_recv += 1;
  want.dup += 1;
  want.drop += 1;
  auto t = s.n.submit_raw_descriptor(group_desc(Opcode::kMcastBarrier, 2, 40, 0, 4, kMlid, 0),
                                     drv::SubmitPath::kHdq);
  // The descriptor runs before the live arrivals come (STATUS.ACTIVE_CTX).
  run_until(
      b, [&] { return ((reg(b.dev, NIC_OFF(STATUS)) >> 8U) & 0xFFU) == 1; }, 200,
      "the root's activation");
  (void)deliver(b, group_pkt(PktType::kArrive, 0x0404, kOwnLid, 2, 40, 4), "member 4 of 4");
  (void)deliver(b, group_pkt(PktType::kArrive, 0x0402, kOwnLid, 2, 40, 2), "member 2");
  want.drop += 1;
  want.arrive_recv += 1;
  b.idle_cycles(20);
  TB_CHECK(b.net.sent().empty()) << "no release with member 3 missing";
  const std::uint64_t last =
      deliver(b, group_pkt(PktType::kArrive, 0x0403, kOwnLid, 2, 40, 3), "member 3");
  ++want.arrive_recv;
  const NetworkBfm::Sent rel = sent_nth(b, 1, 100, "RELEASE");
  expect_pkt(rel.hdr, PktType::kRelease, kMlid, 2, 40, 0, "RELEASE to the MLID");
  ++want.release_sent;
  drv::CqRecord r = s.n.wait_raw(t, kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kOk && r.epoch == 40) << drv::describe(r);
  std::cout << "nic_top_group.root: last ARRIVE taken to RELEASE shown " << rel.shown - last
            << " cycles, to CQ entry written " << last_cq(b).cycle - last << " cycles\n";
  // Member 1 missed the release: a unicast RELEASE answers its re-send.
  (void)deliver(b, group_pkt(PktType::kArrive, 0x0401, kOwnLid, 2, 40, 1), "re-sent ARRIVE");
  const NetworkBfm::Sent u = sent_nth(b, 2, 100, "unicast RELEASE");
  expect_pkt(u.hdr, PktType::kRelease, 0x0401, 2, 40, 0, "unicast RELEASE (rule 4)");
  ++want.release_sent;
  // Epoch 41: every member early, the descriptor releases at once.
  for (unsigned m = 1; m < 4; ++m) {
    (void)deliver(
        b, group_pkt(PktType::kArrive, static_cast<std::uint16_t>(0x0400 + m), kOwnLid, 2, 41, m),
        "early ARRIVE of 41");
  }
  want.arrive_recv += 3;
  t = s.n.submit_raw_descriptor(group_desc(Opcode::kMcastBarrier, 2, 41, 0, 4, kMlid, 0),
                                drv::SubmitPath::kSdq);
  r = s.n.wait_raw(t, kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kOk && r.epoch == 41) << drv::describe(r);
  expect_pkt(b.net.sent().at(2).hdr, PktType::kRelease, kMlid, 2, 41, 0, "RELEASE of 41");
  ++want.release_sent;
  // A group of one: OK at once, nothing sent.
  r = s.n.wait_raw(s.n.submit_raw_descriptor(group_desc(Opcode::kMcastBarrier, 0, 9, 0, 1),
                                             drv::SubmitPath::kHdq),
                   kTimeout);
  TB_CHECK(r.status == fmt::CqStatus::kOk && r.ctx == 0) << drv::describe(r);
  b.idle_cycles(20);
  TB_CHECK_EQ(b.net.sent().size(), 3U) << "a group of one sends nothing";
  TB_CHECK_EQ(read_counts(b.dev), want);
}

// A dissemination BARRIER (driver context, peers of the bench) and group
// barriers at once: completions of TE and of the group engine share the
// completion unit, their packets share the link; all complete.
SYNCFAB_TEST(nic_top_group, with_barrier) {
  Knobs k;
  k.tx_stall = 0.3;
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  Setup s(b);
  set_reg(b.dev, NIC_OFF(GROUP_TIMEOUT), 0);
  const auto lids = rank_lids(8, 3);
  auto bc = s.n.open_context(drv::ContextConfig(0, 3, 8, 1, lids, drv::SubmitPath::kHdq));
  for (unsigned e = 0; e < 3; ++e) {
    const auto tg = s.n.submit_raw_descriptor(
        group_desc(Opcode::kCombBarrier, 1, static_cast<std::uint16_t>(e + 1), 1, 2),
        drv::SubmitPath::kHdq);
    const std::uint16_t epoch = bc.next_descriptor(drv::WaitMode::kPoll).epoch();
    b.world.expect(0, epoch, bc.schedule(), lids, 20, 0);
    bc.arrive(drv::SubmitPath::kSdq, drv::WaitMode::kPoll);
    const auto comb = std::find_if(b.net.sent().begin(), b.net.sent().end(), [&](const auto& p) {
      return p.hdr.pkt_type() == PktType::kCombArrive && p.hdr.epoch() == e + 1;
    });
    if (comb == b.net.sent().end()) {
      run_until(
          b,
          [&] {
            return std::any_of(b.net.sent().begin(), b.net.sent().end(), [&](const auto& p) {
              return p.hdr.pkt_type() == PktType::kCombArrive && p.hdr.epoch() == e + 1;
            });
          },
          2000, "COMB_ARRIVE");
    }
    (void)b.net.inject(Packet{flit_of(group_pkt(PktType::kCombRelease, 0, kMlid, 1,
                                                static_cast<std::uint16_t>(e + 1)))},
                       3);
    TB_CHECK(bc.wait(kTimeout)) << "BARRIER epoch " << epoch;
    const drv::CqRecord r = s.n.wait_raw(tg, kTimeout);
    TB_CHECK(r.status == fmt::CqStatus::kOk) << drv::describe(r);
  }
  b.idle_cycles(200);
  b.world.verify(b.mem.cq_writes());
  TB_CHECK_EQ(b.mem.cq_writes().size(), 6U);
}

// One root context (ctx 0, groups of 2..12 members the test plays) and two
// member contexts (ctx 1 MCAST, ctx 2 COMB) over many epochs, through HDQ
// and SDQ, with arrivals before and after the root's descriptor, duplicate
// arrivals (before and after the release), lost releases repaired by the
// GROUP_TIMEOUT re-send, and tx backpressure. Safety: the root's RELEASE
// leaves only after every member's ARRIVE was taken; members complete only
// after their release was taken. Counters add up.
SYNCFAB_TEST(nic_top_group, random) {
  Knobs k;
  k.tx_stall = 0.2;
  k.mem_latency = 4;
  Bench b(ctx, k, ctx.rng()());
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  Setup s(b);
  auto& rng = ctx.rng();
  const auto epochs = static_cast<unsigned>(ctx.param("epochs", 12));
  std::uniform_int_distribution<unsigned> pct(0, 99);
  constexpr std::uint32_t kT = 150;
  set_reg(b.dev, NIC_OFF(GROUP_TIMEOUT), kT);
  const GroupCounts start = read_counts(b.dev);
  unsigned arrivals = 0;
  unsigned dups = 0;
  std::size_t seen = 0;  // packets of net.sent() looked at
  unsigned resends = 0;
  unsigned replies = 0;
  std::size_t extra_releases = 0;
  for (unsigned e = 0; e < epochs; ++e) {
    const auto epoch = static_cast<std::uint16_t>(0xFFF8 + e);  // crosses 0
    const unsigned p = 2 + pct(rng) % 11;
    // Root: every member's ARRIVE at a random time, some before the
    // descriptor; some twice.
    std::vector<std::vector<std::size_t>> arrive_ids(p);  // per member, its copies
    for (unsigned m = 1; m < p; ++m) {
      const auto h =
          group_pkt(PktType::kArrive, static_cast<std::uint16_t>(0x0500 + m), kOwnLid, 0, epoch, m);
      arrive_ids[m].push_back(b.net.inject(Packet{flit_of(h)}, std::uint64_t{pct(rng)} * 3));
      ++arrivals;
      if (pct(rng) < 20) {
        arrive_ids[m].push_back(b.net.inject(Packet{flit_of(h)}, std::uint64_t{pct(rng)} * 6));
        ++dups;
      }
    }
    b.idle_cycles(pct(rng));
    auto path = [&] { return pct(rng) < 50 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq; };
    const auto tr = s.n.submit_raw_descriptor(
        group_desc(Opcode::kMcastBarrier, 0, epoch, 0, p, kMlid, 0), path());
    const auto t1 =
        s.n.submit_raw_descriptor(group_desc(Opcode::kMcastBarrier, 1, epoch, 2, 3), path());
    const auto t2 =
        s.n.submit_raw_descriptor(group_desc(Opcode::kCombBarrier, 2, epoch, 1, 4), path());
    std::array<std::vector<std::size_t>, 3> rel_ids{};  // per member ctx, the releases injected
    std::array<bool, 3> arrived{};                      // its ARRIVE was seen
    auto taken_before = [&](const std::vector<std::size_t>& ids, std::uint64_t cycle) {
      return std::any_of(ids.begin(), ids.end(), [&](std::size_t id) {
        return b.net.injected(id).done() && b.net.injected(id).last_taken() < cycle;
      });
    };
    std::uint64_t root_release = 0;
    std::optional<drv::CqRecord> rr, r1, r2;
    for (std::uint64_t cyc = 0; !(rr && r1 && r2); ++cyc) {
      TB_CHECK(cyc < 20000) << "epoch " << epoch << " (p " << p << ") did not complete";
      b.idle_cycles(1);
      for (; seen < b.net.sent().size(); ++seen) {
        const auto& pk = b.net.sent()[seen];
        const unsigned c = pk.hdr.ctx();
        if (c == 0) {
          TB_CHECK(pk.hdr.pkt_type() == PktType::kRelease);
          if (pk.hdr.dst_lid() == kMlid) {
            TB_CHECK_EQ(pk.hdr.epoch(), epoch);
            root_release = pk.shown;
            for (unsigned m = 1; m < p; ++m) {
              TB_CHECK(taken_before(arrive_ids[m], pk.shown))
                  << "safety: RELEASE of " << epoch << " before member " << m << " arrived";
            }
          } else {
            ++replies;  // a duplicate ARRIVE after the release
          }
          continue;
        }
        TB_CHECK(c == 1 || c == 2) << "packet of ctx " << c;
        TB_CHECK_EQ(pk.hdr.epoch(), epoch);
        if (arrived[c]) {
          ++resends;
        }
        // The release, unless "lost" the first time (the re-send brings it).
        if (arrived[c] || pct(rng) < 70) {
          const auto rel = c == 1 ? group_pkt(PktType::kRelease, kRootLid,
                                              pct(rng) < 50 ? kMlid : kOwnLid, 1, epoch)
                                  : group_pkt(PktType::kCombRelease, 0, kMlid, 2, epoch);
          rel_ids[c].push_back(b.net.inject(Packet{flit_of(rel)}, 1 + pct(rng)));
        }
        arrived[c] = true;
      }
      if (cyc % 8 == 0) {
        rr = rr ? rr : s.n.raw_result(tr);
        r1 = r1 ? r1 : s.n.raw_result(t1);
        r2 = r2 ? r2 : s.n.raw_result(t2);
      }
    }
    TB_CHECK(rr->ok() && r1->ok() && r2->ok())
        << drv::describe(*rr) << " " << drv::describe(*r1) << " " << drv::describe(*r2);
    TB_CHECK(root_release != 0) << "the root completed without its RELEASE";
    // A release injected for a re-send the first release overtook is a
    // duplicate of a finished epoch (CNT_DUP).
    extra_releases += rel_ids[1].size() + rel_ids[2].size() - 2;
    for (const auto& w : b.mem.cq_writes()) {
      if ((w.ctx == 1 || w.ctx == 2) && w.epoch == epoch) {
        TB_CHECK(taken_before(rel_ids[w.ctx], w.cycle))
            << "safety: ctx " << w.ctx << " completed before its release was taken";
      }
    }
  }
  b.idle_cycles(400);  // late duplicates in
  for (; seen < b.net.sent().size(); ++seen) {
    replies += b.net.sent()[seen].hdr.dst_lid() != kMlid ? 1 : 0;
  }
  const GroupCounts c = read_counts(b.dev);
  TB_CHECK_EQ(c.arrive_recv - start.arrive_recv, arrivals) << "CNT_ARRIVE_RECV";
  TB_CHECK_EQ(c.arrive_sent - start.arrive_sent, 2 * epochs + resends) << "CNT_ARRIVE_SENT";
  TB_CHECK_EQ(c.retry - start.retry, resends) << "CNT_GROUP_RETRY";
  TB_CHECK_EQ(c.release_recv - start.release_recv, 2 * epochs) << "CNT_RELEASE_RECV";
  TB_CHECK_EQ(c.release_sent - start.release_sent, epochs + replies) << "CNT_RELEASE_SENT";
  // A duplicate taken before the release is a DUP, after it a unicast
  // RELEASE (rule 4), after the next epoch's release a stale DROP (rule 6).
  TB_CHECK_EQ(c.dup - start.dup - extra_releases + replies + (c.drop - start.drop), dups)
      << "every duplicate ARRIVE: DUP, reply or stale";
  std::cout << "nic_top_group.random: " << epochs << " epochs, " << arrivals << " arrivals, "
            << dups << " duplicates (" << c.dup - start.dup << " DUP, " << replies << " answered, "
            << c.drop - start.drop << " stale), " << resends << " re-sends\n";
}
