#include "syncfab/sm/minhop.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <unordered_map>

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

  refresh_attachments();
}

void MinHop::refresh_attachments() {
  const Fabric& fabric = fabric_;
  const std::size_t lids = fabric.dest_count();
  dest_switch_.assign(lids, kNoSwitch);
  dest_extra_.assign(lids, 0);
  for (std::size_t l = 1; l < lids; ++l) {
    const LidOwner o = fabric.dest_owner(static_cast<Dest>(l));
    if (o.node == kNoNode) {
      continue;
    }
    if (fabric.is_switch(o.node)) {
      dest_switch_[l] = fabric.switch_index(o.node);
    } else {
      const PortPeer sw = fabric.peer(o.node, o.port);
      if (sw.connected() && fabric.is_switch(sw.node)) {
        dest_switch_[l] = fabric.switch_index(sw.node);
        dest_extra_[l] = 1;
      }
    }
  }
}

namespace {

// Switch neighbours over the links the fabric has now.
template <typename F>
void for_switch_neighbours(const Fabric& f, SwitchIdx s, F&& fn) {
  const NodeId node = f.switch_node(s);
  for (int p = 1; p <= f.num_ports(node); ++p) {
    const PortPeer o = f.peer(node, static_cast<PortNum>(p));
    if (o.connected() && f.is_switch(o.node) && o.node != node) {
      fn(f.switch_index(o.node));
    }
  }
}

bool joined(const Fabric& f, SwitchIdx a, SwitchIdx b) {
  bool found = false;
  for_switch_neighbours(f, a, [&](SwitchIdx y) { found = found || y == b; });
  return found;
}

}  // namespace

std::vector<MinHop::Change> MinHop::update(std::span<const std::pair<SwitchIdx, SwitchIdx>> removed,
                                           std::span<const std::pair<SwitchIdx, SwitchIdx>> added) {
  const Fabric& f = fabric_;
  std::vector<std::pair<SwitchIdx, SwitchIdx>> cut;
  for (const auto& [a, b] : removed) {
    if (a != b && !joined(f, a, b)) {
      cut.emplace_back(a, b);
    }
  }
  std::vector<Change> changes;
  std::vector<std::uint8_t> after;  // new value of changes[i]
  // Removals, per destination t on the old matrix (column t = row t): A =
  // the switches with no neighbour one hop closer to t outside A, found
  // level by level from the removed links' far ends; then A's distances
  // again from its border, by increasing distance.
  if (!cut.empty()) {
    std::vector<std::uint32_t> in_a(n_, 0), queued(n_, 0);
    std::uint32_t gen = 0;
    std::vector<std::vector<SwitchIdx>> level(256);
    std::vector<SwitchIdx> members;
    std::vector<std::uint16_t> nd(n_, 0);
    for (SwitchIdx t = 0; t < n_; ++t) {
      const std::uint8_t* d = dist_.data() + static_cast<std::size_t>(t) * n_;
      ++gen;
      int lo = 256;
      for (const auto& [a, b] : cut) {
        for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
          if (d[y] != kUnreachable && d[x] == d[y] + 1 && queued[x] != gen) {
            queued[x] = gen;
            level[d[x]].push_back(x);
            lo = std::min<int>(lo, d[x]);
          }
        }
      }
      if (lo == 256) {
        continue;
      }
      members.clear();
      for (int l = lo; l < 255; ++l) {
        if (level[l].empty()) {
          continue;
        }
        for (std::size_t i = 0; i < level[l].size(); ++i) {
          const SwitchIdx x = level[l][i];
          bool parent = false;
          for_switch_neighbours(
              f, x, [&](SwitchIdx z) { parent = parent || (d[z] + 1 == d[x] && in_a[z] != gen); });
          if (parent) {
            continue;
          }
          in_a[x] = gen;
          members.push_back(x);
          for_switch_neighbours(f, x, [&](SwitchIdx z) {
            if (d[z] != kUnreachable && d[z] == d[x] + 1 && queued[z] != gen) {
              queued[z] = gen;
              level[d[z]].push_back(z);
            }
          });
        }
        level[l].clear();
      }
      if (members.empty()) {
        continue;
      }
      // Border values, then a bucket Dijkstra inside A (unit weights).
      constexpr std::uint16_t kFar = 0xFFFF;
      for (SwitchIdx x : members) {
        std::uint16_t best = kFar;
        for_switch_neighbours(f, x, [&](SwitchIdx z) {
          if (in_a[z] != gen && d[z] != kUnreachable) {
            best = std::min<std::uint16_t>(best, static_cast<std::uint16_t>(d[z] + 1));
          }
        });
        nd[x] = best;
      }
      std::vector<std::vector<SwitchIdx>> bucket;
      for (SwitchIdx x : members) {
        if (nd[x] != kFar) {
          if (bucket.size() <= nd[x]) {
            bucket.resize(nd[x] + 1U);
          }
          bucket[nd[x]].push_back(x);
        }
      }
      for (std::size_t v = 0; v < bucket.size(); ++v) {
        for (std::size_t i = 0; i < bucket[v].size(); ++i) {
          const SwitchIdx x = bucket[v][i];
          if (nd[x] != v) {
            continue;
          }
          for_switch_neighbours(f, x, [&](SwitchIdx z) {
            if (in_a[z] == gen && nd[z] > v + 1) {
              nd[z] = static_cast<std::uint16_t>(v + 1);
              if (bucket.size() <= v + 1) {
                bucket.resize(v + 2);
              }
              bucket[v + 1].push_back(z);
            }
          });
        }
      }
      for (SwitchIdx x : members) {
        if (nd[x] != kFar && nd[x] >= kUnreachable) {
          throw FabricError("switch distance over 254 hops from \"" + f.name(f.switch_node(x)) +
                            "\"");
        }
        changes.push_back({x, t, d[x]});
        after.push_back(nd[x] == kFar ? kUnreachable : static_cast<std::uint8_t>(nd[x]));
      }
    }
    // Written after all destinations: each one above read the old matrix.
    for (std::size_t i = 0; i < changes.size(); ++i) {
      dist_[static_cast<std::size_t>(changes[i].s) * n_ + changes[i].t] = after[i];
      dist_[static_cast<std::size_t>(changes[i].t) * n_ + changes[i].s] = after[i];
    }
  }
  // Additions, one link at a time: a BFS from the end that comes closer.
  std::vector<SwitchIdx> queue;
  for (const auto& [a, b] : added) {
    const std::size_t first = changes.size();
    after.resize(first);
    for (SwitchIdx t = 0; t < n_; ++t) {
      const std::uint8_t* d = dist_.data() + static_cast<std::size_t>(t) * n_;
      for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        if (d[y] == kUnreachable || d[x] <= d[y] + 1) {
          continue;
        }
        // Improvements toward t, in a per-destination overlay.
        std::unordered_map<SwitchIdx, std::uint8_t> better{
            {x, static_cast<std::uint8_t>(d[y] + 1)}};
        queue.assign(1, x);
        for (std::size_t h = 0; h < queue.size(); ++h) {
          const SwitchIdx u = queue[h];
          const std::uint8_t du = better[u];
          if (du >= kUnreachable - 1) {
            throw FabricError("switch distance over 254 hops from \"" + f.name(f.switch_node(u)) +
                              "\"");
          }
          for_switch_neighbours(f, u, [&](SwitchIdx z) {
            const auto it = better.find(z);
            const std::uint8_t dz = it != better.end() ? it->second : d[z];
            if (dz > du + 1) {
              better[z] = static_cast<std::uint8_t>(du + 1);
              queue.push_back(z);
            }
          });
        }
        for (const auto& [z, v] : better) {
          changes.push_back({z, t, d[z]});
          after.push_back(v);
        }
      }
    }
    for (std::size_t i = first; i < changes.size(); ++i) {
      dist_[static_cast<std::size_t>(changes[i].s) * n_ + changes[i].t] = after[i];
      dist_[static_cast<std::size_t>(changes[i].t) * n_ + changes[i].s] = after[i];
    }
  }
  return changes;
}

std::uint8_t MinHop::hops(SwitchIdx s, Dest d) const {
  if (d >= dest_switch_.size() || dest_switch_[d] == kNoSwitch) {
    return kUnreachable;
  }
  const std::uint8_t base = distance(s, dest_switch_[d]);
  return base == kUnreachable ? kUnreachable : static_cast<std::uint8_t>(base + dest_extra_[d]);
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

std::uint8_t MinHop::hops_via(SwitchIdx s, PortNum p, Dest d) const {
  if (d >= dest_switch_.size() || dest_switch_[d] == kNoSwitch) {
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
    return fabric_.dest(o.node, o.port) == d ? 1 : kUnreachable;
  }
  const std::uint8_t via = hops_via_to_switch(s, p, dest_switch_[d]);
  return via == kUnreachable ? kUnreachable : static_cast<std::uint8_t>(via + dest_extra_[d]);
}

std::size_t MinHop::memory_bytes() const {
  return dist_.capacity() + dest_switch_.capacity() * sizeof(SwitchIdx) + dest_extra_.capacity();
}

}  // namespace syncfab::sm
