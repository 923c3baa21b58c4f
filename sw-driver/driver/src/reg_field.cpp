#include "syncfab/driver/nic_regs.hpp"

#include <stdexcept>
#include <string>

#include "hex.hpp"

namespace syncfab::driver {

using detail::hex;

std::uint32_t nic::Field::put(std::uint32_t value) const {
  if (!fits(value)) {
    throw std::invalid_argument("value " + hex(value) + " does not fit " + std::string(name) +
                                " (" + std::to_string(width) + " bits)");
  }
  return (value << shift) & mask;
}

}  // namespace syncfab::driver
