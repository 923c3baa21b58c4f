#include "syncfab/model/port_group.hpp"

#include <array>
#include <bit>

namespace syncfab::model {

std::uint16_t crc16_ccitt_false(std::span<const std::uint8_t> bytes) noexcept {
  std::uint16_t crc = 0xFFFF;
  for (const std::uint8_t b : bytes) {
    crc ^= static_cast<std::uint16_t>(b << 8U);
    for (int k = 0; k < 8; ++k) {
      crc = (crc & 0x8000U) != 0 ? static_cast<std::uint16_t>((crc << 1U) ^ 0x1021U)
                                 : static_cast<std::uint16_t>(crc << 1U);
    }
  }
  return crc;
}

std::uint16_t flow_hash(std::uint16_t src_lid, std::uint16_t dst_lid,
                        std::uint32_t flow_label) noexcept {
  const std::array<std::uint8_t, 7> b{static_cast<std::uint8_t>(src_lid >> 8U),
                                      static_cast<std::uint8_t>(src_lid),
                                      static_cast<std::uint8_t>(dst_lid >> 8U),
                                      static_cast<std::uint8_t>(dst_lid),
                                      static_cast<std::uint8_t>(flow_label >> 16U & 0xFU),
                                      static_cast<std::uint8_t>(flow_label >> 8U),
                                      static_cast<std::uint8_t>(flow_label)};
  return crc16_ccitt_false(b);
}

MemberChoice choose_member(std::uint32_t mask, std::uint32_t port_up, unsigned in_port,
                           unsigned num_ports, std::uint16_t hash) noexcept {
  const std::uint32_t ports = num_ports >= 32 ? 0xFFFFFFFFU : (1U << num_ports) - 1U;
  const std::uint32_t others = in_port < 32 ? ~(1U << in_port) : 0xFFFFFFFFU;
  const std::uint32_t members = mask & ports & others;
  MemberChoice c;
  c.skipped = (members & ~port_up) != 0;
  std::uint32_t live = members & port_up;
  const auto n = static_cast<unsigned>(std::popcount(live));
  if (n == 0) {
    return c;
  }
  unsigned j = (static_cast<std::uint32_t>(hash) * n) >> 16U;
  while (j-- > 0) {
    live &= live - 1U;  // drop the lowest live port
  }
  c.port = std::countr_zero(live);
  return c;
}

}  // namespace syncfab::model
