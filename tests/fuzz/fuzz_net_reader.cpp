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
  // Names are compared only where they can travel: a node without a
  // description whose id is another node's description is written with that
  // text as its description, which then is shared and disambiguated (an open
  // finding, docs/fuzz.md).
  std::set<std::string> descriptions;
  for (syncfab::sm::NodeId n = 0; n < f.node_count(); ++n) {
    if (!f.description(n).empty()) {
      descriptions.insert(f.description(n));
    }
  }
  bool names = true;
  for (syncfab::sm::NodeId n = 0; n < f.node_count(); ++n) {
    names = names && (!f.description(n).empty() || descriptions.count(f.id(n)) == 0);
  }
  syncfab::fuzz::net_round_trip(f, names);
  return 0;
}
