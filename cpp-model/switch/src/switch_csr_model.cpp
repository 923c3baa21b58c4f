#include "syncfab/model/switch_csr_model.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "syncfab/hw/errors.hpp"
#include "syncfab/model/ecn_controller.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::model {

namespace {

constexpr std::uint32_t kValid = 1U << 31;
constexpr std::uint32_t kLftGroup = 1U << 30;  // docs/switch-ecmp.md: PORT names a port group
constexpr unsigned kGroupTable = 6;

// How software may access a register (switch_csr.rdl's sw properties):
// readable / writable, the bits a write stores, and the reset value.
struct Rule {
  bool readable = false;
  bool writable = false;
  std::uint32_t wmask = 0;
  std::uint32_t reset = 0;
  bool mapped = false;
};

constexpr std::size_t kWords = sizeof(switch_csr_t) / 4;

#define OFF(R) (offsetof(switch_csr_t, R) / 4)

// The register map (switch_csr.rdl) and the format spec must agree on the
// number of priorities: the per-priority arrays are walked with fmt::kNumPrio.
using PortBlock = switch_csr__PORTx__stride80_t;
static_assert(sizeof(switch_csr_t::REMAP) / sizeof(std::uint32_t) == fmt::kNumPrio);
static_assert(sizeof(PortBlock::PFC_THR) / sizeof(std::uint32_t) == fmt::kNumPrio);
static_assert(sizeof(PortBlock::WRED_K) / sizeof(std::uint32_t) == fmt::kNumPrio);
static_assert(sizeof(PortBlock::WEIGHT) / sizeof(std::uint32_t) == fmt::kNumPrio / 2);
static_assert(sizeof(PortBlock::QUANTA) / sizeof(std::uint32_t) == fmt::kNumPrio / 2);
static_assert(sizeof(PortBlock::WRED_P) / sizeof(std::uint32_t) == fmt::kNumPrio / 4);
// WD_STATUS holds one state per priority, and the counter select one kind.
static_assert(fmt::kNumPrio * fmt::kWdStateWidth == SWITCH_CSR__WD_STATUS__STATE_bw);
static_assert(SWITCH_CSR__CNT_SEL__KIND_bw == fmt::kSwCounterWidth);

std::array<Rule, kWords> make_rules() {
  std::array<Rule, kWords> r{};
  const auto ro = [&](std::size_t w, std::uint32_t reset) { r[w] = {true, false, 0, reset, true}; };
  const auto rw = [&](std::size_t w, std::uint32_t mask, std::uint32_t reset) {
    r[w] = {true, true, mask, reset, true};
  };
  const auto wo = [&](std::size_t w) { r[w] = {false, true, 0, 0, true}; };
  ro(OFF(ID), SWITCH_CSR__ID__MAGIC_reset);
  ro(OFF(VERSION), (SWITCH_CSR__VERSION__MAJOR_reset << SWITCH_CSR__VERSION__MAJOR_bp) |
                       (SWITCH_CSR__VERSION__MINOR_reset << SWITCH_CSR__VERSION__MINOR_bp));
  ro(OFF(HW_CFG), 0);
  ro(OFF(TABLE_CFG), 0);
  rw(OFF(SCRATCH), 0xFFFFFFFFU, 0);
  rw(OFF(CTRL), SWITCH_CSR__CTRL__ENABLE_bm, 0);  // CNT_CLEAR is a pulse: reads 0
  rw(OFF(INTR_STATUS), 0, 0);                     // write-1-to-clear, handled apart
  rw(OFF(INTR_ENABLE), 0x1F, 0);
  rw(OFF(PFC_TIMING),
     SWITCH_CSR__PFC_TIMING__CYC_PER_QUANTUM_bm | SWITCH_CSR__PFC_TIMING__REFRESH_bm,
     (SWITCH_CSR__PFC_TIMING__CYC_PER_QUANTUM_reset << SWITCH_CSR__PFC_TIMING__CYC_PER_QUANTUM_bp) |
         (SWITCH_CSR__PFC_TIMING__REFRESH_reset << SWITCH_CSR__PFC_TIMING__REFRESH_bp));
  rw(OFF(WD_DETECT_TIME), SWITCH_CSR__WD_DETECT_TIME__CYCLES_bm,
     SWITCH_CSR__WD_DETECT_TIME__CYCLES_reset);
  rw(OFF(WD_RECOVER_TIME), SWITCH_CSR__WD_RECOVER_TIME__CYCLES_bm,
     SWITCH_CSR__WD_RECOVER_TIME__CYCLES_reset);
  rw(OFF(WD_WINDOW), SWITCH_CSR__WD_WINDOW__CYCLES_bm, SWITCH_CSR__WD_WINDOW__CYCLES_reset);
  rw(OFF(WD_LIMIT), SWITCH_CSR__WD_LIMIT__LIMIT_bm, SWITCH_CSR__WD_LIMIT__LIMIT_reset);
  wo(OFF(WD_REENABLE));
  rw(OFF(REMAP_CTRL), SWITCH_CSR__REMAP_CTRL__ENABLE_bm | SWITCH_CSR__REMAP_CTRL__UPLINK_MASK_bm,
     0);
  for (std::size_t i = 0; i < fmt::kNumPrio; ++i) {
    rw(OFF(REMAP) + i, SWITCH_CSR__REMAPX__NEW_PRIO_bm | SWITCH_CSR__REMAPX__NEW_DSCP_bm, 0);
  }
  rw(OFF(TBL_ADDR), SWITCH_CSR__TBL_ADDR__INDEX_bm | SWITCH_CSR__TBL_ADDR__TABLE_bm, 0);
  rw(OFF(TBL_WDATA), 0xFFFFFFFFU, 0);
  wo(OFF(TBL_CMD));
  ro(OFF(TBL_RDATA), 0);
  ro(OFF(TBL_STATUS), 0);
  rw(OFF(CNT_SEL),
     SWITCH_CSR__CNT_SEL__PORT_bm | SWITCH_CSR__CNT_SEL__PRIO_bm | SWITCH_CSR__CNT_SEL__KIND_bm, 0);
  ro(OFF(CNT_VALUE), 0);
  ro(OFF(WD_STATUS), 0);
  rw(OFF(PORT_UP), SWITCH_CSR__PORT_UP__UP_bm, SWITCH_CSR__PORT_UP__UP_reset);
  ro(OFF(GROUP_SKIPS), 0);
  // Dynamic ECN; refused words are caught in write32 before the mask applies.
  rw(OFF(ECN_DYN_CTRL),
     SWITCH_CSR__ECN_DYN_CTRL__EN_bm | SWITCH_CSR__ECN_DYN_CTRL__WIN_bm |
         SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bm,
     (SWITCH_CSR__ECN_DYN_CTRL__EN_reset << SWITCH_CSR__ECN_DYN_CTRL__EN_bp) |
         (SWITCH_CSR__ECN_DYN_CTRL__WIN_reset << SWITCH_CSR__ECN_DYN_CTRL__WIN_bp) |
         (SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_reset << SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bp));
  rw(OFF(ECN_DYN_TARGET), SWITCH_CSR__ECN_DYN_TARGET__QREF_bm,
     SWITCH_CSR__ECN_DYN_TARGET__QREF_reset << SWITCH_CSR__ECN_DYN_TARGET__QREF_bp);
  rw(OFF(ECN_DYN_PMAX), 0xFFFFFFFFU,
     (SWITCH_CSR__ECN_DYN_PMAX__PLO_reset << SWITCH_CSR__ECN_DYN_PMAX__PLO_bp) |
         (SWITCH_CSR__ECN_DYN_PMAX__PHI_reset << SWITCH_CSR__ECN_DYN_PMAX__PHI_bp) |
         (SWITCH_CSR__ECN_DYN_PMAX__PUP_reset << SWITCH_CSR__ECN_DYN_PMAX__PUP_bp) |
         (SWITCH_CSR__ECN_DYN_PMAX__PDN_reset << SWITCH_CSR__ECN_DYN_PMAX__PDN_bp));
  ro(OFF(ECN_DYN_K), 0);
  ro(OFF(ECN_DYN_STATE), 0);
  using P = PortBlock;
  for (std::size_t port = 0; port < sizeof(switch_csr_t::PORT) / sizeof(P); ++port) {
    const std::size_t base = OFF(PORT) + port * sizeof(P) / 4;
    rw(base + offsetof(P, PFC_EN) / 4, SWITCH_CSR__PORTX__PFC_EN__MASK_bm, 0);
    rw(base + offsetof(P, SCHED) / 4, SWITCH_CSR__PORTX__SCHED__SP_MASK_bm, 0);
    rw(base + offsetof(P, WD_CTRL) / 4,
       SWITCH_CSR__PORTX__WD_CTRL__ENABLE_bm | SWITCH_CSR__PORTX__WD_CTRL__DROP_MODE_bm, 0);
    rw(base + offsetof(P, WRED_EN) / 4, SWITCH_CSR__PORTX__WRED_EN__MASK_bm, 0);
    rw(base + offsetof(P, LOSSY_LIMIT) / 4, SWITCH_CSR__PORTX__LOSSY_LIMIT__LIMIT_bm,
       SWITCH_CSR__PORTX__LOSSY_LIMIT__LIMIT_reset << SWITCH_CSR__PORTX__LOSSY_LIMIT__LIMIT_bp);
    for (std::size_t i = 0; i < fmt::kNumPrio / 2; ++i) {
      rw(base + offsetof(P, WEIGHT) / 4 + i,
         SWITCH_CSR__PORTX__WEIGHTX__W_EVEN_bm | SWITCH_CSR__PORTX__WEIGHTX__W_ODD_bm,
         (SWITCH_CSR__PORTX__WEIGHTX__W_EVEN_reset << SWITCH_CSR__PORTX__WEIGHTX__W_EVEN_bp) |
             (SWITCH_CSR__PORTX__WEIGHTX__W_ODD_reset << SWITCH_CSR__PORTX__WEIGHTX__W_ODD_bp));
      rw(base + offsetof(P, QUANTA) / 4 + i, 0xFFFFFFFFU,
         (SWITCH_CSR__PORTX__QUANTAX__Q_EVEN_reset << SWITCH_CSR__PORTX__QUANTAX__Q_EVEN_bp) |
             (SWITCH_CSR__PORTX__QUANTAX__Q_ODD_reset << SWITCH_CSR__PORTX__QUANTAX__Q_ODD_bp));
    }
    for (std::size_t i = 0; i < fmt::kNumPrio; ++i) {
      rw(base + offsetof(P, PFC_THR) / 4 + i, 0xFFFFFFFFU,
         (SWITCH_CSR__PORTX__PFC_THRX__XOFF_reset << SWITCH_CSR__PORTX__PFC_THRX__XOFF_bp) |
             (SWITCH_CSR__PORTX__PFC_THRX__XON_reset << SWITCH_CSR__PORTX__PFC_THRX__XON_bp));
      rw(base + offsetof(P, WRED_K) / 4 + i, 0xFFFFFFFFU,
         (SWITCH_CSR__PORTX__WRED_KX__KMIN_reset << SWITCH_CSR__PORTX__WRED_KX__KMIN_bp) |
             (SWITCH_CSR__PORTX__WRED_KX__KMAX_reset << SWITCH_CSR__PORTX__WRED_KX__KMAX_bp));
    }
    for (std::size_t i = 0; i < fmt::kNumPrio / 4; ++i) {
      rw(base + offsetof(P, WRED_P) / 4 + i, 0xFFFFFFFFU, 0);
    }
  }
  return r;
}

const std::array<Rule, kWords>& rules() {
  static const std::array<Rule, kWords> r = make_rules();
  return r;
}

std::uint32_t field(std::uint32_t v, std::uint32_t mask, unsigned shift) {
  return (v & mask) >> shift;
}

}  // namespace

SwitchCsrModel::SwitchCsrModel(const SwitchCsrParams& params)
    : params_(params),
      regs_(kWords),
      lft_(params.lft_entries),
      mft_(params.mft_entries),
      groups_(fmt::kPortGroups, 0),
      combine_(params.mft_entries),
      counters_(std::size_t{params.ports} * fmt::kNumPrio * fmt::kSwCounterCount),
      wd_state_(params.ports) {
  for (std::size_t w = 0; w < kWords; ++w) {
    regs_[w] = rules()[w].reset;
  }
  regs_[OFF(HW_CFG)] = (params.ports << SWITCH_CSR__HW_CFG__NUM_PORTS_bp) |
                       (fmt::kNumPrio << SWITCH_CSR__HW_CFG__NUM_PRIO_bp) |
                       (params.buf_cells << SWITCH_CSR__HW_CFG__BUF_CELLS_bp);
  regs_[OFF(TABLE_CFG)] = (params.lft_entries << SWITCH_CSR__TABLE_CFG__LFT_ENTRIES_bp) |
                          (params.mft_entries << SWITCH_CSR__TABLE_CFG__MFT_ENTRIES_bp);
}

std::size_t SwitchCsrModel::index(std::uint32_t offset) const {
  if (offset % 4 != 0 || offset / 4 >= kWords || !rules()[offset / 4].mapped) {
    throw hw::BusError("switch CSR offset " + std::to_string(offset) + " is not mapped");
  }
  return offset / 4;
}

std::uint32_t SwitchCsrModel::read32(std::uint32_t offset) {
  const std::size_t w = index(offset);
  if (!rules()[w].readable) {
    throw hw::BusError("switch CSR offset " + std::to_string(offset) + " is write-only");
  }
  if (w == OFF(GROUP_SKIPS)) {
    return group_skips_;
  }
  if (w == OFF(ECN_DYN_K) || w == OFF(ECN_DYN_STATE)) {
    const std::uint32_t sel = regs_[OFF(CNT_SEL)];
    const unsigned port = field(sel, SWITCH_CSR__CNT_SEL__PORT_bm, SWITCH_CSR__CNT_SEL__PORT_bp);
    const unsigned prio = field(sel, SWITCH_CSR__CNT_SEL__PRIO_bm, SWITCH_CSR__CNT_SEL__PRIO_bp);
    if (port >= params_.ports || !ecn_status_) {
      return 0;
    }
    return ecn_status_(port, prio, w == OFF(ECN_DYN_STATE));
  }
  if (w == OFF(CNT_VALUE) || w == OFF(WD_STATUS)) {
    const std::uint32_t sel = regs_[OFF(CNT_SEL)];
    const unsigned port = field(sel, SWITCH_CSR__CNT_SEL__PORT_bm, SWITCH_CSR__CNT_SEL__PORT_bp);
    const unsigned prio = field(sel, SWITCH_CSR__CNT_SEL__PRIO_bm, SWITCH_CSR__CNT_SEL__PRIO_bp);
    const unsigned kind = field(sel, SWITCH_CSR__CNT_SEL__KIND_bm, SWITCH_CSR__CNT_SEL__KIND_bp);
    if (port >= params_.ports) {
      return 0;
    }
    if (w == OFF(WD_STATUS)) {
      return wd_state_[port];
    }
    return kind < fmt::kSwCounterCount
               ? counters_[(std::size_t{port} * fmt::kNumPrio + prio) * fmt::kSwCounterCount + kind]
               : 0;
  }
  return regs_[w];
}

void SwitchCsrModel::write32(std::uint32_t offset, std::uint32_t value) {
  const std::size_t w = index(offset);
  const Rule& rule = rules()[w];
  if (!rule.writable) {
    throw hw::BusError("switch CSR offset " + std::to_string(offset) + " is read-only");
  }
  if (w == OFF(INTR_STATUS)) {
    regs_[w] &= ~value;
    return;
  }
  if (w == OFF(ECN_DYN_CTRL) && !EcnDynConfig::ctrl_write_ok(value)) {
    throw hw::BusError("switch CSR ECN_DYN_CTRL: WIN " +
                       std::to_string(field(value, SWITCH_CSR__ECN_DYN_CTRL__WIN_bm,
                                            SWITCH_CSR__ECN_DYN_CTRL__WIN_bp)) +
                       " is outside 4..20; the write is refused");
  }
  if (w == OFF(ECN_DYN_PMAX) && !EcnDynConfig::pmax_write_ok(value)) {
    throw hw::BusError("switch CSR ECN_DYN_PMAX: PLO " +
                       std::to_string(field(value, SWITCH_CSR__ECN_DYN_PMAX__PLO_bm,
                                            SWITCH_CSR__ECN_DYN_PMAX__PLO_bp)) +
                       " is above PHI " +
                       std::to_string(field(value, SWITCH_CSR__ECN_DYN_PMAX__PHI_bm,
                                            SWITCH_CSR__ECN_DYN_PMAX__PHI_bp)) +
                       "; the write is refused");
  }
  if (w == OFF(CTRL) && (value & SWITCH_CSR__CTRL__CNT_CLEAR_bm) != 0) {
    std::fill(counters_.begin(), counters_.end(), 0);
    group_skips_ = 0;
  }
  if (w == OFF(WD_REENABLE)) {
    if ((value & SWITCH_CSR__WD_REENABLE__GO_bm) != 0) {
      reenables_.emplace_back(
          field(value, SWITCH_CSR__WD_REENABLE__PORT_bm, SWITCH_CSR__WD_REENABLE__PORT_bp),
          static_cast<std::uint8_t>(field(value, SWITCH_CSR__WD_REENABLE__PRIO_MASK_bm,
                                          SWITCH_CSR__WD_REENABLE__PRIO_MASK_bp)));
    }
    return;
  }
  if (w == OFF(TBL_CMD)) {
    const std::uint32_t a = regs_[OFF(TBL_ADDR)];
    const unsigned idx = field(a, SWITCH_CSR__TBL_ADDR__INDEX_bm, SWITCH_CSR__TBL_ADDR__INDEX_bp);
    const unsigned table = field(a, SWITCH_CSR__TBL_ADDR__TABLE_bm, SWITCH_CSR__TBL_ADDR__TABLE_bp);
    const std::uint32_t port_mask = (1U << params_.ports) - 1U;
    if (table == kGroupTable) {
      if (idx >= groups_.size()) {
        hw_raise(SWITCH_CSR__INTR_STATUS__TBL_ERROR_bm);
        return;
      }
      if ((value & SWITCH_CSR__TBL_CMD__WRITE_bm) != 0) {
        const std::uint32_t d = regs_[OFF(TBL_WDATA)];
        // An invalid entry reads as 0; mask bits past the ports are not kept.
        groups_[idx] = (d & kValid) != 0 ? d & (kValid | port_mask) : 0;
      }
      if ((value & SWITCH_CSR__TBL_CMD__READ_bm) != 0) {
        regs_[OFF(TBL_RDATA)] = groups_[idx];
      }
      return;
    }
    if (table >= 2) {
      table_access(table, idx, value);
      return;
    }
    std::vector<std::uint32_t>* t = table == 0 ? &lft_ : &mft_;
    if (idx >= t->size()) {
      hw_raise(SWITCH_CSR__INTR_STATUS__TBL_ERROR_bm);
      return;
    }
    if ((value & SWITCH_CSR__TBL_CMD__WRITE_bm) != 0) {
      std::uint32_t d = regs_[OFF(TBL_WDATA)];
      // Only the bits an entry has are stored: the port or group and GROUP
      // (LFT) or the port mask (MFT), and VALID.
      d &= table == 0 ? (kValid | kLftGroup | 0xFFU) : (kValid | port_mask);
      (*t)[idx] = d;
    }
    if ((value & SWITCH_CSR__TBL_CMD__READ_bm) != 0) {
      regs_[OFF(TBL_RDATA)] = (*t)[idx];
    }
    return;
  }
  regs_[w] = value & rule.wmask;
}

void SwitchCsrModel::table_access(unsigned table, unsigned idx, std::uint32_t cmd) {
  const bool write = (cmd & SWITCH_CSR__TBL_CMD__WRITE_bm) != 0;
  const bool read = (cmd & SWITCH_CSR__TBL_CMD__READ_bm) != 0;
  const std::uint32_t d = regs_[OFF(TBL_WDATA)];
  // Tables 2 and 3: one word per combine entry; 4 and 5: one per phase of
  // an entry. TABLE 7 names no table: every index is outside it.
  const std::size_t words = table <= 3   ? combine_.size()
                            : table <= 5 ? combine_.size() * kRingWordsPerEntry
                                         : 0;
  if (idx >= words) {
    hw_raise(SWITCH_CSR__INTR_STATUS__TBL_ERROR_bm);
    return;
  }
  if (table >= 4) {
    RingPhase& ph = combine_[idx / kRingWordsPerEntry].phase[idx % kRingWordsPerEntry];
    std::uint32_t& word = table == 4 ? ph.geometry : ph.expect;
    if (write) {
      word = table == 4 ? d & RingPhase::kStored : d;
    }
    if (read) {
      regs_[OFF(TBL_RDATA)] = word;
    }
    return;
  }
  CombineEntry& e = combine_[idx];
  if (write) {
    if (table == 2) {
      e.children = d & ((1U << params_.ports) - 1U);
    } else {
      e.valid = (d & CombineEntry::kValidBit) != 0;
      e.root = (d & CombineEntry::kRootBit) != 0;
      e.ring = (d & CombineEntry::kRingBit) != 0;
      e.phases =
          static_cast<std::uint8_t>(d >> CombineEntry::kPhasesShift & CombineEntry::kPhasesMask);
      e.parent = static_cast<std::uint8_t>(d & CombineEntry::kParentMask);
      e.epoch = static_cast<std::uint16_t>(d >> CombineEntry::kEpochShift);
      e.heard = {};
      e.sent = 0;
      e.owe = 0;
      e.query = 0;
      e.level = 0;
      e.arrived = 0;
    }
  }
  if (read) {
    regs_[OFF(TBL_RDATA)] = table == 2 ? e.children : e.control_word();
  }
}

void SwitchCsrModel::NoDma::read(hw::BusAddr addr, std::span<std::byte> /*out*/) const {
  throw hw::DmaError("the switch has no DMA port (read at " + std::to_string(addr) + ")");
}

void SwitchCsrModel::NoDma::write(hw::BusAddr addr, std::span<const std::byte> /*data*/) {
  throw hw::DmaError("the switch has no DMA port (write at " + std::to_string(addr) + ")");
}

bool SwitchCsrModel::wait_interrupt(std::chrono::nanoseconds /*timeout*/) {
  return interrupt_line();
}

std::uint32_t SwitchCsrModel::reg(std::uint32_t offset) const { return regs_.at(offset / 4); }

void SwitchCsrModel::hw_count(unsigned port, unsigned prio, unsigned kind, std::uint32_t n) {
  std::uint32_t& c =
      counters_.at((std::size_t{port} * fmt::kNumPrio + prio) * fmt::kSwCounterCount + kind);
  c = (c > 0xFFFFFFFFU - n) ? 0xFFFFFFFFU : c + n;  // saturating, as the RDL says
}

void SwitchCsrModel::hw_set_wd_state(unsigned port, unsigned prio, unsigned state) {
  std::uint16_t& s = wd_state_.at(port);
  constexpr unsigned kMask = (1U << fmt::kWdStateWidth) - 1U;
  const unsigned shift = fmt::kWdStateWidth * prio;
  s = static_cast<std::uint16_t>((s & ~(kMask << shift)) | ((state & kMask) << shift));
}

std::uint32_t SwitchCsrModel::port_up() const { return regs_[OFF(PORT_UP)]; }

void SwitchCsrModel::hw_count_group_skip() {
  group_skips_ += group_skips_ == 0xFFFFFFFFU ? 0U : 1U;  // saturating
}

void SwitchCsrModel::hw_raise(std::uint32_t intr_bits) {
  regs_[OFF(INTR_STATUS)] |= intr_bits & 0x1FU;
}

std::vector<std::pair<unsigned, std::uint8_t>> SwitchCsrModel::take_reenables() {
  return std::exchange(reenables_, {});
}

bool SwitchCsrModel::interrupt_line() const {
  return (regs_[OFF(INTR_STATUS)] & regs_[OFF(INTR_ENABLE)]) != 0;
}

}  // namespace syncfab::model
