// The data-path driver (driver::DataFlows) on golden-model NICs: a flow
// programmed through the driver arrives at the other NIC, a barrier completes
// while the flow runs, and every bad value is refused by name.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

#include <syncfab/driver/data_flows.hpp>
#include <syncfab/driver/errors.hpp>

#include "nic_fixture.hpp"

namespace syncfab::driver::test {
namespace {

using Counter = hw::dcqcn::Counter;

model::FabricConfig pair() {
  model::FabricConfig c = torus(2, 1, 1);
  c.engine.data_path = true;
  return c;
}

TEST(DataFlows, AFlowArrivesAndABarrierCompletesWhileItRuns) {
  FabricNodes nodes(pair());
  DataFlows tx(*nodes.devices.at(0));
  DataFlows rx(*nodes.devices.at(1));
  EXPECT_EQ(tx.num_flows(), fmt::kNumFlows);
  FlowSpec spec;
  spec.dst_lid = model::Fabric::lid_of(1);
  spec.flow_label = 42;
  spec.payload_flits = 15;
  spec.packets = 400;
  tx.start(0, spec);
  EXPECT_EQ(tx.running(), 1U);

  auto ctxs = nodes.open_all(0, 1);
  for (auto& c : ctxs) {
    c.arrive();
  }
  for (auto& c : ctxs) {
    EXPECT_TRUE(c.wait(5us));
  }
  EXPECT_EQ(tx.status(0).state, fmt::FlowState::kRunning) << "the flow ended before the barrier";

  const FlowStatus st = tx.wait(0, 100us);
  EXPECT_EQ(st.state, fmt::FlowState::kDone);
  EXPECT_EQ(st.sent, 400U);
  EXPECT_EQ(st.rate, fmt::kRateLine);  // nothing marked CE: no CNP
  EXPECT_EQ(tx.counter(Counter::kDataTxFlits), 400U * 16);
  ASSERT_TRUE(nodes.fabric.drain_links(1000));
  EXPECT_EQ(rx.counter(Counter::kDataRx), 400U);
  EXPECT_EQ(rx.counter(Counter::kDataRxFlits), 400U * 15);
  EXPECT_EQ(rx.counter(Counter::kDataDrop), 0U);
  tx.clear_counters();
  EXPECT_EQ(tx.counter(Counter::kDataTx), 0U);
}

TEST(DataFlows, ConfigureWritesTheParameters) {
  FabricNodes nodes(pair());
  DataFlows f(*nodes.devices.at(0));
  DcqcnConfig c;
  c.rp_enable = false;
  c.g_shift = 5;
  c.rate_ai = 100;
  c.rate_min = 1;
  c.cnp_interval = 0;
  f.configure(c);
  auto& dev = *nodes.devices.at(0);
  namespace dq = hw::dcqcn;
  EXPECT_EQ(dev.read32(dq::kBase + dq::ALPHA_CFG.offset), 5U);
  EXPECT_EQ(dev.read32(dq::kBase + dq::RATE_AI.offset), 100U);
  EXPECT_EQ(dev.read32(dq::kBase + dq::RATE_MIN.offset), 1U);
  EXPECT_EQ(dev.read32(dq::kBase + dq::CNP_INTERVAL.offset), 0U);
  EXPECT_EQ(dq::CTRL_RP_ENABLE.get(dev.read32(dq::kBase + dq::CTRL.offset)), 0U);
  EXPECT_EQ(dq::CTRL_NP_ENABLE.get(dev.read32(dq::kBase + dq::CTRL.offset)), 1U);
  EXPECT_EQ(dev.read32(dq::kBase + dq::RATE_HAI.offset), dq::kRateHaiReset);
}

TEST(DataFlows, BadValuesAreRefusedByName) {
  FabricNodes nodes(pair());
  DataFlows f(*nodes.devices.at(0));
  DcqcnConfig bad_rate;
  bad_rate.rate_hai = fmt::kRateLine + 1;
  expect_error<std::invalid_argument>([&] { f.configure(bad_rate); }, "rate_hai 65537");
  DcqcnConfig bad_g;
  bad_g.g_shift = 0;
  expect_error<std::invalid_argument>([&] { f.configure(bad_g); }, "g_shift 0");
  DcqcnConfig bad_timer;
  bad_timer.rate_timer = 0;
  expect_error<std::invalid_argument>([&] { f.configure(bad_timer); }, "rate_timer 0");

  FlowSpec s;
  s.dst_lid = model::Fabric::lid_of(1);
  s.payload_flits = 1;
  s.packets = 1000;
  expect_error<std::invalid_argument>([&] { f.start(fmt::kNumFlows, s); }, "flow index 8");
  FlowSpec zero = s;
  zero.payload_flits = 0;
  expect_error<std::invalid_argument>([&] { f.start(0, zero); }, "payload_flits 0");
  FlowSpec none = s;
  none.packets = 0;
  expect_error<std::invalid_argument>([&] { f.start(0, none); }, "packets 0");
  FlowSpec self = s;
  self.dst_lid = model::Fabric::lid_of(0);
  expect_error<std::invalid_argument>([&] { f.start(0, self); }, "dst_lid 0x0001");
  FlowSpec prio = s;
  prio.prio = fmt::kNumPrio;
  expect_error<std::invalid_argument>([&] { f.start(0, prio); }, "prio 8");

  f.start(0, s);
  expect_error<std::logic_error>([&] { f.start(0, s); }, "flow 0 is running");
  try {
    f.start(1, s);  // same destination and label as flow 0
    ADD_FAILURE() << "no FlowError";
  } catch (const FlowError& e) {
    EXPECT_EQ(e.code(), fmt::FlowErr::kDupFlow);
    EXPECT_NE(std::string(e.what()).find("DUP_FLOW"), std::string::npos) << e.what();
  }
  f.stop(0);
  EXPECT_EQ(f.status(0).state, fmt::FlowState::kStopped);
}

TEST(DataFlows, ANicWithoutTheDataPathIsAMismatch) {
  SingleNode n;  // EngineConfig::data_path false
  expect_error<DeviceMismatch>([&] { DataFlows f(n.device); }, "no data-path block");
}

}  // namespace
}  // namespace syncfab::driver::test
