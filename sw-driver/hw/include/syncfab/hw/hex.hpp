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

}  // namespace syncfab::hw
