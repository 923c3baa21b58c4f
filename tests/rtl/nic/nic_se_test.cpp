// Directed tests of nic_se (NumCtx=4, ReqDamqSlots=4, RespDepth=2): the
// receive rules of docs/barrier-protocol.md §4 and the activation drain of §5.
// Every expected verdict, response and counter value below is worked out by
// hand from that document (the rule is named next to each check); there is no
// reference model here on purpose.
#include <Vnic_se.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::fmt::PktHdr;
using syncfab::fmt::PktType;

namespace {

constexpr SimTime kPeriod = 10'000;
constexpr unsigned kNumCtx = 4;
constexpr unsigned kSlots = 4;  // ReqDamqSlots
constexpr unsigned kKMax = 4;
constexpr unsigned kRoundW = 5;  // $clog2(MAX_ROUNDS + 1)
constexpr std::uint16_t kOwn = 0x0010;

// se_verdict_e in nic_pkg.sv.
enum Verdict : unsigned { kMatch = 0, kPark = 1, kDup = 2, kDrop = 3, kNack = 4, kStray = 5 };

const char* verdict_name(unsigned v) {
  static const char* const names[] = {"MATCH", "PARK", "DUP", "DROP", "NACK", "STRAY"};
  return v < 6 ? names[v] : "?";
}

struct Counts {
  unsigned recv = 0;
  unsigned dup = 0;
  unsigned drop = 0;
  unsigned nack = 0;
  bool operator==(const Counts&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Counts& c) {
  return os << "{recv " << c.recv << ", dup " << c.dup << ", drop " << c.drop << ", nack " << c.nack
            << "}";
}

PktHdr notify(std::uint16_t src, std::uint8_t ctx, std::uint16_t epoch, std::uint8_t round) {
  PktHdr h;
  h.set_pkt_type(PktType::kNotify).set_len_flits(1).set_dst_lid(kOwn).set_src_lid(src);
  h.set_ctx(ctx).set_epoch(epoch).set_round(round);
  return h;
}

// One round's expected sources, slot 0 first.
using Rounds = std::vector<std::vector<std::uint16_t>>;

class Se {
 public:
  Se(Vnic_se& dut, Clock& clk) : dut_(dut), clk_(clk) {}

  Task<> reset() {
    dut_.rst_ni = 0;
    dut_.own_lid_i = kOwn;
    dut_.enable_i = 1;
    dut_.soft_reset_i = 0;  // CTRL.SOFT_RESET (tested through nic_top)
    dut_.rx_valid_i = 0;
    dut_.act_valid_i = 0;
    dut_.fin_valid_i = 0;
    dut_.resp_ready_i = 1;
    co_await ClockCycles(clk_, 2);
    dut_.rst_ni = 1;
    co_await RisingEdge(clk_);
  }

  // Samples the event pulses and the response stream once per cycle.
  Task<> monitor() {
    for (;; co_await RisingEdge(clk_)) {
      co_await ReadOnly();
      counts_.recv += dut_.evt_recv_o;
      counts_.dup += dut_.evt_dup_o;
      counts_.drop += dut_.evt_drop_o;
      counts_.nack += dut_.evt_nack_o;
      if (dut_.resp_valid_o && dut_.resp_ready_i) {
        std::array<std::uint8_t, 16> b{};
        for (unsigned i = 0; i < 16; ++i) {
          b[i] = static_cast<std::uint8_t>(dut_.resp_hdr_o[i / 4] >> (8 * (i % 4)));
        }
        resp_.push_back(PktHdr::decode(b));
      }
    }
  }

  // Presents one header until SE takes it; returns SE's verdict.
  Task<unsigned> rx(const PktHdr& h) {
    const auto& b = h.bytes();
    for (std::size_t w = 0; w < 4; ++w) {
      dut_.rx_hdr_i[w] = static_cast<std::uint32_t>(b[4 * w]) |
                         (static_cast<std::uint32_t>(b[4 * w + 1]) << 8U) |
                         (static_cast<std::uint32_t>(b[4 * w + 2]) << 16U) |
                         (static_cast<std::uint32_t>(b[4 * w + 3]) << 24U);
    }
    dut_.rx_valid_i = 1;
    for (unsigned waited = 0;; ++waited) {
      TB_CHECK(waited < 100) << "SE never took the header";
      co_await ReadOnly();
      const bool fire = dut_.rx_ready_o;
      const unsigned verdict = dut_.rx_verdict_o;
      co_await RisingEdge(clk_);
      if (fire) {
        dut_.rx_valid_i = 0;
        co_return verdict;
      }
    }
  }

  Task<unsigned> rx_notify(std::uint16_t src, std::uint8_t ctx, std::uint16_t epoch,
                           std::uint8_t round) {
    co_return co_await rx(notify(src, ctx, epoch, round));
  }

  // Activates a descriptor on ctx, then waits for SE's drain to finish.
  Task<> activate(unsigned ctx, std::uint16_t epoch, unsigned fanout, const Rounds& rounds) {
    for (unsigned w = 0; w < 40; ++w) {
      dut_.act_src_i[w] = 0;
    }
    for (unsigned r = 0; r < rounds.size(); ++r) {
      for (unsigned k = 0; k < rounds[r].size(); ++k) {
        const unsigned bit = (r * kKMax + k) * 16;
        dut_.act_src_i[bit / 32] |= static_cast<std::uint32_t>(rounds[r][k]) << (bit % 32);
      }
    }
    dut_.act_ctx_i = ctx;
    dut_.act_epoch_i = epoch;
    dut_.act_num_rounds_i = static_cast<CData>(rounds.size());
    dut_.act_fanout_i = static_cast<CData>(fanout);
    dut_.act_valid_i = 1;
    for (unsigned waited = 0;; ++waited) {
      TB_CHECK(waited < 100) << "SE never took the activation";
      co_await ReadOnly();
      const bool fire = dut_.act_ready_o;
      co_await RisingEdge(clk_);
      if (fire) {
        break;
      }
    }
    dut_.act_valid_i = 0;
    for (unsigned waited = 0;; ++waited) {
      TB_CHECK(waited < 100) << "drain never finished";
      co_await ReadOnly();
      if (!dut_.drain_busy_o) {
        break;
      }
      co_await RisingEdge(clk_);
    }
    co_await RisingEdge(clk_);
  }

  Task<> finish(unsigned ctx) {
    dut_.fin_ctx_i = ctx;
    dut_.fin_valid_i = 1;
    co_await RisingEdge(clk_);
    dut_.fin_valid_i = 0;
  }

  // Lets the response FIFO empty and the monitor catch up.
  Task<> settle() { co_await ClockCycles(clk_, 4); }

  [[nodiscard]] unsigned heard(unsigned ctx) const {
    return (static_cast<unsigned>(dut_.rounds_heard_o) >> (ctx * kRoundW)) & ((1U << kRoundW) - 1);
  }
  [[nodiscard]] bool all_recv(unsigned ctx) const { return ((dut_.all_recv_o >> ctx) & 1U) != 0; }
  [[nodiscard]] bool active(unsigned ctx) const { return ((dut_.ctx_active_o >> ctx) & 1U) != 0; }
  [[nodiscard]] unsigned damq_free() const { return dut_.damq_free_o; }

  [[nodiscard]] const Counts& counts() const { return counts_; }
  std::deque<PktHdr>& responses() { return resp_; }

  // The next response must be this one (type, and the fields §4 says are copied).
  void expect_resp(PktType type, std::uint16_t to, std::uint8_t ctx, std::uint16_t epoch,
                   std::uint8_t round, const std::string& what) {
    TB_CHECK(!resp_.empty()) << what << ": no response";
    const PktHdr h = resp_.front();
    resp_.pop_front();
    TB_CHECK(h.pkt_type() == type)
        << what << ": wrong response type " << static_cast<unsigned>(h.pkt_type());
    TB_CHECK_EQ(h.len_flits(), 1U) << what;
    TB_CHECK_EQ(h.src_lid(), kOwn) << what;
    TB_CHECK_EQ(h.dst_lid(), to) << what;
    TB_CHECK_EQ(h.ctx(), ctx) << what;
    TB_CHECK_EQ(h.epoch(), epoch) << what;
    TB_CHECK_EQ(h.round(), round) << what;
  }

 private:
  Vnic_se& dut_;
  Clock& clk_;
  Counts counts_;
  std::deque<PktHdr> resp_;
};

#define EXPECT_VERDICT(call, v)                                                          \
  do {                                                                                   \
    const unsigned got_ = co_await (call);                                               \
    TB_CHECK_EQ(std::string(verdict_name(got_)), std::string(verdict_name(v))) << #call; \
  } while (0)

}  // namespace

// §4 rule 5: an active descriptor takes its own epoch's notifications, any
// round, and answers each with an ACK; the round gate only counts leading
// complete rounds; a repeat is ACKed and counted DUP once.
SYNCFAB_TEST(nic_se, accept_and_dup) {
  auto& dut = ctx.make_dut<Vnic_se>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Se se(dut, clk);
  co_await se.reset();
  ctx.sim().start_soon(se.monitor());

  // Two rounds, k = 2: round 0 hears 0x21, 0x22; round 1 hears 0x23 (slot 1 empty).
  const Rounds sched1{{0x21, 0x22}, {0x23, 0x0000}};
  co_await se.activate(0, 5, 2, sched1);
  TB_CHECK(se.active(0));
  TB_CHECK_EQ(se.heard(0), 0U);
  TB_CHECK(!se.all_recv(0));

  // Round 1 first: marked at once (no per-round gate in SE), but the leading
  // count stays 0 while round 0 is open.
  EXPECT_VERDICT(se.rx_notify(0x23, 0, 5, 1), kMatch);
  co_await ReadOnly();
  TB_CHECK_EQ(se.heard(0), 0U) << "round 0 still open";
  co_await RisingEdge(clk);
  EXPECT_VERDICT(se.rx_notify(0x21, 0, 5, 0), kMatch);
  co_await ReadOnly();
  TB_CHECK_EQ(se.heard(0), 0U) << "0x22 missing in round 0";
  co_await RisingEdge(clk);
  EXPECT_VERDICT(se.rx_notify(0x21, 0, 5, 0), kDup);
  EXPECT_VERDICT(se.rx_notify(0x22, 0, 5, 0), kMatch);
  co_await ReadOnly();
  TB_CHECK_EQ(se.heard(0), 2U) << "both rounds complete";
  TB_CHECK(se.all_recv(0));
  co_await RisingEdge(clk);
  EXPECT_VERDICT(se.rx_notify(0x23, 0, 5, 1), kDup);
  co_await se.settle();

  TB_CHECK_EQ(se.counts(), (Counts{3, 2, 0, 0}));
  se.expect_resp(PktType::kAck, 0x23, 0, 5, 1, "round 1 early");
  se.expect_resp(PktType::kAck, 0x21, 0, 5, 0, "0x21");
  se.expect_resp(PktType::kAck, 0x21, 0, 5, 0, "0x21 dup");
  se.expect_resp(PktType::kAck, 0x22, 0, 5, 0, "0x22");
  se.expect_resp(PktType::kAck, 0x23, 0, 5, 1, "0x23 dup");
  TB_CHECK(se.responses().empty());
  TB_CHECK_EQ(se.damq_free(), kSlots) << "nothing parked";
}

// §4 rules 1, 3, 4, 5: what is dropped, and which drops still get an ACK.
SYNCFAB_TEST(nic_se, drops) {
  auto& dut = ctx.make_dut<Vnic_se>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Se se(dut, clk);
  co_await se.reset();
  ctx.sim().start_soon(se.monitor());
  const Rounds sched2{{0x41}, {0x42}};
  co_await se.activate(1, 0x0010, 1, sched2);

  // Rule 1: not for this node, or not a one-flit NOTIFY: DROP, no response.
  PktHdr h = notify(0x41, 1, 0x0010, 0);
  h.set_dst_lid(0x0011);
  EXPECT_VERDICT(se.rx(h), kStray);
  h = notify(0x41, 1, 0x0010, 0);
  h.set_len_flits(2);
  EXPECT_VERDICT(se.rx(h), kStray);
  h = notify(0x41, 1, 0x0010, 0);
  h.set_pkt_type(PktType::kData);
  EXPECT_VERDICT(se.rx(h), kStray);
  // Rule 3: unknown context: DROP + ACK.
  EXPECT_VERDICT(se.rx_notify(0x41, kNumCtx, 0x0010, 0), kDrop);
  // Rule 4: older than the active epoch (0x000F, and 0x8011 at distance 0x7FFF).
  EXPECT_VERDICT(se.rx_notify(0x41, 1, 0x000F, 0), kDrop);
  EXPECT_VERDICT(se.rx_notify(0x41, 1, 0x8011, 0), kDrop);
  // Rule 5: same epoch, src not expected in that round / round past num_rounds.
  EXPECT_VERDICT(se.rx_notify(0x42, 1, 0x0010, 0), kDrop);
  EXPECT_VERDICT(se.rx_notify(0x41, 1, 0x0010, 2), kDrop);
  EXPECT_VERDICT(se.rx_notify(0x41, 1, 0x0010, 0), kMatch);
  co_await se.settle();
  TB_CHECK_EQ(se.counts(), (Counts{1, 0, 8, 0}));
  TB_CHECK_EQ(se.heard(1), 1U);

  se.expect_resp(PktType::kAck, 0x41, kNumCtx, 0x0010, 0, "unknown ctx");
  se.expect_resp(PktType::kAck, 0x41, 1, 0x000F, 0, "older epoch");
  se.expect_resp(PktType::kAck, 0x41, 1, 0x8011, 0, "older epoch (0x7FFF back)");
  se.expect_resp(PktType::kAck, 0x42, 1, 0x0010, 0, "unexpected src");
  se.expect_resp(PktType::kAck, 0x41, 1, 0x0010, 2, "round past num_rounds");
  se.expect_resp(PktType::kAck, 0x41, 1, 0x0010, 0, "match");
  TB_CHECK(se.responses().empty()) << "stray headers got a response";

  // Rule 4, idle side: after the descriptor finishes, its own epoch and older
  // ones are stale (dropped + ACKed, never parked); a newer one parks.
  co_await se.finish(1);
  co_await ReadOnly();
  TB_CHECK(!se.active(1));
  co_await RisingEdge(clk);
  EXPECT_VERDICT(se.rx_notify(0x42, 1, 0x0010, 1), kDrop);
  EXPECT_VERDICT(se.rx_notify(0x42, 1, 0x0001, 1), kDrop);
  EXPECT_VERDICT(se.rx_notify(0x42, 1, 0x0011, 1), kPark);
  co_await se.settle();
  TB_CHECK_EQ(se.counts(), (Counts{2, 0, 10, 0}));
  TB_CHECK_EQ(se.damq_free(), kSlots - 1);
}

// §4 rule 2: a disabled engine NACKs every NOTIFY (even one it would match).
SYNCFAB_TEST(nic_se, disabled_nacks) {
  auto& dut = ctx.make_dut<Vnic_se>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Se se(dut, clk);
  co_await se.reset();
  ctx.sim().start_soon(se.monitor());
  const Rounds sched3{{0x21}};
  co_await se.activate(0, 3, 1, sched3);
  dut.enable_i = 0;
  EXPECT_VERDICT(se.rx_notify(0x21, 0, 3, 0), kNack);
  EXPECT_VERDICT(se.rx_notify(0x21, 2, 3, 0), kNack);
  dut.enable_i = 1;
  EXPECT_VERDICT(se.rx_notify(0x21, 0, 3, 0), kMatch);
  co_await se.settle();
  TB_CHECK_EQ(se.counts(), (Counts{1, 0, 0, 2}));
  se.expect_resp(PktType::kNack, 0x21, 0, 3, 0, "disabled, active match");
  se.expect_resp(PktType::kNack, 0x21, 2, 3, 0, "disabled, would park");
  se.expect_resp(PktType::kAck, 0x21, 0, 3, 0, "enabled again");
  TB_CHECK_EQ(se.damq_free(), kSlots);
}

// §4 rule 6: parking until the shared buffer is full, then NACK; a parked
// duplicate is ACKed as DUP even with the buffer full; a notification the
// active descriptor matches is never NACKed.
SYNCFAB_TEST(nic_se, park_until_full_then_nack) {
  auto& dut = ctx.make_dut<Vnic_se>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Se se(dut, clk);
  co_await se.reset();
  ctx.sim().start_soon(se.monitor());
  const Rounds sched4{{0x51}};
  co_await se.activate(3, 9, 1, sched4);

  // Idle context 0 (no finished epoch), and context 3 active with an older
  // epoch than the packet: both park. No per-context reservation.
  EXPECT_VERDICT(se.rx_notify(0x21, 0, 1, 0), kPark);
  EXPECT_VERDICT(se.rx_notify(0x22, 0, 1, 0), kPark);
  EXPECT_VERDICT(se.rx_notify(0x21, 0, 2, 0), kPark);  // other epoch: not identical
  EXPECT_VERDICT(se.rx_notify(0x51, 3, 10, 0), kPark);
  co_await ReadOnly();
  TB_CHECK_EQ(se.damq_free(), 0U);
  co_await RisingEdge(clk);
  EXPECT_VERDICT(se.rx_notify(0x21, 0, 1, 1), kNack);  // other round: not identical
  EXPECT_VERDICT(se.rx_notify(0x22, 0, 1, 0), kDup);   // identical to a parked one
  EXPECT_VERDICT(se.rx_notify(0x51, 3, 10, 0), kDup);
  EXPECT_VERDICT(se.rx_notify(0x51, 3, 9, 0), kMatch);  // active match: never NACKed
  EXPECT_VERDICT(se.rx_notify(0x52, 2, 0, 0), kNack);
  co_await se.settle();
  TB_CHECK_EQ(se.counts(), (Counts{5, 2, 0, 2}));
  se.expect_resp(PktType::kAck, 0x21, 0, 1, 0, "park 1");
  se.expect_resp(PktType::kAck, 0x22, 0, 1, 0, "park 2");
  se.expect_resp(PktType::kAck, 0x21, 0, 2, 0, "park 3");
  se.expect_resp(PktType::kAck, 0x51, 3, 10, 0, "park 4");
  se.expect_resp(PktType::kNack, 0x21, 0, 1, 1, "full");
  se.expect_resp(PktType::kAck, 0x22, 0, 1, 0, "parked dup");
  se.expect_resp(PktType::kAck, 0x51, 3, 10, 0, "parked dup (ctx 3)");
  se.expect_resp(PktType::kAck, 0x51, 3, 9, 0, "active match");
  se.expect_resp(PktType::kNack, 0x52, 2, 0, 0, "full (ctx 2)");
  TB_CHECK(se.responses().empty());
}

// §5: activation drains its context's queue in arrival order: same epoch
// consumed (marked, not counted again; DROP if not expected), older epochs
// dropped and counted, newer epochs stay parked for the next activation.
SYNCFAB_TEST(nic_se, activation_drains) {
  auto& dut = ctx.make_dut<Vnic_se>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Se se(dut, clk);
  co_await se.reset();
  ctx.sim().start_soon(se.monitor());

  EXPECT_VERDICT(se.rx_notify(0x31, 2, 7, 0), kPark);  // A: consumed, marked
  EXPECT_VERDICT(se.rx_notify(0x32, 2, 8, 0), kPark);  // B: newer, stays
  EXPECT_VERDICT(se.rx_notify(0x33, 2, 6, 0), kPark);  // C: older, dropped
  EXPECT_VERDICT(se.rx_notify(0x34, 2, 7, 0), kPark);  // D: not expected, dropped
  co_await se.settle();
  TB_CHECK_EQ(se.counts(), (Counts{4, 0, 0, 0}));
  TB_CHECK_EQ(se.damq_free(), 0U);

  const Rounds sched5{{0x31, 0x35}};
  co_await se.activate(2, 7, 2, sched5);
  co_await ReadOnly();
  TB_CHECK_EQ(se.counts(), (Counts{4, 0, 2, 0})) << "C and D dropped, A not re-counted";
  TB_CHECK_EQ(se.damq_free(), kSlots - 1) << "only B stays parked";
  TB_CHECK_EQ(se.heard(2), 0U) << "0x35 not heard yet";
  co_await RisingEdge(clk);
  EXPECT_VERDICT(se.rx_notify(0x31, 2, 7, 0), kDup);  // A was marked by the drain
  EXPECT_VERDICT(se.rx_notify(0x35, 2, 7, 0), kMatch);
  co_await ReadOnly();
  TB_CHECK(se.all_recv(2));
  co_await RisingEdge(clk);

  // Next barrier on the context: B is drained and completes round 0 at once.
  co_await se.finish(2);
  const Rounds sched6{{0x32}};
  co_await se.activate(2, 8, 1, sched6);
  co_await ReadOnly();
  TB_CHECK(se.all_recv(2)) << "B consumed by the second activation";
  TB_CHECK_EQ(se.heard(2), 1U);
  TB_CHECK_EQ(se.damq_free(), kSlots);
  co_await se.settle();
  TB_CHECK_EQ(se.counts(), (Counts{5, 1, 2, 0}));
}

// §5 with a full buffer: entries that stay parked are pushed back in arrival
// order even though no slot is free, and a later activation finds them all.
SYNCFAB_TEST(nic_se, drain_keeps_order_in_full_buffer) {
  auto& dut = ctx.make_dut<Vnic_se>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Se se(dut, clk);
  co_await se.reset();
  ctx.sim().start_soon(se.monitor());

  // Epoch 0xFFFF then 0x0000: 0x0000 is newer (serial-number wrap).
  EXPECT_VERDICT(se.rx_notify(0x61, 1, 0x0000, 1), kPark);
  EXPECT_VERDICT(se.rx_notify(0x62, 1, 0xFFFF, 0), kPark);
  EXPECT_VERDICT(se.rx_notify(0x63, 1, 0x0000, 0), kPark);
  EXPECT_VERDICT(se.rx_notify(0x64, 1, 0x0000, 1), kPark);
  const Rounds sched7{{0x70}};
  co_await se.activate(1, 0xFFFE, 1, sched7);  // every entry is newer: all stay
  co_await ReadOnly();
  TB_CHECK_EQ(se.damq_free(), 0U);
  TB_CHECK_EQ(se.counts(), (Counts{4, 0, 0, 0}));
  co_await RisingEdge(clk);
  EXPECT_VERDICT(se.rx_notify(0x70, 1, 0xFFFE, 0), kMatch);
  co_await se.finish(1);

  const Rounds sched8{{0x62}};
  co_await se.activate(1, 0xFFFF, 1, sched8);  // takes 0x62; the rest stay
  co_await ReadOnly();
  TB_CHECK(se.all_recv(1));
  TB_CHECK_EQ(se.damq_free(), 1U);
  co_await RisingEdge(clk);
  co_await se.finish(1);

  const Rounds sched9{{0x63, 0}, {0x61, 0x64}};
  co_await se.activate(1, 0x0000, 2, sched9);
  co_await ReadOnly();
  TB_CHECK(se.all_recv(1)) << "all three epoch-0 entries survived two drains";
  TB_CHECK_EQ(se.heard(1), 2U);
  TB_CHECK_EQ(se.damq_free(), kSlots);
  TB_CHECK_EQ(se.counts(), (Counts{5, 0, 0, 0}));
}

// Random traffic on every context with response backpressure: activations,
// finishes, notifications for past, current and future epochs, strays,
// unknown contexts, a disabled engine now and then, and a 4-slot DAMQ that
// fills. The RTL's assertions check every rule cycle by cycle (one counter per
// NOTIFY, no double mark, NACK only when full or disabled, ...); the test
// checks the response stream: exactly one response per non-stray header, in
// order, of the type SE decided, with the fields §4 says are copied.
SYNCFAB_TEST(nic_se, random) {
  auto& dut = ctx.make_dut<Vnic_se>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto ops = ctx.param("ops", 20'000);
  Se se(dut, clk);
  co_await se.reset();
  ctx.sim().start_soon(se.monitor());

  bool stop = false;
  ctx.sim().start_soon([](Vnic_se& d, Clock& c, std::mt19937_64& r, const bool& done) -> Task<> {
    std::bernoulli_distribution ready(0.7);
    while (!done) {
      d.resp_ready_i = ready(r) ? 1 : 0;
      co_await RisingEdge(c);
    }
    d.resp_ready_i = 1;
  }(dut, clk, rng, stop));

  Corners cov("nic_se.random");
  std::array<Corners::Id, 6> c_verdict{};
  for (unsigned v = 0; v < 6; ++v) {
    c_verdict[v] = cov.require(std::string("verdict ") + verdict_name(v), 5);
  }
  const auto c_all_recv = cov.require("context fully received");
  const auto c_full = cov.require("DAMQ full");
  const auto c_acts = cov.require("activations", 20);

  const std::array<std::uint16_t, 6> lids = {0x21, 0x22, 0x23, 0x24, 0x25, 0x26};
  std::array<std::uint16_t, kNumCtx> epoch{};  // epoch of the current / next descriptor
  std::array<Rounds, kNumCtx> sched{};
  std::deque<std::pair<PktHdr, bool>> expect;  // header taken, NACK expected
  std::uniform_int_distribution<unsigned> any_ctx(0, kNumCtx - 1);
  std::uniform_int_distribution<unsigned> pct(0, 99);

  for (std::int64_t op = 0; op < ops; ++op) {
    const unsigned c = any_ctx(rng);
    const unsigned p = pct(rng);
    if (p < 8) {
      if (!se.active(c)) {
        ++epoch[c];
        const unsigned fanout = 1 + (pct(rng) % kKMax);
        Rounds rounds(pct(rng) < 10 ? 0 : 1 + (pct(rng) % 3));
        for (auto& r : rounds) {
          std::array<std::uint16_t, 6> pool = lids;
          std::shuffle(pool.begin(), pool.end(), rng);
          for (unsigned k = 0; k < fanout; ++k) {
            r.push_back(pct(rng) < 15 ? 0 : pool[k]);
          }
        }
        sched[c] = rounds;
        co_await se.activate(c, epoch[c], fanout, sched[c]);
        cov.hit(c_acts);
      }
    } else if (p < 14) {
      if (se.active(c)) {
        co_await se.finish(c);
      }
    } else if (p < 15) {
      dut.enable_i = dut.enable_i ? (pct(rng) < 50 ? 0 : 1) : 1;
    } else {
      PktHdr h = notify(lids[pct(rng) % lids.size()], static_cast<std::uint8_t>(c),
                        static_cast<std::uint16_t>(epoch[c] + (pct(rng) % 4) - 1),
                        static_cast<std::uint8_t>(pct(rng) % 3));
      if (se.active(c) && !sched[c].empty() && pct(rng) < 60) {
        const unsigned r = pct(rng) % sched[c].size();
        const auto& row = sched[c][r];
        h.set_src_lid(row[pct(rng) % row.size()]).set_round(static_cast<std::uint8_t>(r));
        h.set_epoch(epoch[c]);
      }
      if (p < 17) {
        h.set_ctx(static_cast<std::uint8_t>(kNumCtx + (pct(rng) % 4)));
      } else if (p < 19) {
        h.set_dst_lid(static_cast<std::uint16_t>(kOwn + 1));
      }
      const unsigned v = co_await se.rx(h);
      cov.hit(c_verdict.at(v));
      if (v != kStray) {
        expect.emplace_back(h, v == kNack);
      }
    }
    co_await ReadOnly();
    if (se.damq_free() == 0) {
      cov.hit(c_full);
    }
    for (unsigned i = 0; i < kNumCtx; ++i) {
      if (se.all_recv(i)) {
        cov.hit(c_all_recv);
        TB_CHECK_EQ(se.heard(i), static_cast<unsigned>(sched[i].size())) << "ctx " << i;
      }
    }
    auto& got = se.responses();
    while (!got.empty()) {
      TB_CHECK(!expect.empty()) << "response without a NOTIFY at op " << op;
      const auto [h, nack] = expect.front();
      expect.pop_front();
      se.expect_resp(nack ? PktType::kNack : PktType::kAck, h.src_lid(), h.ctx(), h.epoch(),
                     h.round(), "op " + std::to_string(op));
    }
    co_await RisingEdge(clk);
  }
  stop = true;
  co_await se.settle();
  co_await ReadOnly();
  TB_CHECK_EQ(se.responses().size(), expect.size()) << "responses lost or extra at the end";
  const Counts& n = se.counts();
  TB_CHECK(n.recv + n.dup + n.drop + n.nack > 0);
  std::cout << cov.report();
  cov.check();
}
