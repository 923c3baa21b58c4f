// The switch's registers and fields as C++ constants, every number taken from
// the C header PeakRDL generates from rtl/switch/switch_csr.rdl (offsets via
// offsetof on switch_csr_t, masks and positions from its macros). Per-port
// and per-priority registers are reached through functions that index the
// generated arrays; nothing is written by hand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/hw/nic_regs.hpp"
#include "syncfab/hw/reg_field.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::hw::switch_regs {

inline constexpr std::uint32_t kMagic = SWITCH_CSR__ID__MAGIC_reset;
inline constexpr std::uint32_t kVersionMajor = SWITCH_CSR__VERSION__MAJOR_reset;
inline constexpr std::uint32_t kVersionMinor = SWITCH_CSR__VERSION__MINOR_reset;
inline constexpr std::size_t kBlockBytes = sizeof(switch_csr_t);
// Ports the register map has room for (the device may have fewer: HW_CFG).
inline constexpr unsigned kMaxPorts = sizeof(switch_csr_t::PORT) / sizeof(switch_csr_t::PORT[0]);

// check_identity reads ID and VERSION at the NIC's offsets and positions.
static_assert(offsetof(switch_csr_t, ID) == offsetof(nic_csr_t, ID));
static_assert(offsetof(switch_csr_t, VERSION) == offsetof(nic_csr_t, VERSION));
static_assert(SWITCH_CSR__VERSION__MAJOR_bm == NIC_CSR__VERSION__MAJOR_bm);
static_assert(SWITCH_CSR__VERSION__MINOR_bm == NIC_CSR__VERSION__MINOR_bm);

#define SYNCFAB_SW_REG(R) \
  inline constexpr Reg R { static_cast<std::uint32_t>(offsetof(switch_csr_t, R)), #R }
#define SYNCFAB_SW_FIELD(R, F)                                                               \
  inline constexpr Field R##_##F {                                                           \
    R, static_cast<std::uint32_t>(SWITCH_CSR__##R##__##F##_bm), SWITCH_CSR__##R##__##F##_bp, \
        SWITCH_CSR__##R##__##F##_bw, #R "." #F                                               \
  }
// Fields of array / per-port registers: the offset is supplied by at().
#define SYNCFAB_SW_AFIELD(PATH, NAME, F)                                             \
  inline constexpr Field NAME##_##F {                                                \
    Reg{0, #NAME}, static_cast<std::uint32_t>(SWITCH_CSR__##PATH##__##F##_bm),       \
        SWITCH_CSR__##PATH##__##F##_bp, SWITCH_CSR__##PATH##__##F##_bw, #NAME "." #F \
  }

SYNCFAB_SW_REG(ID);
SYNCFAB_SW_REG(VERSION);
SYNCFAB_SW_REG(HW_CFG);
SYNCFAB_SW_FIELD(HW_CFG, NUM_PORTS);
SYNCFAB_SW_FIELD(HW_CFG, NUM_PRIO);
SYNCFAB_SW_FIELD(HW_CFG, BUF_CELLS);
SYNCFAB_SW_REG(TABLE_CFG);
SYNCFAB_SW_FIELD(TABLE_CFG, LFT_ENTRIES);
SYNCFAB_SW_FIELD(TABLE_CFG, MFT_ENTRIES);
SYNCFAB_SW_REG(SCRATCH);
SYNCFAB_SW_REG(CTRL);
SYNCFAB_SW_FIELD(CTRL, ENABLE);
SYNCFAB_SW_FIELD(CTRL, CNT_CLEAR);
SYNCFAB_SW_REG(INTR_STATUS);
SYNCFAB_SW_FIELD(INTR_STATUS, WD_DETECT);
SYNCFAB_SW_FIELD(INTR_STATUS, WD_RECOVER);
SYNCFAB_SW_FIELD(INTR_STATUS, WD_DISABLE);
SYNCFAB_SW_FIELD(INTR_STATUS, BAD_PKT);
SYNCFAB_SW_FIELD(INTR_STATUS, TBL_ERROR);
SYNCFAB_SW_REG(INTR_ENABLE);
SYNCFAB_SW_REG(PFC_TIMING);
SYNCFAB_SW_FIELD(PFC_TIMING, CYC_PER_QUANTUM);
SYNCFAB_SW_FIELD(PFC_TIMING, REFRESH);
SYNCFAB_SW_REG(WD_DETECT_TIME);
SYNCFAB_SW_FIELD(WD_DETECT_TIME, CYCLES);
SYNCFAB_SW_REG(WD_RECOVER_TIME);
SYNCFAB_SW_FIELD(WD_RECOVER_TIME, CYCLES);
SYNCFAB_SW_REG(WD_WINDOW);
SYNCFAB_SW_FIELD(WD_WINDOW, CYCLES);
SYNCFAB_SW_REG(WD_LIMIT);
SYNCFAB_SW_FIELD(WD_LIMIT, LIMIT);
SYNCFAB_SW_REG(WD_REENABLE);
SYNCFAB_SW_FIELD(WD_REENABLE, PORT);
SYNCFAB_SW_FIELD(WD_REENABLE, PRIO_MASK);
SYNCFAB_SW_FIELD(WD_REENABLE, GO);
SYNCFAB_SW_REG(REMAP_CTRL);
SYNCFAB_SW_FIELD(REMAP_CTRL, ENABLE);
SYNCFAB_SW_FIELD(REMAP_CTRL, UPLINK_MASK);
SYNCFAB_SW_AFIELD(REMAPX, REMAP, NEW_PRIO);
SYNCFAB_SW_AFIELD(REMAPX, REMAP, NEW_DSCP);
SYNCFAB_SW_REG(TBL_ADDR);
SYNCFAB_SW_FIELD(TBL_ADDR, INDEX);
SYNCFAB_SW_FIELD(TBL_ADDR, TABLE);
SYNCFAB_SW_REG(TBL_WDATA);
SYNCFAB_SW_REG(TBL_CMD);
SYNCFAB_SW_FIELD(TBL_CMD, WRITE);
SYNCFAB_SW_FIELD(TBL_CMD, READ);
SYNCFAB_SW_REG(TBL_RDATA);
SYNCFAB_SW_REG(TBL_STATUS);
SYNCFAB_SW_FIELD(TBL_STATUS, BUSY);
SYNCFAB_SW_REG(CNT_SEL);
SYNCFAB_SW_FIELD(CNT_SEL, PORT);
SYNCFAB_SW_FIELD(CNT_SEL, PRIO);
SYNCFAB_SW_FIELD(CNT_SEL, KIND);
SYNCFAB_SW_REG(CNT_VALUE);
SYNCFAB_SW_REG(WD_STATUS);
SYNCFAB_SW_FIELD(WD_STATUS, STATE);
SYNCFAB_SW_REG(PORT_UP);
SYNCFAB_SW_FIELD(PORT_UP, UP);
SYNCFAB_SW_REG(GROUP_SKIPS);
SYNCFAB_SW_FIELD(GROUP_SKIPS, COUNT);

SYNCFAB_SW_AFIELD(PORTX__PFC_EN, PFC_EN, MASK);
SYNCFAB_SW_AFIELD(PORTX__SCHED, SCHED, SP_MASK);
SYNCFAB_SW_AFIELD(PORTX__WD_CTRL, WD_CTRL, ENABLE);
SYNCFAB_SW_AFIELD(PORTX__WD_CTRL, WD_CTRL, DROP_MODE);
SYNCFAB_SW_AFIELD(PORTX__WRED_EN, WRED_EN, MASK);
SYNCFAB_SW_AFIELD(PORTX__WEIGHTX, WEIGHT, W_EVEN);
SYNCFAB_SW_AFIELD(PORTX__WEIGHTX, WEIGHT, W_ODD);
SYNCFAB_SW_AFIELD(PORTX__PFC_THRX, PFC_THR, XOFF);
SYNCFAB_SW_AFIELD(PORTX__PFC_THRX, PFC_THR, XON);
SYNCFAB_SW_AFIELD(PORTX__QUANTAX, QUANTA, Q_EVEN);
SYNCFAB_SW_AFIELD(PORTX__QUANTAX, QUANTA, Q_ODD);
SYNCFAB_SW_AFIELD(PORTX__WRED_KX, WRED_K, KMIN);
SYNCFAB_SW_AFIELD(PORTX__WRED_KX, WRED_K, KMAX);
SYNCFAB_SW_AFIELD(PORTX__WRED_PX, WRED_P, P0);
SYNCFAB_SW_AFIELD(PORTX__WRED_PX, WRED_P, P1);
SYNCFAB_SW_AFIELD(PORTX__WRED_PX, WRED_P, P2);
SYNCFAB_SW_AFIELD(PORTX__WRED_PX, WRED_P, P3);
SYNCFAB_SW_AFIELD(PORTX__LOSSY_LIMIT, LOSSY_LIMIT, LIMIT);

#undef SYNCFAB_SW_REG
#undef SYNCFAB_SW_FIELD
#undef SYNCFAB_SW_AFIELD

// WRED_P[i] packs the Pmax of several egress queues, queue q in field
// kWredPmax[q % kWredPmax.size()] of WRED_P[q / kWredPmax.size()].
inline constexpr std::array<Field, 4> kWredPmax{WRED_P_P0, WRED_P_P1, WRED_P_P2, WRED_P_P3};
static_assert(sizeof(switch_csr__PORTx__stride80_t::WRED_P) / sizeof(std::uint32_t) *
                      kWredPmax.size() ==
                  fmt::kNumPrio,
              "WRED_P holds one Pmax per priority");

// REMAP[p].
inline Reg remap(unsigned prio) {
  if (prio >= fmt::kNumPrio) {
    throw std::out_of_range("REMAP index " + std::to_string(prio) + " (" +
                            std::to_string(fmt::kNumPrio) + " priorities)");
  }
  return Reg{static_cast<std::uint32_t>(offsetof(switch_csr_t, REMAP) + std::size_t{4} * prio),
             "REMAP"};
}

// The per-port registers (PORT[port].<which>[index]).
enum class PortReg {
  kPfcEn,
  kSched,
  kWdCtrl,
  kWredEn,
  kWeight,
  kPfcThr,
  kQuanta,
  kWredK,
  kWredP,
  kLossyLimit
};

Reg port_reg(unsigned port, PortReg which, unsigned index = 0);

}  // namespace syncfab::hw::switch_regs
