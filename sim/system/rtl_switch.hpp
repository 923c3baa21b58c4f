// The verilated switch backend: switch_top as vl_switch_top8 (the switch
// fabric's shape, switch_fabric.hpp) with its own ApbMaster, RtlDevice and
// unchanged driver::Switch; its ports on slices of switch_top's rx/tx vectors.
#pragma once

#include <Vswitch_top.h>

#include <array>
#include <memory>
#include <string>

#include "node.hpp"
#include "switch_fabric.hpp"
#include "switch_probe.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/hw/host_memory.hpp"

namespace syncfab::tb::system {

class RtlSwitchPort final : public Port {
 public:
  RtlSwitchPort(Vswitch_top& dut, unsigned index) : dut_(dut), index_(index) {}
  void offer(const LinkFlit* flit) override;
  [[nodiscard]] bool taken() const override;
  [[nodiscard]] std::optional<LinkFlit> sent() const override;

 private:
  Vswitch_top& dut_;
  unsigned index_;
};

class RtlSwitch final : public SwitchNode {
 public:
  RtlSwitch(TestContext& ctx, const std::string& name);

  [[nodiscard]] unsigned port_count() const override { return swfab::kPorts; }
  [[nodiscard]] Port& port(unsigned p) override { return *ports_.at(p); }
  [[nodiscard]] Clock& clk() override { return clk_; }
  void assert_reset() override;
  void release_reset() override { dut_.rst_ni = 1; }
  [[nodiscard]] SwitchShape shape() const override;
  void bring_up() override;
  [[nodiscard]] driver::Switch& driver() override;
  [[nodiscard]] std::uint32_t counter(unsigned port, unsigned prio,
                                      fmt::SwCounter kind) const override;

 private:
  Vswitch_top& dut_;
  Clock& clk_;
  ApbMaster apb_;
  hw::HostMemory memory_;  // the Device's DMA side; a switch never uses it
  driver::RtlDevice dev_;
  std::unique_ptr<driver::Switch> drv_;
  std::array<swfab::PortProbe, swfab::kPorts> probe_;
  std::array<std::unique_ptr<RtlSwitchPort>, swfab::kPorts> ports_;
};

}  // namespace syncfab::tb::system
