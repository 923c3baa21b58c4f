// The user-space barrier API of libsyncfab: a Nic opened on a Device, and
// barrier contexts on it with a non-blocking arrive() / test() / wait(), in
// the manner of MPI_Ibarrier. Only the Device interface is used, so the same
// code runs on the golden model (model::ModelDevice), the verilated RTL
// (RtlDevice) and any other Device backend.
//
// Time: a Device has no clock; the only call that lets device time pass is
// wait_interrupt(). Every wait here -- polling the completion queue, waiting
// for the interrupt, waiting for queue space, draining on close -- is a loop
// of wait_interrupt() slices, which on a simulated device is what advances
// simulation. Timeouts are device time: exact when NicOptions::clock is set;
// without it a slice that times out counts in full and a wake-up by the
// interrupt line counts as one poll_interval.
//
// Ownership: the Nic is the only user of the device's queues. It keeps a
// copy of what it wrote into the HDQ window and rewrites only the words that
// change, and it caches SDQ_CONS and the HDQ level; anything else writing
// the window or the queue registers behind its back breaks that.
//
// Not thread-safe: one thread drives a Nic and its contexts.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/driver/barrier_errors.hpp"
#include "syncfab/driver/barrier_schedule.hpp"
#include "syncfab/driver/group_desc.hpp"
#include "syncfab/driver/identity.hpp"
#include "syncfab/hw/device.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace syncfab::driver {

namespace detail {
class NicCore;
}

// How a descriptor reaches the NIC: PIO into the HDQ window + HDQ_POST, or a
// slot of the SDQ ring in host memory + the SDQ_PROD doorbell.
enum class SubmitPath : std::uint8_t { kHdq, kSdq };
// How wait() learns of the completion: polling the completion queue's phase
// bit every poll_interval, or sleeping on the interrupt line (the descriptor
// then carries flag_irq and the NIC raises INTR_STATUS.DONE).
enum class WaitMode : std::uint8_t { kPoll, kInterrupt };
// What arrive() does when the chosen queue is full.
enum class QueueFullPolicy : std::uint8_t {
  kWait,   // poll for room up to NicOptions::full_timeout, then QueueFull
  kThrow,  // QueueFull at once
};

// The engine's build-time parameters, from HW_CFG (and the identity words).
struct HwConfig {
  Identity identity;
  unsigned num_ctx = 0;     // HW_CFG.NUM_CTX: context ids 0..num_ctx-1
  unsigned k_max = 0;       // min(HW_CFG.K_MAX, the format's K_MAX)
  unsigned max_rounds = 0;  // min(HW_CFG.MAX_ROUNDS, the format's MAX_ROUNDS)
  unsigned hdq_depth = 0;   // HW_CFG.HDQ_DEPTH
  // HW_CFG2.MAX_MEMBERS: the largest multicast-release group this NIC can
  // root; 0 on a device without group barriers (VERSION.MINOR < 4).
  unsigned max_members = 0;
};

struct NicOptions {
  std::uint32_t sdq_entries = 16;               // SDQ ring slots (holds sdq_entries - 1), 2..65535
  std::uint32_t cq_entries = 64;                // CQ entries (holds cq_entries - 1), 2..65535
  std::chrono::nanoseconds poll_interval{100};  // device time between CQ polls
  QueueFullPolicy on_full = QueueFullPolicy::kWait;
  std::chrono::nanoseconds full_timeout = std::chrono::microseconds(100);
  std::chrono::nanoseconds drain_timeout = std::chrono::microseconds(100);  // close()
  std::optional<std::uint32_t> retry_delay_cycles;  // RETRY_DELAY; unset: keep the device's
  std::optional<std::uint16_t> retry_limit;         // RETRY_LIMIT; unset: keep the device's
  // Group barriers (docs/group-barrier.md): a member re-sends its arrival
  // after group_timeout_cycles without the release (0: never), at most
  // group_retry_limit times (0: forever). Unset: keep the device's.
  std::optional<std::uint32_t> group_timeout_cycles;  // GROUP_TIMEOUT
  std::optional<std::uint16_t> group_retry_limit;     // GROUP_RETRY_LIMIT
  // The link (docs/nic/programming.md "The link: traffic class and PFC"),
  // written into NET_CFG and PFC_CFG at bring-up; the defaults are their
  // reset values. The fabric must run traffic_class lossless (PFC on it in
  // every switch), and the quantum should be the switches'
  // PFC_TIMING.CYC_PER_QUANTUM.
  unsigned traffic_class = hw::nic::kNetCfgTcReset;  // NET_CFG.TC: 0..NUM_PRIO-1
  std::uint32_t pfc_enable =
      hw::nic::kPfcCfgEnableReset;  // PFC_CFG.ENABLE: bit p honours pauses on p
  // PFC_CFG.CYC_PER_QUANTUM: clock cycles per pause quantum, 0..255 (0 acts as 1).
  std::uint32_t pfc_cycles_per_quantum = hw::nic::kPfcCfgCycPerQuantumReset;
  // Device time, for exact timeouts (e.g. model cycle * ns per cycle).
  std::function<std::chrono::nanoseconds()> clock;
};

// Where in DMA memory the Nic puts its rings: [base, base + bytes).
struct DmaRegion {
  hw::BusAddr base = 0;
  std::size_t bytes = 0;
};

// A context that runs a group barrier instead of dissemination
// (docs/group-barrier.md): ContextConfig::rank is the member index and size
// the number of members; fanout and rank_lids are not used.
struct GroupTarget {
  GroupBarrierKind kind = GroupBarrierKind::kSwitchCombined;
  std::uint16_t mlid = 0;      // the group's multicast LID
  std::uint16_t root_lid = 0;  // multicast-release: the LID of rank 0's NIC
  friend bool operator==(const GroupTarget&, const GroupTarget&) = default;
};

struct ContextConfig {
  ContextConfig() = default;
  ContextConfig(unsigned id_, std::uint32_t rank_, std::uint32_t size_, unsigned fanout_,
                std::vector<std::uint16_t> rank_lids_, SubmitPath path_ = SubmitPath::kHdq,
                WaitMode mode_ = WaitMode::kPoll,
                std::optional<std::uint16_t> first_epoch_ = std::nullopt)
      : id(id_),
        rank(rank_),
        size(size_),
        fanout(fanout_),
        rank_lids(std::move(rank_lids_)),
        path(path_),
        mode(mode_),
        first_epoch(first_epoch_) {}

  unsigned id = 0;  // context id, 0..HwConfig::num_ctx-1
  std::uint32_t rank = 0;
  std::uint32_t size = 1;
  unsigned fanout = 2;                   // k of the dissemination schedule
  std::vector<std::uint16_t> rank_lids;  // LID of every rank, rank order
  SubmitPath path = SubmitPath::kHdq;    // default for arrive()
  WaitMode mode = WaitMode::kPoll;       // default for arrive()
  // Epoch of the first barrier. Every rank of the communicator must start at
  // the same epoch. Unset: one after the last epoch this Nic used on the id
  // (1 on a fresh Nic), which agrees across ranks that open the same
  // sequence of communicators on the id.
  std::optional<std::uint16_t> first_epoch;
  std::optional<GroupTarget> group;  // set: a group barrier
};

struct NicStats {
  std::uint64_t hdq_posts = 0;
  std::uint64_t hdq_window_writes = 0;  // PIO words written into the window
  std::uint64_t sdq_posts = 0;
  std::uint64_t cq_entries = 0;   // entries consumed
  std::uint64_t irq_wakeups = 0;  // wait_interrupt() returned true
  std::uint64_t poll_slices = 0;  // wait_interrupt() timed out
  std::uint64_t done_irqs = 0;    // INTR_STATUS causes seen and cleared
  std::uint64_t error_irqs = 0;
  std::uint64_t hdq_overflows = 0;
  std::uint64_t dma_errors = 0;
  std::uint64_t queue_full_waits = 0;  // arrive() found its queue full
  std::uint64_t unclaimed = 0;         // entries no context or raw ticket claimed
};

// A descriptor submitted through Nic::submit_raw_descriptor().
struct RawTicket {
  std::uint64_t id = 0;
};

class BarrierContext;

class Nic {
 public:
  // Checks the identity (DeviceMismatch), reads HW_CFG, disables and soft-
  // resets the engine, puts the completion queue and the SDQ ring in
  // `region` of `memory` (the host side of the device's DMA memory), zeroes
  // them, programs their registers and the link's (NET_CFG, PFC_CFG),
  // enables the interrupt causes and the engine: docs/nic/programming.md
  // "Bring-up", in its order. std::invalid_argument naming the value for bad
  // options or a region too small for the rings. A device whose register
  // map predates the link registers (VERSION.MINOR < 3) is driven only with
  // the link options at their defaults (DeviceMismatch otherwise).
  Nic(hw::Device& device, hw::DmaMemory& memory, DmaRegion region, NicOptions options = {});
  // The whole region of `memory`.
  Nic(hw::Device& device, hw::HostMemory& memory, NicOptions options = {});
  ~Nic();
  Nic(const Nic&) = delete;
  Nic& operator=(const Nic&) = delete;
  Nic(Nic&&) noexcept;
  Nic& operator=(Nic&&) noexcept;

  // Waits up to drain_timeout for barriers still in flight, then disables the
  // engine, soft-resets it, masks its interrupts and detaches the rings, so
  // the device no longer touches the region. Returns the number of barriers
  // abandoned (still running when the drain ran out). Idempotent; the
  // destructor calls it. Contexts still open throw std::logic_error after.
  unsigned close();
  [[nodiscard]] bool is_open() const noexcept;

  [[nodiscard]] const HwConfig& hw() const;
  [[nodiscard]] const NicStats& stats() const;

  // Opens a barrier context: checks the arguments against the format and
  // HW_CFG, builds the rank's schedule and encodes its descriptor once.
  // std::invalid_argument (message names the context and the value): id not
  // below HW_CFG.NUM_CTX, id already open, size 0, rank >= size, k 0 or above
  // K_MAX, more rounds than MAX_ROUNDS (20), a bad rank LID table, a
  // first_epoch the NIC would take as stale. std::logic_error if the id still
  // runs a barrier of an earlier, closed context.
  BarrierContext open_context(const ContextConfig& config);

  // Reads every new completion-queue entry and hands each to its context (or
  // raw ticket). Returns the number of entries consumed. Never waits.
  unsigned progress();

  // Completion entries no context or raw ticket claimed (e.g. an SDQ fetch
  // DMA_ERROR, which carries ctx 0 epoch 0); taking them clears the list.
  std::vector<CqRecord> take_unclaimed();

  // Test hook: submits descriptor words exactly as given (kBarrierDescWords
  // words), bypassing every driver check, so that malformed descriptors can
  // be fed to the device. The completion is matched on the descriptor's ctx
  // and epoch fields (raw tickets before contexts). A descriptor that
  // completes OK without flag_cq_entry never resolves its ticket.
  RawTicket submit_raw_descriptor(std::span<const std::uint32_t> words, SubmitPath path);
  RawTicket submit_raw_descriptor(const fmt::BarrierDesc& desc, SubmitPath path);
  [[nodiscard]] std::optional<CqRecord> raw_result(RawTicket ticket);     // polls once
  CqRecord wait_raw(RawTicket ticket, std::chrono::nanoseconds timeout);  // BarrierTimeout

 private:
  std::shared_ptr<detail::NicCore> core_;
};

// One communicator's barrier on one context. Move-only handle; closing it
// (destructor or close()) frees the context id.
class BarrierContext {
 public:
  BarrierContext() = default;
  ~BarrierContext();
  BarrierContext(const BarrierContext&) = delete;
  BarrierContext& operator=(const BarrierContext&) = delete;
  BarrierContext(BarrierContext&& other) noexcept;
  BarrierContext& operator=(BarrierContext&& other) noexcept;

  // Submits this rank's descriptor with the next epoch, through the
  // context's path (or `path`), completing by polling or by interrupt
  // (`mode`). Returns at once. std::logic_error if the previous barrier has
  // not been collected by test()/wait() (the message says whether it is
  // still running or done but uncollected); QueueFull when the queue has no
  // room (see QueueFullPolicy); nothing is submitted then.
  void arrive();
  void arrive(SubmitPath path);
  void arrive(SubmitPath path, WaitMode mode);

  // Non-blocking: polls the completion queue once. True when the barrier
  // has completed (it is then collected); throws BarrierError if it
  // completed with an error (also collected: the next arrive() may follow).
  // std::logic_error if no barrier is pending.
  bool test();
  // Blocks up to `timeout` of device time, polling or sleeping on the
  // interrupt as the barrier was submitted. True when complete (collected),
  // false on timeout (still pending); BarrierError as test().
  bool wait(std::chrono::nanoseconds timeout);
  // Blocks until the barrier completes (no time limit).
  void wait();
  // arrive() then wait(timeout); BarrierTimeout if it does not complete.
  void barrier(std::chrono::nanoseconds timeout);

  // Closes the context: a barrier still in flight is waited for up to
  // drain_timeout; if it is still running the id stays reserved until its
  // completion arrives. Idempotent.
  void close() noexcept;

  [[nodiscard]] bool is_open() const noexcept;
  [[nodiscard]] unsigned id() const noexcept { return id_; }
  [[nodiscard]] bool pending() const;  // arrived, not yet collected
  // Epoch of the last barrier arrived (the first_epoch - 1 before any).
  [[nodiscard]] std::uint16_t epoch() const;
  // A group barrier's schedule has no rounds: rank and size only.
  [[nodiscard]] const BarrierSchedule& schedule() const;
  // The descriptor arrive() would submit next (tools, tests).
  [[nodiscard]] fmt::BarrierDesc next_descriptor(WaitMode mode) const;

 private:
  friend class Nic;
  BarrierContext(std::shared_ptr<detail::NicCore> core, unsigned id, std::uint64_t generation)
      : core_(std::move(core)), id_(id), generation_(generation) {}

  std::shared_ptr<detail::NicCore> core_;
  unsigned id_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace syncfab::driver
