// The net reader (ibnetdiscover / ibsim topology text): any input either
// parses or throws InputError. A fabric that parses, written back with the
// writer and re-read, is the same fabric (nodes, types, GUIDs, ports, links,
// LIDs, names), and writing it again gives the same text.
#include <cstddef>
#include <cstdint>
#include <set>
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
  // Names are compared only where they tell the nodes apart: a description
  // equal to another node's id (of a node without a description) gives two
  // nodes one name, which a round trip then disambiguates (docs/fuzz.md).
  std::set<std::string> names;
  for (syncfab::sm::NodeId n = 0; n < f.node_count(); ++n) {
    names.insert(f.name(n));
  }
  syncfab::fuzz::net_round_trip(f, names.size() == f.node_count());
  return 0;
}
