// The verilated switch backend: switch_top as vl_switch_top8 (class
// Vswitch_top) or vl_switch_top16 (Vswitch_top16), the shapes of
// rtl/switch/CMakeLists.txt, each switch with its own ApbMaster, RtlDevice
// and unchanged driver::Switch; its ports on slices of switch_top's rx/tx
// vectors. One class template over the verilated class: rtl_switch8.cpp and
// rtl_switch16.cpp instantiate it, each with one model's headers.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "node.hpp"
#include "switch_fabric.hpp"
#include "switch_probe.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/hw/host_memory.hpp"

class Vswitch_top16;  // vl_switch_top16's model (Vswitch_top: switch_probe.hpp)

namespace syncfab::tb::system {

// A verilated shape: its ports and the library HW_CFG is checked against
// (LFT, MFT and buffer sizes are swfab's, the same for both).
template <class Dut>
struct RtlSwitchShape;
template <>
struct RtlSwitchShape<Vswitch_top> {
  static constexpr unsigned kPorts = 8;
  static constexpr const char* kLibrary = "vl_switch_top8";
};
template <>
struct RtlSwitchShape<Vswitch_top16> {
  static constexpr unsigned kPorts = 16;
  static constexpr const char* kLibrary = "vl_switch_top16";
};

template <class Dut>
class RtlSwitchPort final : public Port {
 public:
  RtlSwitchPort(Dut& dut, unsigned index) : dut_(dut), index_(index) {}
  void offer(const LinkFlit* flit) override;
  [[nodiscard]] bool taken() const override;
  [[nodiscard]] std::optional<LinkFlit> sent() const override;

 private:
  Dut& dut_;
  unsigned index_;
};

template <class Dut>
class RtlSwitch final : public SwitchNode {
 public:
  static constexpr unsigned kPorts = RtlSwitchShape<Dut>::kPorts;

  RtlSwitch(TestContext& ctx, const std::string& name);

  [[nodiscard]] unsigned port_count() const override { return kPorts; }
  [[nodiscard]] Port& port(unsigned p) override { return *ports_.at(p); }
  [[nodiscard]] Clock& clk() override { return clk_; }
  void assert_reset() override;
  void release_reset() override;
  [[nodiscard]] SwitchShape shape() const override;
  void bring_up() override;
  [[nodiscard]] driver::Switch& driver() override;
  [[nodiscard]] std::uint32_t counter(unsigned port, unsigned prio,
                                      fmt::SwCounter kind) const override;
  [[nodiscard]] std::uint32_t ingress_cells(unsigned port, unsigned prio) const override;

 private:
  Dut& dut_;
  Clock& clk_;
  ApbMaster apb_;
  hw::HostMemory memory_;  // the Device's DMA side; a switch never uses it
  driver::RtlDevice dev_;
  std::unique_ptr<driver::Switch> drv_;
  std::array<swfab::PortProbe, kPorts> probe_;
  std::array<std::unique_ptr<RtlSwitchPort<Dut>>, kPorts> ports_;
};

extern template class RtlSwitchPort<Vswitch_top>;
extern template class RtlSwitch<Vswitch_top>;
extern template class RtlSwitchPort<Vswitch_top16>;
extern template class RtlSwitch<Vswitch_top16>;

}  // namespace syncfab::tb::system
