// The member choice of a port group (docs/switch-ecmp.md section 2): the
// flow hash of a packet and the live member it selects. Pure functions, so
// the switch model, the driver's tests and the fabric harnesses compute the
// same port as the RTL.
#pragma once

#include <cstdint>
#include <span>

namespace syncfab::model {

// CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no
// reflection, no final XOR ("123456789" -> 0x29B1).
std::uint16_t crc16_ccitt_false(std::span<const std::uint8_t> bytes) noexcept;

// The flow hash over src_lid, dst_lid and the 20-bit flow label, 7 bytes
// first byte first.
std::uint16_t flow_hash(std::uint16_t src_lid, std::uint16_t dst_lid,
                        std::uint32_t flow_label) noexcept;

struct MemberChoice {
  int port = -1;         // the output port, -1 when no member is live (a miss)
  bool skipped = false;  // some member was skipped because its PORT_UP bit is 0
};

// Group `mask` for a packet that arrived on in_port, with the switch's
// PORT_UP and num_ports: live = mask & port_up & ~(1 << in_port) below
// num_ports; the member is the j-th live port, j = (hash x n) >> 16.
MemberChoice choose_member(std::uint32_t mask, std::uint32_t port_up, unsigned in_port,
                           unsigned num_ports, std::uint16_t hash) noexcept;

}  // namespace syncfab::model
