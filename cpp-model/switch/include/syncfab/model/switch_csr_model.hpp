// The switch's CSR block as the golden model sees it: an hw::Device with
// the semantics switch_csr.rdl describes -- read-only and write-only
// registers refused with a bus error (as the RTL's PSLVERR), single-pulse
// fields reading 0, write-1-to-clear interrupt causes, the index/data table
// access (LFT, MFT, the combine tables of docs/group-barrier.md §5 and §9,
// the port groups of docs/switch-ecmp.md) and the
// select/value counter access. The switch model
// (and tests) play the hardware side through the hw_* calls.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/hw/device.hpp"

namespace syncfab::model {

// One ring phase of a ring-mode combine entry (docs/group-barrier.md §9):
// TBL_ADDR.TABLE 4 (geometry) and 5 (expected positions), index
// (MLID - MLID_BASE) x 4 + phase.
struct RingPhase {
  std::uint32_t geometry = 0;  // the written word, reserved bits cleared
  std::uint32_t expect = 0;    // EXPECT: one bit per ring position

  // Geometry layout (switch_csr.rdl TBL_WDATA): PLUS[7:0], MINUS[15:8],
  // POS[20:16], LEN[26:21], ORIGIN[30], VALID[31].
  static constexpr unsigned kMinusShift = 8;
  static constexpr unsigned kPosShift = 16;
  static constexpr std::uint32_t kPosMask = 0x1FU;
  static constexpr unsigned kLenShift = 21;
  static constexpr std::uint32_t kLenMask = 0x3FU;
  static constexpr std::uint32_t kOriginBit = 1U << 30;
  static constexpr std::uint32_t kValidBit = 1U << 31;
  static constexpr std::uint32_t kStored =
      kValidBit | kOriginBit | (kLenMask << kLenShift) | (kPosMask << kPosShift) | 0xFFFFU;
  [[nodiscard]] unsigned plus() const noexcept { return geometry & 0xFFU; }
  [[nodiscard]] unsigned minus() const noexcept { return geometry >> kMinusShift & 0xFFU; }
  [[nodiscard]] unsigned pos() const noexcept { return geometry >> kPosShift & kPosMask; }
  [[nodiscard]] unsigned len() const noexcept { return geometry >> kLenShift & kLenMask; }
  [[nodiscard]] bool origin() const noexcept { return (geometry & kOriginBit) != 0; }
  [[nodiscard]] bool valid() const noexcept { return (geometry & kValidBit) != 0; }
  // Reach of a share travelling + (leaving by PLUS) and - (by MINUS).
  [[nodiscard]] unsigned reach_plus() const noexcept { return len() / 2; }
  [[nodiscard]] unsigned reach_minus() const noexcept {
    return len() == 0 ? 0 : len() - 1 - reach_plus();
  }
};

// Ring-table words per combine entry: the index's low two bits are the
// phase, so phases 0 .. 3 have a word each (COMB_PHASES of them are used).
inline constexpr unsigned kRingWordsPerEntry = 4;

// One combine entry (docs/group-barrier.md §5, §9), per MFT entry:
// programmed through TBL_ADDR.TABLE 2 (children), 3 (control word) and, in
// ring mode, 4 and 5 (per phase), its epoch, arrivals and ring state then
// kept by the switch's combine unit.
struct CombineEntry {
  std::uint32_t children = 0;  // port mask
  bool valid = false;
  bool root = false;
  std::uint8_t parent = 0;    // a port (ignored when root)
  std::uint16_t epoch = 0;    // the epoch the entry waits for
  std::uint32_t arrived = 0;  // port mask, cleared by a control-word write
  bool ring = false;          // ring mode (§9)
  std::uint8_t phases = 0;    // PHASES (ring mode)
  std::array<RingPhase, kRingWordsPerEntry> phase{};
  // Ring state, cleared by a control-word write: heard[b][d] = positions
  // heard in phase d for the epoch of parity b; sent, owe and query one bit
  // per phase; level the ask value of the shares and queries the entry sends.
  std::array<std::array<std::uint32_t, fmt::kCombPhases>, 2> heard{};
  std::uint8_t sent = 0;
  std::uint8_t owe = 0;
  std::array<std::uint16_t, fmt::kCombPhases> owe_epoch{};
  std::uint8_t query = 0;
  std::uint8_t level = 0;

  // Control word layout (switch_csr.rdl TBL_WDATA): PARENT[7:0],
  // EPOCH[23:8], PHASES[25:24], RING[29], ROOT[30], VALID[31].
  static constexpr std::uint32_t kParentMask = 0xFFU;
  static constexpr unsigned kEpochShift = 8;
  static constexpr unsigned kPhasesShift = 24;
  static constexpr std::uint32_t kPhasesMask = 0x3U;
  static constexpr std::uint32_t kRingBit = 1U << 29;
  static constexpr std::uint32_t kRootBit = 1U << 30;
  static constexpr std::uint32_t kValidBit = 1U << 31;
  [[nodiscard]] std::uint32_t control_word() const noexcept {
    return (valid ? kValidBit : 0U) | (root ? kRootBit : 0U) | (ring ? kRingBit : 0U) |
           (std::uint32_t{phases} << kPhasesShift) | (std::uint32_t{epoch} << kEpochShift) | parent;
  }
};

struct SwitchCsrParams {
  unsigned ports = 8;
  unsigned buf_cells = 1024;
  unsigned lft_entries = fmt::kLftEntries;
  unsigned mft_entries = fmt::kMftEntries;
};

class SwitchCsrModel final : public hw::Device {
 public:
  explicit SwitchCsrModel(const SwitchCsrParams& params = {});

  std::uint32_t read32(std::uint32_t offset) override;
  void write32(std::uint32_t offset, std::uint32_t value) override;
  hw::DmaMemory& dma() override { return no_dma_; }
  bool wait_interrupt(std::chrono::nanoseconds timeout) override;

  // Hardware side.
  [[nodiscard]] std::uint32_t reg(std::uint32_t offset) const;  // raw, no access rules
  [[nodiscard]] const std::vector<std::uint32_t>& lft() const noexcept { return lft_; }
  [[nodiscard]] const std::vector<std::uint32_t>& mft() const noexcept { return mft_; }
  // Port groups (docs/switch-ecmp.md): TBL_ADDR.TABLE 6, one word per group
  // (MASK below NUM_PORTS, VALID), fmt::kPortGroups of them; PORT_UP (reset
  // all ones) and the GROUP_SKIPS counter the ingress bumps.
  [[nodiscard]] const std::vector<std::uint32_t>& port_groups() const noexcept { return groups_; }
  [[nodiscard]] std::uint32_t port_up() const;
  [[nodiscard]] std::uint32_t group_skips() const noexcept { return group_skips_; }
  void hw_count_group_skip();
  // Dynamic ECN (docs/switch-ecn-dynamic.md §6): ECN_DYN_K and ECN_DYN_STATE
  // show the controller of queue CNT_SEL.PRIO of port CNT_SEL.PORT as it is
  // when read; the switch that owns the controllers answers through `status`
  // (port < NUM_PORTS, queue, false: the K word, true: the STATE word).
  using EcnStatus = std::function<std::uint32_t(unsigned port, unsigned q, bool state)>;
  void hw_set_ecn_status(EcnStatus status) { ecn_status_ = std::move(status); }
  // The combine entries, one per MFT entry; the combine unit updates epoch,
  // arrived and the ring state.
  [[nodiscard]] const std::vector<CombineEntry>& combine() const noexcept { return combine_; }
  [[nodiscard]] CombineEntry& hw_combine(std::size_t index) { return combine_.at(index); }
  void hw_count(unsigned port, unsigned prio, unsigned kind, std::uint32_t n = 1);
  void hw_set_wd_state(unsigned port, unsigned prio, unsigned state);
  void hw_raise(std::uint32_t intr_bits);
  // Re-enable pulses software wrote (port, mask), oldest first; the model
  // of the watchdog consumes them.
  std::vector<std::pair<unsigned, std::uint8_t>> take_reenables();
  [[nodiscard]] bool interrupt_line() const;

 private:
  [[nodiscard]] std::size_t index(std::uint32_t offset) const;
  // TBL_CMD on the combine tables (TABLE 2 .. 7).
  void table_access(unsigned table, unsigned idx, std::uint32_t cmd);

  SwitchCsrParams params_;
  std::vector<std::uint32_t> regs_;
  std::vector<std::uint32_t> lft_;
  std::vector<std::uint32_t> mft_;
  std::vector<std::uint32_t> groups_;
  std::uint32_t group_skips_ = 0;
  std::vector<CombineEntry> combine_;
  std::vector<std::uint32_t> counters_;  // [port][prio][kind]
  std::vector<std::uint16_t> wd_state_;  // per port, 2 bits per priority
  std::vector<std::pair<unsigned, std::uint8_t>> reenables_;
  EcnStatus ecn_status_;
  // The switch has no DMA port: every access is refused.
  class NoDma final : public hw::DmaMemory {
   public:
    void read(hw::BusAddr addr, std::span<std::byte> out) const override;
    void write(hw::BusAddr addr, std::span<const std::byte> data) override;
  };
  NoDma no_dma_;
};

}  // namespace syncfab::model
