#include "model_switch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "barrier_bound.hpp"
#include "switch_fabric.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/switch_regs.hpp"

namespace syncfab::tb::system {

namespace {

namespace r = hw::switch_regs;

// vl_switch_top8's shape but the port count (`ports`), and the switch's timing
// (docs/switch-datapath.md, "Enqueue" and "RTL and model timing in the co-simulation"): least
// forwarding latency kSwitchForward at the node's ports, one copy enqueued
// per cycle, copies back to back, any number of outputs starting per cycle,
// one WRED LFSR for the switch. The node's lags (`lag`: in_lag + out_lag)
// come out of the model's own forwarding time, so that a packet crosses the
// node in kSwitchForward cycles like the hardware, not kSwitchForward + lag;
// the model needs at least 1, so with packets of 3 flits or more the node
// is slower than that by 2L - 4 cycles.
model::SwitchModelParams model_params(unsigned ports, unsigned lag) {
  model::SwitchModelParams mp;
  mp.csr = model::SwitchCsrParams{ports, swfab::kBufCells, swfab::kLftEntries, swfab::kMftEntries};
  mp.fwd_latency = lag + 1 < kSwitchForward ? static_cast<unsigned>(kSwitchForward) - lag : 1U;
  mp.egress_gap = 0;
  mp.starts_per_cycle = 0;
  mp.enqueue_per_cycle = 1;
  mp.enqueue_by_packet = true;
  mp.shared_read = true;
  mp.shared_wred = true;
  return mp;
}

}  // namespace

void ModelSwitchPort::offer(const LinkFlit* flit) {
  offered_.reset();
  if (flit != nullptr) {
    offered_ = *flit;
  }
}

ModelSwitch::ModelSwitch(TestContext& ctx, const std::string& name, unsigned ports,
                         unsigned max_pkt_flits)
    : SwitchNode(name),
      clock_(ctx.sim(), name),
      ports_count_(ports),
      max_pkt_flits_(max_pkt_flits),
      in_lag_(std::max<unsigned>(max_pkt_flits, model::kPfcFrameFlits) - 1),
      out_lag_(max_pkt_flits == 0 ? 0 : max_pkt_flits - 1),
      model_(std::make_unique<model::SwitchModel>(model_params(ports, in_lag_ + out_lag_))),
      tx_seen_(ports, 0),
      pfc_seen_(ports, 0) {
  if (max_pkt_flits == 0) {
    throw std::invalid_argument("switch " + name + ": max_pkt_flits 0 (a packet has >= 1 flit)");
  }
  for (unsigned p = 0; p < ports; ++p) {
    ports_.push_back(std::make_unique<ModelSwitchPort>());
  }
}

SwitchShape ModelSwitch::shape() const {
  return {ports_count_, swfab::kLftEntries, swfab::kMftEntries};
}

void ModelSwitch::schedule(unsigned port, std::uint64_t model_first,
                           std::span<const model::Flit> flits) {
  ModelSwitchPort& p = *ports_.at(port);
  const std::uint64_t now = clock_.clk().cycles();
  for (std::size_t i = 0; i < flits.size(); ++i) {
    const std::uint64_t at = *base_ + model_first + i + out_lag_;
    if (at < now) {
      throw std::logic_error("switch " + name() + " port " + std::to_string(port) + ": a " +
                             std::to_string(flits.size()) + "-flit packet is longer than the " +
                             std::to_string(max_pkt_flits_) + " flits the node was built for");
    }
    const auto pos =
        std::find_if(p.tx.begin(), p.tx.end(), [&](const auto& e) { return e.first >= at; });
    if (pos != p.tx.end() && pos->first == at) {
      throw std::logic_error("switch " + name() + " port " + std::to_string(port) +
                             ": two flits in cycle " + std::to_string(at));
    }
    p.tx.insert(pos, {at, LinkFlit{flits[i], i + 1 == flits.size()}});
  }
}

void ModelSwitch::settle(std::uint64_t /*cycle*/) {
  const std::uint64_t now = clock_.clk().cycles();
  if (!base_) {
    base_ = now - model_->cycle();
  }
  const std::uint64_t mnow = now - *base_;
  const std::size_t longest = std::max<std::size_t>(max_pkt_flits_, model::kPfcFrameFlits);
  for (unsigned i = 0; i < ports_count_; ++i) {
    ModelSwitchPort& p = *ports_[i];
    if (!p.offered()) {
      continue;
    }
    p.rx_flits.push_back(p.offered()->data);
    p.rx_cycles.push_back(mnow + in_lag_);
    if (p.offered()->last) {
      model_->receive_timed(i, p.rx_flits, p.rx_cycles);
      p.rx_flits.clear();
      p.rx_cycles.clear();
    } else if (p.rx_flits.size() >= longest) {
      throw std::logic_error("switch " + name() + " port " + std::to_string(i) + ": a packet of " +
                             "more than " + std::to_string(longest) +
                             " flits arrives; the node was built for " +
                             std::to_string(max_pkt_flits_));
    }
  }
  model_->tick();
  for (unsigned i = 0; i < ports_count_; ++i) {
    const auto& copies = model_->transmitted(i);
    for (; tx_seen_[i] < copies.size(); ++tx_seen_[i]) {
      schedule(i, copies[tx_seen_[i]].first_cycle, copies[tx_seen_[i]].flits);
    }
    const auto& frames = model_->pfc_sent(i);
    for (; pfc_seen_[i] < frames.size(); ++pfc_seen_[i]) {
      schedule(i, frames[pfc_seen_[i]].first_cycle, frames[pfc_seen_[i]].flits);
    }
    ModelSwitchPort& p = *ports_[i];
    std::optional<LinkFlit> out;
    if (!p.tx.empty() && p.tx.front().first == now) {
      out = p.tx.front().second;
      p.tx.pop_front();
    }
    p.set_sending(out);
  }
  for (const std::string& v : model_->violations()) {
    throw std::runtime_error("switch " + name() + ": " + v);
  }
}

void ModelSwitch::bring_up() {
  drv_ = std::make_unique<driver::Switch>(model_->csr());
  check_hw_cfg(*this, drv_->info(), "the switch model");
}

driver::Switch& ModelSwitch::driver() {
  if (!drv_) {
    throw std::logic_error("switch " + name() + ": no driver before bring_up()");
  }
  return *drv_;
}

std::uint32_t ModelSwitch::counter(unsigned port, unsigned prio, fmt::SwCounter kind) const {
  // CNT_SEL/CNT_VALUE as the driver reads them; CNT_SEL restored after.
  hw::Csr csr(model_->csr());
  const std::uint32_t sel = csr.read(r::CNT_SEL);
  csr.write(r::CNT_SEL, {{r::CNT_SEL_PORT, port},
                         {r::CNT_SEL_PRIO, prio},
                         {r::CNT_SEL_KIND, static_cast<unsigned>(kind)}});
  const std::uint32_t v = csr.read(r::CNT_VALUE);
  csr.write(r::CNT_SEL, sel);
  return v;
}

std::uint32_t ModelSwitch::ingress_cells(unsigned port, unsigned prio) const {
  return model_->occupancy(port, prio);
}

}  // namespace syncfab::tb::system
