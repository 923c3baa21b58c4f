// The golden-model NIC backend: cpp-model's BarrierEngine on its pin-level
// link (step(NetIn) -> NetOut, one call per fabric cycle in settle()), on a
// ModelDevice with its own host memory, driven by the unchanged driver::Nic
// as the verilated NIC's driver is (NODE_LID written before the driver opens).
// CSR accesses take no simulated time on the model; a driver that waits
// (ModelDevice::wait_interrupt) runs the whole simulation one clock at a
// time, so the fabric's coroutine keeps stepping every node meanwhile.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model_clock.hpp"
#include "node.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/model/barrier_engine.hpp"
#include "syncfab/model/model_device.hpp"

namespace syncfab::tb::system {

// The NIC's link port on the engine's pins: offer() holds the flit the link
// shows; the node's settle() steps the engine with it and keeps the NetOut.
class ModelNicPort final : public Port {
 public:
  void offer(const LinkFlit* flit) override;
  [[nodiscard]] bool taken() const override { return out_.rx_taken; }
  [[nodiscard]] std::optional<LinkFlit> sent() const override;

  // This cycle's link inputs and, after the step, its outputs.
  [[nodiscard]] model::NetIn in() const { return in_; }
  void set_out(const model::NetOut& out) { out_ = out; }

 private:
  model::NetIn in_;
  model::NetOut out_;
};

class ModelNic final : public NicNode {
 public:
  // data_path: EngineConfig::data_path (the bulk sender and DCQCN).
  ModelNic(TestContext& ctx, const std::string& name, bool data_path = false);
  ~ModelNic() override;
  ModelNic(const ModelNic&) = delete;
  ModelNic& operator=(const ModelNic&) = delete;
  ModelNic(ModelNic&&) = delete;
  ModelNic& operator=(ModelNic&&) = delete;

  [[nodiscard]] unsigned port_count() const override { return 1; }
  [[nodiscard]] Port& port(unsigned p) override;
  [[nodiscard]] Clock& clk() override { return clock_.clk(); }
  // The engine starts in its reset state when constructed; the fabric's
  // reset cycles do not step it (settle() is not called before start()).
  void assert_reset() override {}
  void release_reset() override {}
  void settle(std::uint64_t cycle) override;
  void bring_up(std::uint16_t lid, const driver::NicOptions& opts) override;
  void shut_down() override { nic_.reset(); }
  [[nodiscard]] driver::Nic& nic() override;
  [[nodiscard]] hw::Device& device() override { return dev_; }
  [[nodiscard]] const std::vector<nic_top::CqWrite>& cq_writes() const override { return cq_; }

 private:
  TestContext& ctx_;
  ModelClock clock_;
  hw::HostMemory memory_;
  model::BarrierEngine engine_;
  model::ModelDevice dev_;
  ModelNicPort port_;
  std::unique_ptr<driver::Nic> nic_;
  std::vector<nic_top::CqWrite> cq_;
  // Clock cycles minus engine cycles: the engine steps once per clock from
  // its first settle() on.
  std::optional<std::uint64_t> offset_;
};

}  // namespace syncfab::tb::system
