// One stream port of a system node (a NIC's link port, a switch port) as the
// link that joins it sees it: valid/ready/data/last flits of fmt::kFlitBits,
// the same on every node. A backend drives and samples its own pins (a
// verilated model) or steps its own engine (a golden model) behind this
// interface, so the links and the fabric never know which one they talk to.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "syncfab/fmt/formats.hpp"

namespace syncfab::tb::system {

inline constexpr std::size_t kFlitBytes = fmt::kFlitBits / 8;
using Flit = std::array<std::uint8_t, kFlitBytes>;
inline constexpr std::size_t kPfcFrameFlits = fmt::PfcFrame::kSizeBytes / kFlitBytes;

struct LinkFlit {
  Flit data{};
  bool last = false;
};

// Per cycle, in this order: offer() before the clock edge (what the link
// shows on the node's rx; the link takes every flit the node sends, so
// tx_ready is high), then, once the node evaluated (ReadOnly), taken() and
// sent() for that same cycle.
class Port {
 public:
  Port() = default;
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;
  Port(Port&&) = delete;
  Port& operator=(Port&&) = delete;
  virtual ~Port() = default;

  // The flit on rx this cycle; nullptr: rx_valid low.
  virtual void offer(const LinkFlit* flit) = 0;
  // The node took the offered flit (rx_valid && rx_ready).
  [[nodiscard]] virtual bool taken() const = 0;
  // The flit the node sends this cycle (tx_valid), if any.
  [[nodiscard]] virtual std::optional<LinkFlit> sent() const = 0;
};

}  // namespace syncfab::tb::system
