#include "syncfab/sm/credit_loop.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <thread>
#include <utility>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

std::string CreditLoopReport::describe(const Fabric& fabric) const {
  if (acyclic) {
    return "acyclic";
  }
  std::string s;
  for (const CdgLink& l : cycle) {
    if (!s.empty()) {
      s += ", ";
    }
    s += fabric.name(l.from) + ":" + std::to_string(l.out) + " -> " + fabric.name(l.to) + ":" +
         std::to_string(l.in) + " (VL" + std::to_string(l.vl) + ")";
  }
  return s;
}

namespace {

// The graph: node = port slot of a switch-to-switch channel (at its tail) x
// lane; a node's successors all leave the channel's head switch, so they are
// kept as a bitmap over (head port, lane). Walkers fill bitmaps of their own
// (bit()) that are OR-ed into the graph's (merge()).
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
  // The bit of node -> (head port q, lane v).
  [[nodiscard]] std::size_t bit(std::size_t from, PortNum q, std::size_t v) const {
    return offset_[from] + q * lanes_ + v;
  }
  [[nodiscard]] std::size_t words() const { return bits_.size(); }
  void merge(const std::vector<std::uint64_t>& bits) {
    for (std::size_t i = 0; i < bits_.size(); ++i) {
      bits_[i] |= bits[i];
    }
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
  [[nodiscard]] std::size_t lanes() const { return lanes_; }
  [[nodiscard]] NodeId head(std::size_t slot) const { return head_[slot]; }

 private:
  const Fabric& f_;
  std::size_t lanes_;
  std::vector<NodeId> head_;         // per slot: the switch a channel leads to
  std::vector<std::size_t> offset_;  // per node: first bit of its successor bitmap
  std::vector<std::uint64_t> bits_;
};

// The fabric as the walks read it, without Fabric's node indirections: the
// switch ports numbered densely (base[s] + port) and per port, for a
// switch-to-switch channel, the switch it leads to (kNoSwitch for any other
// port) and where the channel's successors start in the graph's bitmaps:
// bit (cell(i, v) + q) * lanes + w is (channel i, lane v) -> (the next
// switch's port q, lane w). One 8-byte record per hop.
struct Channels {
  struct Hop {
    SwitchIdx next = kNoSwitch;
    std::uint32_t cell0 = 0;
  };
  std::vector<std::uint32_t> base;      // per switch: the index of its port 0
  std::vector<PortNum> ports;           // per switch: its highest port
  std::vector<Hop> hop;                 // per switch port
  std::vector<PortNum> in;              // per switch port: the port its channel enters
  std::vector<std::uint32_t> map_base;  // per switch: its entries in map
  std::vector<PortNum> map;             // per switch: table entry -> channel()

  Channels(const Fabric& f, const Cdg& g) {
    std::size_t n = 0;
    std::size_t m = 0;
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      base.push_back(static_cast<std::uint32_t>(n));
      map_base.push_back(static_cast<std::uint32_t>(m));
      ports.push_back(static_cast<PortNum>(f.num_ports(f.switch_node(s))));
      n += ports.back() + std::size_t{1};
      m += ports.back() + std::size_t{2};
    }
    if (std::max(n, g.words() * 64 / g.lanes()) > std::numeric_limits<std::uint32_t>::max()) {
      throw FabricError("credit-loop check: " + std::to_string(n) + " switch ports, " +
                        std::to_string(g.words() * 64) + " dependency bits");
    }
    hop.resize(n);
    in.resize(n, 0);
    map.resize(m, 0);
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      const NodeId node = f.switch_node(s);
      for (PortNum p = 1; p <= ports[s]; ++p) {
        const PortPeer o = f.peer(node, p);
        if (o.connected() && f.is_switch(o.node)) {
          const std::size_t bit = g.bit(g.node(f.port_slot(node, p), 0), 0, 0);
          hop[base[s] + p] =
              Hop{f.switch_index(o.node), static_cast<std::uint32_t>(bit / g.lanes())};
          in[base[s] + p] = o.port;
          map[map_base[s] + p] = p;
        }
      }
    }
  }
  [[nodiscard]] std::size_t count() const { return hop.size(); }
  // The table entry as a walk sees it: the port when it is a switch-to-switch
  // channel, else 0 (the packet leaves the switch fabric or is dropped).
  [[nodiscard]] PortNum channel(SwitchIdx s, PortNum p) const {
    return map[map_base[s] + std::min<std::size_t>(p, ports[s] + std::size_t{1})];
  }
  [[nodiscard]] std::size_t cell(std::size_t i, std::size_t v) const {
    return hop[i].cell0 + v * (ports[hop[i].next] + std::size_t{1});
  }
};

// The lanes as the walks read them: tables where the assignment promises to
// ignore the destination (`first` per switch port; `next` per channel, lane
// and out port, laid out like the successor bitmaps), its functions
// otherwise. Tabulated values are range-checked when used, as the functions'
// are, so a combination no path takes cannot fail the check.
class Lanes {
 public:
  Lanes(const VlAssignment& v, const Channels& ch)
      : v_(v), lanes_(static_cast<std::size_t>(v.lanes)) {
    if (v.first && v.first_ignores_dst) {
      first_.assign(ch.count(), 0);
      for (SwitchIdx s = 0; s < ch.base.size(); ++s) {
        for (PortNum p = 1; p <= ch.ports[s]; ++p) {
          if (ch.channel(s, p) != 0) {
            first_[ch.base[s] + p] = v.first(s, 0, p);
          }
        }
      }
    }
    if (v.next && v.next_ignores_dst) {
      std::size_t size = 0;
      for (std::size_t i = 0; i < ch.count(); ++i) {
        if (ch.hop[i].next != kNoSwitch) {
          size = std::max(size, ch.cell(i, lanes_ - 1) + ch.ports[ch.hop[i].next] + 1);
        }
      }
      next_.assign(size, 0);
      for (std::size_t i = 0; i < ch.count(); ++i) {
        const SwitchIdx at = ch.hop[i].next;
        if (at == kNoSwitch) {
          continue;
        }
        for (std::size_t vl = 0; vl < lanes_; ++vl) {
          for (PortNum q = 1; q <= ch.ports[at]; ++q) {
            if (ch.channel(at, q) != 0) {
              next_[ch.cell(i, vl) + q] = v.next(at, ch.in[i], q, static_cast<std::uint8_t>(vl), 0);
            }
          }
        }
      }
    }
  }
  [[nodiscard]] bool constant() const { return !v_.first && !v_.next; }
  // port: the dense index of (src, out).
  [[nodiscard]] std::size_t first(SwitchIdx src, Dest dst, PortNum out, std::size_t port) const {
    if (!v_.first) {
      return 0;
    }
    return checked(first_.empty() ? v_.first(src, dst, out) : first_[port]);
  }
  // cell: the arriving (channel, lane)'s Channels::cell.
  [[nodiscard]] std::size_t next(SwitchIdx at, PortNum in, PortNum out, std::size_t vl, Dest dst,
                                 std::size_t cell) const {
    if (!v_.next) {
      return vl;
    }
    if (next_.empty()) {
      return checked(v_.next(at, in, out, static_cast<std::uint8_t>(vl), dst));
    }
    return checked(next_[cell + out]);
  }

 private:
  [[nodiscard]] std::size_t checked(std::uint8_t v) const {
    if (v >= lanes_) {
      throw FabricError("credit-loop check: lane " + std::to_string(v) + " of " +
                        std::to_string(lanes_));
    }
    return v;
  }

  const VlAssignment& v_;
  std::size_t lanes_;
  std::vector<std::uint8_t> first_;  // per switch port, when first ignores the destination
  std::vector<std::uint8_t> next_;   // per (cell + out port), when next does
};

// Destinations in walk order: grouped by switch (the lanes may depend on
// it), groups packed into blocks whose tables are read together.
struct Destinations {
  std::vector<Dest> lids;           // grouped by switch, ascending within a group
  std::vector<std::size_t> groups;  // start of each group in lids, then lids.size()
  std::vector<std::size_t> blocks;  // first group of each block, then the group count
  std::size_t widest = 0;           // most LIDs in one block
};

Destinations destinations(const Fabric& f, const Lft& lft, std::size_t block_lids) {
  std::vector<std::pair<std::uint64_t, Dest>> keyed;
  for (std::size_t l = 1; l < lft.dest_count(); ++l) {
    const auto d = static_cast<Dest>(l);
    const LidOwner o = f.dest_owner(d);
    if (o.node == kNoNode) {
      continue;
    }
    const SwitchIdx s = f.is_switch(o.node) ? f.switch_index(o.node) : f.attach_switch(o.node);
    // An end node without a switch gets a group of its own.
    keyed.emplace_back(s != kNoSwitch ? s : f.switch_count() + l, d);
  }
  std::sort(keyed.begin(), keyed.end());
  Destinations r;
  for (std::size_t i = 0; i < keyed.size(); ++i) {
    if (i == 0 || keyed[i].first != keyed[i - 1].first) {
      r.groups.push_back(i);
    }
    r.lids.push_back(keyed[i].second);
  }
  r.groups.push_back(r.lids.size());
  const std::size_t n_groups = r.groups.size() - 1;
  for (std::size_t g = 0; g < n_groups;) {
    r.blocks.push_back(g);
    std::size_t e = g + 1;
    while (e < n_groups && r.groups[e + 1] - r.groups[g] <= block_lids) {
      ++e;
    }
    r.widest = std::max(r.widest, r.groups[e] - r.groups[g]);
    g = e;
  }
  r.blocks.push_back(n_groups);
  return r;
}

// One walker's state: its own visited set and dependency bitmap, so walkers
// on disjoint destination blocks need no locks. Its (channel, lane) nodes are
// dense switch port x lane.
class Walker {
 public:
  Walker(const Lft& lft, const Cdg& g, const Channels& ch, const Lanes& lanes,
         const std::vector<SwitchIdx>& sources, const Destinations& dst)
      : lft_(lft),
        ch_(ch),
        lanes_(lanes),
        sources_(sources),
        dst_(dst),
        n_sw_(ch.base.size()),
        lanes_n_(g.lanes()),
        col_(dst.widest * n_sw_),
        seen_((ch.count() * g.lanes() + 63) / 64, 0),
        bits_(g.words(), 0) {}

  void block(std::size_t b) {
    const std::size_t g0 = dst_.blocks[b];
    const std::size_t g1 = dst_.blocks[b + 1];
    const Dest* lids = dst_.lids.data() + dst_.groups[g0];
    const std::size_t m = dst_.groups[g1] - dst_.groups[g0];
    // Tables are stored per switch; walks read one destination across all
    // switches, so the block is first copied column-wise, a few rows at a
    // time, each row along the block's runs of consecutive LIDs.
    runs_.clear();
    for (std::size_t j = 0; j < m; ++j) {
      if (runs_.empty() || lids[j] != lids[runs_.back().first] + (j - runs_.back().first)) {
        runs_.emplace_back(j, 0);
      }
      ++runs_.back().second;
    }
    constexpr std::size_t kRows = 64;
    for (std::size_t s0 = 0; s0 < n_sw_; s0 += kRows) {
      const std::size_t s1 = std::min(n_sw_, s0 + kRows);
      for (const auto& [j0, len] : runs_) {
        for (std::size_t s = s0; s < s1; ++s) {
          const auto sw = static_cast<SwitchIdx>(s);
          PortNum* c = col_.data() + j0 * n_sw_ + s;
          const PortNum* map = ch_.map.data() + ch_.map_base[s];
          const std::size_t past = ch_.ports[s] + std::size_t{1};
          lft_.for_run(sw, lids[j0], len, [&](std::size_t k, PortNum p) {
            c[k * n_sw_] = map[std::min<std::size_t>(p, past)];
          });
        }
      }
    }
    // LIDs of one switch with equal columns take the same walks on the same
    // lanes (VlAssignment's requirement): one walk for all of them.
    std::vector<std::size_t> walked;
    for (std::size_t g = g0; g < g1; ++g) {
      walked.clear();
      const std::size_t j1 = dst_.groups[g + 1] - dst_.groups[g0];
      for (std::size_t j = dst_.groups[g] - dst_.groups[g0]; j < j1; ++j) {
        const PortNum* c = col_.data() + j * n_sw_;
        const bool same = std::any_of(walked.begin(), walked.end(), [&](std::size_t k) {
          return std::equal(c, c + n_sw_, col_.data() + k * n_sw_);
        });
        if (same) {
          continue;
        }
        walked.push_back(j);
        if (lanes_.constant()) {
          walk<false>(c, lids[j]);
        } else {
          walk<true>(c, lids[j]);
        }
      }
    }
  }
  [[nodiscard]] const std::vector<std::uint64_t>& bits() const { return bits_; }

 private:
  // Marks node n visited; false when it already was.
  bool visit(std::size_t n) {
    const std::uint64_t m = std::uint64_t{1} << (n % 64);
    std::uint64_t& w = seen_[n / 64];
    if ((w & m) != 0) {
      return false;
    }
    w |= m;
    return true;
  }

  // From every source until a (channel, lane) this destination already
  // reached: the rest of that walk is already in the graph.
  template <bool kLanes>
  void walk(const PortNum* route, Dest d) {
    std::fill(seen_.begin(), seen_.end(), 0);
    const std::size_t lanes = lanes_n_;
    for (const SwitchIdx s : sources_) {
      const PortNum out = route[s];
      if (out == 0) {
        continue;
      }
      std::size_t port = ch_.base[s] + out;
      std::size_t v = kLanes ? lanes_.first(s, d, out, port) : 0;
      if (!visit(port * lanes + v)) {
        continue;
      }
      for (;;) {
        const Channels::Hop h = ch_.hop[port];
        const PortNum q = route[h.next];
        if (q == 0) {
          break;
        }
        const std::size_t cell = h.cell0 + v * (ch_.ports[h.next] + std::size_t{1});
        if constexpr (kLanes) {
          v = lanes_.next(h.next, ch_.in[port], q, v, d, cell);
        }
        const std::size_t b = (cell + q) * lanes + v;
        bits_[b / 64] |= std::uint64_t{1} << (b % 64);
        port = ch_.base[h.next] + q;
        if (!visit(port * lanes + v)) {
          break;
        }
      }
    }
  }

  const Lft& lft_;
  const Channels& ch_;
  const Lanes& lanes_;
  const std::vector<SwitchIdx>& sources_;
  const Destinations& dst_;
  std::size_t n_sw_;
  std::size_t lanes_n_;
  std::vector<PortNum> col_;
  std::vector<std::pair<std::size_t, std::size_t>> runs_;  // (first j, length) of a block
  std::vector<std::uint64_t> seen_;  // per (switch port, lane): reached in this walk
  std::vector<std::uint64_t> bits_;
};

// Walks of tables with port groups: per destination a search over every
// (channel, lane) a packet can reach, branching at each group. Like Walker,
// it walks the LIDs of one switch once when their entries agree on every
// switch -- an entry seen as its group (the members and the arrival-port
// exception) or as its channel -- which on ECMP tables leaves about one walk
// per switch with end nodes.
class GroupWalker {
 public:
  GroupWalker(const Lft& lft, const PortGroups& groups, const Cdg& g, const Channels& ch,
              const Lanes& lanes, const std::vector<SwitchIdx>& sources, const Destinations& dst)
      : lft_(lft),
        groups_(groups),
        ch_(ch),
        lanes_(lanes),
        sources_(sources),
        dst_(dst),
        n_sw_(ch.base.size()),
        lanes_n_(g.lanes()),
        seen_((ch.count() * g.lanes() + 63) / 64, 0),
        bits_(g.words(), 0) {}

  // The LIDs of destination group k (one switch's).
  void group(std::size_t k) {
    const std::size_t j0 = dst_.groups[k];
    const std::size_t m = dst_.groups[k + 1] - j0;
    col_.resize(m * n_sw_);
    for (SwitchIdx s = 0; s < n_sw_; ++s) {
      for (std::size_t j = 0; j < m; ++j) {
        col_[j * n_sw_ + s] = code(s, dst_.lids[j0 + j]);
      }
    }
    walked_.clear();
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint32_t* c = col_.data() + j * n_sw_;
      const bool same = std::any_of(walked_.begin(), walked_.end(), [&](std::size_t k2) {
        return std::equal(c, c + n_sw_, col_.data() + k2 * n_sw_);
      });
      if (!same) {
        walked_.push_back(j);
        walk(dst_.lids[j0 + j]);
      }
    }
  }
  [[nodiscard]] const std::vector<std::uint64_t>& bits() const { return bits_; }

 private:
  static constexpr std::uint32_t kGroupCode = 0x10000;

  // What a walk reads of entry (s, d): its group, or its channel (0 when the
  // packet leaves the switch fabric or is dropped).
  [[nodiscard]] std::uint32_t code(SwitchIdx s, Dest d) const {
    if (const int g = groups_.group(s, d); g >= 0) {
      return kGroupCode + static_cast<std::uint32_t>(g);
    }
    return ch_.channel(s, lft_.get(s, d));
  }

  void walk(Dest d) {
    std::fill(seen_.begin(), seen_.end(), 0);
    stack_.clear();
    for (const SwitchIdx s : sources_) {
      entry(s, d);
      for (const PortNum out : ports_) {
        if (ch_.channel(s, out) == 0) {
          continue;
        }
        const std::size_t port = ch_.base[s] + out;
        const std::size_t v = lanes_.first(s, d, out, port);
        if (visit(port * lanes_n_ + v)) {
          stack_.emplace_back(port, v);
        }
      }
    }
    while (!stack_.empty()) {
      const auto [port, v] = stack_.back();
      stack_.pop_back();
      const Channels::Hop h = ch_.hop[port];
      const PortNum in = ch_.in[port];
      const bool group = entry(h.next, d);
      const std::size_t cell = h.cell0 + v * (ch_.ports[h.next] + std::size_t{1});
      for (const PortNum q : ports_) {
        if (ch_.channel(h.next, q) == 0 || (group && q == in)) {
          continue;
        }
        const std::size_t w = lanes_.next(h.next, in, q, v, d, cell);
        const std::size_t b = (cell + q) * lanes_n_ + w;
        bits_[b / 64] |= std::uint64_t{1} << (b % 64);
        const std::size_t next = ch_.base[h.next] + q;
        if (visit(next * lanes_n_ + w)) {
          stack_.emplace_back(next, w);
        }
      }
    }
  }

  // ports_ = the ports entry (s, d) may leave on; true when it names a group.
  bool entry(SwitchIdx s, Dest d) {
    ports_.clear();
    if (const int g = groups_.group(s, d); g >= 0) {
      const auto m = groups_.members(s, g);
      ports_.assign(m.begin(), m.end());
      return true;
    }
    const PortNum p = lft_.get(s, d);
    if (p != kNoRoute) {
      ports_.push_back(p);
    }
    return false;
  }
  bool visit(std::size_t n) {
    const std::uint64_t m = std::uint64_t{1} << (n % 64);
    std::uint64_t& w = seen_[n / 64];
    if ((w & m) != 0) {
      return false;
    }
    w |= m;
    return true;
  }

  const Lft& lft_;
  const PortGroups& groups_;
  const Channels& ch_;
  const Lanes& lanes_;
  const std::vector<SwitchIdx>& sources_;
  const Destinations& dst_;
  std::size_t n_sw_;
  std::size_t lanes_n_;
  std::vector<std::uint32_t> col_;  // per LID of the group: code() of every switch
  std::vector<std::size_t> walked_;
  std::vector<PortNum> ports_;
  std::vector<std::pair<std::size_t, std::size_t>> stack_;  // (switch port, lane)
  std::vector<std::uint64_t> seen_;
  std::vector<std::uint64_t> bits_;
};

// Runs fn(t) for t = 0 .. n - 1, t > 0 on threads of their own, and rethrows
// the first exception any of them threw once all have ended. `failed` tells
// the others to stop early.
template <typename F>
void run_walkers(std::size_t n, std::atomic<bool>& failed, F&& fn) {
  std::vector<std::exception_ptr> errors(n);
  auto run = [&](std::size_t t) {
    try {
      fn(t);
    } catch (...) {
      errors[t] = std::current_exception();
      failed = true;
    }
  };
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < n; ++t) {
      pool.emplace_back(run, t);
    }
    run(0);
  }
  for (const std::exception_ptr& e : errors) {
    if (e) {
      std::rethrow_exception(e);
    }
  }
}

// A second walker pays once the walks outweigh setting up its own visited
// set and bitmap (the merge is one OR per word).
std::size_t walker_count(int threads, double work, std::size_t units) {
  if (threads <= 0) {
    constexpr double kThreadWork = 1e7;
    threads = work >= kThreadWork && std::thread::hardware_concurrency() >= 2 ? 2 : 1;
  }
  return std::min<std::size_t>(static_cast<std::size_t>(threads), std::max<std::size_t>(units, 1));
}

// Cycle search on the finished graph.
CreditLoopReport search(const Fabric& f, const Cdg& g);

// The walks of check_credit_loops with port groups, on `threads` walkers.
CreditLoopReport check_with_groups(const Lft& lft, const PortGroups& groups, Cdg& g,
                                   const Channels& ch, const Lanes& lanes,
                                   const std::vector<SwitchIdx>& sources, int threads);

}  // namespace

CreditLoopReport check_credit_loops(const Lft& lft, const VlAssignment& vls,
                                    bool all_switch_sources, int threads) {
  return check_credit_loops(lft, nullptr, vls, all_switch_sources, threads);
}

CreditLoopReport check_credit_loops(const Lft& lft, const PortGroups* groups,
                                    const VlAssignment& vls, bool all_switch_sources, int threads) {
  const Fabric& f = lft.fabric();
  if (vls.lanes < 1 || vls.lanes > 16) {
    throw FabricError("credit-loop check: " + std::to_string(vls.lanes) + " lanes (1..16)");
  }
  if (groups != nullptr &&
      (groups->switch_count() != f.switch_count() || groups->dest_count() != lft.dest_count())) {
    throw FabricError("credit-loop check: port groups for " +
                      std::to_string(groups->switch_count()) + " switches x " +
                      std::to_string(groups->dest_count()) + " destinations, tables for " +
                      std::to_string(f.switch_count()) + " x " + std::to_string(lft.dest_count()));
  }
  if (groups != nullptr && groups->grouped_entries() == 0) {
    groups = nullptr;
  }
  Cdg g(f, vls.lanes);
  const Channels ch(f, g);
  const Lanes lane_of(vls, ch);

  std::vector<SwitchIdx> sources;
  {
    std::vector<char> src(f.switch_count(), all_switch_sources ? 1 : 0);
    for (NodeId h : f.hcas()) {
      const SwitchIdx s = f.attach_switch(h);
      if (s != kNoSwitch) {
        src[s] = 1;
      }
    }
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      if (src[s] != 0) {
        sources.push_back(s);
      }
    }
  }

  if (groups != nullptr) {
    return check_with_groups(lft, *groups, g, ch, lane_of, sources, threads);
  }

  constexpr std::size_t kBlock = 256;
  const Destinations dst = destinations(f, lft, kBlock);
  const std::size_t n_blocks = dst.blocks.size() - 1;
  const double work = static_cast<double>(sources.size()) * static_cast<double>(dst.lids.size());
  const std::size_t n_walkers = walker_count(threads, work, n_blocks);
  std::vector<Walker> walkers;
  walkers.reserve(n_walkers);
  for (std::size_t t = 0; t < n_walkers; ++t) {
    walkers.emplace_back(lft, g, ch, lane_of, sources, dst);
  }
  std::atomic<bool> failed{false};
  run_walkers(n_walkers, failed, [&](std::size_t t) {
    for (std::size_t b = t; b < n_blocks && !failed.load(std::memory_order_relaxed);
         b += n_walkers) {
      walkers[t].block(b);
    }
  });
  for (const Walker& w : walkers) {
    g.merge(w.bits());
  }
  return search(f, g);
}

namespace {

CreditLoopReport check_with_groups(const Lft& lft, const PortGroups& groups, Cdg& g,
                                   const Channels& ch, const Lanes& lanes,
                                   const std::vector<SwitchIdx>& sources, int threads) {
  const Destinations dst = destinations(lft.fabric(), lft, 0);
  const std::size_t n_groups = dst.groups.size() - 1;
  // A walk with groups branches at every group: weigh it as more than the
  // single-port walks' one path per source.
  constexpr double kBranching = 8;
  const double work =
      kBranching * static_cast<double>(sources.size()) * static_cast<double>(dst.lids.size());
  const std::size_t n_walkers = walker_count(threads, work, n_groups);
  std::vector<GroupWalker> walkers;
  walkers.reserve(n_walkers);
  for (std::size_t t = 0; t < n_walkers; ++t) {
    walkers.emplace_back(lft, groups, g, ch, lanes, sources, dst);
  }
  std::atomic<bool> failed{false};
  run_walkers(n_walkers, failed, [&](std::size_t t) {
    for (std::size_t k = t; k < n_groups && !failed.load(std::memory_order_relaxed);
         k += n_walkers) {
      walkers[t].group(k);
    }
  });
  for (const GroupWalker& w : walkers) {
    g.merge(w.bits());
  }
  return search(lft.fabric(), g);
}

CreditLoopReport search(const Fabric& f, const Cdg& g) {
  const std::size_t lanes = g.lanes();
  // Iterative DFS, three colours; a grey successor closes a cycle.
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

}  // namespace syncfab::sm
