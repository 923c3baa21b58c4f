#include "syncfab/sm/reroute.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "multicast_internal.hpp"
#include "syncfab/sm/errors.hpp"
#include "unicast_common.hpp"

namespace syncfab::sm {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr std::uint32_t kInf = UINT32_MAX;

std::string port_name(const Fabric& f, NodeId n, PortNum p) {
  return "\"" + f.name(n) + "\" port " + std::to_string(p);
}

// The (rank, GUID) order UPDN and FTREE route by.
std::vector<std::uint32_t> updn_positions(const Fabric& f, const std::vector<std::uint32_t>& rank) {
  const std::size_t n = f.switch_count();
  std::vector<SwitchIdx> order(n);
  std::iota(order.begin(), order.end(), SwitchIdx{0});
  std::sort(order.begin(), order.end(), [&](SwitchIdx a, SwitchIdx b) {
    if (rank[a] != rank[b]) {
      return rank[a] < rank[b];
    }
    return f.guid(f.switch_node(a)) < f.guid(f.switch_node(b));
  });
  std::vector<std::uint32_t> pos(n);
  for (std::size_t i = 0; i < n; ++i) {
    pos[order[i]] = static_cast<std::uint32_t>(i);
  }
  return pos;
}

// FTREE's destination index: end-node ports in node order, then switches.
std::vector<std::uint32_t> ftree_indices(const Fabric& f) {
  std::vector<std::uint32_t> index(f.dest_count(), 0);
  std::uint32_t next = 0;
  for (NodeId h : f.hcas()) {
    for (int p = 1; p <= f.num_ports(h); ++p) {
      if (f.dest(h, static_cast<PortNum>(p)) != 0) {
        index[f.dest(h, static_cast<PortNum>(p))] = next++;
      }
    }
  }
  for (NodeId sw : f.switches()) {
    index[f.dest(sw)] = next++;
  }
  return index;
}

}  // namespace

UpdnRanking live_ranking(const RouteState& st) {
  const std::size_t n = st.fabric->switch_count();
  UpdnRanking r;
  for (SwitchIdx s : st.updn_roots) {
    if (st.dead_switch[s] == 0) {
      r.roots.push_back(s);
    }
  }
  if (r.roots.empty()) {
    // Every root failed: the first live switch, as UPDN's default on a
    // fabric whose switches all carry end nodes.
    for (SwitchIdx s = 0; s < n && r.roots.empty(); ++s) {
      if (st.dead_switch[s] == 0) {
        r.roots.push_back(s);
      }
    }
  }
  if (r.roots.empty()) {
    throw FabricError(st.unicast + ": every switch has failed");
  }
  r.rank.assign(n, 0);
  for (SwitchIdx s = 0; s < n; ++s) {
    std::uint32_t best = kInf;
    for (SwitchIdx root : r.roots) {
      const std::uint8_t dd = st.mh->distance(root, s);
      if (dd != kUnreachable) {
        best = std::min<std::uint32_t>(best, dd);
      }
    }
    r.rank[s] = best == kInf ? 0 : best;
  }
  return r;
}

namespace {

// One change of the fabric and everything it recomputes.
class Rerouter {
 public:
  Rerouter(RouteState& st, const RerouteOptions& o) : st_(st), f_(*st.fabric), o_(o) {}

  // `dead`: the switch failing now; `revived`: a failed switch the repaired
  // link brings back.
  RerouteDelta run(const std::vector<FailedLink>& removed, const std::optional<FailedLink>& added,
                   SwitchIdx dead, SwitchIdx revived);
  // Group i's members changed (st.groups[i] holds the new ones): its tree
  // alone is routed again.
  RerouteDelta regroup(std::size_t i);

 private:
  [[nodiscard]] Lft& lft() { return *st_.uc.lft; }
  [[nodiscard]] bool live(SwitchIdx s) const { return st_.dead_switch[s] == 0; }
  // The switch LID l is routed to, kNoSwitch when it cannot be reached.
  [[nodiscard]] SwitchIdx target(Dest l) const {
    const SwitchIdx t = st_.mh->dest_switch(l);
    return t == kNoSwitch || !live(t) ? kNoSwitch : t;
  }
  // The live switch behind port p of switch s, or kNoSwitch.
  [[nodiscard]] SwitchIdx next_switch(SwitchIdx s, PortNum p) const {
    const NodeId node = f_.switch_node(s);
    if (p == 0 || p == kNoRoute || p > f_.num_ports(node)) {
      return kNoSwitch;
    }
    const PortPeer o = f_.peer(node, p);
    if (!o.connected() || !f_.is_switch(o.node)) {
      return kNoSwitch;
    }
    const SwitchIdx u = f_.switch_index(o.node);
    return live(u) ? u : kNoSwitch;
  }
  void put(SwitchIdx s, Dest l, PortNum p);
  std::uint32_t* counts(SwitchIdx s);
  void local(SwitchIdx t, Dest l);
  // MINHOP / DOR: entry (s, l) again by the engine's rule (MINHOP keeps a
  // port still on a shortest path).
  void repick(SwitchIdx s, Dest l);
  // Every switch's entries for the LIDs back on the fabric, and every entry
  // of a switch that came back.
  void repick_returning(const std::vector<Dest>& back, SwitchIdx revived);
  // DOR: the index of a coordinate in at_.
  [[nodiscard]] std::size_t coord_index(const std::array<int, 3>& c) const;
  // UPDN / FTREE: the entries of LID l at the switches X, from the walks of
  // the other switches (unchanged, still legal and shortest).
  void updn_lid(Dest l, std::vector<SwitchIdx>& x);
  // The switches whose walk to l starts with one of the seed entries.
  std::vector<SwitchIdx> walkers(Dest l, const std::vector<SwitchIdx>& seeds);
  void unicast(const std::vector<FailedLink>& removed, const std::optional<FailedLink>& added,
               const std::vector<MinHop::Change>& changes, SwitchIdx dead, SwitchIdx revived);
  void unicast_full();
  // DOR: the rings that lost or got back a link, and per ring the links that
  // are down (index i = the link from position i to i + 1).
  void dor_breaks(const std::vector<FailedLink>& removed);
  [[nodiscard]] std::uint64_t ring_key(int d, SwitchIdx s) const;
  [[nodiscard]] bool arc_open(std::uint64_t ring, int from, int to, bool plus) const;
  // DOR's port at s toward switch t: each dimension in order along its ring,
  // the short way (+ on a tie) unless a link on it is down, then the long
  // way; kNoRoute when some dimension's ring is cut both ways.
  [[nodiscard]] PortNum dor_port(SwitchIdx s, SwitchIdx t) const;
  // Every (switch, destination) whose DOR walk runs in the ring of dimension
  // d through switch r, routed again.
  void dor_ring(int d, SwitchIdx r, const detail::LidsBySwitch& by);
  // UPDN / FTREE: no rewritten entry makes a packet that came down turn up
  // (at its switch, or at the switch it sends to), so with the fixed order
  // the channel graph stays acyclic.
  void check_turns();
  void multicast(const std::vector<std::size_t>& touched, std::vector<McTree> old_trees,
                 const std::vector<std::vector<NodeId>>& cut_before);

  RouteState& st_;
  Fabric& f_;
  const RerouteOptions& o_;
  RerouteDelta d_;
  bool failure_ = false;
  bool report_every_group_ = false;  // a membership change reports its group
  std::unordered_map<std::uint64_t, std::pair<PortNum, PortNum>> lft_changes_;
  std::unordered_map<SwitchIdx, std::vector<std::uint32_t>> counts_;
  std::vector<char> has_hca_;
  std::uint32_t max_rank_ = 0;
  std::vector<std::pair<SwitchIdx, Dest>>
      stuck_;  // reachable, but not up*/down* with the kept ranking
  // DOR: switch at each coordinate (x + X (y + Y z)); links down per ring.
  std::vector<SwitchIdx> at_;
  std::unordered_map<std::uint64_t, std::vector<int>> breaks_;
  // updn_lid scratch
  std::vector<std::uint32_t> stamp_, walk_len_, dn_, lg_;
  std::vector<char> walk_down_;
  std::uint32_t gen_ = 0;
};

void Rerouter::put(SwitchIdx s, Dest l, PortNum p) {
  const PortNum old = lft().get(s, l);
  if (old == p) {
    return;
  }
  const std::uint64_t key = (std::uint64_t{s} << 32U) | l;
  auto [it, fresh] = lft_changes_.try_emplace(key, old, p);
  if (!fresh) {
    it->second.second = p;
  }
  const auto c = counts_.find(s);
  if (c != counts_.end()) {
    if (old != kNoRoute) {
      --c->second[old];
    }
    if (p != kNoRoute) {
      ++c->second[p];
    }
  }
  lft().set(s, l, p);
  if (failure_) {
    st_.touched.push_back(key);
    st_.touched_lid[l] = 1;
  }
}

std::uint32_t* Rerouter::counts(SwitchIdx s) {
  auto [it, fresh] = counts_.try_emplace(s);
  if (fresh) {
    it->second.assign(static_cast<std::size_t>(f_.num_ports(f_.switch_node(s))) + 1, 0);
    auto& c = it->second;
    lft().for_run(s, 1, lft().dest_count() - 1, [&](std::size_t, PortNum p) {
      if (p != kNoRoute && p < c.size()) {
        ++c[p];
      }
    });
  }
  return it->second.data();
}

void Rerouter::local(SwitchIdx t, Dest l) {
  const LidOwner o = f_.dest_owner(l);
  put(t, l, f_.is_switch(o.node) ? PortNum{0} : f_.peer(o.node, o.port).port);
}

void Rerouter::repick(SwitchIdx s, Dest l) {
  if (!live(s)) {
    return;
  }
  ++d_.lids_examined;
  const SwitchIdx t = target(l);
  if (t == kNoSwitch) {
    put(s, l, kNoRoute);
    return;
  }
  if (s == t) {
    local(t, l);
    return;
  }
  const MinHop& mh = *st_.mh;
  const std::uint8_t want = mh.distance(s, t);
  if (want == kUnreachable) {
    put(s, l, kNoRoute);
    return;
  }
  auto on_path = [&](PortNum p) {
    const SwitchIdx u = next_switch(s, p);
    return u != kNoSwitch && mh.distance(u, t) + 1 == want;
  };
  const int ports = f_.num_ports(f_.switch_node(s));
  if (st_.unicast == "dor") {
    put(s, l, dor_port(s, t));
    return;
  }
  if (on_path(lft().get(s, l))) {
    return;
  }
  std::vector<PortNum> cand;
  for (int p = 1; p <= ports; ++p) {
    if (on_path(static_cast<PortNum>(p))) {
      cand.push_back(static_cast<PortNum>(p));
    }
  }
  if (cand.empty()) {
    put(s, l, kNoRoute);
    return;
  }
  // pick_balanced counts the pick itself; put() counts it again.
  std::uint32_t* c = counts(s);
  const PortNum p = detail::pick_balanced(cand, c);
  --c[p];
  put(s, l, p);
}

std::vector<SwitchIdx> Rerouter::walkers(Dest l, const std::vector<SwitchIdx>& seeds) {
  ++gen_;
  std::vector<SwitchIdx> x;
  for (SwitchIdx s : seeds) {
    if (live(s) && stamp_[s] != gen_) {
      stamp_[s] = gen_;
      x.push_back(s);
    }
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const NodeId node = f_.switch_node(x[i]);
    for (int q = 1; q <= f_.num_ports(node); ++q) {
      const PortPeer o = f_.peer(node, static_cast<PortNum>(q));
      if (!o.connected() || !f_.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx y = f_.switch_index(o.node);
      if (live(y) && stamp_[y] != gen_ && lft().get(y, l) == o.port) {
        stamp_[y] = gen_;
        x.push_back(y);
      }
    }
  }
  return x;
}

void Rerouter::updn_lid(Dest l, std::vector<SwitchIdx>& x) {
  const SwitchIdx t = target(l);
  std::erase_if(x, [&](SwitchIdx s) { return !live(s) || s == t; });
  ++d_.lids_examined;
  if (t == kNoSwitch) {
    for (SwitchIdx s : x) {
      put(s, l, kNoRoute);
    }
    return;
  }
  const auto& pos = st_.updn_pos;
  std::sort(x.begin(), x.end(), [&](SwitchIdx a, SwitchIdx b) { return pos[a] < pos[b]; });
  ++gen_;
  const std::uint32_t in_x = gen_;
  for (SwitchIdx s : x) {
    stamp_[s] = in_x;
  }
  ++gen_;
  const std::uint32_t walked = gen_;
  // Walk length and whether it only goes down, for a switch outside X (its
  // walk never enters X); memoised along the way.
  std::vector<SwitchIdx> path;
  auto walk = [&](SwitchIdx s) -> std::pair<std::uint32_t, bool> {
    path.clear();
    SwitchIdx u = s;
    std::uint32_t len = kInf;
    bool down = false;
    while (true) {
      if (u == t) {
        len = 0;
        down = true;
        break;
      }
      if (stamp_[u] == walked) {
        len = walk_len_[u];
        down = walk_down_[u] != 0;
        break;
      }
      if (path.size() > f_.switch_count()) {
        break;
      }
      path.push_back(u);
      u = next_switch(u, lft().get(u, l));
      if (u == kNoSwitch || stamp_[u] == in_x) {
        break;
      }
    }
    for (std::size_t i = path.size(); i-- > 0;) {
      const SwitchIdx v = path[i];
      const SwitchIdx nxt = i + 1 < path.size() ? path[i + 1] : u;
      if (len != kInf) {
        ++len;
        down = down && nxt != kNoSwitch && pos[nxt] > pos[v];
      }
      stamp_[v] = walked;
      walk_len_[v] = len;
      walk_down_[v] = down ? 1 : 0;
    }
    if (path.empty()) {
      return {len, down};
    }
    return {walk_len_[s], walk_down_[s] != 0};
  };
  auto down_of = [&](SwitchIdx u) {
    if (stamp_[u] == in_x) {
      return dn_[u];
    }
    const auto [len, down] = walk(u);
    return down ? len : kInf;
  };
  auto legal_of = [&](SwitchIdx u) { return stamp_[u] == in_x ? lg_[u] : walk(u).first; };
  auto for_links = [&](SwitchIdx s, auto&& fn) {
    const NodeId node = f_.switch_node(s);
    for (int q = 1; q <= f_.num_ports(node); ++q) {
      const auto p = static_cast<PortNum>(q);
      const SwitchIdx u = next_switch(s, p);
      if (u != kNoSwitch) {
        fn(p, u);
      }
    }
  };
  // Entries of X are read before any is rewritten: compute, then write.
  for (std::size_t i = x.size(); i-- > 0;) {
    const SwitchIdx s = x[i];
    std::uint32_t best = kInf;
    for_links(s, [&](PortNum, SwitchIdx u) {
      if (pos[u] > pos[s]) {
        const std::uint32_t v = down_of(u);
        if (v != kInf) {
          best = std::min(best, v + 1);
        }
      }
    });
    dn_[s] = best;
  }
  for (SwitchIdx s : x) {
    if (dn_[s] != kInf) {
      lg_[s] = dn_[s];
      continue;
    }
    std::uint32_t best = kInf;
    for_links(s, [&](PortNum, SwitchIdx u) {
      if (pos[u] < pos[s]) {
        const std::uint32_t v = legal_of(u);
        if (v != kInf) {
          best = std::min(best, v + 1);
        }
      }
    });
    lg_[s] = best;
  }
  std::vector<PortNum> cand;
  std::vector<std::pair<SwitchIdx, PortNum>> out;
  const std::uint32_t max_rank = max_rank_;
  for (SwitchIdx s : x) {
    cand.clear();
    if (lg_[s] != kInf) {
      for_links(s, [&](PortNum p, SwitchIdx u) {
        const bool going_down = pos[u] > pos[s];
        if (dn_[s] != kInf ? (going_down && down_of(u) != kInf && down_of(u) + 1 == dn_[s])
                           : (!going_down && legal_of(u) != kInf && legal_of(u) + 1 == lg_[s])) {
          cand.push_back(p);
        }
      });
    }
    if (cand.empty()) {
      if (st_.mh->distance(s, t) != kUnreachable) {
        stuck_.emplace_back(s, l);
      }
      out.emplace_back(s, kNoRoute);
      continue;
    }
    const PortNum old = lft().get(s, l);
    if (std::find(cand.begin(), cand.end(), old) != cand.end()) {
      continue;
    }
    if (st_.unicast == "ftree") {
      std::uint64_t div = 1;
      for (std::uint32_t h = st_.updn_rank[s]; h < max_rank; ++h) {
        div *= cand.size();
      }
      out.emplace_back(s, cand[(st_.ftree_index[l] / div) % cand.size()]);
    } else {
      std::uint32_t* c = counts(s);
      const PortNum p = detail::pick_balanced(cand, c);
      --c[p];
      out.emplace_back(s, p);
    }
  }
  for (const auto& [s, p] : out) {
    put(s, l, p);
  }
}

void Rerouter::unicast_full() {
  const Lft fresh = full_unicast(st_);
  const std::size_t n = f_.switch_count();
  for (SwitchIdx s = 0; s < n; ++s) {
    if (!live(s)) {
      continue;
    }
    for (std::size_t l = 1; l < fresh.dest_count(); ++l) {
      put(s, static_cast<Dest>(l), fresh.get(s, static_cast<Dest>(l)));
    }
  }
  st_.updn_rank = live_ranking(st_).rank;
  st_.updn_pos = updn_positions(f_, st_.updn_rank);
  d_.unicast_full = true;
  d_.unicast_note =
      stuck_.empty()
          ? std::string(
                "the repair changed the switches' distances from the roots: routed again "
                "with the new ranking")
          : "the kept ranking left \"" + f_.name(f_.switch_node(stuck_.front().first)) +
                "\" without a path to \"" + f_.name(f_.dest_owner(stuck_.front().second).node) +
                "\" and the switches' distances from the roots changed: routed again with the "
                "new ranking";
}

void Rerouter::check_turns() {
  const auto& pos = st_.updn_pos;
  std::size_t checked = 0;
  auto fail = [&](SwitchIdx y, SwitchIdx s, SwitchIdx u, Dest l) {
    d_.turn_violation = "LID " + std::to_string(l) + ": \"" + f_.name(f_.switch_node(y)) +
                        "\" sends it down to \"" + f_.name(f_.switch_node(s)) +
                        "\", which sends it up to \"" + f_.name(f_.switch_node(u)) + "\"";
  };
  for (const auto& [key, v] : lft_changes_) {
    if (v.first == v.second || !d_.turn_violation.empty()) {
      continue;
    }
    const auto s = static_cast<SwitchIdx>(key >> 32U);
    const auto l = static_cast<Dest>(key & 0xFFFFFFFFU);
    const SwitchIdx u = next_switch(s, v.second);
    if (u == kNoSwitch) {
      continue;
    }
    ++checked;
    if (pos[u] < pos[s]) {
      // Up from s: no switch above s may send l down to s.
      const NodeId node = f_.switch_node(s);
      for (int q = 1; q <= f_.num_ports(node); ++q) {
        const PortPeer o = f_.peer(node, static_cast<PortNum>(q));
        if (!o.connected() || !f_.is_switch(o.node)) {
          continue;
        }
        const SwitchIdx y = f_.switch_index(o.node);
        if (live(y) && pos[y] < pos[s] && lft().get(y, l) == o.port) {
          fail(y, s, u, l);
          break;
        }
      }
    } else {
      // Down to u: u must not send l up.
      const SwitchIdx w = next_switch(u, lft().get(u, l));
      if (w != kNoSwitch && pos[w] < pos[u]) {
        fail(s, u, w, l);
      }
    }
  }
  d_.turns_checked = checked;
  d_.turns_ok = d_.turn_violation.empty();
}

void Rerouter::repick_returning(const std::vector<Dest>& back, SwitchIdx revived) {
  for (Dest l : back) {
    for (SwitchIdx s = 0; s < f_.switch_count(); ++s) {
      repick(s, l);
    }
  }
  if (revived != kNoSwitch) {
    for (std::size_t l = 1; l < lft().dest_count(); ++l) {
      repick(revived, static_cast<Dest>(l));
    }
  }
}

std::size_t Rerouter::coord_index(const std::array<int, 3>& c) const {
  const auto& dims = st_.layout->dims;
  return static_cast<std::size_t>(c[0]) +
         static_cast<std::size_t>(dims[0]) *
             (static_cast<std::size_t>(c[1]) +
              static_cast<std::size_t>(dims[1]) * static_cast<std::size_t>(c[2]));
}

std::uint64_t Rerouter::ring_key(int d, SwitchIdx s) const {
  auto c = st_.layout->coord[s];
  c[d] = 0;
  return static_cast<std::uint64_t>(d) * f_.switch_count() + coord_index(c);
}

void Rerouter::dor_breaks(const std::vector<FailedLink>& removed) {
  const TorusLayout& lay = *st_.layout;
  const std::size_t n = f_.switch_count();
  at_.assign(n, kNoSwitch);
  for (SwitchIdx s = 0; s < n; ++s) {
    at_[coord_index(lay.coord[s])] = s;
  }
  breaks_.clear();
  auto add = [&](const FailedLink& fl) {
    if (!f_.is_switch(fl.a) || !f_.is_switch(fl.b) || fl.pa < 1 || fl.pa > 6) {
      return;
    }
    const SwitchIdx a = f_.switch_index(fl.a);
    const int d = (fl.pa - 1) / 2;
    const int len = lay.dims[d];
    const int pos = lay.coord[a][d];
    // Port 2d + 1 goes + (the link from pos to pos + 1), 2d + 2 goes -.
    const int link = fl.pa % 2 == 1 ? pos : (pos - 1 + len) % len;
    std::vector<int>& b = breaks_[ring_key(d, a)];
    if (std::find(b.begin(), b.end(), link) == b.end()) {
      b.push_back(link);
    }
  };
  for (const FailedLink& fl : st_.failed) {
    add(fl);
  }
  for (const FailedLink& fl : removed) {
    add(fl);
  }
}

bool Rerouter::arc_open(std::uint64_t ring, int from, int to, bool plus) const {
  const auto it = breaks_.find(ring);
  if (it == breaks_.end()) {
    return true;
  }
  const int len = st_.layout->dims[static_cast<int>(ring / f_.switch_count())];
  // Going + from `from` crosses links from, from + 1, ..., to - 1; going -
  // crosses to, ..., from - 1 (all mod len).
  const int first = plus ? from : to;
  const int count = plus ? (to - from + len) % len : (from - to + len) % len;
  return std::none_of(it->second.begin(), it->second.end(),
                      [&](int link) { return (link - first + len) % len < count; });
}

PortNum Rerouter::dor_port(SwitchIdx s, SwitchIdx t) const {
  const TorusLayout& lay = *st_.layout;
  const auto& tc = lay.coord[t];
  auto cur = lay.coord[s];
  PortNum first = kNoRoute;
  for (int d = 0; d < 3; ++d) {
    if (cur[d] == tc[d]) {
      continue;
    }
    const int len = lay.dims[d];
    const std::uint64_t ring = ring_key(d, at_[coord_index(cur)]);
    const int ahead = (tc[d] - cur[d] + len) % len;
    const bool short_plus = 2 * ahead <= len;
    bool plus = short_plus;
    if (!arc_open(ring, cur[d], tc[d], plus)) {
      plus = !plus;
      if (!arc_open(ring, cur[d], tc[d], plus)) {
        return kNoRoute;
      }
    }
    if (first == kNoRoute) {
      first = static_cast<PortNum>(plus ? 2 * d + 1 : 2 * d + 2);
    }
    cur[d] = tc[d];
  }
  return first;
}

void Rerouter::dor_ring(int d, SwitchIdx r, const detail::LidsBySwitch& by) {
  const TorusLayout& lay = *st_.layout;
  const auto& rc = lay.coord[r];
  // Sources: any coordinate up to d, r's above d; destinations: r's below
  // d, any from d on.
  auto range = [&](int dim, bool free) {
    return free ? std::pair{0, lay.dims[dim]} : std::pair{rc[dim], rc[dim] + 1};
  };
  std::vector<SwitchIdx> src, dst;
  for (int z = range(2, d >= 2).first; z < range(2, d >= 2).second; ++z) {
    for (int y = range(1, d >= 1).first; y < range(1, d >= 1).second; ++y) {
      for (int x = 0; x < lay.dims[0]; ++x) {
        src.push_back(at_[coord_index({x, y, z})]);
      }
    }
  }
  for (int z = 0; z < lay.dims[2]; ++z) {
    for (int y = range(1, d <= 1).first; y < range(1, d <= 1).second; ++y) {
      for (int x = range(0, d == 0).first; x < range(0, d == 0).second; ++x) {
        dst.push_back(at_[coord_index({x, y, z})]);
      }
    }
  }
  for (const SwitchIdx s : src) {
    if (!live(s)) {
      continue;
    }
    for (const SwitchIdx t : dst) {
      if (s == t || lay.coord[s][d] == lay.coord[t][d]) {
        continue;
      }
      const PortNum p = live(t) ? dor_port(s, t) : kNoRoute;
      if (p == kNoRoute && live(t) && st_.mh->distance(s, t) != kUnreachable) {
        if (d_.unicast_note.empty()) {
          d_.unicast_note = "no dimension-ordered path (a ring on the way is cut in two places)";
          d_.unicast_note += ", e.g. from \"" + f_.name(f_.switch_node(s)) + "\" to \"" +
                             f_.name(f_.switch_node(t)) + "\"; those entries are unrouted";
        }
      }
      for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
        const Dest l = by.lids[i];
        // A LID that cannot be reached (its end node's link is down) stays
        // unrouted.
        put(s, l, target(l) == kNoSwitch ? kNoRoute : p);
        ++d_.lids_examined;
      }
    }
  }
}

void Rerouter::unicast(const std::vector<FailedLink>& removed,
                       const std::optional<FailedLink>& added,
                       const std::vector<MinHop::Change>& changes, SwitchIdx dead,
                       SwitchIdx revived) {
  const std::size_t n = f_.switch_count();
  const std::size_t lids = lft().dest_count();
  has_hca_.assign(n, 0);
  for (NodeId h : f_.hcas()) {
    const SwitchIdx s = f_.attach_switch(h);
    if (s != kNoSwitch) {
      has_hca_[s] = 1;
    }
  }
  stamp_.assign(n, 0);
  walk_len_.assign(n, kInf);
  walk_down_.assign(n, 0);
  dn_.assign(n, kInf);
  lg_.assign(n, kInf);
  const detail::LidsBySwitch by = detail::lids_by_switch(f_);
  const bool updn = st_.unicast == "updn" || st_.unicast == "ftree";
  if (updn) {
    max_rank_ = *std::max_element(st_.updn_rank.begin(), st_.updn_rank.end());
  }

  // LIDs that can no longer be reached (an end node's link, a failed
  // switch and its end nodes) or can again.
  std::vector<Dest> lost;
  std::vector<Dest> back;
  auto lids_of_port = [&](NodeId node, PortNum p, std::vector<Dest>& into) {
    if (f_.is_switch(node)) {
      return;
    }
    const Dest l = f_.dest(node, p);
    if (l != 0) {
      into.push_back(l);
    }
  };
  for (const FailedLink& fl : removed) {
    lids_of_port(fl.a, fl.pa, lost);
    lids_of_port(fl.b, fl.pb, lost);
  }
  if (dead != kNoSwitch) {
    lost.push_back(f_.dest(f_.switch_node(dead)));
  }
  if (revived != kNoSwitch) {
    back.push_back(f_.dest(f_.switch_node(revived)));
  }
  if (added) {
    lids_of_port(added->a, added->pa, back);
    lids_of_port(added->b, added->pb, back);
  }
  for (Dest l : lost) {
    for (SwitchIdx s = 0; s < n; ++s) {
      if (live(s) && target(l) == kNoSwitch) {
        put(s, l, kNoRoute);
      }
    }
  }

  if (st_.unicast == "dor") {
    // DOR keeps its dimension order after failures: a ring with a link down
    // is a line, travelled the long way where the short way is cut (so no
    // walk leaves its dimension order and the dateline lanes stay acyclic);
    // only walks that run in a ring whose links changed can change.
    dor_breaks(removed);
    std::vector<std::pair<int, SwitchIdx>> rings;
    auto ring_of = [&](const FailedLink& fl) {
      if (f_.is_switch(fl.a) && f_.is_switch(fl.b) && fl.pa >= 1 && fl.pa <= 6) {
        const SwitchIdx a = f_.switch_index(fl.a);
        const int d = (fl.pa - 1) / 2;
        const std::uint64_t key = ring_key(d, a);
        if (std::none_of(rings.begin(), rings.end(),
                         [&](const auto& r) { return ring_key(r.first, r.second) == key; })) {
          rings.emplace_back(d, a);
        }
      }
    };
    for (const FailedLink& fl : removed) {
      ring_of(fl);
    }
    if (added) {
      ring_of(*added);
    }
    for (const auto& [d, r] : rings) {
      dor_ring(d, r, by);
    }
    repick_returning(back, revived);
    return;
  }

  // Switch ends of removed switch-to-switch links: the entries sent over
  // them start every walk that has to change.
  std::vector<std::pair<SwitchIdx, PortNum>> cut_ends;
  for (const FailedLink& fl : removed) {
    if (f_.is_switch(fl.a) && f_.is_switch(fl.b)) {
      cut_ends.emplace_back(f_.switch_index(fl.a), fl.pa);
      cut_ends.emplace_back(f_.switch_index(fl.b), fl.pb);
    }
  }
  if (updn) {
    std::map<Dest, std::vector<SwitchIdx>> seeds;
    for (const auto& end : cut_ends) {
      const SwitchIdx s = end.first;
      const PortNum p = end.second;
      if (!live(s)) {
        continue;
      }
      lft().for_run(s, 1, lids - 1, [&](std::size_t k, PortNum q) {
        if (q == p) {
          seeds[static_cast<Dest>(k + 1)].push_back(s);
        }
      });
    }
    for (auto& [l, sw] : seeds) {
      std::vector<SwitchIdx> x = walkers(l, sw);
      updn_lid(l, x);
    }
    if (revived != kNoSwitch) {
      for (std::size_t l = 1; l < lids; ++l) {
        std::vector<SwitchIdx> one{revived};
        updn_lid(static_cast<Dest>(l), one);
      }
    }
    if (added) {
      // Repair: the entries failures rewrote, the switches that came closer
      // to a destination switch, and the repaired link's ends start the
      // walks routed again; end nodes back on the fabric are routed again
      // from every switch.
      std::map<Dest, std::vector<SwitchIdx>> again;
      for (std::uint64_t key : st_.touched) {
        again[static_cast<Dest>(key & 0xFFFFFFFFU)].push_back(static_cast<SwitchIdx>(key >> 32U));
      }
      for (const MinHop::Change& c : changes) {
        for (std::uint32_t i = by.offset[c.t]; i < by.offset[c.t + 1]; ++i) {
          again[by.lids[i]].push_back(c.s);
        }
      }
      std::vector<SwitchIdx> ends;
      for (const NodeId node : {added->a, added->b}) {
        if (f_.is_switch(node)) {
          ends.push_back(f_.switch_index(node));
        }
      }
      std::vector<char> whole(lids, 0);
      for (Dest l : back) {
        whole[l] = 1;
      }
      for (std::size_t l = 1; l < lids; ++l) {
        if (whole[l] == 0) {
          continue;
        }
        std::vector<SwitchIdx> all(n);
        std::iota(all.begin(), all.end(), SwitchIdx{0});
        const SwitchIdx t = target(static_cast<Dest>(l));
        if (t != kNoSwitch) {
          local(t, static_cast<Dest>(l));
        }
        updn_lid(static_cast<Dest>(l), all);
      }
      for (auto& [l, sw] : again) {
        if (whole[l] != 0) {
          continue;
        }
        sw.insert(sw.end(), ends.begin(), ends.end());
        std::vector<SwitchIdx> x = walkers(l, sw);
        updn_lid(l, x);
      }
    }
    // A destination the kept ranking cannot reach: a full recomputation
    // can do better only with another ranking (same ranking, same legal
    // paths), so only then are the tables routed again.
    // A repair that changes the ranking (a switch back, or nearer the
    // roots again) can open paths no kept entry leads to: routed again too.
    if ((!stuck_.empty() || added) && live_ranking(st_).rank != st_.updn_rank) {
      unicast_full();
    } else {
      const auto t0 = Clock::now();
      check_turns();
      d_.turns_s = since(t0);
      for (const auto& [s, l] : stuck_) {
        if (has_hca_[s] != 0 && !f_.is_switch(f_.dest_owner(l).node)) {
          d_.unicast_note = "no up*/down* path from \"" + f_.name(f_.switch_node(s)) + "\" to \"" +
                            f_.name(f_.dest_owner(l).node) + "\" (nor in a full recomputation)";
          break;
        }
      }
    }
    return;
  }

  // MINHOP / DOR: the entries over a removed link, every entry toward a
  // switch whose distance changed at that switch and at its neighbours
  // (their choice looks at it), and on a repair the entries failures
  // rewrote.
  for (const auto& end : cut_ends) {
    const SwitchIdx s = end.first;
    const PortNum p = end.second;
    if (!live(s)) {
      continue;
    }
    std::vector<Dest> over;
    lft().for_run(s, 1, lids - 1, [&](std::size_t k, PortNum q) {
      if (q == p) {
        over.push_back(static_cast<Dest>(k + 1));
      }
    });
    for (Dest l : over) {
      repick(s, l);
    }
  }
  for (const MinHop::Change& c : changes) {
    for (std::uint32_t i = by.offset[c.t]; i < by.offset[c.t + 1]; ++i) {
      const Dest l = by.lids[i];
      repick(c.s, l);
      const NodeId node = f_.switch_node(c.s);
      for (int q = 1; q <= f_.num_ports(node); ++q) {
        const SwitchIdx y = next_switch(c.s, static_cast<PortNum>(q));
        if (y != kNoSwitch) {
          repick(y, l);
        }
      }
    }
  }
  repick_returning(back, revived);
  if (added) {
    const std::vector<std::uint64_t> entries = st_.touched;
    for (std::uint64_t key : entries) {
      repick(static_cast<SwitchIdx>(key >> 32U), static_cast<Dest>(key & 0xFFFFFFFFU));
    }
  }
}

void Rerouter::multicast(const std::vector<std::size_t>& touched, std::vector<McTree> old_trees,
                         const std::vector<std::vector<NodeId>>& cut_before) {
  const MinHop& mh = *st_.mh;
  for (std::size_t k = 0; k < touched.size(); ++k) {
    const std::size_t i = touched[k];
    const Group eff = attached_members(f_, st_.groups[i]);
    std::vector<NodeId> cut;
    std::set_difference(st_.groups[i].members.begin(), st_.groups[i].members.end(),
                        eff.members.begin(), eff.members.end(), std::back_inserter(cut));
    const McTree& old = old_trees[k];
    McTree fresh;
    fresh.mlid = st_.groups[i].mlid;
    std::string what;
    const std::vector<SwitchIdx> ms = member_switches(f_, eff);
    bool one_part = !ms.empty();
    for (SwitchIdx s : ms) {
      one_part = one_part && mh.distance(ms.front(), s) != kUnreachable;
    }
    if (eff.members.size() < 2) {
      what = "left without a tree: " + std::to_string(eff.members.size()) +
             " member(s) still attached";
    } else if (!one_part) {
      what =
          "left without a tree: its attached members are in parts of the fabric that no "
          "longer meet";
    } else {
      const SwitchIdx keep =
          old.root != kNoSwitch && st_.dead_switch[old.root] == 0 ? old.root : kNoSwitch;
      const detail::KeepRoot pin(keep);
      std::vector<McTree> one = st_.mc->route_all(mh, std::span<const Group>(&eff, 1), *st_.load);
      fresh = std::move(one.front());
      ++d_.trees_rerouted;
      what = "rerouted over " + std::to_string(eff.members.size()) + " attached members";
    }
    if (report_every_group_ || !cut.empty() || cut != cut_before[k] || fresh.root == kNoSwitch) {
      d_.groups.push_back({fresh.mlid, cut, what});
    }
    // MFT masks that differ, per switch.
    std::map<SwitchIdx, std::vector<PortNum>> before, after;
    for (const MftEntry& e : old.entries) {
      before[e.sw].push_back(e.port);
    }
    for (const MftEntry& e : fresh.entries) {
      after[e.sw].push_back(e.port);
    }
    for (const auto& [s, ports] : before) {
      if (!after.contains(s) && live(s)) {
        d_.mft.push_back({s, fresh.mlid, {}});
      }
    }
    for (const auto& [s, ports] : after) {
      const auto it = before.find(s);
      if (it == before.end() || it->second != ports) {
        d_.mft.push_back({s, fresh.mlid, ports});
      }
    }
    st_.trees[i] = std::move(fresh);
  }
  std::sort(d_.mft.begin(), d_.mft.end(), [](const MftChange& a, const MftChange& b) {
    return a.sw != b.sw ? a.sw < b.sw : a.mlid < b.mlid;
  });
}

RerouteDelta Rerouter::regroup(std::size_t i) {
  const auto t0 = Clock::now();
  report_every_group_ = true;
  std::vector<McTree> old{st_.trees[i]};
  st_.load->remove(st_.trees[i]);
  multicast({i}, std::move(old), std::vector<std::vector<NodeId>>(1));
  d_.multicast_s = since(t0);
  return std::move(d_);
}

RerouteDelta Rerouter::run(const std::vector<FailedLink>& removed,
                           const std::optional<FailedLink>& added, SwitchIdx dead,
                           SwitchIdx revived) {
  failure_ = !removed.empty();
  // Trees on a removed link or the failed switch leave the load while the
  // links they name still exist.
  std::vector<std::size_t> touched;
  if (failure_) {
    std::vector<MftEntry> ends;
    for (const FailedLink& fl : removed) {
      for (const auto& [node, p] : {std::pair{fl.a, fl.pa}, std::pair{fl.b, fl.pb}}) {
        if (f_.is_switch(node)) {
          ends.push_back({f_.switch_index(node), p});
        }
      }
    }
    for (std::size_t i = 0; i < st_.trees.size(); ++i) {
      const McTree& t = st_.trees[i];
      // A group left without a tree is looked at again: the change may
      // leave its attached members in one part (or fewer than two).
      bool hit = (dead != kNoSwitch && t.root == dead) || t.root == kNoSwitch;
      for (const MftEntry& e : ends) {
        hit = hit || std::binary_search(t.entries.begin(), t.entries.end(), e);
      }
      if (hit) {
        touched.push_back(i);
      }
    }
  }
  std::vector<std::vector<NodeId>> cut_before;
  auto cut_of = [&](std::size_t i) {
    const Group eff = attached_members(f_, st_.groups[i]);
    std::vector<NodeId> cut;
    std::set_difference(st_.groups[i].members.begin(), st_.groups[i].members.end(),
                        eff.members.begin(), eff.members.end(), std::back_inserter(cut));
    return cut;
  };
  cut_before.reserve(touched.size());
  for (std::size_t i : touched) {
    cut_before.push_back(cut_of(i));
  }
  std::vector<McTree> old_trees;
  old_trees.reserve(touched.size());
  for (std::size_t i : touched) {
    st_.load->remove(st_.trees[i]);
    old_trees.push_back(st_.trees[i]);
  }

  auto t0 = Clock::now();
  std::vector<std::pair<SwitchIdx, SwitchIdx>> cut_pairs, join_pairs;
  for (const FailedLink& fl : removed) {
    f_.disconnect(fl.a, fl.pa);
    if (f_.is_switch(fl.a) && f_.is_switch(fl.b)) {
      cut_pairs.emplace_back(f_.switch_index(fl.a), f_.switch_index(fl.b));
    }
  }
  if (added) {
    f_.connect(added->a, added->pa, added->b, added->pb);
    if (f_.is_switch(added->a) && f_.is_switch(added->b)) {
      join_pairs.emplace_back(f_.switch_index(added->a), f_.switch_index(added->b));
    }
  }
  if (dead != kNoSwitch) {
    st_.dead_switch[dead] = 1;
  }
  const std::vector<MinHop::Change> changes = st_.mh->update(cut_pairs, join_pairs);
  st_.mh->refresh_attachments();
  d_.distance_changes = changes.size();
  d_.minhop_s = since(t0);

  t0 = Clock::now();
  if (st_.uc.lft) {
    unicast(removed, added, changes, dead, revived);
    for (const auto& [key, v] : lft_changes_) {
      if (v.first != v.second) {
        d_.lft.push_back({static_cast<SwitchIdx>(key >> 32U), static_cast<Dest>(key & 0xFFFFFFFFU),
                          v.first, v.second});
      }
    }
    std::sort(d_.lft.begin(), d_.lft.end(), [](const LftChange& a, const LftChange& b) {
      return a.sw != b.sw ? a.sw < b.sw : a.lid < b.lid;
    });
  }
  d_.unicast_s = since(t0);

  t0 = Clock::now();
  if (added) {
    // A repair: groups with a member back on the fabric, and trees whose
    // minimal height shrank (a distance between switches they hold did).
    std::vector<char> near(f_.switch_count(), 0);
    for (const MinHop::Change& c : changes) {
      near[c.s] = 1;
    }
    for (std::size_t i = 0; i < st_.trees.size(); ++i) {
      const Group eff = attached_members(f_, st_.groups[i]);
      bool redo = false;
      for (NodeId m : eff.members) {
        const NodeId node = m;
        if (!f_.is_switch(node)) {
          const PortNum p = f_.attach_port(node);
          const PortPeer sw = f_.peer(node, p);
          redo =
              redo || !std::binary_search(st_.trees[i].entries.begin(), st_.trees[i].entries.end(),
                                          MftEntry{f_.switch_index(sw.node), sw.port});
        }
      }
      if (!redo && !st_.trees[i].entries.empty()) {
        const std::vector<SwitchIdx> ms = member_switches(f_, eff);
        if (std::any_of(ms.begin(), ms.end(), [&](SwitchIdx s) { return near[s] != 0; })) {
          redo = minimal_height_roots(*st_.mh, ms).height < st_.trees[i].height;
        }
      }
      if (redo) {
        touched.push_back(i);
      }
    }
    for (std::size_t i : touched) {
      // The repaired link was down while these trees were routed: nothing
      // of them names it, so removing them reads only live links.
      old_trees.push_back(st_.trees[i]);
      st_.load->remove(st_.trees[i]);
    }
    cut_before.clear();
    // What was cut before the repair: the members attached now minus the
    // one the repaired link brings back.
    for (std::size_t i : touched) {
      std::vector<NodeId> cut = cut_of(i);
      for (NodeId m : st_.groups[i].members) {
        if (m == added->a || m == added->b) {
          cut.push_back(m);
        }
      }
      std::sort(cut.begin(), cut.end());
      cut_before.push_back(cut);
    }
  }
  multicast(touched, std::move(old_trees), cut_before);
  d_.multicast_s = since(t0);

  if (o_.credit_check && st_.uc.lft && st_.uc.promises_acyclic) {
    t0 = Clock::now();
    d_.credit = check_credit_loops(*st_.uc.lft, st_.uc.vls);
    d_.credit_s = since(t0);
  }
  return std::move(d_);
}

}  // namespace

RouteState route_state(Fabric fabric, std::vector<Group> groups, std::string_view unicast,
                       std::string_view mc) {
  RouteState st;
  st.mc = &find_mc_engine(mc);
  if (unicast == "lash") {
    throw std::invalid_argument(
        "lash: not supported for incremental rerouting (its lanes are chosen per switch pair "
        "over the whole channel graph); supported: minhop, updn, ftree, dor, none");
  }
  if (unicast != "none" && !is_unicast_engine(unicast)) {
    throw std::invalid_argument("unknown unicast engine '" + printable(unicast) +
                                "' (known: minhop, updn, ftree, dor, none)");
  }
  st.fabric = std::make_unique<Fabric>(std::move(fabric));
  const Fabric& f = *st.fabric;
  st.mh = std::make_unique<MinHop>(f);
  st.unicast = std::string(unicast);
  if (unicast != "none") {
    route_unicast(unicast, *st.mh, st.uc);
    if (unicast == "updn" || unicast == "ftree") {
      UpdnRanking r = updn_ranking(*st.mh);
      st.updn_roots = std::move(r.roots);
      st.updn_rank = std::move(r.rank);
      st.updn_pos = updn_positions(f, st.updn_rank);
      st.ftree_index = ftree_indices(f);
    } else if (unicast == "dor") {
      st.layout = torus_layout(f);
    }
  }
  st.groups = std::move(groups);
  st.load = std::make_unique<McLoad>(f);
  st.trees = st.mc->route_all(*st.mh, st.groups, *st.load);
  st.dead_switch.assign(f.switch_count(), 0);
  st.touched_lid.assign(f.dest_count(), 0);
  return st;
}

Group attached_members(const Fabric& fabric, const Group& group) {
  Group g;
  g.mlid = group.mlid;
  for (NodeId m : group.members) {
    if (fabric.attach_switch(m) != kNoSwitch) {
      bool has_link = fabric.is_switch(m) ? false : true;
      if (fabric.is_switch(m)) {
        for (int p = 1; p <= fabric.num_ports(m) && !has_link; ++p) {
          has_link = fabric.peer(m, static_cast<PortNum>(p)).connected();
        }
      }
      if (has_link) {
        g.members.push_back(m);
      }
    }
  }
  return g;
}

RerouteDelta fail_link(RouteState& st, NodeId n, PortNum p, const RerouteOptions& o) {
  Fabric& f = *st.fabric;
  if (n >= f.node_count()) {
    throw FabricError("fail link: no node " + std::to_string(n));
  }
  if (p == 0 || p > f.num_ports(n)) {
    throw FabricError("fail link: " + port_name(f, n, p) + " out of range 1.." +
                      std::to_string(f.num_ports(n)));
  }
  const PortPeer o2 = f.peer(n, p);
  if (!o2.connected()) {
    const bool down = std::any_of(st.failed.begin(), st.failed.end(), [&](const FailedLink& l) {
      return (l.a == n && l.pa == p) || (l.b == n && l.pb == p);
    });
    throw FabricError("fail link: " + port_name(f, n, p) +
                      (down ? " is already down" : " is not linked"));
  }
  const FailedLink link{n, p, o2.node, o2.port};
  Rerouter r(st, o);
  RerouteDelta d = r.run({link}, std::nullopt, kNoSwitch, kNoSwitch);
  st.failed.push_back(link);
  return d;
}

RerouteDelta fail_switch(RouteState& st, NodeId sw, const RerouteOptions& o) {
  Fabric& f = *st.fabric;
  if (sw >= f.node_count() || !f.is_switch(sw)) {
    throw FabricError("fail switch: " + (sw < f.node_count()
                                             ? "\"" + f.name(sw) + "\" is not a switch"
                                             : "no node " + std::to_string(sw)));
  }
  const SwitchIdx s = f.switch_index(sw);
  if (st.dead_switch[s] != 0) {
    throw FabricError("fail switch: \"" + f.name(sw) + "\" has already failed");
  }
  std::vector<FailedLink> links;
  for (int p = 1; p <= f.num_ports(sw); ++p) {
    const PortPeer o2 = f.peer(sw, static_cast<PortNum>(p));
    if (o2.connected()) {
      links.push_back({sw, static_cast<PortNum>(p), o2.node, o2.port});
    }
  }
  Rerouter r(st, o);
  RerouteDelta d = r.run(links, std::nullopt, s, kNoSwitch);
  st.failed.insert(st.failed.end(), links.begin(), links.end());
  return d;
}

RerouteDelta repair_link(RouteState& st, NodeId n, PortNum p, const RerouteOptions& o) {
  Fabric& f = *st.fabric;
  if (n >= f.node_count()) {
    throw FabricError("repair link: no node " + std::to_string(n));
  }
  const auto it = std::find_if(st.failed.begin(), st.failed.end(), [&](const FailedLink& l) {
    return (l.a == n && l.pa == p) || (l.b == n && l.pb == p);
  });
  if (it == st.failed.end()) {
    throw FabricError("repair link: " + port_name(f, n, p) + " never failed" +
                      (p >= 1 && p <= f.num_ports(n) && f.peer(n, p).connected()
                           ? " (it is up)"
                           : " (no failed link ends there)"));
  }
  const FailedLink link = *it;
  SwitchIdx revived = kNoSwitch;
  for (const NodeId node : {link.a, link.b}) {
    if (f.is_switch(node) && st.dead_switch[f.switch_index(node)] != 0) {
      // A failed switch comes back with its first repaired link.
      revived = f.switch_index(node);
      st.dead_switch[revived] = 0;
    }
  }
  st.failed.erase(it);
  Rerouter r(st, o);
  RerouteDelta d = r.run({}, link, kNoSwitch, revived);
  if (st.failed.empty()) {
    // Every failure is repaired: no entry is a detour any more.
    st.touched.clear();
    std::fill(st.touched_lid.begin(), st.touched_lid.end(), 0);
  } else {
    std::sort(st.touched.begin(), st.touched.end());
    st.touched.erase(std::unique(st.touched.begin(), st.touched.end()), st.touched.end());
  }
  return d;
}

namespace {

std::size_t group_of(const RouteState& st, Lid mlid, std::string_view op) {
  const auto it = std::find_if(st.groups.begin(), st.groups.end(),
                               [&](const Group& g) { return g.mlid == mlid; });
  if (it == st.groups.end()) {
    throw FabricError(std::string(op) + ": no group with MLID " + hex_lid(mlid));
  }
  return static_cast<std::size_t>(it - st.groups.begin());
}

void check_node(const Fabric& f, NodeId n, std::string_view op) {
  if (n >= f.node_count()) {
    throw FabricError(std::string(op) + ": no node " + std::to_string(n));
  }
}

}  // namespace

RerouteDelta join_member(RouteState& st, Lid mlid, NodeId member) {
  const Fabric& f = *st.fabric;
  const std::size_t i = group_of(st, mlid, "join");
  check_node(f, member, "join");
  std::vector<NodeId>& ms = st.groups[i].members;
  const auto at = std::lower_bound(ms.begin(), ms.end(), member);
  if (at != ms.end() && *at == member) {
    throw FabricError("join: \"" + f.name(member) + "\" is already a member of " + hex_lid(mlid));
  }
  Group one;
  one.mlid = mlid;
  one.members = {member};
  const SwitchIdx s = f.attach_switch(member);
  if (s == kNoSwitch || st.dead_switch[s] != 0 || attached_members(f, one).members.empty()) {
    throw FabricError("join: \"" + f.name(member) + "\" is not attached to a live switch");
  }
  ms.insert(at, member);
  Rerouter r(st, {});
  return r.regroup(i);
}

RerouteDelta leave_member(RouteState& st, Lid mlid, NodeId member) {
  const Fabric& f = *st.fabric;
  const std::size_t i = group_of(st, mlid, "leave");
  check_node(f, member, "leave");
  std::vector<NodeId>& ms = st.groups[i].members;
  const auto at = std::lower_bound(ms.begin(), ms.end(), member);
  if (at == ms.end() || *at != member) {
    throw FabricError("leave: \"" + f.name(member) + "\" is not a member of " + hex_lid(mlid));
  }
  ms.erase(at);
  Rerouter r(st, {});
  return r.regroup(i);
}

Lft full_unicast(const RouteState& st) {
  const MinHop& mh = *st.mh;
  if (st.unicast == "minhop") {
    return route_minhop(mh);
  }
  if (st.unicast == "updn") {
    return route_updn(mh, live_ranking(st));
  }
  if (st.unicast == "ftree") {
    return route_ftree(mh, live_ranking(st));
  }
  throw std::invalid_argument("full_unicast: " + st.unicast +
                              " has no full recomputation on a fabric with failed links");
}

void apply_lft_delta(Lft& lft, const RerouteDelta& delta) {
  for (const LftChange& c : delta.lft) {
    lft.set(c.sw, c.lid, c.after);
  }
}

MftMasks mft_masks(std::span<const McTree> trees) {
  std::map<std::pair<SwitchIdx, Lid>, std::vector<PortNum>> m;
  for (const McTree& t : trees) {
    for (const MftEntry& e : t.entries) {
      m[{e.sw, t.mlid}].push_back(e.port);
    }
  }
  MftMasks out;
  for (auto& [key, ports] : m) {
    std::sort(ports.begin(), ports.end());
    out.push_back({key.first, key.second, std::move(ports)});
  }
  return out;
}

MftMasks apply_mft_delta(const MftMasks& masks, const RerouteDelta& delta) {
  std::map<std::pair<SwitchIdx, Lid>, std::vector<PortNum>> m;
  for (const MftChange& c : masks) {
    m[{c.sw, c.mlid}] = c.ports;
  }
  for (const MftChange& c : delta.mft) {
    if (c.ports.empty()) {
      m.erase({c.sw, c.mlid});
    } else {
      m[{c.sw, c.mlid}] = c.ports;
    }
  }
  MftMasks out;
  for (auto& [key, ports] : m) {
    out.push_back({key.first, key.second, std::move(ports)});
  }
  return out;
}

}  // namespace syncfab::sm
