// A register and a field of a device's CSR block, as software names them.
// The numbers always come from a header PeakRDL generated from the block's
// SystemRDL (nic_regs.hpp, switch_regs.hpp), never written by hand.
#pragma once

#include <cstdint>
#include <string_view>

namespace syncfab::hw {

struct Reg {
  std::uint32_t offset;  // bytes from the start of the block
  std::string_view name;
};

struct Field {
  Reg reg;
  std::uint32_t mask;  // in register position
  unsigned shift;
  unsigned width;
  std::string_view name;  // "REG.FIELD"

  [[nodiscard]] constexpr std::uint32_t get(std::uint32_t reg_value) const noexcept {
    return (reg_value & mask) >> shift;
  }
  [[nodiscard]] constexpr bool fits(std::uint32_t value) const noexcept {
    return width >= 32 || (value >> width) == 0;
  }
  // value placed at the field's position; std::invalid_argument naming the
  // field if it does not fit.
  [[nodiscard]] std::uint32_t put(std::uint32_t value) const;
  // The same field in another instance of its register (an array element or
  // a per-port copy): same mask, position and name, other offset.
  [[nodiscard]] constexpr Field at(Reg other) const noexcept {
    return Field{other, mask, shift, width, name};
  }
};

}  // namespace syncfab::hw
