#include "syncfab/driver/mailbox.hpp"

#include <stdexcept>
#include <string>

#include "syncfab/driver/errors.hpp"
#include "syncfab/driver/identity.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace syncfab::driver {

namespace nic = hw::nic;

static_assert(fmt::MgmtMsg::kSizeBytes == 4 * nic::MBOX_TX_DATA.size());

Mailbox::Mailbox(hw::Device& device) : device_(&device) {
  const Identity id = check_identity(device);
  if (id.minor < nic::kMboxRegsMinor) {
    throw DeviceMismatch("device register map " + std::to_string(id.major) + "." +
                         std::to_string(id.minor) + " has no management mailbox (added in " +
                         std::to_string(nic::kVersionMajor) + "." +
                         std::to_string(nic::kMboxRegsMinor) + ")");
  }
  depth_ = hw::Csr(device).read(nic::HW_CFG2_MBOX_DEPTH);
}

bool Mailbox::send(std::uint16_t dst, const fmt::MgmtMsg& msg) {
  if (dst == fmt::kLidNone || dst >= fmt::kMlidBase) {
    throw std::invalid_argument("mailbox: destination LID " + std::to_string(dst) +
                                " is not a unicast LID");
  }
  hw::Csr csr(*device_);
  if (csr.read(nic::MBOX_STATUS_TX_BUSY) != 0) {
    return false;
  }
  const auto& b = msg.bytes();
  for (std::size_t w = 0; w < nic::MBOX_TX_DATA.size(); ++w) {
    csr.write(nic::MBOX_TX_DATA[w], static_cast<std::uint32_t>(b[4 * w]) |
                                        static_cast<std::uint32_t>(b[4 * w + 1]) << 8 |
                                        static_cast<std::uint32_t>(b[4 * w + 2]) << 16 |
                                        static_cast<std::uint32_t>(b[4 * w + 3]) << 24);
  }
  csr.write(nic::MBOX_TX_CTRL, {{nic::MBOX_TX_CTRL_DST_LID, dst}, {nic::MBOX_TX_CTRL_SEND, 1}});
  return true;
}

std::optional<Datagram> Mailbox::receive() {
  hw::Csr csr(*device_);
  if (csr.read(nic::MBOX_STATUS_RX_LEVEL) == 0) {
    return std::nullopt;
  }
  fmt::MgmtMsg::Bytes img{};
  for (std::size_t w = 0; w < nic::MBOX_RX_DATA.size(); ++w) {
    const std::uint32_t v = csr.read(nic::MBOX_RX_DATA[w]);
    for (std::size_t i = 0; i < 4; ++i) {
      img[4 * w + i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
  }
  Datagram d;
  d.src = static_cast<std::uint16_t>(csr.read(nic::MBOX_RX_SRC_SRC_LID));
  d.msg = fmt::MgmtMsg(img);
  csr.write(nic::MBOX_RX_POP, {{nic::MBOX_RX_POP_POP, 1}});
  return d;
}

}  // namespace syncfab::driver
