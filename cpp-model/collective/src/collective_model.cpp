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
    if (gs.p > 1) {
      setup_tree(gi, gs);
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
        throw std::logic_error(group_name(gi) + ": a COMB_ARRIVE reached end node " +
                               std::to_string(e.a));
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
