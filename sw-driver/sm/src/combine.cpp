#include "syncfab/sm/combine.hpp"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

namespace {

std::string where(const Fabric& f, SwitchIdx s, PortNum p) {
  return "switch " + f.name(f.switch_node(s)) + " port " + std::to_string(p);
}

}  // namespace

std::vector<CombineNode> combine_tree(const Fabric& fabric, const Group& group,
                                      const McTree& tree) {
  const std::string what = "combine tree of MLID " + hex_lid(tree.mlid) + ": ";
  // The tree's ports per switch, from its (sorted) MFT entries.
  std::map<SwitchIdx, std::vector<PortNum>> ports;
  for (const MftEntry& e : tree.entries) {
    ports[e.sw].push_back(e.port);
  }
  if (tree.root == kNoSwitch || !ports.contains(tree.root)) {
    throw std::invalid_argument(what + "the root is not a switch of the tree");
  }
  std::vector<CombineNode> out;
  std::map<SwitchIdx, std::size_t> seen;  // switch -> index in out
  std::deque<std::size_t> queue;
  out.push_back({.sw = tree.root, .root = true, .parent = 0, .children = {}, .depth = 0});
  seen[tree.root] = 0;
  queue.push_back(0);
  while (!queue.empty()) {
    const std::size_t i = queue.front();
    queue.pop_front();
    const SwitchIdx s = out[i].sw;
    const NodeId node = fabric.switch_node(s);
    for (const PortNum p : ports[s]) {
      if (p == out[i].parent && !out[i].root) {
        continue;
      }
      const PortPeer peer = fabric.peer(node, p);
      if (!peer.connected()) {
        throw std::invalid_argument(what + where(fabric, s, p) + " is in the tree but not cabled");
      }
      out[i].children.push_back(p);
      if (!fabric.is_switch(peer.node)) {
        continue;
      }
      const SwitchIdx c = fabric.switch_index(peer.node);
      if (!ports.contains(c)) {
        throw std::invalid_argument(what + where(fabric, s, p) + " leads to switch " +
                                    fabric.name(peer.node) + ", which has no entry");
      }
      if (seen.contains(c)) {
        throw std::invalid_argument(what + where(fabric, s, p) + " reaches switch " +
                                    fabric.name(peer.node) + " a second time (a loop)");
      }
      const std::vector<PortNum>& cp = ports[c];
      if (!std::binary_search(cp.begin(), cp.end(), peer.port)) {
        throw std::invalid_argument(what + where(fabric, c, peer.port) +
                                    " leads back to its parent but is not in the entry");
      }
      seen[c] = out.size();
      out.push_back(
          {.sw = c, .root = false, .parent = peer.port, .children = {}, .depth = out[i].depth + 1});
      queue.push_back(out.size() - 1);
    }
  }
  for (const auto& [s, p] : ports) {
    if (!seen.contains(s)) {
      throw std::invalid_argument(what + "switch " + fabric.name(fabric.switch_node(s)) +
                                  " has an entry but is not reached from the root");
    }
  }
  for (const NodeId m : group.members) {
    const PortPeer at = fabric.peer(m, fabric.attach_port(m));
    const SwitchIdx s = fabric.attach_switch(m);
    const PortNum p = at.port;
    const auto it = seen.find(s);
    const bool ok = it != seen.end() && std::ranges::find(out[it->second].children, p) !=
                                            out[it->second].children.end();
    if (!ok) {
      throw std::invalid_argument(what + "member " + fabric.name(m) + " at " + where(fabric, s, p) +
                                  " is not a child of the tree");
    }
  }
  for (CombineNode& n : out) {
    std::ranges::sort(n.children);
  }
  return out;
}

std::vector<RingCombineNode> combine_rings(const Fabric& fabric, const TorusLayout& layout,
                                           const Group& group) {
  const std::string what = "ring combine of MLID " + hex_lid(group.mlid) + ": ";
  const std::size_t n = fabric.switch_count();
  if (layout.coord.size() != n) {
    throw std::invalid_argument(what + "the torus layout has " +
                                std::to_string(layout.coord.size()) + " switches, the fabric " +
                                std::to_string(n));
  }
  if (group.members.empty()) {
    throw std::invalid_argument(what + "the group has no members");
  }
  std::vector<int> dims;  // the phases' dimensions
  for (int d = 0; d < 3; ++d) {
    const int len = layout.dims[static_cast<std::size_t>(d)];
    if (len <= 1) {
      continue;
    }
    if (len > static_cast<int>(fmt::kCombRingMax)) {
      throw FabricError(what + "the rings of dimension " + std::to_string(d) + " have " +
                        std::to_string(len) + " switches, more than COMB_RING_MAX (" +
                        std::to_string(fmt::kCombRingMax) + ")");
    }
    dims.push_back(d);
  }
  if (dims.empty()) {
    throw FabricError(what + "the torus has no dimension longer than 1 (no ring to combine on)");
  }
  if (dims.size() > fmt::kCombPhases) {
    throw FabricError(what + "the torus has " + std::to_string(dims.size()) +
                      " dimensions longer than 1, more than COMB_PHASES (" +
                      std::to_string(fmt::kCombPhases) + ")");
  }
  const int phases = static_cast<int>(dims.size());

  // Switch at a coordinate: the layout's coordinates are a bijection.
  const auto flat = [&](const std::array<int, 3>& c) {
    return static_cast<std::size_t>(c[0]) +
           static_cast<std::size_t>(layout.dims[0]) *
               (static_cast<std::size_t>(c[1]) +
                static_cast<std::size_t>(layout.dims[1]) * static_cast<std::size_t>(c[2]));
  };
  std::vector<SwitchIdx> at(n, kNoSwitch);
  for (SwitchIdx s = 0; s < n; ++s) {
    at[flat(layout.coord[s])] = s;
  }
  // The switch at position p of s's ring of dimension d.
  const auto ring_at = [&](SwitchIdx s, int d, int p) {
    std::array<int, 3> c = layout.coord[s];
    c[static_cast<std::size_t>(d)] = p;
    return at[flat(c)];
  };

  std::vector<std::vector<PortNum>> children(n);
  for (const NodeId m : group.members) {
    const SwitchIdx s = fabric.attach_switch(m);
    if (fabric.is_switch(m) || s == kNoSwitch) {
      throw std::invalid_argument(what + "member " + fabric.name(m) +
                                  " is not an HCA attached to a switch of the torus");
    }
    const PortNum p = fabric.peer(m, fabric.attach_port(m)).port;
    for (const int d : dims) {
      if (p == 2 * d + 1 || p == 2 * d + 2) {
        throw std::invalid_argument(what + "member " + fabric.name(m) + " is on port " +
                                    std::to_string(p) + " of switch " +
                                    fabric.name(fabric.switch_node(s)) + ", a ring port");
      }
    }
    children[s].push_back(p);
  }

  // held[j + 1][s]: domain j of s holds a member (domain -1 = s itself);
  // domain j is the union of domain j - 1 over s's ring of phase j.
  std::vector<std::vector<char>> held(static_cast<std::size_t>(phases) + 1,
                                      std::vector<char>(n, 0));
  for (SwitchIdx s = 0; s < n; ++s) {
    held[0][s] = static_cast<char>(!children[s].empty());
  }
  for (int j = 0; j < phases; ++j) {
    const int d = dims[static_cast<std::size_t>(j)];
    const int len = layout.dims[static_cast<std::size_t>(d)];
    const auto& below = held[static_cast<std::size_t>(j)];
    auto& here = held[static_cast<std::size_t>(j) + 1];
    for (SwitchIdx s = 0; s < n; ++s) {
      if (layout.coord[s][static_cast<std::size_t>(d)] != 0) {
        continue;  // each ring once, from its position 0
      }
      char any = 0;
      for (int p = 0; p < len; ++p) {
        any = static_cast<char>(any | below[ring_at(s, d, p)]);
      }
      for (int p = 0; p < len; ++p) {
        here[ring_at(s, d, p)] = any;
      }
    }
  }

  std::vector<RingCombineNode> out;
  for (SwitchIdx s = 0; s < n; ++s) {
    RingCombineNode node{.sw = s, .children = children[s], .phases = phases, .phase = {}};
    std::ranges::sort(node.children);
    bool any_valid = false;
    for (int j = 0; j < phases; ++j) {
      const auto ju = static_cast<std::size_t>(j);
      const int d = dims[ju];
      const int len = layout.dims[static_cast<std::size_t>(d)];
      RingPhase& ph = node.phase[ju];
      ph.dim = d;
      ph.origin = held[ju][s] != 0;
      // A ring carries shares when one of its switches is an origin, i.e.
      // when the ring's domain (s's domain j) holds a member.
      ph.valid = held[ju + 1][s] != 0;
      if (!ph.valid) {
        continue;
      }
      any_valid = true;
      ph.plus = static_cast<PortNum>(2 * d + 1);
      ph.minus = static_cast<PortNum>(2 * d + 2);
      ph.pos = layout.coord[s][static_cast<std::size_t>(d)];
      ph.len = len;
      bool needs = !node.children.empty();
      for (int k = j + 1; k < phases; ++k) {
        needs = needs || held[static_cast<std::size_t>(k)][s] != 0;
      }
      if (!needs) {
        continue;
      }
      for (int p = 0; p < len; ++p) {
        if (p != ph.pos && held[ju][ring_at(s, d, p)] != 0) {
          ph.expect |= 1U << static_cast<unsigned>(p);
        }
      }
    }
    if (any_valid || !node.children.empty()) {
      out.push_back(std::move(node));
    }
  }
  return out;
}

}  // namespace syncfab::sm
