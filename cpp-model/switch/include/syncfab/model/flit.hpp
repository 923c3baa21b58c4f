// One flit of a network port stream (DESIGN §4: the switch's ports and the
// NIC's link carry the same flits), as the little-endian image the formats
// use: byte 0 = bits [7:0]. A packet header is exactly one flit; a PFC frame
// is kPfcFrameFlits of them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::model {

inline constexpr std::size_t kFlitBytes = fmt::kFlitBits / 8U;
using Flit = std::array<std::uint8_t, kFlitBytes>;
static_assert(fmt::PktHdr::kSizeBytes == kFlitBytes, "the header is one flit");
inline constexpr unsigned kPfcFrameFlits = fmt::PfcFrame::kSizeBytes / kFlitBytes;
static_assert(fmt::PfcFrame::kSizeBytes % kFlitBytes == 0, "a PFC frame is whole flits");

}  // namespace syncfab::model
