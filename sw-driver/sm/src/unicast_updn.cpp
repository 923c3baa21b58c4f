#include <algorithm>
#include <numeric>
#include <thread>

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
Lft route_up_down(const MinHop& mh, const UpdnRanking& ranking, bool spread, GroupMode mode,
                  PortGroups* groups) {
  detail::check_group_request(mode, groups);
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

  // Legal path lengths stay below 2 x 255 (up the ranks, then down): 16
  // bits keep a block's distances in cache.
  using Hops = std::uint16_t;
  constexpr Hops kInf = 0xFFFF;
  // Per switch link: whether it goes down (toward the larger key).
  std::vector<char> goes_down(adj.size());
  for (SwitchIdx s = 0; s < n; ++s) {
    for (std::uint32_t e = off[s]; e < off[s + 1]; ++e) {
      goes_down[e] = pos[adj[e].second] > pos[s] ? 1 : 0;
    }
  }
  std::vector<std::uint32_t> count(f.port_slot_count(), 0);
  // FTREE: destination index = end node order (ranks), then switches; a
  // switch at height h above the lowest rank picks candidate
  // (index / |cand|^h) mod |cand| (d-mod-k).
  std::vector<std::uint32_t> index(lft.dest_count(), 0);
  std::uint32_t next_index = 0;
  for (NodeId h : f.hcas()) {
    for (int p = 1; p <= f.num_ports(h); ++p) {
      if (f.dest(h, static_cast<PortNum>(p)) != 0) {
        index[f.dest(h, static_cast<PortNum>(p))] = next_index++;
      }
    }
  }
  for (NodeId sw : f.switches()) {
    index[f.dest(sw)] = next_index++;
  }
  const std::uint32_t max_rank = *std::max_element(ranking.rank.begin(), ranking.rank.end());
  // Destination switches in blocks: the per-destination distances of a block
  // are computed first, then each source switch writes its row for the whole
  // block at once. Writing one destination across all rows instead touches
  // a page per switch per destination (the 100,000-node dragonfly: minutes
  // of TLB misses). Each source still sees the destinations in the same
  // order, so its port counters, and the tables, do not depend on the
  // blocks, nor on the two threads that share both steps on large fabrics
  // (each writes its own rows and counters).
  constexpr std::size_t kBlock = 64;
  std::vector<Hops> down(kBlock * n, kInf), legal(kBlock * n, kInf);
  // dn[s]: hops from s to t over down links only (BFS backwards from t over
  // links s -> x that go down, i.e. x has the larger key). lg[s]: dn[s] if
  // s can go down all the way (it must, so that no packet that came down is
  // sent up again), else 1 + min legal over its up links; up links lead to
  // smaller keys, computed first.
  auto distances = [&](SwitchIdx t, Hops* dn, Hops* lg, std::vector<SwitchIdx>& queue) {
    std::fill(dn, dn + n, kInf);
    dn[t] = 0;
    queue[0] = t;
    std::size_t head = 0, tail = 1;
    while (head < tail) {
      const SwitchIdx x = queue[head++];
      for (std::uint32_t e = off[x]; e < off[x + 1]; ++e) {
        const SwitchIdx s = adj[e].second;
        if (pos[s] < pos[x] && dn[s] == kInf) {
          dn[s] = static_cast<Hops>(dn[x] + 1);
          queue[tail++] = s;
        }
      }
    }
    for (SwitchIdx s : order) {
      if (dn[s] != kInf) {
        lg[s] = dn[s];
        continue;
      }
      std::uint32_t best = UINT32_MAX;
      for (std::uint32_t e = off[s]; e < off[s + 1]; ++e) {
        const SwitchIdx x = adj[e].second;
        if (goes_down[e] == 0 && lg[x] != kInf) {
          best = std::min<std::uint32_t>(best, lg[x] + 1U);
        }
      }
      if (best == UINT32_MAX) {
        lg[s] = kInf;
        continue;
      }
      if (best >= kInf) {
        throw FabricError("UPDN: a legal path of " + std::to_string(best) + " hops from \"" +
                          f.name(f.switch_node(s)) + "\"");
      }
      lg[s] = static_cast<Hops>(best);
    }
  };
  auto rows = [&](SwitchIdx t0, SwitchIdx t1, SwitchIdx s0, SwitchIdx s1,
                  std::vector<PortNum>& cand, std::vector<SwitchIdx>& peer,
                  std::vector<PortNum>& scratch) {
    for (SwitchIdx s = s0; s < s1; ++s) {
      std::uint32_t* c = count.data() + f.port_slot(f.switch_node(s), 0);
      for (SwitchIdx t = t0; t < t1; ++t) {
        if (by.offset[t] == by.offset[t + 1]) {
          continue;
        }
        const Hops* dn = down.data() + static_cast<std::size_t>(t - t0) * n;
        const Hops* lg = legal.data() + static_cast<std::size_t>(t - t0) * n;
        if (s == t || lg[s] == kInf) {
          continue;
        }
        cand.clear();
        peer.clear();
        if (dn[s] != kInf) {
          for (std::uint32_t e = off[s]; e < off[s + 1]; ++e) {
            if (goes_down[e] != 0 && dn[adj[e].second] + 1 == dn[s]) {
              cand.push_back(adj[e].first);
              peer.push_back(adj[e].second);
            }
          }
        } else {
          for (std::uint32_t e = off[s]; e < off[s + 1]; ++e) {
            const Hops l = lg[adj[e].second];
            if (goes_down[e] == 0 && l != kInf && l + 1 == lg[s]) {
              cand.push_back(adj[e].first);
              peer.push_back(adj[e].second);
            }
          }
        }
        if (spread && !cand.empty()) {
          std::uint64_t div = 1;
          for (std::uint32_t h = ranking.rank[s]; h < max_rank; ++h) {
            div *= cand.size();
          }
          for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
            const Dest d = by.lids[i];
            lft.set(s, d, cand[(index[d] / div) % cand.size()]);
          }
        } else {
          detail::set_balanced(
              lft, s, {by.lids.data() + by.offset[t], by.lids.data() + by.offset[t + 1]}, cand, c);
        }
        if (mode != GroupMode::kOff) {
          for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
            const Dest d = by.lids[i];
            detail::propose_group(*groups, mode, s, d, lft.get(s, d), cand, peer, scratch);
          }
        }
      }
    }
  };
  // Two threads once a fabric has thousands of switches; the second one
  // splits the rows at an even switch so that, with 4-bit entries, no byte
  // holds entries of both halves.
  constexpr std::size_t kThreadSwitches = 2000;
  const bool two = n >= kThreadSwitches && std::thread::hardware_concurrency() >= 2;
  const auto s_mid = static_cast<SwitchIdx>(n / 2 & ~std::size_t{1});
  std::vector<SwitchIdx> queue0(n), queue1(n);
  std::vector<PortNum> cand0, cand1, scratch0, scratch1;
  std::vector<SwitchIdx> peer0, peer1;
  for (SwitchIdx t0 = 0; t0 < n; t0 += kBlock) {
    const auto t1 = static_cast<SwitchIdx>(std::min<std::size_t>(n, t0 + kBlock));
    auto block_distances = [&](SwitchIdx first, std::vector<SwitchIdx>& queue) {
      for (SwitchIdx t = first; t < t1; t += two ? 2 : 1) {
        if (by.offset[t] != by.offset[t + 1]) {
          distances(t, down.data() + static_cast<std::size_t>(t - t0) * n,
                    legal.data() + static_cast<std::size_t>(t - t0) * n, queue);
        }
      }
    };
    if (two) {
      std::jthread other([&] { block_distances(t0 + 1, queue1); });
      block_distances(t0, queue0);
    } else {
      block_distances(t0, queue0);
    }
    for (SwitchIdx t = t0; t < t1; ++t) {
      detail::route_local(f, t, by, lft);
    }
    if (two) {
      std::jthread other(
          [&] { rows(t0, t1, s_mid, static_cast<SwitchIdx>(n), cand1, peer1, scratch1); });
      rows(t0, t1, 0, s_mid, cand0, peer0, scratch0);
    } else {
      rows(t0, t1, 0, static_cast<SwitchIdx>(n), cand0, peer0, scratch0);
    }
  }
  return lft;
}

}  // namespace

Lft route_updn(const MinHop& mh, const UpdnRanking& ranking, GroupMode mode, PortGroups* groups) {
  return route_up_down(mh, ranking, false, mode, groups);
}

Lft route_ftree(const MinHop& mh, const UpdnRanking& ranking, GroupMode mode, PortGroups* groups) {
  return route_up_down(mh, ranking, true, mode, groups);
}

}  // namespace syncfab::sm
