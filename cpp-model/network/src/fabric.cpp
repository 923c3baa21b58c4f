#include "syncfab/model/fabric.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace syncfab::model {

Fabric::Fabric(const FabricConfig& cfg) : Fabric(cfg, nullptr) {}

Fabric::Fabric(const FabricConfig& cfg, const std::function<hw::DmaMemory&(unsigned node)>& dma)
    : Fabric(cfg, dma, nullptr) {}

Fabric::Fabric(const FabricConfig& cfg, const std::function<hw::DmaMemory&(unsigned node)>& dma,
               const std::function<FabricEndpoint*(unsigned node)>& external)
    : cfg_(cfg),
      torus_(cfg.x, cfg.y, cfg.z),
      pausing_(cfg.pauses.interval != 0),
      pause_rng_(cfg.pauses.seed) {
  if (torus_.nodes() >= fmt::kMlidBase) {
    throw std::invalid_argument("fabric of " + std::to_string(torus_.nodes()) +
                                " nodes exceeds the unicast LID space");
  }
  nodes_.reserve(torus_.nodes());
  for (unsigned n = 0; n < torus_.nodes(); ++n) {
    Node node;
    node.external = external ? external(n) : nullptr;
    if (node.external != nullptr) {
      nodes_.push_back(std::move(node));
      continue;
    }
    if (!dma) {
      node.memory = std::make_unique<hw::HostMemory>(cfg.mem_base, cfg.mem_size);
    }
    EngineConfig ec = cfg.engine;
    ec.lid = lid_of(n);
    node.engine = std::make_unique<BarrierEngine>(ec, dma ? dma(n) : *node.memory);
    nodes_.push_back(std::move(node));
  }
  if (pausing_) {
    if (cfg.pauses.max_quanta == 0 || cfg.pauses.max_quanta > 0xFFFF) {
      throw std::invalid_argument("fabric pauses: max_quanta " +
                                  std::to_string(cfg.pauses.max_quanta) +
                                  " is out of range 1..65535");
    }
    for (unsigned n = 0; n < torus_.nodes(); ++n) {
      next_pause_.push_back(pause_rng_() % cfg.pauses.interval);
    }
  }
}

BarrierEngine& Fabric::nic(unsigned node) {
  auto& e = nodes_.at(node).engine;
  if (!e) {
    throw std::logic_error("fabric node " + std::to_string(node) +
                           " is an external endpoint, not a golden-model engine");
  }
  return *e;
}

void Fabric::Node::receive(std::span<const LinkFlit> flits) const {
  if (external != nullptr) {
    external->receive(flits);
  } else {
    engine->receive(flits);
  }
}

std::size_t Fabric::Node::link_backlog() const {
  return external != nullptr ? external->link_backlog() : engine->link_backlog();
}

hw::HostMemory& Fabric::memory(unsigned node) {
  auto& m = nodes_.at(node).memory;
  if (!m) {
    throw std::logic_error("fabric node " + std::to_string(node) +
                           ": its engine reaches an outside memory, the fabric has none");
  }
  return *m;
}

void Fabric::send_pause(unsigned node) {
  std::array<std::uint16_t, fmt::kNumPrio> quanta{};
  std::uint8_t classes = 0;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    if (pause_rng_() % 4 == 0) {
      continue;
    }
    classes = static_cast<std::uint8_t>(classes | (1U << p));
    if (pause_rng_() % 8 != 0) {
      quanta[p] = static_cast<std::uint16_t>(1 + pause_rng_() % cfg_.pauses.max_quanta);
      ++pauses_sent_[p];
    }
  }
  const auto flits = pfc_flits(make_pfc_frame(classes, quanta));
  nodes_[node].receive(flits);
  ++pfc_frames_;
  next_pause_[node] =
      now_ + cfg_.pauses.interval + pause_rng_() % (std::uint64_t{cfg_.pauses.interval} + 1);
}

void Fabric::step() {
  while (!flight_.empty() && flight_.top().at <= now_) {
    const auto f = flight_.top();
    flight_.pop();
    nodes_[f.dst].receive(f.pkt);
    ++delivered_;
  }
  for (unsigned n = 0; pausing_ && n < nodes_.size(); ++n) {
    if (next_pause_[n] <= now_) {
      send_pause(n);
    }
  }
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    auto& node = nodes_[n];
    if (node.engine) {
      // A quiescent engine's step does nothing but let the cycle pass
      // (BarrierEngine::skip), which costs a fraction of a step.
      if (node.engine->quiescent()) {
        node.engine->skip(1);
      } else {
        node.engine->step();
      }
    }
    while (auto p = node.engine ? node.engine->transmit_flits() : node.external->transmit_flits()) {
      const unsigned lid = fmt::PktHdr(p->front().data).dst_lid();
      if (lid == 0 || lid > nodes_.size()) {
        ++unroutable_;
        continue;
      }
      const unsigned dst = lid - 1;
      const std::uint64_t lat =
          cfg_.nic_latency + std::uint64_t{torus_.hops(n, dst)} * cfg_.hop_latency;
      flight_.push(InFlight{now_ + std::max<std::uint64_t>(lat, 1), seq_++, dst, std::move(*p)});
    }
  }
  ++now_;
}

bool Fabric::quiescent() const {
  if (!flight_.empty()) {
    return false;
  }
  for (const auto& n : nodes_) {
    if (!(n.engine ? n.engine->quiescent() : n.external->quiescent())) {
      return false;
    }
  }
  return true;
}

bool Fabric::drain_links(std::uint64_t max_cycles) {
  pausing_ = false;
  const auto links_empty = [this] {
    return flight_.empty() && std::all_of(nodes_.begin(), nodes_.end(),
                                          [](const Node& n) { return n.link_backlog() == 0; });
  };
  for (std::uint64_t i = 0; i < max_cycles && !links_empty(); ++i) {
    step();
  }
  return links_empty();
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
    if (n.engine) {
      n.engine->skip(t - now_);
    } else if (!n.external->quiescent()) {
      throw std::logic_error("fabric: skip_to with an external node that is not quiescent");
    }
  }
  now_ = t;
}

}  // namespace syncfab::model
