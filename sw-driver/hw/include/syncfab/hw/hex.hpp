// "0x1f" spelling for addresses and register values in error messages, shared
// by the hardware-access layer and the driver so both spell them alike.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

namespace syncfab::hw {

inline std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

// "0x00ab": a 16-bit value (a LID, an epoch) at its full four digits.
inline std::string hex16(std::uint16_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x0000";
  for (int i = 0; i < 4; ++i) {
    s[static_cast<std::size_t>(5 - i)] = kDigits[(v >> (4 * i)) & 0xFU];
  }
  return s;
}

}  // namespace syncfab::hw
