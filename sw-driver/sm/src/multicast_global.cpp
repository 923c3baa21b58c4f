// FULB-MC-G: FULB-MC, then a rip-up and reroute pass over the whole group
// set with a bottleneck-aware tree builder (README "Beyond the paper").
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "multicast_internal.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

namespace {

using detail::Marks;

constexpr std::uint32_t kBlocked = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kNoSlot = std::numeric_limits<std::size_t>::max();

// Which links a rebuilt tree may use beyond those with load <= limit: the
// ones its old tree was on (port slots stamped `gen` in `slot_stamp`) at load
// limit+1, since taking them again leaves them where they were; never the two
// directions of the link being relieved.
struct Reuse {
  const std::vector<std::uint32_t>* slot_stamp = nullptr;
  std::uint32_t gen = 0;
  std::size_t banned_a = kNoSlot, banned_b = kNoSlot;
};

// Shortest paths towards one root: from x the next hops are the switch
// neighbours one hop closer. B(x) = least possible max link load over such a
// path, using only links with load <= limit (kBlocked: no such path). A link's
// load is the larger of its two directions (a tree adds both).
class Bottleneck {
 public:
  Bottleneck(const MinHop& mh, const McLoad& load, SwitchIdx root, std::uint32_t limit,
             const Reuse& reuse)
      : f_(mh.fabric()),
        load_(load),
        to_root_(mh.row(root)),
        root_(root),
        limit_(limit),
        reuse_(reuse) {
    known().reset(f_.switch_count());
    value().resize(f_.switch_count());
  }

  std::uint32_t operator()(SwitchIdx x) {
    if (x == root_) {
      return 0;
    }
    if (known().test(x)) {
      return value()[x];
    }
    std::uint32_t best = kBlocked;
    each_next(x, [&](PortNum, SwitchIdx y, std::uint32_t e) {
      const std::uint32_t rest = (*this)(y);
      if (rest != kBlocked) {
        best = std::min(best, std::max(e, rest));
      }
    });
    known().set(x);
    value()[x] = best;
    return best;
  }

  // Calls fn(port, next switch, link load) for every allowed next hop of x.
  template <typename Fn>
  void each_next(SwitchIdx x, Fn&& fn) const {
    const NodeId node = f_.switch_node(x);
    const int want = to_root_[x] - 1;
    for (int pi = 1; pi <= f_.num_ports(node); ++pi) {
      const auto p = static_cast<PortNum>(pi);
      const PortPeer o = f_.peer(node, p);
      if (!o.connected() || !f_.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx y = f_.switch_index(o.node);
      if (to_root_[y] != want) {
        continue;
      }
      const std::uint32_t e = std::max(load_.efi(x, p), load_.efi(y, o.port));
      if (e <= limit_) {
        fn(p, y, e);
      } else if (reuse_.slot_stamp != nullptr && e == limit_ + 1) {
        const std::size_t slot = f_.port_slot(node, p);
        if ((*reuse_.slot_stamp)[slot] == reuse_.gen && slot != reuse_.banned_a &&
            slot != reuse_.banned_b) {
          fn(p, y, e);
        }
      }
    }
  }

  [[nodiscard]] const Fabric& fabric() const { return f_; }

 private:
  static Marks& known() {
    thread_local Marks m;
    return m;
  }
  static std::vector<std::uint32_t>& value() {
    thread_local std::vector<std::uint32_t> v;
    return v;
  }

  const Fabric& f_;
  const McLoad& load_;
  std::span<const std::uint8_t> to_root_;
  SwitchIdx root_;
  std::uint32_t limit_;
  Reuse reuse_;
};

// Bottom-up from each member switch to the root or the tree, each hop over
// the port minimising (max(load, B(next)), load, port). False (tree left
// unfinished) when a member has no path within the limit.
bool build_tree(const MinHop& mh, const Group& group, std::span<const SwitchIdx> members,
                const McLoad& load, std::uint32_t limit, const Reuse& reuse, McTree& t) {
  const Fabric& f = mh.fabric();
  Bottleneck dp(mh, load, t.root, limit, reuse);
  thread_local Marks in_tree;
  in_tree.reset(f.switch_count());
  in_tree.set(t.root);
  t.entries.clear();
  // Every member's bottleneck first (memoised, so the walks below reuse it):
  // most rip-up attempts fail, and then no walk is wasted.
  for (SwitchIdx m : members) {
    if (dp(m) == kBlocked) {
      return false;
    }
  }
  for (SwitchIdx m : members) {
    SwitchIdx x = m;
    while (!in_tree.test(x)) {
      in_tree.set(x);
      PortNum best = 0;
      SwitchIdx next = kNoSwitch;
      std::uint64_t best_key = std::numeric_limits<std::uint64_t>::max();
      dp.each_next(x, [&](PortNum p, SwitchIdx y, std::uint32_t e) {
        const std::uint32_t rest = dp(y);
        if (rest == kBlocked) {
          return;
        }
        const std::uint64_t key = (static_cast<std::uint64_t>(std::max(e, rest)) << 32) | e;
        if (key < best_key) {
          best_key = key;
          best = p;
          next = y;
        }
      });
      t.entries.push_back({x, best});
      t.entries.push_back({next, f.peer(f.switch_node(x), best).port});
      x = next;
    }
  }
  detail::add_member_ports(f, group, t.entries);
  detail::finish(t);
  return true;
}

}  // namespace

McTree route_fulb_mc_bottleneck(const MinHop& mh, const Group& group, const McLoad& load,
                                const RootIndex* roots) {
  detail::TreeStart start = detail::start_tree(mh, group, load, true, roots);
  McTree t = std::move(start.tree);
  if (start.routable) {
    build_tree(mh, group, start.members, load, kBlocked - 1, Reuse{}, t);
  }
  return t;
}

std::vector<McTree> route_fulb_mc_global(const MinHop& mh, std::span<const Group> groups,
                                         McLoad& load, const RootIndex* roots,
                                         McGlobalStats* stats) {
  const Fabric& f = mh.fabric();
  // First pass: FULB-MC itself, so the result is never worse than it.
  // Members and root candidates are kept for the groups that move.
  std::vector<McTree> trees;
  trees.reserve(groups.size());
  std::vector<std::vector<SwitchIdx>> members(groups.size());
  std::vector<RootChoice> choice(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    detail::TreeStart start = detail::start_tree(mh, groups[g], load, true, roots);
    trees.push_back(detail::fulb_tree(mh, groups[g], load, nullptr, start));
    load.add(trees.back());
    members[g] = std::move(start.members);
    choice[g] = std::move(start.choice);
  }

  // Directed switch-to-switch links, by (switch, port).
  std::vector<MftEntry> links;
  std::vector<std::size_t> link_slot;  // the same links' port slots
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    const NodeId node = f.switch_node(s);
    for (int pi = 1; pi <= f.num_ports(node); ++pi) {
      const PortPeer o = f.peer(node, static_cast<PortNum>(pi));
      if (o.connected() && f.is_switch(o.node)) {
        links.push_back({s, static_cast<PortNum>(pi)});
        link_slot.push_back(f.port_slot(node, static_cast<PortNum>(pi)));
      }
    }
  }
  McGlobalStats st;
  for (const MftEntry& l : links) {
    st.first_max = std::max(st.first_max, load.efi(l.sw, l.port));
  }

  // Moves group g off every link at load >= m-1 (after removing its own
  // tree): its current root first, then the candidates fewest trees use.
  constexpr std::size_t kRootsTried = 16;
  // Per link at the max: groups tried before giving up on it (a bound on the
  // last, failing level's work; more buys little, see the README).
  constexpr std::size_t kGroupsTried = 8;
  // Tree builds in all, so FULB-MC-G stays within about 2x FULB-MC's time:
  // one build costs about what pass 1 spends on a group (its root scan and
  // walk), and most of the max-EFI drop comes from the first levels. Without
  // it the dragonfly's 2D grids took 1,553 builds for 650 groups (3.9x).
  const std::size_t budget = groups.size() / 2 + 16;
  std::vector<SwitchIdx> order;
  std::vector<std::pair<std::uint64_t, SwitchIdx>> keyed;
  std::vector<std::uint32_t> old_slot(f.port_slot_count(), 0);
  std::uint32_t old_gen = 0;
  auto try_move = [&](std::size_t g, std::uint32_t m, const MftEntry& hot_link) {
    McTree& old = trees[g];
    if (old.root == kNoSwitch || choice[g].candidates.empty()) {
      return false;
    }
    load.remove(old);
    Reuse reuse{&old_slot, ++old_gen};
    for (const MftEntry& e : old.entries) {
      old_slot[f.port_slot(f.switch_node(e.sw), e.port)] = reuse.gen;
    }
    const NodeId hot_node = f.switch_node(hot_link.sw);
    const PortPeer hot_peer = f.peer(hot_node, hot_link.port);
    reuse.banned_a = f.port_slot(hot_node, hot_link.port);
    reuse.banned_b = f.port_slot(hot_peer.node, hot_peer.port);
    // A tree towards r only has links one hop closer to r at one end: a root
    // as far from both ends of the hot link can never put it back, so those
    // roots go first (fewest trees first), then the current root, then the rest.
    const auto from_a = mh.row(hot_link.sw);
    const auto from_b = mh.row(f.switch_index(hot_peer.node));
    auto rank = [&](SwitchIdx r) { return from_a[r] == from_b[r] ? 0 : r == old.root ? 1 : 2; };
    // Only the first kRootsTried matter: a partial sort on (rank, trees,
    // switch) keys, the switch index keeping the candidates' order on ties.
    // (A full sort of a dragonfly group's thousands of candidates cost more
    // than the tree builds.)
    keyed.clear();
    for (SwitchIdx r : choice[g].candidates) {
      keyed.emplace_back((static_cast<std::uint64_t>(rank(r)) << 32) | load.switch_trees(r), r);
    }
    const std::size_t keep = std::min(kRootsTried, keyed.size());
    std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(keep),
                      keyed.end());
    order.clear();
    for (std::size_t i = 0; i < keep; ++i) {
      order.push_back(keyed[i].second);
    }
    McTree t;
    t.mlid = old.mlid;
    t.height = old.height;
    for (SwitchIdx r : order) {
      if (st.attempts == budget) {
        break;
      }
      ++st.attempts;
      t.root = r;
      if (build_tree(mh, groups[g], members[g], load, m - 2, reuse, t)) {
        load.add(t);
        old = std::move(t);
        ++st.moves;
        return true;
      }
    }
    load.add(old);
    return false;
  };

  // Rip-up and reroute, one EFI level at a time.
  std::vector<std::int32_t> hot_id(f.port_slot_count(), -1);
  std::vector<MftEntry> hot;
  std::vector<std::vector<std::uint32_t>> on_hot;
  for (std::uint32_t m = st.first_max; m > 1; --m) {
    hot.clear();
    for (std::size_t i = 0; i < links.size(); ++i) {
      if (load.efi_at(link_slot[i]) == m) {
        hot_id[link_slot[i]] = static_cast<std::int32_t>(hot.size());
        hot.push_back(links[i]);
      }
    }
    on_hot.assign(hot.size(), {});
    for (std::size_t g = 0; g < trees.size(); ++g) {
      for (const MftEntry& e : trees[g].entries) {
        const std::int32_t h = hot_id[f.port_slot(f.switch_node(e.sw), e.port)];
        if (h >= 0) {
          on_hot[static_cast<std::size_t>(h)].push_back(static_cast<std::uint32_t>(g));
        }
      }
    }
    for (const MftEntry& l : hot) {
      hot_id[f.port_slot(f.switch_node(l.sw), l.port)] = -1;
    }
    // Every link at m must lose one group, or m stays the max: stop at the
    // first link no group can leave.
    bool relieved = true;
    for (std::size_t h = 0; h < hot.size() && relieved; ++h) {
      if (load.efi(hot[h].sw, hot[h].port) < m) {
        continue;
      }
      relieved = false;
      std::size_t tried = 0;
      for (std::uint32_t g : on_hot[h]) {
        const auto& es = trees[g].entries;
        if (!std::binary_search(es.begin(), es.end(), hot[h])) {
          continue;
        }
        if (tried++ == kGroupsTried || st.attempts == budget) {
          break;
        }
        if (try_move(g, m, hot[h])) {
          relieved = true;
          break;
        }
      }
    }
    if (!relieved) {
      break;
    }
    ++st.rounds;
  }
  if (stats != nullptr) {
    *stats = st;
  }
  return trees;
}

}  // namespace syncfab::sm
