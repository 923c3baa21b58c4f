#pragma once
// Fabric comparisons for the subnet manager harnesses: what a net file
// round trip must keep.
#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/net_format.hpp"

namespace syncfab::fuzz {

inline void same_fabric(const sm::Fabric& a, const sm::Fabric& b) {
  check(a.node_count() == b.node_count(), "round trip changed the node count");
  // Messages are built only for a difference: this runs for every port.
  auto differs = [&](sm::NodeId n, const std::string& what) {
    finding("node " + std::to_string(n) + " (" + a.id(n) + "): " + what);
  };
  for (sm::NodeId n = 0; n < a.node_count(); ++n) {
    if (a.type(n) != b.type(n)) {
      differs(n, "type changed");
    }
    if (a.guid(n) != b.guid(n)) {
      differs(n, "GUID changed");
    }
    if (a.num_ports(n) != b.num_ports(n)) {
      differs(n, "port count changed");
    }
    if (a.name(n) != b.name(n)) {
      differs(n, "name \"" + a.name(n) + "\" became \"" + b.name(n) + "\"");
    }
    if (a.find(a.name(n)) != n) {
      differs(n, "name \"" + a.name(n) + "\" does not find the node");
    }
    if (a.lid(n) != b.lid(n)) {
      differs(n, "LID changed");
    }
    for (int p = 1; p <= a.num_ports(n); ++p) {
      const auto port = static_cast<sm::PortNum>(p);
      if (a.peer(n, port) != b.peer(n, port)) {
        differs(n, "the link on port " + std::to_string(p) + " changed");
      }
      if (a.lid(n, port) != b.lid(n, port)) {
        differs(n, "the LID of port " + std::to_string(p) + " changed");
      }
    }
  }
}

inline std::string net_text(const sm::Fabric& f) {
  std::ostringstream out;
  sm::write_net(out, f);
  return out.str();
}

// Writes `f`, reads it back, and checks that nothing changed, including the
// text of a second write.
inline void net_round_trip(const sm::Fabric& f) {
  const std::string text = net_text(f);
  std::istringstream in(text);
  sm::Fabric again;
  try {
    again = sm::read_net(in, "written.net");
  } catch (const sm::InputError& e) {
    finding(std::string("the writer's output does not read back: ") + e.what());
  }
  same_fabric(f, again);
  check(net_text(again) == text, "writing the re-read fabric gives other text");
}

}  // namespace syncfab::fuzz
