// The NIC's queues as the driver sees them: submission (HDQ by PIO, SDQ ring
// + doorbell), the completion queue (phase bit), the interrupt causes, and
// letting device time pass while waiting.
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "nic_core.hpp"

namespace syncfab::driver::detail {

using std::chrono::nanoseconds;

// ------------------------------------------------------------------ time

NicCore::Budget::Budget(const std::function<nanoseconds()>& clock, std::optional<nanoseconds> limit)
    : clock_(clock ? &clock : nullptr), limit_(limit) {
  if (clock_ != nullptr) {
    start_ = (*clock_)();
  }
}

nanoseconds NicCore::Budget::elapsed() const {
  if (clock_ == nullptr) {
    return estimate_;
  }
  // Never less than the slices that surely ran in full, so a clock that does
  // not move (a zero-cycle slice) cannot make a wait endless.
  return std::max((*clock_)() - start_, timed_out_);
}

bool NicCore::Budget::expired() const { return limit_ && elapsed() >= *limit_; }

nanoseconds NicCore::Budget::remaining(nanoseconds cap) const {
  return limit_ ? std::min(cap, *limit_ - elapsed()) : cap;
}

void NicCore::Budget::charge(nanoseconds slice, bool woke, nanoseconds poll) {
  if (woke) {
    estimate_ += std::min(slice, poll);
    // At least 1 ns per wake-up, so a line that cannot be cleared ends the
    // wait at its timeout instead of spinning for ever.
    timed_out_ += nanoseconds(1);
  } else {
    estimate_ += slice;
    timed_out_ += slice;
  }
}

void NicCore::pass_time(Budget& budget, WaitMode mode) {
  // Polling sleeps one poll interval; an interrupt wait sleeps as long as it
  // may (in 10 ms pieces when unbounded), woken by the line.
  const nanoseconds cap =
      mode == WaitMode::kPoll ? opt_.poll_interval : nanoseconds(std::chrono::milliseconds(10));
  const nanoseconds slice = std::max(budget.remaining(cap), nanoseconds(1));
  const bool woke = dev_->wait_interrupt(slice);
  if (woke) {
    ++stats_.irq_wakeups;
    service_interrupt();
  } else {
    ++stats_.poll_slices;
  }
  budget.charge(slice, woke, opt_.poll_interval);
}

bool NicCore::wait_until(const std::function<bool()>& done, std::optional<nanoseconds> limit,
                         WaitMode mode) {
  Budget budget(opt_.clock, limit);
  for (;;) {
    progress();
    if (done()) {
      return true;
    }
    if (budget.expired()) {
      return false;
    }
    pass_time(budget, mode);
  }
}

void NicCore::service_interrupt() {
  const std::uint32_t causes = csr_.read(hw::nic::INTR_STATUS);
  if (causes == 0) {
    return;
  }
  // Clear first, then look at the CQ: an entry written after the poll raises
  // a fresh cause instead of being missed.
  csr_.write(hw::nic::INTR_STATUS, causes);
  stats_.done_irqs += hw::nic::INTR_STATUS_DONE.get(causes);
  stats_.error_irqs += hw::nic::INTR_STATUS_ERROR.get(causes);
  stats_.hdq_overflows += hw::nic::INTR_STATUS_HDQ_OVERFLOW.get(causes);
  stats_.dma_errors += hw::nic::INTR_STATUS_DMA_ERROR.get(causes);
}

// -------------------------------------------------------- completion queue

unsigned NicCore::progress() {
  if (!open_) {
    return 0;
  }
  unsigned n = 0;
  // A device that keeps the full rule never has more than cq_entries - 1 new
  // entries; the bound keeps one that does not from trapping the host here.
  while (n < opt_.cq_entries) {
    fmt::CqEntry::Bytes b{};
    mem_->read(cq_base_ + std::uint64_t{cq_tail_} * fmt::CqEntry::kSizeBytes,
               std::as_writable_bytes(std::span(b)));
    const fmt::CqEntry e(b);
    if (e.phase() != cq_phase_) {
      break;
    }
    cq_tail_ = (cq_tail_ + 1) % opt_.cq_entries;
    if (cq_tail_ == 0) {
      cq_phase_ = !cq_phase_;
    }
    ++n;
    dispatch(CqRecord{e.ctx(), e.epoch(), e.status(), e.err_code()});
  }
  if (n != 0) {
    // One tail write for the batch: it frees the ring for a stalled engine.
    csr_.write(hw::nic::CQ_TAIL, cq_tail_);
    stats_.cq_entries += n;
  }
  return n;
}

void NicCore::dispatch(const CqRecord& r) {
  const auto raw = std::find_if(raw_pending_.begin(), raw_pending_.end(), [&](const RawPending& p) {
    return p.ctx == r.ctx && p.epoch == r.epoch;
  });
  if (raw != raw_pending_.end()) {
    raw_done_.emplace_back(raw->id, r);
    raw_pending_.erase(raw);
    return;
  }
  if (r.ctx < slots_.size()) {
    Slot& s = slots_[r.ctx];
    if (s.state != SlotState::kFree && s.pending && !s.result && s.epoch == r.epoch) {
      if (s.state == SlotState::kClosing) {
        s.state = SlotState::kFree;
        s.pending = false;
      } else {
        s.result = r;
      }
      return;
    }
  }
  ++stats_.unclaimed;
  unclaimed_.push_back(r);
}

std::vector<CqRecord> NicCore::take_unclaimed() {
  progress();
  std::vector<CqRecord> out;
  out.swap(unclaimed_);
  return out;
}

// -------------------------------------------------------------- submission

bool NicCore::has_room(SubmitPath path) {
  if (path == SubmitPath::kSdq) {
    const auto next = (sdq_prod_ + 1) % opt_.sdq_entries;
    if (next != sdq_cons_seen_) {
      return true;
    }
    sdq_cons_seen_ = csr_.read(hw::nic::SDQ_CONS_INDEX);
    return next != sdq_cons_seen_;
  }
  // The HDQ only drains behind the driver's back, so room seen once stays.
  if (hdq_room_known_ == 0) {
    const std::uint32_t level = csr_.read(hw::nic::HDQ_POST_LEVEL);
    hdq_room_known_ = level < hw_.hdq_depth ? hw_.hdq_depth - level : 0;
  }
  return hdq_room_known_ != 0;
}

void NicCore::wait_for_room(SubmitPath path) {
  if (has_room(path)) {
    return;
  }
  ++stats_.queue_full_waits;
  const std::string what =
      path == SubmitPath::kHdq
          ? "HDQ full (" + std::to_string(hw_.hdq_depth) + " descriptors, HW_CFG.HDQ_DEPTH)"
          : "SDQ ring full (" + std::to_string(opt_.sdq_entries - 1) + " descriptors in a " +
                std::to_string(opt_.sdq_entries) + "-slot ring)";
  if (opt_.on_full == QueueFullPolicy::kThrow) {
    throw QueueFull(what + "; nothing submitted");
  }
  if (!wait_until([&] { return has_room(path); }, opt_.full_timeout, WaitMode::kPoll)) {
    throw QueueFull(what + " for " + std::to_string(opt_.full_timeout.count()) +
                    " ns of device time; nothing submitted");
  }
}

void NicCore::submit(const fmt::BarrierDesc& desc, SubmitPath path) {
  wait_for_room(path);
  if (path == SubmitPath::kHdq) {
    post_hdq(desc);
  } else {
    post_sdq(desc);
  }
}

void NicCore::post_hdq(const fmt::BarrierDesc& desc) {
  // Successive descriptors of a context differ in a word or two (epoch,
  // flags): only words that differ from what the window holds are written.
  const auto words = desc_words(desc);
  for (std::size_t w = 0; w < words.size(); ++w) {
    if (!window_known_ || window_[w] != words[w]) {
      csr_.write_hdq_window(std::span(&words[w], 1), w);
      window_[w] = words[w];
      ++stats_.hdq_window_writes;
    }
  }
  window_known_ = true;
  csr_.write(hw::nic::HDQ_POST, {{hw::nic::HDQ_POST_POST, 1}});
  --hdq_room_known_;
  ++stats_.hdq_posts;
}

void NicCore::post_sdq(const fmt::BarrierDesc& desc) {
  mem_->write(sdq_base_ + std::uint64_t{sdq_prod_} * fmt::BarrierDesc::kSizeBytes,
              std::as_bytes(std::span(desc.bytes())));
  // The slot must be visible to the device before the doorbell.
  std::atomic_thread_fence(std::memory_order_release);
  sdq_prod_ = (sdq_prod_ + 1) % opt_.sdq_entries;
  csr_.write(hw::nic::SDQ_PROD, {{hw::nic::SDQ_PROD_INDEX, sdq_prod_}});
  ++stats_.sdq_posts;
}

// -------------------------------------------------------------- test hook

RawTicket NicCore::submit_raw(const fmt::BarrierDesc& desc, SubmitPath path) {
  require_open("submit_raw_descriptor");
  submit(desc, path);
  const RawTicket t{next_raw_++};
  raw_pending_.push_back(RawPending{t.id, desc.ctx(), desc.epoch()});
  return t;
}

std::optional<CqRecord> NicCore::raw_result(RawTicket t) {
  progress();
  const auto it = std::find_if(raw_done_.begin(), raw_done_.end(),
                               [&](const auto& d) { return d.first == t.id; });
  if (it == raw_done_.end()) {
    const bool known = std::any_of(raw_pending_.begin(), raw_pending_.end(),
                                   [&](const RawPending& p) { return p.id == t.id; });
    if (!known) {
      throw std::invalid_argument("raw descriptor ticket " + std::to_string(t.id) +
                                  " is unknown or already collected");
    }
    return std::nullopt;
  }
  const CqRecord r = it->second;
  raw_done_.erase(it);
  return r;
}

CqRecord NicCore::wait_raw(RawTicket t, nanoseconds timeout) {
  require_open("wait_raw");
  std::optional<CqRecord> r;
  wait_until([&] { return (r = raw_result(t)).has_value(); }, timeout, WaitMode::kPoll);
  if (!r) {
    throw BarrierTimeout("raw descriptor ticket " + std::to_string(t.id) +
                         ": no completion within " + std::to_string(timeout.count()) +
                         " ns of device time");
  }
  return *r;
}

}  // namespace syncfab::driver::detail
