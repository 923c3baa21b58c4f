// A Device whose CSR block is plain memory: every register reads back what
// was last written, nothing acts on a write. For unit tests of driver code
// that only needs register values (identity checks, register encoding).
// The block is sized from the generated register map; it starts with the
// identity words the driver was built with (ID, VERSION), so a fresh
// MemoryDevice passes check_identity, and a test can overwrite them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "syncfab/hw/device.hpp"
#include "syncfab/hw/host_memory.hpp"

namespace syncfab::driver {

class MemoryDevice final : public hw::Device {
 public:
  // dma_base/dma_size: the host memory region the device can reach.
  explicit MemoryDevice(hw::BusAddr dma_base = 0x1000'0000, std::size_t dma_size = 1 << 20);

  std::uint32_t read32(std::uint32_t offset) override;
  void write32(std::uint32_t offset, std::uint32_t value) override;
  hw::DmaMemory& dma() override { return memory_; }
  // No time passes in a memory device: returns at once, true (and consumes
  // one) if raise_interrupt() was called since the last successful wait.
  bool wait_interrupt(std::chrono::nanoseconds timeout) override;

  // Test hook: the device raises its interrupt line once.
  void raise_interrupt() noexcept { ++pending_interrupts_; }

 private:
  std::size_t index(std::uint32_t offset, const char* what) const;

  std::vector<std::uint32_t> regs_;
  hw::HostMemory memory_;
  unsigned pending_interrupts_ = 0;
};

}  // namespace syncfab::driver
