#include "syncfab/model/collective/collective_model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "event_queue.hpp"

namespace syncfab::model::collective {

namespace {

// One switch of a group's tree with its combine entry (docs/group-barrier.md
// section 5): epoch E, arrivals as the epoch each child port last brought.
struct TreeNode {
  std::uint32_t parent = kNone;
  bool root = false;
  std::vector<unsigned> children;  // sorted
  std::vector<unsigned> mft;       // children plus the parent, sorted
  std::vector<std::uint32_t> arrived;
  std::uint32_t epoch = 0;
  std::uint32_t count = 0;
};

// One switch's ring-mode combine entry (docs/group-barrier.md section 9.2):
// arrivals as in TreeNode; per phase the geometry, the reach each way, the
// positions heard for the current epoch's parity and the next one's, own
// share sent, answer owed.
struct RingPhaseState {
  RingPhase cfg;
  unsigned reach_plus = 0;
  unsigned reach_minus = 0;
  std::array<std::uint32_t, 2> heard{};
  bool sent = false;
  bool owe = false;
};

struct RingNode {
  std::vector<unsigned> children;  // sorted
  std::vector<std::uint32_t> arrived;
  std::uint32_t count = 0;
  std::uint32_t epoch = 0;
  bool waits = false;  // children or some EXPECT: an entry that waits for nothing is a relay
  std::vector<RingPhaseState> ph;
};

// What one engine take of a combine unit sends: a packet to up to two ring
// ports, or to a switch's member ports.
struct Emission {
  Packet pkt;
  std::array<unsigned, 2> ports{};
  unsigned n = 0;
  const std::vector<unsigned>* many = nullptr;
};

struct Member {
  std::uint32_t epoch = 0;  // the barrier it runs (active) or posts next
  bool active = false;
  Cycle post = 0;
  // Dissemination.
  std::uint32_t released = 0;  // rounds whose sends went out
  std::uint32_t heard = 0;     // leading rounds with every notification
  std::uint32_t acks = 0;      // sends not yet ACKed
  // Multicast-release root.
  bool release_sent = false;
  // Software host.
  Cycle host = 0;
  std::uint32_t round = 0;
  bool round_sent = false;
};

// A NIC's packets waiting for its link.
struct NicTx {
  std::vector<Packet> resp;
  std::vector<Packet> sends;
  bool last_resp = false;
  bool kick = false;  // a kNicKick is scheduled for when the link frees
};

struct HostMessage {
  std::uint32_t epoch;
  std::uint32_t round;
  Cycle visible;
};

struct GroupState {
  const Group* g = nullptr;
  unsigned p = 0;
  unsigned rounds = 0;
  std::vector<std::vector<unsigned>> offsets;          // per round
  std::uint32_t sends = 0;                             // per rank and barrier
  std::vector<std::pair<unsigned, unsigned>> rank_of;  // (node, rank), sorted
  std::vector<std::uint32_t> tree_at;                  // by switch: TreeNode index or kNone
  std::vector<TreeNode> tree;
  bool ring_mode = false;
  std::vector<std::uint32_t> ring_at;  // by switch: RingNode index or kNone
  std::vector<RingNode> ring;
  std::vector<Member> members;
  std::vector<std::uint8_t> recv;  // [(slot * p + rank) * rounds + round]
  std::array<std::uint32_t, 2> root_arrivals{};
  std::vector<std::vector<HostMessage>> host_msgs;  // per rank, not yet noticed
  // Per barrier.
  std::vector<std::uint32_t> posts;
  std::vector<Cycle> last_post;
  std::vector<std::uint32_t> completions;
  std::vector<Cycle> last_done;
  std::vector<Cycle> done;  // per member, the last barrier's completion
};

std::string group_name(std::size_t gi) { return "group " + std::to_string(gi); }

class Sim {
 public:
  Sim(Network& net, std::span<const Group> groups, unsigned barriers, const Timing& t)
      : net_(net), t_(t), barriers_(barriers) {
    link_free_.assign(net.link_count(), 0);
    engine_free_.assign(net.switch_count(), 0);
    cq_free_.assign(net.node_count(), 0);
    nic_.resize(net.node_count());
    groups_.resize(groups.size());
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      setup(gi, groups[gi]);
    }
  }

  void run() {
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      const auto& first = groups_[gi].g->first_post;
      for (unsigned r = 0; r < groups_[gi].p; ++r) {
        Event e;
        e.t = first.empty() ? 0 : first[r];
        e.type = EventType::kPost;
        e.a = static_cast<std::uint32_t>(gi);
        e.b = r;
        q_.push(e);
      }
    }
    while (!q_.empty()) {
      const Event e = q_.pop();
      ++traffic_.events;
      switch (e.type) {
        case EventType::kPost:
          post(e.a, e.b, e.t);
          break;
        case EventType::kTx:
          transmit(e);
          break;
        case EventType::kRxSwitch:
          at_switch(e);
          break;
        case EventType::kRxNode:
          at_node(e);
          break;
        case EventType::kNicKick:
          nic_[e.a].kick = false;
          nic_kick(e.a, e.t);
          break;
      }
    }
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      const GroupState& gs = groups_[gi];
      for (unsigned b = 0; b < barriers_; ++b) {
        if (gs.completions[b] != gs.p) {
          throw std::logic_error(group_name(gi) + " barrier " + std::to_string(b) + ": " +
                                 std::to_string(gs.completions[b]) + " of " + std::to_string(gs.p) +
                                 " members completed (liveness)");
        }
      }
    }
  }

  [[nodiscard]] const GroupState& group(std::size_t gi) const { return groups_[gi]; }
  [[nodiscard]] const Traffic& traffic() const { return traffic_; }

 private:
  void setup(std::size_t gi, const Group& g) {
    GroupState& gs = groups_[gi];
    gs.g = &g;
    gs.p = static_cast<unsigned>(g.members.size());
    if (gs.p == 0) {
      throw std::invalid_argument(group_name(gi) + ": no members");
    }
    for (unsigned r = 0; r < gs.p; ++r) {
      const unsigned n = g.members[r];
      if (n >= net_.node_count()) {
        throw std::invalid_argument(group_name(gi) + ": member " + std::to_string(r) +
                                    " is end node " + std::to_string(n) + ", the fabric has " +
                                    std::to_string(net_.node_count()));
      }
      gs.rank_of.emplace_back(n, r);
    }
    std::sort(gs.rank_of.begin(), gs.rank_of.end());
    for (std::size_t i = 1; i < gs.rank_of.size(); ++i) {
      if (gs.rank_of[i].first == gs.rank_of[i - 1].first) {
        throw std::invalid_argument(group_name(gi) + ": end node " +
                                    std::to_string(gs.rank_of[i].first) + " is a member twice");
      }
    }
    if (!g.first_post.empty() && g.first_post.size() != gs.p) {
      throw std::invalid_argument(group_name(gi) + ": " + std::to_string(g.first_post.size()) +
                                  " first posts for " + std::to_string(gs.p) + " members");
    }
    gs.members.resize(gs.p);
    gs.posts.assign(barriers_, 0);
    gs.last_post.assign(barriers_, 0);
    gs.completions.assign(barriers_, 0);
    gs.last_done.assign(barriers_, 0);
    gs.done.assign(gs.p, 0);
    const BarrierKind kind = g.spec.kind;
    if (kind == BarrierKind::kDissemination || kind == BarrierKind::kSoftware) {
      gs.rounds = dissemination_rounds(gs.p, g.spec.k);
      for (unsigned s = 0; s < gs.rounds; ++s) {
        gs.offsets.push_back(round_offsets(gs.p, g.spec.k, s));
        gs.sends += static_cast<std::uint32_t>(gs.offsets.back().size());
      }
      if (kind == BarrierKind::kDissemination) {
        gs.recv.assign(std::size_t{2} * gs.p * gs.rounds, 0);
      } else {
        gs.host_msgs.resize(gs.p);
      }
      return;
    }
    gs.ring_mode = kind == BarrierKind::kComb && g.spec.scheme == CombScheme::kRing;
    if (gs.p > 1) {
      if (gs.ring_mode) {
        setup_rings(gi, gs);
      } else {
        setup_tree(gi, gs);
      }
    }
  }

  // The ring entries, consistent as docs/group-barrier.md section 9.2 asks
  // (the driver's refusals), and every member a child of its switch's.
  void setup_rings(std::size_t gi, GroupState& gs) {
    const GroupRings& gr = gs.g->rings;
    const auto bad = [&](unsigned sw, const std::string& why) {
      return std::invalid_argument(group_name(gi) + ": ring switch " + std::to_string(sw) + ": " +
                                   why);
    };
    if (gr.phases < 1 || gr.phases > kRingPhasesMax) {
      throw std::invalid_argument(group_name(gi) + ": ring mode with " + std::to_string(gr.phases) +
                                  " phases (1 .. " + std::to_string(kRingPhasesMax) + ")");
    }
    gs.ring_at.assign(net_.switch_count(), kNone);
    for (const RingSwitch& rs : gr.switches) {
      if (rs.sw >= net_.switch_count() || gs.ring_at[rs.sw] != kNone) {
        throw std::invalid_argument(group_name(gi) + ": ring switch " + std::to_string(rs.sw) +
                                    " unknown or listed twice");
      }
      if (rs.phases.size() != gr.phases) {
        throw bad(rs.sw, std::to_string(rs.phases.size()) + " phases, the group has " +
                             std::to_string(gr.phases));
      }
      RingNode rn;
      rn.children = rs.children;
      std::sort(rn.children.begin(), rn.children.end());
      for (std::size_t i = 0; i < rn.children.size(); ++i) {
        const unsigned c = rn.children[i];
        if (c == 0 || c > net_.ports(rs.sw) || (i > 0 && c == rn.children[i - 1])) {
          throw bad(rs.sw,
                    "child port " + std::to_string(c) + " does not exist or is listed twice");
        }
      }
      rn.arrived.assign(rn.children.size(), kNone);
      rn.waits = !rn.children.empty();
      bool any_valid = false;
      for (unsigned d = 0; d < gr.phases; ++d) {
        const RingPhase& c = rs.phases[d];
        RingPhaseState ps;
        ps.cfg = c;
        const std::string ph = "phase " + std::to_string(d) + ": ";
        if (!c.valid) {
          if (c.origin || c.expect != 0) {
            throw bad(rs.sw, ph + "origin or expected positions on a phase that is not valid");
          }
          rn.ph.push_back(ps);
          continue;
        }
        any_valid = true;
        for (const unsigned port : {c.plus, c.minus}) {
          if (port == 0 || port > net_.ports(rs.sw) ||
              std::binary_search(rn.children.begin(), rn.children.end(), port)) {
            throw bad(rs.sw, ph + "ring port " + std::to_string(port) +
                                 " does not exist or is a member's");
          }
        }
        if (c.len < 2 || c.len > kRingLenMax || c.pos >= c.len ||
            (c.len < 32 && (c.expect >> c.len) != 0) || (c.expect >> c.pos & 1U) != 0) {
          throw bad(rs.sw, ph + "position " + std::to_string(c.pos) + " of " +
                               std::to_string(c.len) + ", expected positions " +
                               std::to_string(c.expect) + " (len 2 .. " +
                               std::to_string(kRingLenMax) +
                               ", pos below len, expected below bit len and not pos)");
        }
        ps.reach_plus = c.len / 2;
        ps.reach_minus = c.len - 1 - ps.reach_plus;
        rn.waits = rn.waits || c.expect != 0;
        rn.ph.push_back(ps);
      }
      if (!any_valid && rn.children.empty()) {
        throw bad(rs.sw, "no members and no valid phase");
      }
      gs.ring_at[rs.sw] = static_cast<std::uint32_t>(gs.ring.size());
      gs.ring.push_back(std::move(rn));
    }
    for (unsigned r = 0; r < gs.p; ++r) {
      const unsigned n = gs.g->members[r];
      const std::uint32_t ri = gs.ring_at[net_.node_switch(n)];
      if (ri == kNone || !std::binary_search(gs.ring[ri].children.begin(),
                                             gs.ring[ri].children.end(), net_.node_port(n))) {
        throw std::invalid_argument(
            group_name(gi) + ": member " + std::to_string(r) + " (end node " + std::to_string(n) +
            ", switch " + std::to_string(net_.node_switch(n)) + " port " +
            std::to_string(net_.node_port(n)) + ") is not a child port of its ring switch");
      }
    }
  }

  void setup_tree(std::size_t gi, GroupState& gs) {
    const Group& g = *gs.g;
    gs.tree_at.assign(net_.switch_count(), kNone);
    unsigned roots = 0;
    for (const TreeSwitch& ts : g.tree.switches) {
      if (ts.sw >= net_.switch_count() || gs.tree_at[ts.sw] != kNone) {
        throw std::invalid_argument(group_name(gi) + ": tree switch " + std::to_string(ts.sw) +
                                    " unknown or listed twice");
      }
      TreeNode tn;
      tn.root = !ts.parent.has_value();
      roots += tn.root ? 1U : 0U;
      tn.parent = ts.parent.value_or(kNone);
      tn.children = ts.children;
      std::sort(tn.children.begin(), tn.children.end());
      for (const unsigned c : tn.children) {
        if (c == 0 || c > net_.ports(ts.sw) || c == tn.parent) {
          throw std::invalid_argument(group_name(gi) + ": tree switch " + std::to_string(ts.sw) +
                                      " child port " + std::to_string(c) +
                                      " does not exist or is its parent");
        }
      }
      if (tn.children.empty()) {
        throw std::invalid_argument(group_name(gi) + ": tree switch " + std::to_string(ts.sw) +
                                    " has no children");
      }
      tn.mft = tn.children;
      if (!tn.root) {
        tn.mft.push_back(tn.parent);
        std::sort(tn.mft.begin(), tn.mft.end());
      }
      tn.arrived.assign(tn.children.size(), kNone);
      gs.tree_at[ts.sw] = static_cast<std::uint32_t>(gs.tree.size());
      gs.tree.push_back(std::move(tn));
    }
    if (roots != 1) {
      throw std::invalid_argument(group_name(gi) + ": the tree has " + std::to_string(roots) +
                                  " root switches, not 1");
    }
    for (unsigned r = 0; r < gs.p; ++r) {
      const unsigned n = g.members[r];
      const std::uint32_t ti = gs.tree_at[net_.node_switch(n)];
      if (ti == kNone || !std::binary_search(gs.tree[ti].children.begin(),
                                             gs.tree[ti].children.end(), net_.node_port(n))) {
        throw std::invalid_argument(
            group_name(gi) + ": member " + std::to_string(r) + " (end node " + std::to_string(n) +
            ", switch " + std::to_string(net_.node_switch(n)) + " port " +
            std::to_string(net_.node_port(n)) + ") is not a child port of the tree");
      }
    }
  }

  // --- links and switches -------------------------------------------------

  void send(std::uint32_t link, Cycle ready, const Packet& pkt) {
    Event e;
    e.t = ready;
    e.type = EventType::kTx;
    e.a = link;
    e.pkt = pkt;
    q_.push(e);
  }

  void send_from(unsigned rank, const GroupState& gs, Cycle ready, const Packet& pkt) {
    send(net_.node_link(gs.g->members[rank]), ready, pkt);
  }

  // A packet may enter a directed link only after the previous one's last
  // flit did: one flit per cycle per link, FIFO in the order packets become
  // ready; a NIC's link through its arbiter (nic_kick).
  void transmit(const Event& e) {
    if (e.a < net_.node_link(0)) {
      put_on_link(e.a, std::max(e.t, link_free_[e.a]), e.pkt);
      return;
    }
    const std::uint32_t node = e.a - net_.node_link(0);
    NicTx& tx = nic_[node];
    (e.pkt.kind == PacketKind::kAck ? tx.resp : tx.sends).push_back(e.pkt);
    nic_kick(node, e.t);
  }

  // The NIC's network arbiter (docs/barrier-protocol.md section 6): one
  // packet at a time, alternating between responses (ACKs) and ready sends
  // when both wait, each queue FIFO.
  void nic_kick(std::uint32_t node, Cycle t) {
    NicTx& tx = nic_[node];
    const std::uint32_t link = net_.node_link(node);
    if (tx.resp.empty() && tx.sends.empty()) {
      return;
    }
    if (link_free_[link] > t) {
      if (!tx.kick) {
        tx.kick = true;
        Event k;
        k.t = link_free_[link];
        k.type = EventType::kNicKick;
        k.a = node;
        q_.push(k);
      }
      return;
    }
    const bool resp = !tx.resp.empty() && (tx.sends.empty() || !tx.last_resp);
    auto& from = resp ? tx.resp : tx.sends;
    const Packet pkt = from.front();
    from.erase(from.begin());
    tx.last_resp = resp;
    put_on_link(link, t, pkt);
    if (!tx.resp.empty() || !tx.sends.empty()) {
      nic_kick(node, t);
    }
  }

  void put_on_link(std::uint32_t link, Cycle start, const Packet& pkt) {
    const std::uint32_t flits = t_.flits[static_cast<std::size_t>(pkt.kind)];
    link_free_[link] = start + flits;
    ++traffic_.hops[static_cast<std::size_t>(pkt.kind)];
    const Network::Far& far = net_.far(link);
    if (link >= net_.node_link(0)) {
      ++traffic_.sent[static_cast<std::size_t>(pkt.kind)];
      if (pkt.kind == PacketKind::kRelease && pkt.dst == kNone) {
        root_released(pkt.group, start);
      }
    }
    Event r;
    r.t = start + flits - 1 + far.delay;
    r.pkt = pkt;
    if (far.sw != kNone) {
      r.type = EventType::kRxSwitch;
      r.a = far.sw;
      r.b = far.port;
    } else {
      r.type = EventType::kRxNode;
      r.a = far.node;
    }
    q_.push(r);
  }

  // The switch's enqueue engine spends engine_per_packet cycles on a
  // packet plus engine_per_copy per copy (an absorbed packet
  // engine_absorbed cycles), packets in the order they completed; a copy
  // enqueued in cycle c may leave from c + switch_forward, the i-th copy
  // i × copy_spacing later (its input's read port).
  void at_switch(const Event& e) {
    const unsigned sw = e.a;
    const unsigned in = e.b;
    GroupState& gs = groups_[e.pkt.group];
    if (gs.ring_mode &&
        (e.pkt.kind == PacketKind::kCombArrive || e.pkt.kind == PacketKind::kCombShare ||
         e.pkt.kind == PacketKind::kCombRelease)) {
      ring_at_switch(e, gs);
      return;
    }
    Packet out = e.pkt;
    copies_.clear();
    Cycle extra = 0;
    switch (e.pkt.kind) {
      case PacketKind::kCombArrive:
      case PacketKind::kCombRelease:
        combine(gs, e.pkt, sw, in, out);
        extra = t_.combine;
        break;
      case PacketKind::kRelease:
        if (e.pkt.dst == kNone) {
          for (const unsigned p : tree_node(gs, sw, e.pkt).mft) {
            if (p != in) {
              copies_.push_back(p);
            }
          }
          break;
        }
        [[fallthrough]];
      default: {
        std::uint64_t spread = out.spread;
        copies_.push_back(net_.route(sw, gs.g->members[e.pkt.dst], spread));
        out.spread = static_cast<std::uint32_t>(spread);
        break;
      }
    }
    const Cycle first = std::max(e.t, engine_free_[sw]);
    const auto n = static_cast<Cycle>(copies_.size());
    engine_free_[sw] =
        first + (n == 0 ? t_.engine_absorbed : t_.engine_per_packet + n * t_.engine_per_copy);
    for (std::size_t i = 0; i < copies_.size(); ++i) {
      send(net_.slot(sw, copies_[i]), first + i * t_.copy_spacing + t_.switch_forward + extra, out);
    }
  }

  // docs/group-barrier.md section 9.4: each engine take emits at most one
  // packet, the first take the packet's own copy (a forwarded share) or the
  // first pending emission, then one take per pending emission (the packet
  // is held at the head of its input meanwhile); one that emits nothing
  // (an absorbed arrival, a share at the end of its reach) engine_absorbed.
  void ring_at_switch(const Event& e, GroupState& gs) {
    const unsigned sw = e.a;
    emissions_.clear();
    ring_take(gs, e.pkt, sw, e.b);
    Cycle take = std::max(e.t, engine_free_[sw]);
    if (emissions_.empty()) {
      engine_free_[sw] = take + t_.engine_absorbed;
      return;
    }
    for (const Emission& em : emissions_) {
      const unsigned* ports = em.many != nullptr ? em.many->data() : em.ports.data();
      const std::size_t n = em.many != nullptr ? em.many->size() : em.n;
      for (std::size_t i = 0; i < n; ++i) {
        send(net_.slot(sw, ports[i]), take + i * t_.copy_spacing + t_.switch_forward + t_.combine,
             em.pkt);
      }
      take += t_.engine_per_packet + n * t_.engine_per_copy;
    }
    engine_free_[sw] = take;
  }

  RingNode& ring_node(GroupState& gs, unsigned sw, const Packet& pkt) {
    const std::uint32_t ri = gs.ring_at.empty() ? kNone : gs.ring_at[sw];
    if (ri == kNone) {
      throw std::logic_error(group_name(pkt.group) + " epoch " + std::to_string(pkt.epoch) + ": " +
                             std::string(to_string(pkt.kind)) + " reached switch " +
                             std::to_string(sw) + ", which has no ring entry of the group");
    }
    return gs.ring[ri];
  }

  // done_upto (docs/group-barrier.md section 9.2): every member in and every
  // expected position of phases 0 .. upto heard for the current epoch.
  static bool ring_done(const RingNode& rn, int upto) {
    if (rn.count != rn.children.size()) {
      return false;
    }
    for (int d = 0; d <= upto; ++d) {
      const RingPhaseState& ps = rn.ph[static_cast<std::size_t>(d)];
      if (ps.cfg.valid && (ps.heard[rn.epoch & 1U] & ps.cfg.expect) != ps.cfg.expect) {
        return false;
      }
    }
    return true;
  }

  void emit_share(const Packet& from, const RingNode& rn, unsigned d, std::uint32_t epoch,
                  bool answer) {
    const RingPhaseState& ps = rn.ph[d];
    Emission em;
    em.pkt = from;
    em.pkt.kind = PacketKind::kCombShare;
    em.pkt.round = static_cast<std::uint8_t>(d);
    em.pkt.src = ps.cfg.pos;
    em.pkt.dst = kNone;
    em.pkt.epoch = epoch;
    em.pkt.answer = answer;
    em.pkt.ask = 0;
    em.pkt.spread = 1;
    if (ps.reach_plus > 0) {
      em.ports[em.n++] = ps.cfg.plus;
    }
    if (ps.reach_minus > 0) {
      em.ports[em.n++] = ps.cfg.minus;
    }
    emissions_.push_back(em);
    traffic_.answers += answer ? 1U : 0U;
  }

  // docs/group-barrier.md section 9.3, lossless: members post each epoch
  // once and nothing is lost, so what would be a drop or a re-send there is
  // a model error here.
  void ring_take(GroupState& gs, const Packet& pkt, unsigned sw, unsigned in) {
    RingNode& rn = ring_node(gs, sw, pkt);
    const auto fail = [&](const std::string& why) {
      return std::logic_error(group_name(pkt.group) + " epoch " + std::to_string(pkt.epoch) +
                              ": switch " + std::to_string(sw) + " port " + std::to_string(in) +
                              ": " + why);
    };
    if (pkt.kind == PacketKind::kCombArrive) {
      const auto it = std::lower_bound(rn.children.begin(), rn.children.end(), in);
      if (it == rn.children.end() || *it != in) {
        throw fail("COMB_ARRIVE from a port that is not a member's");
      }
      if (pkt.epoch != rn.epoch) {
        throw fail("COMB_ARRIVE while the entry waits for epoch " + std::to_string(rn.epoch));
      }
      auto& a = rn.arrived[static_cast<std::size_t>(it - rn.children.begin())];
      if (a == pkt.epoch) {
        throw fail("second COMB_ARRIVE from one member");
      }
      a = pkt.epoch;
      ++rn.count;
    } else if (pkt.kind == PacketKind::kCombShare) {
      const unsigned d = pkt.round;
      if (d >= rn.ph.size() || !rn.ph[d].cfg.valid) {
        throw fail("COMB_SHARE of phase " + std::to_string(d) + ", which is not valid here");
      }
      RingPhaseState& ps = rn.ph[d];
      const RingPhase& c = ps.cfg;
      bool plus = false;  // travelling + (it came in by MINUS, checked first)
      if (in == c.minus) {
        plus = true;
      } else if (in != c.plus) {
        throw fail("COMB_SHARE of phase " + std::to_string(d) + " on a port off its ring");
      }
      const unsigned o = pkt.src;
      if (o >= c.len || o == c.pos) {
        throw fail("COMB_SHARE from position " + std::to_string(o) + " (here " +
                   std::to_string(c.pos) + " of " + std::to_string(c.len) + ")");
      }
      const unsigned k = plus ? (c.pos + c.len - o) % c.len : (o + c.len - c.pos) % c.len;
      const unsigned reach = plus ? ps.reach_plus : ps.reach_minus;
      if (k > reach) {
        throw fail("COMB_SHARE " + std::to_string(k) + " hops from its origin, beyond its reach " +
                   std::to_string(reach));
      }
      if (k + 1 <= reach) {
        Emission fwd;
        fwd.pkt = pkt;
        fwd.ports[0] = plus ? c.plus : c.minus;
        fwd.n = 1;
        emissions_.push_back(fwd);
      }
      const std::uint32_t bit = 1U << o;
      if (pkt.epoch == rn.epoch || pkt.epoch == rn.epoch + 1) {
        if ((c.expect & bit) != 0) {
          ps.heard[pkt.epoch & 1U] |= bit;
        }
      } else if (pkt.epoch + 1 == rn.epoch) {
        // Only a share that asks (sent again after a loss, ask >= 1) is
        // answered; this fabric loses nothing, so its first sends (ask 0)
        // never are.
        if (!pkt.answer && pkt.ask >= 1 && c.origin) {
          ps.owe = true;
        }
      } else if (rn.waits && pkt.epoch > rn.epoch) {
        throw fail("COMB_SHARE of an epoch two or more ahead of the entry's " +
                   std::to_string(rn.epoch) + " (the two parities would mix)");
      }
    } else {
      throw fail("COMB_RELEASE reached a ring-mode switch (ring releases go to members only)");
    }
    ring_pending(rn, pkt);
  }

  // The pending emissions, in the order of section 9.4: the own share of the
  // lowest phase that may go, an owed answer, the completion.
  void ring_pending(RingNode& rn, const Packet& from) {
    const auto phases = static_cast<unsigned>(rn.ph.size());
    for (;;) {
      bool emitted = false;
      for (unsigned d = 0; d < phases && !emitted; ++d) {
        RingPhaseState& ps = rn.ph[d];
        if (ps.cfg.origin && !ps.sent && ring_done(rn, static_cast<int>(d) - 1)) {
          ps.sent = true;
          emit_share(from, rn, d, rn.epoch, false);
          emitted = true;
        }
      }
      for (unsigned d = 0; d < phases && !emitted; ++d) {
        RingPhaseState& ps = rn.ph[d];
        if (ps.owe) {
          ps.owe = false;
          emit_share(from, rn, d, rn.epoch - 1, true);
          emitted = true;
        }
      }
      if (emitted) {
        continue;
      }
      bool complete = rn.waits && ring_done(rn, static_cast<int>(phases) - 1);
      for (unsigned d = 0; d < phases && complete; ++d) {
        complete = !rn.ph[d].cfg.origin || rn.ph[d].sent;
      }
      if (!complete) {
        return;
      }
      if (!rn.children.empty()) {
        Emission rel;
        rel.pkt = from;
        rel.pkt.kind = PacketKind::kCombRelease;
        rel.pkt.round = 0;
        rel.pkt.answer = false;
        rel.pkt.src = 0;
        rel.pkt.dst = kNone;
        rel.pkt.epoch = rn.epoch;
        rel.pkt.spread = 1;
        rel.many = &rn.children;
        emissions_.push_back(rel);
      }
      for (RingPhaseState& ps : rn.ph) {
        ps.heard[rn.epoch & 1U] = 0;
        ps.sent = false;
        ps.owe = false;
      }
      rn.count = 0;
      ++rn.epoch;
    }
  }

  TreeNode& tree_node(GroupState& gs, unsigned sw, const Packet& pkt) {
    const std::uint32_t ti = gs.tree_at.empty() ? kNone : gs.tree_at[sw];
    if (ti == kNone) {
      throw std::logic_error(group_name(pkt.group) + " epoch " + std::to_string(pkt.epoch) + ": " +
                             std::string(to_string(pkt.kind)) + " reached switch " +
                             std::to_string(sw) + ", which is not on the group's tree");
    }
    return gs.tree[ti];
  }

  // docs/group-barrier.md section 5, lossless: every packet of the current
  // epoch, none repeated.
  void combine(GroupState& gs, const Packet& pkt, unsigned sw, unsigned in, Packet& out) {
    TreeNode& tn = tree_node(gs, sw, pkt);
    const auto fail = [&](const std::string& why) {
      return std::logic_error(group_name(pkt.group) + " epoch " + std::to_string(pkt.epoch) +
                              ": switch " + std::to_string(sw) + " port " + std::to_string(in) +
                              ": " + why);
    };
    if (pkt.epoch != tn.epoch) {
      throw fail(std::string(to_string(pkt.kind)) + " while the entry waits for epoch " +
                 std::to_string(tn.epoch));
    }
    if (pkt.kind == PacketKind::kCombArrive) {
      const auto it = std::lower_bound(tn.children.begin(), tn.children.end(), in);
      if (it == tn.children.end() || *it != in) {
        throw fail("COMB_ARRIVE from a port that is not a child");
      }
      auto& a = tn.arrived[static_cast<std::size_t>(it - tn.children.begin())];
      if (a == pkt.epoch) {
        throw fail("second COMB_ARRIVE from one child");
      }
      a = pkt.epoch;
      if (++tn.count < tn.children.size()) {
        return;  // absorbed
      }
      if (tn.root) {
        tn.count = 0;
        ++tn.epoch;
        out.kind = PacketKind::kCombRelease;
        copies_ = tn.children;
      } else {
        copies_.push_back(tn.parent);
      }
      return;
    }
    if (tn.root || in != tn.parent || tn.count != tn.children.size()) {
      throw fail("COMB_RELEASE not from the parent of a switch with every child in");
    }
    tn.count = 0;
    ++tn.epoch;
    copies_ = tn.children;
  }

  // --- NICs and hosts -----------------------------------------------------

  [[nodiscard]] unsigned rank_of(const GroupState& gs, unsigned node) const {
    const auto it = std::lower_bound(gs.rank_of.begin(), gs.rank_of.end(),
                                     std::pair<unsigned, unsigned>{node, 0});
    if (it == gs.rank_of.end() || it->first != node) {
      throw std::logic_error("a packet of the group reached end node " + std::to_string(node) +
                             ", not a member");
    }
    return it->second;
  }

  void post(std::uint32_t gi, unsigned rank, Cycle t) {
    GroupState& gs = groups_[gi];
    Member& m = gs.members[rank];
    const std::uint32_t e = m.epoch;
    ++gs.posts[e];
    gs.last_post[e] = std::max(gs.last_post[e], t);
    m.active = true;
    m.post = t;
    const BarrierKind kind = gs.g->spec.kind;
    if (kind == BarrierKind::kSoftware) {
      m.host = t;
      m.round = 0;
      m.round_sent = false;
      host_advance(gi, gs, rank);
      return;
    }
    if (gs.p == 1) {
      complete(gi, rank, t, t_.nic_eject);
      return;
    }
    Packet pkt;
    pkt.group = gi;
    pkt.src = rank;
    pkt.epoch = e;
    const Cycle go = t + t_.nic_inject;
    switch (kind) {
      case BarrierKind::kComb:
        pkt.kind = PacketKind::kCombArrive;
        send_from(rank, gs, go, pkt);
        break;
      case BarrierKind::kMcast:
        if (rank == 0) {
          m.release_sent = false;
          root_try_release(gi, gs, go);
        } else {
          pkt.kind = PacketKind::kArrive;
          pkt.dst = 0;
          send_from(rank, gs, go, pkt);
        }
        break;
      case BarrierKind::kDissemination: {
        m.released = 0;
        m.acks = gs.sends;
        m.heard = 0;
        update_heard(gs, rank);
        release_rounds(gi, gs, rank, go);
        break;
      }
      case BarrierKind::kSoftware:
        break;
    }
  }

  void at_node(const Event& e) {
    const std::uint32_t gi = e.pkt.group;
    GroupState& gs = groups_[gi];
    const unsigned rank = e.pkt.dst != kNone ? e.pkt.dst : rank_of(gs, e.a);
    Member& m = gs.members[rank];
    const std::uint32_t ep = e.pkt.epoch;
    const bool current = m.active && m.epoch == ep;
    switch (e.pkt.kind) {
      case PacketKind::kArrive:
        gs.root_arrivals[ep & 1U] += 1;
        if (current) {
          root_try_release(gi, gs, e.t + t_.root_turnaround);
        }
        break;
      case PacketKind::kRelease:
      case PacketKind::kCombRelease:
        if (!current) {
          throw std::logic_error(group_name(gi) + " epoch " + std::to_string(ep) + ": member " +
                                 std::to_string(rank) + " got a release it does not wait for");
        }
        complete(gi, rank, e.t, t_.nic_eject);
        break;
      case PacketKind::kNotify: {
        Packet ack = e.pkt;
        ack.kind = PacketKind::kAck;
        ack.src = rank;
        ack.dst = e.pkt.src;
        ack.spread = 1;
        send_from(rank, gs, e.t + t_.ack_turnaround, ack);
        ++gs.recv[(std::size_t{ep & 1U} * gs.p + rank) * gs.rounds + e.pkt.round];
        if (current) {
          update_heard(gs, rank);
          release_rounds(gi, gs, rank, e.t + t_.notify_turnaround);
          try_complete(gi, gs, rank, e.t);
        }
        break;
      }
      case PacketKind::kAck:
        if (!current || m.acks == 0) {
          throw std::logic_error(group_name(gi) + " epoch " + std::to_string(ep) + ": member " +
                                 std::to_string(rank) + " got an ACK it does not wait for");
        }
        --m.acks;
        try_complete(gi, gs, rank, e.t);
        break;
      case PacketKind::kHostMessage:
        gs.host_msgs[rank].push_back({ep, e.pkt.round, e.t + t_.nic_eject});
        if (current) {
          host_advance(gi, gs, rank);
        }
        break;
      case PacketKind::kCombArrive:
      case PacketKind::kCombShare:
        throw std::logic_error(group_name(gi) + ": a " + std::string(to_string(e.pkt.kind)) +
                               " reached end node " + std::to_string(e.a));
    }
  }

  void root_try_release(std::uint32_t gi, GroupState& gs, Cycle at) {
    Member& root = gs.members[0];
    if (!root.active || root.release_sent || gs.root_arrivals[root.epoch & 1U] + 1 < gs.p) {
      return;
    }
    root.release_sent = true;
    gs.root_arrivals[root.epoch & 1U] = 0;
    Packet pkt;
    pkt.kind = PacketKind::kRelease;
    pkt.group = gi;
    pkt.src = 0;
    pkt.epoch = root.epoch;
    send_from(0, gs, at, pkt);
  }

  // The root's descriptor completes once its RELEASE went on the link.
  void root_released(std::uint32_t gi, Cycle start) { complete(gi, 0, start, t_.root_eject); }

  void update_heard(GroupState& gs, unsigned rank) {
    Member& m = gs.members[rank];
    const std::uint8_t* r = &gs.recv[(std::size_t{m.epoch & 1U} * gs.p + rank) * gs.rounds];
    while (m.heard < gs.rounds && r[m.heard] == gs.offsets[m.heard].size()) {
      ++m.heard;
    }
  }

  // TE releases round r once rounds 0 .. r - 1 were heard.
  void release_rounds(std::uint32_t gi, GroupState& gs, unsigned rank, Cycle at) {
    Member& m = gs.members[rank];
    while (m.released < gs.rounds && m.released <= m.heard) {
      Packet pkt;
      pkt.kind = PacketKind::kNotify;
      pkt.group = gi;
      pkt.src = rank;
      pkt.epoch = m.epoch;
      pkt.round = static_cast<std::uint8_t>(m.released);
      for (const unsigned off : gs.offsets[m.released]) {
        pkt.dst = (rank + off) % gs.p;
        send_from(rank, gs, at, pkt);
      }
      ++m.released;
    }
  }

  void try_complete(std::uint32_t gi, GroupState& gs, unsigned rank, Cycle t) {
    const Member& m = gs.members[rank];
    if (m.released == gs.rounds && m.heard == gs.rounds && m.acks == 0) {
      std::fill_n(&gs.recv[(std::size_t{m.epoch & 1U} * gs.p + rank) * gs.rounds], gs.rounds, 0);
      complete(gi, rank, t, t_.nic_eject);
    }
  }

  // A host: post this round's messages (o_send each), then notice every
  // message of the round (o_poll each, in the order they became visible),
  // then the next round; messages of later rounds wait.
  void host_advance(std::uint32_t gi, GroupState& gs, unsigned rank) {
    Member& m = gs.members[rank];
    auto& msgs = gs.host_msgs[rank];
    while (m.round < gs.rounds) {
      if (!m.round_sent) {
        Packet pkt;
        pkt.kind = PacketKind::kHostMessage;
        pkt.group = gi;
        pkt.src = rank;
        pkt.epoch = m.epoch;
        pkt.round = static_cast<std::uint8_t>(m.round);
        for (const unsigned off : gs.offsets[m.round]) {
          m.host += t_.o_send;
          pkt.dst = (rank + off) % gs.p;
          send_from(rank, gs, m.host + t_.nic_inject, pkt);
        }
        m.round_sent = true;
      }
      const auto mine = [&](const HostMessage& h) {
        return h.epoch == m.epoch && h.round == m.round;
      };
      const auto n = static_cast<std::size_t>(std::count_if(msgs.begin(), msgs.end(), mine));
      if (n < gs.offsets[m.round].size()) {
        return;
      }
      std::vector<Cycle> v;
      for (const HostMessage& h : msgs) {
        if (mine(h)) {
          v.push_back(h.visible);
        }
      }
      std::sort(v.begin(), v.end());
      for (const Cycle c : v) {
        m.host = std::max(m.host, c) + t_.o_poll;
      }
      msgs.erase(std::remove_if(msgs.begin(), msgs.end(), mine), msgs.end());
      ++m.round;
      m.round_sent = false;
    }
    complete(gi, rank, m.host, 0);
  }

  // The completion unit writes one record at a time, `cycles` each (0: a
  // software host, which needs no CQ entry).
  void complete(std::uint32_t gi, unsigned rank, Cycle ready, std::uint32_t cycles) {
    GroupState& gs = groups_[gi];
    Member& m = gs.members[rank];
    const std::uint32_t e = m.epoch;
    if (gs.posts[e] != gs.p) {
      throw std::logic_error("SAFETY: " + group_name(gi) + " epoch " + std::to_string(e) +
                             ": member " + std::to_string(rank) + " completed with " +
                             std::to_string(gs.posts[e]) + " of " + std::to_string(gs.p) +
                             " members posted");
    }
    Cycle done = ready;
    if (cycles != 0) {
      const unsigned node = gs.g->members[rank];
      done = std::max(ready, cq_free_[node]) + cycles;
      cq_free_[node] = done;
    }
    m.active = false;
    gs.done[rank] = done;
    ++gs.completions[e];
    gs.last_done[e] = std::max(gs.last_done[e], done);
    ++m.epoch;
    if (m.epoch < barriers_) {
      Event ev;
      ev.t = done;
      ev.type = EventType::kPost;
      ev.a = gi;
      ev.b = rank;
      q_.push(ev);
    }
  }

  Network& net_;
  const Timing& t_;
  unsigned barriers_;
  std::vector<GroupState> groups_;
  std::vector<Cycle> link_free_;
  std::vector<Cycle> engine_free_;
  std::vector<Cycle> cq_free_;
  std::vector<NicTx> nic_;
  std::vector<unsigned> copies_;
  std::vector<Emission> emissions_;
  EventQueue q_;
  Traffic traffic_;
};

}  // namespace

unsigned dissemination_rounds(unsigned p, unsigned k) {
  if (p == 0 || k == 0) {
    throw std::invalid_argument("dissemination: p = " + std::to_string(p) +
                                ", k = " + std::to_string(k) + " (both must be at least 1)");
  }
  unsigned r = 0;
  std::uint64_t reach = 1;
  while (reach < p) {
    reach *= k + 1;
    ++r;
  }
  return r;
}

std::vector<unsigned> round_offsets(unsigned p, unsigned k, unsigned round) {
  std::uint64_t step = 1;
  for (unsigned s = 0; s < round; ++s) {
    step *= k + 1;
  }
  std::vector<unsigned> out;
  for (unsigned m = 1; m <= k && m * step < p; ++m) {
    out.push_back(static_cast<unsigned>(m * step));
  }
  return out;
}

BarrierOutcome run_barrier(Network& net, const Group& g, const Timing& t) {
  const std::span<const Group> one(&g, 1);
  Sim sim(net, one, 1, t);
  sim.run();
  BarrierOutcome out;
  out.done = sim.group(0).done;
  out.latency = sim.group(0).last_done[0] - sim.group(0).last_post[0];
  out.traffic = sim.traffic();
  return out;
}

ConcurrentOutcome run_concurrent(Network& net, std::span<const Group> groups, unsigned barriers,
                                 const Timing& t) {
  ConcurrentOutcome out;
  if (barriers == 0 || groups.empty()) {
    return out;
  }
  Sim sim(net, groups, barriers, t);
  sim.run();
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const GroupState& gs = sim.group(gi);
    std::vector<Cycle> lat;
    for (unsigned b = 0; b < barriers; ++b) {
      lat.push_back(gs.last_done[b] - gs.last_post[b]);
      out.end = std::max(out.end, gs.last_done[b]);
    }
    out.latency.push_back(std::move(lat));
    out.last_done.push_back(gs.last_done);
  }
  out.traffic = sim.traffic();
  return out;
}

}  // namespace syncfab::model::collective
