#include "syncfab/hw/reg_field.hpp"

#include <stdexcept>
#include <string>

#include "syncfab/hw/hex.hpp"

namespace syncfab::hw {

std::uint32_t Field::put(std::uint32_t value) const {
  if (!fits(value)) {
    throw std::invalid_argument("value " + hex(value) + " does not fit " + std::string(name) +
                                " (" + std::to_string(width) + " bits)");
  }
  return (value << shift) & mask;
}

}  // namespace syncfab::hw
