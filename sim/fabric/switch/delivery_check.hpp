// What the hosts received against what the flows sent: exactly once, in
// order per (flow, receiver), nowhere else (switch_fabric.hpp's records).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "switch_fabric.hpp"

namespace syncfab::tb::swfab {

struct DeliveryReport {
  std::uint64_t expected = 0;       // (packet, receiver) pairs that must arrive
  std::uint64_t delivered = 0;      // of those, arrived
  std::uint64_t lost = 0;           // expected, never arrived
  std::uint64_t duplicates = 0;     // a receiver got a packet twice
  std::uint64_t out_of_order = 0;   // a receiver got seq n after a seq > n of the same flow
  std::uint64_t unexpected = 0;     // a host that is not a receiver of the flow got it
  std::uint64_t malformed = 0;      // flit count != len_flits, or header fields changed
  std::vector<std::string> errors;  // the first few, with host, flow and seq
  [[nodiscard]] bool ok() const {
    return lost == 0 && duplicates == 0 && out_of_order == 0 && unexpected == 0 && malformed == 0;
  }
};
std::ostream& operator<<(std::ostream& out, const DeliveryReport& r);

// `receivers(flow)` = the hosts that must get every packet of that flow.
// Flows with `lossy(flow)` may lose packets (not counted as lost) but must
// still arrive at most once, in order and only at receivers.
DeliveryReport check_delivery(const Fabric& f, std::span<const unsigned> flows,
                              const std::function<std::vector<unsigned>(unsigned)>& receivers,
                              const std::function<bool(unsigned)>& lossy);

// The receiver of a unicast flow: the host whose LID is its dst_lid.
std::vector<unsigned> unicast_receiver(const Fabric& f, unsigned flow);

}  // namespace syncfab::tb::swfab
