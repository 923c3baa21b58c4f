// The user-space switch API: program the forwarding tables the subnet
// manager computed (LFT, MFT), PFC thresholds and timing, the PFC watchdog,
// the hook-flow remap, WRED/ECN and the scheduler; read counters and the
// watchdog state. Talks only to the Device interface, so it runs unchanged
// on the golden model and on the verilated switch.
//
// Every configure_* call validates its whole argument first and writes
// nothing if any part is refused (std::invalid_argument naming the port,
// priority and rule), so a refused configuration loses nothing that was
// programmed before.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/driver/identity.hpp"
#include "syncfab/hw/device.hpp"
#include "syncfab/hw/switch_regs.hpp"

namespace syncfab::driver {

struct SwitchInfo {
  Identity id;
  unsigned ports = 0;
  unsigned prios = 0;
  unsigned buf_cells = 0;  // ingress buffer of one port
  unsigned lft_entries = 0;
  unsigned mft_entries = 0;
};

// What the lossless check needs to know about the link a port drives.
struct LinkParams {
  unsigned delay_cycles = 0;     // one-way, flit leaving here to flit arriving there
  unsigned max_pkt_flits = 255;  // largest packet (len_flits) on the link
};

// Cells that can still arrive at an ingress buffer after its occupancy
// reached XOFF, at one flit per cycle (docs/switch-driver.md derives it):
// 1 (pause frame raised) + max packet (our egress finishes the packet it is
// sending) + 2 (the pause frame) + delay (to the peer) + 1 (peer's pause
// takes effect) + max packet (peer finishes its packet) + delay (flits in
// flight back to us).
unsigned required_headroom(const LinkParams& link);

struct PfcPriority {
  bool lossless = false;     // PFC on this priority
  std::uint16_t xoff = 0;    // cells
  std::uint16_t xon = 0;     // cells, <= xoff
  std::uint16_t quanta = 0;  // pause time sent, >= 1
};
using PfcPortConfig = std::array<PfcPriority, fmt::kNumPrio>;

struct PfcTiming {
  std::uint8_t cyc_per_quantum = 8;
  std::uint16_t refresh = 256;  // 0 = never re-send a pause
};

struct WredQueue {
  bool enable = false;
  std::uint16_t kmin = 0;
  std::uint16_t kmax = 0;
  std::uint8_t pmax = 0;  // probability at Kmax = pmax / 256
};

struct SchedConfig {
  std::uint8_t sp_mask = 0;                          // strict-priority queues
  std::array<std::uint8_t, fmt::kNumPrio> weight{};  // WDRR quanta (flits), >= 1 for WDRR queues
};

struct WatchdogConfig {
  std::uint32_t detect_cycles = 0;   // >= 1, < 2^24
  std::uint32_t recover_cycles = 0;  // >= 1, < 2^24
  std::uint32_t window_cycles = 0;   // >= 1, < 2^24
  std::uint8_t limit = 0;            // > limit deadlocks per window disable PFC; 0 = never
};

struct WatchdogPort {
  std::uint8_t enable_mask = 0;
  bool drop_mode = false;
};

struct RemapEntry {
  std::uint8_t prio = 0;  // 0..7
  std::uint8_t dscp = 0;  // 0..63
};
struct RemapConfig {
  bool enable = false;
  std::uint8_t uplink_mask = 0;
  std::array<RemapEntry, fmt::kNumPrio> map{};  // indexed by the original priority
};

// An LFT entry names an output port, or with group set a port group
// (docs/switch-ecmp.md): port is then the group index.
struct LftEntry {
  std::uint16_t lid = 0;
  std::uint8_t port = 0;
  bool group = false;
  friend bool operator==(const LftEntry&, const LftEntry&) = default;
};

// A port group (TBL_ADDR.TABLE 6): index 0 .. PORT_GROUPS - 1, member ports
// as a mask.
struct PortGroupEntry {
  unsigned group = 0;
  std::uint32_t members = 0;
};

// A group's combine entry (docs/group-barrier.md, "The switch's combine
// unit"): the tree ports towards the members, the port towards the root
// switch, and the epoch of the next barrier.
struct CombineEntry {
  std::uint32_t children = 0;  // port mask, not empty
  bool root = false;
  unsigned parent = 0;      // ignored at the root
  std::uint16_t epoch = 0;  // written: the first barrier's; read: the one it waits for now
  friend bool operator==(const CombineEntry&, const CombineEntry&) = default;
};

// A ring-mode combine entry (docs/group-barrier.md "Ring mode"): the
// member ports, per phase of the torus the ring geometry and the positions
// whose shares the switch waits for, and the epoch of the next barrier.
struct RingPhaseEntry {
  bool valid = false;  // the switch's ring of this phase carries shares
  unsigned plus = 0;   // port towards pos + 1
  unsigned minus = 0;  // port towards pos - 1
  unsigned pos = 0;
  unsigned len = 0;
  bool origin = false;       // the switch sends its own share
  std::uint32_t expect = 0;  // ring positions waited for, one bit each
  friend bool operator==(const RingPhaseEntry&, const RingPhaseEntry&) = default;
};

struct RingCombineEntry {
  std::uint32_t children = 0;  // member ports (may be empty: a switch without members)
  unsigned phases = 1;         // 1 .. COMB_PHASES
  std::array<RingPhaseEntry, fmt::kCombPhases> phase{};
  std::uint16_t epoch = 0;  // written: the first barrier's; read: the one it waits for now
  friend bool operator==(const RingCombineEntry&, const RingCombineEntry&) = default;
};

class Switch {
 public:
  // Checks the block identity (DeviceMismatch if it is not a switch of this
  // map's major version) and reads the hardware configuration.
  explicit Switch(hw::Device& device);

  [[nodiscard]] const SwitchInfo& info() const noexcept { return info_; }
  void enable(bool on);

  // Unicast: LID -> output port. An unprogrammed LID drops.
  void set_lft(std::uint16_t lid, unsigned port);
  void clear_lft(std::uint16_t lid);
  [[nodiscard]] std::optional<unsigned> lft(std::uint16_t lid);
  // Whole block; validated first (every LID and port, every group index
  // below PORT_GROUPS and programmed on the switch), then written.
  void program_lft(std::span<const LftEntry> entries);
  // The entry of a LID as written (port or group), nullopt when unprogrammed.
  [[nodiscard]] std::optional<LftEntry> lft_entry(std::uint16_t lid);

  // Port groups (docs/switch-ecmp.md): a group's member ports. Refused,
  // naming the value: a group index >= PORT_GROUPS, an empty set, a member
  // port >= NUM_PORTS, a member whose PORT_UP bit is 0. program_port_groups
  // checks every group first, then writes them.
  void set_port_group(unsigned group, std::uint32_t members);
  void program_port_groups(std::span<const PortGroupEntry> groups);
  void clear_port_group(unsigned group);
  [[nodiscard]] std::optional<std::uint32_t> port_group(unsigned group);
  // PORT_UP: bit p = port p in service for port groups (reset all ones). A
  // port whose bit is cleared is skipped by every group at once, and each
  // packet whose group skipped one is counted in GROUP_SKIPS (saturating,
  // cleared by clear_counters).
  void set_port_up(std::uint32_t mask);
  [[nodiscard]] std::uint32_t port_up();
  [[nodiscard]] std::uint32_t group_skips();

  // Multicast: MLID (>= 0xC000) -> output port mask.
  void set_mft(std::uint16_t mlid, std::uint32_t port_mask);
  void clear_mft(std::uint16_t mlid);
  [[nodiscard]] std::optional<std::uint32_t> mft(std::uint16_t mlid);

  // Combine entry of an MLID: children first, then the control word (which
  // clears the entry's arrivals), both read back. Refused (naming the value)
  // when a port does not exist, children is empty, a non-root's parent is
  // one of its children, or the entry disagrees with the MLID's MFT entry
  // (which must be programmed first: its mask must be the children, plus the
  // parent below the root) -- the switch would drop every arrival.
  void set_combine(std::uint16_t mlid, const CombineEntry& entry);
  void clear_combine(std::uint16_t mlid);
  // The tree entry of an MLID; nullopt when none or when it is in ring mode.
  [[nodiscard]] std::optional<CombineEntry> combine(std::uint16_t mlid);

  // Ring-mode combine entry of an MLID: children, then every phase's ring
  // words (geometry and expected positions, zero for a phase that is not
  // valid), then the control word (RING, PHASES, epoch; it clears the
  // entry's state), all read back. Refused (naming the value) when it is
  // not consistent: PHASES outside 1 .. COMB_PHASES, a valid phase at or
  // beyond PHASES, a ring port that does not exist or is a child, LEN
  // outside 2 .. COMB_RING_MAX, POS not below LEN, EXPECT at or above bit
  // LEN or with bit POS, ORIGIN or EXPECT on a phase that is not valid,
  // children naming ports the switch does not have or outside the MLID's
  // programmed MFT mask (a switch without members needs no MFT entry), or
  // an entry with neither children nor a valid phase.
  void set_ring_combine(std::uint16_t mlid, const RingCombineEntry& entry);
  void clear_ring_combine(std::uint16_t mlid);
  // nullopt when the MLID has no entry or a tree entry.
  [[nodiscard]] std::optional<RingCombineEntry> ring_combine(std::uint16_t mlid);

  // PFC timing, checked against every port's lossless quanta: a pause must
  // outlast the refresh that renews it (refresh + largest packet + 3 cycles
  // < quanta x cycles per quantum) or the peer resumes while still congested,
  // and a lossless priority needs a refresh at all (refresh != 0).
  void set_pfc_timing(const PfcTiming& timing);
  // A port's PFC priorities; refused when XON > XOFF, a lossless quanta is
  // 0 or too short for the refresh, or the buffer cannot hold every
  // lossless XOFF plus the headroom the link needs.
  void configure_pfc(unsigned port, const PfcPortConfig& cfg, const LinkParams& link);

  void configure_wred(unsigned port, unsigned queue, const WredQueue& q);
  void configure_scheduler(unsigned port, const SchedConfig& cfg);
  void configure_watchdog(const WatchdogConfig& cfg);
  void configure_watchdog_port(unsigned port, const WatchdogPort& cfg);
  // Turns PFC back on for queues the watchdog disabled.
  void reenable_pfc(unsigned port, std::uint8_t prio_mask);
  [[nodiscard]] std::array<fmt::WdState, fmt::kNumPrio> watchdog_state(unsigned port);

  void configure_remap(const RemapConfig& cfg);

  [[nodiscard]] std::uint32_t counter(unsigned port, unsigned prio, fmt::SwCounter kind);
  void clear_counters();
  [[nodiscard]] std::uint32_t interrupt_status();
  void clear_interrupts(std::uint32_t mask);

 private:
  void check_port(unsigned port, const char* what) const;
  std::uint32_t table_read(unsigned table, unsigned index);
  void table_write(unsigned table, unsigned index, std::uint32_t data);
  unsigned mft_index(std::uint16_t mlid, const char* what) const;
  void check_ring_entry(std::uint16_t mlid, const RingCombineEntry& entry);
  void check_lid(std::uint16_t lid, const char* what) const;
  void check_port_group(const PortGroupEntry& g, std::uint32_t up, const char* what) const;

  void check_refresh(unsigned port, const PfcPortConfig& cfg, const PfcTiming& timing,
                     const LinkParams& link) const;
  [[nodiscard]] PfcPortConfig read_pfc(unsigned port);
  [[nodiscard]] PfcTiming read_pfc_timing();

  hw::Device* device_;
  SwitchInfo info_;
  // The link of each port as given to configure_pfc (the refresh check of
  // set_pfc_timing needs its largest packet; unknown ports count 255 flits).
  std::array<LinkParams, hw::switch_regs::kMaxPorts> links_{};
};

}  // namespace syncfab::driver
