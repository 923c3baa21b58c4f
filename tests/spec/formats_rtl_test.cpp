// Golden vectors through the generated SV package: each vector's bytes drive the
// raw input of a probe top (tests/spec/rtl/fmt_<format>_probe.sv) that casts them to the
// package's packed struct; every output port must carry the hand-written value.
// The same JSON is decoded by formats_test.cpp through the C++ accessors, so a
// pass of both shows that the RTL and the C++ read every byte the same way.
#include <verilated.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Vfmt_barrier_desc_probe.h"
#include "Vfmt_cq_entry_probe.h"
#include "Vfmt_pfc_frame_probe.h"
#include "Vfmt_pkt_hdr_probe.h"
#include "golden_vectors.hpp"
#include "syncfab/fmt/formats.hpp"  // NUM_PRIO only: the probe has one quanta per priority

namespace syncfab::fmt::test {
namespace {

// Bytes of a little-endian image into a Verilator wide port: word w holds
// bytes 4w .. 4w+3, byte 4w in bits [7:0] (the spec's bit b is port bit b).
template <std::size_t Words>
void drive(VlWide<Words>& port, const std::vector<std::uint8_t>& bytes) {
  ASSERT_EQ(bytes.size(), Words * 4U) << "vector size does not match the probe's raw_i";
  for (std::size_t w = 0; w < Words; ++w) {
    port[w] = static_cast<EData>(bytes[4 * w]) | static_cast<EData>(bytes[4 * w + 1]) << 8U |
              static_cast<EData>(bytes[4 * w + 2]) << 16U |
              static_cast<EData>(bytes[4 * w + 3]) << 24U;
  }
}

std::string at(const std::string& name, std::size_t i) {
  return name + "[" + std::to_string(i) + "]";
}

// Enum names from a probe's one-hot *_is_o port; `order` is the probe's bit
// order (written by hand in the probe), "" when no bit is set.
std::string one_hot_name(std::uint64_t bits, const std::vector<std::string>& order) {
  std::string out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (((bits >> i) & 1U) != 0U) {
      out += out.empty() ? order[i] : "|" + order[i];
    }
  }
  return out;
}

const std::vector<std::string> kPktTypes = {"DATA", "NOTIFY", "ACK", "NACK", "CNP", "PFC"};

struct Probed {
  FieldValues fields;
  EnumNames names;
};

class Probes {
 public:
  Probed pkt_hdr(const std::vector<std::uint8_t>& bytes) {
    auto& m = *pkt_hdr_;
    drive(m.raw_i, bytes);
    m.eval();
    return {{{"pkt_type", m.pkt_type_o},
             {"len_flits", m.len_flits_o},
             {"dst_lid", m.dst_lid_o},
             {"src_lid", m.src_lid_o},
             {"prio", m.prio_o},
             {"ecn", m.ecn_o},
             {"dscp", m.dscp_o},
             {"answer", m.answer_o},
             {"ask", m.ask_o},
             {"flow_label", m.flow_label_o},
             {"ctx", m.ctx_o},
             {"epoch", m.epoch_o},
             {"round", m.round_o},
             {"member", m.member_o}},
            {{"pkt_type", one_hot_name(m.pkt_type_is_o, kPktTypes)},
             {"ecn", one_hot_name(m.ecn_is_o, {"NOT_ECT", "ECT1", "ECT0", "CE"})}}};
  }

  Probed pfc_frame(const std::vector<std::uint8_t>& bytes) {
    auto& m = *pfc_frame_;
    drive(m.raw_i, bytes);
    Probed out;
    for (std::size_t p = 0; p < kNumPrio; ++p) {
      m.prio_i = static_cast<CData>(p);
      m.eval();
      out.fields[at("quanta", p)] = m.quanta_o;
    }
    out.fields["pkt_type"] = m.pkt_type_o;
    out.fields["len_flits"] = m.len_flits_o;
    out.fields["class_enable"] = m.class_enable_o;
    out.names["pkt_type"] = one_hot_name(m.pkt_type_is_o, kPktTypes);
    return out;
  }

  Probed cq_entry(const std::vector<std::uint8_t>& bytes) {
    auto& m = *cq_entry_;
    drive(m.raw_i, bytes);
    m.eval();
    return {{{"ctx", m.ctx_o},
             {"status", m.status_o},
             {"err_code", m.err_code_o},
             {"epoch", m.epoch_o},
             {"phase", m.phase_o}},
            {{"status", one_hot_name(m.status_is_o, {"OK", "DESC_ERROR", "NET_ERROR"})},
             {"err_code",
              one_hot_name(m.err_code_is_o, {"NONE", "BAD_OPCODE", "BAD_VERSION", "BAD_ROUNDS",
                                             "BAD_FANOUT", "BAD_ADDR", "BAD_CONTEXT", "BAD_LID",
                                             "CTX_BUSY", "RETRY_LIMIT", "DMA_ERROR"})}}};
  }

  // 20 rounds x 4 slots: MAX_ROUNDS and K_MAX of the spec; the comparison with
  // the vector (which lists every slot) catches any other count.
  Probed barrier_desc(const std::vector<std::uint8_t>& bytes) {
    auto& m = *barrier_desc_;
    drive(m.raw_i, bytes);
    Probed out;
    for (std::size_t r = 0; r < 20; ++r) {
      for (std::size_t k = 0; k < 4; ++k) {
        m.round_i = static_cast<CData>(r);
        m.slot_i = static_cast<CData>(k);
        m.eval();
        out.fields[at("round", r) + "." + at("dst_lid", k)] = m.dst_lid_o;
        out.fields[at("round", r) + "." + at("src_lid", k)] = m.src_lid_o;
      }
    }
    out.fields.insert({{"opcode", m.opcode_o},
                       {"version", m.version_o},
                       {"ctx", m.ctx_o},
                       {"flag_cmpl_write", m.flag_cmpl_write_o},
                       {"flag_cq_entry", m.flag_cq_entry_o},
                       {"flag_irq", m.flag_irq_o},
                       {"epoch", m.epoch_o},
                       {"num_rounds", m.num_rounds_o},
                       {"fanout_k", m.fanout_k_o},
                       {"cmpl_addr", m.cmpl_addr_o},
                       {"cmpl_value", m.cmpl_value_o},
                       {"mlid", m.mlid_o},
                       {"root_lid", m.root_lid_o},
                       {"member", m.member_o},
                       {"members", m.members_o}});
    out.names["opcode"] = one_hot_name(m.opcode_is_o, {"BARRIER"});
    return out;
  }

  Probed run(const GoldenVector& v) {
    if (v.format == "pkt_hdr") {
      return pkt_hdr(v.bytes);
    }
    if (v.format == "pfc_frame") {
      return pfc_frame(v.bytes);
    }
    if (v.format == "cq_entry") {
      return cq_entry(v.bytes);
    }
    if (v.format == "barrier_desc") {
      return barrier_desc(v.bytes);
    }
    throw std::invalid_argument("vector " + v.name + ": no RTL probe for format " + v.format);
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_ = std::make_unique<VerilatedContext>();
  std::unique_ptr<Vfmt_pkt_hdr_probe> pkt_hdr_ =
      std::make_unique<Vfmt_pkt_hdr_probe>(ctx_.get(), "pkt_hdr");
  std::unique_ptr<Vfmt_pfc_frame_probe> pfc_frame_ =
      std::make_unique<Vfmt_pfc_frame_probe>(ctx_.get(), "pfc_frame");
  std::unique_ptr<Vfmt_cq_entry_probe> cq_entry_ =
      std::make_unique<Vfmt_cq_entry_probe>(ctx_.get(), "cq_entry");
  std::unique_ptr<Vfmt_barrier_desc_probe> barrier_desc_ =
      std::make_unique<Vfmt_barrier_desc_probe>(ctx_.get(), "barrier_desc");
};

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += "\n  " + l;
  }
  return out;
}

class GoldenVectorsRtl : public ::testing::TestWithParam<GoldenVector> {};

TEST_P(GoldenVectorsRtl, ProbeDecodesEveryField) {
  const GoldenVector& v = GetParam();
  Probes probes;
  const Probed got = probes.run(v);
  const auto field_diff = diff_fields(v.fields, got.fields);
  EXPECT_TRUE(field_diff.empty()) << v.name << " (RTL):" << join(field_diff);
  const auto name_diff = diff_names(v.names, got.names);
  EXPECT_TRUE(name_diff.empty()) << v.name << " (RTL enum literals):" << join(name_diff);
}

INSTANTIATE_TEST_SUITE_P(Formats, GoldenVectorsRtl, ::testing::ValuesIn(golden_vectors()),
                         [](const ::testing::TestParamInfo<GoldenVector>& info) {
                           return test_name(info.param.name);
                         });

}  // namespace
}  // namespace syncfab::fmt::test
