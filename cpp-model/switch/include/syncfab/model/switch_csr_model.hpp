// The switch's CSR block as the golden model sees it: an hw::Device with
// the semantics switch_csr.rdl describes -- read-only and write-only
// registers refused with a bus error (as the RTL's PSLVERR), single-pulse
// fields reading 0, write-1-to-clear interrupt causes, the index/data table
// access (LFT, MFT, the combine tables of docs/group-barrier.md §5) and the
// select/value counter access. The switch model
// (and tests) play the hardware side through the hw_* calls.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/hw/device.hpp"

namespace syncfab::model {

// One combine entry (docs/group-barrier.md §5), per MFT entry: programmed
// through TBL_ADDR.TABLE 2 (children) and 3 (control word), its epoch and
// arrivals then kept by the switch's combine unit.
struct CombineEntry {
  std::uint32_t children = 0;  // port mask
  bool valid = false;
  bool root = false;
  std::uint8_t parent = 0;    // a port (ignored when root)
  std::uint16_t epoch = 0;    // the epoch the entry waits for
  std::uint32_t arrived = 0;  // port mask, cleared by a control-word write

  // Control word layout (switch_csr.rdl TBL_WDATA): PARENT[7:0],
  // EPOCH[23:8], ROOT[30], VALID[31].
  static constexpr std::uint32_t kParentMask = 0xFFU;
  static constexpr unsigned kEpochShift = 8;
  static constexpr std::uint32_t kRootBit = 1U << 30;
  static constexpr std::uint32_t kValidBit = 1U << 31;
  [[nodiscard]] std::uint32_t control_word() const noexcept {
    return (valid ? kValidBit : 0U) | (root ? kRootBit : 0U) |
           (std::uint32_t{epoch} << kEpochShift) | parent;
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
  // The combine entries, one per MFT entry; the combine unit updates epoch
  // and arrived.
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

  SwitchCsrParams params_;
  std::vector<std::uint32_t> regs_;
  std::vector<std::uint32_t> lft_;
  std::vector<std::uint32_t> mft_;
  std::vector<CombineEntry> combine_;
  std::vector<std::uint32_t> counters_;  // [port][prio][kind]
  std::vector<std::uint16_t> wd_state_;  // per port, 2 bits per priority
  std::vector<std::pair<unsigned, std::uint8_t>> reenables_;
  // The switch has no DMA port: every access is refused.
  class NoDma final : public hw::DmaMemory {
   public:
    void read(hw::BusAddr addr, std::span<std::byte> out) const override;
    void write(hw::BusAddr addr, std::span<const std::byte> data) override;
  };
  NoDma no_dma_;
};

}  // namespace syncfab::model
