// The NIC's management mailbox (docs/group-protocol.md section 1): one
// management datagram (fmt::MgmtMsg) out per send, the receive FIFO's head
// in. It uses only the MBOX_* registers, beside whatever Nic drives the
// same device's queues.
#pragma once

#include <cstdint>
#include <optional>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/hw/device.hpp"

namespace syncfab::driver {

struct Datagram {
  std::uint16_t src = 0;  // the sender's LID
  fmt::MgmtMsg msg;
};

class Mailbox {
 public:
  // DeviceMismatch for a device without the mailbox (VERSION.MINOR < 5).
  explicit Mailbox(hw::Device& device);

  // Sends `msg` to `dst` (a unicast LID, std::invalid_argument otherwise);
  // false, and nothing sent, while the previous send is still leaving.
  bool send(std::uint16_t dst, const fmt::MgmtMsg& msg);
  // The oldest datagram received, removed from the FIFO; nullopt when empty.
  std::optional<Datagram> receive();
  [[nodiscard]] unsigned depth() const { return depth_; }  // HW_CFG2.MBOX_DEPTH

 private:
  hw::Device* device_;
  unsigned depth_ = 0;
};

}  // namespace syncfab::driver
