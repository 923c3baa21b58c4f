// Tests of nic_te (NumCtx=4, RespDamqSlots=4): sending, ACK/NACK matching,
// retry and completion, docs/barrier-protocol.md §6 and §7. The directed
// tests' expected packets, counters and cycle counts are worked out by hand
// from that document and from the timing stated in docs/nic/te.md
// ("Timing"); the rule is named next to each check. The random
// test drives SE's status like a simple SE stand-in and checks every packet
// and record against a small reference written here; there is no golden
// model in the loop on purpose.
#include <Vnic_te.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iostream>
#include <map>
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
constexpr unsigned kKMax = 4;
constexpr unsigned kRoundW = 5;     // $clog2(MAX_ROUNDS + 1)
constexpr unsigned kDstWords = 40;  // MAX_ROUNDS * K_MAX * 16 bits / 32
constexpr std::uint16_t kOwn = 0x0010;

// cq_status / err_code values of formats.toml.
constexpr unsigned kCqOk = 0;
constexpr unsigned kCqNetError = 2;
constexpr unsigned kErrNone = 0;
constexpr unsigned kErrRetryLimit = 9;

PktHdr resp(PktType type, std::uint16_t src, std::uint8_t ctx, std::uint16_t epoch,
            std::uint8_t round) {
  PktHdr h;
  h.set_pkt_type(type).set_len_flits(1).set_dst_lid(kOwn).set_src_lid(src);
  h.set_ctx(ctx).set_epoch(epoch).set_round(round);
  return h;
}

struct Counts {
  unsigned sent = 0;
  unsigned retry = 0;
  unsigned ack = 0;
  unsigned nack = 0;
  unsigned drop = 0;
  unsigned stray = 0;
  unsigned error = 0;
  bool operator==(const Counts&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Counts& c) {
  return os << "{sent " << c.sent << ", retry " << c.retry << ", ack " << c.ack << ", nack "
            << c.nack << ", drop " << c.drop << ", stray " << c.stray << ", error " << c.error
            << "}";
}

// A NOTIFY that left: the cycle it was taken, the cycle it first showed on
// tx_valid_o, and SE's rounds_heard for its context in the cycle before it
// showed (the cycle TE chose it).
struct Sent {
  std::uint64_t cycle = 0;
  std::uint64_t shown = 0;
  unsigned heard_at_load = 0;
  PktHdr hdr;
};

struct Done {
  std::uint64_t cycle = 0;
  unsigned ctx = 0;
  std::uint16_t epoch = 0;
  unsigned status = 0;
  unsigned err = 0;
};

struct RxTaken {
  std::uint64_t cycle = 0;
  PktHdr hdr;
};

// Per round the destination LIDs, slot 0 first (0 = LID_NONE).
using Rounds = std::vector<std::vector<std::uint16_t>>;

class Te {
 public:
  Te(Vnic_te& dut, Clock& clk) : dut_(dut), clk_(clk) {}

  Task<> reset(std::uint32_t delay, std::uint16_t limit) {
    dut_.rst_ni = 0;
    dut_.own_lid_i = kOwn;
    dut_.retry_delay_i = delay;
    dut_.retry_limit_i = limit;
    dut_.soft_reset_i = 0;
    dut_.act_valid_i = 0;
    dut_.tx_ready_i = 1;
    dut_.resp_rx_valid_i = 0;
    dut_.done_ready_i = 1;
    drive_se();
    co_await ClockCycles(clk_, 2);
    dut_.rst_ni = 1;
    co_await RisingEdge(clk_);
  }

  // Samples every stream once per cycle and plays SE's part of `fin`. It
  // samples the cycle it is started in too: a test may drive something in
  // the very first cycle after reset.
  Task<> monitor() {
    for (;;) {
      co_await ReadOnly();
      sample();
      co_await RisingEdge(clk_);
      if (fin_pending_) {
        fin_pending_ = false;
        se_[fin_ctx_] = SeCtx{};
        drive_se();
      }
      if (soft_reset_seen_) {
        soft_reset_seen_ = false;
        se_ = {};
        drive_se();
      }
    }
  }

  // Presents an activation for one cycle (TE is always ready) and plays SE's
  // part: active, nothing heard yet. Returns the cycle it was taken.
  Task<std::uint64_t> activate(unsigned ctx, std::uint16_t epoch, unsigned fanout,
                               const Rounds& rounds) {
    drive_act(ctx, epoch, fanout, rounds);
    const std::uint64_t at = clk_.cycles();
    co_await RisingEdge(clk_);
    act_taken(ctx, rounds.size());
    co_return at;
  }

  void drive_act(unsigned ctx, std::uint16_t epoch, unsigned fanout, const Rounds& rounds) {
    for (unsigned w = 0; w < kDstWords; ++w) {
      dut_.act_dst_i[w] = 0;
    }
    for (unsigned r = 0; r < rounds.size(); ++r) {
      for (unsigned k = 0; k < rounds[r].size(); ++k) {
        const unsigned bit = (r * kKMax + k) * 16;
        dut_.act_dst_i[bit / 32] |= static_cast<std::uint32_t>(rounds[r][k]) << (bit % 32);
      }
    }
    dut_.act_ctx_i = ctx;
    dut_.act_epoch_i = epoch;
    dut_.act_num_rounds_i = static_cast<CData>(rounds.size());
    dut_.act_fanout_i = static_cast<CData>(fanout);
    dut_.act_valid_i = 1;
  }
  // Call after the edge that took the activation.
  void act_taken(unsigned ctx, std::size_t num_rounds) {
    dut_.act_valid_i = 0;
    se_[ctx] = SeCtx{true, 0, static_cast<unsigned>(num_rounds)};
    drive_se();
  }

  // SE stand-in: rounds heard on ctx (seen by TE from the next cycle on).
  void set_heard(unsigned ctx, unsigned heard) {
    if (se_[ctx].active) {
      se_[ctx].heard = std::min(heard, se_[ctx].rounds);
      drive_se();
    }
  }

  void drive_resp(const PktHdr& h) {
    const auto& b = h.bytes();
    for (std::size_t w = 0; w < 4; ++w) {
      dut_.resp_rx_hdr_i[w] = static_cast<std::uint32_t>(b[4 * w]) |
                              (static_cast<std::uint32_t>(b[4 * w + 1]) << 8U) |
                              (static_cast<std::uint32_t>(b[4 * w + 2]) << 16U) |
                              (static_cast<std::uint32_t>(b[4 * w + 3]) << 24U);
    }
    dut_.resp_rx_valid_i = 1;
  }

  // Presents one response until TE takes it; returns the cycle it was taken.
  Task<std::uint64_t> respond(const PktHdr& h) {
    drive_resp(h);
    for (unsigned waited = 0;; ++waited) {
      TB_CHECK(waited < 20) << "TE never took the response";
      co_await ReadOnly();
      const bool fire = dut_.resp_rx_ready_o;
      const std::uint64_t at = clk_.cycles();
      co_await RisingEdge(clk_);
      if (fire) {
        dut_.resp_rx_valid_i = 0;
        co_return at;
      }
    }
  }
  Task<std::uint64_t> ack(std::uint16_t src, unsigned ctx, std::uint16_t epoch, unsigned round) {
    co_return co_await respond(resp(PktType::kAck, src, static_cast<std::uint8_t>(ctx), epoch,
                                    static_cast<std::uint8_t>(round)));
  }
  Task<std::uint64_t> nack(std::uint16_t src, unsigned ctx, std::uint16_t epoch, unsigned round) {
    co_return co_await respond(resp(PktType::kNack, src, static_cast<std::uint8_t>(ctx), epoch,
                                    static_cast<std::uint8_t>(round)));
  }

  // Waits until `n` packets have left in all (bounded).
  Task<> wait_sent(std::size_t n, unsigned bound = 200) {
    for (unsigned i = 0; sent_.size() < n; ++i) {
      TB_CHECK(i < bound) << "only " << sent_.size() << " of " << n << " packets left";
      co_await RisingEdge(clk_);
    }
  }
  Task<> wait_done(std::size_t n, unsigned bound = 200) {
    for (unsigned i = 0; done_.size() < n; ++i) {
      TB_CHECK(i < bound) << "only " << done_.size() << " of " << n << " done records";
      co_await RisingEdge(clk_);
    }
  }

  // The next packet must be this NOTIFY (§6 / formats: the fields TE sets).
  Sent expect_sent(std::uint16_t dst, unsigned ctx, std::uint16_t epoch, unsigned round,
                   const std::string& what) {
    TB_CHECK(!sent_.empty()) << what << ": no packet";
    const Sent s = sent_.front();
    sent_.pop_front();
    const PktHdr& h = s.hdr;
    TB_CHECK(h.pkt_type() == PktType::kNotify) << what << ": type " << unsigned(h.pkt_type());
    TB_CHECK_EQ(h.len_flits(), 1U) << what;
    TB_CHECK_EQ(h.src_lid(), kOwn) << what;
    TB_CHECK_EQ(h.dst_lid(), dst) << what;
    TB_CHECK_EQ(h.ctx(), ctx) << what;
    TB_CHECK_EQ(h.epoch(), epoch) << what;
    TB_CHECK_EQ(h.round(), round) << what;
    TB_CHECK_EQ(h.prio(), 0U) << what;
    return s;
  }
  Done expect_done(unsigned ctx, std::uint16_t epoch, unsigned status, unsigned err,
                   const std::string& what) {
    TB_CHECK(!done_.empty()) << what << ": no done record";
    const Done d = done_.front();
    done_.pop_front();
    TB_CHECK_EQ(d.ctx, ctx) << what;
    TB_CHECK_EQ(d.epoch, epoch) << what;
    TB_CHECK_EQ(d.status, status) << what;
    TB_CHECK_EQ(d.err, err) << what;
    return d;
  }

  [[nodiscard]] std::uint64_t cycle() const { return clk_.cycles(); }
  [[nodiscard]] bool se_active(unsigned ctx) const { return se_[ctx].active; }
  [[nodiscard]] unsigned se_heard(unsigned ctx) const { return se_[ctx].heard; }
  [[nodiscard]] unsigned se_rounds(unsigned ctx) const { return se_[ctx].rounds; }
  [[nodiscard]] const Counts& counts() const { return counts_; }
  std::deque<Sent>& sent() { return sent_; }
  std::deque<Done>& dones() { return done_; }
  std::deque<RxTaken>& rx_taken() { return rx_; }
  [[nodiscard]] unsigned tx_held() const { return tx_held_; }
  [[nodiscard]] unsigned done_held() const { return done_held_; }
  [[nodiscard]] unsigned fins() const { return fins_; }

 private:
  struct SeCtx {
    bool active = false;
    unsigned heard = 0;
    unsigned rounds = 0;
  };

  void drive_se() {
    unsigned active = 0;
    unsigned all = 0;
    std::uint32_t heard = 0;
    for (unsigned c = 0; c < kNumCtx; ++c) {
      if (se_[c].active) {
        active |= 1U << c;
        heard |= se_[c].heard << (c * kRoundW);
        if (se_[c].heard == se_[c].rounds) {
          all |= 1U << c;
        }
      }
    }
    dut_.ctx_active_i = static_cast<CData>(active);
    dut_.rounds_heard_i = heard;
    dut_.all_recv_i = static_cast<CData>(all);
  }

  static PktHdr decode(const VlWide<4>& w) {
    std::array<std::uint8_t, 16> b{};
    for (unsigned i = 0; i < 16; ++i) {
      b[i] = static_cast<std::uint8_t>(w[i / 4] >> (8 * (i % 4)));
    }
    return PktHdr::decode(b);
  }

  void sample() {
    counts_.sent += dut_.evt_notif_sent_o;
    counts_.retry += dut_.evt_retry_o;
    counts_.ack += dut_.evt_ack_recv_o;
    counts_.nack += dut_.evt_nack_recv_o;
    counts_.drop += dut_.evt_drop_o;
    counts_.stray += dut_.evt_stray_o;
    counts_.error += dut_.evt_error_o;
    TB_CHECK(dut_.resp_rx_ready_o) << "the response DAMQ refused a response (§6: never)";
    if (dut_.resp_rx_valid_i && dut_.resp_rx_ready_o) {
      rx_.push_back({clk_.cycles(), decode(dut_.resp_rx_hdr_i)});
    }
    if (dut_.tx_valid_o) {
      const PktHdr h = decode(dut_.tx_hdr_o);
      if (!tx_showing_) {
        tx_showing_ = true;
        tx_shown_ = clk_.cycles();
        tx_heard_ = (heard_prev_ >> (h.ctx() * kRoundW)) & ((1U << kRoundW) - 1);
      }
      if (dut_.tx_ready_i) {
        sent_.push_back({clk_.cycles(), tx_shown_, tx_heard_, h});
        tx_showing_ = false;
      } else {
        ++tx_held_;
      }
    }
    heard_prev_ = dut_.rounds_heard_i;
    if (dut_.done_valid_o) {
      if (dut_.done_ready_i) {
        const std::uint64_t r = dut_.done_rec_o;  // {ctx, epoch, status, err_code}
        done_.push_back(
            {clk_.cycles(), static_cast<unsigned>(r >> 32U), static_cast<std::uint16_t>(r >> 16U),
             static_cast<unsigned>((r >> 8U) & 0xFFU), static_cast<unsigned>(r & 0xFFU)});
        TB_CHECK(dut_.fin_valid_o) << "done taken without fin to SE";
        TB_CHECK_EQ(static_cast<unsigned>(dut_.fin_ctx_o), static_cast<unsigned>(r >> 32U));
      } else {
        ++done_held_;
      }
    }
    if (dut_.fin_valid_o) {
      TB_CHECK(dut_.done_valid_o && dut_.done_ready_i) << "fin without a done record taken";
      fin_pending_ = true;
      fin_ctx_ = dut_.fin_ctx_o;
      ++fins_;
    }
    if (dut_.soft_reset_i) {
      soft_reset_seen_ = true;
      tx_showing_ = false;
    }
  }

  Vnic_te& dut_;
  Clock& clk_;
  std::array<SeCtx, kNumCtx> se_{};
  bool fin_pending_ = false;
  unsigned fin_ctx_ = 0;
  bool soft_reset_seen_ = false;
  Counts counts_;
  std::deque<Sent> sent_;
  std::deque<Done> done_;
  std::deque<RxTaken> rx_;
  bool tx_showing_ = false;
  std::uint64_t tx_shown_ = 0;
  unsigned tx_heard_ = 0;
  std::uint32_t heard_prev_ = 0;
  unsigned tx_held_ = 0;
  unsigned done_held_ = 0;
  unsigned fins_ = 0;
};

}  // namespace

// §6 round gate: round r's sends go once SE has heard rounds 0..r-1, not
// before, and without waiting for round r-1's ACKs ([decided] pipelining);
// LID_NONE slots are no sends; §7: done only when everything is heard AND
// every send is ACKed.
SYNCFAB_TEST(nic_te, round_release) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Te te(dut, clk);
  co_await te.reset(64, 0);
  ctx.sim().start_soon(te.monitor());

  const Rounds sched{{0x21, 0x22}, {0x0000, 0x23}, {0x24, 0x25}};
  const std::uint64_t a = co_await te.activate(0, 9, 2, sched);
  co_await ClockCycles(clk, 30);
  // Round 0 is released at once (rounds_heard >= 0), slot order; timing:
  // chosen the cycle after activation, on tx the cycle after that.
  TB_CHECK_EQ(te.sent().size(), 2U) << "only round 0 may go while nothing is heard";
  const Sent s0 = te.expect_sent(0x21, 0, 9, 0, "round 0 slot 0");
  TB_CHECK_EQ(s0.shown, a + 2) << "first send two cycles after the activation cycle";
  const Sent s1 = te.expect_sent(0x22, 0, 9, 0, "round 0 slot 1");
  TB_CHECK_EQ(s1.shown, a + 3) << "one send per cycle";

  // Round 1 released by the receive side alone: round 0's sends are not ACKed.
  te.set_heard(0, 1);
  const std::uint64_t h1 = te.cycle();
  co_await te.wait_sent(1);
  const Sent s2 = te.expect_sent(0x23, 0, 9, 1, "round 1: slot 0 is LID_NONE, slot 1 goes");
  // SE's count changing at an edge is chosen from in the cycle after that
  // edge and on tx one cycle later.
  TB_CHECK_EQ(s2.shown, h1 + 1);
  co_await ClockCycles(clk, 10);
  TB_CHECK(te.sent().empty()) << "round 2 waits for round 1 to be heard";

  // ACK everything sent so far; heard = 2 releases round 2.
  co_await te.ack(0x22, 0, 9, 0);
  co_await te.ack(0x21, 0, 9, 0);
  co_await te.ack(0x23, 0, 9, 1);
  te.set_heard(0, 2);
  co_await te.wait_sent(2);
  te.expect_sent(0x24, 0, 9, 2, "round 2 slot 0");
  te.expect_sent(0x25, 0, 9, 2, "round 2 slot 1");
  co_await te.ack(0x24, 0, 9, 2);
  co_await te.ack(0x25, 0, 9, 2);
  co_await ClockCycles(clk, 10);
  TB_CHECK(te.dones().empty()) << "§7: every send ACKed but round 2 not heard yet";

  te.set_heard(0, 3);  // all_recv
  const std::uint64_t all = te.cycle();
  co_await te.wait_done(1);
  const Done d = te.expect_done(0, 9, kCqOk, kErrNone, "§7 completion");
  // all_recv seen in cycle `all`, ending registered, record offered at all+1.
  TB_CHECK_EQ(d.cycle, all + 1);
  co_await ClockCycles(clk, 3);
  TB_CHECK(!te.se_active(0)) << "fin freed the context";
  TB_CHECK_EQ(te.counts(), (Counts{5, 0, 5, 0, 0, 0, 0}));
  TB_CHECK_EQ(te.fins(), 1U);
}

// §7 the other way round: everything heard, one ACK missing: no completion
// until it comes. Timing of the record from the last ACK; num_rounds = 0
// completes at once; done records are held until taken, one at a time.
SYNCFAB_TEST(nic_te, completion_waits_for_acks) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Te te(dut, clk);
  co_await te.reset(64, 0);
  ctx.sim().start_soon(te.monitor());

  const Rounds sched1 = {{0x31, 0x32, 0x33}};
  co_await te.activate(1, 0x100, 3, sched1);
  te.set_heard(1, 1);
  co_await te.wait_sent(3);
  te.expect_sent(0x31, 1, 0x100, 0, "s0");
  te.expect_sent(0x32, 1, 0x100, 0, "s1");
  te.expect_sent(0x33, 1, 0x100, 0, "s2");
  co_await te.ack(0x33, 1, 0x100, 0);
  co_await te.ack(0x31, 1, 0x100, 0);
  co_await ClockCycles(clk, 20);
  TB_CHECK(te.dones().empty()) << "0x32 not ACKed";
  const std::uint64_t t = co_await te.ack(0x32, 1, 0x100, 0);
  co_await te.wait_done(1);
  const Done d = te.expect_done(1, 0x100, kCqOk, kErrNone, "last ACK");
  // Matched at t+1, complete seen at t+2, record offered at t+3.
  TB_CHECK_EQ(d.cycle, t + 3);

  // num_rounds = 0 (§5): complete at once. Two of them, the completion unit
  // not ready: one record offered and held, then the other.
  dut.done_ready_i = 0;
  const Rounds sched2;
  co_await te.activate(2, 7, 1, sched2);
  const Rounds sched3;
  co_await te.activate(3, 8, 1, sched3);
  co_await ClockCycles(clk, 10);
  TB_CHECK(te.dones().empty());
  TB_CHECK(te.done_held() >= 9U) << "record offered and held";
  dut.done_ready_i = 1;
  co_await te.wait_done(2);
  const Done d2 = te.expect_done(2, 7, kCqOk, kErrNone, "zero rounds, ctx 2 (offered first)");
  const Done d3 = te.expect_done(3, 8, kCqOk, kErrNone, "zero rounds, ctx 3");
  TB_CHECK_EQ(d3.cycle, d2.cycle + 1) << "one record per cycle";
  TB_CHECK(te.sent().empty()) << "no sends for zero rounds";
  TB_CHECK_EQ(te.counts(), (Counts{3, 0, 3, 0, 0, 0, 0}));
}

// §6 NACK: counted, re-sent RETRY_DELAY cycles after the NACK arrived
// (TE: ready max(RETRY_DELAY, 2) cycles after the cycle the NACK was taken,
// on tx one cycle later); RETRY and NOTIF_SENT both count the re-send; the
// delay register is read when the retry waits.
SYNCFAB_TEST(nic_te, nack_retry_delay) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Te te(dut, clk);
  co_await te.reset(10, 0);
  ctx.sim().start_soon(te.monitor());

  const Rounds sched4 = {{0x31, 0x32}};
  co_await te.activate(1, 0x4242, 2, sched4);
  te.set_heard(1, 1);
  co_await te.wait_sent(2);
  te.expect_sent(0x31, 1, 0x4242, 0, "first");
  te.expect_sent(0x32, 1, 0x4242, 0, "first");

  const std::uint64_t t1 = co_await te.nack(0x31, 1, 0x4242, 0);
  co_await te.wait_sent(1);
  const Sent r1 = te.expect_sent(0x31, 1, 0x4242, 0, "re-send after 10");
  TB_CHECK_EQ(r1.shown, t1 + 10 + 1) << "RETRY_DELAY = 10";
  TB_CHECK_EQ(r1.cycle, r1.shown) << "tx ready";

  // Two NACKs in a row on both sends, delay 3: each waits from its own NACK.
  dut.retry_delay_i = 3;
  const std::uint64_t t2 = co_await te.nack(0x31, 1, 0x4242, 0);
  const std::uint64_t t3 = co_await te.nack(0x32, 1, 0x4242, 0);
  co_await te.wait_sent(2);
  const Sent r2 = te.expect_sent(0x31, 1, 0x4242, 0, "second re-send");
  const Sent r3 = te.expect_sent(0x32, 1, 0x4242, 0, "re-send of slot 1");
  TB_CHECK_EQ(r2.shown, t2 + 3 + 1);
  TB_CHECK_EQ(r3.shown, t3 + 3 + 1);

  // Delay 0: the pipeline minimum (DAMQ + match, then the retry queue).
  dut.retry_delay_i = 0;
  const std::uint64_t t4 = co_await te.nack(0x32, 1, 0x4242, 0);
  co_await te.wait_sent(1);
  const Sent r4 = te.expect_sent(0x32, 1, 0x4242, 0, "delay 0");
  TB_CHECK_EQ(r4.shown, t4 + 2 + 1);

  // Retry under tx backpressure: it waits, the header holds, then goes.
  dut.tx_ready_i = 0;
  const std::uint64_t t5 = co_await te.nack(0x31, 1, 0x4242, 0);
  co_await ClockCycles(clk, 15);
  TB_CHECK(te.sent().empty());
  dut.tx_ready_i = 1;
  co_await te.wait_sent(1);
  const Sent r5 = te.expect_sent(0x31, 1, 0x4242, 0, "held re-send");
  TB_CHECK_EQ(r5.shown, t5 + 2 + 1) << "offered as soon as due";
  TB_CHECK(r5.cycle > r5.shown + 10) << "and held until taken";

  co_await te.ack(0x31, 1, 0x4242, 0);
  co_await te.ack(0x32, 1, 0x4242, 0);
  co_await te.wait_done(1);
  te.expect_done(1, 0x4242, kCqOk, kErrNone, "after retries");
  // sent: 2 first + 5 re-sends; NACK_RECV 5 = RETRY 5.
  TB_CHECK_EQ(te.counts(), (Counts{7, 5, 2, 5, 0, 0, 0}));
}

// §6 retry limit: LIMIT = 2 allows two re-sends; the third NACK ends the
// descriptor with NET_ERROR / RETRY_LIMIT (§7: even though nothing is heard),
// sends in flight are forgotten and their late responses count DROP.
SYNCFAB_TEST(nic_te, retry_limit_abort) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Te te(dut, clk);
  co_await te.reset(2, 2);
  ctx.sim().start_soon(te.monitor());

  const Rounds sched5 = {{0x41, 0x42}, {0x43, 0}};
  co_await te.activate(2, 0x0033, 2, sched5);
  co_await te.wait_sent(2);
  te.expect_sent(0x41, 2, 0x33, 0, "first");
  te.expect_sent(0x42, 2, 0x33, 0, "first");
  co_await te.nack(0x41, 2, 0x33, 0);  // re-sent 0 times -> re-send 1
  co_await te.wait_sent(1);
  te.expect_sent(0x41, 2, 0x33, 0, "re-send 1");
  co_await te.nack(0x41, 2, 0x33, 0);  // re-sent once -> re-send 2
  co_await te.wait_sent(1);
  te.expect_sent(0x41, 2, 0x33, 0, "re-send 2");
  TB_CHECK(te.dones().empty()) << "LIMIT re-sends are allowed";
  const std::uint64_t t = co_await te.nack(0x41, 2, 0x33, 0);  // re-sent twice = LIMIT
  co_await te.wait_done(1);
  const Done d = te.expect_done(2, 0x33, kCqNetError, kErrRetryLimit, "third NACK");
  TB_CHECK_EQ(d.cycle, t + 2) << "matched at t+1, record offered at t+2";
  co_await ClockCycles(clk, 10);
  TB_CHECK(te.sent().empty()) << "no re-send after the abort";
  TB_CHECK(!te.se_active(2)) << "fin to SE on the error record too";

  // Late ACK of the forgotten send: DROP. The next descriptor on the context
  // runs normally, and a late NACK of the old epoch does not touch it.
  co_await te.ack(0x42, 2, 0x33, 0);
  const Rounds sched6 = {{0x42}};
  co_await te.activate(2, 0x0034, 1, sched6);
  co_await te.wait_sent(1);
  te.expect_sent(0x42, 2, 0x34, 0, "next epoch");
  co_await te.nack(0x42, 2, 0x33, 0);
  co_await te.ack(0x42, 2, 0x34, 0);
  te.set_heard(2, 1);
  co_await te.wait_done(1);
  te.expect_done(2, 0x34, kCqOk, kErrNone, "next descriptor");
  // sent 2 + 2 re-sends + 1; NACK_RECV 3 (the late one is a DROP); ERROR 1.
  TB_CHECK_EQ(te.counts(), (Counts{5, 2, 1, 3, 2, 0, 1}));
}

// §6 unmatched responses: anything that matches no send in flight (idle
// context, other epoch, round out of range, unknown peer, a send not sent
// yet, a send already ACKed) is dropped and counted DROP, with no effect;
// malformed responses (docs/nic/te.md "Malformed responses": type, length,
// destination, context) are dropped at the input.
SYNCFAB_TEST(nic_te, stale_and_unmatched) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Te te(dut, clk);
  co_await te.reset(2, 1);
  ctx.sim().start_soon(te.monitor());

  co_await te.ack(0x51, 3, 1, 0);  // idle context: DROP
  const Rounds sched7 = {{0x51, 0x52}, {0x53}};
  co_await te.activate(3, 0x8001, 2, sched7);
  co_await te.wait_sent(2);
  te.expect_sent(0x51, 3, 0x8001, 0, "first");
  te.expect_sent(0x52, 3, 0x8001, 0, "first");
  co_await te.nack(0x51, 3, 0x8000, 0);   // older epoch
  co_await te.nack(0x51, 3, 0x8002, 0);   // newer epoch
  co_await te.nack(0x51, 3, 0x8001, 1);   // round 1: 0x51 is not a round-1 peer
  co_await te.nack(0x53, 3, 0x8001, 1);   // round 1 not released, not sent
  co_await te.nack(0x51, 3, 0x8001, 2);   // round >= num_rounds
  co_await te.nack(0x51, 3, 0x8001, 25);  // round >= MAX_ROUNDS
  co_await te.nack(0x59, 3, 0x8001, 0);   // unknown peer
  co_await te.nack(0x51, 2, 0x8001, 0);   // other (idle) context
  co_await ClockCycles(clk, 3);
  TB_CHECK_EQ(te.counts(), (Counts{2, 0, 0, 0, 9, 0, 0})) << "nine DROPs, no NACK_RECV";
  TB_CHECK(te.dones().empty()) << "LIMIT = 1 and no NACK counted: no abort";

  co_await te.ack(0x52, 3, 0x8001, 0);
  co_await te.ack(0x52, 3, 0x8001, 0);   // already ACKed: DROP
  co_await te.nack(0x52, 3, 0x8001, 0);  // NACK after the ACK: DROP, no retry
  // Malformed: NOTIFY, DATA, two flits, another node's, context 4 and 200.
  co_await te.respond(resp(PktType::kNotify, 0x51, 3, 0x8001, 0));
  co_await te.respond(resp(PktType::kData, 0x51, 3, 0x8001, 0));
  PktHdr two = resp(PktType::kAck, 0x51, 3, 0x8001, 0);
  two.set_len_flits(2);
  co_await te.respond(two);
  PktHdr other = resp(PktType::kAck, 0x51, 3, 0x8001, 0);
  other.set_dst_lid(kOwn + 1);
  co_await te.respond(other);
  co_await te.ack(0x51, 4, 0x8001, 0);
  co_await te.ack(0x51, 200, 0x8001, 0);
  co_await ClockCycles(clk, 10);
  TB_CHECK(te.sent().empty()) << "nothing above caused a send";
  TB_CHECK_EQ(te.counts(), (Counts{2, 0, 1, 0, 11, 6, 0}));

  // The real ACK for 0x51 still matches after all that.
  co_await te.ack(0x51, 3, 0x8001, 0);
  te.set_heard(3, 1);
  co_await te.wait_sent(1);
  te.expect_sent(0x53, 3, 0x8001, 1, "round 1");
  co_await te.ack(0x53, 3, 0x8001, 1);
  te.set_heard(3, 2);
  co_await te.wait_done(1);
  te.expect_done(3, 0x8001, kCqOk, kErrNone, "done");
  TB_CHECK_EQ(te.counts(), (Counts{3, 0, 3, 0, 11, 6, 0}));
}

// Several contexts at once: the output register takes one send per cycle,
// round-robin across contexts (rr_arbiter), slot order within a context;
// under tx backpressure the offered header holds. Responses interleave.
SYNCFAB_TEST(nic_te, contexts_interleaved) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Te te(dut, clk);
  co_await te.reset(4, 0);
  ctx.sim().start_soon(te.monitor());

  dut.tx_ready_i = 0;
  const std::array<Rounds, kNumCtx> sched = {Rounds{{0x61, 0x62, 0x63}}, Rounds{{0x64}},
                                             Rounds{{0x65, 0x66}}, Rounds{{0x67, 0x68, 0x69}}};
  const std::array<unsigned, kNumCtx> fan = {3, 1, 2, 3};
  for (unsigned c = 0; c < kNumCtx; ++c) {
    co_await te.activate(c, static_cast<std::uint16_t>(0x10 + c), fan[c], sched[c]);
  }
  co_await ClockCycles(clk, 8);
  TB_CHECK(te.sent().empty());
  TB_CHECK(te.tx_held() >= 8U) << "ctx 0's first send offered and held";
  dut.tx_ready_i = 1;
  co_await te.wait_sent(9);
  // ctx 0 slot 0 was loaded first (only requester); then the pointer is at 1.
  const std::array<std::pair<unsigned, std::uint16_t>, 9> order = {
      std::pair{0U, 0x61}, {1U, 0x64}, {2U, 0x65}, {3U, 0x67}, {0U, 0x62},
      {2U, 0x66},          {3U, 0x68}, {0U, 0x63}, {3U, 0x69}};
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto [c, dst] = order[i];
    const Sent s = te.expect_sent(dst, c, static_cast<std::uint16_t>(0x10 + c), 0,
                                  "rr position " + std::to_string(i));
    if (i > 0) {
      TB_CHECK_EQ(s.shown, s.cycle) << "back-to-back once ready";
    }
  }

  // Random tx backpressure while NACKs make every context re-send.
  std::bernoulli_distribution ready(0.5);
  for (unsigned c = 0; c < kNumCtx; ++c) {
    co_await te.nack(sched[c][0][0], c, static_cast<std::uint16_t>(0x10 + c), 0);
  }
  for (unsigned i = 0; te.sent().size() < 4; ++i) {
    TB_CHECK(i < 200) << "re-sends lost under backpressure";
    dut.tx_ready_i = ready(ctx.rng()) ? 1 : 0;
    co_await RisingEdge(clk);
  }
  dut.tx_ready_i = 1;
  std::array<unsigned, kNumCtx> seen{};
  while (!te.sent().empty()) {
    const Sent s = te.sent().front();
    te.sent().pop_front();
    TB_CHECK_EQ(s.hdr.dst_lid(), sched[s.hdr.ctx()][0][0]) << "re-send of slot 0";
    ++seen.at(s.hdr.ctx());
  }
  TB_CHECK((seen == std::array<unsigned, kNumCtx>{1, 1, 1, 1})) << "one re-send per context";

  // ACK everything in reverse context order; each completes on its own.
  for (unsigned c = kNumCtx; c-- > 0;) {
    te.set_heard(c, 1);
    for (const auto dst : sched[c][0]) {
      co_await te.ack(dst, c, static_cast<std::uint16_t>(0x10 + c), 0);
    }
  }
  co_await te.wait_done(kNumCtx);
  for (unsigned c = kNumCtx; c-- > 0;) {
    te.expect_done(c, static_cast<std::uint16_t>(0x10 + c), kCqOk, kErrNone, "ctx done");
  }
  TB_CHECK_EQ(te.counts(), (Counts{13, 4, 9, 4, 0, 0, 0}));
}

// §8 CTRL.SOFT_RESET: running contexts, waiting retries and the offered send
// go, no record is written; responses afterwards match nothing.
SYNCFAB_TEST(nic_te, soft_reset) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Te te(dut, clk);
  co_await te.reset(50, 0);
  ctx.sim().start_soon(te.monitor());

  const Rounds sched8 = {{0x71, 0x72}};
  co_await te.activate(0, 1, 2, sched8);
  co_await te.wait_sent(2);
  te.sent().clear();
  co_await te.nack(0x71, 0, 1, 0);  // waits 50 cycles for its re-send
  dut.tx_ready_i = 0;
  const Rounds sched9 = {{0x73}};
  co_await te.activate(1, 1, 1, sched9);
  co_await ClockCycles(clk, 3);  // 0x73 offered, held
  dut.soft_reset_i = 1;
  co_await RisingEdge(clk);
  dut.soft_reset_i = 0;
  dut.tx_ready_i = 1;
  co_await ClockCycles(clk, 80);
  TB_CHECK(te.sent().empty()) << "neither the held send nor the retry left";
  TB_CHECK(te.dones().empty());
  TB_CHECK(!te.se_active(0) && !te.se_active(1));
  co_await te.ack(0x72, 0, 1, 0);
  co_await ClockCycles(clk, 3);
  TB_CHECK_EQ(te.counts(), (Counts{2, 0, 0, 1, 1, 0, 0}));
  // The context works again afterwards.
  const Rounds sched10 = {{0x71}};
  co_await te.activate(0, 2, 1, sched10);
  co_await te.wait_sent(1);
  te.expect_sent(0x71, 0, 2, 0, "after reset");
}

namespace {

// Reference of the random test: what TE must do, from §6/§7 alone.
struct RefSend {
  enum class St { kNew, kFlight, kWait, kDone };
  std::uint16_t dst = 0;
  unsigned round = 0;
  St st = St::kNew;
  unsigned resends = 0;
  std::uint64_t nack_cycle = 0;
};

struct RefCtx {
  bool active = false;
  bool aborted = false;
  std::uint16_t epoch = 0;
  unsigned rounds = 0;
  std::vector<RefSend> sends;
};

// The last descriptor a context aborted: sends already chosen for the wire
// when the abort was decided still leave (docs/nic/te.md, "Abort and the
// wire"), nothing later.
struct Aborted {
  bool valid = false;
  std::uint16_t epoch = 0;
  std::uint64_t cycle = 0;  // the cycle the NACK was matched
  std::vector<RefSend> sends;
};

}  // namespace

// Random: up to four contexts at once, random schedules (LID_NONE slots,
// zero rounds), an SE stand-in raising rounds_heard at random, a network that
// answers every NOTIFY once after a random latency with an ACK or a NACK,
// garbage responses that can match nothing, tx and done backpressure, and a
// retry delay and limit chosen by the seed. Every packet is checked against
// the reference (round released when chosen, re-send only after a NACK and its
// delay), every record (OK only when all is heard and ACKed; RETRY_LIMIT
// exactly at the limit), and the event counts at the end.
SYNCFAB_TEST(nic_te, random) {
  auto& dut = ctx.make_dut<Vnic_te>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 30'000);
  constexpr std::array<std::uint32_t, 4> kDelays = {0, 2, 7, 23};
  constexpr std::array<std::uint16_t, 3> kLimits = {0, 1, 3};
  const std::uint32_t delay = kDelays.at(ctx.seed() % kDelays.size());
  const std::uint16_t limit = kLimits.at((ctx.seed() / kDelays.size()) % kLimits.size());
  std::cout << "  retry delay " << delay << ", limit " << limit << "\n";
  Te te(dut, clk);
  co_await te.reset(delay, limit);
  ctx.sim().start_soon(te.monitor());

  Corners cov("nic_te.random");
  const auto c_ok = cov.require("OK record", 30);
  const auto c_abort = cov.require("RETRY_LIMIT record", limit != 0 ? 3 : 0);
  const auto c_retry = cov.require("re-send", 20);
  const auto c_late = cov.require("late response dropped", limit != 0 ? 1 : 0);
  const auto c_garbage = cov.require("garbage dropped", 10);
  const auto c_stray = cov.require("stray response", 5);
  const auto c_tx_held = cov.require("tx held by backpressure", 20);
  const auto c_done_held = cov.require("record held by backpressure", 3);
  const auto c_four = cov.require("four contexts running", 5);
  const auto c_zero = cov.require("zero-round descriptor", 2);

  std::array<RefCtx, kNumCtx> ref{};
  std::array<Aborted, kNumCtx> gone{};
  std::array<std::uint16_t, kNumCtx> next_epoch{};
  for (auto& e : next_epoch) {
    e = static_cast<std::uint16_t>(rng());
  }
  Counts want;
  std::multimap<std::uint64_t, PktHdr> net;  // responses by the cycle they are due
  std::uniform_int_distribution<unsigned> pct(0, 99);
  std::uniform_int_distribution<unsigned> any_ctx(0, kNumCtx - 1);
  std::uniform_int_distribution<unsigned> latency(1, 25);
  bool draining = false;
  unsigned nack_pct = 25;
  unsigned ok_records = 0;

  auto find_send = [](RefCtx& rc, unsigned round, std::uint16_t dst) -> RefSend* {
    for (auto& s : rc.sends) {
      if (s.round == round && s.dst == dst) {
        return &s;
      }
    }
    return nullptr;
  };

  for (std::int64_t cyc = 0;; ++cyc) {
    if (cyc == cycles) {
      draining = true;
      nack_pct = 0;
    }
    if (draining) {
      bool idle = net.empty() && te.sent().empty() && te.rx_taken().empty();
      for (unsigned c = 0; c < kNumCtx; ++c) {
        idle = idle && !te.se_active(c) && !ref[c].active;
        te.set_heard(c, 32);
      }
      if (idle) {
        break;
      }
      TB_CHECK(cyc < cycles + 5'000) << "not everything finished after the drain";
    }

    // The reference follows what TE took and sent (rx before tx: a re-send
    // needs its NACK at least three cycles earlier, a response its packet).
    while (!te.rx_taken().empty()) {
      const RxTaken rx = te.rx_taken().front();
      te.rx_taken().pop_front();
      const PktHdr& h = rx.hdr;
      const bool ok = (h.pkt_type() == PktType::kAck || h.pkt_type() == PktType::kNack) &&
                      h.len_flits() == 1 && h.dst_lid() == kOwn && h.ctx() < kNumCtx;
      if (!ok) {
        ++want.stray;
        cov.hit(c_stray);
        continue;
      }
      RefCtx& rc = ref[h.ctx()];
      RefSend* s = (rc.active && !rc.aborted && h.epoch() == rc.epoch)
                       ? find_send(rc, h.round(), h.src_lid())
                       : nullptr;
      if (s == nullptr || s->st != RefSend::St::kFlight) {
        ++want.drop;
        if (gone[h.ctx()].valid && h.epoch() == gone[h.ctx()].epoch) {
          cov.hit(c_late);
        }
        continue;
      }
      if (h.pkt_type() == PktType::kAck) {
        ++want.ack;
        s->st = RefSend::St::kDone;
      } else {
        ++want.nack;
        if (limit != 0 && s->resends >= limit) {
          rc.aborted = true;
          gone[h.ctx()] = Aborted{true, rc.epoch, rx.cycle + 1, rc.sends};
        } else {
          s->st = RefSend::St::kWait;
          s->nack_cycle = rx.cycle;
        }
      }
    }
    while (!te.sent().empty()) {
      const Sent tx = te.sent().front();
      te.sent().pop_front();
      const PktHdr& h = tx.hdr;
      TB_CHECK(h.pkt_type() == PktType::kNotify && h.len_flits() == 1 && h.src_lid() == kOwn &&
               h.ctx() < kNumCtx)
          << "malformed NOTIFY at cycle " << tx.cycle;
      RefCtx& rc = ref[h.ctx()];
      ++want.sent;
      // Every NOTIFY gets exactly one answer from the network.
      const bool nacked = pct(rng) < nack_pct;
      net.emplace(tx.cycle + latency(rng), resp(nacked ? PktType::kNack : PktType::kAck,
                                                h.dst_lid(), h.ctx(), h.epoch(), h.round()));
      Aborted& ab = gone[h.ctx()];
      if (ab.valid && h.epoch() == ab.epoch) {
        TB_CHECK(tx.shown <= ab.cycle + 1)
            << "send of an aborted descriptor chosen after the abort, cycle " << tx.shown;
        RefSend* s = nullptr;
        for (auto& x : ab.sends) {
          if (x.round == h.round() && x.dst == h.dst_lid()) {
            s = &x;
          }
        }
        TB_CHECK(s != nullptr && (s->st == RefSend::St::kNew || s->st == RefSend::St::kWait))
            << "send of an aborted descriptor that was not waiting to go";
        if (s->st == RefSend::St::kWait) {
          ++want.retry;
        }
        s->st = RefSend::St::kFlight;
        continue;
      }
      TB_CHECK(rc.active && h.epoch() == rc.epoch)
          << "NOTIFY for ctx " << h.ctx() << " epoch " << h.epoch() << " not running";
      RefSend* s = find_send(rc, h.round(), h.dst_lid());
      TB_CHECK(s != nullptr) << "NOTIFY to a peer the schedule does not name: " << h.dst_lid();
      if (s->st == RefSend::St::kNew) {
        TB_CHECK(h.round() <= tx.heard_at_load)
            << "§6: round " << h.round() << " chosen with only " << tx.heard_at_load
            << " rounds heard, cycle " << tx.shown;
      } else {
        TB_CHECK(s->st == RefSend::St::kWait) << "§6: a send in flight or done went again";
        TB_CHECK(tx.shown >= s->nack_cycle + std::max<std::uint64_t>(delay, 2) + 1)
            << "§6: re-sent " << (tx.shown - s->nack_cycle) << " cycles after its NACK";
        ++s->resends;
        ++want.retry;
        cov.hit(c_retry);
      }
      s->st = RefSend::St::kFlight;
    }
    while (!te.dones().empty()) {
      const Done d = te.dones().front();
      te.dones().pop_front();
      TB_CHECK(d.ctx < kNumCtx);
      RefCtx& rc = ref[d.ctx];
      TB_CHECK(rc.active && d.epoch == rc.epoch) << "record for a descriptor not running";
      if (rc.aborted) {
        TB_CHECK(d.status == kCqNetError && d.err == kErrRetryLimit) << "abort record";
        ++want.error;
        cov.hit(c_abort);
      } else {
        TB_CHECK(d.status == kCqOk && d.err == kErrNone) << "status " << d.status;
        TB_CHECK_EQ(te.se_heard(d.ctx), rc.rounds) << "§7: OK before everything was heard";
        for (const auto& s : rc.sends) {
          TB_CHECK(s.st == RefSend::St::kDone) << "§7: OK with a send not ACKed";
        }
        ++ok_records;
        cov.hit(c_ok);
      }
      rc.active = false;
    }

    // Stimulus for the next cycle.
    dut.act_valid_i = 0;
    dut.resp_rx_valid_i = 0;
    unsigned running = 0;
    for (unsigned c = 0; c < kNumCtx; ++c) {
      running += te.se_active(c) ? 1U : 0U;
    }
    if (running == kNumCtx) {
      cov.hit(c_four);
    }
    const unsigned c = any_ctx(rng);
    if (!draining && !te.se_active(c) && !ref[c].active && pct(rng) < 20) {
      const unsigned fanout = 1 + (pct(rng) % kKMax);
      Rounds rounds(pct(rng) < 8 ? 0 : 1 + (pct(rng) % 4));
      RefCtx& rc = ref[c];
      rc = RefCtx{};
      rc.active = true;
      rc.epoch = next_epoch[c]++;
      rc.rounds = static_cast<unsigned>(rounds.size());
      for (unsigned r = 0; r < rounds.size(); ++r) {
        std::array<std::uint16_t, 10> pool = {0x21, 0x22, 0x23, 0x24, 0x25,
                                              0x26, 0x27, 0x28, 0x29, 0x2A};
        std::shuffle(pool.begin(), pool.end(), rng);
        for (unsigned k = 0; k < fanout; ++k) {
          const std::uint16_t lid = pct(rng) < 15 ? 0 : pool[k];
          rounds[r].push_back(lid);
          if (lid != 0) {
            rc.sends.push_back({lid, r});
          }
        }
      }
      if (rounds.empty()) {
        cov.hit(c_zero);
      }
      te.drive_act(c, rc.epoch, fanout, rounds);
      co_await RisingEdge(clk);
      te.act_taken(c, rounds.size());
    } else {
      // SE stand-in: a round heard now and then, sometimes several at once.
      const unsigned h = any_ctx(rng);
      if (te.se_active(h) && pct(rng) < 15) {
        te.set_heard(h, te.se_heard(h) + (pct(rng) < 80 ? 1 : 3));
      }
      // The network: one response per cycle, due ones first; or garbage.
      const unsigned p = pct(rng);
      if (!net.empty() && net.begin()->first <= te.cycle() && p < 90) {
        te.drive_resp(net.begin()->second);
        net.erase(net.begin());
      } else if (p >= 97) {
        const unsigned gc = any_ctx(rng);
        PktHdr g =
            resp(pct(rng) < 50 ? PktType::kAck : PktType::kNack,
                 static_cast<std::uint16_t>(0x21 + pct(rng) % 10), static_cast<std::uint8_t>(gc),
                 ref[gc].epoch, static_cast<std::uint8_t>(pct(rng) % 4));
        const unsigned kind = pct(rng) % 6;
        switch (kind) {
          case 0:
            g.set_epoch(static_cast<std::uint16_t>(ref[gc].epoch ^ 0x4000U));
            break;
          case 1:
            g.set_src_lid(static_cast<std::uint16_t>(0x700 + pct(rng)));
            break;
          case 2:
            g.set_round(static_cast<std::uint8_t>(4 + pct(rng) % 30));
            break;
          case 3:
            g.set_len_flits(2);
            break;
          case 4:
            g.set_ctx(static_cast<std::uint8_t>(kNumCtx + pct(rng)));
            break;
          default:
            g.set_dst_lid(static_cast<std::uint16_t>(kOwn + 1));
            break;
        }
        if (kind < 3) {
          cov.hit(c_garbage);  // well-formed, matches nothing: DROP
        }
        te.drive_resp(g);
      }
      dut.tx_ready_i = (draining || pct(rng) < 75) ? 1 : 0;
      dut.done_ready_i = (draining || pct(rng) < 70) ? 1 : 0;
      co_await RisingEdge(clk);
    }
  }
  // Garbage never matches by construction: another epoch, a LID no schedule
  // names, a round >= 4 (schedules have at most 4), or malformed.
  cov.hit(c_tx_held, te.tx_held());
  cov.hit(c_done_held, te.done_held());
  TB_CHECK_EQ(te.counts(), want);
  std::cout << "  " << ok_records << " OK records, counts " << te.counts() << "\n";
  std::cout << cov.report();
  cov.check();
}
