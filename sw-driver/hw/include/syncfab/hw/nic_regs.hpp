// The NIC's registers and fields as C++ constants, every number taken from
// the C header PeakRDL generates from rtl/nic/nic_csr.rdl: offsets from the
// layout struct nic_csr_t (offsetof), masks/positions/widths and identity
// values from its macros. No offset or mask is written here by hand; a
// register renamed or removed in the RDL fails this header's compilation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "syncfab/hw/reg_field.hpp"
#include "syncfab/regs/nic_csr.h"
#include "syncfab/regs/nic_csr_counters.hpp"

namespace syncfab::hw::nic {

using hw::Field;
using hw::Reg;

// Block identity of the register map this code was built with.
inline constexpr std::uint32_t kMagic = NIC_CSR__ID__MAGIC_reset;
inline constexpr std::uint32_t kVersionMajor = NIC_CSR__VERSION__MAJOR_reset;
inline constexpr std::uint32_t kVersionMinor = NIC_CSR__VERSION__MINOR_reset;

// Reset values of the fields the driver's options default to and the golden
// model starts from.
inline constexpr std::uint32_t kRetryDelayReset = NIC_CSR__RETRY_DELAY__CYCLES_reset;
inline constexpr std::uint32_t kRetryLimitReset = NIC_CSR__RETRY_LIMIT__LIMIT_reset;
inline constexpr std::uint32_t kNetCfgTcReset = NIC_CSR__NET_CFG__TC_reset;
inline constexpr std::uint32_t kPfcCfgEnableReset = NIC_CSR__PFC_CFG__ENABLE_reset;
inline constexpr std::uint32_t kPfcCfgCycPerQuantumReset = NIC_CSR__PFC_CFG__CYC_PER_QUANTUM_reset;
// The register map version that added NET_CFG, PFC_CFG, STATUS.TX_PAUSED,
// CNT_PFC_RX and CNT_PAUSE_RX (a device of an older MINOR has none of them).
inline constexpr std::uint32_t kLinkRegsMinor = 3;
// The version that added the group barriers: HW_CFG2, GROUP_TIMEOUT,
// GROUP_RETRY_LIMIT and the CNT_ARRIVE_* / CNT_RELEASE_* / CNT_GROUP_RETRY
// counters.
inline constexpr std::uint32_t kGroupRegsMinor = 4;
inline constexpr std::uint32_t kGroupTimeoutReset = NIC_CSR__GROUP_TIMEOUT__CYCLES_reset;
inline constexpr std::uint32_t kGroupRetryLimitReset = NIC_CSR__GROUP_RETRY_LIMIT__LIMIT_reset;
// The version that added the management mailbox: MBOX_*, HW_CFG2.MBOX_DEPTH,
// INTR_STATUS/INTR_ENABLE.MGMT_RX, CNT_MGMT_SENT and CNT_MGMT_RECV.
inline constexpr std::uint32_t kMboxRegsMinor = 5;

// Whole block, and the HDQ descriptor window inside it.
inline constexpr std::size_t kBlockBytes = sizeof(nic_csr_t);
inline constexpr std::uint32_t kHdqWindowOffset = offsetof(nic_csr_t, HDQ_WINDOW);
inline constexpr std::size_t kHdqWindowWords =
    sizeof(nic_csr__HDQ_WINDOW_t) / sizeof(std::uint32_t);

#define SYNCFAB_NIC_REG(R) \
  inline constexpr Reg R { static_cast<std::uint32_t>(offsetof(nic_csr_t, R)), #R }
#define SYNCFAB_NIC_FIELD(R, F)                                                        \
  inline constexpr Field R##_##F {                                                     \
    R, static_cast<std::uint32_t>(NIC_CSR__##R##__##F##_bm), NIC_CSR__##R##__##F##_bp, \
        NIC_CSR__##R##__##F##_bw, #R "." #F                                            \
  }

SYNCFAB_NIC_REG(ID);
SYNCFAB_NIC_FIELD(ID, MAGIC);
SYNCFAB_NIC_REG(VERSION);
SYNCFAB_NIC_FIELD(VERSION, MINOR);
SYNCFAB_NIC_FIELD(VERSION, MAJOR);
SYNCFAB_NIC_REG(HW_CFG);
SYNCFAB_NIC_FIELD(HW_CFG, NUM_CTX);
SYNCFAB_NIC_FIELD(HW_CFG, K_MAX);
SYNCFAB_NIC_FIELD(HW_CFG, MAX_ROUNDS);
SYNCFAB_NIC_FIELD(HW_CFG, HDQ_DEPTH);
SYNCFAB_NIC_REG(HW_CFG2);
SYNCFAB_NIC_FIELD(HW_CFG2, MAX_MEMBERS);
SYNCFAB_NIC_FIELD(HW_CFG2, MBOX_DEPTH);
SYNCFAB_NIC_REG(SCRATCH);
SYNCFAB_NIC_FIELD(SCRATCH, VALUE);
SYNCFAB_NIC_REG(NODE_LID);
SYNCFAB_NIC_FIELD(NODE_LID, LID);
SYNCFAB_NIC_REG(CTRL);
SYNCFAB_NIC_FIELD(CTRL, ENABLE);
SYNCFAB_NIC_FIELD(CTRL, SOFT_RESET);
SYNCFAB_NIC_FIELD(CTRL, CNT_CLEAR);
SYNCFAB_NIC_REG(STATUS);
SYNCFAB_NIC_FIELD(STATUS, BUSY);
SYNCFAB_NIC_FIELD(STATUS, RESETTING);
SYNCFAB_NIC_FIELD(STATUS, TX_PAUSED);
SYNCFAB_NIC_FIELD(STATUS, ACTIVE_CTX);
SYNCFAB_NIC_REG(INTR_STATUS);
SYNCFAB_NIC_FIELD(INTR_STATUS, DONE);
SYNCFAB_NIC_FIELD(INTR_STATUS, ERROR);
SYNCFAB_NIC_FIELD(INTR_STATUS, HDQ_OVERFLOW);
SYNCFAB_NIC_FIELD(INTR_STATUS, DMA_ERROR);
SYNCFAB_NIC_FIELD(INTR_STATUS, MGMT_RX);
SYNCFAB_NIC_REG(INTR_ENABLE);
SYNCFAB_NIC_FIELD(INTR_ENABLE, DONE);
SYNCFAB_NIC_FIELD(INTR_ENABLE, ERROR);
SYNCFAB_NIC_FIELD(INTR_ENABLE, HDQ_OVERFLOW);
SYNCFAB_NIC_FIELD(INTR_ENABLE, DMA_ERROR);
SYNCFAB_NIC_FIELD(INTR_ENABLE, MGMT_RX);
SYNCFAB_NIC_REG(RETRY_DELAY);
SYNCFAB_NIC_FIELD(RETRY_DELAY, CYCLES);
SYNCFAB_NIC_REG(RETRY_LIMIT);
SYNCFAB_NIC_FIELD(RETRY_LIMIT, LIMIT);
SYNCFAB_NIC_REG(GROUP_TIMEOUT);
SYNCFAB_NIC_FIELD(GROUP_TIMEOUT, CYCLES);
SYNCFAB_NIC_REG(GROUP_RETRY_LIMIT);
SYNCFAB_NIC_FIELD(GROUP_RETRY_LIMIT, LIMIT);
SYNCFAB_NIC_REG(NET_CFG);
SYNCFAB_NIC_FIELD(NET_CFG, TC);
SYNCFAB_NIC_REG(PFC_CFG);
SYNCFAB_NIC_FIELD(PFC_CFG, ENABLE);
SYNCFAB_NIC_FIELD(PFC_CFG, CYC_PER_QUANTUM);
SYNCFAB_NIC_REG(SDQ_BASE_LO);
SYNCFAB_NIC_FIELD(SDQ_BASE_LO, ADDR);
SYNCFAB_NIC_REG(SDQ_BASE_HI);
SYNCFAB_NIC_FIELD(SDQ_BASE_HI, ADDR);
SYNCFAB_NIC_REG(SDQ_SIZE);
SYNCFAB_NIC_FIELD(SDQ_SIZE, ENTRIES);
SYNCFAB_NIC_REG(SDQ_PROD);
SYNCFAB_NIC_FIELD(SDQ_PROD, INDEX);
SYNCFAB_NIC_REG(SDQ_CONS);
SYNCFAB_NIC_FIELD(SDQ_CONS, INDEX);
SYNCFAB_NIC_REG(CQ_BASE_LO);
SYNCFAB_NIC_FIELD(CQ_BASE_LO, ADDR);
SYNCFAB_NIC_REG(CQ_BASE_HI);
SYNCFAB_NIC_FIELD(CQ_BASE_HI, ADDR);
SYNCFAB_NIC_REG(CQ_SIZE);
SYNCFAB_NIC_FIELD(CQ_SIZE, ENTRIES);
SYNCFAB_NIC_REG(CQ_HEAD);
SYNCFAB_NIC_FIELD(CQ_HEAD, INDEX);
SYNCFAB_NIC_REG(CQ_TAIL);
SYNCFAB_NIC_FIELD(CQ_TAIL, INDEX);
SYNCFAB_NIC_REG(HDQ_POST);
SYNCFAB_NIC_FIELD(HDQ_POST, POST);
SYNCFAB_NIC_FIELD(HDQ_POST, LEVEL);
SYNCFAB_NIC_FIELD(HDQ_POST, FULL);
SYNCFAB_NIC_REG(CNT_NOTIF_SENT);
SYNCFAB_NIC_REG(CNT_NOTIF_RECV);
SYNCFAB_NIC_REG(CNT_NACK_SENT);
SYNCFAB_NIC_REG(CNT_NACK_RECV);
SYNCFAB_NIC_REG(CNT_RETRY);
SYNCFAB_NIC_REG(CNT_COMPLETION);
SYNCFAB_NIC_REG(CNT_ERROR);
SYNCFAB_NIC_REG(CNT_DROP);
SYNCFAB_NIC_REG(CNT_DUP);
SYNCFAB_NIC_REG(CNT_PFC_RX);
SYNCFAB_NIC_REG(CNT_PAUSE_RX);
SYNCFAB_NIC_REG(CNT_ARRIVE_SENT);
SYNCFAB_NIC_REG(CNT_ARRIVE_RECV);
SYNCFAB_NIC_REG(CNT_RELEASE_SENT);
SYNCFAB_NIC_REG(CNT_RELEASE_RECV);
SYNCFAB_NIC_REG(CNT_GROUP_RETRY);
SYNCFAB_NIC_REG(CNT_MGMT_SENT);
SYNCFAB_NIC_REG(CNT_MGMT_RECV);
SYNCFAB_NIC_REG(MBOX_TX_DATA0);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA0, WORD);
SYNCFAB_NIC_REG(MBOX_TX_DATA1);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA1, WORD);
SYNCFAB_NIC_REG(MBOX_TX_DATA2);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA2, WORD);
SYNCFAB_NIC_REG(MBOX_TX_DATA3);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA3, WORD);
SYNCFAB_NIC_REG(MBOX_TX_DATA4);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA4, WORD);
SYNCFAB_NIC_REG(MBOX_TX_DATA5);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA5, WORD);
SYNCFAB_NIC_REG(MBOX_TX_DATA6);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA6, WORD);
SYNCFAB_NIC_REG(MBOX_TX_DATA7);
SYNCFAB_NIC_FIELD(MBOX_TX_DATA7, WORD);
SYNCFAB_NIC_REG(MBOX_TX_CTRL);
SYNCFAB_NIC_FIELD(MBOX_TX_CTRL, DST_LID);
SYNCFAB_NIC_FIELD(MBOX_TX_CTRL, SEND);
SYNCFAB_NIC_REG(MBOX_STATUS);
SYNCFAB_NIC_FIELD(MBOX_STATUS, TX_BUSY);
SYNCFAB_NIC_FIELD(MBOX_STATUS, RX_LEVEL);
SYNCFAB_NIC_REG(MBOX_RX_DATA0);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA0, WORD);
SYNCFAB_NIC_REG(MBOX_RX_DATA1);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA1, WORD);
SYNCFAB_NIC_REG(MBOX_RX_DATA2);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA2, WORD);
SYNCFAB_NIC_REG(MBOX_RX_DATA3);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA3, WORD);
SYNCFAB_NIC_REG(MBOX_RX_DATA4);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA4, WORD);
SYNCFAB_NIC_REG(MBOX_RX_DATA5);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA5, WORD);
SYNCFAB_NIC_REG(MBOX_RX_DATA6);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA6, WORD);
SYNCFAB_NIC_REG(MBOX_RX_DATA7);
SYNCFAB_NIC_FIELD(MBOX_RX_DATA7, WORD);
SYNCFAB_NIC_REG(MBOX_RX_SRC);
SYNCFAB_NIC_FIELD(MBOX_RX_SRC, SRC_LID);
SYNCFAB_NIC_REG(MBOX_RX_POP);
SYNCFAB_NIC_FIELD(MBOX_RX_POP, POP);

#undef SYNCFAB_NIC_REG
#undef SYNCFAB_NIC_FIELD

// Every counter register, in map order (all have one field, COUNT, of the
// width NIC_CSR__CNT_<name>__COUNT_bw); the list is generated from the RDL's
// counter fields (nic_csr_counters.hpp): kCounters[i] is Counter i.
inline constexpr std::array<Reg, kNumCounters> kCounters = [] {
  std::array<Reg, kNumCounters> regs{};
  for (unsigned i = 0; i < kNumCounters; ++i) {
    regs[i] = Reg{kCounterOffsets[i], kCounterNames[i]};
  }
  return regs;
}();

// The mailbox's payload words (one mgmt_msg, word i at bytes 4i..4i+3,
// little-endian): MBOX_TX_DATA[i] is MBOX_TX_DATAi, MBOX_RX_DATA[i] MBOX_RX_DATAi.
inline constexpr std::size_t kMboxWords = 8;
inline constexpr std::array<Reg, kMboxWords> MBOX_TX_DATA{
    MBOX_TX_DATA0, MBOX_TX_DATA1, MBOX_TX_DATA2, MBOX_TX_DATA3,
    MBOX_TX_DATA4, MBOX_TX_DATA5, MBOX_TX_DATA6, MBOX_TX_DATA7};
inline constexpr std::array<Reg, kMboxWords> MBOX_RX_DATA{
    MBOX_RX_DATA0, MBOX_RX_DATA1, MBOX_RX_DATA2, MBOX_RX_DATA3,
    MBOX_RX_DATA4, MBOX_RX_DATA5, MBOX_RX_DATA6, MBOX_RX_DATA7};

}  // namespace syncfab::hw::nic
