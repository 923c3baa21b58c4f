#include "syncfab/driver/memory_device.hpp"

#include <string>

#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/hex.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace syncfab::driver {

using hw::hex;

MemoryDevice::MemoryDevice(hw::BusAddr dma_base, std::size_t dma_size)
    : regs_(hw::nic::kBlockBytes / sizeof(std::uint32_t), 0), memory_(dma_base, dma_size) {
  regs_[index(hw::nic::ID.offset, "init")] = hw::nic::ID_MAGIC.put(hw::nic::kMagic);
  regs_[index(hw::nic::VERSION.offset, "init")] =
      hw::nic::VERSION_MAJOR.put(hw::nic::kVersionMajor) |
      hw::nic::VERSION_MINOR.put(hw::nic::kVersionMinor);
}

std::size_t MemoryDevice::index(std::uint32_t offset, const char* what) const {
  if (offset % sizeof(std::uint32_t) != 0 || offset >= hw::nic::kBlockBytes) {
    throw hw::BusError(std::string("CSR ") + what + " at offset " + hex(offset) +
                       ": not a 32-bit aligned offset inside the " +
                       std::to_string(hw::nic::kBlockBytes) + "-byte register block");
  }
  return offset / sizeof(std::uint32_t);
}

std::uint32_t MemoryDevice::read32(std::uint32_t offset) { return regs_[index(offset, "read")]; }

void MemoryDevice::write32(std::uint32_t offset, std::uint32_t value) {
  regs_[index(offset, "write")] = value;
}

bool MemoryDevice::wait_interrupt(std::chrono::nanoseconds /*timeout*/) {
  if (pending_interrupts_ == 0) {
    return false;
  }
  --pending_interrupts_;
  return true;
}

}  // namespace syncfab::driver
