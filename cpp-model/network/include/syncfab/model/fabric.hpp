// A fabric of golden-model NICs on a 3D torus: node n has LID n + 1 and its
// own host memory; a packet a NIC sends reaches its destination after
// nic_latency + hops * hop_latency cycles (dimension-order route, fixed
// per-hop latency, no link contention: the paper's evaluation network).
// Optionally every NIC's link also sends it PFC frames (LinkPauses), as the
// switch port at its other end would when its buffer for a priority fills.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <span>
#include <vector>

#include <syncfab/hw/host_memory.hpp>
#include <syncfab/model/barrier_engine.hpp>

#include "syncfab/model/torus.hpp"

namespace syncfab::model {

// PFC frames the links send the NICs. Each NIC's link sends one every
// interval .. 2 * interval cycles (the first within the first interval):
// each priority's class bit is set with probability 3/4 and asks for
// 1 .. max_quanta quanta, or 0 (a resume) with probability 1/8. Frames
// travel on the link in order with the packets.
struct LinkPauses {
  unsigned interval = 0;  // 0: no frames
  unsigned max_quanta = 16;
  std::uint64_t seed = 1;
};

// A node of the fabric that is not a golden-model engine (a verilated NIC on
// the virtual platform, clocked by its owner): the fabric hands it the
// packets due at it (and the links' PFC frames), takes the packets it sent,
// and never steps or skips it.
class FabricEndpoint {
 public:
  FabricEndpoint() = default;
  FabricEndpoint(const FabricEndpoint&) = delete;
  FabricEndpoint& operator=(const FabricEndpoint&) = delete;
  FabricEndpoint(FabricEndpoint&&) = delete;
  FabricEndpoint& operator=(FabricEndpoint&&) = delete;
  virtual ~FabricEndpoint() = default;

  // A packet (every flit, `last` on the final one) for this node's rx.
  virtual void receive(std::span<const LinkFlit> flits) = 0;
  // The next packet the node sent whose last flit has left, oldest first.
  virtual std::optional<std::vector<LinkFlit>> transmit_flits() = 0;
  // Nothing to do and nothing queued: the fabric may skip cycles.
  [[nodiscard]] virtual bool quiescent() const = 0;
  // Flits received and not yet taken by the node.
  [[nodiscard]] virtual std::size_t link_backlog() const = 0;
};

struct FabricConfig {
  unsigned x = 4, y = 4, z = 8;
  unsigned hop_latency = 10;  // cycles per link
  unsigned nic_latency = 4;   // cycles of injection + ejection, per packet
  EngineConfig engine;        // every NIC's parameters (lid is set per node)
  hw::BusAddr mem_base = 0x1000'0000;
  std::size_t mem_size = 1 << 16;
  LinkPauses pauses;
};

class Fabric {
 public:
  explicit Fabric(const FabricConfig& cfg);
  // Node n's engine reaches the memory dma(n) returns (a bus of a virtual
  // platform, say) instead of a HostMemory of the fabric's own; every such
  // memory must outlive the fabric, and memory(n) throws std::logic_error.
  Fabric(const FabricConfig& cfg, const std::function<hw::DmaMemory&(unsigned node)>& dma);
  // The same, where node n is external(n) instead of an engine when that is
  // not null (every such endpoint must outlive the fabric; nic(n) throws
  // std::logic_error for it). Such nodes are never skipped: skip_to needs
  // them quiescent.
  Fabric(const FabricConfig& cfg, const std::function<hw::DmaMemory&(unsigned node)>& dma,
         const std::function<FabricEndpoint*(unsigned node)>& external);

  [[nodiscard]] unsigned size() const noexcept { return torus_.nodes(); }
  [[nodiscard]] const Torus3D& torus() const noexcept { return torus_; }
  [[nodiscard]] const FabricConfig& config() const noexcept { return cfg_; }
  [[nodiscard]] static std::uint16_t lid_of(unsigned node) noexcept {
    return static_cast<std::uint16_t>(node + 1);
  }
  [[nodiscard]] BarrierEngine& nic(unsigned node);
  [[nodiscard]] bool is_external(unsigned node) const {
    return nodes_.at(node).external != nullptr;
  }
  [[nodiscard]] hw::HostMemory& memory(unsigned node);
  [[nodiscard]] std::uint64_t now() const noexcept { return now_; }
  // Longest one-way packet latency in cycles.
  [[nodiscard]] std::uint64_t max_latency() const noexcept {
    return cfg_.nic_latency + std::uint64_t{torus_.diameter()} * cfg_.hop_latency;
  }

  // One cycle: deliver due packets and PFC frames, step every NIC, launch
  // what they sent.
  void step();
  // No packet in flight and every NIC quiescent (a PFC frame yet to be
  // sent is no work: frames follow the fabric's cycles, skipped ones are not
  // sent).
  [[nodiscard]] bool quiescent() const;
  [[nodiscard]] std::optional<std::uint64_t> next_delivery() const;
  // Advances a quiescent fabric to cycle t (> now) at once.
  void skip_to(std::uint64_t t);

  [[nodiscard]] std::uint64_t delivered() const noexcept { return delivered_; }
  [[nodiscard]] std::uint64_t unroutable() const noexcept { return unroutable_; }
  // PFC frames the links sent, and of them the ones pausing priority p
  // (class bit set, quanta > 0), summed over the NICs.
  [[nodiscard]] std::uint64_t pfc_frames() const noexcept { return pfc_frames_; }
  [[nodiscard]] std::uint64_t pauses_sent(unsigned prio) const { return pauses_sent_.at(prio); }
  // Stops the PFC frames and steps until every NIC has taken every flit on
  // its link and no packet is in flight; false if that takes more than
  // max_cycles.
  bool drain_links(std::uint64_t max_cycles);

 private:
  struct Node {
    std::unique_ptr<hw::HostMemory> memory;  // null when the engine reaches an outside memory
    std::unique_ptr<BarrierEngine> engine;   // null for an external node
    FabricEndpoint* external = nullptr;
    void receive(std::span<const LinkFlit> flits) const;
    [[nodiscard]] std::size_t link_backlog() const;
  };
  struct InFlight {
    std::uint64_t at;
    std::uint64_t seq;  // FIFO among packets due in the same cycle
    unsigned dst;
    std::vector<LinkFlit> pkt;  // every flit (a MGMT packet has MGMT_FLITS)
    friend bool operator>(const InFlight& a, const InFlight& b) noexcept {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };

  FabricConfig cfg_;
  Torus3D torus_;
  std::vector<Node> nodes_;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> flight_;
  std::uint64_t now_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t unroutable_ = 0;
  // PFC frames.
  void send_pause(unsigned node);
  bool pausing_ = false;
  std::mt19937_64 pause_rng_;
  std::vector<std::uint64_t> next_pause_;  // per NIC, the cycle of its next frame
  std::uint64_t pfc_frames_ = 0;
  std::array<std::uint64_t, fmt::kNumPrio> pauses_sent_{};
};

}  // namespace syncfab::model
