#include "syncfab/sm/minhop.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <thread>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

MinHop::MinHop(const Fabric& fabric) : fabric_(fabric), n_(fabric.switch_count()) {
  // Switch-only adjacency in CSR form, parallel links merged: BFS touches each
  // neighbour once.
  std::vector<std::uint32_t> off(n_ + 1, 0);
  std::vector<SwitchIdx> adj;
  adj.reserve(n_ * 8);
  for (SwitchIdx s = 0; s < n_; ++s) {
    const NodeId node = fabric.switch_node(s);
    const std::size_t first = adj.size();
    for (int p = 1; p <= fabric.num_ports(node); ++p) {
      const PortPeer o = fabric.peer(node, static_cast<PortNum>(p));
      if (!o.connected() || !fabric.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx t = fabric.switch_index(o.node);
      if (t == s) {
        continue;
      }
      if (std::find(adj.begin() + static_cast<std::ptrdiff_t>(first), adj.end(), t) == adj.end()) {
        adj.push_back(t);
      }
    }
    off[s + 1] = static_cast<std::uint32_t>(adj.size());
  }

  dist_.assign(n_ * n_, kUnreachable);
  // One BFS per source switch, each filling its own row: on large fabrics two
  // threads take every other source.
  auto bfs_rows = [&](SwitchIdx first, SwitchIdx step) {
    std::vector<SwitchIdx> queue(n_);
    for (SwitchIdx src = first; src < n_; src += step) {
      std::uint8_t* row = dist_.data() + static_cast<std::size_t>(src) * n_;
      row[src] = 0;
      queue[0] = src;
      std::size_t head = 0, tail = 1;
      while (head < tail) {
        const SwitchIdx u = queue[head++];
        const std::uint8_t du = row[u];
        if (du == kUnreachable - 1) {
          throw FabricError("switch distance over 254 hops from \"" +
                            fabric.name(fabric.switch_node(src)) + "\"");
        }
        for (std::uint32_t e = off[u]; e < off[u + 1]; ++e) {
          const SwitchIdx v = adj[e];
          if (row[v] == kUnreachable) {
            row[v] = static_cast<std::uint8_t>(du + 1);
            queue[tail++] = v;
          }
        }
      }
    }
  };
  constexpr std::size_t kThreadSwitches = 2000;
  if (n_ >= kThreadSwitches && std::thread::hardware_concurrency() >= 2) {
    std::exception_ptr error;
    {
      std::jthread other([&] {
        try {
          bfs_rows(1, 2);
        } catch (...) {
          error = std::current_exception();
        }
      });
      bfs_rows(0, 2);
    }
    if (error) {
      std::rethrow_exception(error);
    }
  } else {
    bfs_rows(0, 1);
  }

  const std::size_t lids = static_cast<std::size_t>(fabric.max_lid()) + 1;
  lid_switch_.assign(lids, kNoSwitch);
  lid_extra_.assign(lids, 0);
  for (std::size_t l = 1; l < lids; ++l) {
    const LidOwner o = fabric.lid_owner(static_cast<Lid>(l));
    if (o.node == kNoNode) {
      continue;
    }
    if (fabric.is_switch(o.node)) {
      lid_switch_[l] = fabric.switch_index(o.node);
    } else {
      const PortPeer sw = fabric.peer(o.node, o.port);
      if (sw.connected() && fabric.is_switch(sw.node)) {
        lid_switch_[l] = fabric.switch_index(sw.node);
        lid_extra_[l] = 1;
      }
    }
  }
}

std::uint8_t MinHop::hops(SwitchIdx s, Lid d) const {
  if (d >= lid_switch_.size() || lid_switch_[d] == kNoSwitch) {
    return kUnreachable;
  }
  const std::uint8_t base = distance(s, lid_switch_[d]);
  return base == kUnreachable ? kUnreachable : static_cast<std::uint8_t>(base + lid_extra_[d]);
}

std::uint8_t MinHop::hops_via_to_switch(SwitchIdx s, PortNum p, SwitchIdx t) const {
  const NodeId node = fabric_.switch_node(s);
  if (p == 0 || p > fabric_.num_ports(node)) {
    return kUnreachable;
  }
  const PortPeer o = fabric_.peer(node, p);
  if (!o.connected() || !fabric_.is_switch(o.node)) {
    return kUnreachable;
  }
  const std::uint8_t d = distance(fabric_.switch_index(o.node), t);
  return d == kUnreachable ? kUnreachable : static_cast<std::uint8_t>(d + 1);
}

std::uint8_t MinHop::hops_via(SwitchIdx s, PortNum p, Lid d) const {
  if (d >= lid_switch_.size() || lid_switch_[d] == kNoSwitch) {
    return kUnreachable;
  }
  const NodeId node = fabric_.switch_node(s);
  if (p == 0 || p > fabric_.num_ports(node)) {
    return kUnreachable;
  }
  const PortPeer o = fabric_.peer(node, p);
  if (!o.connected()) {
    return kUnreachable;
  }
  if (!fabric_.is_switch(o.node)) {
    return fabric_.lid(o.node, o.port) == d ? 1 : kUnreachable;
  }
  const std::uint8_t via = hops_via_to_switch(s, p, lid_switch_[d]);
  return via == kUnreachable ? kUnreachable : static_cast<std::uint8_t>(via + lid_extra_[d]);
}

std::size_t MinHop::memory_bytes() const {
  return dist_.capacity() + lid_switch_.capacity() * sizeof(SwitchIdx) + lid_extra_.capacity();
}

}  // namespace syncfab::sm
