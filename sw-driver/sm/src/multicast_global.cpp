// FULB-MC-G: FULB-MC with a compact walk, then a rip-up and reroute pass over
// the whole group set with a bottleneck-aware tree builder (README "Beyond
// the paper").
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "multicast_internal.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

namespace {

using detail::Marks;

constexpr std::uint32_t kBlocked = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kNoSlot = std::numeric_limits<std::size_t>::max();
// Rip-up budget units for one switch visited by the bottleneck DP or a walk,
// on top of one per port examined: the memo, the recursion and the two load
// lookups per port cost about as much again as a pass-1 walk's port loop on
// the torus's 8-port switches (measured, README "Beyond the paper").
constexpr std::uint64_t kVisitWork = 8;

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
             const Reuse& reuse, std::uint64_t& work)
      : f_(mh.fabric()),
        load_(load),
        to_root_(mh.row(root)),
        root_(root),
        limit_(limit),
        reuse_(reuse),
        work_(work) {
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
    work_ += kVisitWork + static_cast<std::uint64_t>(f_.num_ports(node));
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
  std::uint64_t& work_;  // rip-up budget units spent (kVisitWork + ports per visit)
};

// Bottom-up from each member switch to the root or the tree, each hop over
// the port minimising (max(load, B(next)), load, port). False (tree left
// unfinished) when a member has no path within the limit.
bool build_tree(const MinHop& mh, const Group& group, std::span<const SwitchIdx> members,
                const McLoad& load, std::uint32_t limit, const Reuse& reuse, McTree& t,
                std::uint64_t& work) {
  const Fabric& f = mh.fabric();
  Bottleneck dp(mh, load, t.root, limit, reuse, work);
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
  work += t.entries.size();
  return true;
}

}  // namespace

McTree route_fulb_mc_bottleneck(const MinHop& mh, const Group& group, const McLoad& load,
                                const RootIndex* roots) {
  detail::TreeStart start = detail::start_tree(mh, group, load, true, roots);
  McTree t = std::move(start.tree);
  if (start.routable) {
    std::uint64_t work = 0;
    build_tree(mh, group, start.members, load, kBlocked - 1, Reuse{}, t, work);
  }
  return t;
}

namespace {

// Pass 1's work for one group in the rip-up budget's units (see
// route_fulb_mc_global): the root scan (a 16-switch block of one member's
// distance row per unit, plus half a unit per switch for the two byte passes
// that find the minimum and collect the candidates: measured at about a
// quarter of a scan block each), the root pick over the candidates,
// the walk (every port of every switch a member's walk passes, the root
// excepted) and the tree's entries.
std::uint64_t first_pass_work(const Fabric& f, const McTree& t, std::size_t member_switches,
                              std::size_t candidates) {
  const std::uint64_t s = f.switch_count();
  std::uint64_t w = (s + 15) / 16 * member_switches + s / 2 + candidates + t.entries.size();
  SwitchIdx last = kNoSwitch;
  for (const MftEntry& e : t.entries) {
    if (e.sw != last && e.sw != t.root) {
      w += static_cast<std::uint64_t>(f.num_ports(f.switch_node(e.sw)));
    }
    last = e.sw;
  }
  return w;
}

}  // namespace

std::vector<McTree> route_fulb_mc_global(const MinHop& mh, std::span<const Group> groups,
                                         McLoad& load, const RootIndex* roots,
                                         McGlobalStats* stats) {
  const Fabric& f = mh.fabric();
  McGlobalStats st;
  // First pass: FULB-MC's root rotation with the compact walk (nearest
  // members first, a next switch already in the tree before the least
  // loaded one: see detail::fulb_tree). Not the paper's walk: on the
  // torus's 2D grid its trees spread over twice the links (mean EFI 2.9 vs
  // 1.5), and no single-group reroute got below MINIHOP-MC-new from there.
  // Members are kept for the groups that move, and the root candidates when
  // they are at most 16 per member switch; the others' are found again when
  // the group is first tried, a scan that costs little for so few members
  // (keeping all would hold thousands of candidates per small dragonfly
  // group: +66 MB and its page faults on 4,000 random groups, of which a
  // few hundred are ever tried).
  constexpr std::size_t kKeptPerMember = 16;
  std::vector<McTree> trees;
  trees.reserve(groups.size());
  std::vector<std::vector<SwitchIdx>> members(groups.size());
  std::vector<RootChoice> choice(groups.size());
  std::vector<char> chosen(groups.size(), 0);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    detail::TreeStart start = detail::start_tree(mh, groups[g], load, true, roots);
    trees.push_back(detail::fulb_tree(mh, groups[g], load, nullptr, start, true));
    load.add(trees.back());
    // The compact walk's nearest-first order: one more unit per member switch.
    st.first_work +=
        first_pass_work(f, trees.back(), start.members.size(), start.choice.candidates.size()) +
        start.members.size();
    if (start.choice.candidates.size() <= kKeptPerMember * start.members.size()) {
      choice[g] = std::move(start.choice);
      chosen[g] = 1;
    }
    members[g] = std::move(start.members);
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
  for (const MftEntry& l : links) {
    st.first_max = std::max(st.first_max, load.efi(l.sw, l.port));
  }
  auto slot_of = [&](const MftEntry& e) { return f.port_slot(f.switch_node(e.sw), e.port); };
  auto is_link = [&](const MftEntry& e) {
    return f.is_switch(f.peer(f.switch_node(e.sw), e.port).node);
  };
  // The groups on each switch link after pass 1 (CSR by port slot), plus
  // (slot, group) pairs for the links moved trees took since: built once
  // instead of rescanning every tree at every level, which cost as much as
  // the reroutes on the dragonfly. A group that left a link stays listed and
  // is skipped (its tree no longer has the entry).
  // Scratch over all port slots is kept per thread: a fresh 0.4 MB array
  // per call page-faults, which on the fat tree's 260-group 2D grid cost
  // as much as its whole rip-up.
  thread_local std::vector<std::uint32_t> first_at, fill, first_groups, old_slot;
  thread_local std::vector<std::int32_t> hot_id;
  thread_local std::uint32_t old_gen = 0;
  first_at.assign(f.port_slot_count() + 1, 0);
  for (const McTree& t : trees) {
    for (const MftEntry& e : t.entries) {
      first_at[slot_of(e) + 1] += is_link(e) ? 1 : 0;
    }
  }
  for (std::size_t i = 1; i < first_at.size(); ++i) {
    first_at[i] += first_at[i - 1];
  }
  first_groups.resize(first_at.back());
  {
    fill.assign(first_at.begin(), first_at.end() - 1);
    for (std::size_t g = 0; g < trees.size(); ++g) {
      for (const MftEntry& e : trees[g].entries) {
        if (is_link(e)) {
          first_groups[fill[slot_of(e)]++] = static_cast<std::uint32_t>(g);
        }
      }
    }
  }
  std::vector<std::pair<std::size_t, std::uint32_t>> moved_onto;
  st.reroute_work += first_groups.size() * 2;

  // Per link at the max: groups tried before giving up on it, and roots per
  // group (a bound on the last, failing level's work; more buys little, see
  // the README).
  constexpr std::size_t kRootsTried = 16;
  constexpr std::size_t kGroupsTried = 8;
  // The rip-up stops once it has done kShareNum/kShareDen of pass 1's work
  // (in units: see first_pass_work and kVisitWork), so FULB-MC-G stays
  // within 2x FULB-MC's time whatever a reroute costs. A count of tree
  // builds (groups/2 + 16 before) let the dragonfly's large groups, whose
  // builds cost ~3x a pass-1 group, take 2.1x. A rip-up unit costs 2-4x a
  // pass-1 unit (the DP's memo and two-sided load lookups against the
  // vectorised scan), hence 1/5: the rip-up takes at most about 0.4-0.8x
  // pass 1's time (measured, README "Beyond the paper").
  constexpr std::uint64_t kShareNum = 1, kShareDen = 5;
  // Plus a floor of 64 units per group: a few reroutes when pass 1 is too
  // short for its share to pay even the link index (a hand-sized fabric);
  // under 1% of the share on the benchmark fabrics.
  const std::uint64_t budget = st.first_work / kShareDen * kShareNum + 64 * groups.size();
  auto spent = [&] { return st.reroute_work >= budget; };

  std::vector<SwitchIdx> order;
  // (rank, trees through), link EFI (the root rotation's tie-break), switch.
  std::vector<std::tuple<std::uint64_t, std::uint64_t, SwitchIdx>> keyed;
  if (old_slot.size() != f.port_slot_count()) {
    old_slot.assign(f.port_slot_count(), 0);
    old_gen = 0;
  }
  auto try_move = [&](std::size_t g, std::uint32_t m, const MftEntry& hot_link) {
    McTree& old = trees[g];
    if (old.root == kNoSwitch) {
      return false;
    }
    if (chosen[g] == 0) {
      choice[g] = detail::choose_roots(mh, members[g], roots);
      chosen[g] = 1;
      st.reroute_work += (f.switch_count() + 15) / 16 * members[g].size() + f.switch_count() / 2;
    }
    if (choice[g].candidates.empty()) {
      return false;
    }
    load.remove(old);
    if (++old_gen == 0) {  // wrapped: no stale stamp may match
      std::fill(old_slot.begin(), old_slot.end(), 0);
      old_gen = 1;
    }
    Reuse reuse{&old_slot, old_gen};
    for (const MftEntry& e : old.entries) {
      old_slot[slot_of(e)] = reuse.gen;
    }
    st.reroute_work += 3 * old.entries.size();  // remove, stamp, add back or compare
    const NodeId hot_node = f.switch_node(hot_link.sw);
    const PortPeer hot_peer = f.peer(hot_node, hot_link.port);
    reuse.banned_a = f.port_slot(hot_node, hot_link.port);
    reuse.banned_b = f.port_slot(hot_peer.node, hot_peer.port);
    // A tree towards r only has links one hop closer to r at one end: a root
    // as far from both ends of the hot link can never put it back, so those
    // roots go first (fewest trees first, then least link EFI as in the root
    // rotation), then the current root, then the rest.
    const auto from_a = mh.row(hot_link.sw);
    const auto from_b = mh.row(f.switch_index(hot_peer.node));
    auto rank = [&](SwitchIdx r) { return from_a[r] == from_b[r] ? 0 : r == old.root ? 1 : 2; };
    // Only the first kRootsTried matter: a partial sort on (rank, trees,
    // link EFI, switch) keys, the switch index keeping the candidates'
    // order on ties.
    // (A full sort of a dragonfly group's thousands of candidates cost more
    // than the tree builds.)
    keyed.clear();
    for (SwitchIdx r : choice[g].candidates) {
      keyed.emplace_back((static_cast<std::uint64_t>(rank(r)) << 32) | load.switch_trees(r),
                         load.switch_link_efi(r), r);
    }
    st.reroute_work += keyed.size();
    const std::size_t keep = std::min(kRootsTried, keyed.size());
    std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(keep),
                      keyed.end());
    order.clear();
    for (std::size_t i = 0; i < keep; ++i) {
      order.push_back(std::get<2>(keyed[i]));
    }
    McTree t;
    t.mlid = old.mlid;
    t.height = old.height;
    for (SwitchIdx r : order) {
      if (spent()) {
        break;
      }
      ++st.attempts;
      t.root = r;
      if (build_tree(mh, groups[g], members[g], load, m - 2, reuse, t, st.reroute_work)) {
        load.add(t);
        for (const MftEntry& e : t.entries) {
          const std::size_t slot = slot_of(e);
          if (old_slot[slot] != reuse.gen && is_link(e)) {
            moved_onto.emplace_back(slot, static_cast<std::uint32_t>(g));
          }
        }
        st.reroute_work += t.entries.size();
        old = std::move(t);
        ++st.moves;
        return true;
      }
    }
    load.add(old);
    return false;
  };

  // Rip-up and reroute, one EFI level at a time.
  std::vector<MftEntry> hot;
  hot_id.assign(f.port_slot_count(), -1);
  std::vector<std::vector<std::uint32_t>> hot_moved;  // moved groups per hot link
  for (std::uint32_t m = st.first_max; m > 1 && !spent(); --m) {
    hot.clear();
    for (std::size_t i = 0; i < links.size(); ++i) {
      if (load.efi_at(link_slot[i]) == m) {
        hot_id[link_slot[i]] = static_cast<std::int32_t>(hot.size());
        hot.push_back(links[i]);
      }
    }
    hot_moved.assign(hot.size(), {});
    for (const auto& [slot, g] : moved_onto) {
      if (hot_id[slot] >= 0) {
        hot_moved[static_cast<std::size_t>(hot_id[slot])].push_back(g);
      }
    }
    for (const MftEntry& l : hot) {
      hot_id[slot_of(l)] = -1;
    }
    st.reroute_work += links.size() + moved_onto.size();
    // Every link at m must lose one group, or m stays the max: stop at the
    // first link no group can leave.
    bool relieved = true;
    for (std::size_t h = 0; h < hot.size() && relieved; ++h) {
      if (load.efi(hot[h].sw, hot[h].port) < m) {
        continue;
      }
      relieved = false;
      std::size_t tried = 0;
      const std::size_t slot = slot_of(hot[h]);
      const std::span<const std::uint32_t> first(first_groups.data() + first_at[slot],
                                                 first_at[slot + 1] - first_at[slot]);
      for (const std::span<const std::uint32_t> on :
           {first, std::span<const std::uint32_t>(hot_moved[h])}) {
        for (const std::uint32_t g : on) {
          const auto& es = trees[g].entries;
          if (!std::binary_search(es.begin(), es.end(), hot[h])) {
            continue;
          }
          if (tried++ == kGroupsTried || spent()) {
            break;
          }
          if (try_move(g, m, hot[h])) {
            relieved = true;
            break;
          }
        }
        if (relieved || tried > kGroupsTried || spent()) {
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
