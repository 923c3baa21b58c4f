// Generator specs (make_fabric: "torus:x=2,y=3,z=1,nodes=2", ...): any text
// either builds a fabric or throws FabricError. A fabric built has symmetric
// links and survives a net file round trip unchanged.
//
// Only small fabrics are built: a spec longer than 80 characters, with a
// number from 7 to 99,999, or leaving a size key of its kind at the default
// (the paper's fabrics, thousands of nodes) is skipped, so that each
// execution stays in the microseconds. Huge numbers stay in: the generators
// must refuse them before they allocate.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_sm.hpp"
#include "syncfab/sm/generators.hpp"

namespace {

bool small(std::string_view spec) {
  if (spec.size() > 80) {
    return false;
  }
  // A number is small (0..6) or huge (100,000 or more: refused by the
  // generators' limits, or a finding if it gets far enough to allocate);
  // leading zeros count for nothing.
  long value = -1;
  auto number_ok = [&] { return value <= 6 || value >= 100000; };
  for (const char c : spec) {
    if (c >= '0' && c <= '9') {
      value = std::min(100000L, (value < 0 ? 0 : value) * 10 + (c - '0'));
    } else {
      if (!number_ok()) {
        return false;
      }
      value = -1;
    }
  }
  if (!number_ok()) {
    return false;
  }
  const std::string_view kind = spec.substr(0, spec.find(':'));
  auto has = [&](std::initializer_list<std::string_view> keys) {
    for (const auto k : keys) {
      if (spec.find(std::string(k) + "=") == std::string_view::npos) {
        return false;
      }
    }
    return true;
  };
  if (kind == "fattree") {
    return has({"ports", "levels"});
  }
  if (kind == "pruned") {
    return has({"pods", "leaves", "nodes", "l2", "tops"});
  }
  if (kind == "torus") {
    return has({"x", "y", "z", "nodes"});
  }
  if (kind == "dragonfly") {
    return has({"a", "p", "h"});
  }
  return true;  // an unknown kind is refused before anything is built
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  if (!small(spec)) {
    return 0;
  }
  syncfab::sm::Fabric f;
  try {
    f = syncfab::sm::make_fabric(spec);
  } catch (const syncfab::sm::FabricError&) {
    return 0;
  }
  using syncfab::fuzz::check;
  for (syncfab::sm::NodeId n = 0; n < f.node_count(); ++n) {
    for (int p = 1; p <= f.num_ports(n); ++p) {
      const auto port = static_cast<syncfab::sm::PortNum>(p);
      const auto peer = f.peer(n, port);
      if (peer.connected()) {
        const auto back = f.peer(peer.node, peer.port);
        check(back.node == n && back.port == port,
              spec + ": the link " + f.id(n) + "[" + std::to_string(p) + "] is one-sided");
      }
    }
  }
  syncfab::fuzz::net_round_trip(f);
  return 0;
}
