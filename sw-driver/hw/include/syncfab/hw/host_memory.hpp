// Host memory as one contiguous DMA-visible region [base, base + size): what
// the simulated backends give the device to fetch descriptors from and write
// completions to.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "syncfab/hw/device.hpp"

namespace syncfab::hw {

class HostMemory final : public DmaMemory {
 public:
  // Zero-filled region. Throws std::invalid_argument if size is 0 or the
  // region would wrap past the end of the 64-bit bus.
  HostMemory(BusAddr base, std::size_t size);

  [[nodiscard]] BusAddr base() const noexcept { return base_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }

  void read(BusAddr addr, std::span<std::byte> out) const override;
  void write(BusAddr addr, std::span<const std::byte> data) override;

 private:
  // Offset of [addr, addr + len) in bytes_, or DmaError naming the access.
  std::size_t locate(BusAddr addr, std::size_t len, const char* what) const;

  BusAddr base_;
  std::vector<std::byte> bytes_;
};

}  // namespace syncfab::hw
