// The link options of the barrier API (NicOptions::traffic_class,
// pfc_enable, pfc_cycles_per_quantum): their defaults are the registers'
// reset values, a bad one is refused naming it before the device is
// touched, bring-up writes NET_CFG and PFC_CFG in the order of
// docs/nic/programming.md "Bring-up", a device older than the link registers
// is driven only at the defaults, and barriers run on a model fabric whose
// links pause the NICs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <syncfab/driver/errors.hpp>
#include <syncfab/driver/memory_device.hpp>
#include <syncfab/hw/csr.hpp>
#include <syncfab/hw/nic_regs.hpp>

#include "nic_fixture.hpp"

namespace syncfab::driver::test {
namespace {

namespace nic = hw::nic;

// Passes every access on to a device and records the writes, in order.
class RecordingDevice final : public hw::Device {
 public:
  explicit RecordingDevice(hw::Device& inner) : inner_(&inner) {}

  std::uint32_t read32(std::uint32_t offset) override {
    ++reads_;
    return inner_->read32(offset);
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    writes_.emplace_back(offset, value);
    inner_->write32(offset, value);
  }
  hw::DmaMemory& dma() override { return inner_->dma(); }
  bool wait_interrupt(std::chrono::nanoseconds timeout) override {
    return inner_->wait_interrupt(timeout);
  }

  [[nodiscard]] const std::vector<std::pair<std::uint32_t, std::uint32_t>>& writes() const {
    return writes_;
  }
  [[nodiscard]] unsigned reads() const { return reads_; }
  // Position of the first / last write to `reg` (writes().size() if none).
  [[nodiscard]] std::size_t first(hw::Reg reg) const {
    const auto it = std::find_if(writes_.begin(), writes_.end(),
                                 [&](const auto& w) { return w.first == reg.offset; });
    return static_cast<std::size_t>(it - writes_.begin());
  }
  [[nodiscard]] std::size_t last(hw::Reg reg) const {
    for (std::size_t i = writes_.size(); i > 0; --i) {
      if (writes_[i - 1].first == reg.offset) {
        return i - 1;
      }
    }
    return writes_.size();
  }
  [[nodiscard]] std::uint32_t value(std::size_t i) const { return writes_.at(i).second; }

 private:
  hw::Device* inner_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> writes_;
  unsigned reads_ = 0;
};

TEST(NicLink, DefaultsAreTheRegisterResetValues) {
  const NicOptions o;
  EXPECT_EQ(o.traffic_class, nic::kNetCfgTcReset);
  EXPECT_EQ(o.pfc_enable, nic::kPfcCfgEnableReset);
  EXPECT_EQ(o.pfc_cycles_per_quantum, nic::kPfcCfgCycPerQuantumReset);
  SingleNode node;
  Nic n(node.device, node.memory, node.options());
  const hw::Csr csr(node.device);
  EXPECT_EQ(csr.read(nic::NET_CFG_TC), nic::kNetCfgTcReset);
  EXPECT_EQ(csr.read(nic::PFC_CFG_ENABLE), nic::kPfcCfgEnableReset);
  EXPECT_EQ(csr.read(nic::PFC_CFG_CYC_PER_QUANTUM), nic::kPfcCfgCycPerQuantumReset);
  EXPECT_EQ(n.hw().identity.minor, nic::kVersionMinor);
  EXPECT_GE(n.hw().identity.minor, nic::kLinkRegsMinor) << "the model has the link registers";
}

TEST(NicLink, BadLinkOptionsAreRefusedNamingTheValueBeforeTheDeviceIsTouched) {
  SingleNode node;
  RecordingDevice dev(node.device);
  const auto refused = [&](auto change, const std::string& text) {
    auto o = node.options();
    change(o);
    expect_error<std::invalid_argument>([&] { Nic n(dev, node.memory, o); }, text);
  };
  refused([](NicOptions& o) { o.traffic_class = fmt::kNumPrio; },
          "Nic: traffic_class = 8 is out of range 0..7 (NUM_PRIO priorities)");
  refused([](NicOptions& o) { o.traffic_class = 1000; }, "traffic_class = 1000 is out of range");
  refused([](NicOptions& o) { o.pfc_enable = 0x1FF; },
          "Nic: pfc_enable = 0x1ff has bits above priority 7 (one bit per priority, NUM_PRIO = 8)");
  refused([](NicOptions& o) { o.pfc_enable = 0x8000'0000; }, "pfc_enable = 0x80000000 has bits");
  refused([](NicOptions& o) { o.pfc_cycles_per_quantum = 256; },
          "Nic: pfc_cycles_per_quantum = 256 is out of range 0..255 (PFC_CFG.CYC_PER_QUANTUM, 0 "
          "acts as 1)");
  EXPECT_TRUE(dev.writes().empty());
  EXPECT_EQ(dev.reads(), 0U);
  // The edges are accepted.
  auto o = node.options();
  o.traffic_class = fmt::kNumPrio - 1;
  o.pfc_enable = 0xFF;
  o.pfc_cycles_per_quantum = 255;
  EXPECT_NO_THROW({ Nic n(node.device, node.memory, o); });
  o.traffic_class = 0;
  o.pfc_enable = 0;
  o.pfc_cycles_per_quantum = 0;
  EXPECT_NO_THROW({ Nic n(node.device, node.memory, o); });
}

TEST(NicLink, BringUpWritesTheLinkRegistersInTheDocumentedOrder) {
  SingleNode node;
  RecordingDevice dev(node.device);
  auto o = node.options();
  o.retry_delay_cycles = 77;
  o.retry_limit = 3;
  o.traffic_class = 5;
  o.pfc_enable = 0x2C;
  o.pfc_cycles_per_quantum = 0;
  Nic n(dev, node.memory, o);
  const std::size_t none = dev.writes().size();
  const auto net = dev.first(nic::NET_CFG);
  const auto pfc = dev.first(nic::PFC_CFG);
  ASSERT_NE(net, none);
  ASSERT_NE(pfc, none);
  EXPECT_EQ(net, dev.last(nic::NET_CFG)) << "written once";
  EXPECT_EQ(pfc, dev.last(nic::PFC_CFG)) << "written once";
  EXPECT_EQ(dev.value(net), nic::NET_CFG_TC.put(5));
  EXPECT_EQ(dev.value(pfc), nic::PFC_CFG_ENABLE.put(0x2C) | nic::PFC_CFG_CYC_PER_QUANTUM.put(0));
  // Steps 2, 4, 5 before 7 (the link), 8 (interrupts, enable) after it.
  const auto reset = std::find_if(dev.writes().begin(), dev.writes().end(), [](const auto& w) {
    return w.first == nic::CTRL.offset && nic::CTRL_SOFT_RESET.get(w.second) != 0;
  });
  ASSERT_NE(reset, dev.writes().end());
  EXPECT_LT(static_cast<std::size_t>(reset - dev.writes().begin()), net);
  EXPECT_LT(dev.last(nic::CQ_TAIL), net);
  EXPECT_LT(dev.last(nic::SDQ_PROD), net);
  EXPECT_LT(dev.last(nic::RETRY_DELAY), net);
  EXPECT_LT(dev.last(nic::RETRY_LIMIT), net);
  EXPECT_LT(net, dev.last(nic::INTR_ENABLE));
  EXPECT_LT(pfc, dev.last(nic::INTR_ENABLE));
  EXPECT_LT(dev.last(nic::INTR_ENABLE), dev.last(nic::CTRL));
  EXPECT_EQ(dev.value(dev.last(nic::CTRL)), nic::CTRL_ENABLE.put(1));
  // Every write before the link's is with the engine disabled.
  const auto enable = dev.last(nic::CTRL);
  for (std::size_t i = 0; i < enable; ++i) {
    if (dev.writes()[i].first == nic::CTRL.offset) {
      EXPECT_EQ(nic::CTRL_ENABLE.get(dev.value(i)), 0U) << "write " << i;
    }
  }
  // The model engine now runs with them.
  const hw::Csr csr(node.device);
  EXPECT_EQ(csr.read(nic::NET_CFG_TC), 5U);
  EXPECT_EQ(csr.read(nic::PFC_CFG_ENABLE), 0x2CU);
  EXPECT_EQ(csr.read(nic::PFC_CFG_CYC_PER_QUANTUM), 0U);
  auto ctx = n.open_context(ContextConfig{0, 0, 1, 2, {7}});
  ctx.barrier(1us);
}

TEST(NicLink, AnOlderRegisterMapIsDrivenOnlyAtTheLinkDefaults) {
  // A device of this MAJOR but MINOR 2: no NET_CFG, no PFC_CFG.
  const auto old_device = [] {
    auto d = std::make_unique<MemoryDevice>();
    d->write32(nic::VERSION.offset, nic::VERSION_MAJOR.put(nic::kVersionMajor) |
                                        nic::VERSION_MINOR.put(nic::kLinkRegsMinor - 1));
    d->write32(nic::HW_CFG.offset, nic::HW_CFG_NUM_CTX.put(2) | nic::HW_CFG_K_MAX.put(2) |
                                       nic::HW_CFG_MAX_ROUNDS.put(4) |
                                       nic::HW_CFG_HDQ_DEPTH.put(1));
    return d;
  };
  {
    auto d = old_device();
    RecordingDevice dev(*d);
    Nic n(dev, d->dma(), {kMemBase, 1 << 20});
    EXPECT_EQ(n.hw().identity.minor, nic::kLinkRegsMinor - 1);
    EXPECT_EQ(dev.first(nic::NET_CFG), dev.writes().size()) << "not written";
    EXPECT_EQ(dev.first(nic::PFC_CFG), dev.writes().size()) << "not written";
  }
  auto d = old_device();
  NicOptions o;
  o.traffic_class = 1;
  expect_error<DeviceMismatch>(
      [&] {
        Nic n(*d, d->dma(), {kMemBase, 1 << 20}, o);
      },
      "device register map 1.2 has no NET_CFG or PFC_CFG (added in 1.3): traffic_class 1, "
      "pfc_enable 0xff, pfc_cycles_per_quantum 8 cannot be set");
  // The current map: written.
  MemoryDevice now;
  now.write32(nic::HW_CFG.offset, nic::HW_CFG_NUM_CTX.put(2) | nic::HW_CFG_K_MAX.put(2) |
                                      nic::HW_CFG_MAX_ROUNDS.put(4) | nic::HW_CFG_HDQ_DEPTH.put(1));
  Nic n(now, now.dma(), {kMemBase, 1 << 20}, o);
  EXPECT_EQ(hw::Csr(now).read(nic::NET_CFG_TC), 1U);
}

TEST(NicLink, BarriersRunOnAFabricWhoseLinksPauseTheNics) {
  for (const auto seed : seeds({1, 2})) {
    auto cfg = torus(3, 3, 1);
    cfg.pauses.interval = 60;
    cfg.pauses.max_quanta = 20;
    cfg.pauses.seed = seed;
    NicOptions o;
    o.traffic_class = 6;
    o.pfc_cycles_per_quantum = 2;
    FabricNodes f(cfg, o);
    auto ctxs = f.open_all(0, 2);
    for (unsigned b = 0; b < 5; ++b) {
      for (auto& c : ctxs) {
        c.arrive();
      }
      for (auto& c : ctxs) {
        ASSERT_TRUE(c.wait(200us)) << "barrier " << b << " " << replay(seed);
      }
    }
    ASSERT_TRUE(f.fabric.drain_links(10'000)) << "frames left on the links";
    std::uint64_t pauses = 0;
    std::uint64_t drops = 0;
    std::uint64_t dups = 0;
    for (unsigned n = 0; n < f.size(); ++n) {
      pauses += f.fabric.nic(n).counter(model::Counter::kPauseRx);
      drops += f.fabric.nic(n).counter(model::Counter::kDrop);
      dups += f.fabric.nic(n).counter(model::Counter::kDup);
      EXPECT_EQ(hw::Csr(*f.devices[n]).read(nic::NET_CFG_TC), 6U);
    }
    EXPECT_GT(pauses, 0U) << replay(seed);
    EXPECT_EQ(pauses, f.fabric.pauses_sent(6)) << replay(seed);
    EXPECT_EQ(drops, 0U) << replay(seed);
    EXPECT_EQ(dups, 0U) << replay(seed);
  }
}

}  // namespace
}  // namespace syncfab::driver::test
