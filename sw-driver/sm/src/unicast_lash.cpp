#include <algorithm>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/unicast.hpp"
#include "unicast_common.hpp"

namespace syncfab::sm {

namespace {

// One layer's channel dependency graph, grown edge by edge and kept acyclic.
class Layer {
 public:
  explicit Layer(std::size_t channels) : adj_(channels), mark_(channels, 0) {}

  // Adds the dependencies of one path (channels in order) if the layer stays
  // acyclic; otherwise leaves the layer as it was and returns false.
  bool try_add(const std::vector<std::uint32_t>& path) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> added;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      const std::uint32_t a = path[i], b = path[i + 1];
      if (std::find(adj_[a].begin(), adj_[a].end(), b) != adj_[a].end()) {
        continue;
      }
      if (reaches(b, a)) {
        // Undo in any order: each list only got its last entries appended.
        for (const auto& e : added) {
          adj_[e.first].pop_back();
        }
        return false;
      }
      adj_[a].push_back(b);
      added.emplace_back(a, b);
    }
    return true;
  }

 private:
  bool reaches(std::uint32_t from, std::uint32_t to) {
    if (from == to) {
      return true;
    }
    ++stamp_;
    stack_.assign(1, from);
    mark_[from] = stamp_;
    while (!stack_.empty()) {
      const std::uint32_t u = stack_.back();
      stack_.pop_back();
      for (std::uint32_t w : adj_[u]) {
        if (w == to) {
          return true;
        }
        if (mark_[w] != stamp_) {
          mark_[w] = stamp_;
          stack_.push_back(w);
        }
      }
    }
    return false;
  }

  std::vector<std::vector<std::uint32_t>> adj_;
  std::vector<std::uint32_t> mark_;
  std::vector<std::uint32_t> stack_;
  std::uint32_t stamp_ = 0;
};

}  // namespace

LashRouting route_lash(const MinHop& mh, int max_lanes) {
  const Fabric& f = mh.fabric();
  const std::size_t n = f.switch_count();
  if (max_lanes < 1 || max_lanes > 16) {
    throw FabricError("LASH: " + std::to_string(max_lanes) + " lanes (1..16)");
  }
  LashRouting r{Lft(f), {}, n, 1};
  const detail::LidsBySwitch by = detail::lids_by_switch(f);

  // Shortest paths per switch pair: every LID of a switch takes the same
  // path (LASH's lane is per source/destination switch pair), ports
  // balanced by pairs routed as in MINHOP.
  std::vector<std::uint32_t> count;
  std::vector<PortNum> cand;
  for (SwitchIdx s = 0; s < n; ++s) {
    const NodeId node = f.switch_node(s);
    count.assign(static_cast<std::size_t>(f.num_ports(node)) + 1, 0);
    detail::route_local(f, s, by, r.lft);
    for (SwitchIdx t = 0; t < n; ++t) {
      if (t == s || by.offset[t] == by.offset[t + 1] || mh.distance(s, t) == kUnreachable) {
        continue;
      }
      cand.clear();
      for (int p = 1; p <= f.num_ports(node); ++p) {
        const PortPeer o = f.peer(node, static_cast<PortNum>(p));
        if (o.connected() && f.is_switch(o.node) &&
            mh.distance(f.switch_index(o.node), t) + 1 == mh.distance(s, t)) {
          cand.push_back(static_cast<PortNum>(p));
        }
      }
      const PortNum p = detail::pick_balanced(cand, count.data());
      for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
        r.lft.set(s, by.lids[i], p);
      }
    }
  }

  // Lanes: each pair's path goes to the first layer whose dependency graph
  // stays acyclic with it.
  r.lane.assign(n * n, 0);
  std::vector<Layer> layers;
  layers.emplace_back(f.port_slot_count());
  std::vector<std::uint32_t> path;
  for (SwitchIdx s = 0; s < n; ++s) {
    for (SwitchIdx t = 0; t < n; ++t) {
      if (t == s || by.offset[t] == by.offset[t + 1] || mh.distance(s, t) == kUnreachable) {
        continue;
      }
      const Dest d = by.lids[by.offset[t]];
      path.clear();
      for (SwitchIdx u = s; u != t;) {
        const NodeId node = f.switch_node(u);
        const PortNum p = r.lft.get(u, d);
        path.push_back(static_cast<std::uint32_t>(f.port_slot(node, p)));
        u = f.switch_index(f.peer(node, p).node);
      }
      std::size_t l = 0;
      while (l < layers.size() && !layers[l].try_add(path)) {
        ++l;
      }
      if (l == layers.size()) {
        if (layers.size() == static_cast<std::size_t>(max_lanes)) {
          throw FabricError("LASH: needs more than " + std::to_string(max_lanes) + " lanes");
        }
        layers.emplace_back(f.port_slot_count());
        layers.back().try_add(path);
      }
      r.lane[s * n + t] = static_cast<std::uint8_t>(l);
    }
  }
  r.lanes = static_cast<int>(layers.size());
  return r;
}

VlAssignment LashRouting::vls() const {
  const Fabric& f = lft.fabric();
  std::vector<SwitchIdx> lid_switch(lft.dest_count(), kNoSwitch);
  for (std::size_t l = 1; l < lid_switch.size(); ++l) {
    const LidOwner o = f.dest_owner(static_cast<Dest>(l));
    if (o.node != kNoNode) {
      lid_switch[l] = f.is_switch(o.node) ? f.switch_index(o.node) : f.attach_switch(o.node);
    }
  }
  VlAssignment v;
  v.lanes = lanes;
  v.next_ignores_dst = true;
  v.first = [lane = lane, n = switches, lid_switch](SwitchIdx src, Dest dst,
                                                    PortNum) -> std::uint8_t {
    return lane[src * n + lid_switch[dst]];
  };
  v.next = [](SwitchIdx, PortNum, PortNum, std::uint8_t vl, Dest) { return vl; };
  return v;
}

}  // namespace syncfab::sm
