#include "syncfab/sm/combine.hpp"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>

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

}  // namespace syncfab::sm
