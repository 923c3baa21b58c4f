#include "syncfab/vp/model_network.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "syncfab/vp/model_nic.hpp"
#include "syncfab/vp/rtl_nic.hpp"

namespace syncfab::vp {

ModelNetwork::ModelNetwork(const sc_core::sc_module_name& name, const model::FabricConfig& cfg,
                           std::span<NicModule* const> nics, const sc_core::sc_time& period,
                           bool skip_idle, bool doze, sc_core::sc_clock* clock)
    : sc_core::sc_module(name),
      period_(period),
      skip_idle_(skip_idle),
      // Skipped cycles send no PFC frames: with frames the links' cycles count.
      doze_(skip_idle && doze && cfg.pauses.interval == 0) {
  if (period_ == sc_core::SC_ZERO_TIME) {
    throw std::invalid_argument(std::string(this->name()) + ": clock period 0");
  }
  const std::uint64_t want = std::uint64_t{cfg.x} * cfg.y * cfg.z;
  if (nics.size() != want) {
    throw std::invalid_argument(std::string(this->name()) + ": " + std::to_string(nics.size()) +
                                " NIC modules for a torus of " + std::to_string(want) + " nodes");
  }
  std::vector<RtlNicModule*> rtl_of(nics.size(), nullptr);
  for (unsigned n = 0; n < nics.size(); ++n) {
    if (auto* m = dynamic_cast<ModelNicModule*>(nics[n])) {
      models_.push_back(m);
    } else if (auto* r = dynamic_cast<RtlNicModule*>(nics[n])) {
      rtl_of[n] = r;
      rtls_.push_back(r);
    } else {
      throw std::invalid_argument(std::string(this->name()) + ": node " + std::to_string(n) +
                                  " has a NIC of unknown kind");
    }
  }
  if (!rtls_.empty() && clock == nullptr) {
    throw std::invalid_argument(std::string(this->name()) + ": RTL NICs without a clock");
  }
  fabric_ = std::make_unique<model::Fabric>(
      cfg, [&](unsigned n) -> hw::DmaMemory& { return nics[n]->dma_port(); },
      [&](unsigned n) -> model::FabricEndpoint* { return rtl_of[n]; });
  for (unsigned n = 0; n < nics.size(); ++n) {
    if (auto* m = dynamic_cast<ModelNicModule*>(nics[n])) {
      m->attach(fabric_->nic(n), *this);
    }
  }
  if (rtls_.empty()) {
    SC_METHOD(tick);
  } else {
    SC_METHOD(clocked_tick);
    sensitive << clock->posedge_event();
    dont_initialize();
  }
}

// A rising edge of the RTL NICs' clock at edge c (time c * period).
void ModelNetwork::clocked_tick() {
  for (auto* r : rtls_) {
    r->sample();
  }
  catch_up(cycle_at(sc_core::sc_time_stamp()));
  fabric_->step();
  ++steps_;
  for (auto* r : rtls_) {
    r->drive();
  }
  for (auto* m : models_) {
    m->after_step();
  }
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

// Asleep, every edge before the access's time has passed (an edge at that
// very time comes after it: the woken tick runs a delta later). Dozing, the
// edges up to and including the access's time have passed, as they would
// have for the method running every cycle: its tick at an edge runs in the
// first delta of that time, before any host thread.
void ModelNetwork::before_access() {
  const auto t = sc_core::sc_time_stamp().value();
  if (sleeping_) {
    catch_up((t + period_.value() - 1) / period_.value());
  } else if (dozing_) {
    catch_up(t / period_.value() + 1);
  }
}

void ModelNetwork::after_access() {
  if (sleeping_ || dozing_) {
    wake_.notify(sc_core::SC_ZERO_TIME);
  }
}

bool ModelNetwork::engines_quiescent() const {
  return std::all_of(models_.begin(), models_.end(),
                     [](ModelNicModule* m) { return m->engine().quiescent(); });
}

// Runs at clock edge c (time c * period) with fabric.now() == c: one step.
void ModelNetwork::tick() {
  const auto& now = sc_core::sc_time_stamp();
  if (sleeping_ || dozing_) {
    sleeping_ = false;
    dozing_ = false;
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
  for (auto* m : models_) {
    m->after_step();
  }
  if (skip_idle_ && fabric_->quiescent()) {
    sleeping_ = true;
    next_trigger(wake_);
  } else if (doze_ && engines_quiescent()) {
    // Every engine waits for a packet and the next one is due at a known
    // edge: the cycles before it would step nothing. The timed trigger runs
    // that edge's tick in the first delta of its time, as stepping would.
    dozing_ = true;
    const auto due = *fabric_->next_delivery();
    next_trigger(sc_core::sc_time::from_value(due * period_.value()) - now, wake_);
  } else {
    next_trigger(period_);
  }
}

}  // namespace syncfab::vp
