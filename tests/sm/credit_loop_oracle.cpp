// The credit-loop checker as it was first written, kept as the oracle of the
// faster one: one walk per destination LID from every source switch, lanes
// through the VlAssignment's functions at every hop, Fabric's own lookups;
// with port groups, one search per destination over every member. The graph
// (and so the DFS, the cycle found and the counts) must be the same.
#include "credit_loop_oracle.hpp"

#include <algorithm>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm::test {

namespace {

// The graph: node = port slot of a switch-to-switch channel (at its tail) x
// lane; a node's successors all leave the channel's head switch, so they are
// kept as a bitmap over (head port, lane).
class Cdg {
 public:
  Cdg(const Fabric& f, int lanes) : f_(f), lanes_(static_cast<std::size_t>(lanes)) {
    const std::size_t slots = f.port_slot_count();
    head_.assign(slots, kNoNode);
    offset_.assign(slots * lanes_ + 1, 0);
    std::size_t bits = 0;
    for (NodeId n : f.switches()) {
      for (int p = 1; p <= f.num_ports(n); ++p) {
        const PortPeer o = f.peer(n, static_cast<PortNum>(p));
        const std::size_t slot = f.port_slot(n, static_cast<PortNum>(p));
        for (std::size_t v = 0; v < lanes_; ++v) {
          offset_[slot * lanes_ + v] = bits;
          if (o.connected() && f.is_switch(o.node)) {
            bits += (static_cast<std::size_t>(f.num_ports(o.node)) + 1) * lanes_;
          }
        }
        if (o.connected() && f.is_switch(o.node)) {
          head_[slot] = o.node;
        }
      }
    }
    // Slots that are not switch-to-switch channels get an empty range.
    std::size_t last = bits;
    for (std::size_t i = offset_.size() - 1; i-- > 0;) {
      if (head_[i / lanes_] == kNoNode) {
        offset_[i] = last;
      } else {
        last = offset_[i];
      }
    }
    offset_.back() = bits;
    bits_.assign((bits + 63) / 64, 0);
  }

  [[nodiscard]] std::size_t node(std::size_t slot, std::size_t vl) const {
    return slot * lanes_ + vl;
  }
  // Adds node -> (head port q, lane v); returns true when new.
  bool add(std::size_t from, PortNum q, std::size_t v) {
    const std::size_t b = offset_[from] + q * lanes_ + v;
    const std::uint64_t m = std::uint64_t{1} << (b % 64);
    if ((bits_[b / 64] & m) != 0) {
      return false;
    }
    bits_[b / 64] |= m;
    return true;
  }
  template <typename F>
  void for_each_successor(std::size_t from, F&& fn) const {
    const NodeId head = head_[from / lanes_];
    const std::size_t begin = offset_[from];
    const std::size_t width = (static_cast<std::size_t>(f_.num_ports(head)) + 1) * lanes_;
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t b = begin + i;
      if ((bits_[b / 64] >> (b % 64) & 1U) != 0) {
        fn(node(f_.port_slot(head, static_cast<PortNum>(i / lanes_)), i % lanes_));
      }
    }
  }
  [[nodiscard]] std::size_t node_count() const { return offset_.size() - 1; }
  [[nodiscard]] NodeId head(std::size_t slot) const { return head_[slot]; }

 private:
  const Fabric& f_;
  std::size_t lanes_;
  std::vector<NodeId> head_;         // per slot: the switch a channel leads to
  std::vector<std::size_t> offset_;  // per node: first bit of its successor bitmap
  std::vector<std::uint64_t> bits_;
};

// The assignment's lane count, refused outside 1..16.
std::size_t lane_count(const VlAssignment& vls) {
  if (vls.lanes < 1 || vls.lanes > 16) {
    throw FabricError("credit-loop check: " + std::to_string(vls.lanes) + " lanes (1..16)");
  }
  return static_cast<std::size_t>(vls.lanes);
}

// A lane the assignment returned, refused when it is not one of `lanes`.
std::size_t checked_lane(std::uint8_t v, std::size_t lanes) {
  if (v >= lanes) {
    throw FabricError("credit-loop check: lane " + std::to_string(v) + " of " +
                      std::to_string(lanes));
  }
  return v;
}

// The switches with an end node (or every switch).
std::vector<SwitchIdx> source_switches(const Fabric& f, bool all_switch_sources) {
  std::vector<char> src(f.switch_count(), all_switch_sources ? 1 : 0);
  for (NodeId h : f.hcas()) {
    const SwitchIdx s = f.attach_switch(h);
    if (s != kNoSwitch) {
      src[s] = 1;
    }
  }
  std::vector<SwitchIdx> sources;
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    if (src[s] != 0) {
      sources.push_back(s);
    }
  }
  return sources;
}

// Iterative DFS on the finished graph.
CreditLoopReport search(const Fabric& f, const Cdg& g, std::size_t lanes) {
  // Three colours; a grey successor closes a cycle.
  CreditLoopReport r;
  const std::size_t n = g.node_count();
  std::vector<std::uint8_t> colour(n, 0);
  struct Frame {
    std::size_t node;
    std::vector<std::size_t> next;
    std::size_t i = 0;
  };
  std::vector<Frame> stack;
  auto successors = [&](std::size_t u) {
    std::vector<std::size_t> out;
    g.for_each_successor(u, [&](std::size_t w) { out.push_back(w); });
    return out;
  };
  for (std::size_t root = 0; root < n && r.acyclic; ++root) {
    if (g.head(root / lanes) == kNoNode) {
      continue;
    }
    auto first = successors(root);
    if (first.empty()) {
      continue;
    }
    if (colour[root] != 0) {
      continue;
    }
    colour[root] = 1;
    stack.push_back(Frame{root, std::move(first)});
    while (!stack.empty() && r.acyclic) {
      Frame& fr = stack.back();
      if (fr.i == fr.next.size()) {
        colour[fr.node] = 2;
        stack.pop_back();
        continue;
      }
      const std::size_t w = fr.next[fr.i++];
      if (colour[w] == 1) {
        // The cycle is w ... fr.node on the stack, then back to w.
        std::vector<std::size_t> nodes;
        auto it =
            std::find_if(stack.begin(), stack.end(), [&](const Frame& x) { return x.node == w; });
        for (; it != stack.end(); ++it) {
          nodes.push_back(it->node);
        }
        r.acyclic = false;
        for (std::size_t u : nodes) {
          const std::size_t slot = u / lanes;
          // Recover the tail (node, port) of the slot.
          const NodeId head = g.head(slot);
          CdgLink link;
          link.vl = static_cast<std::uint8_t>(u % lanes);
          link.to = head;
          for (NodeId sw : f.switches()) {
            const std::size_t base = f.port_slot(sw, 0);
            if (slot >= base && slot <= base + static_cast<std::size_t>(f.num_ports(sw))) {
              link.from = sw;
              link.out = static_cast<PortNum>(slot - base);
              link.in = f.peer(sw, link.out).port;
              break;
            }
          }
          r.cycle.push_back(link);
        }
        break;
      }
      if (colour[w] == 0) {
        colour[w] = 1;
        stack.push_back(Frame{w, successors(w)});
      }
    }
  }
  for (std::size_t u = 0; u < n; ++u) {
    if (g.head(u / lanes) == kNoNode) {
      continue;
    }
    std::size_t k = 0;
    g.for_each_successor(u, [&](std::size_t) { ++k; });
    r.dependencies += k;
    r.channels += k > 0 ? 1 : 0;
  }
  return r;
}

}  // namespace

CreditLoopReport check_credit_loops_oracle(const Lft& lft, const VlAssignment& vls,
                                           bool all_switch_sources) {
  const Fabric& f = lft.fabric();
  const auto lanes = lane_count(vls);
  Cdg g(f, vls.lanes);
  auto lane = [lanes](std::uint8_t v) { return checked_lane(v, lanes); };

  const std::vector<SwitchIdx> sources = source_switches(f, all_switch_sources);

  // Per destination, walk from every source until a (channel, lane) already
  // seen for this destination: the rest of that walk is already in the graph.
  // Tables are stored per switch; walks read one destination across all
  // switches, so a block of destinations is first copied column-wise (one
  // cache miss per switch row instead of one per hop).
  constexpr std::size_t kBlock = 64;
  const std::size_t n_sw = f.switch_count();
  std::vector<PortNum> col(kBlock * n_sw);
  std::vector<std::uint32_t> seen(g.node_count(), 0);
  std::uint32_t stamp = 0;
  for (std::size_t d0 = 1; d0 < lft.dest_count(); d0 += kBlock) {
    const std::size_t d1 = std::min(lft.dest_count(), d0 + kBlock);
    for (SwitchIdx s = 0; s < n_sw; ++s) {
      for (std::size_t l = d0; l < d1; ++l) {
        col[(l - d0) * n_sw + s] = lft.get(s, static_cast<Lid>(l));
      }
    }
    for (std::size_t l = d0; l < d1; ++l) {
      const auto d = static_cast<Lid>(l);
      if (f.lid_owner(d).node == kNoNode) {
        continue;
      }
      const PortNum* route = col.data() + (l - d0) * n_sw;
      ++stamp;
      for (SwitchIdx s : sources) {
        NodeId at = f.switch_node(s);
        PortNum out = route[s];
        if (out == kNoRoute || out == 0 || !f.peer(at, out).connected() ||
            !f.is_switch(f.peer(at, out).node)) {
          continue;
        }
        std::size_t v = vls.first ? lane(vls.first(s, d, out)) : 0;
        std::size_t cur = g.node(f.port_slot(at, out), v);
        if (seen[cur] == stamp) {
          continue;
        }
        seen[cur] = stamp;
        for (;;) {
          const PortPeer hop = f.peer(at, out);
          const NodeId next = hop.node;
          const PortNum q = route[f.switch_index(next)];
          if (q == kNoRoute || q == 0 || !f.peer(next, q).connected() ||
              !f.is_switch(f.peer(next, q).node)) {
            break;
          }
          v = vls.next ? lane(vls.next(f.switch_index(next), hop.port, q,
                                       static_cast<std::uint8_t>(v), d))
                       : v;
          g.add(cur, q, v);
          cur = g.node(f.port_slot(next, q), v);
          if (seen[cur] == stamp) {
            break;
          }
          seen[cur] = stamp;
          at = next;
          out = q;
        }
      }
    }
  }

  return search(f, g, lanes);
}

CreditLoopReport check_credit_loops_oracle(const Lft& lft, const PortGroups& groups,
                                           const VlAssignment& vls, bool all_switch_sources) {
  const Fabric& f = lft.fabric();
  const auto lanes = lane_count(vls);
  Cdg g(f, vls.lanes);
  auto lane = [lanes](std::uint8_t v) { return checked_lane(v, lanes); };
  // A port of switch node `at` that leads to another switch.
  auto channel = [&](NodeId at, PortNum p) {
    if (p == 0 || p == kNoRoute || p > f.num_ports(at)) {
      return false;
    }
    const PortPeer o = f.peer(at, p);
    return o.connected() && f.is_switch(o.node);
  };
  const std::vector<SwitchIdx> sources = source_switches(f, all_switch_sources);

  struct Held {
    NodeId at;
    PortNum out;
    std::size_t vl;
  };
  std::vector<std::uint32_t> seen(g.node_count(), 0);
  std::uint32_t stamp = 0;
  std::vector<Held> stack;
  for (std::size_t l = 1; l < lft.dest_count(); ++l) {
    const auto d = static_cast<Dest>(l);
    if (f.dest_owner(d).node == kNoNode) {
      continue;
    }
    ++stamp;
    auto reach = [&](NodeId at, PortNum out, std::size_t v) {
      const std::size_t n = g.node(f.port_slot(at, out), v);
      if (seen[n] != stamp) {
        seen[n] = stamp;
        stack.push_back(Held{at, out, v});
      }
    };
    for (const SwitchIdx s : sources) {
      const NodeId at = f.switch_node(s);
      for (const PortNum out : entry_ports(lft, &groups, s, d)) {
        if (channel(at, out)) {
          reach(at, out, vls.first ? lane(vls.first(s, d, out)) : 0);
        }
      }
    }
    while (!stack.empty()) {
      const Held h = stack.back();
      stack.pop_back();
      const PortPeer hop = f.peer(h.at, h.out);
      const SwitchIdx t = f.switch_index(hop.node);
      const bool group = groups.group(t, d) >= 0;
      for (const PortNum q : entry_ports(lft, &groups, t, d)) {
        if (!channel(hop.node, q) || (group && q == hop.port)) {
          continue;
        }
        const std::size_t w =
            vls.next ? lane(vls.next(t, hop.port, q, static_cast<std::uint8_t>(h.vl), d)) : h.vl;
        g.add(g.node(f.port_slot(h.at, h.out), h.vl), q, w);
        reach(hop.node, q, w);
      }
    }
  }
  return search(f, g, lanes);
}

}  // namespace syncfab::sm::test
