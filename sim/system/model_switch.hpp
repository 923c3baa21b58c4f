// The golden-model switch backend: cpp-model's SwitchModel (packet level) in
// the shape of vl_switch_top8 or, with 16 ports, vl_switch_top16, programmed through its CSR block
// by the unchanged driver::Switch. Its ports turn flits into packets and packets back into one flit
// per cycle:
//  - in: a port takes every flit the link offers (the model has no rx
//    backpressure) and hands the packet to receive_timed() when its last
//    flit arrived, with the cycle of each flit;
//  - out: the model logs a copy (TxPacket) in the cycle its last flit left
//    and a PFC frame (TxPfcFrame) in the cycle its first flit left, so a
//    flit logged in model cycle t leaves the port in cycle t + out_lag.
// Because receive_timed() takes no packet that starts before the model's
// current cycle, the model runs in_lag cycles behind the arrivals: a flit
// that arrives in clock cycle c is the model's cycle c + in_lag (counted from
// the first settle()). With packets of at most L flits (PFC frames are 2),
// in_lag = max(L, 2) - 1 and out_lag = L - 1. The model's own forwarding
// time is shortened by in_lag + out_lag, so the node forwards in the
// switch's least latency (kSwitchForward) as long as that leaves the model
// at least one cycle (L <= 2).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model_clock.hpp"
#include "node.hpp"
#include "syncfab/model/switch_model.hpp"

namespace syncfab::tb::system {

class ModelSwitchPort final : public Port {
 public:
  void offer(const LinkFlit* flit) override;
  [[nodiscard]] bool taken() const override { return offered_.has_value(); }
  [[nodiscard]] std::optional<LinkFlit> sent() const override { return sending_; }

  // The flit offered this cycle, if any.
  [[nodiscard]] const std::optional<LinkFlit>& offered() const { return offered_; }
  // The flits of the packet arriving, with the model cycle of each.
  std::vector<model::Flit> rx_flits;
  std::vector<std::uint64_t> rx_cycles;
  // Flits waiting to leave, by clock cycle (ascending).
  std::deque<std::pair<std::uint64_t, LinkFlit>> tx;
  // The flit that leaves this cycle (set by the node's settle()).
  void set_sending(std::optional<LinkFlit> f) { sending_ = f; }

 private:
  std::optional<LinkFlit> offered_;
  std::optional<LinkFlit> sending_;
};

class ModelSwitch final : public SwitchNode {
 public:
  // ports: the switch's ports (1..hw::switch_regs::kMaxPorts); max_pkt_flits:
  // the longest packet the fabric carries (sets the lags above).
  ModelSwitch(TestContext& ctx, const std::string& name, unsigned ports,
              unsigned max_pkt_flits = 1);

  [[nodiscard]] unsigned port_count() const override { return ports_count_; }
  [[nodiscard]] Port& port(unsigned p) override { return *ports_.at(p); }
  [[nodiscard]] Clock& clk() override { return clock_.clk(); }
  // The model starts in its reset state; settle() is first called after reset.
  void assert_reset() override {}
  void release_reset() override {}
  void settle(std::uint64_t cycle) override;
  [[nodiscard]] SwitchShape shape() const override;
  void bring_up() override;
  [[nodiscard]] driver::Switch& driver() override;
  [[nodiscard]] std::uint32_t counter(unsigned port, unsigned prio,
                                      fmt::SwCounter kind) const override;
  [[nodiscard]] std::uint32_t ingress_cells(unsigned port, unsigned prio) const override;
  // Cycles a flit spends in this node beyond the model's own forwarding.
  [[nodiscard]] unsigned extra_latency() const { return in_lag_ + out_lag_; }

 private:
  void schedule(unsigned port, std::uint64_t model_first, std::span<const model::Flit> flits);

  ModelClock clock_;
  unsigned ports_count_;
  unsigned max_pkt_flits_;
  unsigned in_lag_;
  unsigned out_lag_;
  std::unique_ptr<model::SwitchModel> model_;  // counter() reads through a const node
  std::unique_ptr<driver::Switch> drv_;
  std::vector<std::unique_ptr<ModelSwitchPort>> ports_;
  std::vector<std::size_t> tx_seen_;
  std::vector<std::size_t> pfc_seen_;
  std::optional<std::uint64_t> base_;  // clock cycle of the model's cycle 0
};

}  // namespace syncfab::tb::system
