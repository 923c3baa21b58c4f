// The NIC data path's registers (bulk sender, DCQCN; docs/nic/dcqcn.md) as
// C++ constants, every number taken from the C header PeakRDL generates from
// rtl/nic/nic_dcqcn.rdl, as nic_regs.hpp does for the barrier engine. Offsets
// are within the block; the block sits at fmt::kDcqcnCsrBase of the NIC's
// CSR window (kBase).
#pragma once

#include <cstddef>
#include <cstdint>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/hw/reg_field.hpp"
#include "syncfab/regs/nic_dcqcn.h"
#include "syncfab/regs/nic_dcqcn_counters.hpp"

namespace syncfab::hw::dcqcn {

using hw::Field;
using hw::Reg;

inline constexpr std::uint32_t kBase = fmt::kDcqcnCsrBase;
inline constexpr std::uint32_t kMagic = NIC_DCQCN__ID__MAGIC_reset;
inline constexpr std::uint32_t kVersionMajor = NIC_DCQCN__VERSION__MAJOR_reset;
inline constexpr std::uint32_t kVersionMinor = NIC_DCQCN__VERSION__MINOR_reset;
inline constexpr std::size_t kBlockBytes = sizeof(nic_dcqcn_t);

// Reset values the golden model starts from and the driver documents.
inline constexpr std::uint32_t kCnpPrioReset = NIC_DCQCN__NP_CFG__CNP_PRIO_reset;
inline constexpr std::uint32_t kCnpIntervalReset = NIC_DCQCN__CNP_INTERVAL__CYCLES_reset;
inline constexpr std::uint32_t kGShiftReset = NIC_DCQCN__ALPHA_CFG__G_SHIFT_reset;
inline constexpr std::uint32_t kAlphaTimerReset = NIC_DCQCN__ALPHA_TIMER__CYCLES_reset;
inline constexpr std::uint32_t kRateTimerReset = NIC_DCQCN__RATE_TIMER__CYCLES_reset;
inline constexpr std::uint32_t kByteCounterReset = NIC_DCQCN__BYTE_COUNTER__FLITS_reset;
inline constexpr std::uint32_t kStagesReset = NIC_DCQCN__RATE_STAGES__F_reset;
inline constexpr std::uint32_t kRateAiReset = NIC_DCQCN__RATE_AI__RATE_reset;
inline constexpr std::uint32_t kRateHaiReset = NIC_DCQCN__RATE_HAI__RATE_reset;
inline constexpr std::uint32_t kRateMinReset = NIC_DCQCN__RATE_MIN__RATE_reset;
inline constexpr std::uint32_t kFlowPrioReset = NIC_DCQCN__FLOW_CFG__PRIO_reset;
inline constexpr std::uint32_t kFlowEctReset = NIC_DCQCN__FLOW_CFG__ECT_reset;

#define SYNCFAB_DQ_REG(R) \
  inline constexpr Reg R { static_cast<std::uint32_t>(offsetof(nic_dcqcn_t, R)), #R }
#define SYNCFAB_DQ_FIELD(R, F)                                                             \
  inline constexpr Field R##_##F {                                                         \
    R, static_cast<std::uint32_t>(NIC_DCQCN__##R##__##F##_bm), NIC_DCQCN__##R##__##F##_bp, \
        NIC_DCQCN__##R##__##F##_bw, #R "." #F                                              \
  }

SYNCFAB_DQ_REG(ID);
SYNCFAB_DQ_REG(VERSION);
SYNCFAB_DQ_FIELD(VERSION, MINOR);
SYNCFAB_DQ_FIELD(VERSION, MAJOR);
SYNCFAB_DQ_REG(HW_CFG);
SYNCFAB_DQ_FIELD(HW_CFG, NUM_FLOWS);
SYNCFAB_DQ_FIELD(HW_CFG, NP_SLOTS);
SYNCFAB_DQ_FIELD(HW_CFG, CNP_QUEUE);
SYNCFAB_DQ_REG(CTRL);
SYNCFAB_DQ_FIELD(CTRL, RP_ENABLE);
SYNCFAB_DQ_FIELD(CTRL, NP_ENABLE);
SYNCFAB_DQ_FIELD(CTRL, CNT_CLEAR);
SYNCFAB_DQ_REG(NP_CFG);
SYNCFAB_DQ_FIELD(NP_CFG, CNP_PRIO);
SYNCFAB_DQ_REG(CNP_INTERVAL);
SYNCFAB_DQ_FIELD(CNP_INTERVAL, CYCLES);
SYNCFAB_DQ_REG(ALPHA_CFG);
SYNCFAB_DQ_FIELD(ALPHA_CFG, G_SHIFT);
SYNCFAB_DQ_REG(ALPHA_TIMER);
SYNCFAB_DQ_FIELD(ALPHA_TIMER, CYCLES);
SYNCFAB_DQ_REG(RATE_TIMER);
SYNCFAB_DQ_FIELD(RATE_TIMER, CYCLES);
SYNCFAB_DQ_REG(BYTE_COUNTER);
SYNCFAB_DQ_FIELD(BYTE_COUNTER, FLITS);
SYNCFAB_DQ_REG(RATE_STAGES);
SYNCFAB_DQ_FIELD(RATE_STAGES, F);
SYNCFAB_DQ_REG(RATE_AI);
SYNCFAB_DQ_FIELD(RATE_AI, RATE);
SYNCFAB_DQ_REG(RATE_HAI);
SYNCFAB_DQ_FIELD(RATE_HAI, RATE);
SYNCFAB_DQ_REG(RATE_MIN);
SYNCFAB_DQ_FIELD(RATE_MIN, RATE);
SYNCFAB_DQ_REG(FLOW_DST);
SYNCFAB_DQ_FIELD(FLOW_DST, LID);
SYNCFAB_DQ_REG(FLOW_CFG);
SYNCFAB_DQ_FIELD(FLOW_CFG, PAYLOAD_FLITS);
SYNCFAB_DQ_FIELD(FLOW_CFG, PRIO);
SYNCFAB_DQ_FIELD(FLOW_CFG, ECT);
SYNCFAB_DQ_REG(FLOW_LABEL);
SYNCFAB_DQ_FIELD(FLOW_LABEL, LABEL);
SYNCFAB_DQ_REG(FLOW_COUNT);
SYNCFAB_DQ_FIELD(FLOW_COUNT, PKTS);
SYNCFAB_DQ_REG(FLOW_CTRL);
SYNCFAB_DQ_FIELD(FLOW_CTRL, INDEX);
SYNCFAB_DQ_FIELD(FLOW_CTRL, START);
SYNCFAB_DQ_FIELD(FLOW_CTRL, STOP);
SYNCFAB_DQ_REG(FLOW_SUMMARY);
SYNCFAB_DQ_FIELD(FLOW_SUMMARY, RUNNING);
SYNCFAB_DQ_FIELD(FLOW_SUMMARY, DONE);
SYNCFAB_DQ_FIELD(FLOW_SUMMARY, ERROR);
SYNCFAB_DQ_REG(FLOW_SEL);
SYNCFAB_DQ_FIELD(FLOW_SEL, INDEX);
SYNCFAB_DQ_REG(FLOW_STATUS);
SYNCFAB_DQ_FIELD(FLOW_STATUS, STATE);
SYNCFAB_DQ_FIELD(FLOW_STATUS, ERR);
SYNCFAB_DQ_REG(FLOW_SENT);
SYNCFAB_DQ_FIELD(FLOW_SENT, PKTS);
SYNCFAB_DQ_REG(FLOW_RATE);
SYNCFAB_DQ_FIELD(FLOW_RATE, RC);
SYNCFAB_DQ_REG(FLOW_TARGET);
SYNCFAB_DQ_FIELD(FLOW_TARGET, RT);
SYNCFAB_DQ_REG(FLOW_ALPHA);
SYNCFAB_DQ_FIELD(FLOW_ALPHA, ALPHA);
SYNCFAB_DQ_REG(FLOW_CNP);
SYNCFAB_DQ_FIELD(FLOW_CNP, COUNT);

#undef SYNCFAB_DQ_REG
#undef SYNCFAB_DQ_FIELD

}  // namespace syncfab::hw::dcqcn
