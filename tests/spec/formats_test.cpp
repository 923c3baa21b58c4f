// Golden vectors through the generated C++ accessors (syncfab/fmt/formats.hpp):
// every field of every vector is read with its named accessor and compared with
// the hand-written value; the fields are then set again with the setters and the
// encoded bytes must be the vector's bytes. Plus the accessors' error handling.
#include <syncfab/fmt/formats.hpp>

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden_vectors.hpp"

namespace syncfab::fmt::test {
namespace {

template <class E>
std::uint64_t u(E value) {
  return static_cast<std::uint64_t>(value);
}

std::string at(const std::string& name, std::size_t i) {
  return name + "[" + std::to_string(i) + "]";
}

// A value from the vector, refused (instead of silently truncated) when the
// C++ type of the setter cannot hold it.
template <class T>
T as(const FieldValues& f, const std::string& key) {
  const std::uint64_t v = f.at(key);
  if constexpr (std::is_enum_v<T>) {
    using U = std::underlying_type_t<T>;
    if (v > std::numeric_limits<U>::max()) {
      throw std::out_of_range(key + " does not fit the enum's type");
    }
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v > 1U) {
      throw std::out_of_range(key + " is a flag");
    }
    return v != 0U;
  } else {
    if (v > std::numeric_limits<T>::max()) {
      throw std::out_of_range(key + " does not fit the setter's type");
    }
    return static_cast<T>(v);
  }
}

// ---- per format: every field through its own accessor, written out by hand

FieldValues read(const PktHdr& h) {
  return {{"pkt_type", u(h.pkt_type())},
          {"len_flits", h.len_flits()},
          {"dst_lid", h.dst_lid()},
          {"src_lid", h.src_lid()},
          {"prio", h.prio()},
          {"ecn", u(h.ecn())},
          {"dscp", h.dscp()},
          {"answer", h.answer()},
          {"ask", h.ask()},
          {"flow_label", h.flow_label()},
          {"ctx", h.ctx()},
          {"epoch", h.epoch()},
          {"round", h.round()},
          {"member", h.member()}};
}
EnumNames names(const PktHdr& h) {
  return {{"pkt_type", std::string(to_string(h.pkt_type()))},
          {"ecn", std::string(to_string(h.ecn()))}};
}
PktHdr build_pkt_hdr(const FieldValues& f) {
  PktHdr h;
  h.set_pkt_type(as<PktType>(f, "pkt_type"))
      .set_len_flits(as<std::uint8_t>(f, "len_flits"))
      .set_dst_lid(as<std::uint16_t>(f, "dst_lid"))
      .set_src_lid(as<std::uint16_t>(f, "src_lid"))
      .set_prio(as<std::uint8_t>(f, "prio"))
      .set_ecn(as<Ecn>(f, "ecn"))
      .set_dscp(as<std::uint8_t>(f, "dscp"))
      .set_answer(as<bool>(f, "answer"))
      .set_ask(as<std::uint8_t>(f, "ask"))
      .set_flow_label(as<std::uint32_t>(f, "flow_label"))
      .set_ctx(as<std::uint8_t>(f, "ctx"))
      .set_epoch(as<std::uint16_t>(f, "epoch"))
      .set_round(as<std::uint8_t>(f, "round"))
      .set_member(as<std::uint16_t>(f, "member"));
  return h;
}

FieldValues read(const PfcFrame& p) {
  FieldValues out{{"pkt_type", u(p.pkt_type())},
                  {"len_flits", p.len_flits()},
                  {"class_enable", p.class_enable()}};
  for (std::size_t i = 0; i < PfcFrame::kQuantaCount; ++i) {
    out[at("quanta", i)] = p.quanta(i);
  }
  return out;
}
EnumNames names(const PfcFrame& p) { return {{"pkt_type", std::string(to_string(p.pkt_type()))}}; }
PfcFrame build_pfc_frame(const FieldValues& f) {
  PfcFrame p;
  p.set_pkt_type(as<PktType>(f, "pkt_type"))
      .set_len_flits(as<std::uint8_t>(f, "len_flits"))
      .set_class_enable(as<std::uint8_t>(f, "class_enable"));
  for (std::size_t i = 0; i < PfcFrame::kQuantaCount; ++i) {
    p.set_quanta(i, as<std::uint16_t>(f, at("quanta", i)));
  }
  return p;
}

FieldValues read(const CqEntry& c) {
  return {{"ctx", c.ctx()},
          {"status", u(c.status())},
          {"err_code", u(c.err_code())},
          {"epoch", c.epoch()},
          {"phase", u(c.phase())}};
}
EnumNames names(const CqEntry& c) {
  return {{"status", std::string(to_string(c.status()))},
          {"err_code", std::string(to_string(c.err_code()))}};
}
CqEntry build_cq_entry(const FieldValues& f) {
  CqEntry c;
  c.set_ctx(as<std::uint8_t>(f, "ctx"))
      .set_status(as<CqStatus>(f, "status"))
      .set_err_code(as<ErrCode>(f, "err_code"))
      .set_epoch(as<std::uint16_t>(f, "epoch"))
      .set_phase(as<bool>(f, "phase"));
  return c;
}

FieldValues read(const BarrierDesc& d) {
  FieldValues out{{"opcode", u(d.opcode())},
                  {"version", d.version()},
                  {"ctx", d.ctx()},
                  {"flag_cmpl_write", u(d.flag_cmpl_write())},
                  {"flag_cq_entry", u(d.flag_cq_entry())},
                  {"flag_irq", u(d.flag_irq())},
                  {"epoch", d.epoch()},
                  {"num_rounds", d.num_rounds()},
                  {"fanout_k", d.fanout_k()},
                  {"cmpl_addr", d.cmpl_addr()},
                  {"cmpl_value", d.cmpl_value()},
                  {"mlid", d.mlid()},
                  {"root_lid", d.root_lid()},
                  {"member", d.member()},
                  {"members", d.members()}};
  for (std::size_t r = 0; r < BarrierDesc::kRoundCount; ++r) {
    const std::string round = at("round", r) + ".";
    for (std::size_t m = 0; m < BarrierRound::kDstLidCount; ++m) {
      out[round + at("dst_lid", m)] = d.round_dst_lid(r, m);
    }
    for (std::size_t m = 0; m < BarrierRound::kSrcLidCount; ++m) {
      out[round + at("src_lid", m)] = d.round_src_lid(r, m);
    }
  }
  return out;
}
EnumNames names(const BarrierDesc& d) { return {{"opcode", std::string(to_string(d.opcode()))}}; }
BarrierDesc build_barrier_desc(const FieldValues& f) {
  BarrierDesc d;
  d.set_opcode(as<Opcode>(f, "opcode"))
      .set_version(as<std::uint8_t>(f, "version"))
      .set_ctx(as<std::uint8_t>(f, "ctx"))
      .set_flag_cmpl_write(as<bool>(f, "flag_cmpl_write"))
      .set_flag_cq_entry(as<bool>(f, "flag_cq_entry"))
      .set_flag_irq(as<bool>(f, "flag_irq"))
      .set_epoch(as<std::uint16_t>(f, "epoch"))
      .set_num_rounds(as<std::uint8_t>(f, "num_rounds"))
      .set_fanout_k(as<std::uint8_t>(f, "fanout_k"))
      .set_cmpl_addr(as<std::uint64_t>(f, "cmpl_addr"))
      .set_cmpl_value(as<std::uint64_t>(f, "cmpl_value"))
      .set_mlid(as<std::uint16_t>(f, "mlid"))
      .set_root_lid(as<std::uint16_t>(f, "root_lid"))
      .set_member(as<std::uint16_t>(f, "member"))
      .set_members(as<std::uint16_t>(f, "members"));
  // Even rounds through the flattened setters, odd rounds as a BarrierRound
  // record, so both ways of writing the schedule are covered.
  for (std::size_t r = 0; r < BarrierDesc::kRoundCount; ++r) {
    const std::string round = at("round", r) + ".";
    BarrierRound rec;
    for (std::size_t m = 0; m < BarrierRound::kDstLidCount; ++m) {
      const auto dst = as<std::uint16_t>(f, round + at("dst_lid", m));
      const auto src = as<std::uint16_t>(f, round + at("src_lid", m));
      if (r % 2 == 0) {
        d.set_round_dst_lid(r, m, dst).set_round_src_lid(r, m, src);
      } else {
        rec.set_dst_lid(m, dst).set_src_lid(m, src);
      }
    }
    if (r % 2 == 1) {
      d.set_round(r, rec);
    }
  }
  return d;
}

// ---- dispatch

struct Decoded {
  FieldValues fields;                 // through the named accessors
  EnumNames names;                    // to_string() of every enum field
  FieldValues visited;                // through for_each_field()
  std::vector<std::uint8_t> rebuilt;  // the fields set again, encoded
};

template <class Fmt>
Decoded run(const GoldenVector& v, const std::function<Fmt(const FieldValues&)>& build) {
  const Fmt decoded = Fmt::decode(v.bytes);
  Decoded out{read(decoded), names(decoded), {}, std::vector<std::uint8_t>(Fmt::kSizeBytes)};
  decoded.for_each_field([&](const std::string& path, std::uint64_t x) { out.visited[path] = x; });
  build(v.fields).encode(out.rebuilt);
  return out;
}

Decoded run(const GoldenVector& v) {
  if (v.format == "pkt_hdr") {
    return run<PktHdr>(v, build_pkt_hdr);
  }
  if (v.format == "pfc_frame") {
    return run<PfcFrame>(v, build_pfc_frame);
  }
  if (v.format == "cq_entry") {
    return run<CqEntry>(v, build_cq_entry);
  }
  if (v.format == "barrier_desc") {
    return run<BarrierDesc>(v, build_barrier_desc);
  }
  throw std::invalid_argument("vector " + v.name + ": no C++ check for format " + v.format);
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += "\n  " + l;
  }
  return out;
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
  static constexpr std::string_view kDigits = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    out += (i % 16 == 0) ? "\n  " : " ";
    out += kDigits[bytes[i] >> 4U];
    out += kDigits[bytes[i] & 0xFU];
  }
  return out;
}

class GoldenVectors : public ::testing::TestWithParam<GoldenVector> {};

TEST_P(GoldenVectors, DecodesEveryField) {
  const GoldenVector& v = GetParam();
  const Decoded d = run(v);
  const auto field_diff = diff_fields(v.fields, d.fields);
  EXPECT_TRUE(field_diff.empty()) << v.name << ":" << join(field_diff);
  const auto name_diff = diff_names(v.names, d.names);
  EXPECT_TRUE(name_diff.empty()) << v.name << ":" << join(name_diff);
  const auto visit_diff = diff_fields(v.fields, d.visited);
  EXPECT_TRUE(visit_diff.empty()) << v.name << " (for_each_field):" << join(visit_diff);
}

TEST_P(GoldenVectors, ReencodesFromFields) {
  const GoldenVector& v = GetParam();
  const Decoded d = run(v);
  if (v.reencode) {
    EXPECT_EQ(d.rebuilt, v.bytes) << v.name << ": encoded" << hex(d.rebuilt) << "\nexpected"
                                  << hex(v.bytes);
  } else {
    // Reserved bits are set in the vector: the setters cannot reproduce them,
    // and the rebuilt image must carry the same fields with reserved bits 0.
    EXPECT_NE(d.rebuilt, v.bytes) << v.name << ": reencode=false but no reserved bit is set";
    GoldenVector again = v;
    again.bytes = d.rebuilt;
    const auto field_diff = diff_fields(v.fields, run(again).fields);
    EXPECT_TRUE(field_diff.empty()) << v.name << " rebuilt:" << join(field_diff);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, GoldenVectors, ::testing::ValuesIn(golden_vectors()),
                         [](const ::testing::TestParamInfo<GoldenVector>& info) {
                           return test_name(info.param.name);
                         });

TEST(GoldenVectorFile, CoversEveryFormat) {
  std::map<std::string, int> per_format;
  for (const auto& v : golden_vectors()) {
    ++per_format[v.format];
  }
  for (const char* f : {"pkt_hdr", "pfc_frame", "cq_entry", "barrier_desc"}) {
    EXPECT_GE(per_format[f], 3) << "too few vectors of " << f;
  }
}

// ---- error handling of the generated accessors

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(FormatErrors, DecodeRefusesAWrongSize) {
  const std::vector<std::uint8_t> short_image(BarrierDesc::kSizeBytes - 1);
  EXPECT_THROW((void)BarrierDesc::decode(short_image), std::invalid_argument);
  const auto msg = error_of([&] { (void)BarrierDesc::decode(short_image); });
  EXPECT_NE(msg.find("BarrierDesc"), std::string::npos) << msg;
  EXPECT_NE(msg.find("352"), std::string::npos) << msg;
  EXPECT_NE(msg.find("351"), std::string::npos) << msg;
  const std::vector<std::uint8_t> long_image(PktHdr::kSizeBytes + 1);
  EXPECT_THROW((void)PktHdr::decode(long_image), std::invalid_argument);
}

TEST(FormatErrors, EncodeRefusesAWrongSize) {
  std::array<std::uint8_t, 8> small{};
  const auto msg = error_of([&] { CqEntry{}.encode(small); });
  EXPECT_NE(msg.find("CqEntry::encode"), std::string::npos) << msg;
  EXPECT_NE(msg.find("16"), std::string::npos) << msg;
}

TEST(FormatErrors, SetterRefusesAValueWiderThanTheField) {
  PktHdr h;
  EXPECT_NE(error_of([&] { h.set_prio(8); }).find("PktHdr.prio"), std::string::npos);
  EXPECT_THROW(h.set_dscp(64), std::out_of_range);
  EXPECT_THROW(h.set_flow_label(0x100000), std::out_of_range);
  EXPECT_THROW(h.set_ecn(static_cast<Ecn>(4)), std::out_of_range);
  EXPECT_EQ(h, PktHdr{}) << "a refused set must not change the image";
  EXPECT_NO_THROW(h.set_prio(7).set_dscp(63).set_flow_label(0xFFFFF));
}

TEST(FormatErrors, IndexOutOfRangeNamesTheField) {
  BarrierDesc d;
  EXPECT_NE(error_of([&] { (void)d.round(BarrierDesc::kRoundCount); }).find("BarrierDesc.round"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              (void)d.round_dst_lid(0, BarrierRound::kDstLidCount);
            }).find("BarrierDesc.round.dst_lid"),
            std::string::npos);
  EXPECT_THROW(d.set_round_src_lid(BarrierDesc::kRoundCount, 0, 1), std::out_of_range);
  PfcFrame p;
  EXPECT_NE(error_of([&] { (void)p.quanta(PfcFrame::kQuantaCount); }).find("PfcFrame.quanta"),
            std::string::npos);
  EXPECT_THROW(p.set_quanta(8, 1), std::out_of_range);
}

TEST(FormatAccessors, SettingAFieldKeepsReservedAndNeighbouringBits) {
  PktHdr h = PktHdr::decode(golden_vector("pkt_hdr_reserved_bits_set").bytes);
  auto want = h.bytes();
  h.set_prio(7);  // byte 6 holds prio [50:48], ecn [52:51], dscp [58:53] low bits
  want[6] = static_cast<std::uint8_t>((want[6] & ~0x07U) | 0x07U);
  EXPECT_EQ(h.bytes(), want);
  h.set_flow_label(0xFFFFF);  // [83:64]; member [95:84] is already set
  want[8] = 0xFF;
  want[9] = 0xFF;
  want[10] = 0xFF;
  EXPECT_EQ(h.bytes(), want);
}

TEST(FormatAccessors, EnumsKnowTheirNames) {
  EXPECT_EQ(to_string(PktType::kNotify), "NOTIFY");
  EXPECT_TRUE(is_known(ErrCode::kDmaError));
  EXPECT_FALSE(is_known(static_cast<PktType>(0)));
  EXPECT_EQ(to_string(static_cast<CqStatus>(0x7F)), "");
}

// kXCount and kXValues list each enum's values once, every one known and
// distinct; the counter kinds are dense from 0, so a counter block can be
// indexed by kind with kSwCounterCount entries.
template <class E, std::size_t N>
void expect_value_list(const std::array<E, N>& values, unsigned count, unsigned width) {
  EXPECT_EQ(values.size(), count);
  EXPECT_LE(count, 1U << width);
  std::set<unsigned> seen;
  for (const E v : values) {
    EXPECT_TRUE(is_known(v)) << static_cast<unsigned>(v);
    EXPECT_TRUE(seen.insert(static_cast<unsigned>(v)).second) << to_string(v);
  }
}

TEST(FormatAccessors, EnumCountsAndValueLists) {
  expect_value_list(kOpcodeValues, kOpcodeCount, kOpcodeWidth);
  expect_value_list(kPktTypeValues, kPktTypeCount, kPktTypeWidth);
  expect_value_list(kEcnValues, kEcnCount, kEcnWidth);
  expect_value_list(kCqStatusValues, kCqStatusCount, kCqStatusWidth);
  expect_value_list(kErrCodeValues, kErrCodeCount, kErrCodeWidth);
  expect_value_list(kSwCounterValues, kSwCounterCount, kSwCounterWidth);
  expect_value_list(kWdStateValues, kWdStateCount, kWdStateWidth);
  for (unsigned i = 0; i < kSwCounterCount; ++i) {
    EXPECT_EQ(static_cast<unsigned>(kSwCounterValues.at(i)), i) << "counter kinds are dense";
  }
  for (const SwCounter c : kSwCounterValues) {
    EXPECT_FALSE(to_string(c).empty()) << static_cast<unsigned>(c);
  }
  EXPECT_EQ(to_string(SwCounter::kDropBuf), "DROP_BUF");
  EXPECT_EQ(to_string(kWdStateValues.front()), "MONITOR");
}

TEST(FormatAccessors, SizesAreTheSpecsSizes) {
  EXPECT_EQ(BarrierDesc::kSizeBytes, 32U + kMaxRounds * 2U * kKMax * kLidWidth / 8U);
  EXPECT_EQ(CqEntry::kSizeBytes, 16U);
  EXPECT_EQ(PktHdr::kSizeBytes * 8U, kFlitBits);
  EXPECT_EQ(PfcFrame::kSizeBytes * 8U, 2U * kFlitBits);
  EXPECT_EQ(BarrierDesc::kRoundCount, kMaxRounds);
  EXPECT_EQ(BarrierRound::kDstLidCount, kKMax);
  EXPECT_GE(kKMax, 4U);
  EXPECT_EQ(kMlidBase, 0xC000U);
}

}  // namespace
}  // namespace syncfab::fmt::test
