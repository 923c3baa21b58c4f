#include <array>
#include <cstddef>
#include <cstdint>

#include "syncfab/hw/device.hpp"

namespace syncfab::hw {

namespace {

// Little-endian byte order, whatever the host's: the bus is little-endian.
template <std::size_t N>
std::uint64_t load_le(const std::array<std::byte, N>& bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < N; ++i) {
    v |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  }
  return v;
}

template <std::size_t N>
std::array<std::byte, N> store_le(std::uint64_t v) {
  std::array<std::byte, N> bytes{};
  for (std::size_t i = 0; i < N; ++i) {
    bytes[i] = static_cast<std::byte>((v >> (8 * i)) & 0xffu);
  }
  return bytes;
}

}  // namespace

std::uint32_t DmaMemory::read32(BusAddr addr) const {
  std::array<std::byte, 4> b{};
  read(addr, b);
  return static_cast<std::uint32_t>(load_le(b));
}

void DmaMemory::write32(BusAddr addr, std::uint32_t value) {
  const auto b = store_le<4>(value);
  write(addr, b);
}

std::uint64_t DmaMemory::read64(BusAddr addr) const {
  std::array<std::byte, 8> b{};
  read(addr, b);
  return load_le(b);
}

void DmaMemory::write64(BusAddr addr, std::uint64_t value) {
  const auto b = store_le<8>(value);
  write(addr, b);
}

}  // namespace syncfab::hw
