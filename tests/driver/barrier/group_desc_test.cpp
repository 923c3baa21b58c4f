// Group-barrier descriptors: the fields land at the bits the format gives
// (checked on the raw bytes), every refusal of docs/group-barrier.md section 2
// names its field and code in the rule order, and the decoder and the
// validator take group opcodes.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "syncfab/driver/barrier_desc.hpp"
#include "syncfab/driver/group_desc.hpp"

namespace syncfab::driver {
namespace {

std::string refusal(const GroupBarrier& g, const BarrierCompletion& c = {}) {
  try {
    (void)encode_group_desc(g, 2, 7, c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(GroupDesc, FieldsSitAtBits192To255) {
  const GroupBarrier g{GroupBarrierKind::kMulticastRelease, 0xC012, 0x0034, 5, 9};
  const fmt::BarrierDesc d = encode_group_desc(g, 3, 0xBEEF, {true, 0x2000, 0x11, true, false});
  const auto& b = d.bytes();
  EXPECT_EQ(b[0], 0x02);  // MCAST_BARRIER
  EXPECT_EQ(b[2], 3);
  EXPECT_EQ(b[4] | b[5] << 8, 0xBEEF);
  EXPECT_EQ(b[24] | b[25] << 8, 0xC012);  // mlid at bit 192
  EXPECT_EQ(b[26] | b[27] << 8, 0x0034);  // root_lid
  EXPECT_EQ(b[28] | b[29] << 8, 5);       // member
  EXPECT_EQ(b[30] | b[31] << 8, 9);       // members
  EXPECT_EQ(d.num_rounds(), 0);
  EXPECT_EQ(group_of(d), g);
  EXPECT_FALSE(validate_barrier_desc(d).has_value());
}

TEST(GroupDesc, RootLidOnlyWhereUsed) {
  const fmt::BarrierDesc root =
      encode_group_desc({GroupBarrierKind::kMulticastRelease, 0xC000, 0x55, 0, 4}, 0, 1, {});
  EXPECT_EQ(root.root_lid(), 0);
  const fmt::BarrierDesc comb =
      encode_group_desc({GroupBarrierKind::kSwitchCombined, 0xC000, 0x55, 2, 4}, 0, 1, {});
  EXPECT_EQ(comb.opcode(), fmt::Opcode::kCombBarrier);
  EXPECT_EQ(comb.root_lid(), 0);
}

TEST(GroupDesc, RefusalsNameFieldAndCode) {
  using K = GroupBarrierKind;
  EXPECT_EQ(refusal({K::kSwitchCombined, 0x0100, 0, 0, 4}),
            "switch-combined barrier: descriptor mlid 0x0100 is not a multicast LID (BAD_LID)");
  EXPECT_EQ(refusal({K::kMulticastRelease, 0xC001, 0, 1, 4}),
            "multicast-release barrier: descriptor root_lid 0x0000 is not a unicast LID (BAD_LID)");
  EXPECT_EQ(refusal({K::kMulticastRelease, 0xC001, 0xC002, 1, 4}),
            "multicast-release barrier: descriptor root_lid 0xc002 is not a unicast LID (BAD_LID)");
  EXPECT_EQ(refusal({K::kSwitchCombined, 0xC001, 0, 4, 4}),
            "switch-combined barrier: descriptor member 4 of 4 members is out of range "
            "(BAD_MEMBERS)");
  EXPECT_EQ(refusal({K::kSwitchCombined, 0xC001, 0, 0, 0}),
            "switch-combined barrier: descriptor member 0 of 0 members is out of range "
            "(BAD_MEMBERS)");
  EXPECT_EQ(refusal({K::kMulticastRelease, 0xC001, 0x10, 3, 4097}),
            "multicast-release barrier: multicast-release barrier of 4097 members exceeds 4096 "
            "(MCAST_MAX_MEMBERS, BAD_MEMBERS)");
  EXPECT_EQ(refusal({K::kSwitchCombined, 0xC001, 0, 3, 60000}), "(accepted)")
      << "a switch-combined group has no member bitmap anywhere";
  EXPECT_EQ(refusal({K::kSwitchCombined, 0xC001, 0, 0, 2}, {true, 0x1004, 0, true, false}),
            "barrier completion write address 4100 must be non-zero and 8-byte aligned");
  // BAD_LID comes before BAD_MEMBERS.
  EXPECT_NE(refusal({K::kSwitchCombined, 0x0001, 0, 9, 2}).find("(BAD_LID)"), std::string::npos);
}

TEST(GroupDesc, ValidatorFollowsTheNicsOrder) {
  fmt::BarrierDesc d =
      encode_group_desc({GroupBarrierKind::kMulticastRelease, 0xC001, 0, 0, 300}, 1, 1, {});
  // Rounds and fan-out are not looked at for a group opcode.
  d.set_num_rounds(200).set_fanout_k(0);
  EXPECT_FALSE(validate_barrier_desc(d).has_value());
  const auto root_cap = validate_barrier_desc(d, DescLimits{.max_members = 256});
  ASSERT_TRUE(root_cap.has_value());
  EXPECT_EQ(root_cap->code, fmt::ErrCode::kBadMembers);
  EXPECT_EQ(root_cap->message,
            "multicast-release root of 300 members exceeds the NIC's 256 (HW_CFG2.MAX_MEMBERS, "
            "BAD_MEMBERS)");
  d.set_ctx(9);
  EXPECT_EQ(validate_barrier_desc(d, DescLimits{.num_ctx = 8, .max_members = 256})->code,
            fmt::ErrCode::kBadContext);
  d.set_ctx(1).set_flag_cmpl_write(true).set_cmpl_addr(0).set_mlid(5);
  EXPECT_EQ(validate_barrier_desc(d)->code, fmt::ErrCode::kBadAddr);
  d.set_opcode(static_cast<fmt::Opcode>(0x04));
  EXPECT_EQ(validate_barrier_desc(d)->message,
            "descriptor opcode 4 is not BARRIER, MCAST_BARRIER or COMB_BARRIER (BAD_OPCODE)");
}

TEST(GroupDesc, DecoderTakesGroupOpcodes) {
  fmt::BarrierDesc d =
      encode_group_desc({GroupBarrierKind::kSwitchCombined, 0xC0FF, 0, 1, 2}, 4, 9, {});
  d.set_num_rounds(3).set_fanout_k(2);  // ignored
  const DecodedBarrier dec = decode_barrier_desc(d);
  EXPECT_EQ(dec.ctx, 4);
  EXPECT_EQ(dec.epoch, 9);
  EXPECT_EQ(dec.fanout, 0U);
  EXPECT_TRUE(dec.rounds.empty());
}

}  // namespace
}  // namespace syncfab::driver
