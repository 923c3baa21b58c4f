// The switch model with the dynamic ECN law (docs/switch-ecn-dynamic.md): WRED
// of a queue uses the thresholds the law set at the last window end, and a
// configuration the register block would refuse changes nothing.
#include <gtest/gtest.h>

#include <stdexcept>

#include "switch_model_fixture.hpp"

namespace syncfab::model::test {
namespace {

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

}  // namespace
}  // namespace syncfab::model::test
