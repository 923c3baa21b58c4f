// The state behind a Nic and its BarrierContext handles (shared, so a handle
// that outlives its Nic finds it closed instead of dangling).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "syncfab/driver/barrier_desc.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/hw/csr.hpp"

namespace syncfab::driver::detail {

class NicCore {
 public:
  NicCore(hw::Device& device, hw::DmaMemory& memory, DmaRegion region, NicOptions options);

  unsigned close();
  [[nodiscard]] bool is_open() const noexcept { return open_; }
  [[nodiscard]] const HwConfig& hw() const noexcept { return hw_; }
  [[nodiscard]] const NicStats& stats() const noexcept { return stats_; }

  // Returns the generation of the opened slot.
  std::uint64_t open_context(const ContextConfig& cfg);
  std::uint64_t open_group_context(const ContextConfig& cfg, const std::string& who);
  std::uint64_t install_context(const ContextConfig& cfg, const std::string& who,
                                BarrierSchedule sched, const fmt::BarrierDesc& templ);
  void close_context(unsigned id, std::uint64_t gen) noexcept;

  void arrive(unsigned id, std::uint64_t gen, std::optional<SubmitPath> path,
              std::optional<WaitMode> mode);
  bool test(unsigned id, std::uint64_t gen);
  bool wait(unsigned id, std::uint64_t gen, std::optional<std::chrono::nanoseconds> timeout);
  [[nodiscard]] bool pending(unsigned id, std::uint64_t gen) const;
  [[nodiscard]] std::uint16_t epoch(unsigned id, std::uint64_t gen) const;
  [[nodiscard]] const BarrierSchedule& schedule(unsigned id, std::uint64_t gen) const;
  [[nodiscard]] fmt::BarrierDesc next_descriptor(unsigned id, std::uint64_t gen,
                                                 WaitMode mode) const;
  [[nodiscard]] bool context_open(unsigned id, std::uint64_t gen) const noexcept;

  unsigned progress();
  std::vector<CqRecord> take_unclaimed();

  RawTicket submit_raw(const fmt::BarrierDesc& desc, SubmitPath path);
  std::optional<CqRecord> raw_result(RawTicket t);
  CqRecord wait_raw(RawTicket t, std::chrono::nanoseconds timeout);

 private:
  enum class SlotState : std::uint8_t { kFree, kOpen, kClosing };
  struct Slot {
    SlotState state = SlotState::kFree;
    std::uint64_t generation = 0;
    bool has_last = false;  // last_epoch valid: an epoch was used on this id
    std::uint16_t last_epoch = 0;
    // Open communicator.
    BarrierSchedule schedule;
    fmt::BarrierDesc templ;  // encoded once; epoch and flag_irq set per arrive
    SubmitPath path = SubmitPath::kHdq;
    WaitMode mode = WaitMode::kPoll;
    std::uint16_t epoch = 0;  // of the last arrive
    // Barrier in flight: arrived and not yet collected.
    bool pending = false;
    WaitMode pending_mode = WaitMode::kPoll;
    std::optional<CqRecord> result;
  };
  struct RawPending {
    std::uint64_t id;
    std::uint8_t ctx;
    std::uint16_t epoch;
  };
  // Device time accounting of one wait (see nic.hpp, "Time").
  class Budget {
   public:
    Budget(const std::function<std::chrono::nanoseconds()>& clock,
           std::optional<std::chrono::nanoseconds> limit);
    [[nodiscard]] bool expired() const;
    [[nodiscard]] std::chrono::nanoseconds remaining(std::chrono::nanoseconds cap) const;
    void charge(std::chrono::nanoseconds slice, bool woke, std::chrono::nanoseconds poll);

   private:
    [[nodiscard]] std::chrono::nanoseconds elapsed() const;
    const std::function<std::chrono::nanoseconds()>* clock_;
    std::optional<std::chrono::nanoseconds> limit_;
    std::chrono::nanoseconds start_{0};
    std::chrono::nanoseconds estimate_{0};   // without a clock
    std::chrono::nanoseconds timed_out_{0};  // slices that ran in full: a lower bound
  };

  void require_open(const char* what) const;
  Slot& slot(unsigned id, std::uint64_t gen, const char* what);
  const Slot& slot(unsigned id, std::uint64_t gen, const char* what) const;
  // Polls the CQ, then lets up to one slice of device time pass.
  void pass_time(Budget& budget, WaitMode mode);
  // Waits until done() (after a CQ poll) or the budget runs out.
  bool wait_until(const std::function<bool()>& done, std::optional<std::chrono::nanoseconds> limit,
                  WaitMode mode);
  void service_interrupt();
  void dispatch(const CqRecord& r);
  void wait_for_room(SubmitPath path);
  [[nodiscard]] bool has_room(SubmitPath path);
  void submit(const fmt::BarrierDesc& desc, SubmitPath path);
  void post_hdq(const fmt::BarrierDesc& desc);
  void post_sdq(const fmt::BarrierDesc& desc);
  bool collect(Slot& s, unsigned id);
  void soft_reset();

  hw::Device* dev_;
  hw::DmaMemory* mem_;
  hw::Csr csr_;
  NicOptions opt_;
  HwConfig hw_;
  bool open_ = false;
  hw::BusAddr cq_base_ = 0;
  hw::BusAddr sdq_base_ = 0;
  std::uint32_t cq_tail_ = 0;
  bool cq_phase_ = true;
  std::uint32_t sdq_prod_ = 0;
  std::uint32_t sdq_cons_seen_ = 0;  // last SDQ_CONS read
  unsigned hdq_room_known_ = 0;      // posts that surely fit without reading HDQ_POST
  std::array<std::uint32_t, kBarrierDescWords> window_{};  // what the HDQ window holds
  bool window_known_ = false;
  std::vector<Slot> slots_;
  std::uint64_t next_generation_ = 1;
  std::deque<RawPending> raw_pending_;
  std::vector<std::pair<std::uint64_t, CqRecord>> raw_done_;
  std::uint64_t next_raw_ = 1;
  std::vector<CqRecord> unclaimed_;
  NicStats stats_;
};

}  // namespace syncfab::driver::detail
