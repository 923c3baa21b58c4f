#include "syncfab/driver/desc_inspect.hpp"

#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <syncfab/fmt/formats.hpp>

#include "syncfab/driver/barrier_desc.hpp"

namespace syncfab::driver {

namespace {

std::size_t image_size(ImageKind kind) {
  switch (kind) {
    case ImageKind::kDesc:
      return fmt::BarrierDesc::kSizeBytes;
    case ImageKind::kCq:
      return fmt::CqEntry::kSizeBytes;
    case ImageKind::kPkt:
      return fmt::PktHdr::kSizeBytes;
  }
  throw std::logic_error("unknown image kind");
}

const char* kind_name(ImageKind kind) {
  switch (kind) {
    case ImageKind::kDesc:
      return "barrier descriptor";
    case ImageKind::kCq:
      return "completion-queue entry";
    case ImageKind::kPkt:
      return "packet header";
  }
  return "image";
}

bool is_separator(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0 || c == ',' || c == ':' || c == '_';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

std::string lid_note(std::uint64_t lid) {
  if (lid == fmt::kLidNone) {
    return "LID_NONE";
  }
  return lid >= fmt::kMlidBase ? "multicast" : "";
}

template <class Image>
Image make_image(const std::vector<std::uint8_t>& bytes) {
  typename Image::Bytes b{};
  if (bytes.size() != b.size()) {
    throw std::invalid_argument("image has " + std::to_string(bytes.size()) + " bytes, needs " +
                                std::to_string(b.size()));
  }
  std::copy(bytes.begin(), bytes.end(), b.begin());
  return Image(b);
}

template <class Enum>
std::string enum_note(std::uint64_t raw) {
  const std::string_view name = fmt::to_string(static_cast<Enum>(raw));
  return name.empty() ? "unknown" : std::string(name);
}

ImageReport inspect_desc(const fmt::BarrierDesc& d, const DescLimits& limits) {
  ImageReport rep;
  const std::size_t used_rounds = std::min<std::size_t>(d.num_rounds(), fmt::kMaxRounds);
  d.for_each_field([&](const std::string& name, std::uint64_t v) {
    // Rounds past num_rounds are not read by the NIC; show them only when
    // they hold something (a stale schedule is worth seeing).
    if (name.starts_with("round[")) {
      const std::size_t r = std::stoul(name.substr(6));
      if (r >= used_rounds && v == 0) {
        return;
      }
      ImageField f{name, v, lid_note(v)};
      if (r >= used_rounds) {
        f.note = "ignored: round >= num_rounds";
      } else if (const auto slot = std::stoul(name.substr(name.rfind('[') + 1));
                 slot >= d.fanout_k() && v != 0) {
        f.note = "ignored: slot >= fanout_k";
      }
      rep.fields.push_back(std::move(f));
      return;
    }
    std::string note;
    if (name == "opcode") {
      note = enum_note<fmt::Opcode>(v);
    }
    rep.fields.push_back({name, v, note});
  });
  if (const auto fault = validate_barrier_desc(d, limits)) {
    rep.errors.emplace_back(fault->message + "; the NIC completes it with DESC_ERROR / " +
                            std::string(fmt::to_string(fault->code)));
  }
  return rep;
}

ImageReport inspect_cq(const fmt::CqEntry& e) {
  ImageReport rep;
  e.for_each_field([&](const std::string& name, std::uint64_t v) {
    std::string note;
    if (name == "status") {
      note = enum_note<fmt::CqStatus>(v);
    } else if (name == "err_code") {
      note = enum_note<fmt::ErrCode>(v);
    }
    rep.fields.push_back({name, v, note});
  });
  const auto status = e.status();
  const auto err = e.err_code();
  if (!fmt::is_known(status)) {
    rep.errors.emplace_back("status " + std::to_string(static_cast<unsigned>(status)) +
                            " is not a known cq_status");
  }
  if (!fmt::is_known(err)) {
    rep.errors.emplace_back("err_code " + std::to_string(static_cast<unsigned>(err)) +
                            " is not a known err_code");
  }
  if (status == fmt::CqStatus::kOk && err != fmt::ErrCode::kNone) {
    rep.errors.emplace_back("status OK with err_code " + std::string(fmt::to_string(err)) +
                            " (an OK entry has err_code NONE)");
  }
  if (status != fmt::CqStatus::kOk && fmt::is_known(status) && err == fmt::ErrCode::kNone) {
    rep.errors.emplace_back("status " + std::string(fmt::to_string(status)) +
                            " with err_code NONE (an error entry names its cause)");
  }
  return rep;
}

ImageReport inspect_pkt(const fmt::PktHdr& h) {
  ImageReport rep;
  h.for_each_field([&](const std::string& name, std::uint64_t v) {
    std::string note;
    if (name == "pkt_type") {
      note = enum_note<fmt::PktType>(v);
    } else if (name == "ecn") {
      note = enum_note<fmt::Ecn>(v);
    } else if (name == "dst_lid" || name == "src_lid") {
      note = lid_note(v);
    }
    rep.fields.push_back({name, v, note});
  });
  if (!fmt::is_known(h.pkt_type())) {
    rep.errors.emplace_back("pkt_type " + std::to_string(static_cast<unsigned>(h.pkt_type())) +
                            " is not a known packet type (a switch drops and counts it)");
  }
  if (h.len_flits() == 0) {
    rep.errors.emplace_back("len_flits 0: a packet has at least its header flit");
  }
  return rep;
}

}  // namespace

std::vector<std::uint8_t> parse_hex_image(std::string_view text, ImageKind kind, HexLayout layout) {
  std::vector<std::uint8_t> bytes;
  std::size_t pos = 0;
  std::size_t token_no = 0;
  while (pos < text.size()) {
    if (is_separator(text[pos])) {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < text.size() && !is_separator(text[end])) {
      ++end;
    }
    std::string_view tok = text.substr(pos, end - pos);
    ++token_no;
    const std::string where = "token " + std::to_string(token_no) + " '" + std::string(tok) +
                              "' at character " + std::to_string(pos + 1);
    if (tok.starts_with("0x") || tok.starts_with("0X")) {
      tok.remove_prefix(2);
    }
    if (tok.empty()) {
      throw std::invalid_argument(where + ": no hex digits");
    }
    for (char c : tok) {
      if (hex_digit(c) < 0) {
        throw std::invalid_argument(where + ": '" + std::string(1, c) + "' is not a hex digit");
      }
    }
    if (layout == HexLayout::kWords) {
      if (tok.size() > 8) {
        throw std::invalid_argument(where + ": a 32-bit word has at most 8 hex digits");
      }
      std::uint32_t w = 0;
      for (char c : tok) {
        w = (w << 4U) | static_cast<std::uint32_t>(hex_digit(c));
      }
      for (unsigned i = 0; i < 4; ++i) {
        bytes.push_back(static_cast<std::uint8_t>(w >> (8U * i)));
      }
    } else {
      if (tok.size() % 2 != 0) {
        throw std::invalid_argument(where + ": odd number of hex digits (bytes are two digits)");
      }
      for (std::size_t i = 0; i < tok.size(); i += 2) {
        bytes.push_back(static_cast<std::uint8_t>(hex_digit(tok[i]) * 16 + hex_digit(tok[i + 1])));
      }
    }
    pos = end;
  }
  const std::size_t want = image_size(kind);
  if (bytes.size() != want) {
    throw std::invalid_argument(std::string("a ") + kind_name(kind) + " is " +
                                std::to_string(want) + " bytes, the input holds " +
                                std::to_string(bytes.size()));
  }
  return bytes;
}

ImageReport inspect_image(ImageKind kind, const std::vector<std::uint8_t>& image,
                          const DescLimits& limits) {
  switch (kind) {
    case ImageKind::kDesc:
      return inspect_desc(make_image<fmt::BarrierDesc>(image), limits);
    case ImageKind::kCq:
      return inspect_cq(make_image<fmt::CqEntry>(image));
    case ImageKind::kPkt:
      return inspect_pkt(make_image<fmt::PktHdr>(image));
  }
  throw std::logic_error("unknown image kind");
}

std::string format_hex_image(const std::vector<std::uint8_t>& image, HexLayout layout) {
  std::string out;
  char buf[16];
  if (layout == HexLayout::kWords) {
    for (std::size_t i = 0; i + 3 < image.size(); i += 4) {
      const std::uint32_t w = image[i] | (image[i + 1] << 8U) | (image[i + 2] << 16U) |
                              (static_cast<std::uint32_t>(image[i + 3]) << 24U);
      std::snprintf(buf, sizeof buf, "0x%08x", w);
      out += (i == 0 ? "" : (i % 32 == 0 ? "\n" : " "));
      out += buf;
    }
  } else {
    for (std::size_t i = 0; i < image.size(); ++i) {
      std::snprintf(buf, sizeof buf, "%02x", image[i]);
      out += (i == 0 ? "" : (i % 16 == 0 ? "\n" : " "));
      out += buf;
    }
  }
  return out;
}

}  // namespace syncfab::driver
