#include "syncfab/driver/memory_device.hpp"

#include <string>

#include "hex.hpp"
#include "syncfab/driver/errors.hpp"
#include "syncfab/driver/nic_regs.hpp"

namespace syncfab::driver {

using detail::hex;

MemoryDevice::MemoryDevice(BusAddr dma_base, std::size_t dma_size)
    : regs_(nic::kBlockBytes / sizeof(std::uint32_t), 0), memory_(dma_base, dma_size) {
  regs_[index(nic::ID.offset, "init")] = nic::ID_MAGIC.put(nic::kMagic);
  regs_[index(nic::VERSION.offset, "init")] =
      nic::VERSION_MAJOR.put(nic::kVersionMajor) | nic::VERSION_MINOR.put(nic::kVersionMinor);
}

std::size_t MemoryDevice::index(std::uint32_t offset, const char* what) const {
  if (offset % sizeof(std::uint32_t) != 0 || offset >= nic::kBlockBytes) {
    throw BusError(std::string("CSR ") + what + " at offset " + hex(offset) +
                   ": not a 32-bit aligned offset inside the " + std::to_string(nic::kBlockBytes) +
                   "-byte register block");
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
