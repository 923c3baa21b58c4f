#include "syncfab/hw/host_memory.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/hex.hpp"

namespace syncfab::hw {

HostMemory::HostMemory(BusAddr base, std::size_t size) : base_(base) {
  if (size == 0) {
    throw std::invalid_argument("HostMemory: size must not be 0");
  }
  if (size - 1 > std::numeric_limits<BusAddr>::max() - base) {
    throw std::invalid_argument("HostMemory: region at " + hex(base) + " of " +
                                std::to_string(size) + " bytes wraps past the end of the bus");
  }
  bytes_.resize(size);
}

std::size_t HostMemory::locate(BusAddr addr, std::size_t len, const char* what) const {
  const BusAddr last = base_ + (bytes_.size() - 1);
  const bool inside =
      addr >= base_ && addr <= last && len <= bytes_.size() && addr - base_ <= bytes_.size() - len;
  if (!inside) {
    throw DmaError(std::string("DMA ") + what + " of " + std::to_string(len) + " bytes at " +
                   hex(addr) + " is outside host memory [" + hex(base_) + ", " + hex(last) + "]");
  }
  return static_cast<std::size_t>(addr - base_);
}

void HostMemory::read(BusAddr addr, std::span<std::byte> out) const {
  const std::size_t at = locate(addr, out.size(), "read");
  std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(at), out.size(), out.begin());
}

void HostMemory::write(BusAddr addr, std::span<const std::byte> data) {
  const std::size_t at = locate(addr, data.size(), "write");
  std::copy(data.begin(), data.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(at));
}

}  // namespace syncfab::hw
