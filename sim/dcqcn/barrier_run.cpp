#include "barrier_run.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/driver/barrier_schedule.hpp>
#include <syncfab/hw/nic_regs.hpp>

namespace syncfab::sim::dcqcn {

namespace nic = hw::nic;

BarrierRun::BarrierRun(std::span<model::BarrierEngine* const> engines, unsigned prio,
                       unsigned fanout, hw::BusAddr flag_addr)
    : engines_(engines.begin(), engines.end()), fanout_(fanout), flag_addr_(flag_addr) {
  if (prio >= fmt::kNumPrio) {
    throw std::invalid_argument("barrier priority " + std::to_string(prio) + " is not below " +
                                std::to_string(fmt::kNumPrio));
  }
  for (auto* e : engines_) {
    lids_.push_back(e->config().lid);
    // NET_CFG only while the engine is disabled (docs/nic/programming.md).
    e->csr_write(nic::CTRL.offset, 0);
    e->csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(prio));
    e->csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  }
  // Refuses a fan-out the schedule cannot take before any cycle runs.
  (void)driver::build_barrier_schedule(0, static_cast<std::uint32_t>(engines_.size()), fanout_);
}

void BarrierRun::before_step(bool may_post) {
  poll();
  if (may_post && !running_) {
    post();
  }
}

void BarrierRun::poll() {
  if (!running_) {
    return;
  }
  const std::size_t index = posted_ - 1;
  std::uint64_t last = 0;
  for (const auto* e : engines_) {
    const auto& c = e->completions();
    if (c.size() <= index) {
      return;
    }
    last = std::max(last, c[index].cycle);
  }
  for (const auto* e : engines_) {
    failed_ += e->completions()[index].status != fmt::CqStatus::kOk ? 1 : 0;
  }
  running_ = false;
  done_.push_back(BarrierRecord{posted_at_, last - posted_at_});
}

void BarrierRun::post() {
  const auto size = static_cast<std::uint32_t>(engines_.size());
  // Epochs 1, 2, ... as a fresh context's (16 bits on the wire, never 0).
  const auto epoch = static_cast<std::uint16_t>(posted_ % 0xFFFF + 1);
  for (std::uint32_t r = 0; r < size; ++r) {
    const auto sched = driver::build_barrier_schedule(r, size, fanout_);
    driver::BarrierCompletion how;
    how.write = true;
    how.addr = flag_addr_;
    how.value = epoch;
    how.cq_entry = false;
    const auto words = driver::desc_words(driver::encode_barrier_desc(sched, lids_, 0, epoch, how));
    auto& e = *engines_[r];
    for (std::size_t w = 0; w < words.size(); ++w) {
      e.csr_write(static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w), words[w]);
    }
    e.csr_write(nic::HDQ_POST.offset, nic::HDQ_POST_POST.put(1));
  }
  running_ = true;
  posted_at_ = engines_.front()->cycle();
  ++posted_;
}

}  // namespace syncfab::sim::dcqcn
