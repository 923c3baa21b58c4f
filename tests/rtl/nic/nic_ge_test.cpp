// Directed and random tests of nic_ge (NumCtx=4, MaxMembers=8), the group
// engine: the member (§3), the root NIC (§4) and the group of one (§2) of
// docs/group-barrier.md, with the timing docs/nic/ge.md states. Every
// expected packet, record, cycle and counter below is worked out by hand from
// those documents (the rule is named next to each check); there is no
// reference model here on purpose.
#include <Vnic_ge.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::fmt::ErrCode;
using syncfab::fmt::PktHdr;
using syncfab::fmt::PktType;

namespace {

constexpr SimTime kPeriod = 10'000;
constexpr unsigned kNumCtx = 4;
constexpr unsigned kMaxMembers = 8;
constexpr std::uint16_t kOwn = 0x0010;
constexpr std::uint16_t kRoot = 0x0020;  // the root NIC of the member tests
constexpr std::uint16_t kMlid = 0xC005;  // the group's MLID
constexpr unsigned kStatusOk = 0;        // cq_status
constexpr unsigned kStatusNetError = 2;
// Cycles from the activation's transfer to the arrival's transfer with tx
// always ready, and from a timeout expiry to the re-send's transfer
// (docs/nic/ge.md "Timing").
constexpr std::uint64_t kActToTx = 2;
constexpr std::uint64_t kExpiryToTx = 2;
// Cycles from the taking of a matching release (or an expiry that fails) to
// the record's transfer with done always ready.
constexpr std::uint64_t kRelToRec = 2;

struct Counts {
  unsigned arrive_sent = 0;
  unsigned arrive_recv = 0;
  unsigned release_sent = 0;
  unsigned release_recv = 0;
  unsigned retry = 0;
  unsigned dup = 0;
  unsigned drop = 0;
  bool operator==(const Counts&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Counts& c) {
  return os << "{arrive_sent " << c.arrive_sent << ", arrive_recv " << c.arrive_recv
            << ", release_sent " << c.release_sent << ", release_recv " << c.release_recv
            << ", retry " << c.retry << ", dup " << c.dup << ", drop " << c.drop << "}";
}

struct Sent {
  std::uint64_t cycle = 0;
  PktHdr hdr;
};

struct Rec {
  std::uint64_t cycle = 0;
  unsigned ctx = 0;
  std::uint16_t epoch = 0;
  unsigned status = 0;
  unsigned err = 0;
};

PktHdr arrive(std::uint16_t src, std::uint8_t ctx, std::uint16_t epoch, unsigned member,
              std::uint16_t dst = kOwn) {
  PktHdr h;
  h.set_pkt_type(PktType::kArrive).set_len_flits(1).set_dst_lid(dst).set_src_lid(src);
  h.set_ctx(ctx).set_epoch(epoch).set_member(static_cast<std::uint16_t>(member));
  return h;
}

PktHdr release(PktType type, std::uint16_t dst, std::uint8_t ctx, std::uint16_t epoch,
               std::uint16_t src = kRoot) {
  PktHdr h;
  h.set_pkt_type(type).set_len_flits(1).set_dst_lid(dst).set_src_lid(src);
  h.set_ctx(ctx).set_epoch(epoch);
  return h;
}

class Ge {
 public:
  Ge(Vnic_ge& dut, Clock& clk) : dut_(dut), clk_(clk) {}
  Ge(const Ge&) = delete;
  Ge& operator=(const Ge&) = delete;
  ~Ge() { task_.cancel(); }

  Task<> reset() {
    dut_.rst_ni = 0;
    dut_.own_lid_i = kOwn;
    dut_.enable_i = 1;
    dut_.soft_reset_i = 0;
    dut_.group_timeout_i = 0;
    dut_.group_retry_limit_i = 0;
    dut_.act_valid_i = 0;
    dut_.rx_valid_i = 0;
    dut_.tx_ready_i = 1;
    dut_.done_ready_i = 1;
    co_await ClockCycles(clk_, 2);
    dut_.rst_ni = 1;
    co_await RisingEdge(clk_);
  }
  void start(Sim& sim) { task_ = sim.start_soon(monitor(), "ge_monitor"); }

  // Samples every handshake and pulse once per cycle; cycle() counts edges.
  Task<> monitor() {
    for (;; co_await RisingEdge(clk_)) {
      ++cycle_;
      co_await ReadOnly();
      counts_.arrive_sent += dut_.evt_arrive_sent_o;
      counts_.arrive_recv += dut_.evt_arrive_recv_o;
      counts_.release_sent += dut_.evt_release_sent_o;
      counts_.release_recv += dut_.evt_release_recv_o;
      counts_.retry += dut_.evt_group_retry_o;
      counts_.dup += dut_.evt_dup_o;
      counts_.drop += dut_.evt_drop_o;
      if (dut_.tx_valid_o && dut_.tx_ready_i) {
        std::array<std::uint8_t, 16> b{};
        for (unsigned i = 0; i < 16; ++i) {
          b[i] = static_cast<std::uint8_t>(dut_.tx_hdr_o[i / 4] >> (8 * (i % 4)));
        }
        sent_.push_back({cycle_, PktHdr::decode(b)});
      }
      if (dut_.done_valid_o && dut_.done_ready_i) {
        const std::uint64_t r = dut_.done_rec_o;
        recs_.push_back({cycle_, static_cast<unsigned>((r >> 32) & 0xFF),
                         static_cast<std::uint16_t>(r >> 16),
                         static_cast<unsigned>((r >> 8) & 0xFF), static_cast<unsigned>(r & 0xFF)});
      }
    }
  }

  // Presents one activation until taken; returns the cycle it was taken in.
  Task<std::uint64_t> activate(unsigned ctx, std::uint16_t epoch, bool comb, unsigned member,
                               unsigned members, std::uint16_t root_lid = kRoot,
                               std::uint16_t mlid = kMlid) {
    // group_act_t: {comb, mlid, root_lid, member, members}, members in bits 15:0.
    dut_.act_group_i[0] = (static_cast<std::uint32_t>(member) << 16U) | (members & 0xFFFFU);
    dut_.act_group_i[1] = (static_cast<std::uint32_t>(mlid) << 16U) | root_lid;
    dut_.act_group_i[2] = comb ? 1U : 0U;
    dut_.act_ctx_i = ctx;
    dut_.act_epoch_i = epoch;
    dut_.act_valid_i = 1;
    for (unsigned waited = 0;; ++waited) {
      TB_CHECK(waited < 100) << "the group engine never took the activation";
      co_await ReadOnly();
      const bool fire = dut_.act_ready_o;
      const std::uint64_t at = cycle_;
      co_await RisingEdge(clk_);
      if (fire) {
        dut_.act_valid_i = 0;
        co_return at;
      }
    }
  }

  // Presents one header until taken; returns the cycle it was taken in.
  Task<std::uint64_t> rx(const PktHdr& h) {
    const auto& b = h.bytes();
    for (std::size_t w = 0; w < 4; ++w) {
      dut_.rx_hdr_i[w] = static_cast<std::uint32_t>(b[4 * w]) |
                         (static_cast<std::uint32_t>(b[4 * w + 1]) << 8U) |
                         (static_cast<std::uint32_t>(b[4 * w + 2]) << 16U) |
                         (static_cast<std::uint32_t>(b[4 * w + 3]) << 24U);
    }
    dut_.rx_valid_i = 1;
    for (unsigned waited = 0;; ++waited) {
      TB_CHECK(waited < 100) << "the group engine never took the header";
      co_await ReadOnly();
      const bool fire = dut_.rx_ready_o;
      const std::uint64_t at = cycle_;
      co_await RisingEdge(clk_);
      if (fire) {
        dut_.rx_valid_i = 0;
        co_return at;
      }
    }
  }

  // Waits until the next packet leaves (at most max cycles) and returns it.
  Task<Sent> next_tx(unsigned max = 100) {
    for (unsigned waited = 0; sent_.empty(); ++waited) {
      TB_CHECK(waited < max) << "nothing sent within " << max << " cycles";
      co_await RisingEdge(clk_);
    }
    const Sent s = sent_.front();
    sent_.pop_front();
    co_return s;
  }
  Task<Rec> next_rec(unsigned max = 100) {
    for (unsigned waited = 0; recs_.empty(); ++waited) {
      TB_CHECK(waited < max) << "no completion record within " << max << " cycles";
      co_await RisingEdge(clk_);
    }
    const Rec r = recs_.front();
    recs_.pop_front();
    co_return r;
  }
  Task<> settle(unsigned n = 4) { co_await ClockCycles(clk_, n); }
  // Nothing sent and nothing completed for n cycles.
  Task<> expect_quiet(unsigned n, const std::string& why) {
    for (unsigned i = 0; i < n; ++i) {
      co_await RisingEdge(clk_);
      TB_CHECK(sent_.empty()) << why << ": unexpected packet type "
                              << static_cast<unsigned>(sent_.front().hdr.pkt_type());
      TB_CHECK(recs_.empty()) << why << ": unexpected record for ctx " << recs_.front().ctx;
    }
  }

  void expect_rec(const Rec& r, unsigned ctx, std::uint16_t epoch, bool ok,
                  const std::string& what) const {
    TB_CHECK_EQ(r.ctx, ctx) << what;
    TB_CHECK_EQ(r.epoch, epoch) << what;
    TB_CHECK_EQ(r.status, ok ? kStatusOk : kStatusNetError) << what;
    TB_CHECK_EQ(r.err, ok ? 0U : static_cast<unsigned>(ErrCode::kReleaseTimeout)) << what;
  }
  static void expect_pkt(const PktHdr& h, PktType type, std::uint16_t dst, std::uint8_t ctx,
                         std::uint16_t epoch, unsigned member, const std::string& what) {
    TB_CHECK_EQ(static_cast<unsigned>(h.pkt_type()), static_cast<unsigned>(type)) << what;
    TB_CHECK_EQ(h.len_flits(), 1U) << what;
    TB_CHECK_EQ(h.src_lid(), kOwn) << what;
    TB_CHECK_EQ(h.dst_lid(), dst) << what;
    TB_CHECK_EQ(h.ctx(), ctx) << what;
    TB_CHECK_EQ(h.epoch(), epoch) << what;
    TB_CHECK_EQ(h.member(), member) << what;
    TB_CHECK_EQ(h.round(), 0U) << what;
  }

  [[nodiscard]] bool active(unsigned c) const { return ((dut_.ctx_active_o >> c) & 1U) != 0; }
  [[nodiscard]] const Counts& counts() const { return counts_; }
  [[nodiscard]] std::uint64_t cycle() const { return cycle_; }
  std::deque<Sent>& sent() { return sent_; }
  std::deque<Rec>& recs() { return recs_; }

 private:
  Vnic_ge& dut_;
  Clock& clk_;
  TaskHandle task_;
  std::uint64_t cycle_ = 0;
  Counts counts_;
  std::deque<Sent> sent_;
  std::deque<Rec> recs_;
};

#define GE_SETUP()                                            \
  auto& dut = ctx.make_dut<Vnic_ge>();                        \
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod); \
  Ge ge(dut, clk);                                            \
  co_await ge.reset();                                        \
  ge.start(ctx.sim())

}  // namespace

// §3: a member of a multicast-release barrier sends ARRIVE to the root and
// completes on the RELEASE to the MLID or, re-sent, to its own LID; every
// other release is a duplicate (an epoch finished) or dropped.
SYNCFAB_TEST(nic_ge, member_mcast) {
  GE_SETUP();
  Counts want;

  const std::uint64_t a = co_await ge.activate(1, 5, false, 2, 4);
  TB_CHECK(ge.active(1)) << "active from the activation on";
  Sent s = co_await ge.next_tx();
  Ge::expect_pkt(s.hdr, PktType::kArrive, kRoot, 1, 5, 2, "ARRIVE to root_lid, member 2");
  TB_CHECK_EQ(s.cycle - a, kActToTx) << "activation to ARRIVE";
  ++want.arrive_sent;
  // Releases that do not match: another MLID, a COMB_RELEASE, another node's
  // LID, a later epoch (all DROP), an older epoch with no epoch finished
  // (DROP).
  co_await ge.rx(release(PktType::kRelease, 0xC006, 1, 5));
  co_await ge.rx(release(PktType::kCombRelease, kMlid, 1, 5));
  co_await ge.rx(release(PktType::kRelease, 0x0011, 1, 5));
  co_await ge.rx(release(PktType::kRelease, kMlid, 1, 6));
  co_await ge.rx(release(PktType::kRelease, kMlid, 1, 4));
  want.drop += 5;
  co_await ge.expect_quiet(5, "no match");
  const std::uint64_t r = co_await ge.rx(release(PktType::kRelease, kMlid, 1, 5));
  ++want.release_recv;
  Rec rec = co_await ge.next_rec();
  ge.expect_rec(rec, 1, 5, true, "RELEASE to the MLID completes OK");
  TB_CHECK_EQ(rec.cycle - r, kRelToRec) << "RELEASE taken to record taken";
  co_await ge.settle(1);
  TB_CHECK(!ge.active(1)) << "idle once the record is taken";

  // The same epoch again (the MLID copy and a re-sent unicast one): DUP; an
  // older epoch: DUP; a newer one: DROP.
  co_await ge.rx(release(PktType::kRelease, kMlid, 1, 5));
  co_await ge.rx(release(PktType::kRelease, kOwn, 1, 5));
  co_await ge.rx(release(PktType::kRelease, kMlid, 1, 3));
  want.dup += 3;
  co_await ge.rx(release(PktType::kRelease, kMlid, 1, 6));
  ++want.drop;

  // The next epoch, released by a unicast RELEASE to this node's LID.
  co_await ge.activate(1, 6, false, 3, 4);
  s = co_await ge.next_tx();
  Ge::expect_pkt(s.hdr, PktType::kArrive, kRoot, 1, 6, 3, "ARRIVE of epoch 6");
  ++want.arrive_sent;
  co_await ge.rx(release(PktType::kRelease, kOwn, 1, 6));
  ++want.release_recv;
  rec = co_await ge.next_rec();
  ge.expect_rec(rec, 1, 6, true, "RELEASE to own LID completes OK");
  // Malformed: a COMB_RELEASE to a unicast LID, a release of two flits, a
  // release for a context beyond NumCtx, an ARRIVE to a member (no root
  // descriptor, an early arrival for the set: counted as received).
  co_await ge.rx(release(PktType::kCombRelease, kOwn, 1, 7));
  PktHdr two = release(PktType::kRelease, kMlid, 1, 7);
  two.set_len_flits(2);
  co_await ge.rx(two);
  co_await ge.rx(release(PktType::kRelease, kMlid, kNumCtx, 7));
  want.drop += 3;
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts(), want);
}

// §3 with COMB_BARRIER: COMB_ARRIVE to the MLID with member 0; only a
// COMB_RELEASE to the MLID completes it.
SYNCFAB_TEST(nic_ge, member_comb) {
  GE_SETUP();
  Counts want;
  const std::uint64_t a = co_await ge.activate(2, 0xFFFF, true, 5, 6);
  Sent s = co_await ge.next_tx();
  Ge::expect_pkt(s.hdr, PktType::kCombArrive, kMlid, 2, 0xFFFF, 0, "COMB_ARRIVE, member 0");
  TB_CHECK_EQ(s.cycle - a, kActToTx);
  ++want.arrive_sent;
  co_await ge.rx(release(PktType::kRelease, kMlid, 2, 0xFFFF));  // wrong kind
  co_await ge.rx(release(PktType::kRelease, kOwn, 2, 0xFFFF));   // a unicast RELEASE
  want.drop += 2;
  co_await ge.expect_quiet(4, "not a COMB_RELEASE");
  co_await ge.rx(release(PktType::kCombRelease, kMlid, 2, 0xFFFF, 0));
  ++want.release_recv;
  ge.expect_rec(co_await ge.next_rec(), 2, 0xFFFF, true, "COMB_RELEASE completes OK");
  // Epoch 0 follows 0xFFFF: a duplicate of 0xFFFF is DUP, 0 is newer (DROP).
  co_await ge.rx(release(PktType::kCombRelease, kMlid, 2, 0xFFFF, 0));
  ++want.dup;
  co_await ge.rx(release(PktType::kCombRelease, kMlid, 2, 0x0000, 0));
  ++want.drop;
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts(), want);
}

// §2: a group of one completes at once with OK and sends nothing (a root
// and a COMB member alike).
SYNCFAB_TEST(nic_ge, group_of_one) {
  GE_SETUP();
  const std::uint64_t a = co_await ge.activate(0, 9, false, 0, 1);
  Rec rec = co_await ge.next_rec();
  ge.expect_rec(rec, 0, 9, true, "MCAST group of one");
  TB_CHECK_EQ(rec.cycle - a, 2U) << "activation to record";
  co_await ge.activate(3, 10, true, 0, 1);
  ge.expect_rec(co_await ge.next_rec(), 3, 10, true, "COMB group of one");
  co_await ge.expect_quiet(20, "a group of one sends nothing");
  TB_CHECK_EQ(ge.counts(), Counts{});
  // Its epoch is the context's last: a release of it is a duplicate.
  co_await ge.rx(release(PktType::kRelease, kMlid, 0, 9));
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts().dup, 1U);
}

// §3: GROUP_TIMEOUT cycles after the arrival left without the release, it is
// sent again (CNT_GROUP_RETRY, CNT_ARRIVE_SENT); LIMIT = n allows n re-sends
// and the (n+1)-th expiry ends the descriptor with NET_ERROR /
// RELEASE_TIMEOUT; a release after re-sends still completes OK; 0 never
// re-sends.
SYNCFAB_TEST(nic_ge, timeout_and_retry_limit) {
  GE_SETUP();
  constexpr unsigned kT = 40;
  dut.group_timeout_i = kT;
  dut.group_retry_limit_i = 2;
  co_await ge.activate(0, 100, false, 1, 3);
  Sent s = co_await ge.next_tx();
  std::uint64_t last = s.cycle;
  for (unsigned n = 1; n <= 2; ++n) {
    s = co_await ge.next_tx(kT + 10);
    Ge::expect_pkt(s.hdr, PktType::kArrive, kRoot, 0, 100, 1, "re-send");
    TB_CHECK_EQ(s.cycle - last, kT + kExpiryToTx) << "re-send " << n << ": T + 2 cycles later";
    last = s.cycle;
  }
  // Third expiry: the record, no third re-send.
  const Rec rec = co_await ge.next_rec(kT + 10);
  ge.expect_rec(rec, 0, 100, false, "retry limit 2: the third expiry fails");
  TB_CHECK_EQ(rec.cycle - last, kT + kRelToRec) << "the third expiry's record";
  TB_CHECK(ge.sent().empty()) << "no re-send after the limit";
  TB_CHECK_EQ(ge.counts().arrive_sent, 3U);
  TB_CHECK_EQ(ge.counts().retry, 2U);
  // The failed epoch is the context's last: its release is a duplicate.
  co_await ge.rx(release(PktType::kRelease, kMlid, 0, 100));
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts().dup, 1U);

  // Limit 0: re-sends only; a release after two re-sends completes OK.
  dut.group_retry_limit_i = 0;
  co_await ge.activate(1, 7, true, 2, 3);
  s = co_await ge.next_tx();
  for (unsigned n = 1; n <= 3; ++n) {
    const Sent r = co_await ge.next_tx(kT + 10);
    Ge::expect_pkt(r.hdr, PktType::kCombArrive, kMlid, 1, 7, 0, "re-send, no limit");
    TB_CHECK_EQ(r.cycle - s.cycle, kT + kExpiryToTx);
    s = r;
  }
  co_await ge.rx(release(PktType::kCombRelease, kMlid, 1, 7, 0));
  ge.expect_rec(co_await ge.next_rec(), 1, 7, true, "release after re-sends");
  TB_CHECK_EQ(ge.counts().retry, 5U);

  // GROUP_TIMEOUT = 0: never re-sent.
  dut.group_timeout_i = 0;
  co_await ge.activate(2, 8, false, 1, 2);
  (void)co_await ge.next_tx();
  co_await ge.expect_quiet(300, "GROUP_TIMEOUT 0 never re-sends");
  co_await ge.rx(release(PktType::kRelease, kMlid, 2, 8));
  ge.expect_rec(co_await ge.next_rec(), 2, 8, true, "released");
}

// §4 rules 1-4 and 6 on a running root: arrivals set, duplicates, bad
// members, stale epochs, the release to the MLID when members - 1 are in, and
// the unicast RELEASE to a member that re-sends an ARRIVE of the released
// epoch.
SYNCFAB_TEST(nic_ge, root_live) {
  GE_SETUP();
  Counts want;
  co_await ge.activate(0, 10, false, 0, 4, 0);
  co_await ge.expect_quiet(10, "a root sends nothing until every member arrived");
  co_await ge.rx(arrive(0x0201, 0, 10, 1));
  co_await ge.rx(arrive(0x0203, 0, 10, 3));
  want.arrive_recv += 2;
  co_await ge.rx(arrive(0x0203, 0, 10, 3));  // rule 3: duplicate
  ++want.dup;
  co_await ge.rx(arrive(0x0200, 0, 10, 0));          // rule 3: member 0
  co_await ge.rx(arrive(0x0204, 0, 10, 4));          // rule 3: member >= members
  co_await ge.rx(arrive(0x0202, 0, 9, 2));           // rule 6: stale epoch
  co_await ge.rx(arrive(0x0202, 0, 10, 2, 0x0011));  // not to this node
  co_await ge.rx(arrive(0x0202, kNumCtx, 10, 2));    // rule 2
  dut.enable_i = 0;
  co_await ge.rx(arrive(0x0202, 0, 10, 2));  // rule 1
  dut.enable_i = 1;
  want.drop += 6;
  co_await ge.expect_quiet(5, "two of three members in");
  const std::uint64_t r = co_await ge.rx(arrive(0x0202, 0, 10, 2));
  ++want.arrive_recv;
  const Sent s = co_await ge.next_tx();
  Ge::expect_pkt(s.hdr, PktType::kRelease, kMlid, 0, 10, 0, "RELEASE to the MLID");
  TB_CHECK_EQ(s.cycle - r, 2U) << "last ARRIVE taken to RELEASE taken";
  ++want.release_sent;
  const Rec rec = co_await ge.next_rec();
  ge.expect_rec(rec, 0, 10, true, "the root completes once the RELEASE left");
  TB_CHECK_EQ(rec.cycle - s.cycle, 2U) << "RELEASE taken to record taken";
  // Rule 4: a re-sent ARRIVE of the released epoch gets a unicast RELEASE.
  co_await ge.rx(arrive(0x0203, 0, 10, 3));
  const Sent u = co_await ge.next_tx();
  Ge::expect_pkt(u.hdr, PktType::kRelease, 0x0203, 0, 10, 0, "unicast RELEASE (rule 4)");
  ++want.release_sent;
  // Rule 6: older than the released epoch.
  co_await ge.rx(arrive(0x0203, 0, 9, 3));
  ++want.drop;
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts(), want);
}

// §4 rule 5 and the activation: early arrivals are kept for the root's
// descriptor of their epoch; a newer epoch empties the set, an older one is
// dropped; activation takes the set (releasing at once when it is complete),
// empties a set of another epoch and discards one that names a member the
// group does not have (CNT_DROP once); consecutive epochs.
SYNCFAB_TEST(nic_ge, root_early_arrivals) {
  GE_SETUP();
  Counts want;
  // Epoch 11: members 1 and 2 early, a duplicate, bad indices.
  co_await ge.rx(arrive(0x0201, 0, 11, 1));
  co_await ge.rx(arrive(0x0202, 0, 11, 2));
  want.arrive_recv += 2;
  co_await ge.rx(arrive(0x0202, 0, 11, 2));
  ++want.dup;
  co_await ge.rx(arrive(0x0200, 0, 11, 0));            // m = 0
  co_await ge.rx(arrive(0x0208, 0, 11, kMaxMembers));  // m >= MaxMembers
  want.drop += 2;
  co_await ge.activate(0, 11, false, 0, 4, 0);
  co_await ge.expect_quiet(5, "two early arrivals of three");
  co_await ge.rx(arrive(0x0203, 0, 11, 3));
  ++want.arrive_recv;
  (void)co_await ge.next_tx();
  ++want.release_sent;
  ge.expect_rec(co_await ge.next_rec(), 0, 11, true, "epoch 11 with two early arrivals");

  // Epoch 12: epoch 13 first (the set is tagged 13), then 12 is older than
  // the set (DROP); epoch 14 empties it again; the activation of 12 empties
  // the set tagged 14, and 12 runs live.
  co_await ge.rx(arrive(0x0201, 0, 13, 1));
  ++want.arrive_recv;
  co_await ge.rx(arrive(0x0201, 0, 12, 1));
  ++want.drop;
  co_await ge.rx(arrive(0x0202, 0, 14, 2));
  ++want.arrive_recv;
  co_await ge.activate(0, 12, false, 0, 4, 0);
  co_await ge.expect_quiet(5, "a set of epoch 14 is emptied by 12's activation");
  for (unsigned m = 1; m <= 3; ++m) {
    co_await ge.rx(arrive(static_cast<std::uint16_t>(0x0200 + m), 0, 12, m));
  }
  want.arrive_recv += 3;
  Sent s = co_await ge.next_tx();
  Ge::expect_pkt(s.hdr, PktType::kRelease, kMlid, 0, 12, 0, "epoch 12 released");
  ++want.release_sent;
  ge.expect_rec(co_await ge.next_rec(), 0, 12, true, "epoch 12");

  // Epoch 13: every member early; the activation releases at once.
  for (unsigned m = 3; m >= 1; --m) {
    co_await ge.rx(arrive(static_cast<std::uint16_t>(0x0200 + m), 0, 13, m));
  }
  want.arrive_recv += 3;
  const std::uint64_t a = co_await ge.activate(0, 13, false, 0, 4, 0);
  s = co_await ge.next_tx();
  Ge::expect_pkt(s.hdr, PktType::kRelease, kMlid, 0, 13, 0, "epoch 13 released at activation");
  TB_CHECK_EQ(s.cycle - a, kActToTx) << "activation to RELEASE";
  ++want.release_sent;
  ge.expect_rec(co_await ge.next_rec(), 0, 13, true, "epoch 13");

  // Epoch 14: an early arrival claims member 5 of a group of 4: the whole set
  // is discarded at activation (one DROP), and the real members re-send.
  co_await ge.rx(arrive(0x0201, 0, 14, 1));
  co_await ge.rx(arrive(0x0205, 0, 14, 5));
  co_await ge.rx(arrive(0x0202, 0, 14, 2));
  want.arrive_recv += 3;
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts(), want);
  co_await ge.activate(0, 14, false, 0, 4, 0);
  ++want.drop;
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts(), want) << "one DROP for the discarded set";
  co_await ge.rx(arrive(0x0201, 0, 14, 1));
  co_await ge.rx(arrive(0x0202, 0, 14, 2));
  want.arrive_recv += 2;
  co_await ge.expect_quiet(5, "members 1 and 2 again, 3 missing");
  co_await ge.rx(arrive(0x0203, 0, 14, 3));
  ++want.arrive_recv;
  (void)co_await ge.next_tx();
  ++want.release_sent;
  ge.expect_rec(co_await ge.next_rec(), 0, 14, true, "epoch 14 after the discard");
  // Epoch 14 re-sent: unicast RELEASE; epoch 13 (older than released): DROP.
  co_await ge.rx(arrive(0x0202, 0, 14, 2));
  s = co_await ge.next_tx();
  Ge::expect_pkt(s.hdr, PktType::kRelease, 0x0202, 0, 14, 0, "unicast RELEASE");
  ++want.release_sent;
  co_await ge.rx(arrive(0x0202, 0, 13, 2));
  ++want.drop;
  co_await ge.settle();
  TB_CHECK_EQ(ge.counts(), want);
}

// Records of several contexts under done backpressure all arrive, one per
// context, and a context stays active until its record is taken; sends of
// several contexts and a unicast reply share tx under backpressure.
SYNCFAB_TEST(nic_ge, backpressure) {
  GE_SETUP();
  dut.done_ready_i = 0;
  dut.tx_ready_i = 0;
  co_await ge.activate(1, 1, false, 1, 2);
  co_await ge.activate(2, 2, true, 1, 2);
  co_await ge.activate(3, 3, false, 0, 1);
  co_await ge.settle(5);
  dut.tx_ready_i = 1;
  std::set<unsigned> ctxs;
  for (unsigned i = 0; i < 2; ++i) {
    ctxs.insert((co_await ge.next_tx()).hdr.ctx());
  }
  TB_CHECK(ctxs == (std::set<unsigned>{1, 2})) << "both arrivals sent";
  co_await ge.rx(release(PktType::kRelease, kMlid, 1, 1));
  co_await ge.rx(release(PktType::kCombRelease, kMlid, 2, 2, 0));
  co_await ge.settle(5);
  for (unsigned c = 1; c < kNumCtx; ++c) {
    TB_CHECK(ge.active(c)) << "ctx " << c << " active until its record is taken";
  }
  TB_CHECK(ge.recs().empty());
  dut.done_ready_i = 1;
  std::set<unsigned> done;
  for (unsigned i = 0; i < 3; ++i) {
    const Rec r = co_await ge.next_rec();
    TB_CHECK_EQ(r.status, kStatusOk);
    TB_CHECK(done.insert(r.ctx).second) << "one record per descriptor, ctx " << r.ctx;
  }
  co_await ge.expect_quiet(10, "no further record");
}

// CTRL.SOFT_RESET: contexts, sends, timers, records and the root's set are
// cleared; the engine then starts from scratch.
SYNCFAB_TEST(nic_ge, soft_reset) {
  GE_SETUP();
  dut.group_timeout_i = 20;
  co_await ge.rx(arrive(0x0201, 0, 30, 1));  // early arrival, recorded
  co_await ge.activate(1, 5, false, 1, 3);
  (void)co_await ge.next_tx();
  dut.soft_reset_i = 1;
  co_await RisingEdge(clk);
  dut.soft_reset_i = 0;
  co_await ge.settle(1);
  TB_CHECK(!ge.active(1)) << "soft reset frees the context";
  co_await ge.expect_quiet(60, "no re-send and no record after the soft reset");
  // The early arrival is gone: a root of epoch 30 with 2 members waits.
  co_await ge.activate(0, 30, false, 0, 2, 0);
  co_await ge.expect_quiet(10, "the set was emptied by the soft reset");
  co_await ge.rx(arrive(0x0201, 0, 30, 1));
  (void)co_await ge.next_tx();
  ge.expect_rec(co_await ge.next_rec(), 0, 30, true, "after the soft reset");
}

// One root (ctx 0) and member contexts (1..3) of groups whose other members
// the test plays, over many epochs, with random arrival order and delays,
// duplicates, early arrivals, lost arrivals and lost releases (re-sends by
// GROUP_TIMEOUT), random tx/done backpressure. Safety: a root releases epoch
// E only after members 1 .. p-1 arrived for E; a member completes only after
// the test released it. Liveness: every descriptor completes.
SYNCFAB_TEST(nic_ge, random) {
  GE_SETUP();
  auto& rng = ctx.rng();
  const auto epochs = static_cast<unsigned>(ctx.param("epochs", 60));
  std::uniform_int_distribution<unsigned> pct(0, 99);
  dut.group_timeout_i = 60;
  dut.group_retry_limit_i = 0;

  struct Root {
    std::uint16_t epoch = 0x7FF0;  // crosses the wrap of RFC 1982's half
    unsigned members = 0;
    std::set<unsigned> arrived;  // members the test delivered for epoch
    bool running = false;
    unsigned done = 0;
  } root;
  struct Member {
    std::uint16_t epoch = 0;
    bool comb = false;
    bool running = false;
    bool released = false;  // the test sent the release of epoch
    unsigned done = 0;
  };
  std::array<Member, kNumCtx> mem{};
  std::set<std::uint16_t> released;  // epochs the root released by multicast
  for (unsigned c = 1; c < kNumCtx; ++c) {
    mem[c].epoch = static_cast<std::uint16_t>(0xFFF0 + 4 * c);
    mem[c].comb = (c % 2) == 0;
  }

  // A background task keeps backpressure random.
  auto bp = [&]() -> Task<> {
    for (;; co_await RisingEdge(clk)) {
      dut.tx_ready_i = pct(rng) < 80 ? 1 : 0;
      dut.done_ready_i = pct(rng) < 70 ? 1 : 0;
    }
  };
  TaskHandle bp_task = ctx.sim().start_soon(bp(), "backpressure");

  unsigned steps = 0;
  while ((root.done < epochs || std::any_of(mem.begin() + 1, mem.end(),
                                            [&](const Member& m) { return m.done < epochs; })) &&
         steps < epochs * 400) {
    ++steps;
    // Start descriptors on idle contexts.
    if (!root.running && root.done < epochs && !ge.active(0) && pct(rng) < 30) {
      root.members = 2 + pct(rng) % (kMaxMembers - 1);
      // §4 activation: early arrivals naming a member the group does not
      // have discard the whole set.
      if (!root.arrived.empty() && *root.arrived.rbegin() >= root.members) {
        root.arrived.clear();
      }
      co_await ge.activate(0, root.epoch, false, 0, root.members, 0);
      root.running = true;
    }
    for (unsigned c = 1; c < kNumCtx; ++c) {
      Member& m = mem[c];
      if (!m.running && m.done < epochs && !ge.active(c) && pct(rng) < 30) {
        co_await ge.activate(c, m.epoch, m.comb, 1, 3);
        m.running = true;
        m.released = false;
      }
    }
    // Root traffic: members of the current epoch (live or early), duplicates,
    // a few of the next epoch early.
    if (root.members != 0 && pct(rng) < 50) {
      const unsigned m = 1 + pct(rng) % (root.members - 1);
      const std::uint16_t e =
          pct(rng) < 85 ? root.epoch : static_cast<std::uint16_t>(root.epoch - 1);
      co_await ge.rx(arrive(static_cast<std::uint16_t>(0x0200 + m), 0, e, m));
      if (e == root.epoch) {
        root.arrived.insert(m);
      }
    }
    // Member traffic: release a running member once its arrival left (or
    // lose the release sometimes: the re-send brings a unicast one).
    for (unsigned c = 1; c < kNumCtx; ++c) {
      Member& m = mem[c];
      if (m.running && m.released && pct(rng) < 20) {
        // a duplicate of the release (a re-sent copy)
        co_await ge.rx(release(m.comb ? PktType::kCombRelease : PktType::kRelease,
                               m.comb || pct(rng) < 50 ? kMlid : kOwn, static_cast<std::uint8_t>(c),
                               m.epoch, 0));
      }
    }
    // What the engine sent.
    while (!ge.sent().empty()) {
      const Sent s = ge.sent().front();
      ge.sent().pop_front();
      const unsigned c = s.hdr.ctx();
      if (c == 0) {
        TB_CHECK(s.hdr.pkt_type() == PktType::kRelease) << "the root sends RELEASEs only";
        if (s.hdr.dst_lid() == kMlid) {
          TB_CHECK(root.running && s.hdr.epoch() == root.epoch) << "release of the running epoch";
          released.insert(root.epoch);
          for (unsigned m = 1; m < root.members; ++m) {
            TB_CHECK(root.arrived.contains(m))
                << "safety: epoch " << root.epoch << " released before member " << m << " arrived";
          }
        } else {
          // The ARRIVE may have been taken in the cycle a later epoch's
          // RELEASE left: any epoch released before is fine.
          TB_CHECK(released.contains(s.hdr.epoch()))
              << "unicast RELEASE of an epoch never released: " << s.hdr.epoch();
        }
      } else {
        Member& m = mem[c];
        TB_CHECK(m.running && s.hdr.epoch() == m.epoch) << "arrival of the running epoch";
        if (!m.released && pct(rng) < 75) {
          co_await ge.rx(release(m.comb ? PktType::kCombRelease : PktType::kRelease,
                                 m.comb || pct(rng) < 50 ? kMlid : kOwn,
                                 static_cast<std::uint8_t>(c), m.epoch, 0));
          m.released = true;
        }
      }
    }
    while (!ge.recs().empty()) {
      const Rec r = ge.recs().front();
      ge.recs().pop_front();
      TB_CHECK_EQ(r.status, kStatusOk) << "no retry limit: every descriptor completes OK";
      if (r.ctx == 0) {
        TB_CHECK(root.running && r.epoch == root.epoch);
        root.running = false;
        root.arrived.clear();
        ++root.epoch;
        ++root.done;
      } else {
        Member& m = mem[r.ctx];
        TB_CHECK(m.running && m.released && r.epoch == m.epoch)
            << "safety: member ctx " << r.ctx << " completed without its release";
        m.running = false;
        ++m.epoch;
        ++m.done;
      }
    }
    co_await RisingEdge(clk);
  }
  bp_task.cancel();
  TB_CHECK_EQ(root.done, epochs) << "liveness: root epochs";
  for (unsigned c = 1; c < kNumCtx; ++c) {
    TB_CHECK_EQ(mem[c].done, epochs) << "liveness: member ctx " << c;
  }
  // The corners a run of this length reaches: re-sends after lost
  // releases, unicast RELEASEs for re-sent ARRIVEs, duplicates, drops.
  if (epochs >= 30) {
    const Counts& n = ge.counts();
    TB_CHECK(n.retry > 0) << "no re-send happened";
    TB_CHECK(n.release_sent > root.done) << "no unicast RELEASE happened";
    TB_CHECK(n.dup > 0 && n.drop > 0) << "no duplicate or no drop";
  }
  std::cout << "nic_ge.random: " << epochs << " epochs per context in " << ge.cycle() << " cycles, "
            << ge.counts() << "\n";
}
