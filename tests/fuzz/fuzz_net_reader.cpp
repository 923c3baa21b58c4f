// The net reader (ibnetdiscover / ibsim topology text): any input either
// parses or throws InputError. A fabric that parses, written back with the
// writer and re-read, is the same fabric (nodes, types, GUIDs, ports, links,
// LIDs, names), and writing it again gives the same text.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_sm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  syncfab::sm::Fabric f;
  try {
    f = syncfab::sm::read_net(in, "fuzz.net");
  } catch (const syncfab::sm::InputError&) {
    return 0;
  }
  syncfab::fuzz::net_round_trip(f);
  return 0;
}
