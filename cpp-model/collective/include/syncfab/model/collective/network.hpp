// A Topology compiled for the event loop: every directed link numbered, what
// each switch port reaches, and the model's own unicast routing (shortest
// paths over the switch graph: breadth-first searches from the destination
// switches, 64 at a time, computed when first needed and kept).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "syncfab/model/collective/inputs.hpp"

namespace syncfab::model::collective {

inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

class Network {
 public:
  // std::invalid_argument naming the switch, port or node when a link or an
  // end node names a port that does not exist or is used twice.
  explicit Network(const Topology& topo);

  [[nodiscard]] std::size_t switch_count() const { return ports_.size(); }
  [[nodiscard]] std::size_t node_count() const { return node_sw_.size(); }
  [[nodiscard]] unsigned ports(unsigned sw) const { return ports_[sw]; }

  // Directed links: switch sw's port p out (slot(sw, p)), then node n out
  // (node_link(n)).
  [[nodiscard]] std::uint32_t slot(unsigned sw, unsigned port) const { return offset_[sw] + port; }
  [[nodiscard]] std::uint32_t node_link(unsigned node) const { return node_base_ + node; }
  [[nodiscard]] std::size_t link_count() const { return node_base_ + node_sw_.size(); }

  // What directed link l reaches: a switch port (sw, port) or an end node.
  struct Far {
    std::uint32_t sw = kNone;  // kNone: an end node
    std::uint32_t port = 0;
    std::uint32_t node = kNone;
    std::uint32_t delay = 0;
  };
  [[nodiscard]] const Far& far(std::uint32_t link) const { return far_[link]; }
  [[nodiscard]] unsigned node_switch(unsigned n) const { return node_sw_[n]; }
  [[nodiscard]] unsigned node_port(unsigned n) const { return node_port_[n]; }
  // The port of switch sw towards end node dst: its own port when dst hangs
  // off sw, else one on a shortest switch path. Tie-break, destination mod k
  // along the path: among the c ports whose peer switch is one hop nearer,
  // in increasing port order, the one at index (dst / spread) mod c; then
  // spread *= c (the caller keeps `spread` per packet, 1 at its first
  // switch). On a fat tree this is d-mod-k (the first up-link by the
  // destination's index on its leaf, the next by its leaf, ...), which
  // spreads shift patterns such as dissemination over every top switch.
  // std::runtime_error naming both switches when dst's switch is unreachable.
  [[nodiscard]] unsigned route(unsigned sw, unsigned dst, std::uint64_t& spread);

  // Switch-to-switch hops on a shortest path (0 on the same switch).
  [[nodiscard]] unsigned hops(unsigned from_sw, unsigned to_sw);

  // Destination switches whose distances are known (the cache's size).
  [[nodiscard]] std::size_t searched() const { return searched_; }

 private:
  const std::vector<std::uint16_t>& distances(unsigned to_sw);
  void search_batch(unsigned first);

  std::vector<unsigned> ports_;
  std::vector<std::uint32_t> offset_;  // slot(sw, 0) = offset_[sw]
  std::uint32_t node_base_ = 0;
  std::vector<Far> far_;
  std::vector<std::uint32_t> peer_sw_;  // by slot: the switch port p reaches, or kNone
  std::vector<std::uint32_t> node_sw_;
  std::vector<std::uint32_t> node_port_;
  std::vector<std::unique_ptr<std::vector<std::uint16_t>>> dist_;  // by destination switch
  std::size_t searched_ = 0;
  std::vector<std::uint32_t> adj_off_;   // switch-to-switch neighbours, built on the first search
  std::vector<std::uint32_t> adj_;       // in port order
  std::vector<std::uint32_t> adj_port_;  // the port each adj_ entry leaves by
};

}  // namespace syncfab::model::collective
