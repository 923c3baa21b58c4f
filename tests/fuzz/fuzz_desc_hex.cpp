// syncfab-desc's hex reader and decoders: the first input byte picks the
// image kind (descriptor, completion-queue entry, packet header) and the
// layout (bytes or 32-bit words), the rest is the hex text. Any text either
// parses into an image of the kind's size or throws std::invalid_argument;
// an image decodes into a report without throwing, and formatting it back
// in the same layout and parsing that gives the same bytes.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "syncfab/driver/desc_inspect.hpp"

using syncfab::driver::HexLayout;
using syncfab::driver::ImageKind;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const ImageKind kinds[] = {ImageKind::kDesc, ImageKind::kCq, ImageKind::kPkt};
  const ImageKind kind = kinds[(data[0] & 3U) % 3];
  const HexLayout layout = (data[0] & 4U) != 0 ? HexLayout::kWords : HexLayout::kBytes;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::uint8_t> image;
  try {
    image = syncfab::driver::parse_hex_image(text, kind, layout);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  const auto report = syncfab::driver::inspect_image(kind, image);
  syncfab::fuzz::check(!report.fields.empty(), "a decoded image has no fields");
  const std::string back = syncfab::driver::format_hex_image(image, layout);
  std::vector<std::uint8_t> again;
  try {
    again = syncfab::driver::parse_hex_image(back, kind, layout);
  } catch (const std::invalid_argument& e) {
    syncfab::fuzz::finding(std::string("formatted hex does not parse back: ") + e.what());
  }
  syncfab::fuzz::check(again == image, "formatted hex parses back to other bytes");
  return 0;
}
