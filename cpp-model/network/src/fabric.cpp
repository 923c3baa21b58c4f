#include "syncfab/model/fabric.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::model {

Fabric::Fabric(const FabricConfig& cfg) : cfg_(cfg), torus_(cfg.x, cfg.y, cfg.z) {
  if (torus_.nodes() >= fmt::kMlidBase) {
    throw std::invalid_argument("fabric of " + std::to_string(torus_.nodes()) +
                                " nodes exceeds the unicast LID space");
  }
  nodes_.reserve(torus_.nodes());
  for (unsigned n = 0; n < torus_.nodes(); ++n) {
    Node node;
    node.memory = std::make_unique<hw::HostMemory>(cfg.mem_base, cfg.mem_size);
    EngineConfig ec = cfg.engine;
    ec.lid = lid_of(n);
    node.engine = std::make_unique<BarrierEngine>(ec, *node.memory);
    nodes_.push_back(std::move(node));
  }
}

void Fabric::step() {
  while (!flight_.empty() && flight_.top().at <= now_) {
    const auto f = flight_.top();
    flight_.pop();
    nodes_[f.dst].engine->receive(f.pkt);
    ++delivered_;
  }
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    auto& e = *nodes_[n].engine;
    e.step();
    while (auto p = e.transmit()) {
      const unsigned lid = p->dst_lid();
      if (lid == 0 || lid > nodes_.size()) {
        ++unroutable_;
        continue;
      }
      const unsigned dst = lid - 1;
      const std::uint64_t lat =
          cfg_.nic_latency + std::uint64_t{torus_.hops(n, dst)} * cfg_.hop_latency;
      flight_.push(InFlight{now_ + std::max<std::uint64_t>(lat, 1), seq_++, dst, *p});
    }
  }
  ++now_;
}

bool Fabric::quiescent() const {
  if (!flight_.empty()) {
    return false;
  }
  for (const auto& n : nodes_) {
    if (!n.engine->quiescent()) {
      return false;
    }
  }
  return true;
}

std::optional<std::uint64_t> Fabric::next_delivery() const {
  if (flight_.empty()) {
    return std::nullopt;
  }
  return flight_.top().at;
}

void Fabric::skip_to(std::uint64_t t) {
  if (t <= now_) {
    return;
  }
  for (auto& n : nodes_) {
    n.engine->skip(t - now_);
  }
  now_ = t;
}

}  // namespace syncfab::model
