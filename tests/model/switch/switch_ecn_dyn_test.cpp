// The switch model with the dynamic ECN law (docs/switch-ecn-dynamic.md): WRED
// of a queue uses the thresholds the law set at the last window end, and a
// configuration the register block would refuse changes nothing.
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>

#include "switch_model_fixture.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/errors.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::model::test {
namespace {

constexpr std::uint32_t kCtrl = offsetof(switch_csr_t, ECN_DYN_CTRL);
constexpr std::uint32_t kPmax = offsetof(switch_csr_t, ECN_DYN_PMAX);
constexpr std::uint32_t kStatusK = offsetof(switch_csr_t, ECN_DYN_K);
constexpr std::uint32_t kStatusState = offsetof(switch_csr_t, ECN_DYN_STATE);
constexpr std::uint32_t kCntSel = offsetof(switch_csr_t, CNT_SEL);

std::uint32_t cnt_sel(unsigned port, unsigned prio) {
  return (port << SWITCH_CSR__CNT_SEL__PORT_bp) | (prio << SWITCH_CSR__CNT_SEL__PRIO_bp);
}

EcnDynConfig frozen_level() {
  EcnDynConfig c;
  c.enable = 0x01;  // queue 0
  c.win = 4;        // 16-cycle windows
  c.fan_sh = 0;     // every doubling of the fan-in halves the thresholds
  c.qref = 1000;
  c.pup = 0;
  c.pdn = 0;
  return c;
}

TEST_F(SwitchModelTest, EcnDynRefusedConfigChangesNothing) {
  const EcnDynConfig good = frozen_level();
  m.set_ecn_dyn(good);
  EcnDynConfig bad = good;
  bad.win = 3;
  EXPECT_THROW(m.set_ecn_dyn(bad), std::invalid_argument);
  bad.win = 21;
  EXPECT_THROW(m.set_ecn_dyn(bad), std::invalid_argument);
  bad = good;
  bad.plo = 10;
  bad.phi = 9;
  EXPECT_THROW(m.set_ecn_dyn(bad), std::invalid_argument);
  EXPECT_EQ(m.ecn_dyn().ctrl_word(), good.ctrl_word());
  EXPECT_EQ(m.ecn_dyn().pmax_word(), good.pmax_word());
}

TEST_F(SwitchModelTest, EcnDynWredUsesShiftedThresholds) {
  sw.set_lft(9, 3);
  sw.configure_wred(3, 0, {true, 4, 8, 0});  // static: Pmax 0, so only from Kmax = 8 on
  m.set_ecn_dyn(frozen_level());
  m.set_tx_stalled(3, true);
  // Window 0 (cycles 0..15): three inputs into queue 0 of output 3.
  send(0, {.dst = 9, .flow = 1}, 0);
  send(1, {.dst = 9, .flow = 2}, 1);
  send(2, {.dst = 9, .flow = 3}, 2);
  send(0, {.dst = 9, .flow = 4}, 3);
  send(0, {.dst = 9, .ecn = fmt::Ecn::kEct0, .flow = 5}, 4);  // at length 4: static, no mark
  run_to(16);
  EXPECT_EQ(m.queue_cells(3, 0), 5U);
  EXPECT_EQ(cnt(3, 0, fmt::SwCounter::kEcnMark), 0U);
  const EcnController& c = m.ecn_controller(3, 0);
  EXPECT_EQ(c.active_last(), 3U);
  EXPECT_EQ(c.shift(), 1U);  // floor(log2(3)) = 1
  EXPECT_EQ(c.level(), 0U);
  // The same through the status registers (§6): K 4 >> 1 = 2 and 8 >> 1 = 4;
  // level 0, shift 1, three active inputs. A port the switch lacks reads 0.
  m.csr().write32(kCntSel, cnt_sel(3, 0));
  EXPECT_EQ(m.csr().read32(kStatusK), 0x00040002U);
  EXPECT_EQ(m.csr().read32(kStatusState), 0x00030100U);
  m.csr().write32(kCntSel, cnt_sel(3, 1));  // law off: the static thresholds
  EXPECT_EQ(m.csr().read32(kStatusState) & 0xFFFF00U, 0U);
  m.csr().write32(kCntSel, cnt_sel(m.ports(), 0));
  EXPECT_EQ(m.csr().read32(kStatusK), 0U);
  // Window 1: Kmin 2, Kmax 4 now, so length 5 marks.
  send(1, {.dst = 9, .ecn = fmt::Ecn::kEct0, .flow = 6}, 17);
  run_to(24);
  EXPECT_EQ(cnt(3, 0, fmt::SwCounter::kEcnMark), 1U);
  // Window 1 ends with one input: the shift goes back to 0, and other
  // queues (law off) never moved.
  run_to(32);
  EXPECT_EQ(c.shift(), 0U);
  EXPECT_EQ(c.active_last(), 1U);
  EXPECT_EQ(m.ecn_controller(3, 1).active_last(), 0U);
}

// A refused write is a bus error and leaves the register as it was.
void expect_refused(SwitchCsrModel& csr, std::uint32_t offset, std::uint32_t value) {
  const std::uint32_t before = csr.reg(offset);
  EXPECT_THROW(csr.write32(offset, value), hw::BusError) << "offset " << offset;
  EXPECT_EQ(csr.reg(offset), before) << "offset " << offset;
}

TEST_F(SwitchModelTest, EcnDynRegistersRefuseWhatTheLawCannotTake) {
  expect_refused(m.csr(), kCtrl, (fmt::kEcnWinMin - 1) << SWITCH_CSR__ECN_DYN_CTRL__WIN_bp);
  expect_refused(m.csr(), kCtrl, (fmt::kEcnWinCntWidth + 1) << SWITCH_CSR__ECN_DYN_CTRL__WIN_bp);
  expect_refused(m.csr(), kPmax, (9U << SWITCH_CSR__ECN_DYN_PMAX__PHI_bp) | 10U);
  expect_refused(m.csr(), kStatusK, 0);
  expect_refused(m.csr(), kStatusState, 0);
  // A legal word is taken, and the model runs the law from the registers.
  const EcnDynConfig want = frozen_level();
  m.csr().write32(kCtrl, want.ctrl_word());
  m.csr().write32(kPmax, want.pmax_word());
  run_to(1);
  EXPECT_EQ(m.ecn_dyn().ctrl_word(), want.ctrl_word());
  EXPECT_EQ(m.ecn_dyn().pmax_word(), want.pmax_word());
}

}  // namespace
}  // namespace syncfab::model::test
