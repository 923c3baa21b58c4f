// Directed and random tests of nic_of (NumCtx=4, HdqDepth=2, MaxMembers=256):
// descriptor intake of docs/barrier-protocol.md §2 (HDQ, SDQ ring,
// round-robin), the validation order of §3 and the activation of §5; the
// group opcodes' validation order of docs/group-barrier.md §2 and their
// activation of the group engine. Every expected error code,
// order and index below is worked out by hand from that document (the rule is
// named next to each check); there is no reference model here on purpose.
//
// The bench plays everything around OF: the CSRs (HDQ window and post pulse,
// SDQ registers), a memory with random latency and backpressure that answers
// in order, SE's ctx_active (set the cycle after an activation is taken, as
// SE's register does, and cleared when the test says the descriptor finished),
// and random ready on the activation and error ports.
#include <Vnic_of.h>

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
#include <utility>
#include <vector>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using syncfab::fmt::BarrierDesc;
using syncfab::fmt::ErrCode;
using syncfab::fmt::Opcode;

namespace {

constexpr SimTime kPeriod = 10'000;
constexpr unsigned kNumCtx = 4;
constexpr unsigned kHdqDepth = 2;
constexpr unsigned kMaxRounds = syncfab::fmt::kMaxRounds;
constexpr unsigned kKMax = syncfab::fmt::kKMax;
constexpr unsigned kDescWords = BarrierDesc::kSizeBytes / 8;   // 44
constexpr std::uint64_t kSlotBytes = BarrierDesc::kSizeBytes;  // §2: slot stride 352
constexpr unsigned kMaxMembers = 256;                          // MaxMembers (HW_CFG2)
// The first opcode no descriptor uses (BARRIER 1, MCAST_BARRIER 2, COMB_BARRIER 3).
constexpr unsigned kFirstUnknownOpcode = 4;

using Table = std::array<std::array<std::uint16_t, kKMax>, kMaxRounds>;

// What OF did with one descriptor: activated it, or sent an error record.
struct Outcome {
  bool act = false;
  bool group = false;  // taken by the group engine (act_ge_*), not SE and TE
  bool comb = false;   // group_act_t
  std::uint16_t mlid = 0;
  std::uint16_t root_lid = 0;
  std::uint16_t member = 0;
  std::uint16_t members = 0;
  unsigned ctx = 0;
  std::uint16_t epoch = 0;
  unsigned status = 0;
  ErrCode err = ErrCode::kNone;
  unsigned rounds = 0;
  unsigned fanout = 0;
  Table src{};
  Table dst{};
  bool f_cmpl_write = false;
  bool f_cq_entry = false;
  bool f_irq = false;
  std::uint64_t cmpl_addr = 0;
  std::uint64_t cmpl_value = 0;
  std::uint64_t cycle = 0;  // bench cycle of the transfer
};

std::string err_name(ErrCode e) { return std::string(syncfab::fmt::to_string(e)); }

// A well-formed descriptor: rounds x k distinct peers (dst 0x100+.., src
// 0x200+..), unique per round.
BarrierDesc good_desc(std::uint8_t ctx, std::uint16_t epoch, unsigned rounds = 2, unsigned k = 2) {
  BarrierDesc d;
  d.set_opcode(Opcode::kBarrier)
      .set_version(static_cast<std::uint8_t>(syncfab::fmt::kDescVersion))
      .set_ctx(ctx)
      .set_epoch(epoch)
      .set_num_rounds(static_cast<std::uint8_t>(rounds))
      .set_fanout_k(static_cast<std::uint8_t>(k));
  for (unsigned r = 0; r < rounds && r < kMaxRounds; ++r) {
    for (unsigned j = 0; j < k && j < kKMax; ++j) {
      d.set_round_dst_lid(r, j, static_cast<std::uint16_t>(0x100 + 8 * r + j));
      d.set_round_src_lid(r, j, static_cast<std::uint16_t>(0x200 + 8 * r + j));
    }
  }
  return d;
}

std::uint64_t desc_word(const BarrierDesc& d, unsigned w) {
  std::uint64_t v = 0;
  for (unsigned b = 0; b < 8; ++b) {
    v |= static_cast<std::uint64_t>(d.bytes()[8 * w + b]) << (8 * b);
  }
  return v;
}

class OfBench {
 public:
  OfBench(Vnic_of& dut, Clock& clk, std::mt19937_64& rng) : dut_(dut), clk_(clk), rng_(rng) {}
  OfBench(const OfBench&) = delete;
  OfBench& operator=(const OfBench&) = delete;
  // run() refers to this bench: it must not outlive it (the simulator may
  // still resume it in the step where the test body returns).
  ~OfBench() { task_.cancel(); }

  void start(Sim& sim) { task_ = sim.start_soon(run()); }

  // Knobs (probabilities of ready per cycle, memory latency in cycles).
  double mem_ready = 1.0;
  unsigned lat_min = 1;
  unsigned lat_max = 1;
  double se_ready = 1.0;
  double te_ready = 1.0;
  double ge_ready = 1.0;
  double err_ready = 1.0;
  // When set, an activated context is freed a random 1..auto_finish cycles later.
  unsigned auto_finish = 0;

  Task<> reset() {
    dut_.rst_ni = 0;
    dut_.enable_i = 1;
    dut_.soft_reset_i = 0;
    dut_.hdq_post_i = 0;
    dut_.sdq_base_i = 0;
    dut_.sdq_size_i = 0;
    dut_.sdq_prod_i = 0;
    dut_.rd_req_ready_i = 0;
    dut_.rd_rsp_valid_i = 0;
    dut_.ctx_active_i = 0;
    dut_.act_se_ready_i = 1;
    dut_.act_te_ready_i = 1;
    dut_.act_ge_ready_i = 1;
    dut_.err_ready_i = 1;
    co_await ClockCycles(clk_, 2);
    dut_.rst_ni = 1;
    co_await RisingEdge(clk_);
  }

  // Drives the environment and samples the DUT once per cycle.
  Task<> run() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (;; co_await RisingEdge(clk_)) {
      ++cycle_;
      for (auto it = finish_at_.begin(); it != finish_at_.end();) {
        if (it->second <= cycle_) {
          active_ &= ~(1U << it->first);
          it = finish_at_.erase(it);
        } else {
          ++it;
        }
      }
      dut_.ctx_active_i = active_;
      for (unsigned c = 0; c < kNumCtx; ++c) {
        const bool now = ((active_ >> c) & 1U) != 0;
        if (hist_[c].empty() ? now : hist_[c].back().second != now) {
          hist_[c].emplace_back(cycle_, now);
        }
      }
      dut_.act_se_ready_i = u(rng_) < se_ready ? 1 : 0;
      dut_.act_te_ready_i = u(rng_) < te_ready ? 1 : 0;
      dut_.act_ge_ready_i = u(rng_) < ge_ready ? 1 : 0;
      dut_.err_ready_i = u(rng_) < err_ready ? 1 : 0;
      dut_.rd_req_ready_i = u(rng_) < mem_ready ? 1 : 0;
      const bool rsp = !pend_.empty() && pend_.front().due <= cycle_;
      dut_.rd_rsp_valid_i = rsp ? 1 : 0;
      dut_.rd_rsp_data_i = rsp ? pend_.front().data : 0xDEAD'BEEF'DEAD'BEEFULL;
      dut_.rd_rsp_err_i = rsp && pend_.front().err ? 1 : 0;

      co_await ReadOnly();
      if (dut_.rst_ni == 0) {
        continue;  // nothing transfers while the DUT is in reset
      }
      if (dut_.rd_req_valid_o && dut_.rd_req_ready_i) {
        const std::uint64_t a = dut_.rd_req_addr_o;
        reads_.push_back(a);
        std::uniform_int_distribution<unsigned> lat(lat_min, lat_max);
        const std::uint64_t due = std::max(cycle_ + lat(rng_), last_due_);
        last_due_ = due;
        const bool ok = (a % 8 == 0) && mem_.contains(a) && !poisoned_.contains(a);
        pend_.push_back({due, ok ? mem_.at(a) : 0, !ok});
      }
      if (rsp) {
        TB_CHECK(dut_.rd_rsp_ready_o) << "OF refused a read response";
        pend_.pop_front();
      }
      overflows_ += dut_.intr_hdq_overflow_o;
      dma_intr_ += dut_.intr_dma_error_o;
      fetches_ += dut_.evt_fetch_o;
      TB_CHECK(!(dut_.act_ge_valid_o && (dut_.act_se_valid_o || dut_.act_te_valid_o)))
          << "a descriptor offered to the group engine and to SE/TE";
      if (dut_.act_fire_o) {
        const bool ge = dut_.act_ge_valid_o && dut_.act_ge_ready_i;
        TB_CHECK(ge || (dut_.act_se_valid_o && dut_.act_se_ready_i && dut_.act_te_valid_o &&
                        dut_.act_te_ready_i))
            << "act_fire_o without both handshakes (or the group engine's)";
        outcomes_.push_back(read_act());
        outcomes_.back().cycle = cycle_;
        const unsigned c = dut_.act_ctx_o;
        active_ |= 1U << c;
        if (auto_finish != 0) {
          std::uniform_int_distribution<unsigned> d(1, auto_finish);
          finish_at_[c] = cycle_ + 1 + d(rng_);
        }
      }
      TB_CHECK(!(dut_.act_se_valid_o && dut_.act_se_ready_i) || dut_.act_fire_o)
          << "SE took an activation TE did not";
      TB_CHECK(!(dut_.act_te_valid_o && dut_.act_te_ready_i) || dut_.act_fire_o)
          << "TE took an activation SE did not";
      if (dut_.err_valid_o && dut_.err_ready_i) {
        const std::uint64_t r = dut_.err_rec_o;
        Outcome o;
        o.err = static_cast<ErrCode>(r & 0xFF);
        o.status = static_cast<unsigned>((r >> 8) & 0xFF);
        o.epoch = static_cast<std::uint16_t>(r >> 16);
        o.ctx = static_cast<unsigned>((r >> 32) & 0xFF);
        o.cycle = cycle_;
        outcomes_.push_back(o);
      }
    }
  }

  // HDQ_POST.POST: the window holds `d`, the pulse lasts one cycle. Returns
  // whether OF raised HDQ_OVERFLOW for it.
  Task<bool> post(const BarrierDesc& d) {
    const auto& b = d.bytes();
    for (std::size_t w = 0; w < BarrierDesc::kSizeBytes / 4; ++w) {
      dut_.hdq_desc_i[w] = static_cast<std::uint32_t>(b[4 * w]) |
                           (static_cast<std::uint32_t>(b[4 * w + 1]) << 8U) |
                           (static_cast<std::uint32_t>(b[4 * w + 2]) << 16U) |
                           (static_cast<std::uint32_t>(b[4 * w + 3]) << 24U);
    }
    dut_.hdq_post_i = 1;
    co_await ReadOnly();
    const bool overflow = dut_.intr_hdq_overflow_o;
    TB_CHECK(overflow != static_cast<bool>(dut_.evt_hdq_post_o)) << "a post is queued or dropped";
    // §2: dropped exactly when the HDQ already holds HDQ_DEPTH descriptors.
    TB_CHECK_EQ(overflow, static_cast<bool>(dut_.hdq_full_o))
        << "overflow exactly when the HDQ is full (level "
        << static_cast<unsigned>(dut_.hdq_level_o) << ")";
    co_await RisingEdge(clk_);
    dut_.hdq_post_i = 0;
    co_return overflow;
  }

  // SDQ ring in memory: every slot readable (zeroed) unless poisoned.
  void sdq_setup(std::uint64_t base, unsigned size) {
    base_ = base;
    for (std::uint64_t a = base; a < base + size * kSlotBytes; a += 8) {
      mem_[a] = 0;
    }
    dut_.sdq_base_i = base;
    dut_.sdq_size_i = static_cast<SData>(size);
  }
  void sdq_put(unsigned slot, const BarrierDesc& d) {
    for (unsigned w = 0; w < kDescWords; ++w) {
      mem_[base_ + slot * kSlotBytes + 8ULL * w] = desc_word(d, w);
    }
  }
  void poison(std::uint64_t addr, bool on) {
    if (on) {
      poisoned_.insert(addr);
    } else {
      poisoned_.erase(addr);
    }
  }
  void ring(unsigned prod) { dut_.sdq_prod_i = static_cast<SData>(prod); }
  [[nodiscard]] unsigned cons() const { return dut_.sdq_cons_o; }

  // A hard reset of the whole engine: the memory forgets the reads in
  // flight, SE's contexts go idle, nothing seen is pending.
  void hard_reset() {
    pend_.clear();
    active_ = 0;
    finish_at_.clear();
    outcomes_.clear();
    reads_.clear();
  }

  // The context's descriptor finished (SE's ctx_active drops at the next edge).
  void finish(unsigned c) { finish_at_[c] = cycle_ + 1; }
  [[nodiscard]] bool active(unsigned c) const { return ((active_ >> c) & 1U) != 0; }

  // Whether SE showed context c active at some cycle of [from, to], and at
  // every cycle of it.
  struct Busy {
    bool any;
    bool all;
  };
  [[nodiscard]] Busy busy_in(unsigned c, std::uint64_t from, std::uint64_t to) const {
    bool at_from = false;
    Busy b{false, true};
    for (const auto& [cyc, on] : hist_[c]) {
      if (cyc <= from) {
        at_from = on;
      } else if (cyc <= to) {
        b.any = b.any || on;
        b.all = b.all && on;
      }
    }
    b.any = b.any || at_from;
    b.all = b.all && at_from;
    return b;
  }

  // Waits for the next outcome.
  Task<Outcome> next(unsigned max_cycles = 400) {
    for (unsigned waited = 0; outcomes_.empty(); ++waited) {
      TB_CHECK(waited < max_cycles) << "OF produced no outcome within " << max_cycles << " cycles";
      co_await RisingEdge(clk_);
    }
    Outcome o = outcomes_.front();
    outcomes_.pop_front();
    co_return o;
  }
  // n cycles with no new outcome.
  Task<> expect_quiet(unsigned n, const std::string& why) {
    for (unsigned i = 0; i < n; ++i) {
      co_await RisingEdge(clk_);
      TB_CHECK(outcomes_.empty()) << why << ": unexpected outcome (err "
                                  << err_name(outcomes_.front().err) << ")";
    }
  }

  Task<> expect_err(ErrCode code, unsigned ctx, std::uint16_t epoch, const std::string& rule) {
    const Outcome o = co_await next();
    TB_CHECK(!o.act) << rule << ": activated, expected " << err_name(code);
    TB_CHECK_EQ(err_name(o.err), err_name(code)) << rule;
    TB_CHECK_EQ(o.status, 1U) << rule << ": status DESC_ERROR";
    TB_CHECK_EQ(o.ctx, ctx) << rule << ": raw ctx (§7)";
    TB_CHECK_EQ(o.epoch, epoch) << rule << ": raw epoch (§7)";
  }
  Task<Outcome> expect_act(unsigned ctx, std::uint16_t epoch, const std::string& rule) {
    const Outcome o = co_await next();
    TB_CHECK(o.act) << rule << ": rejected with " << err_name(o.err);
    TB_CHECK_EQ(o.ctx, ctx) << rule;
    TB_CHECK_EQ(o.epoch, epoch) << rule;
    co_return o;
  }

  [[nodiscard]] std::deque<Outcome>& outcomes() { return outcomes_; }
  [[nodiscard]] std::vector<std::uint64_t>& reads() { return reads_; }
  [[nodiscard]] unsigned overflows() const { return overflows_; }
  [[nodiscard]] unsigned dma_intr() const { return dma_intr_; }
  [[nodiscard]] unsigned fetches() const { return fetches_; }
  [[nodiscard]] std::uint64_t cycle() const { return cycle_; }
  [[nodiscard]] bool mem_idle() const { return pend_.empty(); }

 private:
  struct Pending {
    std::uint64_t due;
    std::uint64_t data;
    bool err;
  };

  [[nodiscard]] Outcome read_act() const {
    Outcome o;
    o.act = true;
    o.ctx = dut_.act_ctx_o;
    o.epoch = dut_.act_epoch_o;
    o.rounds = dut_.act_num_rounds_o;
    o.fanout = dut_.act_fanout_o;
    for (unsigned r = 0; r < kMaxRounds; ++r) {
      for (unsigned k = 0; k < kKMax; ++k) {
        const unsigned bit = (r * kKMax + k) * 16;
        o.src[r][k] = static_cast<std::uint16_t>(dut_.act_src_o[bit / 32] >> (bit % 32));
        o.dst[r][k] = static_cast<std::uint16_t>(dut_.act_dst_o[bit / 32] >> (bit % 32));
      }
    }
    // cmpl_info_t: {flag_cmpl_write, flag_cq_entry, flag_irq, addr[63:0], value[63:0]}.
    o.cmpl_value = static_cast<std::uint64_t>(dut_.act_info_o[0]) |
                   (static_cast<std::uint64_t>(dut_.act_info_o[1]) << 32U);
    o.cmpl_addr = static_cast<std::uint64_t>(dut_.act_info_o[2]) |
                  (static_cast<std::uint64_t>(dut_.act_info_o[3]) << 32U);
    o.f_irq = (dut_.act_info_o[4] & 1U) != 0;
    o.f_cq_entry = (dut_.act_info_o[4] & 2U) != 0;
    o.f_cmpl_write = (dut_.act_info_o[4] & 4U) != 0;
    // group_act_t: {comb, mlid, root_lid, member, members}, members in bits 15:0.
    o.group = dut_.act_ge_valid_o && dut_.act_ge_ready_i;
    o.members = static_cast<std::uint16_t>(dut_.act_group_o[0]);
    o.member = static_cast<std::uint16_t>(dut_.act_group_o[0] >> 16U);
    o.root_lid = static_cast<std::uint16_t>(dut_.act_group_o[1]);
    o.mlid = static_cast<std::uint16_t>(dut_.act_group_o[1] >> 16U);
    o.comb = (dut_.act_group_o[2] & 1U) != 0;
    return o;
  }

  Vnic_of& dut_;
  TaskHandle task_;
  Clock& clk_;
  std::mt19937_64& rng_;
  std::uint64_t cycle_ = 0;
  unsigned active_ = 0;
  std::map<unsigned, std::uint64_t> finish_at_;
  std::array<std::vector<std::pair<std::uint64_t, bool>>, kNumCtx> hist_{};
  std::map<std::uint64_t, std::uint64_t> mem_;
  std::set<std::uint64_t> poisoned_;
  std::uint64_t base_ = 0;
  std::deque<Pending> pend_;
  std::uint64_t last_due_ = 0;
  std::deque<Outcome> outcomes_;
  std::vector<std::uint64_t> reads_;
  unsigned overflows_ = 0;
  unsigned dma_intr_ = 0;
  unsigned fetches_ = 0;
};

}  // namespace

// §5 / docs/nic/of.md interface: an activation carries the descriptor's fields;
// slots outside num_rounds x fanout_k are handed on as LID_NONE; the
// completion info goes with it.
SYNCFAB_TEST(nic_of, activation_fields) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  co_await of.reset();
  of.start(ctx.sim());

  BarrierDesc d = good_desc(2, 0xBEEF, 3, 2);
  d.set_round_dst_lid(0, 3, 0xC123);  // slot >= fanout_k: ignored (§3 rule 7)
  d.set_round_src_lid(5, 0, 0x0777);  // round >= num_rounds: ignored
  d.set_round_dst_lid(1, 1, 0);       // LID_NONE in a used slot stays LID_NONE
  d.set_flag_cmpl_write(true).set_flag_cq_entry(true).set_flag_irq(false);
  d.set_cmpl_addr(0x0000'1234'5678'9AB0ULL).set_cmpl_value(0x0123'4567'89AB'CDEFULL);
  TB_CHECK(!co_await of.post(d));
  const Outcome o = co_await of.expect_act(2, 0xBEEF, "valid descriptor");
  TB_CHECK_EQ(o.rounds, 3U);
  TB_CHECK_EQ(o.fanout, 2U);
  for (unsigned r = 0; r < kMaxRounds; ++r) {
    for (unsigned k = 0; k < kKMax; ++k) {
      const bool used = r < 3 && k < 2;
      const auto want_dst = used ? d.round_dst_lid(r, k) : 0;
      const auto want_src = used ? d.round_src_lid(r, k) : 0;
      TB_CHECK_EQ(o.dst[r][k], want_dst) << "dst round " << r << " slot " << k;
      TB_CHECK_EQ(o.src[r][k], want_src) << "src round " << r << " slot " << k;
    }
  }
  TB_CHECK(o.f_cmpl_write && o.f_cq_entry && !o.f_irq) << "flags";
  TB_CHECK_EQ(o.cmpl_addr, 0x0000'1234'5678'9AB0ULL);
  TB_CHECK_EQ(o.cmpl_value, 0x0123'4567'89AB'CDEFULL);
  co_await ClockCycles(clk, 2);
  TB_CHECK(of.active(2)) << "bench: SE marks the context active";

  // §5: num_rounds = 0 is a valid descriptor (TE completes it at once).
  TB_CHECK(!co_await of.post(good_desc(3, 7, 0, 1)));
  const Outcome z = co_await of.expect_act(3, 7, "num_rounds 0");
  TB_CHECK_EQ(z.rounds, 0U);
  TB_CHECK(z.src == Table{} && z.dst == Table{}) << "no used slot when num_rounds = 0";
}

// §3: every error code, each with a later rule failing too, so that the code
// proves the order; the CQ record carries the raw ctx and epoch (§7).
SYNCFAB_TEST(nic_of, validation_order) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  co_await of.reset();
  of.start(ctx.sim());

  struct Case {
    BarrierDesc d;
    ErrCode want;
    const char* rule;
  };
  std::vector<Case> cases;
  auto add = [&](BarrierDesc d, ErrCode want, const char* rule) {
    cases.push_back({d, want, rule});
  };
  BarrierDesc d;
  // Rule 1 before 2: bad opcode and bad version.
  d = good_desc(0, 1);
  d.set_opcode(static_cast<Opcode>(kFirstUnknownOpcode)).set_version(2);
  add(d, ErrCode::kBadOpcode, "rule 1 (opcode 4, also bad version)");
  add(BarrierDesc{}, ErrCode::kBadOpcode, "rule 1 (zeroed descriptor, opcode 0)");
  // Rule 2 before 3.
  d = good_desc(0, 2);
  d.set_version(0).set_ctx(9);
  add(d, ErrCode::kBadVersion, "rule 2 (version 0, also bad ctx)");
  // Rule 3 before 4; raw ctx in the record.
  d = good_desc(kNumCtx, 3);
  d.set_num_rounds(21);
  add(d, ErrCode::kBadContext, "rule 3 (ctx = NumCtx, also 21 rounds)");
  d = good_desc(0xFF, 4);
  add(d, ErrCode::kBadContext, "rule 3 (ctx 255)");
  // Rule 4 before 5.
  d = good_desc(1, 5);
  d.set_num_rounds(21).set_fanout_k(0);
  add(d, ErrCode::kBadRounds, "rule 4 (21 rounds, also fanout 0)");
  d = good_desc(1, 6);
  d.set_num_rounds(0xFF);
  add(d, ErrCode::kBadRounds, "rule 4 (255 rounds)");
  // Rule 5, also with num_rounds = 0 [decided], and before rule 6.
  d = good_desc(1, 7, 0, 1);
  d.set_fanout_k(0);
  add(d, ErrCode::kBadFanout, "rule 5 (fanout 0 with num_rounds 0)");
  d = good_desc(1, 8);
  d.set_fanout_k(kKMax + 1).set_flag_cmpl_write(true).set_cmpl_addr(0);
  add(d, ErrCode::kBadFanout, "rule 5 (fanout K_MAX+1, also bad addr)");
  // Rule 6 before 7.
  d = good_desc(1, 9);
  d.set_flag_cmpl_write(true).set_cmpl_addr(0).set_round_dst_lid(0, 0, 0xC000);
  add(d, ErrCode::kBadAddr, "rule 6 (addr 0, also multicast LID)");
  d = good_desc(1, 10);
  d.set_flag_cmpl_write(true).set_cmpl_addr(0x1004);
  add(d, ErrCode::kBadAddr, "rule 6 (addr mod 8 = 4)");
  // Rule 7: multicast dst / src in a used slot, repeated dst / src in a round.
  d = good_desc(1, 11, 3, 3);
  d.set_round_dst_lid(2, 2, 0xC000);
  add(d, ErrCode::kBadLid, "rule 7 (dst 0xC000 in the last used slot)");
  d = good_desc(1, 12, 3, 3);
  d.set_round_src_lid(1, 0, 0xFFFF);
  add(d, ErrCode::kBadLid, "rule 7 (src 0xFFFF)");
  d = good_desc(1, 13, 3, 3);
  d.set_round_dst_lid(1, 2, d.round_dst_lid(1, 0));
  add(d, ErrCode::kBadLid, "rule 7 (dst repeated in round 1)");
  d = good_desc(1, 14, 3, 4);
  d.set_round_src_lid(2, 3, d.round_src_lid(2, 2));
  add(d, ErrCode::kBadLid, "rule 7 (src repeated in round 2)");

  for (const auto& c : cases) {
    TB_CHECK(!co_await of.post(c.d)) << c.rule;
    co_await of.expect_err(c.want, c.d.ctx(), c.d.epoch(), c.rule);
  }

  // Not errors: rule 6 without the flag; rule 7 skips unused slots, unused
  // rounds, LID_NONE repeats, the same LID as dst and src, and the same LID in
  // two rounds.
  d = good_desc(0, 20, 3, 2);
  d.set_cmpl_addr(0x1003);                                  // no flag_cmpl_write: addr not checked
  d.set_round_dst_lid(0, 2, 0xC000);                        // slot 2 >= fanout 2
  d.set_round_src_lid(3, 0, 0xFFFF);                        // round 3 >= num_rounds 3
  d.set_round_dst_lid(1, 0, 0).set_round_dst_lid(1, 1, 0);  // LID_NONE twice
  d.set_round_src_lid(2, 0, d.round_dst_lid(2, 0));         // dst and src alike
  d.set_round_dst_lid(2, 1, d.round_dst_lid(0, 1));         // same LID, two rounds
  TB_CHECK(!co_await of.post(d));
  (void)co_await of.expect_act(0, 20, "rules 6/7 skip what is not used");

  // Rule 8: ctx 0 is now active. Rule 7 still comes first; then CTX_BUSY; the
  // running descriptor is not disturbed (no activation), and once it has
  // finished the same descriptor is accepted.
  co_await ClockCycles(clk, 2);
  d = good_desc(0, 21);
  d.set_round_src_lid(0, 1, 0xC001);
  TB_CHECK(!co_await of.post(d));
  co_await of.expect_err(ErrCode::kBadLid, 0, 21, "rule 7 before rule 8");
  TB_CHECK(!co_await of.post(good_desc(0, 22)));
  co_await of.expect_err(ErrCode::kCtxBusy, 0, 22, "rule 8 (ctx 0 runs epoch 20)");
  TB_CHECK(of.active(0));
  of.finish(0);
  co_await ClockCycles(clk, 2);
  TB_CHECK(!co_await of.post(good_desc(0, 22)));
  (void)co_await of.expect_act(0, 22, "rule 8 (ctx 0 idle again)");
}

// A group descriptor (docs/group-barrier.md §2): header fields as a good
// BARRIER's, the group fields given, rounds left as good_desc made them
// (ignored).
BarrierDesc group_desc(Opcode op, std::uint8_t ctx, std::uint16_t epoch, std::uint16_t member,
                       std::uint16_t members, std::uint16_t mlid = 0xC001,
                       std::uint16_t root_lid = 0x0105) {
  BarrierDesc d = good_desc(ctx, epoch);
  d.set_opcode(op).set_mlid(mlid).set_root_lid(root_lid).set_member(member).set_members(members);
  return d;
}

// docs/group-barrier.md §2: the group opcodes' validation order (each case
// also fails a later rule), what BARRIER's rules 4/5/7 no longer judge, the
// size limits (MCAST_MAX_MEMBERS, MaxMembers for a root only), CTX_BUSY last,
// and the activation of the group engine alone with the group fields.
SYNCFAB_TEST(nic_of, group_validation) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  co_await of.reset();
  of.start(ctx.sim());
  const Opcode mc = Opcode::kMcastBarrier;
  const Opcode cb = Opcode::kCombBarrier;

  struct Case {
    BarrierDesc d;
    ErrCode want;
    const char* rule;
  };
  std::vector<Case> cases;
  auto add = [&](BarrierDesc d, ErrCode want, const char* rule) {
    cases.push_back({d, want, rule});
  };
  BarrierDesc d;
  d = group_desc(mc, 9, 1, 1, 4);
  d.set_version(0);
  add(d, ErrCode::kBadVersion, "rule 2 (MCAST, version 0, also ctx 9)");
  d = group_desc(cb, kNumCtx, 2, 0, 0);
  d.set_flag_cmpl_write(true).set_cmpl_addr(0);
  add(d, ErrCode::kBadContext, "rule 3 (COMB, ctx = NumCtx, also bad addr and members 0)");
  d = group_desc(mc, 1, 3, 1, 4, 0x0100);
  d.set_flag_cmpl_write(true).set_cmpl_addr(0x1001);
  add(d, ErrCode::kBadAddr, "rule 5 (MCAST, addr mod 8, also mlid < MLID_BASE)");
  add(group_desc(mc, 1, 4, 5, 0, 0xBFFF), ErrCode::kBadLid, "rule 6 (mlid 0xBFFF, also members 0)");
  add(group_desc(cb, 1, 5, 0, 2, 0x0000), ErrCode::kBadLid, "rule 6 (COMB, mlid 0)");
  add(group_desc(mc, 1, 6, 1, 0, 0xC001, 0x0000), ErrCode::kBadLid,
      "rule 6 (MCAST member 1, root_lid 0, also members 0)");
  add(group_desc(mc, 1, 7, 3, 4, 0xC001, 0xC000), ErrCode::kBadLid,
      "rule 6 (MCAST member 3, root_lid multicast)");
  add(group_desc(mc, 1, 8, 0, 0), ErrCode::kBadMembers, "rule 7 (members 0)");
  add(group_desc(cb, 1, 9, 4, 4), ErrCode::kBadMembers, "rule 7 (COMB, member = members)");
  add(group_desc(mc, 1, 10, 9, 4), ErrCode::kBadMembers, "rule 7 (member > members)");
  add(group_desc(mc, 1, 11, 5, 4097), ErrCode::kBadMembers,
      "rule 7 (MCAST, members MCAST_MAX_MEMBERS + 1)");
  add(group_desc(mc, 1, 12, 0, kMaxMembers + 1), ErrCode::kBadMembers,
      "rule 7 (MCAST root, members HW_CFG2.MAX_MEMBERS + 1)");
  for (const auto& c : cases) {
    TB_CHECK(!co_await of.post(c.d)) << c.rule;
    co_await of.expect_err(c.want, c.d.ctx(), c.d.epoch(), c.rule);
  }

  // Accepted: a root ignores root_lid; rounds and fanout are ignored (255
  // rounds, fanout 0, a multicast LID in a slot); a COMB member and a
  // non-root MCAST member have no MaxMembers limit, a COMB group none at all;
  // a root of exactly MaxMembers; a group of one.
  struct Good {
    BarrierDesc d;
    const char* what;
  };
  std::vector<Good> goods;
  d = group_desc(mc, 0, 20, 0, 3, 0xC123, 0x0000);
  d.set_num_rounds(0xFF).set_fanout_k(0).set_round_dst_lid(0, 0, 0xC000);
  d.set_flag_cmpl_write(true).set_cmpl_addr(0x2000).set_cmpl_value(0x77);
  goods.push_back({d, "MCAST root, root_lid 0, rounds ignored"});
  goods.push_back(
      {group_desc(cb, 1, 21, 0xFFFE, 0xFFFF, 0xFFFF, 0x0000), "COMB, members 0xFFFF, root_lid 0"});
  goods.push_back({group_desc(mc, 2, 22, 1, kMaxMembers + 1, 0xC000, 0xBFFF),
                   "MCAST member 1 of MaxMembers + 1, root_lid 0xBFFF"});
  goods.push_back({group_desc(mc, 3, 23, 0, kMaxMembers), "MCAST root of MaxMembers"});
  for (const auto& g : goods) {
    TB_CHECK(!co_await of.post(g.d)) << g.what;
    const Outcome o = co_await of.expect_act(g.d.ctx(), g.d.epoch(), g.what);
    TB_CHECK(o.group) << g.what << ": to the group engine";
    TB_CHECK_EQ(o.comb, g.d.opcode() == cb) << g.what;
    TB_CHECK_EQ(o.mlid, g.d.mlid()) << g.what;
    TB_CHECK_EQ(o.root_lid, g.d.root_lid()) << g.what;
    TB_CHECK_EQ(o.member, g.d.member()) << g.what;
    TB_CHECK_EQ(o.members, g.d.members()) << g.what;
    TB_CHECK_EQ(o.cmpl_value, g.d.cmpl_value()) << g.what << ": completion info";
    TB_CHECK_EQ(o.f_cmpl_write, g.d.flag_cmpl_write()) << g.what;
  }

  // Every context runs now: rule 7 before rule 8, then CTX_BUSY for a group
  // descriptor; after the context finished, a group of one is accepted and
  // a BARRIER still goes to SE and TE.
  co_await ClockCycles(clk, 2);
  TB_CHECK(!co_await of.post(group_desc(cb, 2, 30, 2, 2)));
  co_await of.expect_err(ErrCode::kBadMembers, 2, 30, "rule 7 before rule 8");
  TB_CHECK(!co_await of.post(group_desc(cb, 2, 31, 1, 2)));
  co_await of.expect_err(ErrCode::kCtxBusy, 2, 31, "rule 8 (ctx 2 runs a group barrier)");
  of.finish(2);
  of.finish(3);
  co_await ClockCycles(clk, 2);
  TB_CHECK(!co_await of.post(group_desc(mc, 2, 32, 0, 1)));
  const Outcome one = co_await of.expect_act(2, 32, "a group of one");
  TB_CHECK(one.group && one.members == 1);
  TB_CHECK(!co_await of.post(good_desc(3, 33)));
  const Outcome bar = co_await of.expect_act(3, 33, "BARRIER after group descriptors");
  TB_CHECK(!bar.group) << "a BARRIER goes to SE and TE";
}

// The group engine's ready alone decides a group activation: SE and TE not
// ready do not hold it, and it waits while the group engine is not ready.
SYNCFAB_TEST(nic_of, group_handshake) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  co_await of.reset();
  of.start(ctx.sim());
  of.se_ready = 0.0;
  of.te_ready = 0.0;
  of.ge_ready = 0.0;
  TB_CHECK(!co_await of.post(group_desc(Opcode::kCombBarrier, 1, 5, 1, 3)));
  co_await of.expect_quiet(20, "group engine not ready");
  of.ge_ready = 1.0;
  const Outcome o = co_await of.expect_act(1, 5, "group engine ready, SE and TE not");
  TB_CHECK(o.group && o.comb);
}

// §2: a post while the HDQ holds HDQ_DEPTH descriptors is dropped and sets
// HDQ_OVERFLOW; posting works while CTRL.ENABLE = 0, dispatch does not.
SYNCFAB_TEST(nic_of, hdq_overflow_and_disabled) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  co_await of.reset();
  of.start(ctx.sim());
  dut.enable_i = 0;

  TB_CHECK(!co_await of.post(good_desc(0, 1)));
  TB_CHECK(!co_await of.post(good_desc(1, 2)));
  co_await ReadOnly();
  TB_CHECK_EQ(static_cast<unsigned>(dut.hdq_level_o), kHdqDepth);
  TB_CHECK(dut.hdq_full_o) << "HDQ_POST.FULL";
  TB_CHECK(dut.busy_o) << "STATUS.BUSY while descriptors are queued";
  co_await RisingEdge(clk);
  TB_CHECK(co_await of.post(good_desc(2, 3))) << "§2: third post overflows";
  TB_CHECK(co_await of.post(good_desc(2, 4))) << "§2: and the fourth";
  TB_CHECK_EQ(of.overflows(), 2U) << "one HDQ_OVERFLOW pulse per dropped post";
  co_await of.expect_quiet(30, "§8: no dispatch while disabled");

  dut.enable_i = 1;
  (void)co_await of.expect_act(0, 1, "first queued");
  (void)co_await of.expect_act(1, 2, "second queued (FIFO)");
  co_await of.expect_quiet(30, "the dropped posts never come out");
  co_await ReadOnly();
  TB_CHECK_EQ(static_cast<unsigned>(dut.hdq_level_o), 0U);
  TB_CHECK(!dut.busy_o);
  co_await RisingEdge(clk);
  TB_CHECK(!co_await of.post(good_desc(2, 5))) << "room again";
  (void)co_await of.expect_act(2, 5, "after the overflow");
  TB_CHECK_EQ(of.overflows(), 2U);
}

// §2 SDQ: slot i at SDQ_BASE + i*352, read as 44 words in order; SDQ_CONS
// advances mod SDQ_SIZE per fetched slot; a zeroed slot is BAD_OPCODE; a
// producer index >= SDQ_SIZE fetches nothing; a refused read completes with
// DESC_ERROR / DMA_ERROR, ctx 0, epoch 0 and sets DMA_ERROR. Memory with
// random latency and backpressure.
SYNCFAB_TEST(nic_of, sdq_ring_wrap) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  of.mem_ready = 0.5;
  of.lat_min = 1;
  of.lat_max = 8;
  of.auto_finish = 5;
  co_await of.reset();
  of.start(ctx.sim());

  constexpr std::uint64_t kBase = 0x8000'0000ULL;
  constexpr unsigned kSize = 3;
  of.sdq_setup(kBase, kSize);
  auto expect_reads = [&](unsigned slot, const std::string& what) {
    auto& r = of.reads();
    TB_CHECK(r.size() >= kDescWords) << what << ": " << r.size() << " reads";
    for (unsigned w = 0; w < kDescWords; ++w) {
      TB_CHECK_EQ(r[w], kBase + slot * kSlotBytes + 8ULL * w) << what << " word " << w;
    }
    r.erase(r.begin(), r.begin() + kDescWords);
  };

  of.sdq_put(0, good_desc(0, 100));
  of.sdq_put(1, good_desc(1, 101));
  of.ring(2);
  (void)co_await of.expect_act(0, 100, "slot 0");
  expect_reads(0, "slot 0");
  (void)co_await of.expect_act(1, 101, "slot 1");
  expect_reads(1, "slot 1");
  co_await of.expect_quiet(30, "SDQ_CONS == SDQ_PROD: nothing pending");
  TB_CHECK_EQ(of.cons(), 2U);
  TB_CHECK(of.reads().empty()) << "no fetch past the producer";

  // Wrap: slots 2 and 0 (SDQ_PROD wraps to 1), then slot 1, which is
  // overwritten with zeros to see rule 1 on a zeroed slot.
  of.sdq_put(2, good_desc(2, 102));
  of.sdq_put(0, good_desc(3, 103));
  of.ring(1);
  (void)co_await of.expect_act(2, 102, "slot 2");
  expect_reads(2, "slot 2");
  (void)co_await of.expect_act(3, 103, "slot 0 after the wrap");
  expect_reads(0, "slot 0 after the wrap");
  of.sdq_put(1, BarrierDesc{});
  of.ring(2);
  co_await of.expect_err(ErrCode::kBadOpcode, 0, 0, "§2: a zeroed slot is BAD_OPCODE");
  expect_reads(1, "zeroed slot 1");
  co_await of.expect_quiet(10, "ring empty");
  TB_CHECK_EQ(of.cons(), 2U) << "3 more slots: 2 + 3 mod 3";
  TB_CHECK_EQ(of.fetches(), 5U) << "of.fetch per slot";

  // A producer index >= SDQ_SIZE is a software error: nothing is fetched.
  of.ring(kSize);
  co_await of.expect_quiet(40, "§2: SDQ_PROD >= SDQ_SIZE");
  TB_CHECK(of.reads().empty());
  TB_CHECK_EQ(of.cons(), 2U);
  co_await ReadOnly();
  TB_CHECK(!dut.busy_o) << "nothing pending with SDQ_PROD out of range";
  co_await RisingEdge(clk);

  // A refused read (slot 2, word 5): DMA_ERROR, ctx 0, epoch 0, DMA_ERROR
  // interrupt once; the slot is consumed and the next one runs.
  of.sdq_put(2, good_desc(1, 104));
  of.sdq_put(0, good_desc(2, 105));
  of.poison(kBase + 2 * kSlotBytes + 8ULL * 5, true);
  of.ring(1);
  co_await of.expect_err(ErrCode::kDmaError, 0, 0, "§2: fetch refused");
  expect_reads(2, "refused slot (all 44 words are still read)");
  TB_CHECK_EQ(of.dma_intr(), 1U) << "INTR_STATUS.DMA_ERROR";
  (void)co_await of.expect_act(2, 105, "next slot after the refused one");
  expect_reads(0, "slot 0 after the refused one");
  TB_CHECK_EQ(of.cons(), 1U);

  // SDQ_SIZE = 0 disables the SDQ.
  of.sdq_put(1, good_desc(3, 106));
  dut.sdq_size_i = 0;
  of.ring(2);
  co_await of.expect_quiet(30, "§2: SDQ_SIZE = 0");
  TB_CHECK(of.reads().empty());
}

// §2 [decided]: HDQ and SDQ both with work are served in turn, each FIFO.
// After reset the SDQ goes first (nothing served yet: the HDQ counts as
// served last).
SYNCFAB_TEST(nic_of, round_robin) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  of.auto_finish = 3;
  of.lat_max = 3;
  co_await of.reset();
  of.start(ctx.sim());
  dut.enable_i = 0;
  of.sdq_setup(0x4000, 4);
  for (unsigned i = 0; i < 3; ++i) {
    of.sdq_put(i, good_desc(static_cast<std::uint8_t>(i), static_cast<std::uint16_t>(11 + i)));
  }
  of.ring(3);
  TB_CHECK(!co_await of.post(good_desc(3, 1)));
  TB_CHECK(!co_await of.post(good_desc(3, 2)));
  co_await of.expect_quiet(20, "disabled: no fetch, no dispatch");
  TB_CHECK(of.reads().empty()) << "§8: no SDQ fetch while disabled";
  dut.enable_i = 1;
  const std::array<std::uint16_t, 5> order = {11, 1, 12, 2, 13};
  for (const auto e : order) {
    const Outcome o = co_await of.next();
    TB_CHECK(o.act) << "epoch " << e << " rejected: " << err_name(o.err);
    TB_CHECK_EQ(o.epoch, e) << "round-robin order";
  }
}

// Activation: SE and TE take it in the same cycle; OF waits for both, and
// the error port waits for the completion unit; nothing presented changes
// while it waits (the RTL asserts stability too).
SYNCFAB_TEST(nic_of, handshakes) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  co_await of.reset();
  of.start(ctx.sim());
  of.se_ready = 0.0;
  TB_CHECK(!co_await of.post(good_desc(1, 30)));
  co_await of.expect_quiet(10, "SE not ready");
  co_await ReadOnly();
  TB_CHECK(dut.act_se_valid_o && !dut.act_te_valid_o) << "TE's valid waits for SE";
  co_await RisingEdge(clk);
  of.se_ready = 1.0;
  of.te_ready = 0.0;
  co_await of.expect_quiet(10, "TE not ready");
  of.te_ready = 1.0;
  (void)co_await of.expect_act(1, 30, "both ready");
  co_await of.expect_quiet(5, "exactly one activation");

  of.err_ready = 0.0;
  TB_CHECK(!co_await of.post(good_desc(1, 31)));  // ctx 1 busy now
  co_await of.expect_quiet(15, "error port not ready");
  co_await ReadOnly();
  TB_CHECK(dut.err_valid_o);
  co_await RisingEdge(clk);
  of.err_ready = 0.5;
  co_await of.expect_err(ErrCode::kCtxBusy, 1, 31, "rule 8 after backpressure");
}

// §8 CTRL.SOFT_RESET: the HDQ and the descriptor in flight are dropped and
// SDQ_CONS goes to 0; reads already requested still get their responses
// (absorbed), then OF runs normally from slot 0.
SYNCFAB_TEST(nic_of, soft_reset) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  OfBench of(dut, clk, ctx.rng());
  of.lat_min = 10;
  of.lat_max = 20;
  of.mem_ready = 0.6;
  co_await of.reset();
  of.start(ctx.sim());
  of.sdq_setup(0x2000, 4);
  of.sdq_put(0, good_desc(0, 40));
  of.sdq_put(1, good_desc(1, 41));
  dut.enable_i = 0;
  TB_CHECK(!co_await of.post(good_desc(2, 50)));
  TB_CHECK(!co_await of.post(good_desc(3, 51)));
  of.ring(2);
  dut.enable_i = 1;
  // SDQ first after reset: wait until the fetch of slot 0 is under way.
  for (unsigned i = 0; i < 200 && of.reads().size() < 10; ++i) {
    co_await RisingEdge(clk);
  }
  TB_CHECK(of.reads().size() >= 10 && of.reads().size() < kDescWords) << "fetch in flight";
  TB_CHECK(!of.mem_idle()) << "responses outstanding";
  dut.enable_i = 0;  // software: disable, then reset, then rewrite the indices
  dut.soft_reset_i = 1;
  co_await RisingEdge(clk);
  dut.soft_reset_i = 0;
  of.ring(0);
  co_await ReadOnly();
  TB_CHECK_EQ(of.cons(), 0U);
  TB_CHECK_EQ(static_cast<unsigned>(dut.hdq_level_o), 0U) << "HDQ emptied";
  co_await RisingEdge(clk);
  for (unsigned i = 0; i < 200 && !of.mem_idle(); ++i) {
    co_await RisingEdge(clk);
  }
  TB_CHECK(of.mem_idle()) << "every read got its response";
  co_await of.expect_quiet(10, "the dropped descriptors never come out");
  co_await ReadOnly();
  TB_CHECK(!dut.busy_o);
  co_await RisingEdge(clk);

  of.reads().clear();
  dut.enable_i = 1;
  of.ring(1);
  (void)co_await of.expect_act(0, 40, "slot 0 again after the reset");
  TB_CHECK_EQ(of.reads().size(), static_cast<std::size_t>(kDescWords));
  TB_CHECK_EQ(of.reads().front(), 0x2000ULL);
  TB_CHECK_EQ(of.cons(), 1U);
}

// Random descriptors (valid, or failing one random rule) through both queues,
// random memory latency/backpressure, random readiness of SE/TE/CQ, contexts
// freed after random delays, HDQ overflows, refused fetches, soft resets and
// hard resets (RandomResets).
// Checks: each queue's outcomes in submission order, one outcome per
// descriptor, the first failing rule's code, CTX_BUSY only when the context was
// active while OF held the descriptor (and activation only when it was not),
// overflow exactly when the HDQ was full.
SYNCFAB_TEST(nic_of, random) {
  auto& dut = ctx.make_dut<Vnic_of>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto ops = ctx.param("ops", 3000);
  OfBench of(dut, clk, rng);
  of.mem_ready = 0.7;
  of.lat_min = 1;
  of.lat_max = 6;
  of.se_ready = 0.8;
  of.te_ready = 0.8;
  of.err_ready = 0.7;
  of.auto_finish = 60;
  co_await of.reset();
  of.start(ctx.sim());

  constexpr unsigned kSize = 4;
  constexpr std::uint64_t kBase = 0x1'0000ULL;
  of.sdq_setup(kBase, kSize);

  Corners cov("nic_of.random");
  std::map<ErrCode, Corners::Id> c_err;
  for (const ErrCode e : {ErrCode::kBadOpcode, ErrCode::kBadVersion, ErrCode::kBadContext,
                          ErrCode::kBadRounds, ErrCode::kBadFanout, ErrCode::kBadAddr,
                          ErrCode::kBadLid, ErrCode::kCtxBusy, ErrCode::kDmaError}) {
    c_err[e] = cov.require("error " + err_name(e), 3);
  }
  const auto c_act = cov.require("activations", 50);
  const auto c_overflow = cov.require("HDQ overflow", 3);
  const auto c_wrap = cov.require("SDQ wrap", 3);
  const auto c_reset = cov.require("soft reset with work queued", 1);
  const auto c_hard_reset = cov.require("hard reset with work queued", 1);
  RandomResets resets(ops, rng);

  struct Sub {
    std::uint16_t epoch;  // unique, never 0 (a DMA error record has epoch 0)
    unsigned ctx;
    ErrCode rule_err;     // first failing rule among 1..7, or kNone
    bool dma;             // the SDQ fetch of this one is refused
    std::uint64_t since;  // cycle it was submitted
  };
  std::deque<Sub> hdq_q;
  std::deque<Sub> sdq_q;
  std::uint16_t next_epoch = 1;
  unsigned prod = 0;
  std::uniform_int_distribution<unsigned> pct(0, 99);

  auto make = [&](unsigned c, std::uint16_t epoch) -> std::pair<BarrierDesc, ErrCode> {
    BarrierDesc d =
        good_desc(static_cast<std::uint8_t>(c), epoch, 1 + pct(rng) % 4, 1 + pct(rng) % kKMax);
    const unsigned rule = pct(rng) < 45 ? 1 + pct(rng) % 7 : 0;
    switch (rule) {
      case 1:
        d.set_opcode(static_cast<Opcode>(kFirstUnknownOpcode + pct(rng)));
        return {d, ErrCode::kBadOpcode};
      case 2:
        d.set_version(static_cast<std::uint8_t>(2 + pct(rng)));
        return {d, ErrCode::kBadVersion};
      case 3:
        d.set_ctx(static_cast<std::uint8_t>(kNumCtx + pct(rng)));
        return {d, ErrCode::kBadContext};
      case 4:
        d.set_num_rounds(static_cast<std::uint8_t>(kMaxRounds + 1 + pct(rng)));
        return {d, ErrCode::kBadRounds};
      case 5:
        d.set_fanout_k(pct(rng) < 50 ? 0 : static_cast<std::uint8_t>(kKMax + 1 + pct(rng)));
        return {d, ErrCode::kBadFanout};
      case 6:
        d.set_flag_cmpl_write(true).set_cmpl_addr(pct(rng) < 50 ? 0 : 0x1000 + 1 + pct(rng) % 7);
        return {d, ErrCode::kBadAddr};
      case 7: {
        const unsigned r = pct(rng) % d.num_rounds();
        const unsigned k = pct(rng) % d.fanout_k();
        if (d.fanout_k() > 1 && pct(rng) < 50) {
          d.set_round_src_lid(r, k, d.round_src_lid(r, (k + 1) % d.fanout_k()));
        } else {
          d.set_round_dst_lid(r, k, static_cast<std::uint16_t>(0xC000 + pct(rng)));
        }
        return {d, ErrCode::kBadLid};
      }
      default:
        break;
    }
    if (pct(rng) < 30) {
      d.set_flag_cmpl_write(true).set_cmpl_addr(0x5000 + 8 * pct(rng));
    }
    return {d, ErrCode::kNone};
  };

  auto check = [&](const Outcome& o, const Sub& s, const char* queue) {
    const std::string what = std::string(queue) + " epoch " + std::to_string(s.epoch);
    if (s.dma) {
      TB_CHECK(!o.act && o.err == ErrCode::kDmaError && o.ctx == 0 && o.epoch == 0)
          << what << ": expected DMA_ERROR";
      cov.hit(c_err[ErrCode::kDmaError]);
      return;
    }
    TB_CHECK_EQ(o.epoch, s.epoch) << what << ": out of order";
    if (s.rule_err != ErrCode::kNone) {
      TB_CHECK(!o.act) << what << ": activated, expected " << err_name(s.rule_err);
      TB_CHECK_EQ(err_name(o.err), err_name(s.rule_err)) << what;
      cov.hit(c_err[s.rule_err]);
      return;
    }
    // Rule 8 against the window [submitted, outcome]: busy throughout =>
    // CTX_BUSY; idle throughout => activation; toggled => either.
    const auto busy = of.busy_in(s.ctx, s.since, o.cycle);
    if (o.act) {
      TB_CHECK(!busy.all) << what << ": activated a context busy throughout";
      cov.hit(c_act);
    } else {
      TB_CHECK_EQ(err_name(o.err), err_name(ErrCode::kCtxBusy)) << what;
      TB_CHECK(busy.any) << what << ": CTX_BUSY on a context idle throughout";
      cov.hit(c_err[ErrCode::kCtxBusy]);
    }
  };

  auto drain_outcomes = [&]() {
    while (!of.outcomes().empty()) {
      const Outcome o = of.outcomes().front();
      of.outcomes().pop_front();
      // The queue is known by the epoch (HDQ and SDQ epochs are both unique).
      if (!o.act && o.err == ErrCode::kDmaError) {
        TB_CHECK(!sdq_q.empty() && sdq_q.front().dma) << "DMA error from nowhere";
        check(o, sdq_q.front(), "SDQ");
        sdq_q.pop_front();
      } else if (!hdq_q.empty() && o.epoch == hdq_q.front().epoch) {
        check(o, hdq_q.front(), "HDQ");
        hdq_q.pop_front();
      } else {
        TB_CHECK(!sdq_q.empty()) << "outcome epoch " << o.epoch << " from no queue";
        check(o, sdq_q.front(), "SDQ");
        sdq_q.pop_front();
      }
    }
  };

  std::uniform_int_distribution<unsigned> permille(0, 999);
  for (std::int64_t op = 0; op < ops; ++op) {
    const unsigned p = permille(rng);
    const unsigned c = pct(rng) % kNumCtx;
    if (resets.step(op) && resets.started()) {
      // Hard reset (rst_ni) mid-traffic: what was taken before it must have
      // come out in order; everything queued is lost.
      drain_outcomes();
      if (!hdq_q.empty() || !sdq_q.empty()) {
        cov.hit(c_hard_reset);
      }
      dut.rst_ni = 0;
      of.hard_reset();
      co_await ClockCycles(clk, 2);
      dut.rst_ni = 1;
      hdq_q.clear();
      sdq_q.clear();
      prod = 0;
      of.ring(0);
      co_await RisingEdge(clk);
      TB_CHECK_EQ(of.cons(), 0U) << "SDQ_CONS after reset";
      continue;
    }
    if (p < 150) {
      const std::uint16_t e = next_epoch++;
      auto [d, err] = make(c, e);
      const bool overflow = co_await of.post(d);  // checked against HDQ_POST.FULL inside
      if (overflow) {
        cov.hit(c_overflow);
      } else {
        hdq_q.push_back({e, c, err, false, of.cycle()});
      }
    } else if (p < 300) {
      // Software keeps one slot free: at most SIZE-1 slots owned by the engine.
      const unsigned owned = (prod + kSize - of.cons()) % kSize;
      if (owned < kSize - 1) {
        const std::uint16_t e = next_epoch++;
        auto [d, err] = make(c, e);
        const bool dma = pct(rng) < 8;
        of.sdq_put(prod, d);
        for (unsigned w = 0; w < kDescWords; ++w) {
          of.poison(kBase + prod * kSlotBytes + 8ULL * w, false);
        }
        if (dma) {
          of.poison(kBase + prod * kSlotBytes + 8ULL * (pct(rng) % kDescWords), true);
        }
        sdq_q.push_back({e, c, err, dma, of.cycle()});
        prod = (prod + 1) % kSize;
        if (prod == 0) {
          cov.hit(c_wrap);
        }
        of.ring(prod);
      }
    } else if (p < 996) {
      const unsigned n = 1 + pct(rng) % 40;
      co_await ClockCycles(clk, n);
    } else {
      // Soft reset: the software sequence disables, resets, rewrites SDQ_PROD.
      if (!hdq_q.empty() || !sdq_q.empty()) {
        cov.hit(c_reset);
      }
      co_await RisingEdge(clk);
      dut.enable_i = 0;
      co_await RisingEdge(clk);
      co_await ReadOnly();
      drain_outcomes();
      co_await RisingEdge(clk);
      dut.soft_reset_i = 1;
      co_await RisingEdge(clk);
      dut.soft_reset_i = 0;
      co_await ReadOnly();
      drain_outcomes();  // taken at the reset edge at the latest
      co_await RisingEdge(clk);
      hdq_q.clear();
      sdq_q.clear();
      prod = 0;
      of.ring(0);
      co_await ClockCycles(clk, 30);  // responses still in flight are absorbed
      TB_CHECK(of.outcomes().empty()) << "an outcome after the soft reset";
      TB_CHECK_EQ(of.cons(), 0U);
      dut.enable_i = 1;
    }
    drain_outcomes();
  }
  // Everything submitted comes out.
  for (unsigned i = 0; i < 20'000 && (!hdq_q.empty() || !sdq_q.empty()); ++i) {
    drain_outcomes();
    co_await RisingEdge(clk);
  }
  TB_CHECK(hdq_q.empty() && sdq_q.empty())
      << hdq_q.size() << " HDQ and " << sdq_q.size() << " SDQ descriptors never came out";
  std::cout << cov.report();
  cov.check();
}
