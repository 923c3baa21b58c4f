#include "syncfab/vp/model_network.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "syncfab/vp/model_nic.hpp"

namespace syncfab::vp {

ModelNetwork::ModelNetwork(const sc_core::sc_module_name& name, const model::FabricConfig& cfg,
                           std::span<ModelNicModule* const> nics, const sc_core::sc_time& period,
                           bool skip_idle)
    : sc_core::sc_module(name), nics_(nics), period_(period), skip_idle_(skip_idle) {
  if (period_ == sc_core::SC_ZERO_TIME) {
    throw std::invalid_argument(std::string(this->name()) + ": clock period 0");
  }
  const std::uint64_t want = std::uint64_t{cfg.x} * cfg.y * cfg.z;
  if (nics.size() != want) {
    throw std::invalid_argument(std::string(this->name()) + ": " + std::to_string(nics.size()) +
                                " NIC modules for a torus of " + std::to_string(want) + " nodes");
  }
  fabric_ = std::make_unique<model::Fabric>(
      cfg, [&](unsigned n) -> hw::DmaMemory& { return nics[n]->dma; });
  for (unsigned n = 0; n < nics.size(); ++n) {
    nics[n]->attach(fabric_->nic(n), *this);
  }
  SC_METHOD(tick);
}

std::uint64_t ModelNetwork::cycle_at(const sc_core::sc_time& t) const {
  return t.value() / period_.value();
}

void ModelNetwork::catch_up(std::uint64_t cycle) {
  if (cycle > fabric_->now()) {
    skipped_ += cycle - fabric_->now();
    fabric_->skip_to(cycle);
  }
}

// Every edge before the access's time has passed (an edge at that very time
// comes after it: the woken tick runs a delta later).
void ModelNetwork::before_access() {
  if (sleeping_) {
    const auto t = sc_core::sc_time_stamp().value();
    catch_up((t + period_.value() - 1) / period_.value());
  }
}

void ModelNetwork::after_access() {
  if (sleeping_) {
    wake_.notify(sc_core::SC_ZERO_TIME);
  }
}

// Runs at clock edge c (time c * period) with fabric.now() == c: one step.
void ModelNetwork::tick() {
  const auto& now = sc_core::sc_time_stamp();
  if (sleeping_) {
    sleeping_ = false;
    // Woken between edges, or on an edge already stepped: wait for the next.
    std::uint64_t edge = (now.value() + period_.value() - 1) / period_.value();
    edge = std::max(edge, fabric_->now());
    const auto at = sc_core::sc_time::from_value(edge * period_.value());
    if (at != now) {
      next_trigger(at - now);
      return;
    }
  }
  catch_up(cycle_at(now));
  fabric_->step();
  ++steps_;
  for (auto* nic : nics_) {
    nic->after_step();
  }
  if (skip_idle_ && fabric_->quiescent()) {
    sleeping_ = true;
    next_trigger(wake_);
  } else {
    next_trigger(period_);
  }
}

}  // namespace syncfab::vp
