// A device as software reaches it: its CSR block, the host memory it reaches
// by DMA, and its interrupt line. The driver talks to every backend through
// this interface (the in-memory mock, the golden model, the verilated RTL; a
// real device would be one more backend, e.g. through UIO/VFIO) -- that is how
// a descriptor format is validated -- and the golden model implements it
// without knowing the driver.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>

namespace syncfab::hw {

// An address on the device's memory bus (what the NIC puts on its DMA port).
using BusAddr = std::uint64_t;

// Memory the device reaches by DMA: descriptor rings it fetches from,
// completion records and completion-queue entries it writes. Byte addressed,
// little-endian where words are concerned.
class DmaMemory {
 public:
  DmaMemory() = default;
  DmaMemory(const DmaMemory&) = delete;
  DmaMemory& operator=(const DmaMemory&) = delete;
  DmaMemory(DmaMemory&&) = delete;
  DmaMemory& operator=(DmaMemory&&) = delete;
  virtual ~DmaMemory() = default;

  // Copy out.size() bytes starting at addr. Throws DmaError if any byte is
  // outside the memory.
  virtual void read(BusAddr addr, std::span<std::byte> out) const = 0;
  // Copy data to addr. Throws DmaError if any byte is outside the memory.
  virtual void write(BusAddr addr, std::span<const std::byte> data) = 0;

  [[nodiscard]] std::uint32_t read32(BusAddr addr) const;
  void write32(BusAddr addr, std::uint32_t value);
  [[nodiscard]] std::uint64_t read64(BusAddr addr) const;
  void write64(BusAddr addr, std::uint64_t value);
};

class Device {
 public:
  Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  Device(Device&&) = delete;
  Device& operator=(Device&&) = delete;
  virtual ~Device() = default;

  // 32-bit CSR access at a byte offset into the block. Throws BusError when
  // the device refuses the access (unmapped or unaligned offset, bus error).
  virtual std::uint32_t read32(std::uint32_t offset) = 0;
  virtual void write32(std::uint32_t offset, std::uint32_t value) = 0;

  // The memory this device reaches by DMA.
  virtual DmaMemory& dma() = 0;

  // Waits until the interrupt line is (or already was) raised, up to timeout.
  // Returns true if it was raised, false on timeout. The time is the device's
  // own: wall-clock on hardware, simulated time on a simulated device.
  // Clearing the cause is the caller's job (INTR_STATUS is write-1-to-clear).
  virtual bool wait_interrupt(std::chrono::nanoseconds timeout) = 0;
};

}  // namespace syncfab::hw
