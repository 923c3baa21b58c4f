// The golden-model fabric carries the mailbox's MGMT packets whole (three
// flits, docs/group-protocol.md §1) between two NICs' mailboxes.
#include <gtest/gtest.h>

#include <cstdint>

#include <syncfab/hw/nic_regs.hpp>
#include <syncfab/model/fabric.hpp>

namespace syncfab::model {
namespace {

namespace nic = hw::nic;

TEST(FabricMgmt, DatagramsCrossTheFabricWhole) {
  FabricConfig cfg;
  cfg.x = 2;
  cfg.y = 2;
  cfg.z = 1;
  Fabric f(cfg);
  BarrierEngine& a = f.nic(0);
  BarrierEngine& b = f.nic(3);
  for (std::uint32_t w = 0; w < nic::kMboxWords; ++w) {
    a.csr_write(nic::MBOX_TX_DATA[w].offset, 0x01020304U * (w + 1));
  }
  for (int i = 0; i < 2; ++i) {
    a.csr_write(nic::MBOX_TX_CTRL.offset,
                nic::MBOX_TX_CTRL_DST_LID.put(Fabric::lid_of(3)) | nic::MBOX_TX_CTRL_SEND.put(1));
    for (int c = 0; c < 200 && !f.quiescent(); ++c) {
      f.step();
    }
    ASSERT_TRUE(f.quiescent());
  }
  EXPECT_EQ(a.counter(Counter::kMgmtSent), 2U);
  EXPECT_EQ(b.counter(Counter::kMgmtRecv), 2U);
  EXPECT_EQ(b.counter(Counter::kDrop), 0U);
  ASSERT_EQ(b.mbox_rx_level(), 2U);
  EXPECT_EQ(nic::MBOX_RX_SRC_SRC_LID.get(b.csr_read(nic::MBOX_RX_SRC.offset)), Fabric::lid_of(0));
  for (std::uint32_t w = 0; w < nic::kMboxWords; ++w) {
    EXPECT_EQ(b.csr_read(nic::MBOX_RX_DATA[w].offset), 0x01020304U * (w + 1)) << "word " << w;
  }
}

}  // namespace
}  // namespace syncfab::model
