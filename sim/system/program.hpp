// Programming the system's switches as a user does it: the subnet manager's
// LFT (sm::Lft, from any unicast engine) and multicast trees (sm::McTree)
// written into every switch through its own driver::Switch on its own Device
// (for the RTL, its real APB port; the driver reads back what it checks),
// then every switch enabled. The tables are the switch fabric's
// (swfab::lft_entries, swfab::mft_masks: SM data port p = switch port p - 1);
// with the SM's port groups (docs/switch-ecmp.md) each switch's groups go in
// before the LFT entries that name them (swfab::group_entries).
#pragma once

#include <cstddef>
#include <span>

#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/port_groups.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

struct ProgramReport {
  std::size_t lft_entries = 0;    // (switch, LID) entries written
  std::size_t mft_entries = 0;    // (switch, MLID) entries written
  std::size_t port_groups = 0;    // (switch, group) entries written
  std::size_t group_entries = 0;  // LFT entries of lft_entries that name a group
  std::uint64_t cycles = 0;       // simulated cycles the programming took
};

// Checks every entry against the switch's shape first (std::invalid_argument
// naming the switch and the LID or MLID past its table), then programs and
// enables every switch, one after the other. `groups` (none: single-port
// entries only) must be finalized for `lft`'s fabric.
ProgramReport program_switches(SystemFabric& sys, const sm::Lft& lft,
                               std::span<const sm::McTree> trees = {},
                               const sm::PortGroups* groups = nullptr);

// PFC on every linked port of every switch: the timing first (the driver
// checks each port's quanta against the refresh in force), then `cfg` with
// the port's link (its delay, packets of at most max_pkt_flits) for the
// lossless check. Call before program_switches: thresholds change only while
// a switch is disabled. The NICs honour the frames with PFC_CFG at its reset
// (nic_top::kCpqReset cycles per quantum): timing.cyc_per_quantum should
// match; the bulk hosts honour them with timing.cyc_per_quantum.
void configure_pfc(SystemFabric& sys, const driver::PfcTiming& timing,
                   const driver::PfcPortConfig& cfg, unsigned max_pkt_flits);

}  // namespace syncfab::tb::system
