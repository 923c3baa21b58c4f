// Read-only view of switch_top's internal state through the verilated model
// (Vswitch_top___024root), for the fabric's per-cycle traces: the PFC state
// of each egress (pfc_rx xoff_o / stop_o), each ingress buffer's occupancy
// per arrival priority and free cells, and the watchdog state. The member
// names are Verilator's flattening of the hierarchy of rtl/switch/switch_top.sv
// (gen_ingress[p].u_ingress, gen_egress[p].u_egress) for the signals the RTL
// marks `verilator public_flat_rd`, so they survive optimisation under their
// names; a renamed RTL signal fails the build here, not silently at run time.
// switch_probe_ports.hpp probes a switch of either verilated shape.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "syncfab/fmt/formats.hpp"

class Vswitch_top;  // vl_switch_top8's model

namespace syncfab::tb::swfab {

struct PortProbe {
  const std::uint8_t* xoff = nullptr;   // [7:0] pfc_rx xoff_o: the peer holds queue q paused
  const std::uint8_t* stop = nullptr;   // [7:0] egress stop_o: queue q not scheduled
  const std::uint32_t* occ = nullptr;   // occ_q: kNumPrio x kOccBits cells per arrival prio
  const std::uint16_t* free = nullptr;  // [8:0] free_q: free cells of the ingress buffer
  const std::uint16_t* wd = nullptr;    // pfc_watchdog state_q: kNumPrio x kWdStateWidth bits
  const std::uint32_t* cnt = nullptr;   // switch_counters gen_port[p].cnt_q[{prio, kind}]

  // A cell count of the probed shapes (vl_switch_top8 and vl_switch_top16:
  // 256 cells, 0..256).
  static constexpr unsigned kOccBits = std::bit_width(256U);
  static_assert(fmt::kNumPrio * fmt::kWdStateWidth <= 16, "state_q fits the probe's word");

  [[nodiscard]] std::uint32_t occupancy(unsigned prio) const {
    const unsigned bit = kOccBits * prio;
    std::uint64_t w = occ[bit / 32];
    if (bit % 32 + kOccBits > 32) {
      w |= static_cast<std::uint64_t>(occ[bit / 32 + 1]) << 32U;
    }
    return static_cast<std::uint32_t>((w >> (bit % 32)) & ((1U << kOccBits) - 1U));
  }
  [[nodiscard]] unsigned wd_state(unsigned prio) const {
    return (*wd >> (fmt::kWdStateWidth * prio)) & ((1U << fmt::kWdStateWidth) - 1U);
  }
  // This port's counter (prio, kind) (what CNT_SEL/CNT_VALUE read).
  [[nodiscard]] std::uint32_t counter(unsigned prio, unsigned kind) const {
    // The array is indexed {prio, kind}: kSwCounterWidth bits of kind.
    return cnt[(prio << fmt::kSwCounterWidth) + kind];
  }
};

// The probes of ports 0..7 of an 8-port switch_top.
std::array<PortProbe, 8> probe_ports(Vswitch_top& dut);

// switch_counters' counter (port, prio, kind) (what CNT_SEL/CNT_VALUE read).
std::uint32_t counter_value(Vswitch_top& dut, unsigned port, unsigned prio, unsigned kind);

}  // namespace syncfab::tb::swfab
