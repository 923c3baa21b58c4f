// Opening and closing the NIC, and the barrier contexts on it.
#include "nic_core.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "syncfab/driver/errors.hpp"
#include "syncfab/driver/identity.hpp"
#include "syncfab/hw/hex.hpp"

namespace syncfab::driver::detail {

namespace {

constexpr std::uint32_t kAllCauses =
    hw::nic::INTR_STATUS_DONE.mask | hw::nic::INTR_STATUS_ERROR.mask |
    hw::nic::INTR_STATUS_HDQ_OVERFLOW.mask | hw::nic::INTR_STATUS_DMA_ERROR.mask;
constexpr std::uint32_t kAllEnables =
    hw::nic::INTR_ENABLE_DONE.mask | hw::nic::INTR_ENABLE_ERROR.mask |
    hw::nic::INTR_ENABLE_HDQ_OVERFLOW.mask | hw::nic::INTR_ENABLE_DMA_ERROR.mask;
constexpr hw::BusAddr kRingAlign = 64;
// STATUS reads while a soft reset is in progress before the device is
// declared stuck (each read is a bus transfer: real time passes).
constexpr unsigned kResetPolls = 10'000;

hw::BusAddr align_up(hw::BusAddr a) { return (a + kRingAlign - 1) / kRingAlign * kRingAlign; }

void check_entries(const char* what, std::uint32_t n) {
  if (n < 2 || n > 0xFFFF) {
    throw std::invalid_argument(std::string("Nic: ") + what + " = " + std::to_string(n) +
                                " is out of range 2..65535 (a ring of n holds n - 1)");
  }
}

// The link options against the format's NUM_PRIO and the register fields.
void check_link(const NicOptions& o) {
  static_assert(hw::nic::PFC_CFG_ENABLE.width >= fmt::kNumPrio,
                "PFC_CFG.ENABLE holds NUM_PRIO bits");
  if (o.traffic_class >= fmt::kNumPrio) {
    throw std::invalid_argument("Nic: traffic_class = " + std::to_string(o.traffic_class) +
                                " is out of range 0.." + std::to_string(fmt::kNumPrio - 1) +
                                " (NUM_PRIO priorities)");
  }
  if ((o.pfc_enable >> fmt::kNumPrio) != 0) {
    throw std::invalid_argument(
        "Nic: pfc_enable = " + hw::hex(o.pfc_enable) + " has bits above priority " +
        std::to_string(fmt::kNumPrio - 1) +
        " (one bit per priority, NUM_PRIO = " + std::to_string(fmt::kNumPrio) + ")");
  }
  if (!hw::nic::PFC_CFG_CYC_PER_QUANTUM.fits(o.pfc_cycles_per_quantum)) {
    throw std::invalid_argument("Nic: pfc_cycles_per_quantum = " +
                                std::to_string(o.pfc_cycles_per_quantum) + " is out of range 0.." +
                                std::to_string((1U << hw::nic::PFC_CFG_CYC_PER_QUANTUM.width) - 1) +
                                " (PFC_CFG.CYC_PER_QUANTUM, 0 acts as 1)");
  }
}

bool link_defaults(const NicOptions& o) {
  return o.traffic_class == hw::nic::kNetCfgTcReset &&
         o.pfc_enable == hw::nic::kPfcCfgEnableReset &&
         o.pfc_cycles_per_quantum == hw::nic::kPfcCfgCycPerQuantumReset;
}

// RFC 1982 serial-number order of 16-bit epochs, as the NIC compares them.
bool serial_newer(std::uint16_t a, std::uint16_t b) {
  const auto d = static_cast<std::uint16_t>(a - b);
  return d >= 1 && d <= 0x7FFF;
}

std::string ctx_name(unsigned id) { return "context " + std::to_string(id); }

}  // namespace

NicCore::NicCore(hw::Device& device, hw::DmaMemory& memory, DmaRegion region, NicOptions options)
    : dev_(&device), mem_(&memory), csr_(device), opt_(std::move(options)) {
  check_entries("cq_entries", opt_.cq_entries);
  check_entries("sdq_entries", opt_.sdq_entries);
  if (opt_.poll_interval.count() <= 0) {
    throw std::invalid_argument("Nic: poll_interval must be positive, got " +
                                std::to_string(opt_.poll_interval.count()) + " ns");
  }
  check_link(opt_);
  cq_base_ = align_up(region.base);
  sdq_base_ = align_up(cq_base_ + std::uint64_t{opt_.cq_entries} * fmt::CqEntry::kSizeBytes);
  const hw::BusAddr end =
      sdq_base_ + std::uint64_t{opt_.sdq_entries} * fmt::BarrierDesc::kSizeBytes;
  if (end - region.base > region.bytes) {
    throw std::invalid_argument(
        "Nic: the DMA region of " + std::to_string(region.bytes) + " bytes is too small for a " +
        std::to_string(opt_.cq_entries) + "-entry CQ and a " + std::to_string(opt_.sdq_entries) +
        "-slot SDQ (" + std::to_string(end - region.base) + " bytes with alignment)");
  }

  hw_.identity = check_identity(device);
  // MINOR only adds registers: an older device has no NET_CFG or PFC_CFG,
  // and runs as if they held their reset values.
  const bool link_regs = hw_.identity.minor >= hw::nic::kLinkRegsMinor;
  if (!link_regs && !link_defaults(opt_)) {
    throw DeviceMismatch(
        "device register map " + std::to_string(hw_.identity.major) + "." +
        std::to_string(hw_.identity.minor) + " has no NET_CFG or PFC_CFG (added in " +
        std::to_string(hw::nic::kVersionMajor) + "." + std::to_string(hw::nic::kLinkRegsMinor) +
        "): traffic_class " + std::to_string(opt_.traffic_class) + ", pfc_enable " +
        hw::hex(opt_.pfc_enable) + ", pfc_cycles_per_quantum " +
        std::to_string(opt_.pfc_cycles_per_quantum) +
        " cannot be set; leave them at their defaults");
  }
  const std::uint32_t cfg = csr_.read(hw::nic::HW_CFG);
  hw_.num_ctx = hw::nic::HW_CFG_NUM_CTX.get(cfg);
  hw_.k_max = std::min<unsigned>(hw::nic::HW_CFG_K_MAX.get(cfg), fmt::kKMax);
  hw_.max_rounds = std::min<unsigned>(hw::nic::HW_CFG_MAX_ROUNDS.get(cfg), fmt::kMaxRounds);
  hw_.hdq_depth = hw::nic::HW_CFG_HDQ_DEPTH.get(cfg);
  if (hw_.num_ctx == 0 || hw_.k_max == 0 || hw_.hdq_depth == 0) {
    throw DeviceMismatch("device HW_CFG " + std::to_string(cfg) +
                         " reports no contexts, no fan-out or no HDQ: NUM_CTX " +
                         std::to_string(hw_.num_ctx) + ", K_MAX " + std::to_string(hw_.k_max) +
                         ", HDQ_DEPTH " + std::to_string(hw_.hdq_depth));
  }
  const bool group_regs = hw_.identity.minor >= hw::nic::kGroupRegsMinor;
  if (group_regs) {
    hw_.max_members =
        std::min<unsigned>(csr_.read(hw::nic::HW_CFG2_MAX_MEMBERS), fmt::kMcastMaxMembers);
  } else if (opt_.group_timeout_cycles || opt_.group_retry_limit) {
    throw DeviceMismatch("device register map " + std::to_string(hw_.identity.major) + "." +
                         std::to_string(hw_.identity.minor) + " has no group barriers (added in " +
                         std::to_string(hw::nic::kVersionMajor) + "." +
                         std::to_string(hw::nic::kGroupRegsMinor) +
                         "): group_timeout_cycles and group_retry_limit cannot be set");
  }
  slots_.resize(hw_.num_ctx);

  // Quiet the engine before its rings move (SDQ/CQ registers may only change
  // while ENABLE = 0), and forget whatever an earlier user left in it.
  csr_.write(hw::nic::CTRL, 0);
  soft_reset();
  csr_.write(hw::nic::INTR_ENABLE, 0);
  csr_.write(hw::nic::INTR_STATUS, kAllCauses);

  // A zeroed CQ holds no valid entry: the engine's first pass writes phase 1.
  const std::vector<std::byte> zeros(end - cq_base_);
  mem_->write(cq_base_, zeros);
  csr_.write64(hw::nic::CQ_BASE_LO, hw::nic::CQ_BASE_HI, cq_base_);
  csr_.write(hw::nic::CQ_SIZE, opt_.cq_entries);
  csr_.write(hw::nic::CQ_TAIL, 0);
  csr_.write64(hw::nic::SDQ_BASE_LO, hw::nic::SDQ_BASE_HI, sdq_base_);
  csr_.write(hw::nic::SDQ_SIZE, opt_.sdq_entries);
  csr_.write(hw::nic::SDQ_PROD, 0);
  if (opt_.retry_delay_cycles) {
    csr_.write(hw::nic::RETRY_DELAY, *opt_.retry_delay_cycles);
  }
  if (opt_.retry_limit) {
    csr_.write(hw::nic::RETRY_LIMIT, {{hw::nic::RETRY_LIMIT_LIMIT, *opt_.retry_limit}});
  }
  if (opt_.group_timeout_cycles) {
    csr_.write(hw::nic::GROUP_TIMEOUT, *opt_.group_timeout_cycles);
  }
  if (opt_.group_retry_limit) {
    csr_.write(hw::nic::GROUP_RETRY_LIMIT,
               {{hw::nic::GROUP_RETRY_LIMIT_LIMIT, *opt_.group_retry_limit}});
  }
  // NODE_LID is not the driver's. Then the link: the class every packet
  // leaves on and which pauses from the peer are honoured.
  if (link_regs) {
    csr_.write(hw::nic::NET_CFG, {{hw::nic::NET_CFG_TC, opt_.traffic_class}});
    csr_.write(hw::nic::PFC_CFG, {{hw::nic::PFC_CFG_ENABLE, opt_.pfc_enable},
                                  {hw::nic::PFC_CFG_CYC_PER_QUANTUM, opt_.pfc_cycles_per_quantum}});
  }
  csr_.write(hw::nic::INTR_ENABLE, kAllEnables);
  csr_.write(hw::nic::CTRL, {{hw::nic::CTRL_ENABLE, 1}});
  open_ = true;
}

void NicCore::soft_reset() {
  csr_.write(hw::nic::CTRL, {{hw::nic::CTRL_SOFT_RESET, 1}});
  for (unsigned i = 0; csr_.read(hw::nic::STATUS_RESETTING) != 0; ++i) {
    if (i == kResetPolls) {
      throw std::runtime_error("Nic: STATUS.RESETTING still 1 after " +
                               std::to_string(kResetPolls) + " reads: the soft reset hangs");
    }
  }
  cq_tail_ = 0;
  cq_phase_ = true;
  sdq_prod_ = 0;
  sdq_cons_seen_ = 0;
  hdq_room_known_ = 0;
  window_known_ = false;
}

unsigned NicCore::close() {
  if (!open_) {
    return 0;
  }
  const auto in_flight = [this] {
    return std::count_if(slots_.begin(), slots_.end(),
                         [](const Slot& s) { return s.pending && !s.result; });
  };
  wait_until([&] { return in_flight() == 0; }, opt_.drain_timeout, WaitMode::kPoll);
  const auto abandoned = static_cast<unsigned>(in_flight());
  open_ = false;
  csr_.write(hw::nic::CTRL, 0);
  soft_reset();
  csr_.write(hw::nic::INTR_ENABLE, 0);
  csr_.write(hw::nic::INTR_STATUS, kAllCauses);
  // Detach the rings: the device must not touch the region once it is closed.
  csr_.write(hw::nic::SDQ_SIZE, 0);
  csr_.write(hw::nic::SDQ_PROD, 0);
  csr_.write(hw::nic::CQ_SIZE, 0);
  csr_.write(hw::nic::CQ_TAIL, 0);
  for (auto& s : slots_) {
    s.state = SlotState::kFree;
    s.pending = false;
    s.result.reset();
  }
  return abandoned;
}

void NicCore::require_open(const char* what) const {
  if (!open_) {
    throw std::logic_error(std::string(what) + ": the Nic is closed");
  }
}

NicCore::Slot& NicCore::slot(unsigned id, std::uint64_t gen, const char* what) {
  require_open(what);
  if (id >= slots_.size() || slots_[id].state != SlotState::kOpen || slots_[id].generation != gen) {
    throw std::logic_error(std::string(what) + ": " + ctx_name(id) +
                           " is not open (closed, moved from or never opened)");
  }
  return slots_[id];
}

const NicCore::Slot& NicCore::slot(unsigned id, std::uint64_t gen, const char* what) const {
  return const_cast<NicCore*>(this)->slot(id, gen, what);
}

bool NicCore::context_open(unsigned id, std::uint64_t gen) const noexcept {
  return open_ && id < slots_.size() && slots_[id].state == SlotState::kOpen &&
         slots_[id].generation == gen;
}

std::uint64_t NicCore::open_context(const ContextConfig& cfg) {
  require_open("open_context");
  const std::string who = "open_context(" + ctx_name(cfg.id) + ")";
  if (cfg.id >= hw_.num_ctx) {
    throw std::invalid_argument(who + ": no such context: the device has " +
                                std::to_string(hw_.num_ctx) + " (HW_CFG.NUM_CTX), ids 0.." +
                                std::to_string(hw_.num_ctx - 1));
  }
  Slot& s = slots_[cfg.id];
  if (s.state == SlotState::kClosing) {
    progress();  // its completion may be in the CQ already
  }
  if (s.state == SlotState::kOpen) {
    throw std::invalid_argument(who + ": the context is already open");
  }
  if (s.state == SlotState::kClosing) {
    throw std::logic_error(who + ": the barrier of epoch " + std::to_string(s.epoch) +
                           " of the communicator closed on this id is still running on the NIC");
  }
  if (cfg.group) {
    return open_group_context(cfg, who);
  }
  if (cfg.fanout > hw_.k_max && cfg.fanout <= kBarrierMaxFanout) {
    throw std::invalid_argument(who + ": fan-out k = " + std::to_string(cfg.fanout) +
                                " exceeds the device's K_MAX " + std::to_string(hw_.k_max) +
                                " (HW_CFG.K_MAX)");
  }
  BarrierSchedule sched;
  fmt::BarrierDesc templ;
  try {
    sched = build_barrier_schedule(cfg.rank, cfg.size, cfg.fanout);
    if (sched.rounds.size() > hw_.max_rounds) {
      throw std::invalid_argument("barrier of " + std::to_string(cfg.size) +
                                  " ranks with fan-out " + std::to_string(cfg.fanout) + " needs " +
                                  std::to_string(sched.rounds.size()) +
                                  " rounds; the device runs at most " +
                                  std::to_string(hw_.max_rounds) + " (HW_CFG.MAX_ROUNDS)");
    }
    templ = encode_barrier_desc(sched, cfg.rank_lids, static_cast<std::uint8_t>(cfg.id), 0,
                                BarrierCompletion{false, 0, 0, true, false});
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(who + ": " + e.what());
  }
  return install_context(cfg, who, std::move(sched), templ);
}

std::uint64_t NicCore::open_group_context(const ContextConfig& cfg, const std::string& who) {
  if (hw_.identity.minor < hw::nic::kGroupRegsMinor) {
    throw DeviceMismatch(who + ": device register map " + std::to_string(hw_.identity.major) + "." +
                         std::to_string(hw_.identity.minor) + " has no group barriers");
  }
  if (cfg.size > 0xFFFFU || cfg.rank >= cfg.size) {
    throw std::invalid_argument(who + ": member " + std::to_string(cfg.rank) + " of " +
                                std::to_string(cfg.size) +
                                " members is out of range (1 .. 65535 members)");
  }
  const GroupTarget& t = *cfg.group;
  const bool mcast = t.kind == GroupBarrierKind::kMulticastRelease;
  if (mcast && cfg.rank == 0 && cfg.size > hw_.max_members) {
    throw std::invalid_argument(who + ": a multicast-release root of " + std::to_string(cfg.size) +
                                " members exceeds the device's " + std::to_string(hw_.max_members) +
                                " (HW_CFG2.MAX_MEMBERS)");
  }
  fmt::BarrierDesc templ;
  try {
    templ = encode_group_desc(
        GroupBarrier{t.kind, t.mlid, t.root_lid, static_cast<std::uint16_t>(cfg.rank),
                     static_cast<std::uint16_t>(cfg.size)},
        static_cast<std::uint8_t>(cfg.id), 0, BarrierCompletion{false, 0, 0, true, false});
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(who + ": " + e.what());
  }
  return install_context(cfg, who, BarrierSchedule{cfg.rank, cfg.size, 0, {}}, templ);
}

std::uint64_t NicCore::install_context(const ContextConfig& cfg, const std::string& who,
                                       BarrierSchedule sched, const fmt::BarrierDesc& templ) {
  Slot& s = slots_[cfg.id];
  const std::uint16_t first =
      cfg.first_epoch.value_or(s.has_last ? static_cast<std::uint16_t>(s.last_epoch + 1) : 1);
  if (s.has_last && !serial_newer(first, s.last_epoch)) {
    throw std::invalid_argument(who + ": first epoch " + std::to_string(first) +
                                " is not newer than epoch " + std::to_string(s.last_epoch) +
                                " last used on this context: the NIC would drop its "
                                "notifications as stale");
  }
  s.state = SlotState::kOpen;
  s.generation = next_generation_++;
  s.schedule = std::move(sched);
  s.templ = templ;
  s.path = cfg.path;
  s.mode = cfg.mode;
  s.epoch = static_cast<std::uint16_t>(first - 1);
  s.pending = false;
  s.result.reset();
  return s.generation;
}

void NicCore::close_context(unsigned id, std::uint64_t gen) noexcept {
  if (!context_open(id, gen)) {
    return;
  }
  Slot& s = slots_[id];
  try {
    if (s.pending && !s.result) {
      wait_until([&] { return s.result.has_value(); }, opt_.drain_timeout, WaitMode::kPoll);
    }
  } catch (...) {  // a closing handle must not throw; the slot stays reserved below
  }
  if (s.pending && !s.result) {
    s.state = SlotState::kClosing;  // dispatch() frees it when the completion arrives
    return;
  }
  s.state = SlotState::kFree;
  s.pending = false;
  s.result.reset();
}

void NicCore::arrive(unsigned id, std::uint64_t gen, std::optional<SubmitPath> path,
                     std::optional<WaitMode> mode) {
  Slot& s = slot(id, gen, "arrive");
  if (s.pending) {
    progress();
    throw std::logic_error(
        "arrive(" + ctx_name(id) + "): the barrier of epoch " + std::to_string(s.epoch) +
        (s.result ? " has completed but was not collected; call test() or wait() first"
                  : " is still pending on the NIC; test() or wait() for it before arrive()"));
  }
  const auto epoch = static_cast<std::uint16_t>(s.epoch + 1);
  const WaitMode m = mode.value_or(s.mode);
  fmt::BarrierDesc d = s.templ;
  d.set_epoch(epoch).set_flag_irq(m == WaitMode::kInterrupt);
  submit(d, path.value_or(s.path));  // QueueFull leaves the epoch unused
  s.epoch = epoch;
  s.has_last = true;
  s.last_epoch = epoch;
  s.pending = true;
  s.pending_mode = m;
  s.result.reset();
}

bool NicCore::collect(Slot& s, unsigned id) {
  if (!s.result) {
    return false;
  }
  const CqRecord r = *s.result;
  s.pending = false;
  s.result.reset();
  if (!r.ok()) {
    throw BarrierError(r);
  }
  (void)id;
  return true;
}

bool NicCore::test(unsigned id, std::uint64_t gen) {
  Slot& s = slot(id, gen, "test");
  if (!s.pending) {
    throw std::logic_error("test(" + ctx_name(id) + "): no barrier pending; arrive() first");
  }
  progress();
  return collect(s, id);
}

bool NicCore::wait(unsigned id, std::uint64_t gen,
                   std::optional<std::chrono::nanoseconds> timeout) {
  Slot& s = slot(id, gen, "wait");
  if (!s.pending) {
    throw std::logic_error("wait(" + ctx_name(id) + "): no barrier pending; arrive() first");
  }
  wait_until([&] { return s.result.has_value(); }, timeout, s.pending_mode);
  return collect(s, id);
}

bool NicCore::pending(unsigned id, std::uint64_t gen) const {
  return slot(id, gen, "pending").pending;
}

std::uint16_t NicCore::epoch(unsigned id, std::uint64_t gen) const {
  return slot(id, gen, "epoch").epoch;
}

const BarrierSchedule& NicCore::schedule(unsigned id, std::uint64_t gen) const {
  return slot(id, gen, "schedule").schedule;
}

fmt::BarrierDesc NicCore::next_descriptor(unsigned id, std::uint64_t gen, WaitMode mode) const {
  const Slot& s = slot(id, gen, "next_descriptor");
  fmt::BarrierDesc d = s.templ;
  d.set_epoch(static_cast<std::uint16_t>(s.epoch + 1)).set_flag_irq(mode == WaitMode::kInterrupt);
  return d;
}

}  // namespace syncfab::driver::detail
