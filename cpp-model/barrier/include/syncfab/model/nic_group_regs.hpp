// The NIC registers of the group barriers (VERSION.MINOR 4: HW_CFG2,
// GROUP_TIMEOUT, GROUP_RETRY_LIMIT), every number from the C header PeakRDL
// generates from rtl/nic/nic_csr.rdl, as hw::Reg / hw::Field. The model and
// its tests name them here so that the model does not wait on the
// hardware-access layer's list (syncfab/hw/nic_regs.hpp) to grow.
#pragma once

#include <cstddef>
#include <cstdint>

#include <syncfab/regs/nic_csr.h>
#include <syncfab/hw/reg_field.hpp>

namespace syncfab::model::group_regs {

inline constexpr hw::Reg kHwCfg2{static_cast<std::uint32_t>(offsetof(nic_csr_t, HW_CFG2)),
                                 "HW_CFG2"};
inline constexpr hw::Field kHwCfg2MaxMembers{
    kHwCfg2, NIC_CSR__HW_CFG2__MAX_MEMBERS_bm, NIC_CSR__HW_CFG2__MAX_MEMBERS_bp,
    NIC_CSR__HW_CFG2__MAX_MEMBERS_bw, "HW_CFG2.MAX_MEMBERS"};
inline constexpr hw::Reg kGroupTimeout{
    static_cast<std::uint32_t>(offsetof(nic_csr_t, GROUP_TIMEOUT)), "GROUP_TIMEOUT"};
inline constexpr hw::Field kGroupTimeoutCycles{
    kGroupTimeout, NIC_CSR__GROUP_TIMEOUT__CYCLES_bm, NIC_CSR__GROUP_TIMEOUT__CYCLES_bp,
    NIC_CSR__GROUP_TIMEOUT__CYCLES_bw, "GROUP_TIMEOUT.CYCLES"};
inline constexpr hw::Reg kGroupRetryLimit{
    static_cast<std::uint32_t>(offsetof(nic_csr_t, GROUP_RETRY_LIMIT)), "GROUP_RETRY_LIMIT"};
inline constexpr hw::Field kGroupRetryLimitLimit{
    kGroupRetryLimit, NIC_CSR__GROUP_RETRY_LIMIT__LIMIT_bm, NIC_CSR__GROUP_RETRY_LIMIT__LIMIT_bp,
    NIC_CSR__GROUP_RETRY_LIMIT__LIMIT_bw, "GROUP_RETRY_LIMIT.LIMIT"};

inline constexpr std::uint32_t kGroupTimeoutReset = NIC_CSR__GROUP_TIMEOUT__CYCLES_reset;
inline constexpr std::uint32_t kGroupRetryLimitReset = NIC_CSR__GROUP_RETRY_LIMIT__LIMIT_reset;

}  // namespace syncfab::model::group_regs
