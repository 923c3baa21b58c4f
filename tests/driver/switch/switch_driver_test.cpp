// The switch API against the golden model's CSR block. Expected register
// values are worked out from switch_csr.rdl's field layout; refused
// configurations must name the rule and leave what was programmed intact.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "syncfab/driver/errors.hpp"
#include "syncfab/driver/memory_device.hpp"
#include "syncfab/driver/switch.hpp"
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

PfcPortConfig lossless3(std::uint16_t xoff, std::uint16_t xon, std::uint16_t quanta) {
  PfcPortConfig c{};
  c[3] = {true, xoff, xon, quanta};
  return c;
}

class SwitchTest : public ::testing::Test {
 protected:
  SwitchCsrModel dev{model::SwitchCsrParams{4, 600, 64, 16}};
  Switch sw{dev};
};

TEST(SwitchIdentity, RefusesANic) {
  MemoryDevice nic;
  try {
    Switch s(nic);
    FAIL() << "a NIC was taken for a switch";
  } catch (const DeviceMismatch& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'SFSW'"), std::string::npos) << m;
    EXPECT_NE(m.find("'SFNC'"), std::string::npos) << m;
  }
}

TEST_F(SwitchTest, ReadsTheHardwareConfiguration) {
  EXPECT_EQ(sw.info().ports, 4U);
  EXPECT_EQ(sw.info().prios, fmt::kNumPrio);
  EXPECT_EQ(sw.info().buf_cells, 600U);
  EXPECT_EQ(sw.info().lft_entries, 64U);
  EXPECT_EQ(sw.info().mft_entries, 16U);
  EXPECT_EQ(sw.info().id.magic, 0x53465357U);
}

TEST_F(SwitchTest, LftProgramReadClear) {
  EXPECT_FALSE(sw.lft(5).has_value());  // unprogrammed
  sw.set_lft(5, 2);
  EXPECT_EQ(sw.lft(5), 2U);
  EXPECT_EQ(dev.lft()[5], 0x80000002U);  // VALID | port
  sw.clear_lft(5);
  EXPECT_FALSE(sw.lft(5).has_value());
}

TEST_F(SwitchTest, LftRefusalsWriteNothing) {
  const LftEntry block[] = {{1, 0}, {2, 1}, {63, 3}, {64, 1}};  // 64 is past the table
  EXPECT_EQ(refusal([&] { sw.program_lft(block); }),
            "program_lft: LID 64 is beyond the LFT (64 entries)");
  EXPECT_EQ(dev.lft()[1], 0U) << "a refused block must not be half-written";
  EXPECT_EQ(refusal([&] { sw.set_lft(0, 1); }),
            "program_lft: LID 0 is not a unicast LID (1 .. 0xBFFF)");
  EXPECT_EQ(refusal([&] { sw.set_lft(0xC000, 1); }),
            "program_lft: LID 49152 is not a unicast LID (1 .. 0xBFFF)");
  EXPECT_EQ(refusal([&] { sw.set_lft(3, 4); }),
            "set_lft: port 4 does not exist (the switch has 4)");
  const LftEntry ok[] = {{1, 0}, {2, 1}, {63, 3}};
  sw.program_lft(ok);
  EXPECT_EQ(sw.lft(63), 3U);
}

TEST_F(SwitchTest, MftProgramAndRefusals) {
  sw.set_mft(0xC003, 0b1011);
  EXPECT_EQ(sw.mft(0xC003), 0b1011U);
  EXPECT_FALSE(sw.mft(0xC004).has_value());
  EXPECT_EQ(refusal([&] { sw.set_mft(0xC010, 1); }),
            "set_mft: MLID 49168 is outside the MFT (0xC000 .. 0xC000+16-1)");
  EXPECT_NE(
      refusal([&] { sw.set_mft(0xC001, 0b10000); }).find("names ports the switch does not have"),
      std::string::npos);
  EXPECT_NE(refusal([&] { sw.set_mft(0xC001, 0); }).find("is empty"), std::string::npos);
  EXPECT_EQ(refusal([&] { (void)sw.mft(0x10); }),
            "mft: MLID 16 is outside the MFT (0xC000 .. 0xC000+16-1)");
  sw.clear_mft(0xC003);
  EXPECT_FALSE(sw.mft(0xC003).has_value());
}

TEST_F(SwitchTest, CombineEntryProgramReadAndRefusals) {
  sw.set_mft(0xC002, 0b0111);
  const CombineEntry leaf{.children = 0b0011, .root = false, .parent = 2, .epoch = 7};
  sw.set_combine(0xC002, leaf);
  EXPECT_EQ(sw.combine(0xC002), leaf);
  EXPECT_FALSE(sw.combine(0xC003).has_value());

  // The root's children are its whole MFT mask; its parent is not kept.
  sw.set_mft(0xC003, 0b1010);
  sw.set_combine(0xC003, {.children = 0b1010, .root = true, .parent = 3, .epoch = 0xFFFF});
  EXPECT_EQ(sw.combine(0xC003),
            (CombineEntry{.children = 0b1010, .root = true, .parent = 0, .epoch = 0xFFFF}));

  EXPECT_EQ(refusal([&] { sw.set_combine(0xC002, {.children = 0b0011, .parent = 3}); }),
            "set_combine: MLID 0xC002: children 0x3 and parent 3 disagree with the MFT mask 0x7");
  EXPECT_EQ(refusal([&] { sw.set_combine(0xC002, {.children = 0b0110, .parent = 2}); }),
            "set_combine: MLID 0xC002: parent port 2 is also a child");
  EXPECT_EQ(refusal([&] { sw.set_combine(0xC002, {.children = 0, .parent = 2}); }),
            "set_combine: MLID 0xC002: child mask 0x0 is empty or names ports the switch does not "
            "have (4)");
  EXPECT_EQ(refusal([&] { sw.set_combine(0xC002, {.children = 0b0011, .parent = 4}); }),
            "set_combine parent: port 4 does not exist (the switch has 4)");
  EXPECT_EQ(refusal([&] { sw.set_combine(0xC005, {.children = 0b0011, .parent = 2}); }),
            "set_combine: MLID 0xC005: no MFT entry; program the MFT before the combine entry");
  EXPECT_EQ(sw.combine(0xC002), leaf) << "a refused entry must leave the programmed one intact";

  sw.clear_combine(0xC002);
  EXPECT_FALSE(sw.combine(0xC002).has_value());
}

TEST(SwitchHeadroom, FormulaByHand) {
  // 1 + 4 + 2 + 10 + 1 + 4 + 10
  EXPECT_EQ(required_headroom(LinkParams{10, 4}), 32U);
  EXPECT_EQ(required_headroom(LinkParams{0, 1}), 6U);
}

TEST_F(SwitchTest, PfcWritesThresholdsQuantaAndEnable) {
  PfcPortConfig c{};
  c[2] = {true, 100, 80, 300};
  c[3] = {true, 120, 60, 400};
  c[6] = {false, 7, 9, 0};  // lossy: not checked, still written
  sw.configure_pfc(1, c, LinkParams{10, 4});
  EXPECT_EQ(dev.reg(r::port_reg(1, r::PortReg::kPfcEn).offset), 0b1100U);
  EXPECT_EQ(dev.reg(r::port_reg(1, r::PortReg::kPfcThr, 2).offset), (80U << 16) | 100U);
  EXPECT_EQ(dev.reg(r::port_reg(1, r::PortReg::kPfcThr, 3).offset), (60U << 16) | 120U);
  EXPECT_EQ(dev.reg(r::port_reg(1, r::PortReg::kQuanta, 1).offset), (400U << 16) | 300U);
  EXPECT_EQ(dev.reg(r::port_reg(1, r::PortReg::kPfcThr, 6).offset), (9U << 16) | 7U);
  // Other ports untouched (reset: XOFF = XON = 0xFFFF).
  EXPECT_EQ(dev.reg(r::port_reg(0, r::PortReg::kPfcThr, 2).offset), 0xFFFFFFFFU);
  // Lossy share: 600 - (100 + 32) - (120 + 32); reset 0xFFFF elsewhere.
  EXPECT_EQ(dev.reg(r::port_reg(1, r::PortReg::kLossyLimit).offset), 316U);
  EXPECT_EQ(dev.reg(r::port_reg(0, r::PortReg::kLossyLimit).offset), 0xFFFFU);
}

TEST_F(SwitchTest, PfcRefusalsNameTheRuleAndLoseNothing) {
  sw.configure_pfc(0, lossless3(100, 50, 300), LinkParams{10, 4});
  const std::uint32_t thr = dev.reg(r::port_reg(0, r::PortReg::kPfcThr, 3).offset);
  EXPECT_EQ(refusal([&] {
              sw.configure_pfc(0, lossless3(50, 100, 300), LinkParams{10, 4});
            }),
            "port 0 priority 3: XON 100 is above XOFF 50 (the priority would resume before it "
            "is paused)");
  EXPECT_EQ(refusal([&] {
              sw.configure_pfc(0, lossless3(100, 50, 0), LinkParams{10, 4});
            }),
            "port 0 priority 3: pause quanta 0 is a resume, not a pause");
  EXPECT_EQ(refusal([&] {
              sw.configure_pfc(0, lossless3(0, 0, 300), LinkParams{10, 4});
            }),
            "port 0 priority 3: XOFF 0 would pause the peer with an empty buffer");
  // 600-cell buffer: XOFF 500 + headroom 2*100 + 2*4 + 4 = 712 cells.
  EXPECT_EQ(refusal([&] {
              sw.configure_pfc(0, lossless3(500, 400, 300), LinkParams{100, 4});
            }),
            "port 0: lossless priorities 3 need XOFF + headroom = 712 cells, the buffer has 600 "
            "(headroom 212 cells per priority for a 100-cycle link and 4-flit packets): lower "
            "XOFF or shorten the link");
  // Two lossless priorities share the buffer: each reserves its headroom.
  PfcPortConfig two = lossless3(280, 200, 300);
  two[5] = {true, 280, 200, 300};
  EXPECT_NE(refusal([&] {
              sw.configure_pfc(0, two, LinkParams{10, 4});
            }).find("lossless priorities 3, 5 need XOFF + headroom = 624"),
            std::string::npos);
  EXPECT_EQ(dev.reg(r::port_reg(0, r::PortReg::kPfcThr, 3).offset), thr);
  EXPECT_EQ(dev.reg(r::port_reg(0, r::PortReg::kPfcEn).offset), 0b1000U);
  EXPECT_EQ(dev.reg(r::port_reg(0, r::PortReg::kLossyLimit).offset), 600U - 132U);
}

TEST_F(SwitchTest, PauseMustOutlastItsRefresh) {
  // Reset timing: 8 cycles per quantum, refresh 256. quanta 32 -> 256 cycles,
  // refresh + 4 + 3 = 263 >= 256: refused.
  EXPECT_NE(refusal([&] {
              sw.configure_pfc(0, lossless3(100, 50, 32), LinkParams{10, 4});
            }).find("runs out before its refresh (256 + largest packet 4 + 3 = 263 cycles)"),
            std::string::npos);
  sw.configure_pfc(0, lossless3(100, 50, 33), LinkParams{10, 4});  // 264 > 263
  EXPECT_NE(refusal([&] {
              sw.set_pfc_timing(PfcTiming{8, 0});
            }).find("REFRESH is 0"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              sw.set_pfc_timing(PfcTiming{4, 256});
            }).find("runs out"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              sw.set_pfc_timing(PfcTiming{0, 1});
            }).find("at least 1"),
            std::string::npos);
  sw.set_pfc_timing(PfcTiming{16, 200});
  EXPECT_EQ(dev.reg(r::PFC_TIMING.offset), (200U << 16) | 16U);
}

TEST_F(SwitchTest, WredPackingAndRefusal) {
  sw.configure_wred(2, 5, WredQueue{true, 40, 200, 0x80});
  EXPECT_EQ(dev.reg(r::port_reg(2, r::PortReg::kWredK, 5).offset), (200U << 16) | 40U);
  EXPECT_EQ(dev.reg(r::port_reg(2, r::PortReg::kWredP, 1).offset), 0x8000U);  // queue 5 = P1 of [1]
  EXPECT_EQ(dev.reg(r::port_reg(2, r::PortReg::kWredEn).offset), 1U << 5);
  sw.configure_wred(2, 4, WredQueue{true, 1, 2, 0x11});
  EXPECT_EQ(dev.reg(r::port_reg(2, r::PortReg::kWredP, 1).offset), 0x8011U);
  sw.configure_wred(2, 5, WredQueue{false, 0, 0, 0});
  EXPECT_EQ(dev.reg(r::port_reg(2, r::PortReg::kWredEn).offset), 1U << 4);
  EXPECT_EQ(refusal([&] {
              sw.configure_wred(2, 1, WredQueue{true, 300, 200, 1});
            }),
            "port 2 queue 1: Kmin 300 is above Kmax 200");
  EXPECT_NE(refusal([&] { sw.configure_wred(2, 8, WredQueue{}); }).find("queue 8 does not exist"),
            std::string::npos);
}

TEST_F(SwitchTest, SchedulerWeights) {
  SchedConfig c;
  c.sp_mask = 0b1000'0000;
  c.weight = {1, 2, 3, 4, 5, 6, 7, 0};  // queue 7 is SP: weight unused
  sw.configure_scheduler(3, c);
  EXPECT_EQ(dev.reg(r::port_reg(3, r::PortReg::kWeight, 0).offset), (2U << 16) | 1U);
  EXPECT_EQ(dev.reg(r::port_reg(3, r::PortReg::kWeight, 3).offset), (0U << 16) | 7U);
  EXPECT_EQ(dev.reg(r::port_reg(3, r::PortReg::kSched).offset), 0x80U);
  c.sp_mask = 0;
  EXPECT_EQ(refusal([&] { sw.configure_scheduler(3, c); }),
            "port 3 queue 7: a WDRR queue needs a weight of at least 1 flit");
}

TEST_F(SwitchTest, WatchdogConfigReenableAndState) {
  EXPECT_NE(refusal([&] {
              sw.configure_watchdog(WatchdogConfig{0, 10, 10, 1});
            }).find("detection time 0 cycles is outside 1 .. 16777215"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              sw.configure_watchdog(WatchdogConfig{10, 10, 1U << 24, 1});
            }).find("window 16777216"),
            std::string::npos);
  sw.configure_watchdog(WatchdogConfig{1000, 2000, 100000, 3});
  EXPECT_EQ(dev.reg(r::WD_DETECT_TIME.offset), 1000U);
  EXPECT_EQ(dev.reg(r::WD_RECOVER_TIME.offset), 2000U);
  EXPECT_EQ(dev.reg(r::WD_WINDOW.offset), 100000U);
  EXPECT_EQ(dev.reg(r::WD_LIMIT.offset), 3U);
  sw.configure_watchdog_port(1, WatchdogPort{0b1000, true});
  EXPECT_EQ(dev.reg(r::port_reg(1, r::PortReg::kWdCtrl).offset), 0x108U);
  sw.reenable_pfc(2, 0b1010);
  const auto re = dev.take_reenables();
  ASSERT_EQ(re.size(), 1U);
  EXPECT_EQ(re[0].first, 2U);
  EXPECT_EQ(re[0].second, 0b1010);
  dev.hw_set_wd_state(2, 1, 1);
  dev.hw_set_wd_state(2, 3, 2);
  const auto st = sw.watchdog_state(2);
  EXPECT_EQ(st[0], fmt::WdState::kMonitor);
  EXPECT_EQ(st[1], fmt::WdState::kRecover);
  EXPECT_EQ(st[3], fmt::WdState::kDisabled);
  EXPECT_EQ(sw.watchdog_state(1)[1], fmt::WdState::kMonitor);
}

TEST_F(SwitchTest, RemapTable) {
  RemapConfig c;
  c.enable = true;
  c.uplink_mask = 0b1100;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    c.map[p] = {static_cast<std::uint8_t>(7 - p), static_cast<std::uint8_t>(8 * p)};
  }
  sw.configure_remap(c);
  EXPECT_EQ(dev.reg(r::REMAP_CTRL.offset), (0b1100U << 8) | 1U);
  EXPECT_EQ(dev.reg(r::remap(2).offset), (16U << 8) | 5U);
  c.map[4].dscp = 64;
  EXPECT_NE(refusal([&] { sw.configure_remap(c); }).find("entry for priority 4"),
            std::string::npos);
  c.map[4].dscp = 0;
  c.uplink_mask = 0b10000;
  EXPECT_NE(refusal([&] { sw.configure_remap(c); }).find("uplink mask"), std::string::npos);
}

TEST_F(SwitchTest, CountersSelectClearAndSaturate) {
  dev.hw_count(1, 3, static_cast<unsigned>(fmt::SwCounter::kPauseTx), 5);
  dev.hw_count(1, 3, static_cast<unsigned>(fmt::SwCounter::kRx), 0xFFFFFFF0U);
  dev.hw_count(1, 3, static_cast<unsigned>(fmt::SwCounter::kRx), 0x100);
  EXPECT_EQ(sw.counter(1, 3, fmt::SwCounter::kPauseTx), 5U);
  EXPECT_EQ(sw.counter(1, 3, fmt::SwCounter::kRx), 0xFFFFFFFFU);
  EXPECT_EQ(sw.counter(1, 2, fmt::SwCounter::kPauseTx), 0U);
  EXPECT_EQ(sw.counter(0, 3, fmt::SwCounter::kPauseTx), 0U);
  sw.enable(true);
  sw.clear_counters();
  EXPECT_EQ(sw.counter(1, 3, fmt::SwCounter::kPauseTx), 0U);
  EXPECT_EQ(dev.reg(r::CTRL.offset), 1U) << "clearing counters keeps ENABLE";
  EXPECT_EQ(to_string(fmt::SwCounter::kWdDisable), "WD_DISABLE");
  dev.hw_count(2, 0, static_cast<unsigned>(fmt::SwCounter::kDropBuf), 3);
  EXPECT_EQ(sw.counter(2, 0, fmt::SwCounter::kDropBuf), 3U);
  EXPECT_EQ(to_string(fmt::SwCounter::kDropBuf), "DROP_BUF");
}

TEST_F(SwitchTest, Interrupts) {
  EXPECT_EQ(sw.interrupt_status(), 0U);
  dev.hw_raise(r::INTR_STATUS_WD_DETECT.mask | r::INTR_STATUS_BAD_PKT.mask);
  EXPECT_EQ(sw.interrupt_status(), 0b1001U);
  sw.clear_interrupts(r::INTR_STATUS_WD_DETECT.mask);
  EXPECT_EQ(sw.interrupt_status(), 0b1000U);
  // A table command past the table raises TBL_ERROR and changes nothing.
  dev.write32(r::TBL_ADDR.offset, 1000);
  dev.write32(r::TBL_CMD.offset, 1);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_TBL_ERROR.mask, 0U);
}

}  // namespace
}  // namespace syncfab::driver
