// Port groups in the golden switch model (docs/switch-ecmp.md section 2):
// the flow hash and member choice by the spec's numbers, then the whole
// switch programmed through driver::Switch: every packet leaves by the
// member the spec names, a flow keeps its port and its order, flows spread
// over the members, and a group that is missing or has no live member drops.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string_view>

#include "switch_model_fixture.hpp"
#include "syncfab/model/port_group.hpp"

namespace syncfab::model::test {
namespace {

TEST(FlowHash, CrcCheckValueAndTheSpecsExample) {
  constexpr std::string_view kCheck = "123456789";
  std::array<std::uint8_t, 9> b{};
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = static_cast<std::uint8_t>(kCheck[i]);
  }
  EXPECT_EQ(crc16_ccitt_false(b), 0x29B1U);
  // src 0x0001, dst 0x0002, flow label 0x00003: bytes 00 01 00 02 00 00 03.
  EXPECT_EQ(flow_hash(0x0001, 0x0002, 0x00003), 0x6965U);
  // Three live members: j = (0x6965 x 3) >> 16 = 1, the second one.
  EXPECT_EQ(choose_member(0b1110U, 0xFFFFFFFFU, 0, 4, 0x6965).port, 2);
  // Only the low 4 bits of the flow label's top byte are hashed.
  EXPECT_EQ(flow_hash(0x0001, 0x0002, 0xF00003), flow_hash(0x0001, 0x0002, 0x00003));
  EXPECT_NE(flow_hash(0x0001, 0x0002, 0x10003), flow_hash(0x0001, 0x0002, 0x00003));
}

TEST(MemberChoice, LiveMembersOnly) {
  // The input port and ports at or past NUM_PORTS never count.
  EXPECT_EQ(choose_member(0b0011U, 0xFFFFFFFFU, 0, 4, 0xFFFF).port, 1);
  EXPECT_EQ(choose_member(0b10010U, 0xFFFFFFFFU, 0, 4, 0xFFFF).port, 1);
  EXPECT_FALSE(choose_member(0b10010U, 0xFFFFFFFFU, 0, 4, 0xFFFF).skipped);
  // j = (h x n) >> 16 over the live ports, lowest first.
  for (std::uint32_t h = 0; h < 0x10000; h += 0x1000) {
    const int want = h < 0x5556 ? 1 : (h < 0xAAAB ? 2 : 3);
    EXPECT_EQ(choose_member(0b1110U, 0xFFFFFFFFU, 0, 4, static_cast<std::uint16_t>(h)).port, want)
        << h;
  }
  // A member that is down is skipped and says so; the input port does not.
  const MemberChoice c = choose_member(0b1110U, ~0b0100U, 0, 4, 0xFFFF);
  EXPECT_EQ(c.port, 3);
  EXPECT_TRUE(c.skipped);
  EXPECT_FALSE(choose_member(0b0011U, ~0b0001U, 0, 4, 0).skipped);
  // No live member: a miss.
  const MemberChoice none = choose_member(0b0110U, ~0b0110U, 0, 4, 0);
  EXPECT_EQ(none.port, -1);
  EXPECT_TRUE(none.skipped);
  EXPECT_EQ(choose_member(0b0001U, 0xFFFFFFFFU, 0, 4, 0).port, -1);
}

using PortGroupModelTest = SwitchModelTest;

// 300 flows from port 0 to LID 5, whose entry names group 1 = ports 1..3:
// every packet leaves by the member the spec computes, each flow by one
// port with its packets in order, and each member carries a fair share.
TEST_F(PortGroupModelTest, FlowsSpreadAndKeepTheirPortAndOrder) {
  sw.set_port_group(1, 0b1110U);
  sw.program_lft(std::vector<driver::LftEntry>{{5, 1, true}});
  std::map<std::uint64_t, std::uint32_t> flow_of;
  std::uint64_t cycle = 0;
  constexpr std::uint32_t kFlows = 300;
  for (int round = 0; round < 2; ++round) {
    for (std::uint32_t fl = 0; fl < kFlows; ++fl) {
      flow_of[send(0, {.len = 1, .dst = 5, .src = 0x0100, .flow = fl}, cycle)] = fl;
      cycle += 2;
    }
  }
  run_to(cycle + 50);
  std::array<unsigned, 4> per_port{};
  std::map<std::uint32_t, std::pair<unsigned, std::uint64_t>> last;  // flow -> (port, pkt id)
  std::size_t total = 0;
  for (unsigned o = 0; o < 4; ++o) {
    for (const TxPacket& t : m.transmitted(o)) {
      const std::uint32_t fl = flow_of.at(t.pkt_id);
      EXPECT_EQ(static_cast<int>(o),
                choose_member(0b1110U, 0xFFFFFFFFU, 0, 4, flow_hash(0x0100, 5, fl)).port)
          << "flow " << fl;
      const auto it = last.find(fl);
      if (it != last.end()) {
        EXPECT_EQ(it->second.first, o) << "flow " << fl << " changed port";
        EXPECT_LT(it->second.second, t.pkt_id) << "flow " << fl << " reordered";
      }
      last[fl] = {o, t.pkt_id};
      ++per_port[o];
      ++total;
    }
  }
  EXPECT_EQ(total, 2U * kFlows);
  EXPECT_EQ(per_port[0], 0U);
  for (unsigned o = 1; o < 4; ++o) {
    // 200 expected per member; a hash this poor would be a bug.
    EXPECT_GT(per_port[o], 150U) << o;
    EXPECT_LT(per_port[o], 250U) << o;
  }
  EXPECT_EQ(sw.lft_entry(5), (driver::LftEntry{5, 1, true}));
  EXPECT_EQ(sw.port_group(1), 0b1110U);
  EXPECT_TRUE(m.violations().empty());
}

// A packet never goes back out of its input port through a group.
TEST_F(PortGroupModelTest, TheInputPortIsNeverAMember) {
  sw.set_port_group(0, 0b0110U);
  sw.program_lft(std::vector<driver::LftEntry>{{7, 0, true}});
  for (std::uint32_t fl = 0; fl < 20; ++fl) {
    send(1, {.len = 1, .dst = 7, .flow = fl}, std::uint64_t{fl} * 2);
  }
  run_to(100);
  EXPECT_EQ(m.transmitted(2).size(), 20U);
  EXPECT_TRUE(m.transmitted(1).empty());
}

// An entry naming a group that was cleared after it was written, or whose
// only member is the input port: DROP_NO_ROUTE.
TEST_F(PortGroupModelTest, MissingOrEmptyGroupDropsNoRoute) {
  sw.set_port_group(2, 0b0010U);
  sw.set_port_group(3, 0b0100U);
  sw.program_lft(std::vector<driver::LftEntry>{{5, 2, true}, {6, 3, true}});
  sw.clear_port_group(3);
  send(1, {.len = 1, .dst = 5, .prio = 1}, 0);  // only member = input port
  send(0, {.len = 1, .dst = 6, .prio = 1}, 4);  // group no longer valid
  run_to(40);
  EXPECT_EQ(cnt(1, 1, fmt::SwCounter::kDropNoRoute), 1U);
  EXPECT_EQ(cnt(0, 1, fmt::SwCounter::kDropNoRoute), 1U);
  for (unsigned o = 0; o < 4; ++o) {
    EXPECT_TRUE(m.transmitted(o).empty()) << o;
  }
}

// A member whose PORT_UP bit is cleared after the group was programmed:
// its flows move to the live members at once, every packet of the group is
// counted in GROUP_SKIPS; with no live member left the packet is a miss
// (and still counted); CTRL.CNT_CLEAR clears the count.
TEST_F(PortGroupModelTest, DownMemberIsSkippedAndCounted) {
  sw.set_port_group(0, 0b1110U);
  sw.program_lft(std::vector<driver::LftEntry>{{5, 0, true}});
  EXPECT_EQ(sw.port_up(), 0xFFFFFFFFU);
  const std::uint32_t up = ~(1U << 2);
  sw.set_port_up(up);
  EXPECT_EQ(sw.port_up(), up);
  std::uint64_t cycle = 0;
  for (std::uint32_t fl = 0; fl < 60; ++fl) {
    send(0, {.len = 1, .dst = 5, .src = 0x0100, .flow = fl}, cycle);
    cycle += 2;
  }
  run_to(cycle + 40);
  EXPECT_TRUE(m.transmitted(2).empty());
  EXPECT_EQ(m.transmitted(1).size() + m.transmitted(3).size(), 60U);
  for (unsigned o : {1U, 3U}) {
    EXPECT_GT(m.transmitted(o).size(), 15U) << o;
  }
  EXPECT_EQ(sw.group_skips(), 60U);
  sw.set_port_up(~0b1110U);  // ports 1 and 3 down as well: no live member
  send(0, {.len = 1, .dst = 5, .prio = 1}, cycle + 40);
  run_to(cycle + 80);
  EXPECT_EQ(cnt(0, 1, fmt::SwCounter::kDropNoRoute), 1U);
  EXPECT_EQ(sw.group_skips(), 61U);
  sw.clear_counters();
  EXPECT_EQ(sw.group_skips(), 0U);
  // A group entry whose members are all up is not counted.
  sw.set_port_up(0xFFFFFFFFU);
  send(0, {.len = 1, .dst = 5}, cycle + 100);
  run_to(cycle + 140);
  EXPECT_EQ(sw.group_skips(), 0U);
}

}  // namespace
}  // namespace syncfab::model::test
