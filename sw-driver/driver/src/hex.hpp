// "0x1f" spelling for addresses and register values in error messages.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

namespace syncfab::driver::detail {

inline std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

}  // namespace syncfab::driver::detail
