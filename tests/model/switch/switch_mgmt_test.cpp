// MGMT packets (docs/group-protocol.md) in the whole-switch golden model: a
// known type, forwarded by the LFT like DATA (docs/switch-datapath.md
// "Ingress" 1), its length checked only as any packet's.
#include <gtest/gtest.h>

#include "switch_model_fixture.hpp"
#include "syncfab/hw/switch_regs.hpp"

namespace syncfab::model::test {
namespace {

namespace r = hw::switch_regs;

TEST_F(SwitchModelTest, MgmtIsForwardedIntactByTheLft) {
  sw.set_lft(5, 2);
  const PktSpec s{
      .type = fmt::PktType::kMgmt, .len = fmt::kMgmtFlits, .dst = 5, .prio = 3, .flow = 11};
  const std::uint64_t id = send(0, s, 0);
  run_to(10);
  ASSERT_EQ(m.transmitted(2).size(), 1U);
  const TxPacket& t = m.transmitted(2)[0];
  EXPECT_EQ(t.pkt_id, id);
  EXPECT_EQ(t.flits.size(), fmt::kMgmtFlits);
  EXPECT_EQ(t.flits, make_packet(s)) << "header and payload unchanged";
  EXPECT_EQ(t.first_cycle, fmt::kMgmtFlits);  // the cycle after its last flit, like DATA
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kRx), 1U);
  EXPECT_EQ(cnt(2, 3, fmt::SwCounter::kTx), 1U);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kDropBadPkt), 0U);
  EXPECT_EQ(sw.interrupt_status() & r::INTR_STATUS_BAD_PKT.mask, 0U);
  for (unsigned o : {0U, 1U, 3U}) {
    EXPECT_TRUE(m.transmitted(o).empty()) << o;
  }
  EXPECT_TRUE(m.idle());
  EXPECT_TRUE(m.violations().empty());
}

TEST_F(SwitchModelTest, MgmtLengthsAreCheckedOnlyAsAnyPackets) {
  sw.set_lft(5, 1);
  // A flit count that disagrees with len_flits: DROP_BAD_PKT at its last flit.
  send(0, {.type = fmt::PktType::kMgmt, .len = fmt::kMgmtFlits, .flits = 2, .dst = 5, .prio = 2},
       0);
  // A consistent length other than MGMT_FLITS crosses (the NIC drops it).
  const PktSpec odd{.type = fmt::PktType::kMgmt, .len = 2, .dst = 5, .prio = 2, .flow = 4};
  send(0, odd, 2);
  // A lookup miss is DROP_NO_ROUTE, as for DATA.
  send(0, {.type = fmt::PktType::kMgmt, .len = fmt::kMgmtFlits, .dst = 9, .prio = 2}, 4);
  run_to(20);
  EXPECT_EQ(cnt(0, 2, fmt::SwCounter::kDropBadPkt), 1U);
  EXPECT_EQ(cnt(0, 2, fmt::SwCounter::kDropNoRoute), 1U);
  ASSERT_EQ(m.transmitted(1).size(), 1U);
  EXPECT_EQ(m.transmitted(1)[0].flits, make_packet(odd));
}

}  // namespace
}  // namespace syncfab::model::test
