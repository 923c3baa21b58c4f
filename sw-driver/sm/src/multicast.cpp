#include "syncfab/sm/multicast.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

#include "multicast_internal.hpp"
#include "syncfab/sm/root_index.hpp"

namespace syncfab::sm {

McLoad::McLoad(const Fabric& fabric)
    : fabric_(fabric),
      switch_trees_(fabric.switch_count(), 0),
      switch_link_efi_(fabric.switch_count(), 0),
      efi_(fabric.port_slot_count(), 0) {}

void McLoad::add(const McTree& tree) {
  SwitchIdx last = kNoSwitch;
  for (const MftEntry& e : tree.entries) {
    const NodeId node = fabric_.switch_node(e.sw);
    ++efi_[fabric_.port_slot(node, e.port)];
    if (fabric_.is_switch(fabric_.peer(node, e.port).node)) {
      ++switch_link_efi_[e.sw];
    }
    if (e.sw != last) {
      ++switch_trees_[e.sw];
    }
    last = e.sw;
  }
  if (tree.entries.empty() && tree.root != kNoSwitch) {
    ++switch_trees_[tree.root];
  }
}

void McLoad::remove(const McTree& tree) {
  SwitchIdx last = kNoSwitch;
  for (const MftEntry& e : tree.entries) {
    const NodeId node = fabric_.switch_node(e.sw);
    --efi_[fabric_.port_slot(node, e.port)];
    if (fabric_.is_switch(fabric_.peer(node, e.port).node)) {
      --switch_link_efi_[e.sw];
    }
    if (e.sw != last) {
      --switch_trees_[e.sw];
    }
    last = e.sw;
  }
  if (tree.entries.empty() && tree.root != kNoSwitch) {
    --switch_trees_[tree.root];
  }
}

McLoad::Stats McLoad::stats() const {
  Stats s;
  double sum_sw = 0, sum_all = 0;
  for (NodeId n : fabric_.switches()) {
    for (int pi = 1; pi <= fabric_.num_ports(n); ++pi) {
      const auto p = static_cast<PortNum>(pi);
      const std::uint32_t v = efi_[fabric_.port_slot(n, p)];
      if (v == 0) {
        continue;
      }
      ++s.used_all_links;
      sum_all += v;
      s.max_all_links = std::max(s.max_all_links, v);
      if (fabric_.is_switch(fabric_.peer(n, p).node)) {
        ++s.used_switch_links;
        sum_sw += v;
        s.max_switch_links = std::max(s.max_switch_links, v);
      }
    }
  }
  s.mean_switch_links = s.used_switch_links ? sum_sw / static_cast<double>(s.used_switch_links) : 0;
  s.mean_all_links = s.used_all_links ? sum_all / static_cast<double>(s.used_all_links) : 0;
  return s;
}

std::vector<std::size_t> McLoad::histogram() const {
  std::vector<std::size_t> h(1, 0);
  for (NodeId n : fabric_.switches()) {
    for (int pi = 1; pi <= fabric_.num_ports(n); ++pi) {
      const std::uint32_t v = efi_[fabric_.port_slot(n, static_cast<PortNum>(pi))];
      if (v == 0) {
        continue;
      }
      if (h.size() <= v) {
        h.resize(v + 1u, 0);
      }
      ++h[v];
    }
  }
  return h;
}

std::vector<SwitchIdx> member_switches(const Fabric& fabric, const Group& group) {
  std::vector<SwitchIdx> out;
  out.reserve(group.members.size());
  for (NodeId n : group.members) {
    const SwitchIdx s = fabric.attach_switch(n);
    if (s != kNoSwitch) {
      out.push_back(s);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// ecc[s] = max(ecc[s], a[s], b[s]) for s < n, 16 bytes at a time.
void max_rows(std::uint8_t* ecc, const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  using V = std::uint8_t __attribute__((vector_size(16)));
  std::size_t s = 0;
  for (; s + sizeof(V) <= n; s += sizeof(V)) {
    V e, x, y;
    std::memcpy(&e, ecc + s, sizeof(V));
    std::memcpy(&x, a + s, sizeof(V));
    std::memcpy(&y, b + s, sizeof(V));
    e = e > x ? e : x;
    e = e > y ? e : y;
    std::memcpy(ecc + s, &e, sizeof(V));
  }
  for (; s < n; ++s) {
    ecc[s] = std::max({ecc[s], a[s], b[s]});
  }
}

}  // namespace

RootChoice minimal_height_roots(const MinHop& mh, std::span<const SwitchIdx> members) {
  const std::size_t n = mh.switch_count();
  thread_local std::vector<std::uint8_t> ecc;
  ecc.assign(n, 0);
  // Row by row: the matrix is symmetric, so row(m)[s] = dist(s, m) and the
  // scan stays sequential in memory. Two rows per sweep, 16 bytes per step
  // (SSE2 pmaxub): g++ -O2 does not vectorise the plain loop (it would need
  // an alias check and an epilogue), and this scan is most of FULB-MC's time
  // on the torus.
  for (std::size_t i = 0; i < members.size(); i += 2) {
    const std::uint8_t* a = mh.row(members[i]).data();
    const std::uint8_t* b = i + 1 < members.size() ? mh.row(members[i + 1]).data() : a;
    max_rows(ecc.data(), a, b, n);
  }
  RootChoice out;
  const std::uint8_t best = n == 0 ? kUnreachable : *std::min_element(ecc.begin(), ecc.end());
  out.height = best;
  if (best == kUnreachable) {
    return out;
  }
  for (std::size_t s = 0; s < n; ++s) {
    if (ecc[s] == best) {
      out.candidates.push_back(static_cast<SwitchIdx>(s));
    }
  }
  return out;
}

namespace detail {

void add_member_ports(const Fabric& f, const Group& group, std::vector<MftEntry>& entries) {
  for (NodeId n : group.members) {
    if (f.is_switch(n)) {
      continue;
    }
    const PortNum p = f.attach_port(n);
    if (p == 0) {
      continue;
    }
    const PortPeer sw = f.peer(n, p);
    entries.push_back({f.switch_index(sw.node), sw.port});
  }
}

SwitchIdx pick_root(const RootChoice& rc, const McLoad& load, bool rotate) {
  SwitchIdx root = rc.candidates.front();
  if (rotate) {
    // Candidates come in index order, so a strict < leaves ties on both
    // counts to the lowest index.
    std::uint32_t best_trees = load.switch_trees(root);
    std::uint64_t best_efi = load.switch_link_efi(root);
    for (SwitchIdx c : rc.candidates) {
      const std::uint32_t trees = load.switch_trees(c);
      if (trees > best_trees) {
        continue;
      }
      const std::uint64_t efi = load.switch_link_efi(c);
      if (trees < best_trees || efi < best_efi) {
        root = c;
        best_trees = trees;
        best_efi = efi;
      }
    }
  }
  return root;
}

namespace {
thread_local SwitchIdx keep_root = kNoSwitch;
}  // namespace

KeepRoot::KeepRoot(SwitchIdx root) { keep_root = root; }
KeepRoot::~KeepRoot() { keep_root = kNoSwitch; }
SwitchIdx KeepRoot::current() { return keep_root; }

RootChoice choose_roots(const MinHop& mh, std::span<const SwitchIdx> members,
                        const RootIndex* roots) {
  return roots != nullptr ? roots->roots(members) : minimal_height_roots(mh, members);
}

TreeStart start_tree(const MinHop& mh, const Group& group, const McLoad& load, bool rotate_root,
                     const RootIndex* roots) {
  TreeStart s;
  s.members = member_switches(mh.fabric(), group);
  s.tree.mlid = group.mlid;
  if (s.members.empty()) {
    return s;
  }
  s.choice = choose_roots(mh, s.members, roots);
  if (s.choice.candidates.empty()) {
    return s;
  }
  s.tree.root = pick_root(s.choice, load, rotate_root);
  if (keep_root != kNoSwitch &&
      std::binary_search(s.choice.candidates.begin(), s.choice.candidates.end(), keep_root)) {
    s.tree.root = keep_root;
  }
  s.tree.height = s.choice.height;
  s.routable = true;
  return s;
}

void finish(McTree& t) {
  std::sort(t.entries.begin(), t.entries.end());
  t.entries.erase(std::unique(t.entries.begin(), t.entries.end()), t.entries.end());
}

}  // namespace detail

using detail::add_member_ports;
using detail::finish;
using detail::Marks;
using detail::start_tree;
using detail::TreeStart;

McTree route_minihop_mc(const MinHop& mh, const Group& group, const McLoad& load, bool rotate_root,
                        const RootIndex* roots) {
  const Fabric& f = mh.fabric();
  TreeStart start = start_tree(mh, group, load, rotate_root, roots);
  McTree t = std::move(start.tree);
  if (!start.routable) {
    return t;
  }
  const std::vector<SwitchIdx>& ms = start.members;

  // Level-synchronous top-down split. claimed[t] = the entry that brought t
  // into the tree; a second parent reaching t hands its members to t instead
  // of adding a link (same depth, so paths stay shortest).
  std::unordered_map<SwitchIdx, std::size_t> level_index;
  std::vector<std::pair<SwitchIdx, std::vector<SwitchIdx>>> level, next;
  std::vector<SwitchIdx> first;
  for (SwitchIdx m : ms) {
    if (m != t.root) {
      first.push_back(m);
    }
  }
  level.emplace_back(t.root, std::move(first));
  std::unordered_map<SwitchIdx, char> in_tree{{t.root, 1}};
  while (!level.empty()) {
    next.clear();
    level_index.clear();
    for (auto& [s, dests] : level) {
      const NodeId node = f.switch_node(s);
      for (SwitchIdx d : dests) {
        const std::uint8_t want = mh.distance(s, d);
        PortNum port = 0;
        for (int pi = 1; pi <= f.num_ports(node) && port == 0; ++pi) {
          if (mh.hops_via_to_switch(s, static_cast<PortNum>(pi), d) == want) {
            port = static_cast<PortNum>(pi);
          }
        }
        const PortPeer peer = f.peer(node, port);
        const SwitchIdx child = f.switch_index(peer.node);
        auto it = level_index.find(child);
        if (it == level_index.end()) {
          if (in_tree.count(child) != 0) {
            continue;  // cannot happen on shortest paths
          }
          in_tree.emplace(child, 1);
          t.entries.push_back({s, port});
          t.entries.push_back({child, peer.port});
          it = level_index.emplace(child, next.size()).first;
          next.emplace_back(child, std::vector<SwitchIdx>{});
        }
        if (d != child) {
          next[it->second].second.push_back(d);
        }
      }
    }
    std::swap(level, next);
  }
  add_member_ports(f, group, t.entries);
  finish(t);
  return t;
}

McTree detail::fulb_tree(const MinHop& mh, const Group& group, const McLoad& load,
                         const std::vector<char>* global, TreeStart& start, bool compact) {
  const Fabric& f = mh.fabric();
  McTree t = std::move(start.tree);
  if (!start.routable) {
    return t;
  }
  const std::vector<SwitchIdx>& ms = start.members;
  thread_local Marks in_tree;
  in_tree.reset(f.switch_count());
  in_tree.set(t.root);
  const auto to_root = mh.row(t.root);  // symmetric: to_root[x] = dist(x, root)

  // Dragonfly rule: fewest global links to the root over shortest paths,
  // memoised per group (Marks + value).
  thread_local Marks known;
  thread_local std::vector<std::uint8_t> gmin;
  if (global != nullptr) {
    known.reset(f.switch_count());
    gmin.resize(f.switch_count());
  }
  auto is_global = [&](SwitchIdx x, PortNum p) {
    return (*global)[f.port_slot(f.switch_node(x), p)] != 0;
  };
  // Recursive through an explicit self (no std::function: one heap
  // allocation per group was measurable on the fat tree's 4,800 groups).
  auto fewest_global_rec = [&](auto& self, SwitchIdx x) -> std::uint8_t {
    if (x == t.root) {
      return 0;
    }
    if (known.test(x)) {
      return gmin[x];
    }
    const NodeId node = f.switch_node(x);
    std::uint8_t best = kUnreachable;
    for (int pi = 1; pi <= f.num_ports(node); ++pi) {
      const auto p = static_cast<PortNum>(pi);
      const PortPeer o = f.peer(node, p);
      if (!o.connected() || !f.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx y = f.switch_index(o.node);
      if (to_root[y] + 1 != to_root[x]) {
        continue;
      }
      const int g = (is_global(x, p) ? 1 : 0) + self(self, y);
      if (g < best) {
        best = static_cast<std::uint8_t>(g);
      }
    }
    known.set(x);
    gmin[x] = best;
    return best;
  };
  auto fewest_global = [&](SwitchIdx x) { return fewest_global_rec(fewest_global_rec, x); };
  // Two entries per tree link, at most one link per member switch's walk
  // hop: a first guess that saves most regrowths.
  t.entries.reserve(4 * ms.size() + group.members.size());

  // Compact walk: nearest members first, so that a farther member's
  // neighbour one hop closer to the root is more often in the tree already.
  thread_local std::vector<SwitchIdx> nearest_first;
  std::span<const SwitchIdx> walk_order = ms;
  if (compact) {
    // Ties in switch order, as the members come (a plain sort on both keys:
    // std::stable_sort allocates a buffer per call).
    nearest_first.assign(ms.begin(), ms.end());
    std::sort(nearest_first.begin(), nearest_first.end(), [&](SwitchIdx a, SwitchIdx b) {
      return to_root[a] != to_root[b] ? to_root[a] < to_root[b] : a < b;
    });
    walk_order = nearest_first;
  }
  for (SwitchIdx m : walk_order) {
    SwitchIdx x = m;
    while (!in_tree.test(x)) {
      in_tree.set(x);
      const NodeId node = f.switch_node(x);
      const auto want = static_cast<std::uint8_t>(to_root[x] - 1);
      PortNum best = 0;
      std::uint64_t best_key = std::numeric_limits<std::uint64_t>::max();
      for (int pi = 1; pi <= f.num_ports(node); ++pi) {
        const auto p = static_cast<PortNum>(pi);
        const PortPeer o = f.peer(node, p);
        if (!o.connected() || !f.is_switch(o.node)) {
          continue;
        }
        const SwitchIdx y = f.switch_index(o.node);
        if (to_root[y] != want) {
          continue;
        }
        std::uint64_t key = load.efi(x, p);
        if (compact && !in_tree.test(y)) {
          key |= std::uint64_t{1} << 40;  // above the dragonfly rule's bits 32-39
        }
        if (global != nullptr) {
          key |= static_cast<std::uint64_t>((is_global(x, p) ? 1 : 0) + fewest_global(y)) << 32;
        }
        if (key < best_key) {
          best = p;
          best_key = key;
        }
      }
      const PortPeer up = f.peer(node, best);
      t.entries.push_back({x, best});
      t.entries.push_back({f.switch_index(up.node), up.port});
      x = f.switch_index(up.node);
    }
  }
  add_member_ports(f, group, t.entries);
  finish(t);
  return t;
}

namespace {

McTree fulb(const MinHop& mh, const Group& group, const McLoad& load,
            const std::vector<char>* global, const RootIndex* roots) {
  TreeStart start = start_tree(mh, group, load, true, roots);
  return detail::fulb_tree(mh, group, load, global, start, false);
}

}  // namespace

McTree route_fulb_mc(const MinHop& mh, const Group& group, const McLoad& load) {
  return fulb(mh, group, load, nullptr, nullptr);
}

McTree route_fulb_mc_indexed(const MinHop& mh, const Group& group, const McLoad& load,
                             const RootIndex* roots) {
  return fulb(mh, group, load, nullptr, roots);
}

McTree route_fulb_mc_dragonfly(const MinHop& mh, const Group& group, const McLoad& load,
                               const std::vector<char>& global_links, const RootIndex* roots) {
  return fulb(mh, group, load, &global_links, roots);
}

std::vector<char> dragonfly_global_links(const Fabric& f) {
  std::vector<char> global(f.port_slot_count(), 0);
  std::vector<std::uint32_t> mark(f.switch_count(), 0);
  std::uint32_t gen = 0;
  for (SwitchIdx x = 0; x < f.switch_count(); ++x) {
    const NodeId xn = f.switch_node(x);
    ++gen;
    for (int pi = 1; pi <= f.num_ports(xn); ++pi) {
      const PortPeer o = f.peer(xn, static_cast<PortNum>(pi));
      if (o.connected() && f.is_switch(o.node)) {
        mark[f.switch_index(o.node)] = gen;
      }
    }
    for (int pi = 1; pi <= f.num_ports(xn); ++pi) {
      const PortPeer o = f.peer(xn, static_cast<PortNum>(pi));
      if (!o.connected() || !f.is_switch(o.node)) {
        continue;
      }
      bool triangle = false;
      for (int qi = 1; qi <= f.num_ports(o.node) && !triangle; ++qi) {
        const PortPeer z = f.peer(o.node, static_cast<PortNum>(qi));
        triangle = z.connected() && f.is_switch(z.node) && z.node != xn &&
                   mark[f.switch_index(z.node)] == gen;
      }
      global[f.port_slot(xn, static_cast<PortNum>(pi))] = triangle ? 0 : 1;
    }
  }
  return global;
}

McTree route_sssp_mc(const MinHop& mh, const Group& group, const McLoad& load, bool rotate_root,
                     const RootIndex* roots) {
  const Fabric& f = mh.fabric();
  TreeStart start = start_tree(mh, group, load, rotate_root, roots);
  McTree t = std::move(start.tree);
  if (!start.routable) {
    return t;
  }
  const std::vector<SwitchIdx>& ms = start.members;
  // Base weight above any path's total load: 2^32 per hop, loads are 32-bit
  // and paths shorter than 2^31 hops.
  constexpr std::uint64_t kBase = std::uint64_t{1} << 32;
  const std::size_t n = f.switch_count();
  thread_local std::vector<std::uint64_t> cost;
  thread_local std::vector<MftEntry> pred;  // entry at the parent that reaches the switch
  cost.assign(n, std::numeric_limits<std::uint64_t>::max());
  pred.assign(n, MftEntry{});
  using Item = std::pair<std::uint64_t, SwitchIdx>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  cost[t.root] = 0;
  heap.emplace(0, t.root);
  while (!heap.empty()) {
    const auto [c, x] = heap.top();
    heap.pop();
    if (c != cost[x]) {
      continue;
    }
    const NodeId node = f.switch_node(x);
    for (int pi = 1; pi <= f.num_ports(node); ++pi) {
      const auto p = static_cast<PortNum>(pi);
      const PortPeer o = f.peer(node, p);
      if (!o.connected() || !f.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx y = f.switch_index(o.node);
      const std::uint64_t nc = c + kBase + load.efi(x, p);
      if (nc < cost[y]) {
        cost[y] = nc;
        pred[y] = MftEntry{x, p};
        heap.emplace(nc, y);
      }
    }
  }
  thread_local Marks in_tree;
  in_tree.reset(n);
  in_tree.set(t.root);
  for (SwitchIdx m : ms) {
    for (SwitchIdx x = m; !in_tree.test(x);) {
      in_tree.set(x);
      const MftEntry up = pred[x];
      t.entries.push_back(up);
      t.entries.push_back({x, f.peer(f.switch_node(up.sw), up.port).port});
      x = up.sw;
    }
  }
  add_member_ports(f, group, t.entries);
  finish(t);
  return t;
}

std::string check_tree(const MinHop& mh, const Group& group, const McTree& tree) {
  const Fabric& f = mh.fabric();
  auto sw_name = [&](SwitchIdx s) { return "\"" + f.name(f.switch_node(s)) + "\""; };
  const std::vector<SwitchIdx> ms = member_switches(f, group);
  if (ms.empty()) {
    return "group has no member attached to a switch";
  }
  if (tree.root == kNoSwitch || tree.root >= f.switch_count()) {
    return "tree has no root";
  }
  std::vector<MftEntry> entries = tree.entries;
  std::sort(entries.begin(), entries.end());
  if (std::adjacent_find(entries.begin(), entries.end()) != entries.end()) {
    return "duplicate MFT entry";
  }
  auto has = [&](SwitchIdx s, PortNum p) {
    return std::binary_search(entries.begin(), entries.end(), MftEntry{s, p});
  };
  std::unordered_map<SwitchIdx, std::vector<SwitchIdx>> adj;
  std::size_t links = 0;
  for (const MftEntry& e : entries) {
    if (e.sw >= f.switch_count()) {
      return "entry on an unknown switch";
    }
    const NodeId node = f.switch_node(e.sw);
    const std::string where = sw_name(e.sw) + " port " + std::to_string(e.port);
    if (e.port == 0 || e.port > f.num_ports(node)) {
      return "entry on " + where + ": no such port";
    }
    const PortPeer o = f.peer(node, e.port);
    if (!o.connected()) {
      return "entry on " + where + ": port not connected";
    }
    if (f.is_switch(o.node)) {
      const SwitchIdx t = f.switch_index(o.node);
      if (!has(t, o.port)) {
        return "link " + where + " -> " + sw_name(t) + " port " + std::to_string(o.port) +
               " is in the tree at one end only";
      }
      adj[e.sw].push_back(t);
      if (e.sw < t || (e.sw == t && e.port < o.port)) {
        ++links;
      }
    } else if (!std::binary_search(group.members.begin(), group.members.end(), o.node)) {
      return "entry on " + where + " forwards to \"" + f.name(o.node) + "\", not a member";
    }
  }
  adj.try_emplace(tree.root);
  // A tree: connected from the root and |links| = |switches| - 1.
  std::unordered_map<SwitchIdx, int> depth{{tree.root, 0}};
  std::vector<SwitchIdx> queue{tree.root};
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const SwitchIdx u = queue[i];
    for (SwitchIdx v : adj[u]) {
      if (depth.emplace(v, depth[u] + 1).second) {
        queue.push_back(v);
      }
    }
  }
  if (depth.size() != adj.size()) {
    for (const auto& [s, _] : adj) {
      if (depth.count(s) == 0) {
        return "switch " + sw_name(s) + " is cut off from the root";
      }
    }
  }
  if (links != adj.size() - 1) {
    return "loop: " + std::to_string(links) + " switch links join " + std::to_string(adj.size()) +
           " switches";
  }
  int height = 0;
  for (NodeId n : group.members) {
    const SwitchIdx s = f.attach_switch(n);
    const auto it = depth.find(s);
    if (it == depth.end()) {
      return "member \"" + f.name(n) + "\" not reached";
    }
    if (!f.is_switch(n)) {
      const PortNum p = f.attach_port(n);
      if (!has(s, f.peer(n, p).port)) {
        return "member \"" + f.name(n) + "\": its switch does not forward to it";
      }
    }
    height = std::max(height, it->second);
  }
  const int minimal = minimal_height_roots(mh, ms).height;
  if (height != minimal) {
    return "height " + std::to_string(height) + " from root " + sw_name(tree.root) +
           ", minimal is " + std::to_string(minimal);
  }
  if (tree.height != height) {
    return "tree says height " + std::to_string(tree.height) + ", measured " +
           std::to_string(height);
  }
  return {};
}

}  // namespace syncfab::sm
