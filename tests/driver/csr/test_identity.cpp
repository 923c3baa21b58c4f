// Driver-side identity check and register layer on the in-memory device.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "syncfab/driver/errors.hpp"
#include "syncfab/driver/identity.hpp"
#include "syncfab/driver/memory_device.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace sd = syncfab::driver;
namespace hw = syncfab::hw;
namespace nic = syncfab::hw::nic;

namespace {

// The exception message of check_identity on dev, or "" if it accepted.
std::string mismatch_message(hw::Device& dev) {
  try {
    sd::check_identity(dev);
  } catch (const sd::DeviceMismatch& e) {
    return e.what();
  }
  return "";
}

// "register map version 1.<minor>" of the header the driver was built with
// (MINOR moves with every backwards-compatible addition to the RDL).
std::string own_version() {
  return "register map version " + std::to_string(nic::kVersionMajor) + "." +
         std::to_string(nic::kVersionMinor);
}

void set_version(hw::Device& dev, std::uint32_t major, std::uint32_t minor) {
  hw::Csr(dev).write(nic::VERSION, {{nic::VERSION_MAJOR, major}, {nic::VERSION_MINOR, minor}});
}

}  // namespace

TEST(Identity, HeaderValuesAreTheNicBlock) {
  // 'SFNC' and major 1 are what rtl/nic/nic_csr.rdl says; this pins the
  // generated header to the RDL the driver was reviewed against.
  EXPECT_EQ(nic::kMagic, 0x53464E43u);
  const std::string text = sd::describe(sd::expected_identity());
  EXPECT_TRUE(text.starts_with("block type 'SFNC' (0x53464e43), register map version 1.")) << text;
  EXPECT_EQ(nic::ID.offset, 0u) << "the identity word must be the block's first word";
}

TEST(Identity, MatchingDeviceIsAccepted) {
  sd::MemoryDevice dev;
  const sd::Identity id = sd::check_identity(dev);
  EXPECT_EQ(id, sd::expected_identity());
}

TEST(Identity, DifferentMinorIsAccepted) {
  sd::MemoryDevice dev;
  set_version(dev, nic::kVersionMajor, nic::kVersionMinor + 7);
  const sd::Identity id = sd::check_identity(dev);
  EXPECT_EQ(id.minor, nic::kVersionMinor + 7);
}

TEST(Identity, WrongMagicIsRefused) {
  sd::MemoryDevice dev;
  dev.write32(nic::ID.offset, 0x53465357);  // 'SFSW': the switch block
  const std::string msg = mismatch_message(dev);
  ASSERT_FALSE(msg.empty()) << "a device with another block type was accepted";
  EXPECT_NE(msg.find("wrong block type"), std::string::npos) << msg;
  EXPECT_NE(msg.find("built for block type 'SFNC' (0x53464e43), " + own_version()),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("the device is block type 'SFSW' (0x53465357), " + own_version()),
            std::string::npos)
      << msg;
}

TEST(Identity, UnprintableMagicIsShownAsHex) {
  sd::MemoryDevice dev;
  dev.write32(nic::ID.offset, 0xFFFFFFFF);  // what an absent device reads as
  const std::string msg = mismatch_message(dev);
  EXPECT_NE(msg.find("block type '....' (0xffffffff)"), std::string::npos) << msg;
}

TEST(Identity, WrongMajorIsRefused) {
  sd::MemoryDevice dev;
  set_version(dev, nic::kVersionMajor + 1, 3);
  const std::string msg = mismatch_message(dev);
  ASSERT_FALSE(msg.empty()) << "a device with another major version was accepted";
  EXPECT_NE(msg.find("major version differs"), std::string::npos) << msg;
  EXPECT_NE(msg.find(own_version() + " (any 1.x)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the device is block type 'SFNC' (0x53464e43), register map version 2.3"),
            std::string::npos)
      << msg;
}

TEST(Identity, OlderMajorIsRefused) {
  sd::MemoryDevice dev;
  set_version(dev, 0, 9);
  EXPECT_THROW(sd::check_identity(dev), sd::DeviceMismatch);
}

TEST(Csr, FieldsComeFromTheGeneratedMap) {
  // Spot checks against the RDL: a field's mask/shift/width agree with each
  // other, and fields of one register never overlap.
  for (const nic::Field& f :
       {nic::VERSION_MINOR, nic::VERSION_MAJOR, nic::CTRL_ENABLE, nic::CTRL_SOFT_RESET,
        nic::CTRL_CNT_CLEAR, nic::HDQ_POST_POST, nic::HDQ_POST_LEVEL, nic::HDQ_POST_FULL}) {
    const std::uint64_t expect = ((std::uint64_t{1} << f.width) - 1) << f.shift;
    EXPECT_EQ(f.mask, expect) << f.name;
  }
  EXPECT_EQ(nic::HDQ_POST_POST.mask & nic::HDQ_POST_LEVEL.mask, 0u);
  EXPECT_EQ(nic::HDQ_POST_LEVEL.mask & nic::HDQ_POST_FULL.mask, 0u);
  EXPECT_EQ(nic::kHdqWindowOffset % 4, 0u);
  EXPECT_EQ(nic::kHdqWindowOffset + nic::kHdqWindowWords * 4, nic::kBlockBytes)
      << "the window is the last thing in the map";
}

// The HDQ window (rtl/nic/nic_csr.rdl) and the descriptor format (the format
// spec) come from two sources; the window must hold one whole descriptor.
TEST(Csr, HdqWindowHoldsOneBarrierDescriptor) {
  static_assert(syncfab::fmt::BarrierDesc::kSizeBytes % 4 == 0);
  EXPECT_GE(nic::kHdqWindowWords * 4, syncfab::fmt::BarrierDesc::kSizeBytes)
      << "grow HDQ_WORDS in rtl/nic/nic_csr.rdl";
}

TEST(Csr, WriteComposesFieldsAndChecksThem) {
  sd::MemoryDevice dev;
  hw::Csr csr(dev);
  csr.write(nic::CTRL, {{nic::CTRL_ENABLE, 1}, {nic::CTRL_CNT_CLEAR, 1}});
  EXPECT_EQ(dev.read32(nic::CTRL.offset), nic::CTRL_ENABLE.mask | nic::CTRL_CNT_CLEAR.mask);
  EXPECT_EQ(csr.read(nic::CTRL_ENABLE), 1u);
  EXPECT_EQ(csr.read(nic::CTRL_SOFT_RESET), 0u);

  try {
    csr.write(nic::HDQ_POST, {{nic::HDQ_POST_LEVEL, 0x100}});
    FAIL() << "a value wider than its field was written";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "value 0x100 does not fit HDQ_POST.LEVEL (8 bits)");
  }
  try {
    csr.write(nic::CTRL, {{nic::INTR_ENABLE_DONE, 1}});
    FAIL() << "a field of another register was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "field INTR_ENABLE.DONE is not a field of register CTRL");
  }
}

TEST(Csr, ModifyKeepsOtherFields) {
  sd::MemoryDevice dev;
  hw::Csr csr(dev);
  csr.write(nic::HW_CFG, 0xA1B2C3D4);
  csr.modify(nic::HW_CFG_K_MAX, 0x5E);
  EXPECT_EQ(csr.read(nic::HW_CFG), 0xA1B25ED4u);
}

TEST(Csr, SixtyFourBitPairs) {
  sd::MemoryDevice dev;
  hw::Csr csr(dev);
  csr.write64(nic::SDQ_BASE_LO, nic::SDQ_BASE_HI, 0x0123'4567'89AB'CDEFull);
  EXPECT_EQ(dev.read32(nic::SDQ_BASE_LO.offset), 0x89ABCDEFu);
  EXPECT_EQ(dev.read32(nic::SDQ_BASE_HI.offset), 0x01234567u);
  EXPECT_EQ(csr.read64(nic::SDQ_BASE_LO, nic::SDQ_BASE_HI), 0x0123'4567'89AB'CDEFull);
}

TEST(Csr, HdqWindowBounds) {
  sd::MemoryDevice dev;
  hw::Csr csr(dev);
  const std::array<std::uint32_t, 3> words{1, 2, 3};
  csr.write_hdq_window(words, nic::kHdqWindowWords - 3);
  EXPECT_EQ(csr.read_hdq_window(nic::kHdqWindowWords - 1), 3u);
  EXPECT_THROW(csr.write_hdq_window(words, nic::kHdqWindowWords - 2), std::out_of_range);
  EXPECT_THROW(static_cast<void>(csr.read_hdq_window(nic::kHdqWindowWords)), std::out_of_range);
}

TEST(MemoryDevice, RefusesOffsetsOutsideTheBlock) {
  sd::MemoryDevice dev;
  EXPECT_THROW(static_cast<void>(dev.read32(static_cast<std::uint32_t>(nic::kBlockBytes))),
               hw::BusError);
  EXPECT_THROW(dev.write32(2, 0), hw::BusError);
  try {
    static_cast<void>(dev.read32(0x1000));
    FAIL();
  } catch (const hw::BusError& e) {
    EXPECT_NE(std::string(e.what()).find("offset 0x1000"), std::string::npos) << e.what();
  }
}

TEST(MemoryDevice, InterruptsAreCountedOnce) {
  sd::MemoryDevice dev;
  EXPECT_FALSE(dev.wait_interrupt(std::chrono::microseconds(1)));
  dev.raise_interrupt();
  EXPECT_TRUE(dev.wait_interrupt(std::chrono::microseconds(1)));
  EXPECT_FALSE(dev.wait_interrupt(std::chrono::microseconds(1)));
}

TEST(HostMemory, LittleEndianWordsAndBounds) {
  sd::MemoryDevice dev(0x8000, 64);
  hw::DmaMemory& mem = dev.dma();
  mem.write32(0x8000, 0x11223344);
  std::array<std::byte, 4> b{};
  mem.read(0x8000, b);
  EXPECT_EQ(b[0], std::byte{0x44});
  EXPECT_EQ(b[3], std::byte{0x11});
  mem.write64(0x8038, 0x0102030405060708ull);
  EXPECT_EQ(mem.read64(0x8038), 0x0102030405060708ull);
  EXPECT_THROW(static_cast<void>(mem.read32(0x803E)), hw::DmaError);
  EXPECT_THROW(static_cast<void>(mem.read32(0x7FFF)), hw::DmaError);
  try {
    mem.write64(0x803C, 0);
    FAIL();
  } catch (const hw::DmaError& e) {
    EXPECT_STREQ(e.what(),
                 "DMA write of 8 bytes at 0x803c is outside host memory [0x8000, 0x803f]");
  }
}
