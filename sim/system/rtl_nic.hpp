// The verilated NIC backend: nic_top with its memory BFM, RtlDevice and the
// unchanged driver::Nic (the node of the verilated NIC fabric, nic_fabric.hpp),
// its one link port on nic_top's rx/tx pins.
#pragma once

#include <Vnic_top.h>

#include <memory>
#include <string>
#include <vector>

#include "nic_fabric.hpp"
#include "node.hpp"

namespace syncfab::tb::system {

class RtlNicPort final : public Port {
 public:
  explicit RtlNicPort(Vnic_top& dut) : dut_(dut) {}
  void offer(const LinkFlit* flit) override;
  [[nodiscard]] bool taken() const override;
  [[nodiscard]] std::optional<LinkFlit> sent() const override;

 private:
  Vnic_top& dut_;
};

class RtlNic final : public NicNode {
 public:
  RtlNic(TestContext& ctx, const std::string& name);
  ~RtlNic() override;
  RtlNic(const RtlNic&) = delete;
  RtlNic& operator=(const RtlNic&) = delete;
  RtlNic(RtlNic&&) = delete;
  RtlNic& operator=(RtlNic&&) = delete;

  [[nodiscard]] unsigned port_count() const override { return 1; }
  [[nodiscard]] Port& port(unsigned p) override;
  [[nodiscard]] Clock& clk() override { return node_.clk; }
  void assert_reset() override;
  void release_reset() override { node_.dut.rst_ni = 1; }
  void bring_up(std::uint16_t lid, const driver::NicOptions& opts) override;
  void shut_down() override;
  [[nodiscard]] driver::Nic& nic() override;
  [[nodiscard]] hw::Device& device() override { return node_.dev; }
  [[nodiscard]] const std::vector<nic_top::CqWrite>& cq_writes() const override {
    return node_.mem.cq_writes();
  }
  void hold_doorbells() override { node_.gate.hold(); }
  [[nodiscard]] bool holds_doorbells() const override {
    return node_.gate.holding() || node_.gate.held() != 0;
  }
  Task<> release_doorbells() override { return node_.gate.release(); }

 private:
  TestContext& ctx_;
  nic_top::Knobs knobs_;  // the memory BFM's: no stalls, one cycle of latency
  fabric::Node node_;
  RtlNicPort port_;
  TaskHandle mem_bfm_;
  bool mem_running_ = false;
};

}  // namespace syncfab::tb::system
