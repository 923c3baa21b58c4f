// The switch's run-time configuration as the datapath reads it from its CSR
// block (switch_csr.rdl fields, decoded): the datapath model takes one
// snapshot per cycle, as the RTL samples its registers every cycle.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/model/ecn_controller.hpp"
#include "syncfab/model/switch_csr_model.hpp"
#include "syncfab/model/wred_ecn.hpp"

namespace syncfab::model {

struct SwitchPortConfig {
  std::uint8_t pfc_en = 0;   // PFC_EN.MASK: lossless priorities
  std::uint8_t sp_mask = 0;  // SCHED.SP_MASK
  std::uint8_t wd_enable = 0;
  bool wd_drop_mode = false;
  std::uint8_t wred_en = 0;
  std::array<std::uint32_t, fmt::kNumPrio> weight{};  // WDRR quanta per queue
  std::array<std::uint32_t, fmt::kNumPrio> xoff{};
  std::array<std::uint32_t, fmt::kNumPrio> xon{};
  std::array<std::uint16_t, fmt::kNumPrio> quanta{};
  std::array<WredConfig, fmt::kNumPrio> wred{};  // enable, Kmin, Kmax, Pmax (/256) per queue
  std::uint32_t lossy_limit = 0xFFFF;
};

struct SwitchConfig {
  bool enable = false;  // CTRL.ENABLE
  std::uint32_t cyc_per_quantum = 8;
  std::uint32_t refresh = 256;
  std::uint32_t wd_detect = 1;
  std::uint32_t wd_recover = 1;
  std::uint32_t wd_window = 1;
  std::uint32_t wd_limit = 0;
  bool remap_enable = false;
  std::uint8_t uplink_mask = 0;
  std::array<std::uint8_t, fmt::kNumPrio> remap_prio{};
  std::array<std::uint8_t, fmt::kNumPrio> remap_dscp{};
  std::vector<SwitchPortConfig> port;
};

// Decodes every field the datapath uses (raw register values, no bus rules).
SwitchConfig read_switch_config(const SwitchCsrModel& csr, unsigned ports);
// The same into an existing snapshot (no allocation once sized: the model
// takes one per cycle).
void read_switch_config(const SwitchCsrModel& csr, unsigned ports, SwitchConfig& out);

// The dynamic ECN registers (ECN_DYN_CTRL, ECN_DYN_TARGET, ECN_DYN_PMAX) as
// the CSR block holds them; it refuses the words the law cannot take.
EcnDynConfig read_ecn_dyn_config(const SwitchCsrModel& csr);
// Their three words written through the CSR block (hw::BusError as for any
// refused write).
void write_ecn_dyn_config(SwitchCsrModel& csr, const EcnDynConfig& cfg);

}  // namespace syncfab::model
