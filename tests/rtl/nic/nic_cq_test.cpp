// Directed and random tests of nic_cq (NumCtx=4, RecDepth=2): the completion
// unit of docs/barrier-protocol.md §7 (completion write, CQ entry with phase
// bit and full-ring stall, interrupts, CNT_COMPLETION / CNT_ERROR) and its
// part of §8 (soft reset). Expected writes, entries and pulses are worked out
// by hand from that document (rule named next to each check); the bench's
// scoreboard applies the same rules, written out below, to every record.
//
// The bench plays everything around the unit: OF's activation info, TE's done
// port and OF's error port, a memory with random latency, backpressure and
// refused addresses, and software that consumes the CQ by polling the phase
// bit and writing CQ_TAIL.
#include <Vnic_cq.h>

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
using syncfab::fmt::CqEntry;
using syncfab::fmt::CqStatus;
using syncfab::fmt::ErrCode;

namespace {

constexpr SimTime kPeriod = 10'000;
constexpr unsigned kNumCtx = 4;
constexpr unsigned kRecDepth = 2;  // RecDepth: records queued besides the one in work

struct Rec {
  unsigned ctx = 0;
  std::uint16_t epoch = 0;
  CqStatus status = CqStatus::kOk;
  ErrCode err = ErrCode::kNone;
  bool operator==(const Rec&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Rec& r) {
  return os << "{ctx " << r.ctx << ", epoch " << r.epoch << ", "
            << syncfab::fmt::to_string(r.status) << "/" << syncfab::fmt::to_string(r.err) << "}";
}

struct Info {
  bool cmpl_write = false;
  bool cq_entry = false;
  bool irq = false;
  std::uint64_t addr = 0;
  std::uint64_t value = 0;
};

// cq_rec_t: {ctx[39:32], epoch[31:16], status[15:8], err_code[7:0]}.
std::uint64_t pack(const Rec& r) {
  return (static_cast<std::uint64_t>(r.ctx) << 32U) | (static_cast<std::uint64_t>(r.epoch) << 16U) |
         (static_cast<std::uint64_t>(r.status) << 8U) | static_cast<std::uint64_t>(r.err);
}
Rec unpack(std::uint64_t v) {
  return {static_cast<unsigned>((v >> 32U) & 0xFF), static_cast<std::uint16_t>(v >> 16U),
          static_cast<CqStatus>((v >> 8U) & 0xFF), static_cast<ErrCode>(v & 0xFF)};
}

// The two 64-bit words of a CQ entry (formats.toml cq_entry, little-endian).
std::array<std::uint64_t, 2> entry_words(const Rec& r, bool phase) {
  CqEntry e;
  e.set_ctx(static_cast<std::uint8_t>(r.ctx)).set_status(r.status).set_err_code(r.err);
  e.set_epoch(r.epoch).set_phase(phase);
  std::array<std::uint64_t, 2> w{};
  for (unsigned i = 0; i < 16; ++i) {
    w[i / 8] |= static_cast<std::uint64_t>(e.bytes()[i]) << (8 * (i % 8));
  }
  return w;
}

struct Write {
  std::uint64_t addr;
  std::uint64_t data;
  bool refused;
};

// What one record did, as the unit reported it when it finished.
struct Finished {
  Rec rec;
  bool done = false;
  bool error = false;
  bool dma = false;
  bool cnt_error = false;
  std::vector<Write> writes;  // the writes since the previous record finished
};

class CqBench {
 public:
  CqBench(Vnic_cq& dut, Clock& clk, std::mt19937_64& rng) : dut_(dut), clk_(clk), rng_(rng) {}
  CqBench(const CqBench&) = delete;
  CqBench& operator=(const CqBench&) = delete;
  // run() refers to this bench: it must not outlive it (the simulator may
  // still resume it in the step where the test body returns).
  ~CqBench() { task_.cancel(); }

  void start(Sim& sim) { task_ = sim.start_soon(run()); }

  double mem_ready = 1.0;
  unsigned lat_min = 1;
  unsigned lat_max = 1;

  Task<> reset() {
    dut_.rst_ni = 0;
    dut_.soft_reset_i = 0;
    dut_.cq_base_i = 0;
    dut_.cq_size_i = 0;
    dut_.cq_tail_i = 0;
    dut_.info_valid_i = 0;
    dut_.te_valid_i = 0;
    dut_.of_valid_i = 0;
    dut_.wr_req_ready_i = 0;
    dut_.wr_rsp_valid_i = 0;
    dut_.wr_rsp_err_i = 0;
    co_await ClockCycles(clk_, 2);
    dut_.rst_ni = 1;
    co_await RisingEdge(clk_);
  }

  // Software programs the CQ (CQ_HEAD stays where the engine has it; only a
  // reset moves it) and starts reading at CQ_TAIL = 0.
  void cq_setup(std::uint64_t base, unsigned size) {
    dut_.cq_base_i = base;
    dut_.cq_size_i = static_cast<SData>(size);
    dut_.cq_tail_i = 0;
    base_ = base;
    size_ = size;
    sw_tail_ = 0;
    sw_phase_ = true;
  }
  void refuse(std::uint64_t addr, bool on) {
    if (on) {
      refused_.insert(addr);
    } else {
      refused_.erase(addr);
    }
  }

  // The environment, and a scoreboard that applies §7 to every record.
  Task<> run() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (;; co_await RisingEdge(clk_)) {
      ++cycle_;
      dut_.wr_req_ready_i = u(rng_) < mem_ready ? 1 : 0;
      const bool rsp = !pend_.empty() && pend_.front().first <= cycle_;
      dut_.wr_rsp_valid_i = rsp ? 1 : 0;
      dut_.wr_rsp_err_i = rsp && pend_.front().second ? 1 : 0;

      co_await ReadOnly();
      if (dut_.rst_ni == 0) {
        continue;  // nothing transfers while the DUT is in reset
      }
      if (rsp) {
        TB_CHECK(dut_.wr_rsp_ready_o) << "the unit refused a write response";
        pend_.pop_front();
      }
      if (dut_.wr_req_valid_o && dut_.wr_req_ready_i) {
        const std::uint64_t a = dut_.wr_req_addr_o;
        const std::uint64_t d = dut_.wr_req_data_o;
        const bool bad = (a % 8 != 0) || refused_.contains(a);
        if (!bad) {
          mem_[a] = d;
        }
        cur_writes_.push_back({a, d, bad});
        std::uniform_int_distribution<unsigned> lat(lat_min, lat_max);
        pend_.emplace_back(std::max(cycle_ + lat(rng_), last_due_), bad);
        last_due_ = pend_.back().first;
        // §7 step 2: never write into an unread entry. The slot written is
        // head; the ring is full when (head + 1) mod size == tail.
        if (size_ != 0 && a >= base_ && a < base_ + 16ULL * size_) {
          TB_CHECK_EQ((a - base_) / 16, static_cast<std::uint64_t>(head_))
              << "CQ write off CQ_HEAD";
          TB_CHECK((head_ + 1) % size_ != static_cast<unsigned>(dut_.cq_tail_i))
              << "CQ entry written into a full ring (overwrites unread entry)";
        }
      }
      if (dut_.info_valid_i) {
        info_[dut_.info_ctx_i] = pending_info_;
      }
      // Intake order (the unit's arbitration decides; this is the reference).
      if (dut_.te_valid_i && dut_.te_ready_o) {
        const Rec r = unpack(dut_.te_rec_i);
        intake_.emplace_back(r, r.status == CqStatus::kOk ? info_.at(r.ctx) : Info{});
      }
      if (dut_.of_valid_i && dut_.of_ready_o) {
        intake_.emplace_back(unpack(dut_.of_rec_i), Info{});
      }
      TB_CHECK(!(dut_.te_valid_i && dut_.te_ready_o && dut_.of_valid_i && dut_.of_ready_o))
          << "two records taken in one cycle";
      stalled_ += dut_.cq_stall_o;
      if (dut_.evt_completion_o) {
        Finished f;
        f.rec = unpack(dut_.done_rec_o);
        f.done = dut_.intr_done_o;
        f.error = dut_.intr_error_o;
        f.dma = dut_.intr_dma_error_o;
        f.cnt_error = dut_.evt_error_o;
        f.writes = std::move(cur_writes_);
        cur_writes_.clear();
        score(f);
        finished_.push_back(std::move(f));
      } else {
        TB_CHECK(!dut_.intr_done_o && !dut_.intr_error_o && !dut_.intr_dma_error_o &&
                 !dut_.evt_error_o)
            << "interrupt or counter pulse without a completion";
      }
    }
  }

  // Drives OF's info port for one cycle (what OF hands over on activation).
  Task<> info(unsigned ctx, const Info& i) {
    pending_info_ = i;
    dut_.info_valid_i = 1;
    dut_.info_ctx_i = static_cast<CData>(ctx);
    dut_.info_i[0] = static_cast<std::uint32_t>(i.value);
    dut_.info_i[1] = static_cast<std::uint32_t>(i.value >> 32U);
    dut_.info_i[2] = static_cast<std::uint32_t>(i.addr);
    dut_.info_i[3] = static_cast<std::uint32_t>(i.addr >> 32U);
    dut_.info_i[4] = (i.irq ? 1U : 0U) | (i.cq_entry ? 2U : 0U) | (i.cmpl_write ? 4U : 0U);
    co_await RisingEdge(clk_);
    dut_.info_valid_i = 0;
  }

  // Presents a record on TE's (or OF's) port until the unit takes it.
  Task<> te(const Rec& r, unsigned max_wait = 2000) {
    dut_.te_rec_i = pack(r);
    dut_.te_valid_i = 1;
    for (unsigned w = 0;; ++w) {
      TB_CHECK(w < max_wait) << "TE record " << r << " never taken";
      co_await ReadOnly();
      const bool fire = dut_.te_ready_o && dut_.rst_ni;
      co_await RisingEdge(clk_);
      if (fire) {
        break;
      }
    }
    dut_.te_valid_i = 0;
  }
  Task<> of(const Rec& r, unsigned max_wait = 2000) {
    dut_.of_rec_i = pack(r);
    dut_.of_valid_i = 1;
    for (unsigned w = 0;; ++w) {
      TB_CHECK(w < max_wait) << "OF record " << r << " never taken";
      co_await ReadOnly();
      const bool fire = dut_.of_ready_o && dut_.rst_ni;
      co_await RisingEdge(clk_);
      if (fire) {
        break;
      }
    }
    dut_.of_valid_i = 0;
  }

  // Waits until n records have finished in total.
  Task<> wait_finished(std::size_t n, unsigned max_cycles = 2000) {
    for (unsigned w = 0; finished_.size() < n; ++w) {
      TB_CHECK(w < max_cycles) << "only " << finished_.size() << " of " << n << " records finished";
      co_await RisingEdge(clk_);
    }
  }

  // Software: takes every new CQ entry (phase == expected), advances CQ_TAIL.
  // Returns the entries read.
  std::vector<Rec> sw_poll() {
    std::vector<Rec> got;
    while (size_ != 0) {
      const std::uint64_t a = base_ + 16ULL * sw_tail_;
      const auto w1 = mem_.find(a + 8);
      if (w1 == mem_.end() || ((w1->second >> 63U) != 0) != sw_phase_) {
        break;
      }
      got.push_back(unpack_entry(mem_.at(a)));
      sw_tail_ = (sw_tail_ + 1) % size_;
      if (sw_tail_ == 0) {
        sw_phase_ = !sw_phase_;
      }
      dut_.cq_tail_i = static_cast<SData>(sw_tail_);
    }
    return got;
  }

  // A hard reset of the engine: the memory forgets the writes in flight and
  // software re-zeroes its ring (old phase-1 entries would look new).
  void hard_reset_model() {
    soft_reset_model();
    pend_.clear();
    entries_.clear();
    for (std::uint64_t a = base_; a < base_ + 16ULL * size_; a += 8) {
      mem_.erase(a);
    }
    sw_tail_ = 0;
    sw_phase_ = true;
    dut_.cq_tail_i = 0;
  }

  void soft_reset_model() {
    intake_.clear();
    cur_writes_.clear();
    head_ = 0;
    phase_ = true;
  }

  std::deque<Finished>& finished() { return finished_; }
  std::deque<Rec>& entries() { return entries_; }  // CQ entries the scoreboard expects, in order
  [[nodiscard]] unsigned head() const { return head_; }
  [[nodiscard]] std::uint64_t stalled() const { return stalled_; }
  [[nodiscard]] std::uint64_t wraps() const { return wraps_; }
  [[nodiscard]] bool mem_idle() const { return pend_.empty(); }
  [[nodiscard]] std::size_t intake_left() const { return intake_.size(); }
  [[nodiscard]] std::uint64_t read(std::uint64_t a) const {
    const auto it = mem_.find(a);
    return it == mem_.end() ? 0 : it->second;
  }

 private:
  static Rec unpack_entry(std::uint64_t w0) {
    return {static_cast<unsigned>(w0 & 0xFF), static_cast<std::uint16_t>(w0 >> 32U),
            static_cast<CqStatus>((w0 >> 8U) & 0xFF), static_cast<ErrCode>((w0 >> 16U) & 0xFF)};
  }

  // §7, record by record, in intake order.
  void score(const Finished& f) {
    TB_CHECK(!intake_.empty()) << "a record finished that was never taken";
    auto [rec, inf] = intake_.front();
    intake_.pop_front();
    std::size_t w = 0;
    bool dma = false;
    // Step 1: only OK with flag_cmpl_write writes cmpl_value to cmpl_addr; a
    // refused write makes the record NET_ERROR / DMA_ERROR.
    if (rec.status == CqStatus::kOk && inf.cmpl_write) {
      TB_CHECK(w < f.writes.size()) << rec << ": completion write missing";
      TB_CHECK_EQ(f.writes[w].addr, inf.addr) << rec << ": completion write address";
      TB_CHECK_EQ(f.writes[w].data, inf.value) << rec << ": completion write value";
      if (f.writes[w].refused) {
        rec.status = CqStatus::kNetError;
        rec.err = ErrCode::kDmaError;
        dma = true;
      }
      ++w;
    }
    // Step 2: CQ entry for OK + flag_cq_entry or any error, if CQ_SIZE != 0.
    if (size_ != 0 && (rec.status != CqStatus::kOk || inf.cq_entry)) {
      const auto words = entry_words(rec, phase_);
      for (unsigned i = 0; i < 2; ++i) {
        TB_CHECK(w < f.writes.size()) << rec << ": CQ entry word " << i << " missing";
        TB_CHECK_EQ(f.writes[w].addr, base_ + 16ULL * head_ + 8ULL * i)
            << rec << ": CQ entry address";
        TB_CHECK_EQ(f.writes[w].data, words[i]) << rec << ": CQ entry word " << i;
        dma = dma || f.writes[w].refused;
        ++w;
      }
      entries_.push_back(rec);
      head_ = (head_ + 1) % size_;
      if (head_ == 0) {
        phase_ = !phase_;  // the phase flips when CQ_HEAD wraps to 0
        ++wraps_;
      }
    }
    TB_CHECK_EQ(f.writes.size(), w) << rec << ": unexpected extra writes";
    TB_CHECK(f.rec == rec) << "finished " << f.rec << ", expected " << rec;
    // Steps 3 and 4.
    TB_CHECK_EQ(f.done, rec.status == CqStatus::kOk && inf.irq) << rec << ": INTR_STATUS.DONE";
    TB_CHECK_EQ(f.error, rec.status != CqStatus::kOk) << rec << ": INTR_STATUS.ERROR";
    TB_CHECK_EQ(f.dma, dma) << rec << ": INTR_STATUS.DMA_ERROR";
    TB_CHECK_EQ(f.cnt_error, rec.status != CqStatus::kOk) << rec << ": CNT_ERROR";
    TB_CHECK_EQ(static_cast<unsigned>(dut_.cq_head_o), head_) << "CQ_HEAD after " << rec;
  }

  Vnic_cq& dut_;
  TaskHandle task_;
  Clock& clk_;
  std::mt19937_64& rng_;
  std::uint64_t cycle_ = 0;
  std::map<std::uint64_t, std::uint64_t> mem_;
  std::set<std::uint64_t> refused_;
  std::deque<std::pair<std::uint64_t, bool>> pend_;  // response due cycle, err
  std::uint64_t last_due_ = 0;
  std::vector<Write> cur_writes_;
  Info pending_info_;
  std::map<unsigned, Info> info_;
  std::deque<std::pair<Rec, Info>> intake_;
  std::deque<Finished> finished_;
  std::deque<Rec> entries_;
  std::uint64_t base_ = 0;
  unsigned size_ = 0;
  unsigned head_ = 0;
  bool phase_ = true;
  unsigned sw_tail_ = 0;
  bool sw_phase_ = true;
  std::uint64_t stalled_ = 0;
  std::uint64_t wraps_ = 0;
};

constexpr std::uint64_t kCqBase = 0x4000'0000ULL;

Rec ok(unsigned ctx, std::uint16_t epoch) { return {ctx, epoch, CqStatus::kOk, ErrCode::kNone}; }

}  // namespace

// §7 for OK records: the completion write (8 bytes, before the entry), the
// CQ entry with phase 1 on the first pass, DONE only with flag_irq; each flag
// on its own.
SYNCFAB_TEST(nic_cq, ok_records) {
  auto& dut = ctx.make_dut<Vnic_cq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  CqBench cq(dut, clk, ctx.rng());
  co_await cq.reset();
  cq.cq_setup(kCqBase, 8);
  cq.start(ctx.sim());

  co_await cq.info(1, {true, true, true, 0x1000, 0xFEED'FACE'CAFE'BEEFULL});
  co_await cq.te(ok(1, 0x0102));
  co_await cq.wait_finished(1);
  {
    const Finished& f = cq.finished().back();
    TB_CHECK_EQ(f.writes.size(), 3U) << "completion write + 2 entry words";
    TB_CHECK_EQ(f.writes[0].addr, 0x1000ULL) << "step 1 comes first";
    TB_CHECK_EQ(f.writes[0].data, 0xFEED'FACE'CAFE'BEEFULL);
    TB_CHECK_EQ(f.writes[1].addr, kCqBase) << "entry 0 at CQ_BASE";
    TB_CHECK_EQ(f.writes[2].addr, kCqBase + 8) << "phase word last";
    // cq_entry: ctx [7:0], status [15:8], err [23:16], epoch [47:32]; phase bit 127.
    TB_CHECK_EQ(f.writes[1].data, 0x0000'0102'0000'0001ULL);
    TB_CHECK_EQ(f.writes[2].data, 0x8000'0000'0000'0000ULL) << "phase 1 on the first pass";
    TB_CHECK(f.done && !f.error && !f.dma && !f.cnt_error);
  }
  co_await ReadOnly();
  TB_CHECK_EQ(static_cast<unsigned>(dut.cq_head_o), 1U);
  co_await RisingEdge(clk);

  // No flags: nothing written, no interrupt, still counted.
  co_await cq.info(2, {});
  co_await cq.te(ok(2, 7));
  co_await cq.wait_finished(2);
  TB_CHECK(cq.finished().back().writes.empty() && !cq.finished().back().done);
  // flag_irq only.
  co_await cq.info(3, {false, false, true, 0, 0});
  co_await cq.te(ok(3, 8));
  co_await cq.wait_finished(3);
  TB_CHECK(cq.finished().back().writes.empty() && cq.finished().back().done);
  // flag_cq_entry only: entry 1.
  co_await cq.info(0, {false, true, false, 0, 0});
  co_await cq.te(ok(0, 9));
  co_await cq.wait_finished(4);
  TB_CHECK_EQ(cq.finished().back().writes.size(), 2U);
  TB_CHECK_EQ(cq.finished().back().writes[0].addr, kCqBase + 16) << "entry 1";
  // flag_cmpl_write only.
  co_await cq.info(1, {true, false, false, 0x2000, 5});
  co_await cq.te(ok(1, 10));
  co_await cq.wait_finished(5);
  TB_CHECK_EQ(cq.finished().back().writes.size(), 1U);
  TB_CHECK_EQ(cq.read(0x2000), 5ULL);
  co_await ReadOnly();
  TB_CHECK_EQ(static_cast<unsigned>(dut.cq_head_o), 2U);
  TB_CHECK(!dut.busy_o);
}

// §7 for error records: never the completion write, always a CQ entry (flags
// ignored) while CQ_SIZE != 0, ERROR interrupt, CNT_ERROR; raw ctx kept.
SYNCFAB_TEST(nic_cq, error_records) {
  auto& dut = ctx.make_dut<Vnic_cq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  CqBench cq(dut, clk, ctx.rng());
  co_await cq.reset();
  cq.cq_setup(kCqBase, 4);
  cq.start(ctx.sim());

  co_await cq.of({0xC9, 77, CqStatus::kDescError, ErrCode::kBadContext});
  co_await cq.wait_finished(1);
  {
    const Finished& f = cq.finished().back();
    TB_CHECK_EQ(f.writes.size(), 2U) << "error: CQ entry without flag_cq_entry";
    TB_CHECK_EQ(f.writes[0].data, 0x0000'004D'0006'01C9ULL) << "raw ctx 0xC9, epoch 77";
    TB_CHECK(f.error && f.cnt_error && !f.done && !f.dma);
  }
  // TE's retry-limit abort on a context whose descriptor asked for all three:
  // no completion write (it would look like success), no DONE.
  co_await cq.info(2, {true, true, true, 0x3000, 1});
  co_await cq.te({2, 5, CqStatus::kNetError, ErrCode::kRetryLimit});
  co_await cq.wait_finished(2);
  {
    const Finished& f = cq.finished().back();
    TB_CHECK_EQ(f.writes.size(), 2U) << "no completion write for an error";
    TB_CHECK_EQ(f.writes[0].addr, kCqBase + 16);
    TB_CHECK(f.error && !f.done);
  }
  TB_CHECK_EQ(cq.read(0x3000), 0ULL);

  // CQ_SIZE = 0: no entry even for an error; interrupt and count still.
  cq.cq_setup(kCqBase, 0);
  co_await cq.of({1, 3, CqStatus::kDescError, ErrCode::kCtxBusy});
  co_await cq.wait_finished(3);
  TB_CHECK(cq.finished().back().writes.empty());
  TB_CHECK(cq.finished().back().error && cq.finished().back().cnt_error);
}

// §7 step 1: a refused completion write turns the record into NET_ERROR /
// DMA_ERROR: CQ entry (even without flag_cq_entry), ERROR and DMA_ERROR, not
// DONE. A refused CQ entry write sets DMA_ERROR and keeps the status.
SYNCFAB_TEST(nic_cq, refused_writes) {
  auto& dut = ctx.make_dut<Vnic_cq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  CqBench cq(dut, clk, ctx.rng());
  cq.lat_max = 5;
  cq.mem_ready = 0.5;
  co_await cq.reset();
  cq.cq_setup(kCqBase, 4);
  cq.start(ctx.sim());

  cq.refuse(0x5000, true);
  co_await cq.info(1, {true, false, true, 0x5000, 9});
  co_await cq.te(ok(1, 40));
  co_await cq.wait_finished(1);
  {
    const Finished& f = cq.finished().back();
    TB_CHECK(f.rec == (Rec{1, 40, CqStatus::kNetError, ErrCode::kDmaError})) << f.rec;
    TB_CHECK_EQ(f.writes.size(), 3U) << "refused write, then the error entry";
    TB_CHECK(f.writes[0].refused);
    TB_CHECK(f.error && f.dma && f.cnt_error && !f.done);
  }
  cq.refuse(kCqBase + 16 + 8, true);
  co_await cq.info(2, {false, true, true, 0, 0});
  co_await cq.te(ok(2, 41));
  co_await cq.wait_finished(2);
  {
    const Finished& f = cq.finished().back();
    TB_CHECK(f.rec == ok(2, 41)) << "a refused entry write keeps the status";
    TB_CHECK(f.dma && f.done && !f.error);
  }
  co_await ReadOnly();
  TB_CHECK_EQ(static_cast<unsigned>(dut.cq_head_o), 2U) << "the entry slot is used anyway";
}

// §7 step 2: the ring holds CQ_SIZE - 1 entries; while full the unit stalls
// this record and every later one (TE's port backs up), until CQ_TAIL moves;
// the phase is 1 on the first pass, 0 on the second. CQ_SIZE = 1 never has room.
SYNCFAB_TEST(nic_cq, ring_full_and_phase) {
  auto& dut = ctx.make_dut<Vnic_cq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  CqBench cq(dut, clk, ctx.rng());
  co_await cq.reset();
  cq.cq_setup(kCqBase, 4);
  cq.start(ctx.sim());

  for (unsigned c = 0; c < kNumCtx; ++c) {
    co_await cq.info(c, {false, true, false, 0, 0});
  }
  for (unsigned i = 0; i < 3; ++i) {
    co_await cq.te(ok(i, static_cast<std::uint16_t>(100 + i)));
  }
  co_await cq.wait_finished(3);
  TB_CHECK_EQ(cq.head(), 3U);
  // Entry 4 would make head == tail: stall. Entries 5 and 6 queue behind it
  // (RecDepth 2), entry 7 is refused by the port.
  static_assert(kRecDepth == 2, "the steps below queue exactly RecDepth records");
  co_await cq.te(ok(3, 103));
  co_await cq.te(ok(0, 104));
  co_await cq.te(ok(1, 105));
  dut.te_rec_i = pack(ok(2, 106));
  dut.te_valid_i = 1;
  for (unsigned i = 0; i < 30; ++i) {
    co_await ReadOnly();
    TB_CHECK(!dut.te_ready_o) << "§7: later records are held back while the ring is full";
    TB_CHECK(dut.cq_stall_o);
    co_await RisingEdge(clk);
  }
  TB_CHECK_EQ(cq.finished().size(), 3U) << "nothing completes while full";
  TB_CHECK(cq.stalled() >= 30U);
  // Software reads entries 0..2 (phase 1) and moves CQ_TAIL to 3.
  const auto first = cq.sw_poll();
  TB_CHECK_EQ(first.size(), 3U);
  for (unsigned i = 0; i < 3; ++i) {
    TB_CHECK(first[i] == ok(i, static_cast<std::uint16_t>(100 + i))) << first[i];
  }
  for (unsigned w = 0;; ++w) {
    TB_CHECK(w < 100) << "record 106 never taken";
    co_await ReadOnly();
    const bool fire = dut.te_ready_o;
    co_await RisingEdge(clk);
    if (fire) {
      break;
    }
  }
  dut.te_valid_i = 0;
  // 103 at index 3, then head wraps: 104 at 0 and 105 at 1 with phase 0;
  // 106 would fill the ring (head 2 + 1 == tail 3): it stalls.
  co_await cq.wait_finished(6);
  TB_CHECK_EQ(cq.read(kCqBase + 3 * 16ULL + 8) >> 63U, 1ULL) << "index 3: first pass, phase 1";
  TB_CHECK_EQ(cq.read(kCqBase + 0 * 16ULL + 8) >> 63U, 0ULL) << "index 0: second pass, phase 0";
  TB_CHECK_EQ(cq.read(kCqBase + 1 * 16ULL + 8) >> 63U, 0ULL) << "index 1: second pass, phase 0";
  co_await ClockCycles(clk, 20);
  TB_CHECK_EQ(cq.finished().size(), 6U) << "106 waits: ring full again";
  const auto second = cq.sw_poll();
  TB_CHECK_EQ(second.size(), 3U) << "software sees 103, 104, 105 by the phase bit";
  co_await cq.wait_finished(7);
  TB_CHECK_EQ(cq.read(kCqBase + 2 * 16ULL + 8) >> 63U, 0ULL);

  // CQ_SIZE = 1: (head + 1) mod 1 == 0 == tail, always full.
  cq.cq_setup(kCqBase, 1);
  co_await cq.te(ok(2, 200));
  co_await ClockCycles(clk, 40);
  TB_CHECK_EQ(cq.finished().size(), 7U) << "CQ_SIZE = 1 is unusable: the record stalls";
  co_await ReadOnly();
  TB_CHECK(dut.cq_stall_o);
}

// Records are completed in the order they were queued; TE and OF offering at
// the same time are taken in turn.
SYNCFAB_TEST(nic_cq, order_and_arbitration) {
  auto& dut = ctx.make_dut<Vnic_cq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  CqBench cq(dut, clk, ctx.rng());
  cq.lat_min = 3;
  cq.lat_max = 3;
  co_await cq.reset();
  cq.cq_setup(kCqBase, 16);
  cq.start(ctx.sim());
  for (unsigned c = 0; c < kNumCtx; ++c) {
    co_await cq.info(c, {false, true, false, 0, 0});
  }
  auto te_seq = [](CqBench& b) -> Task<> {
    for (unsigned i = 0; i < 3; ++i) {
      co_await b.te(ok(i, static_cast<std::uint16_t>(10 + i)));
    }
  };
  auto of_seq = [](CqBench& b) -> Task<> {
    for (unsigned i = 0; i < 3; ++i) {
      co_await b.of(
          {i, static_cast<std::uint16_t>(20 + i), CqStatus::kDescError, ErrCode::kBadLid});
    }
  };
  auto t1 = ctx.sim().start_soon(te_seq(cq));
  auto t2 = ctx.sim().start_soon(of_seq(cq));
  co_await t1;
  co_await t2;
  co_await cq.wait_finished(6);
  // Both offer in the same cycle each time: TE first (after reset), then in turn.
  const std::array<std::uint16_t, 6> order = {10, 20, 11, 21, 12, 22};
  for (unsigned i = 0; i < 6; ++i) {
    TB_CHECK_EQ(cq.finished()[i].rec.epoch, order[i]) << "record " << i;
  }
  const auto seen = cq.sw_poll();
  TB_CHECK_EQ(seen.size(), 6U);
  for (unsigned i = 0; i < 6; ++i) {
    TB_CHECK_EQ(seen[i].epoch, order[i]) << "CQ entry " << i;
  }
}

// §8 CTRL.SOFT_RESET: queued records are dropped, CQ_HEAD = 0, phase 1; a
// write already presented is still completed on the memory port.
SYNCFAB_TEST(nic_cq, soft_reset) {
  auto& dut = ctx.make_dut<Vnic_cq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  CqBench cq(dut, clk, ctx.rng());
  cq.lat_min = 15;
  cq.lat_max = 15;
  co_await cq.reset();
  cq.cq_setup(kCqBase, 4);
  cq.start(ctx.sim());
  co_await cq.info(0, {false, true, false, 0, 0});
  co_await cq.te(ok(0, 1));
  co_await cq.wait_finished(1);
  co_await cq.of({1, 2, CqStatus::kDescError, ErrCode::kBadLid});
  co_await cq.of({1, 3, CqStatus::kDescError, ErrCode::kBadLid});
  co_await ClockCycles(clk, 3);  // record 2's first entry write is in flight
  dut.soft_reset_i = 1;
  co_await RisingEdge(clk);
  dut.soft_reset_i = 0;
  cq.soft_reset_model();
  cq.cq_setup(kCqBase, 4);  // software rewrites CQ_TAIL = 0
  co_await ReadOnly();
  TB_CHECK_EQ(static_cast<unsigned>(dut.cq_head_o), 0U);
  TB_CHECK(dut.cq_phase_o) << "phase back to 1";
  co_await RisingEdge(clk);
  for (unsigned i = 0; i < 100 && !cq.mem_idle(); ++i) {
    co_await RisingEdge(clk);
  }
  TB_CHECK(cq.mem_idle());
  co_await ClockCycles(clk, 5);
  TB_CHECK_EQ(cq.finished().size(), 1U) << "dropped records never complete";
  co_await ReadOnly();
  TB_CHECK(!dut.busy_o);
  co_await RisingEdge(clk);
  co_await cq.te(ok(0, 4));
  co_await cq.wait_finished(2);
  TB_CHECK_EQ(cq.finished().back().writes.at(0).addr, kCqBase) << "entry 0 again";
  TB_CHECK_EQ(cq.finished().back().writes.at(1).data >> 63U, 1ULL) << "phase 1 again";
}

// Random records from TE (OK, NET_ERROR) and OF (DESC_ERROR) with random
// flags, memory latency/backpressure, refused writes and a software consumer
// that reads the CQ late, and hard resets (RandomResets). The scoreboard
// applies §7 to every record; software must see exactly the expected entries
// in order (an overwritten entry would be missed).
SYNCFAB_TEST(nic_cq, random) {
  auto& dut = ctx.make_dut<Vnic_cq>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto records = ctx.param("records", 2000);
  CqBench cq(dut, clk, rng);
  cq.mem_ready = 0.7;
  cq.lat_min = 1;
  cq.lat_max = 6;
  co_await cq.reset();
  constexpr unsigned kSize = 5;
  cq.cq_setup(kCqBase, kSize);
  cq.start(ctx.sim());

  Corners cov("nic_cq.random");
  const auto c_full = cov.require("ring full (stall)", 5);
  const auto c_wrap = cov.require("phase flip", 5);
  const auto c_refused = cov.require("refused write", 5);
  const auto c_both = cov.require("TE and OF offer together", 5);

  std::uniform_int_distribution<unsigned> pct(0, 99);
  // Per context: 0 idle, 1 active (info given), 2 TE record offered.
  std::array<int, kNumCtx> st{};
  std::uint16_t epoch = 1;
  bool te_busy = false;
  bool of_busy = false;
  std::int64_t sent = 0;

  auto te_send = [](CqBench& b, Rec r, bool& busy, int& ctx_state) -> Task<> {
    co_await b.te(r, 100'000);
    busy = false;
    ctx_state = 0;  // freed when the record is queued (§7)
  };
  auto of_send = [](CqBench& b, Rec r, bool& busy) -> Task<> {
    co_await b.of(r, 100'000);
    busy = false;
  };

  // Software sees an entry once its phase word lands, a few cycles before the
  // record finishes (when the scoreboard expects it): match the two in order.
  std::deque<Rec> sw_seen;
  auto sw_match = [&](const std::vector<Rec>& got) {
    sw_seen.insert(sw_seen.end(), got.begin(), got.end());
    while (!sw_seen.empty() && !cq.entries().empty()) {
      TB_CHECK(sw_seen.front() == cq.entries().front())
          << "software read " << sw_seen.front() << ", expected " << cq.entries().front();
      sw_seen.pop_front();
      cq.entries().pop_front();
    }
  };
  bool was_stalled = false;
  const auto c_reset = cov.require("hard reset with records queued", 1);
  RandomResets resets(records, rng);
  for (std::uint64_t cyc = 0; sent < records || cq.intake_left() != 0 || te_busy || of_busy;
       ++cyc) {
    TB_CHECK(cyc < 2'000'000) << "random run did not finish";
    if (resets.step(sent) && resets.started()) {
      // Hard reset mid-traffic: records taken so far that have not finished
      // are lost; a record still offered is offered again afterwards.
      if (cq.intake_left() != 0) {
        cov.hit(c_reset);
      }
      dut.rst_ni = 0;
      cq.hard_reset_model();
      sw_seen.clear();
      co_await ClockCycles(clk, 2);
      dut.rst_ni = 1;
      co_await RisingEdge(clk);
      continue;
    }
    // Refused completion targets come and go. (A refused CQ write would hide
    // the entry from software for good; refused_writes covers it.)
    if (pct(rng) < 2) {
      cq.refuse(0x9000 + 8 * (pct(rng) % 4), pct(rng) < 50);
    }
    // OF activates an idle context (info), or TE/OF offer a record.
    const unsigned c = pct(rng) % kNumCtx;
    if (sent < records && st.at(c) == 0 && pct(rng) < 20) {
      Info i{pct(rng) < 50, pct(rng) < 70, pct(rng) < 50, 0x9000 + 8ULL * (pct(rng) % 4),
             (static_cast<std::uint64_t>(rng()) << 1U) | 1U};
      co_await cq.info(c, i);
      st.at(c) = 1;
      continue;
    }
    if (sent < records && !te_busy && st.at(c) == 1 && pct(rng) < 30) {
      const Rec r = pct(rng) < 80 ? ok(c, epoch++)
                                  : Rec{c, epoch++, CqStatus::kNetError, ErrCode::kRetryLimit};
      te_busy = true;
      st.at(c) = 2;
      ctx.sim().start_soon(te_send(cq, r, te_busy, st.at(c)));
      ++sent;
    }
    if (sent < records && !of_busy && pct(rng) < 15) {
      const auto code = static_cast<ErrCode>(1 + pct(rng) % 8);
      of_busy = true;
      ctx.sim().start_soon(
          of_send(cq, {pct(rng) % 256, epoch++, CqStatus::kDescError, code}, of_busy));
      ++sent;
    }
    co_await ReadOnly();
    if (dut.te_valid_i && dut.of_valid_i) {
      cov.hit(c_both);
    }
    if (dut.cq_stall_o && !was_stalled) {
      cov.hit(c_full);  // a new stall episode
    }
    was_stalled = dut.cq_stall_o;
    co_await RisingEdge(clk);
    // Software drains the CQ now and then (slowly, so that it fills).
    if (pct(rng) < 3) {
      sw_match(cq.sw_poll());
    }
  }
  co_await ClockCycles(clk, 50);
  sw_match(cq.sw_poll());
  TB_CHECK(sw_seen.empty()) << sw_seen.size() << " entries read that the scoreboard never expected";
  TB_CHECK(cq.entries().empty()) << cq.entries().size() << " expected entries software never saw";
  for (const Finished& f : cq.finished()) {
    for (const Write& w : f.writes) {
      if (w.refused) {
        cov.hit(c_refused);
      }
    }
  }
  cov.hit(c_wrap, cq.wraps());
  std::cout << cov.report();
  cov.check();
}
