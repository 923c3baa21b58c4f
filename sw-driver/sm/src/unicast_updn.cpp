#include <algorithm>
#include <numeric>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/unicast.hpp"
#include "unicast_common.hpp"

namespace syncfab::sm {

UpdnRanking updn_ranking(const MinHop& mh, std::vector<SwitchIdx> roots) {
  const Fabric& f = mh.fabric();
  const std::size_t n = f.switch_count();
  if (n == 0) {
    throw FabricError("UPDN: no switches");
  }
  if (roots.empty()) {
    std::vector<char> has_hca(n, 0);
    for (NodeId h : f.hcas()) {
      const SwitchIdx s = f.attach_switch(h);
      if (s != kNoSwitch) {
        has_hca[s] = 1;
      }
    }
    std::vector<int> level(n, kUnreachable);
    int top = 0;
    for (SwitchIdx s = 0; s < n; ++s) {
      for (SwitchIdx t = 0; t < n; ++t) {
        if (has_hca[t] != 0) {
          level[s] = std::min<int>(level[s], mh.distance(s, t));
        }
      }
      top = std::max(top, level[s] == kUnreachable ? 0 : level[s]);
    }
    for (SwitchIdx s = 0; s < n; ++s) {
      if (top > 0 && level[s] == top) {
        roots.push_back(s);
      }
    }
    if (roots.empty()) {
      roots.push_back(0);
    }
  }
  UpdnRanking r;
  r.rank.assign(n, UINT32_MAX);
  for (SwitchIdx s : roots) {
    if (s >= n) {
      throw FabricError("UPDN: root switch index " + std::to_string(s) + " out of range");
    }
  }
  for (SwitchIdx s = 0; s < n; ++s) {
    for (SwitchIdx root : roots) {
      const std::uint8_t d = mh.distance(root, s);
      if (d != kUnreachable) {
        r.rank[s] = std::min<std::uint32_t>(r.rank[s], d);
      }
    }
    if (r.rank[s] == UINT32_MAX) {
      throw FabricError("UPDN: switch \"" + f.name(f.switch_node(s)) +
                        "\" unreachable from the roots");
    }
  }
  r.roots = std::move(roots);
  return r;
}

namespace {

// Up*/down* tables; spread = FTREE's index-based choice instead of the
// per-port counters.
Lft route_up_down(const MinHop& mh, const UpdnRanking& ranking, bool spread) {
  const Fabric& f = mh.fabric();
  const std::size_t n = f.switch_count();
  Lft lft(f);
  const detail::LidsBySwitch by = detail::lids_by_switch(f);

  // Total order on switches: (rank, GUID); up = toward a smaller key.
  std::vector<SwitchIdx> order(n);
  std::iota(order.begin(), order.end(), SwitchIdx{0});
  auto key_less = [&](SwitchIdx a, SwitchIdx b) {
    if (ranking.rank[a] != ranking.rank[b]) {
      return ranking.rank[a] < ranking.rank[b];
    }
    return f.guid(f.switch_node(a)) < f.guid(f.switch_node(b));
  };
  std::sort(order.begin(), order.end(), key_less);
  std::vector<std::uint32_t> pos(n);
  for (std::size_t i = 0; i < n; ++i) {
    pos[order[i]] = static_cast<std::uint32_t>(i);
  }

  // Switch links per switch (port, peer), CSR.
  std::vector<std::uint32_t> off(n + 1, 0);
  std::vector<std::pair<PortNum, SwitchIdx>> adj;
  for (SwitchIdx s = 0; s < n; ++s) {
    const NodeId node = f.switch_node(s);
    for (int p = 1; p <= f.num_ports(node); ++p) {
      const PortPeer o = f.peer(node, static_cast<PortNum>(p));
      if (o.connected() && f.is_switch(o.node) && o.node != node) {
        adj.emplace_back(static_cast<PortNum>(p), f.switch_index(o.node));
      }
    }
    off[s + 1] = static_cast<std::uint32_t>(adj.size());
  }

  constexpr std::uint32_t kInf = UINT32_MAX;
  std::vector<std::uint32_t> down(n), legal(n);
  std::vector<SwitchIdx> queue(n);
  std::vector<std::uint32_t> count(f.port_slot_count(), 0);
  std::vector<PortNum> cand;
  // FTREE: destination index = end node order (ranks), then switches; a
  // switch at height h above the lowest rank picks candidate
  // (index / |cand|^h) mod |cand| (d-mod-k).
  std::vector<std::uint32_t> index(lft.lid_count(), 0);
  std::uint32_t next_index = 0;
  for (NodeId h : f.hcas()) {
    for (int p = 1; p <= f.num_ports(h); ++p) {
      if (f.lid(h, static_cast<PortNum>(p)) != 0) {
        index[f.lid(h, static_cast<PortNum>(p))] = next_index++;
      }
    }
  }
  for (NodeId sw : f.switches()) {
    index[f.lid(sw)] = next_index++;
  }
  const std::uint32_t max_rank = *std::max_element(ranking.rank.begin(), ranking.rank.end());
  for (SwitchIdx t = 0; t < n; ++t) {
    if (by.offset[t] == by.offset[t + 1]) {
      continue;
    }
    // down[s]: hops from s to t over down links only (BFS backwards from t
    // over links s -> x that go down, i.e. x has the larger key).
    std::fill(down.begin(), down.end(), kInf);
    down[t] = 0;
    queue[0] = t;
    std::size_t head = 0, tail = 1;
    while (head < tail) {
      const SwitchIdx x = queue[head++];
      for (std::uint32_t e = off[x]; e < off[x + 1]; ++e) {
        const SwitchIdx s = adj[e].second;
        if (pos[s] < pos[x] && down[s] == kInf) {
          down[s] = down[x] + 1;
          queue[tail++] = s;
        }
      }
    }
    // legal[s]: down[s] if s can go down all the way (it must, so that no
    // packet that came down is sent up again), else 1 + min legal over its
    // up links; up links lead to smaller keys, computed first.
    for (SwitchIdx s : order) {
      if (down[s] != kInf) {
        legal[s] = down[s];
        continue;
      }
      std::uint32_t best = kInf;
      for (std::uint32_t e = off[s]; e < off[s + 1]; ++e) {
        const SwitchIdx x = adj[e].second;
        if (pos[x] < pos[s] && legal[x] != kInf) {
          best = std::min(best, legal[x] + 1);
        }
      }
      legal[s] = best;
    }
    detail::route_local(f, t, by, lft);
    for (SwitchIdx s = 0; s < n; ++s) {
      if (s == t || legal[s] == kInf) {
        continue;
      }
      cand.clear();
      for (std::uint32_t e = off[s]; e < off[s + 1]; ++e) {
        const auto [p, x] = adj[e];
        const bool going_down = pos[x] > pos[s];
        if (down[s] != kInf ? (going_down && down[x] + 1 == down[s])
                            : (!going_down && legal[x] != kInf && legal[x] + 1 == legal[s])) {
          cand.push_back(p);
        }
      }
      std::uint32_t* c = count.data() + f.port_slot(f.switch_node(s), 0);
      if (spread && !cand.empty()) {
        std::uint64_t div = 1;
        for (std::uint32_t h = ranking.rank[s]; h < max_rank; ++h) {
          div *= cand.size();
        }
        for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
          const Lid d = by.lids[i];
          lft.set(s, d, cand[(index[d] / div) % cand.size()]);
        }
        continue;
      }
      for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
        lft.set(s, by.lids[i], detail::pick_balanced(cand, c));
      }
    }
  }
  return lft;
}

}  // namespace

Lft route_updn(const MinHop& mh, const UpdnRanking& ranking) {
  return route_up_down(mh, ranking, false);
}

Lft route_ftree(const MinHop& mh, const UpdnRanking& ranking) {
  return route_up_down(mh, ranking, true);
}

}  // namespace syncfab::sm
