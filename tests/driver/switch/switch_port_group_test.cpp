// Port groups through the switch API against the golden model's CSR block
// (docs/switch-ecmp.md sections 1 and 4): table 6 and the LFT's GROUP bit as
// written and read back, and every refusal naming its value with nothing
// written.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/driver/switch.hpp"
#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/model/switch_csr_model.hpp"

namespace syncfab::driver {
namespace {

namespace r = hw::switch_regs;
using model::SwitchCsrModel;

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

class PortGroupDriverTest : public ::testing::Test {
 protected:
  SwitchCsrModel dev{model::SwitchCsrParams{4, 600, 64, 16}};
  Switch sw{dev};
};

TEST_F(PortGroupDriverTest, GroupsAndGroupEntriesReadBack) {
  EXPECT_FALSE(sw.port_group(3).has_value());
  sw.set_port_group(3, 0b1010U);
  EXPECT_EQ(sw.port_group(3), 0b1010U);
  EXPECT_EQ(dev.port_groups()[3], 0x8000000AU);  // VALID | MASK
  const std::vector<LftEntry> block{{5, 3, true}, {6, 2, false}};
  sw.program_lft(block);
  EXPECT_EQ(dev.lft()[5], 0xC0000003U);  // VALID | GROUP | group 3
  EXPECT_EQ(sw.lft_entry(5), (LftEntry{5, 3, true}));
  EXPECT_EQ(sw.lft_entry(6), (LftEntry{6, 2, false}));
  EXPECT_FALSE(sw.lft_entry(7).has_value());
  sw.clear_port_group(3);
  EXPECT_FALSE(sw.port_group(3).has_value());
  EXPECT_EQ(dev.port_groups()[3], 0U);
  // The last group exists; the table ends there.
  sw.set_port_group(fmt::kPortGroups - 1, 0b0001U);
  EXPECT_EQ(sw.port_group(fmt::kPortGroups - 1), 0b0001U);
}

TEST_F(PortGroupDriverTest, RefusalsNameTheValueAndWriteNothing) {
  const std::string n = std::to_string(fmt::kPortGroups);
  EXPECT_EQ(refusal([&] { sw.set_port_group(fmt::kPortGroups, 0b0011U); }),
            "set_port_group: port group " + n + " does not exist (the switch has " + n + ")");
  EXPECT_EQ(refusal([&] { sw.set_port_group(2, 0); }),
            "set_port_group: port group 2 has no member port");
  EXPECT_EQ(refusal([&] { sw.set_port_group(2, 0b10001U); }),
            "set_port_group: port group 2 names port 4, which does not exist (the switch has 4)");
  const std::vector<PortGroupEntry> groups{{0, 0b0011U}, {1, 0b1100U}, {2, 1U << 7}};
  EXPECT_EQ(refusal([&] { sw.program_port_groups(groups); }),
            "set_port_group: port group 2 names port 7, which does not exist (the switch has 4)");
  EXPECT_EQ(dev.port_groups()[0], 0U) << "a refused block must not be half-written";
  // An entry naming a group past the table or not programmed.
  sw.set_port_group(1, 0b0110U);
  const std::vector<LftEntry> past{{4, 1, false}, {5, fmt::kPortGroups, true}};
  EXPECT_EQ(refusal([&] { sw.program_lft(past); }),
            "program_lft: LID 5 names port group " + n + " (the switch has " + n + ")");
  const std::vector<LftEntry> unprogrammed{{4, 1, true}, {5, 9, true}};
  EXPECT_EQ(refusal([&] { sw.program_lft(unprogrammed); }),
            "program_lft: LID 5 names port group 9, which is not programmed (set_port_group "
            "first)");
  EXPECT_EQ(dev.lft()[4], 0U) << "a refused block must not be half-written";
  // A member that is down (PORT_UP bit 0) is refused; a group programmed
  // before the port went down stays as it was.
  sw.set_port_up(~0b0100U);
  EXPECT_EQ(refusal([&] { sw.set_port_group(4, 0b0110U); }),
            "set_port_group: port group 4 names port 2, which is down (its PORT_UP bit is 0)");
  EXPECT_FALSE(sw.port_group(4).has_value());
  EXPECT_EQ(sw.port_group(1), 0b0110U);
  EXPECT_EQ(refusal([&] { (void)sw.port_group(fmt::kPortGroups); }),
            "port_group: port group " + n + " does not exist (the switch has " + n + ")");
}

TEST(SwitchCsrModelPortGroups, EntriesKeepOnlyTheirBits) {
  SwitchCsrModel dev(model::SwitchCsrParams{4, 100, 16, 4});
  auto cmd = [&](unsigned table, unsigned idx, std::uint32_t wdata, std::uint32_t c) {
    dev.write32(r::TBL_ADDR.offset, (table << 16) | idx);
    dev.write32(r::TBL_WDATA.offset, wdata);
    dev.write32(r::TBL_CMD.offset, c);
  };
  cmd(6, 2, 0xFFFFFFFFU, 1);  // mask bits past NUM_PORTS are not kept
  EXPECT_EQ(dev.port_groups()[2], 0x8000000FU);
  cmd(6, 2, 0, 2);
  EXPECT_EQ(dev.read32(r::TBL_RDATA.offset), 0x8000000FU);
  cmd(6, 3, 0x0000000FU, 1);  // VALID 0 reads as 0
  cmd(6, 3, 0, 2);
  EXPECT_EQ(dev.read32(r::TBL_RDATA.offset), 0U);
  cmd(0, 1, 0xFFFFFFFFU, 1);  // LFT: PORT, GROUP, VALID
  EXPECT_EQ(dev.lft()[1], 0xC00000FFU);
  EXPECT_EQ(dev.read32(r::INTR_STATUS.offset) & r::INTR_STATUS_TBL_ERROR.mask, 0U);
  EXPECT_EQ(dev.read32(r::PORT_UP.offset), 0xFFFFFFFFU);  // reset: all ports in service
  EXPECT_EQ(dev.read32(r::GROUP_SKIPS.offset), 0U);
  EXPECT_THROW(dev.write32(r::GROUP_SKIPS.offset, 1), hw::BusError);  // read-only
  cmd(6, fmt::kPortGroups, 0x80000001U, 1);
  EXPECT_NE(dev.read32(r::INTR_STATUS.offset) & r::INTR_STATUS_TBL_ERROR.mask, 0U);
}

}  // namespace
}  // namespace syncfab::driver
