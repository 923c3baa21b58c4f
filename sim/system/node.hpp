// The nodes of a system fabric: every HCA is a NIC and every switch a switch,
// each with its own backend (verilated RTL or golden model), its ports
// (port.hpp) and its unchanged driver on its own Device. The fabric
// (system_fabric.hpp) holds nodes only through these interfaces.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cq_write.hpp"
#include "port.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/driver/switch.hpp"
#include "syncfab/hw/device.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::system {

enum class Backend : std::uint8_t { kRtl, kModel };

class Node {
 public:
  explicit Node(std::string name) : name_(std::move(name)) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  Node(Node&&) = delete;
  Node& operator=(Node&&) = delete;
  virtual ~Node() = default;

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] virtual unsigned port_count() const = 0;
  [[nodiscard]] virtual Port& port(unsigned p) = 0;
  // The node's clock: every node's has the system's period and phase.
  [[nodiscard]] virtual Clock& clk() = 0;
  // Reset asserted, every input at its idle value (rx_valid low, tx_ready high).
  virtual void assert_reset() = 0;
  virtual void release_reset() = 0;
  // Every cycle, once the links offered their flits and the simulator
  // evaluated (ReadOnly), before the links sample the ports: a backend that
  // is not a verilated model computes this cycle's outputs from its offered
  // inputs here. A verilated model is already evaluated: nothing to do.
  virtual void settle(std::uint64_t /*cycle*/) {}

 private:
  std::string name_;
};

class NicNode : public Node {
 public:
  using Node::Node;
  // After reset, while the system runs: NODE_LID = `lid` (the system
  // software assigns LIDs: the SM's LID of the HCA's port), then the driver.
  virtual void bring_up(std::uint16_t lid, const driver::NicOptions& opts) = 0;
  // Closes the driver (runs the simulation: call while the links still run).
  virtual void shut_down() = 0;
  [[nodiscard]] virtual driver::Nic& nic() = 0;
  // The CSRs, for counters (the driver's own device).
  [[nodiscard]] virtual hw::Device& device() = 0;
  // Every completion record the NIC wrote into its CQ ring, in order.
  [[nodiscard]] virtual const std::vector<nic_top::CqWrite>& cq_writes() const = 0;
  // A common start (every post of a barrier in one cycle): from
  // hold_doorbells() on, the driver's doorbell writes (the write that ends a
  // submission) are kept until release_doorbells() sends them. A golden
  // model's bus writes take no simulated time, so its posts of one host
  // sweep share a cycle already: it keeps nothing.
  virtual void hold_doorbells() {}
  [[nodiscard]] virtual bool holds_doorbells() const { return false; }
  virtual Task<> release_doorbells() { co_return; }
};

// The tables and ports a switch backend was built with, known before any
// simulation (the fabric checks the SM's fabric against it).
struct SwitchShape {
  unsigned ports = 0;
  unsigned lft_entries = 0;
  unsigned mft_entries = 0;
};

class SwitchNode;

// std::runtime_error naming the switch when its driver's identity (HW_CFG,
// read over the switch's own bus) differs from the shape its backend was
// built with (`backend` names the backend in the message).
void check_hw_cfg(const SwitchNode& sw, const driver::SwitchInfo& info, const std::string& backend);

class SwitchNode : public Node {
 public:
  using Node::Node;
  [[nodiscard]] virtual SwitchShape shape() const = 0;
  // After reset, while the system runs: the driver (identity and HW_CFG read
  // over the switch's own bus; throws when they differ from shape()).
  virtual void bring_up() = 0;
  [[nodiscard]] virtual driver::Switch& driver() = 0;
  // Counter (port, prio, kind) as CNT_SEL/CNT_VALUE would read it, without
  // simulating a cycle.
  [[nodiscard]] virtual std::uint32_t counter(unsigned port, unsigned prio,
                                              fmt::SwCounter kind) const = 0;
  // The same summed over the priorities.
  [[nodiscard]] std::uint64_t counter_all_prios(unsigned port, fmt::SwCounter kind) const;
  // Cells of arrival priority `prio` held in port's ingress buffer (what its
  // PFC thresholds compare), without simulating a cycle.
  [[nodiscard]] virtual std::uint32_t ingress_cells(unsigned port, unsigned prio) const = 0;
};

}  // namespace syncfab::tb::system
