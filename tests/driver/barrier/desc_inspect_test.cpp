// syncfab-desc's library half: hex parsing in both layouts with errors that
// name the token, the §3 validation order with the error code the NIC would
// report, device limits, and the CQ entry / packet header rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/driver/barrier_desc.hpp"
#include "syncfab/driver/desc_inspect.hpp"

namespace syncfab::driver {
namespace {

fmt::BarrierDesc good_desc() {
  std::vector<std::uint16_t> lids(10);
  std::iota(lids.begin(), lids.end(), std::uint16_t{0x100});
  return encode_barrier_desc(build_barrier_schedule(4, 10, 2), lids, 3, 7,
                             BarrierCompletion{true, 0x1000, 9, true, false});
}

std::vector<std::uint8_t> bytes_of(const fmt::BarrierDesc& d) {
  return {d.bytes().begin(), d.bytes().end()};
}

std::string message_of(std::string_view text, ImageKind kind, HexLayout layout) {
  try {
    (void)parse_hex_image(text, kind, layout);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(DescInspect, BothHexLayoutsRoundTrip) {
  const auto img = bytes_of(good_desc());
  for (HexLayout l : {HexLayout::kBytes, HexLayout::kWords}) {
    EXPECT_EQ(parse_hex_image(format_hex_image(img, l), ImageKind::kDesc, l), img);
  }
  // Words are little-endian in memory: the first word's low byte is the
  // opcode (1), then version (1), ctx (3), flags (write | cq_entry = 0x03).
  const auto words = format_hex_image(img, HexLayout::kWords);
  EXPECT_EQ(words.substr(0, 10), "0x03030101");
}

TEST(DescInspect, SeparatorsAndPrefixes) {
  const std::vector<std::uint8_t> want = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  EXPECT_EQ(parse_hex_image("0102 0304,0x05:06_07 08\n090a0b0c0d0e0f10", ImageKind::kCq,
                            HexLayout::kBytes),
            want);
  EXPECT_EQ(
      parse_hex_image("0x04030201 08070605 0c0b0a09 0x100f0e0d", ImageKind::kCq, HexLayout::kWords),
      want);
  // A short word is zero-extended on the left, as a register dump would print it.
  EXPECT_EQ(parse_hex_image("1 0 0 0", ImageKind::kCq, HexLayout::kWords)[0], 1);
}

TEST(DescInspect, BadHexNamesTheToken) {
  EXPECT_EQ(message_of("00 0g", ImageKind::kCq, HexLayout::kBytes),
            "token 2 '0g' at character 4: 'g' is not a hex digit");
  EXPECT_EQ(message_of("000", ImageKind::kCq, HexLayout::kBytes),
            "token 1 '000' at character 1: odd number of hex digits (bytes are two digits)");
  EXPECT_EQ(message_of("123456789", ImageKind::kCq, HexLayout::kWords),
            "token 1 '123456789' at character 1: a 32-bit word has at most 8 hex digits");
  EXPECT_EQ(message_of("0x", ImageKind::kCq, HexLayout::kBytes),
            "token 1 '0x' at character 1: no hex digits");
  EXPECT_EQ(message_of("00 01", ImageKind::kCq, HexLayout::kBytes),
            "a completion-queue entry is 16 bytes, the input holds 2");
  EXPECT_EQ(message_of("", ImageKind::kDesc, HexLayout::kWords),
            "a barrier descriptor is 352 bytes, the input holds 0");
}

TEST(DescInspect, ValidDescriptorShowsUsedRoundsOnly) {
  const auto rep = inspect_image(ImageKind::kDesc, bytes_of(good_desc()));
  EXPECT_TRUE(rep.errors.empty());
  bool round2 = false;
  for (const auto& f : rep.fields) {
    round2 = round2 || f.name.starts_with("round[2]");
    EXPECT_FALSE(f.name.starts_with("round[3]")) << "round 3 is past num_rounds and empty";
    if (f.name == "opcode") {
      EXPECT_EQ(f.note, "BARRIER");
    }
    if (f.name == "round[0].dst_lid[2]") {
      EXPECT_EQ(f.note, "LID_NONE");
    }
  }
  EXPECT_TRUE(round2);
}

TEST(DescInspect, IgnoredSlotsAreFlagged) {
  auto d = good_desc();
  d.set_round_dst_lid(0, 3, 0x55);  // slot >= fanout_k 2
  d.set_round_src_lid(5, 0, 0x66);  // round >= num_rounds 3
  const auto rep = inspect_image(ImageKind::kDesc, bytes_of(d));
  EXPECT_TRUE(rep.errors.empty());  // the NIC does not read them
  int flagged = 0;
  for (const auto& f : rep.fields) {
    if (f.note.starts_with("ignored")) {
      ++flagged;
    }
  }
  EXPECT_EQ(flagged, 2);
}

// Each rule of docs/barrier-protocol.md §3 on its own, and the first one
// wins when several fail.
TEST(DescInspect, ValidationOrderAndCodes) {
  using E = fmt::ErrCode;
  struct Case {
    const char* what;
    void (*mutate)(fmt::BarrierDesc&);
    E code;
  };
  const Case cases[] = {
      {"opcode", [](fmt::BarrierDesc& d) { d.set_opcode(static_cast<fmt::Opcode>(9)); },
       E::kBadOpcode},
      {"version", [](fmt::BarrierDesc& d) { d.set_version(2); }, E::kBadVersion},
      {"ctx", [](fmt::BarrierDesc& d) { d.set_ctx(8); }, E::kBadContext},
      {"rounds", [](fmt::BarrierDesc& d) { d.set_num_rounds(21); }, E::kBadRounds},
      {"fanout 0", [](fmt::BarrierDesc& d) { d.set_fanout_k(0); }, E::kBadFanout},
      {"fanout 5", [](fmt::BarrierDesc& d) { d.set_fanout_k(5); }, E::kBadFanout},
      {"addr", [](fmt::BarrierDesc& d) { d.set_cmpl_addr(0x1004); }, E::kBadAddr},
      {"mlid", [](fmt::BarrierDesc& d) { d.set_round_src_lid(2, 1, 0xC001); }, E::kBadLid},
      {"dup", [](fmt::BarrierDesc& d) { d.set_round_dst_lid(1, 1, d.round_dst_lid(1, 0)); },
       E::kBadLid},
      {"opcode+rounds",
       [](fmt::BarrierDesc& d) {
         d.set_num_rounds(30);
         d.set_opcode(static_cast<fmt::Opcode>(0));
       },
       E::kBadOpcode},
      {"fanout+addr",
       [](fmt::BarrierDesc& d) {
         d.set_cmpl_addr(0);
         d.set_fanout_k(0);
       },
       E::kBadFanout},
  };
  for (const Case& c : cases) {
    auto d = good_desc();
    c.mutate(d);
    const auto fault = validate_barrier_desc(d, DescLimits{8, 0, 0});
    ASSERT_TRUE(fault.has_value()) << c.what;
    EXPECT_EQ(fault->code, c.code) << c.what << ": " << fault->message;
    const auto rep = inspect_image(ImageKind::kDesc, bytes_of(d), DescLimits{8, 0, 0});
    ASSERT_EQ(rep.errors.size(), 1U) << c.what;
    EXPECT_NE(rep.errors[0].find(std::string(fmt::to_string(c.code))), std::string::npos)
        << rep.errors[0];
    // The driver's decoder refuses the same descriptors (ctx only with limits).
    if (c.code != E::kBadContext) {
      EXPECT_THROW((void)decode_barrier_desc(d), std::invalid_argument) << c.what;
    }
  }
  // A completion address is only checked when a write is requested.
  auto d = good_desc();
  d.set_flag_cmpl_write(false).set_cmpl_addr(3);
  EXPECT_FALSE(validate_barrier_desc(d).has_value());
}

TEST(DescInspect, DeviceLimitsBelowTheFormat) {
  const auto d = good_desc();  // k = 2, 3 rounds, ctx 3
  EXPECT_FALSE(validate_barrier_desc(d, DescLimits{4, 2, 3}).has_value());
  EXPECT_EQ(validate_barrier_desc(d, DescLimits{3, 0, 0})->code, fmt::ErrCode::kBadContext);
  EXPECT_EQ(validate_barrier_desc(d, DescLimits{0, 1, 0})->code, fmt::ErrCode::kBadFanout);
  EXPECT_EQ(validate_barrier_desc(d, DescLimits{0, 0, 2})->code, fmt::ErrCode::kBadRounds);
}

// Device limits past the format's (a user's --k-max 8 or --max-rounds 30)
// do not let a descriptor's fanout_k or num_rounds reach past its image:
// the format's bounds hold, and the image is still inspected field by field.
TEST(DescInspect, DeviceLimitsAboveTheFormatKeepTheFormatsBounds) {
  auto d = good_desc();
  d.set_fanout_k(static_cast<std::uint8_t>(fmt::kKMax + 1));
  const DescLimits wide{0, 2 * fmt::kKMax, 0};
  const auto fault = validate_barrier_desc(d, wide);
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(fault->code, fmt::ErrCode::kBadFanout);
  EXPECT_NE(fault->message.find("1.." + std::to_string(fmt::kKMax)), std::string::npos)
      << fault->message;
  const ImageReport rep = inspect_image(ImageKind::kDesc, bytes_of(d), wide);
  EXPECT_FALSE(rep.fields.empty());
  EXPECT_EQ(rep.errors.size(), 1U);
  auto r = good_desc();
  r.set_num_rounds(static_cast<std::uint8_t>(fmt::kMaxRounds + 5));
  EXPECT_EQ(validate_barrier_desc(r, DescLimits{0, 0, fmt::kMaxRounds + 10})->code,
            fmt::ErrCode::kBadRounds);
  EXPECT_FALSE(inspect_image(ImageKind::kDesc, bytes_of(r), DescLimits{0, 0, 30}).fields.empty());
}

TEST(DescInspect, CompletionEntryRules) {
  auto check = [](fmt::CqStatus s, fmt::ErrCode e) {
    fmt::CqEntry c;
    c.set_ctx(1).set_epoch(2).set_status(s).set_err_code(e);
    return inspect_image(ImageKind::kCq, {c.bytes().begin(), c.bytes().end()}).errors;
  };
  EXPECT_TRUE(check(fmt::CqStatus::kOk, fmt::ErrCode::kNone).empty());
  EXPECT_TRUE(check(fmt::CqStatus::kDescError, fmt::ErrCode::kBadLid).empty());
  EXPECT_EQ(check(fmt::CqStatus::kOk, fmt::ErrCode::kBadLid).size(), 1U);
  EXPECT_EQ(check(fmt::CqStatus::kNetError, fmt::ErrCode::kNone).size(), 1U);
  const auto unknown = check(static_cast<fmt::CqStatus>(7), static_cast<fmt::ErrCode>(0x40));
  ASSERT_EQ(unknown.size(), 2U);
  EXPECT_EQ(unknown[0], "status 7 is not a known cq_status");
  EXPECT_EQ(unknown[1], "err_code 64 is not a known err_code");
}

TEST(DescInspect, PacketHeaderRules) {
  fmt::PktHdr h;
  h.set_pkt_type(fmt::PktType::kNotify).set_len_flits(1).set_dst_lid(0xC000).set_src_lid(4);
  auto rep = inspect_image(ImageKind::kPkt, {h.bytes().begin(), h.bytes().end()});
  EXPECT_TRUE(rep.errors.empty());
  for (const auto& f : rep.fields) {
    if (f.name == "dst_lid") {
      EXPECT_EQ(f.note, "multicast");
    }
  }
  h.set_pkt_type(static_cast<fmt::PktType>(0x3F)).set_len_flits(0);
  rep = inspect_image(ImageKind::kPkt, {h.bytes().begin(), h.bytes().end()});
  EXPECT_EQ(rep.errors.size(), 2U);
}

}  // namespace
}  // namespace syncfab::driver
