// The descriptor, completion-queue entry and packet header decoders on raw
// images (the first input byte picks the kind and device limits, the rest is
// the image, zero-padded or cut to the kind's size): inspecting never throws
// for an image of the right size. For descriptors the validator and the
// decoder agree: a descriptor the validator accepts decodes (the decoder
// throws std::invalid_argument only for what the format rejects), a group
// barrier re-encoded from its decoded fields has the same group fields
// (root_lid only where used) and decodes to the same barrier,
// and the HDQ words hold the image's bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "syncfab/driver/desc_inspect.hpp"
#include "syncfab/driver/group_desc.hpp"

namespace fmt = syncfab::fmt;
namespace drv = syncfab::driver;
using syncfab::fuzz::check;

namespace {

void descriptor(const std::vector<std::uint8_t>& image, const drv::DescLimits& limits) {
  fmt::BarrierDesc::Bytes b{};
  std::copy(image.begin(), image.end(), b.begin());
  const fmt::BarrierDesc desc(b);

  const auto words = drv::desc_words(desc);
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (unsigned k = 0; k < 4; ++k) {
      check(static_cast<std::uint8_t>(words[i] >> (8U * k)) == b[4 * i + k],
            "HDQ word " + std::to_string(i) + " does not hold the image's bytes");
    }
  }

  const auto fault = drv::validate_barrier_desc(desc, limits);
  drv::DecodedBarrier decoded;
  try {
    decoded = drv::decode_barrier_desc(desc);
  } catch (const std::invalid_argument& e) {
    check(fault.has_value(),
          std::string("the validator accepts a descriptor the decoder rejects: ") + e.what());
    return;
  }
  const auto group = drv::group_of(desc);
  if (!group || fault) {
    return;
  }
  fmt::BarrierDesc again;
  try {
    again = drv::encode_group_desc(*group, decoded.ctx, decoded.epoch, decoded.completion);
  } catch (const std::invalid_argument& e) {
    syncfab::fuzz::finding(std::string("a valid group descriptor does not re-encode: ") + e.what());
  }
  // root_lid is written only where it is used: a multicast-release member
  // other than the root names the root's LID.
  drv::GroupBarrier want = *group;
  if (want.kind != drv::GroupBarrierKind::kMulticastRelease || want.member == 0) {
    want.root_lid = 0;
  }
  check(drv::group_of(again) == want, "a re-encoded group descriptor has other group fields");
  check(drv::decode_barrier_desc(again) == decoded,
        "a re-encoded group descriptor decodes to another barrier");
  check(!drv::validate_barrier_desc(again, limits).has_value(),
        "a re-encoded valid group descriptor is refused");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const unsigned ctl = data[0];
  const drv::ImageKind kinds[] = {drv::ImageKind::kDesc, drv::ImageKind::kCq, drv::ImageKind::kPkt};
  const drv::ImageKind kind = kinds[(ctl & 3U) % 3];
  // Limits as a device reports them (0: the format's maximum).
  drv::DescLimits limits;
  limits.num_ctx = (ctl >> 2) & 3U;
  limits.k_max = (ctl >> 4) & 3U;
  limits.max_rounds = (ctl >> 6) & 3U;
  limits.max_members = (ctl >> 6) * 3U;
  const std::size_t want = kind == drv::ImageKind::kDesc ? fmt::BarrierDesc::kSizeBytes
                           : kind == drv::ImageKind::kCq ? fmt::CqEntry::kSizeBytes
                                                         : fmt::PktHdr::kSizeBytes;
  std::vector<std::uint8_t> image(data + 1, data + std::min(size, want + 1));
  image.resize(want, 0);
  const auto report = drv::inspect_image(kind, image, limits);
  check(!report.fields.empty(), "a decoded image has no fields");
  if (kind == drv::ImageKind::kDesc) {
    descriptor(image, limits);
  }
  return 0;
}
