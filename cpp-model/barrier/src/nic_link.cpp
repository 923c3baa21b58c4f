#include "syncfab/model/nic_link.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace syncfab::model {

LinkFlit header_flit(const fmt::PktHdr& hdr, bool last) { return LinkFlit{hdr.bytes(), last}; }

fmt::PfcFrame make_pfc_frame(std::uint8_t class_enable, std::span<const std::uint16_t> quanta) {
  if (quanta.size() != fmt::PfcFrame::kQuantaCount) {
    throw std::invalid_argument("make_pfc_frame: " + std::to_string(quanta.size()) +
                                " quanta given, a PFC frame carries " +
                                std::to_string(fmt::PfcFrame::kQuantaCount) + " (NUM_PRIO)");
  }
  fmt::PfcFrame f;
  f.set_pkt_type(fmt::PktType::kPfc).set_len_flits(kPfcFrameFlits).set_class_enable(class_enable);
  for (std::size_t p = 0; p < quanta.size(); ++p) {
    f.set_quanta(p, quanta[p]);
  }
  return f;
}

fmt::PfcFrame make_pfc_frame(std::uint8_t class_enable, std::uint16_t quanta) {
  std::array<std::uint16_t, fmt::PfcFrame::kQuantaCount> q{};
  for (std::size_t p = 0; p < q.size(); ++p) {
    q[p] = ((class_enable >> p) & 1U) != 0 ? quanta : std::uint16_t{0};
  }
  return make_pfc_frame(class_enable, q);
}

std::array<LinkFlit, kPfcFrameFlits> pfc_flits(const fmt::PfcFrame& frame) {
  std::array<LinkFlit, kPfcFrameFlits> out{};
  for (unsigned i = 0; i < kPfcFrameFlits; ++i) {
    std::copy_n(frame.bytes().begin() + static_cast<std::ptrdiff_t>(i * kFlitBytes), kFlitBytes,
                out[i].data.begin());
    out[i].last = i + 1 == kPfcFrameFlits;
  }
  return out;
}

}  // namespace syncfab::model
