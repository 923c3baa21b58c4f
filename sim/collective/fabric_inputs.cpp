#include "fabric_inputs.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "syncfab/sm/combine.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/mc_engines.hpp"

namespace syncfab::tb::collective {

cm::Topology to_topology(const sm::Fabric& fabric, std::uint32_t delay) {
  cm::Topology t;
  t.switch_ports.reserve(fabric.switch_count());
  for (const sm::NodeId s : fabric.switches()) {
    t.switch_ports.push_back(static_cast<unsigned>(fabric.num_ports(s)));
  }
  for (const sm::NodeId s : fabric.switches()) {
    const sm::SwitchIdx a = fabric.switch_index(s);
    for (int p = 1; p <= fabric.num_ports(s); ++p) {
      const sm::PortPeer peer = fabric.peer(s, static_cast<sm::PortNum>(p));
      if (!peer.connected() || !fabric.is_switch(peer.node)) {
        continue;
      }
      const sm::SwitchIdx b = fabric.switch_index(peer.node);
      // Each link once, from its lower (switch, port) end.
      if (a < b || (a == b && p < peer.port)) {
        t.links.push_back({a, static_cast<unsigned>(p), b, peer.port, delay});
      }
    }
  }
  t.nodes.reserve(fabric.hca_count());
  for (const sm::NodeId h : fabric.hcas()) {
    const sm::SwitchIdx s = fabric.attach_switch(h);
    if (s == sm::kNoSwitch) {
      throw std::invalid_argument("end node " + fabric.name(h) + " hangs off no switch");
    }
    const sm::PortPeer peer = fabric.peer(h, fabric.attach_port(h));
    t.nodes.push_back({s, peer.port, delay});
  }
  return t;
}

FabricInputs::FabricInputs(const sm::Fabric& fabric, std::uint32_t delay)
    : fabric_(fabric),
      delay_(delay),
      net_(std::make_unique<cm::Network>(to_topology(fabric, delay))),
      node_of_(fabric.node_count(), cm::kNone) {
  for (std::size_t i = 0; i < fabric.hca_count(); ++i) {
    node_of_[fabric.hcas()[i]] = static_cast<std::uint32_t>(i);
  }
}

unsigned FabricInputs::node_of(sm::NodeId hca) const {
  if (hca >= node_of_.size() || node_of_[hca] == cm::kNone) {
    throw std::invalid_argument("node " + std::to_string(hca) + " is not an end node");
  }
  return node_of_[hca];
}

const sm::MinHop& FabricInputs::minhop() {
  if (!mh_) {
    mh_ = std::make_unique<sm::MinHop>(fabric_);
  }
  return *mh_;
}

cm::GroupTree FabricInputs::tree(const std::string& mc, const std::vector<unsigned>& members) {
  return trees(mc, {members}).front();
}

std::vector<cm::GroupTree> FabricInputs::trees(
    const std::string& mc, const std::vector<std::vector<unsigned>>& member_sets) {
  std::vector<sm::Group> groups;
  for (const auto& members : member_sets) {
    sm::Group g;
    g.mlid = next_mlid_;
    next_mlid_ = next_mlid_ == sm::kLastMulticastLid ? fmt::kMlidBase : next_mlid_ + 1U;
    for (const unsigned m : members) {
      g.members.push_back(fabric_.hcas()[m]);
    }
    std::sort(g.members.begin(), g.members.end());
    groups.push_back(std::move(g));
  }
  sm::McLoad load(fabric_);
  const std::vector<sm::McTree> routed = sm::find_mc_engine(mc).route_all(minhop(), groups, load);
  std::vector<cm::GroupTree> out;
  out.reserve(routed.size());
  for (std::size_t i = 0; i < routed.size(); ++i) {
    out.push_back(tree_of(groups[i], routed[i]));
  }
  return out;
}

cm::GroupTree FabricInputs::tree_of(const sm::Group& group, const sm::McTree& tree) const {
  cm::GroupTree out;
  for (const sm::CombineNode& n : sm::combine_tree(fabric_, group, tree)) {
    cm::TreeSwitch ts;
    ts.sw = n.sw;
    if (!n.root) {
      ts.parent = n.parent;
    }
    ts.children.assign(n.children.begin(), n.children.end());
    out.switches.push_back(std::move(ts));
  }
  return out;
}

const sm::TorusLayout* FabricInputs::torus_layout() {
  if (!torus_tried_) {
    torus_tried_ = true;
    try {
      torus_ = std::make_unique<sm::TorusLayout>(sm::torus_layout(fabric_));
    } catch (const sm::FabricError& e) {
      not_torus_ = e.what();
    }
  }
  return torus_.get();
}

cm::GroupRings FabricInputs::rings(const std::vector<unsigned>& members) {
  if (torus_layout() == nullptr) {
    throw sm::FabricError("ring mode needs a torus: " + not_torus_);
  }
  sm::Group g;
  g.mlid = next_mlid_;
  next_mlid_ = next_mlid_ == sm::kLastMulticastLid ? fmt::kMlidBase : next_mlid_ + 1U;
  for (const unsigned m : members) {
    g.members.push_back(fabric_.hcas()[m]);
  }
  std::sort(g.members.begin(), g.members.end());
  cm::GroupRings out;
  for (const sm::RingCombineNode& n : sm::combine_rings(fabric_, *torus_, g)) {
    cm::RingSwitch rs;
    rs.sw = n.sw;
    rs.children.assign(n.children.begin(), n.children.end());
    for (int d = 0; d < n.phases; ++d) {
      const sm::RingPhase& p = n.phase[static_cast<std::size_t>(d)];
      rs.phases.push_back({.valid = p.valid,
                           .plus = p.plus,
                           .minus = p.minus,
                           .pos = static_cast<unsigned>(p.pos),
                           .len = static_cast<unsigned>(p.len),
                           .origin = p.origin,
                           .expect = p.expect});
    }
    out.phases = static_cast<unsigned>(n.phases);
    out.switches.push_back(std::move(rs));
  }
  return out;
}

std::uint64_t FabricInputs::bound(const std::vector<unsigned>& members, const cm::Timing& t) {
  std::vector<sm::SwitchIdx> sws;
  sws.reserve(members.size());
  for (const unsigned m : members) {
    sws.push_back(fabric_.attach_switch(fabric_.hcas()[m]));
  }
  std::sort(sws.begin(), sws.end());
  sws.erase(std::unique(sws.begin(), sws.end()), sws.end());
  unsigned hops = 0;
  if (const sm::TorusLayout* torus = torus_layout()) {
    // On a torus the shortest path is the sum of the ring distances: no
    // switch x switch table (a gigabyte at 32,768 switches).
    std::vector<std::array<int, 3>> c;
    c.reserve(sws.size());
    for (const sm::SwitchIdx s : sws) {
      c.push_back(torus->coord[s]);
    }
    const auto ring = [&](int a, int b, int len) {
      const int d = a > b ? a - b : b - a;
      return std::min(d, len - d);
    };
    for (std::size_t i = 0; i < c.size(); ++i) {
      for (std::size_t j = i + 1; j < c.size(); ++j) {
        const int h = ring(c[i][0], c[j][0], torus->dims[0]) +
                      ring(c[i][1], c[j][1], torus->dims[1]) +
                      ring(c[i][2], c[j][2], torus->dims[2]);
        hops = std::max(hops, static_cast<unsigned>(h));
      }
    }
  } else {
    const sm::MinHop& mh = minhop();
    for (std::size_t i = 0; i < sws.size(); ++i) {
      for (std::size_t j = i + 1; j < sws.size(); ++j) {
        hops = std::max<unsigned>(hops, mh.distance(sws[i], sws[j]));
      }
    }
  }
  constexpr std::uint64_t kNicInject = 5;
  constexpr std::uint64_t kNicEject = 5;
  const std::uint64_t links = hops + 2;
  return links * delay_ + (links - 1) * t.switch_forward + kNicInject + kNicEject;
}

std::vector<unsigned> draw_members(const FabricInputs& in, std::size_t p, std::uint64_t seed) {
  if (p == 0) {
    throw std::invalid_argument("p = 0: an empty member set");
  }
  if (p > in.nodes()) {
    throw std::invalid_argument("p = " + std::to_string(p) + " is larger than the fabric's " +
                                std::to_string(in.nodes()) + " end nodes");
  }
  sm::PatternSpec ps;
  ps.kind = sm::PatternSpec::Kind::kRandom;
  ps.count = 1;
  ps.size = static_cast<int>(p);
  ps.seed = seed;
  const sm::GroupSet gs = sm::make_groups(in.fabric(), ps);
  std::vector<unsigned> out;
  out.reserve(p);
  for (const sm::NodeId n : gs.groups.front().members) {
    out.push_back(in.node_of(n));
  }
  return out;
}

}  // namespace syncfab::tb::collective
