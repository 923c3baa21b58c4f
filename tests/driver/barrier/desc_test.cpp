// Descriptor encoder: fields land where the format says (read back through the
// generated accessors and the decoder), round trip for many schedules, and
// the decoder rejects what the NIC rejects.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/driver/barrier_desc.hpp"

namespace syncfab::driver {
namespace {

std::vector<std::uint16_t> lids_for(std::uint32_t p, std::uint16_t first = 1) {
  std::vector<std::uint16_t> l(p);
  std::iota(l.begin(), l.end(), first);
  return l;
}

TEST(BarrierDesc, EncodesHeaderAndRounds) {
  const auto s = build_barrier_schedule(4, 10, 2);
  const auto lids = lids_for(10, 0x100);
  const BarrierCompletion c{true, 0x1000'0040, 0xfeedULL, true, true};
  const auto d = encode_barrier_desc(s, lids, 3, 0x1234, c);
  EXPECT_EQ(d.opcode(), fmt::Opcode::kBarrier);
  EXPECT_EQ(d.version(), fmt::kDescVersion);
  EXPECT_EQ(d.ctx(), 3);
  EXPECT_EQ(d.epoch(), 0x1234);
  EXPECT_EQ(d.num_rounds(), 3);
  EXPECT_EQ(d.fanout_k(), 2);
  EXPECT_TRUE(d.flag_cmpl_write());
  EXPECT_TRUE(d.flag_cq_entry());
  EXPECT_TRUE(d.flag_irq());
  EXPECT_EQ(d.cmpl_addr(), 0x1000'0040U);
  EXPECT_EQ(d.cmpl_value(), 0xfeedU);
  EXPECT_EQ(d.round_dst_lid(0, 0), 0x105);
  EXPECT_EQ(d.round_dst_lid(0, 1), 0x106);
  EXPECT_EQ(d.round_src_lid(1, 1), 0x108);
  EXPECT_EQ(d.round_dst_lid(2, 0), 0x103);
  EXPECT_EQ(d.round_dst_lid(2, 1), fmt::kLidNone);  // trimmed offset 18 >= 10
  EXPECT_EQ(d.round_src_lid(3, 0), fmt::kLidNone);  // beyond num_rounds
  const auto w = desc_words(d);
  EXPECT_EQ(w[0], 0x07'03'01'01U);  // flags 0b111 in byte 3, ctx 3, version 1, opcode 1
}

TEST(BarrierDesc, RoundTripManySchedules) {
  for (unsigned k = 1; k <= kBarrierMaxFanout; ++k) {
    for (std::uint32_t p : {1U, 2U, 3U, 7U, 16U, 27U, 100U, 128U, 1000U}) {
      const auto lids = lids_for(p, 17);
      for (std::uint32_t i = 0; i < p; i += (p / 5) + 1) {
        const auto s = build_barrier_schedule(i, p, k);
        const BarrierCompletion c{(i % 2) == 0, 0x2000 + 8ULL * i, i * 77ULL, (i % 3) != 0,
                                  (i % 5) == 0};
        const auto epoch = static_cast<std::uint16_t>(p * 31 + i);
        const auto d = encode_barrier_desc(s, lids, static_cast<std::uint8_t>(k), epoch, c);
        const auto image = fmt::BarrierDesc::decode(d.bytes());
        EXPECT_EQ(decode_barrier_desc(image),
                  schedule_as_lids(s, lids, static_cast<std::uint8_t>(k), epoch, c))
            << "p=" << p << " k=" << k << " rank " << i;
      }
    }
  }
}

TEST(BarrierDesc, EncoderRejectsBadArguments) {
  const auto s = build_barrier_schedule(0, 4, 1);
  const BarrierCompletion ok{};
  EXPECT_THROW((void)encode_barrier_desc(s, lids_for(3), 0, 0, ok), std::invalid_argument);
  EXPECT_THROW((void)encode_barrier_desc(s, std::vector<std::uint16_t>{1, 2, 0, 4}, 0, 0, ok),
               std::invalid_argument);
  EXPECT_THROW((void)encode_barrier_desc(s, std::vector<std::uint16_t>{1, 2, 0xC000, 4}, 0, 0, ok),
               std::invalid_argument);
  EXPECT_THROW((void)encode_barrier_desc(s, std::vector<std::uint16_t>{1, 2, 2, 4}, 0, 0, ok),
               std::invalid_argument);
  EXPECT_THROW((void)encode_barrier_desc(s, lids_for(4), 0, 0, {true, 0, 1, false, false}),
               std::invalid_argument);
  EXPECT_THROW((void)encode_barrier_desc(s, lids_for(4), 0, 0, {true, 0x1004, 1, false, false}),
               std::invalid_argument);
}

void expect_reject(const fmt::BarrierDesc& d, const std::string& code) {
  try {
    (void)decode_barrier_desc(d);
    FAIL() << "accepted, expected " << code;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(code), std::string::npos) << e.what();
  }
}

TEST(BarrierDesc, DecoderRejectsMalformed) {
  const auto good = encode_barrier_desc(build_barrier_schedule(1, 8, 1), lids_for(8), 0, 1, {});
  auto d = good;
  expect_reject(d.set_opcode(static_cast<fmt::Opcode>(0)), "BAD_OPCODE");
  d = good;
  expect_reject(d.set_version(2), "BAD_VERSION");
  d = good;
  expect_reject(d.set_num_rounds(21), "BAD_ROUNDS");
  d = good;
  expect_reject(d.set_fanout_k(0), "BAD_FANOUT");
  d = good;
  expect_reject(d.set_fanout_k(5), "BAD_FANOUT");
  d = good;
  expect_reject(d.set_flag_cmpl_write(true).set_cmpl_addr(0x1001), "BAD_ADDR");
  d = good;
  expect_reject(d.set_round_src_lid(1, 0, 0xC001), "BAD_LID");
  d = good;
  expect_reject(d.set_fanout_k(2).set_round_dst_lid(0, 1, d.round_dst_lid(0, 0)), "BAD_LID");
}

}  // namespace
}  // namespace syncfab::driver
