// Bus rules of the model's CSR block, as the RTL register block behaves
// (PSLVERR): writes to read-only registers, reads of write-only ones,
// unmapped and unaligned offsets are refused and change nothing.
#include <gtest/gtest.h>

#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/model/switch_csr_model.hpp"

namespace syncfab::model {
namespace {

namespace r = hw::switch_regs;

TEST(SwitchCsrModel, AccessRules) {
  SwitchCsrModel dev;
  EXPECT_EQ(dev.read32(r::ID.offset), r::kMagic);
  EXPECT_THROW(dev.write32(r::ID.offset, 0), hw::BusError);
  EXPECT_THROW(dev.write32(r::HW_CFG.offset, 0), hw::BusError);
  EXPECT_THROW((void)dev.read32(r::TBL_CMD.offset), hw::BusError);
  EXPECT_THROW((void)dev.read32(r::WD_REENABLE.offset), hw::BusError);
  EXPECT_THROW((void)dev.read32(0x018), hw::BusError);  // reserved
  EXPECT_THROW((void)dev.read32(0x011), hw::BusError);  // unaligned
  dev.write32(r::SCRATCH.offset, 0x1111'1111);
  for (std::uint32_t lsb = 1; lsb < 4; ++lsb) {  // unaligned: refused, nothing written
    EXPECT_THROW(dev.write32(r::SCRATCH.offset + lsb, 0x2222'2222), hw::BusError) << lsb;
  }
  EXPECT_EQ(dev.read32(r::SCRATCH.offset), 0x1111'1111U);
  EXPECT_THROW((void)dev.read32(static_cast<std::uint32_t>(r::kBlockBytes)), hw::BusError);
  EXPECT_EQ(dev.read32(r::ID.offset), r::kMagic);
}

TEST(SwitchCsrModel, ResetValuesAndMasks) {
  SwitchCsrModel dev;
  EXPECT_EQ(dev.read32(r::PFC_TIMING.offset), (256U << 16) | 8U);
  EXPECT_EQ(dev.read32(r::port_reg(7, r::PortReg::kWeight, 2).offset), 0x00010001U);
  dev.write32(r::CTRL.offset, 0xFFFFFFFFU);
  EXPECT_EQ(dev.read32(r::CTRL.offset), 1U) << "CNT_CLEAR is a pulse; other bits do not exist";
  dev.write32(r::WD_LIMIT.offset, 0x1234);
  EXPECT_EQ(dev.read32(r::WD_LIMIT.offset), 0x34U);
}

TEST(SwitchCsrModel, TableEntriesKeepOnlyTheirBits) {
  SwitchCsrModel dev(SwitchCsrParams{4, 100, 16, 4});
  dev.write32(r::TBL_ADDR.offset, (1U << 16) | 2);  // MFT entry 2
  dev.write32(r::TBL_WDATA.offset, 0xFFFFFFFFU);
  dev.write32(r::TBL_CMD.offset, 1);
  EXPECT_EQ(dev.mft()[2], 0x8000000FU);
  dev.write32(r::TBL_CMD.offset, 2);
  EXPECT_EQ(dev.read32(r::TBL_RDATA.offset), 0x8000000FU);
  dev.write32(r::TBL_ADDR.offset, (2U << 16) | 4);  // combine children beyond the 4 MFT entries
  dev.write32(r::TBL_CMD.offset, 1);
  EXPECT_TRUE((dev.read32(r::INTR_STATUS.offset) & r::INTR_STATUS_TBL_ERROR.mask) != 0);
}

}  // namespace
}  // namespace syncfab::model
