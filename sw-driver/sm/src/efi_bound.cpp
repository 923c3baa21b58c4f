#include "syncfab/sm/efi_bound.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

std::uint32_t ceil_div(std::size_t a, std::size_t b) {
  return b == 0 ? 0 : static_cast<std::uint32_t>((a + b - 1) / b);
}

// The better of the two arguments for one set S (efi_bound.hpp).
EfiCut rate(std::size_t crossing, std::size_t boundary, std::size_t demand, std::size_t inner) {
  EfiCut c{"", "", crossing, boundary, demand, inner, 0, {}};
  c.bound = std::max(ceil_div(crossing, boundary), ceil_div(demand, inner + boundary));
  return c;
}

// Switch-to-switch links as a CSR over switch indices, one entry per link end
// (parallel links appear once each), with the port the link leaves on.
struct SwitchGraph {
  std::vector<std::uint32_t> off{0};
  std::vector<SwitchIdx> to;
  std::vector<PortNum> port;
  std::vector<PortNum> peer_port;
  std::vector<std::size_t> slot;  // Fabric::port_slot of the leaving end

  explicit SwitchGraph(const Fabric& f) {
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      const NodeId n = f.switch_node(s);
      for (int pi = 1; pi <= f.num_ports(n); ++pi) {
        const auto p = static_cast<PortNum>(pi);
        const PortPeer o = f.peer(n, p);
        if (o.connected() && f.is_switch(o.node)) {
          to.push_back(f.switch_index(o.node));
          port.push_back(p);
          peer_port.push_back(o.port);
          slot.push_back(f.port_slot(n, p));
        }
      }
      off.push_back(static_cast<std::uint32_t>(to.size()));
    }
  }
  [[nodiscard]] std::size_t switches() const { return off.size() - 1; }
};

// The distinct member switches of every group spanning more than one switch
// (the others never cross a cut), as a CSR.
struct SpreadGroups {
  std::vector<std::uint32_t> off{0};
  std::vector<SwitchIdx> sw;

  SpreadGroups(const Fabric& f, std::span<const Group> groups) {
    std::vector<std::uint32_t> seen(f.switch_count(), kNone);
    for (std::uint32_t g = 0; g < groups.size(); ++g) {
      const std::size_t start = sw.size();
      for (NodeId m : groups[g].members) {
        const SwitchIdx s = f.attach_switch(m);
        if (s != kNoSwitch && seen[s] != g) {
          seen[s] = g;
          sw.push_back(s);
        }
      }
      if (sw.size() - start < 2) {
        sw.resize(start);
        continue;
      }
      off.push_back(static_cast<std::uint32_t>(sw.size()));
    }
  }
  [[nodiscard]] std::size_t count() const { return off.size() - 1; }
  [[nodiscard]] std::span<const SwitchIdx> members(std::size_t g) const {
    return {sw.data() + off[g], sw.data() + off[g + 1]};
  }
};

class Search {
 public:
  Search(const Fabric& f, const SwitchGraph& g, const SpreadGroups& spread, EfiBound& out)
      : f_(f), g_(g), spread_(spread), out_(out) {}

  // Every part of a partial partition (comp[s] = part, kNone = in no part) as
  // a cut; keeps the family's best. contract: also the whole fabric with
  // every part contracted to one node ("contracted <family>").
  void partition(const std::string& family, const std::vector<std::uint32_t>& comp,
                 std::uint32_t parts, const std::string& unit, bool contract = true) {
    std::vector<std::size_t> boundary(parts, 0);
    std::vector<std::size_t> inner_ends(parts, 0);
    for (SwitchIdx s = 0; s < g_.switches(); ++s) {
      if (comp[s] == kNone) {
        continue;
      }
      for (std::uint32_t e = g_.off[s]; e < g_.off[s + 1]; ++e) {
        ++(comp[g_.to[e]] != comp[s] ? boundary : inner_ends)[comp[s]];
      }
    }
    std::vector<std::size_t> crossing(parts, 0);
    std::vector<std::size_t> demand(parts, 0);
    std::vector<std::uint32_t> stamp(parts, kNone);
    std::vector<std::uint32_t> inside(parts, 0);
    std::vector<std::uint32_t> touched;
    std::size_t contracted_demand = 0;
    for (std::uint32_t gi = 0; gi < spread_.count(); ++gi) {
      touched.clear();
      bool outside = false;
      std::size_t loose = 0;  // member switches in no part: nodes of their own
      for (SwitchIdx s : spread_.members(gi)) {
        const std::uint32_t c = comp[s];
        if (c == kNone) {
          outside = true;
          ++loose;
        } else if (stamp[c] != gi) {
          stamp[c] = gi;
          inside[c] = 1;
          touched.push_back(c);
        } else {
          ++inside[c];
        }
      }
      const bool crosses = touched.size() + (outside ? 1 : 0) >= 2;
      contracted_demand += touched.size() + loose - 1;
      for (std::uint32_t c : touched) {
        crossing[c] += crosses ? 1 : 0;
        demand[c] += inside[c] - (crosses ? 0 : 1);
      }
    }
    out_.cuts += parts;
    if (contract) {
      contracted(family, comp, parts, contracted_demand);
    }
    EfiCut best{family, "", 0, 0, 0, 0, 0, {}};
    std::uint32_t best_part = kNone;
    for (std::uint32_t c = 0; c < parts; ++c) {
      const EfiCut v = rate(crossing[c], boundary[c], demand[c], inner_ends[c] / 2);
      if (v.bound > best.bound) {
        best = v;
        best.family = family;
        best_part = c;
      }
    }
    if (best_part == kNone) {
      return;
    }
    for (SwitchIdx s = 0; s < g_.switches(); ++s) {
      if (comp[s] == best_part) {
        best.switches.push_back(s);
      }
    }
    best.what = best.switches.size() == 1 ? f_.name(f_.switch_node(best.switches[0]))
                : best.switches.size() == g_.switches()
                    ? "all " + std::to_string(best.switches.size()) + " switches"
                    : std::to_string(best.switches.size()) + " switches (" + unit + " of " +
                          f_.name(f_.switch_node(best.switches[0])) + ")";
    keep(std::move(best));
  }

  // The volume argument on the fabric with every part contracted to a node:
  // a group's tree maps to a connected subgraph over the nodes it touches, so
  // it holds at least (parts touched + member switches in no part - 1) links
  // that join two different nodes, and only those links can carry them.
  void contracted(const std::string& family, const std::vector<std::uint32_t>& comp,
                  std::uint32_t parts, std::size_t demand) {
    std::size_t ends = 0;
    for (SwitchIdx s = 0; s < g_.switches(); ++s) {
      for (std::uint32_t e = g_.off[s]; e < g_.off[s + 1]; ++e) {
        const std::uint32_t c = comp[s];
        ends += (c == kNone || comp[g_.to[e]] != c) && g_.to[e] != s ? 1 : 0;
      }
    }
    ++out_.cuts;
    EfiCut c = rate(0, 0, demand, ends / 2);
    if (c.bound == 0) {
      return;
    }
    c.family = "contracted " + family;
    c.what = "all " + std::to_string(g_.switches()) + " switches, " + std::to_string(parts) +
             " parts contracted, " + std::to_string(ends / 2) + " links between them";
    c.switches.resize(g_.switches());
    for (SwitchIdx s = 0; s < g_.switches(); ++s) {
      c.switches[s] = s;
    }
    keep(std::move(c));
  }

  void keep(EfiCut cut) {
    if (cut.bound > out_.switch_links) {
      out_.switch_links = cut.bound;
      out_.best = cut;
    }
    out_.families.push_back(std::move(cut));
  }

 private:
  const Fabric& f_;
  const SwitchGraph& g_;
  const SpreadGroups& spread_;
  EfiBound& out_;
};

// Connected components of the switches with keep[s], over the links with
// use_link(edge index). Returns the part count; comp[s] = kNone where !keep.
template <typename Keep, typename Link>
std::uint32_t components(const SwitchGraph& g, Keep keep, Link use_link,
                         std::vector<std::uint32_t>& comp) {
  comp.assign(g.switches(), kNone);
  std::uint32_t parts = 0;
  std::vector<SwitchIdx> stack;
  for (SwitchIdx s0 = 0; s0 < g.switches(); ++s0) {
    if (!keep(s0) || comp[s0] != kNone) {
      continue;
    }
    comp[s0] = parts;
    stack.assign(1, s0);
    while (!stack.empty()) {
      const SwitchIdx s = stack.back();
      stack.pop_back();
      for (std::uint32_t e = g.off[s]; e < g.off[s + 1]; ++e) {
        const SwitchIdx t = g.to[e];
        if (comp[t] == kNone && keep(t) && use_link(e)) {
          comp[t] = parts;
          stack.push_back(t);
        }
      }
    }
    ++parts;
  }
  return parts;
}

// A partition worth evaluating: not all single switches (the single-switch
// family has those) and not one part holding every switch (no boundary).
bool informative(const std::vector<std::uint32_t>& comp, std::uint32_t parts) {
  const auto kept = static_cast<std::size_t>(
      std::count_if(comp.begin(), comp.end(), [](std::uint32_t c) { return c != kNone; }));
  return parts < kept && !(parts == 1 && kept == comp.size());
}

// Coordinates from the torus port plan (port 2d+1 = +d, 2d+2 = -d), or
// false when some switch link does not follow it or a ring is inconsistent.
struct TorusCoords {
  std::array<int, 3> n{1, 1, 1};
  std::vector<std::array<int, 3>> c;
};

bool torus_coords(const SwitchGraph& g, TorusCoords& t) {
  const std::size_t ns = g.switches();
  if (ns < 2) {
    return false;
  }
  for (std::size_t e = 0; e < g.to.size(); ++e) {
    const int p = g.port[e];
    if (p < 1 || p > 6 || g.peer_port[e] != (p % 2 == 1 ? p + 1 : p - 1)) {
      return false;
    }
  }
  auto next = [&](SwitchIdx s, int port) -> SwitchIdx {
    for (std::uint32_t e = g.off[s]; e < g.off[s + 1]; ++e) {
      if (g.port[e] == port) {
        return g.to[e];
      }
    }
    return kNoSwitch;
  };
  for (int d = 0; d < 3; ++d) {
    SwitchIdx s = next(0, 2 * d + 1);
    if (s == kNoSwitch) {
      continue;
    }
    int len = 1;
    while (s != 0) {
      s = next(s, 2 * d + 1);
      if (s == kNoSwitch || ++len > static_cast<int>(ns)) {
        return false;
      }
    }
    t.n[static_cast<std::size_t>(d)] = len;
  }
  t.c.assign(ns, {-1, -1, -1});
  t.c[0] = {0, 0, 0};
  std::vector<SwitchIdx> stack{0};
  while (!stack.empty()) {
    const SwitchIdx s = stack.back();
    stack.pop_back();
    for (std::uint32_t e = g.off[s]; e < g.off[s + 1]; ++e) {
      const int p = g.port[e];
      const auto d = static_cast<std::size_t>((p - 1) / 2);
      std::array<int, 3> want = t.c[s];
      want[d] = (want[d] + (p % 2 == 1 ? 1 : t.n[d] - 1)) % t.n[d];
      std::array<int, 3>& have = t.c[g.to[e]];
      if (have[0] < 0) {
        have = want;
        stack.push_back(g.to[e]);
      } else if (have != want) {
        return false;
      }
    }
  }
  return std::all_of(t.c.begin(), t.c.end(), [](const auto& c) { return c[0] >= 0; });
}

void torus_slabs(const Fabric& f, const SwitchGraph& g, const SpreadGroups& spread,
                 const TorusCoords& t, Search& search, EfiBound& out) {
  static constexpr std::array<char, 3> kAxis{'x', 'y', 'z'};
  for (std::size_t d = 0; d < 3; ++d) {
    const int n = t.n[d];
    if (n < 2) {
      continue;
    }
    const auto un = static_cast<std::size_t>(n);
    // fwd[c] = links from layer c to layer c+1 (mod n): every link moves one
    // step along one dimension, so a slab's boundary is the forward links
    // into its first layer and out of its last. flat[c] = link ends in layer
    // c along the other dimensions (each such link has both ends there).
    std::vector<std::size_t> fwd(un, 0);
    std::vector<std::size_t> flat(un, 0);
    for (SwitchIdx s = 0; s < g.switches(); ++s) {
      const auto c = static_cast<std::size_t>(t.c[s][d]);
      for (std::uint32_t e = g.off[s]; e < g.off[s + 1]; ++e) {
        const auto dim = static_cast<std::size_t>((g.port[e] - 1) / 2);
        fwd[c] += (dim == d && g.port[e] % 2 == 1) ? 1 : 0;
        flat[c] += dim != d ? 1 : 0;
      }
    }
    const std::size_t half = un / 2;
    // [(w-1)*n + a] for the slab [a, a+w).
    std::vector<std::size_t> crossing(half * un, 0);
    std::vector<std::size_t> demand(half * un, 0);
    std::vector<std::uint32_t> stamp(un, kNone);
    std::vector<int> count(un, 0);
    std::vector<int> cnt_prefix(2 * un + 1, 0);
    for (std::uint32_t gi = 0; gi < spread.count(); ++gi) {
      int m = 0;
      for (SwitchIdx s : spread.members(gi)) {
        const auto c = static_cast<std::size_t>(t.c[s][d]);
        if (stamp[c] != gi) {
          stamp[c] = gi;
          count[c] = 0;
        }
        ++count[c];
        ++m;
      }
      for (std::size_t i = 0; i < 2 * un; ++i) {
        const std::size_t c = i % un;
        cnt_prefix[i + 1] = cnt_prefix[i] + (stamp[c] == gi ? count[c] : 0);
      }
      for (std::size_t w = 1; w <= half; ++w) {
        std::size_t* cross_row = crossing.data() + (w - 1) * un;
        std::size_t* demand_row = demand.data() + (w - 1) * un;
        for (std::size_t a = 0; a < un; ++a) {
          const int inside = cnt_prefix[a + w] - cnt_prefix[a];
          const bool crosses = inside > 0 && inside < m;
          cross_row[a] += crosses ? 1 : 0;
          demand_row[a] += static_cast<std::size_t>(crosses ? inside : std::max(inside - 1, 0));
        }
      }
    }
    out.cuts += half * un;
    EfiCut best{"torus slab", "", 0, 0, 0, 0, 0, {}};
    std::size_t best_a = 0;
    std::size_t best_w = 0;
    for (std::size_t w = 1; w <= half; ++w) {
      for (std::size_t a = 0; a < un; ++a) {
        std::size_t inner = 0;
        for (std::size_t j = 0; j < w; ++j) {
          inner += flat[(a + j) % un] / 2 + (j + 1 < w ? fwd[(a + j) % un] : 0);
        }
        const std::size_t i = (w - 1) * un + a;
        const EfiCut v =
            rate(crossing[i], fwd[(a + un - 1) % un] + fwd[(a + w - 1) % un], demand[i], inner);
        if (v.bound > best.bound) {
          best = v;
          best.family = "torus slab";
          best_a = a;
          best_w = w;
        }
      }
    }
    if (best.bound == 0) {
      continue;
    }
    for (SwitchIdx s = 0; s < g.switches(); ++s) {
      const auto c = static_cast<std::size_t>(t.c[s][d]);
      if ((c + un - best_a) % un < best_w) {
        best.switches.push_back(s);
      }
    }
    best.what = std::string(1, kAxis[d]) + " in [" + std::to_string(best_a) + ", " +
                std::to_string(best_a + best_w) + ") mod " + std::to_string(n) + ", " +
                std::to_string(best.switches.size()) + " switches from " +
                f.name(f.switch_node(best.switches.front()));
    search.keep(std::move(best));
  }
}

// Fewest links a tree spanning the member switches `all` can have: m - 1; half
// the sum of each member's distance to its nearest other member (disjoint
// balls of those radii around the members each hold that much tree); half
// the minimum spanning tree over the members' distances (walking around the
// tree visits every member in twice its length). The last two on at most
// kTreeSample members, evenly spread over the list: a tree spanning all
// members spans those too, and it keeps the cost at O(min(m, 1024)^2)
// distance lookups, one row per member.
constexpr std::size_t kTreeSample = 1024;

std::size_t tree_links_at_least(const MinHop& mh, std::span<const SwitchIdx> all,
                                std::vector<SwitchIdx>& sample, std::vector<std::uint32_t>& key,
                                std::vector<std::uint32_t>& near, std::vector<char>& done) {
  std::span<const SwitchIdx> ms = all;
  if (all.size() > kTreeSample) {
    sample.clear();
    for (std::size_t i = 0; i < kTreeSample; ++i) {
      sample.push_back(all[i * all.size() / kTreeSample]);
    }
    ms = sample;
  }
  const std::size_t m = ms.size();
  key.assign(m, kNone);
  near.assign(m, kNone);
  done.assign(m, 0);
  std::size_t mst = 0;
  key[0] = 0;
  std::size_t u = 0;  // Prim's next member: the closest not yet in the tree
  for (std::size_t step = 0; step < m; ++step) {
    done[u] = 1;
    mst += key[u];
    const std::span<const std::uint8_t> row = mh.row(ms[u]);
    std::size_t next = m;
    for (std::size_t i = 0; i < m; ++i) {
      if (i == u) {
        continue;
      }
      const std::uint32_t d = row[ms[i]];
      if (d == kUnreachable) {
        return 0;  // no tree joins them: nothing to count
      }
      near[u] = std::min(near[u], d);
      if (done[i] == 0) {
        key[i] = std::min(key[i], d);
        next = next == m || key[i] < key[next] ? i : next;
      }
    }
    u = next;
  }
  std::size_t nearest = 0;
  for (std::uint32_t d : near) {
    nearest += d;
  }
  return std::max({all.size() - 1, (nearest + 1) / 2, (mst + 1) / 2});
}

}  // namespace

EfiBound efi_lower_bound(const Fabric& f, std::span<const Group> groups, const MinHop* mh) {
  EfiBound out;
  const SwitchGraph g(f);
  const SpreadGroups spread(f, groups);
  Search search(f, g, spread, out);
  const std::size_t ns = g.switches();
  std::vector<std::uint32_t> comp(ns);

  // Every single switch.
  for (SwitchIdx s = 0; s < ns; ++s) {
    comp[s] = s;
  }
  search.partition("switch", comp, static_cast<std::uint32_t>(ns), "switch", false);
  std::fill(comp.begin(), comp.end(), 0);
  search.partition("whole fabric", comp, 1, "all", false);

  // Tree sizes from distances: the whole fabric again, each group's demand
  // raised from m - 1 to what its members' distances force.
  if (mh != nullptr && spread.count() > 0) {
    std::size_t demand = 0;
    std::vector<SwitchIdx> sample;
    std::vector<std::uint32_t> key;
    std::vector<std::uint32_t> near;
    std::vector<char> done;
    for (std::uint32_t gi = 0; gi < spread.count(); ++gi) {
      demand += tree_links_at_least(*mh, spread.members(gi), sample, key, near, done);
    }
    EfiCut c = rate(0, 0, demand, g.to.size() / 2);
    c.family = "tree sizes";
    c.what = "all " + std::to_string(ns) + " switches, trees at least as long as their " +
             "members' distances force";
    c.switches.resize(ns);
    for (SwitchIdx s = 0; s < ns; ++s) {
      c.switches[s] = s;
    }
    ++out.cuts;
    search.keep(std::move(c));
  }

  // Subtrees: components of the switches below each level.
  std::vector<int> level(ns, -1);
  std::vector<SwitchIdx> queue;
  for (SwitchIdx s = 0; s < ns; ++s) {
    const NodeId n = f.switch_node(s);
    for (int pi = 1; pi <= f.num_ports(n); ++pi) {
      const PortPeer o = f.peer(n, static_cast<PortNum>(pi));
      if (o.connected() && !f.is_switch(o.node)) {
        level[s] = 0;
        queue.push_back(s);
        break;
      }
    }
  }
  int top = 0;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const SwitchIdx s = queue[i];
    for (std::uint32_t e = g.off[s]; e < g.off[s + 1]; ++e) {
      if (level[g.to[e]] < 0) {
        level[g.to[e]] = level[s] + 1;
        top = std::max(top, level[s] + 1);
        queue.push_back(g.to[e]);
      }
    }
  }
  for (int t = 1; t <= top; ++t) {
    const std::uint32_t parts = components(
        g, [&](SwitchIdx s) { return level[s] >= 0 && level[s] < t; },
        [](std::uint32_t) { return true; }, comp);
    if (informative(comp, parts)) {
      search.partition("subtree", comp, parts, "below level " + std::to_string(t));
    }
  }

  // Local groups: components over the links that lie in a triangle.
  const std::vector<char> global = dragonfly_global_links(f);
  const std::uint32_t local_parts = components(
      g, [](SwitchIdx) { return true; }, [&](std::uint32_t e) { return global[g.slot[e]] == 0; },
      comp);
  if (informative(comp, local_parts)) {
    search.partition("local group", comp, local_parts, "the local group");
  }

  // Torus slabs.
  TorusCoords tc;
  if (torus_coords(g, tc)) {
    torus_slabs(f, g, spread, tc, search, out);
  }

  // Switch-to-node links.
  std::vector<std::uint32_t> member_of(f.node_count(), 0);
  for (const Group& grp : groups) {
    for (NodeId m : grp.members) {
      ++member_of[m];
    }
  }
  for (NodeId h : f.hcas()) {
    if (member_of[h] == 0) {
      continue;
    }
    std::size_t ports = 0;
    for (int pi = 1; pi <= f.num_ports(h); ++pi) {
      const PortPeer o = f.peer(h, static_cast<PortNum>(pi));
      ports += (o.connected() && f.is_switch(o.node)) ? 1 : 0;
    }
    if (ports == 0) {
      continue;
    }
    const std::uint32_t b = ceil_div(member_of[h], ports);
    if (b > out.end_node) {
      out.end_node = b;
      out.end_node_what = f.name(h) + " in " + std::to_string(member_of[h]) + " groups over " +
                          std::to_string(ports) + (ports == 1 ? " port" : " ports");
    }
  }
  out.all_links = std::max(out.switch_links, out.end_node);
  return out;
}

}  // namespace syncfab::sm
