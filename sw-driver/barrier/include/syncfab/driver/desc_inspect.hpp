// Inspecting raw images of the NIC's formats (descriptor, completion-queue
// entry, packet header) for driver developers: hex text in, named fields and
// a validation verdict out. Used by the syncfab-desc tool.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/driver/barrier_desc.hpp"

namespace syncfab::driver {

enum class ImageKind { kDesc, kCq, kPkt };

// How the hex text is laid out: bytes in memory order ("01 02 ..." or
// "0102..."), or 32-bit words as the CSR window / a register dump shows them
// (each word little-endian in memory, "0x00010001 0x...").
enum class HexLayout { kBytes, kWords };

// Parses hex text into exactly the image size of `kind`. Whitespace, commas,
// ':' and '_' separate; "0x" prefixes are allowed. std::invalid_argument
// naming the bad token (and its position) or the byte count got vs wanted.
std::vector<std::uint8_t> parse_hex_image(std::string_view text, ImageKind kind, HexLayout layout);

struct ImageField {
  std::string name;  // as in the format spec, e.g. "round[3].dst_lid[1]"
  std::uint64_t value = 0;
  std::string note;  // enum name, "LID_NONE", "multicast", ...; may be empty
};

struct ImageReport {
  std::vector<ImageField> fields;   // spec order; descriptor rounds past num_rounds left out
  std::vector<std::string> errors;  // empty: valid; else each names the field and the rule
};

// Decodes and validates an image of the given kind (its size must be the
// format's; std::invalid_argument otherwise). Descriptors are validated
// against `limits` (see validate_barrier_desc).
ImageReport inspect_image(ImageKind kind, const std::vector<std::uint8_t>& image,
                          const DescLimits& limits = {});

// The image as hex text in the given layout (the inverse of parse_hex_image).
std::string format_hex_image(const std::vector<std::uint8_t>& image, HexLayout layout);

}  // namespace syncfab::driver
