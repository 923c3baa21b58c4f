#pragma once
// Min-hop data for every switch to every destination and every port, kept
// compact: a dense switch x switch distance matrix (uint8, one BFS per switch)
// plus each destination's attachment (its switch and the extra hop to an end node).
// The per-port hop count an OpenSM min-hop table would store is derived on
// demand: hops(s, p, d) = 1 + dist(peer switch of p, switch of d) + extra(d).
// For 40,960 end nodes on 3,872 switches that is 15 MB instead of a
// switch x LID x port table of several GB.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "syncfab/sm/fabric.hpp"

namespace syncfab::sm {

inline constexpr std::uint8_t kUnreachable = 0xFF;

class MinHop {
 public:
  // Throws FabricError if a switch-to-switch distance exceeds 254.
  explicit MinHop(const Fabric& fabric);

  [[nodiscard]] std::size_t switch_count() const { return n_; }
  [[nodiscard]] std::uint8_t distance(SwitchIdx a, SwitchIdx b) const {
    return dist_[static_cast<std::size_t>(a) * n_ + b];
  }
  [[nodiscard]] std::span<const std::uint8_t> row(SwitchIdx a) const {
    return {dist_.data() + static_cast<std::size_t>(a) * n_, n_};
  }
  // Hops from switch s to destination d (Fabric::dest) over its best port
  // (the table's column 0).
  [[nodiscard]] std::uint8_t hops(SwitchIdx s, Dest d) const;
  // Hops from switch s to destination d when leaving through port p;
  // kUnreachable if p is unconnected or leads to an end node that is not d.
  [[nodiscard]] std::uint8_t hops_via(SwitchIdx s, PortNum p, Dest d) const;
  // Hops from switch s through port p to switch t (kUnreachable as above).
  [[nodiscard]] std::uint8_t hops_via_to_switch(SwitchIdx s, PortNum p, SwitchIdx t) const;

  // After links of the fabric were removed (Fabric::disconnect) or added
  // again: recomputes only the distances that changed. A removal touches the
  // destinations t for which an end of a removed link loses its last
  // neighbour one hop closer to t, and then only the switches whose every
  // shortest path to t used a removed link; an addition only the switches
  // that come closer. `removed` / `added` name the switch pairs whose links
  // changed (parallel links: a pair still joined by another link changes
  // nothing). Returns every (switch, destination switch) distance that
  // changed, both orders, with its old value. Throws FabricError if a
  // distance would exceed 254.
  struct Change {
    SwitchIdx s = kNoSwitch;
    SwitchIdx t = kNoSwitch;
    std::uint8_t before = kUnreachable;
  };
  std::vector<Change> update(std::span<const std::pair<SwitchIdx, SwitchIdx>> removed,
                             std::span<const std::pair<SwitchIdx, SwitchIdx>> added);
  // Re-reads which switch every destination sits on or hangs off (after an
  // end node's link changed).
  void refresh_attachments();
  // The switch destination d sits on or hangs off; kNoSwitch when unattached.
  [[nodiscard]] SwitchIdx dest_switch(Dest d) const {
    return d < dest_switch_.size() ? dest_switch_[d] : kNoSwitch;
  }

  // Bytes held by this object (matrix + attachment arrays).
  [[nodiscard]] std::size_t memory_bytes() const;
  [[nodiscard]] const Fabric& fabric() const { return fabric_; }

 private:
  const Fabric& fabric_;
  std::size_t n_;
  std::vector<std::uint8_t> dist_;
  std::vector<SwitchIdx> dest_switch_;    // per destination: switch it sits on or hangs off
  std::vector<std::uint8_t> dest_extra_;  // 0 for a switch, 1 for an end node
};

}  // namespace syncfab::sm
