// Ring-mode combine entries (docs/group-barrier.md "Ring mode"): small tori
// checked entry by entry, refusals by name, and random groups on several
// tori run through the abstract protocol (shares delivered along the
// programmed ports within reach, members arriving one by one): no switch is
// done with a phase before its whole domain arrived, every member's switch
// completes, and each EXPECT covers exactly the switch's next domain.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/sm/combine.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/unicast.hpp"
#include "syncfab/test/seeds.hpp"

namespace syncfab::sm {
namespace {

// The HCA node-x-y-z-e of a make_torus fabric.
NodeId host(const Fabric& f, int x, int y, int z, int e = 0) {
  return f.resolve("node-" + std::to_string(x) + "-" + std::to_string(y) + "-" + std::to_string(z) +
                   "-" + std::to_string(e));
}

SwitchIdx sw_at(const Fabric& f, int x, int y, int z) {
  return f.switch_index(
      f.resolve("sw-" + std::to_string(x) + "-" + std::to_string(y) + "-" + std::to_string(z)));
}

Group group_of(std::vector<NodeId> members) {
  std::ranges::sort(members);
  return Group{.mlid = 0xC005, .members = std::move(members)};
}

const RingCombineNode* find_node(const std::vector<RingCombineNode>& nodes, SwitchIdx s) {
  const auto it = std::ranges::find(nodes, s, &RingCombineNode::sw);
  return it == nodes.end() ? nullptr : &*it;
}

TEST(CombineRings, FourRingByHand) {
  const Fabric f = make_torus({.x = 4, .y = 1, .z = 1, .nodes_per_switch = 1});
  const TorusLayout l = torus_layout(f);
  const auto nodes = combine_rings(f, l, group_of({host(f, 0, 0, 0), host(f, 2, 0, 0)}));
  ASSERT_EQ(nodes.size(), 4U);  // the ring carries shares through every switch
  for (int x = 0; x < 4; ++x) {
    const RingCombineNode* n = find_node(nodes, sw_at(f, x, 0, 0));
    ASSERT_NE(n, nullptr) << x;
    EXPECT_EQ(n->phases, 1);
    const RingPhase& p = n->phase[0];
    EXPECT_TRUE(p.valid);
    EXPECT_EQ(p.dim, 0);
    EXPECT_EQ(p.plus, 1);
    EXPECT_EQ(p.minus, 2);
    EXPECT_EQ(p.pos, x);
    EXPECT_EQ(p.len, 4);
    EXPECT_FALSE(n->phase[1].valid);
    EXPECT_FALSE(n->phase[2].valid);
  }
  const RingCombineNode* s0 = find_node(nodes, sw_at(f, 0, 0, 0));
  const RingCombineNode* s1 = find_node(nodes, sw_at(f, 1, 0, 0));
  const RingCombineNode* s2 = find_node(nodes, sw_at(f, 2, 0, 0));
  const RingCombineNode* s3 = find_node(nodes, sw_at(f, 3, 0, 0));
  EXPECT_EQ(s0->children, (std::vector<PortNum>{7}));
  EXPECT_TRUE(s0->phase[0].origin);
  EXPECT_EQ(s0->phase[0].expect, 0b0100U);
  EXPECT_EQ(s2->children, (std::vector<PortNum>{7}));
  EXPECT_TRUE(s2->phase[0].origin);
  EXPECT_EQ(s2->phase[0].expect, 0b0001U);
  for (const RingCombineNode* relay : {s1, s3}) {
    EXPECT_TRUE(relay->children.empty());
    EXPECT_FALSE(relay->phase[0].origin);
    EXPECT_EQ(relay->phase[0].expect, 0U);
  }
}

// 3 x 2: phase 0 on the x rings (len 3, ports 1/2), phase 1 on the y rings
// (len 2, ports 3/4). Members on (0,0), (1,0) and (2,1): both x rings hold
// members, so every switch sends a phase-1 share and needs phase 0's result.
TEST(CombineRings, ThreeByTwoByHand) {
  const Fabric f = make_torus({.x = 3, .y = 2, .z = 1, .nodes_per_switch = 2});
  const TorusLayout l = torus_layout(f);
  const auto nodes = combine_rings(
      f, l,
      group_of({host(f, 0, 0, 0), host(f, 0, 0, 0, 1), host(f, 1, 0, 0), host(f, 2, 1, 0, 1)}));
  ASSERT_EQ(nodes.size(), 6U);
  struct Want {
    int x, y;
    std::vector<PortNum> children;
    bool origin0;
    std::uint32_t expect0;
    std::uint32_t expect1;
  };
  const std::vector<Want> want = {
      {0, 0, {7, 8}, true, 0b010, 0b10}, {1, 0, {7}, true, 0b001, 0b10},
      {2, 0, {}, false, 0b011, 0},       {0, 1, {}, false, 0b100, 0},
      {1, 1, {}, false, 0b100, 0},       {2, 1, {8}, true, 0b000, 0b01},
  };
  for (const Want& w : want) {
    const RingCombineNode* n = find_node(nodes, sw_at(f, w.x, w.y, 0));
    ASSERT_NE(n, nullptr);
    SCOPED_TRACE("switch " + std::to_string(w.x) + "," + std::to_string(w.y));
    EXPECT_EQ(n->phases, 2);
    EXPECT_EQ(n->children, w.children);
    const RingPhase& p0 = n->phase[0];
    const RingPhase& p1 = n->phase[1];
    EXPECT_TRUE(p0.valid);
    EXPECT_EQ(p0.dim, 0);
    EXPECT_EQ(p0.plus, 1);
    EXPECT_EQ(p0.minus, 2);
    EXPECT_EQ(p0.pos, w.x);
    EXPECT_EQ(p0.len, 3);
    EXPECT_EQ(p0.origin, w.origin0);
    EXPECT_EQ(p0.expect, w.expect0);
    EXPECT_TRUE(p1.valid);
    EXPECT_EQ(p1.dim, 1);
    EXPECT_EQ(p1.plus, 3);
    EXPECT_EQ(p1.minus, 4);
    EXPECT_EQ(p1.pos, w.y);
    EXPECT_EQ(p1.len, 2);
    EXPECT_TRUE(p1.origin);  // every x ring holds a member
    EXPECT_EQ(p1.expect, w.expect1);
  }
}

// One member: the x ring without it carries nothing in phase 0, and its
// switches only relay phase 1 (geometry, no origin, nothing expected).
TEST(CombineRings, OneMemberLeavesRelays) {
  const Fabric f = make_torus({.x = 3, .y = 2, .z = 1, .nodes_per_switch = 1});
  const auto nodes = combine_rings(f, torus_layout(f), group_of({host(f, 0, 0, 0)}));
  ASSERT_EQ(nodes.size(), 6U);
  const RingCombineNode* m = find_node(nodes, sw_at(f, 0, 0, 0));
  EXPECT_TRUE(m->phase[0].origin);
  EXPECT_EQ(m->phase[0].expect, 0U);
  EXPECT_TRUE(m->phase[1].origin);
  EXPECT_EQ(m->phase[1].expect, 0U);  // the other x ring has no member
  const RingCombineNode* n = find_node(nodes, sw_at(f, 1, 0, 0));
  EXPECT_EQ(n->phase[0].expect, 0b001U);  // it sends a phase-1 share: needs phase 0
  EXPECT_TRUE(n->phase[1].origin);
  for (int x = 0; x < 3; ++x) {
    const RingCombineNode* r = find_node(nodes, sw_at(f, x, 1, 0));
    SCOPED_TRACE(x);
    EXPECT_FALSE(r->phase[0].valid);
    EXPECT_TRUE(r->phase[1].valid);
    EXPECT_FALSE(r->phase[1].origin);
    EXPECT_EQ(r->phase[1].expect, 0U);
  }
}

// A dimension of size 1 is left out: y here, so phase 1 runs on z.
TEST(CombineRings, SkipsDimensionsOfSizeOne) {
  const Fabric f = make_torus({.x = 2, .y = 1, .z = 3, .nodes_per_switch = 1});
  const auto nodes = combine_rings(f, torus_layout(f), group_of({host(f, 1, 0, 2)}));
  const RingCombineNode* n = find_node(nodes, sw_at(f, 1, 0, 2));
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->phases, 2);
  EXPECT_EQ(n->phase[1].dim, 2);
  EXPECT_EQ(n->phase[1].plus, 5);
  EXPECT_EQ(n->phase[1].minus, 6);
  EXPECT_EQ(n->phase[1].pos, 2);
  EXPECT_EQ(n->phase[1].len, 3);
}

template <typename E>
std::string refusal(const Fabric& f, const TorusLayout& l, const Group& g) {
  try {
    (void)combine_rings(f, l, g);
  } catch (const E& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(CombineRings, RefusesByName) {
  {
    const Fabric f = make_torus({.x = 33, .y = 2, .z = 1, .nodes_per_switch = 1});
    const std::string m = refusal<FabricError>(f, torus_layout(f), group_of({host(f, 0, 0, 0)}));
    EXPECT_NE(m.find("0xC005"), std::string::npos) << m;
    EXPECT_NE(m.find("dimension 0 have 33 switches"), std::string::npos) << m;
    EXPECT_NE(m.find("COMB_RING_MAX (32)"), std::string::npos) << m;
  }
  {
    const Fabric f = make_torus({.x = 1, .y = 1, .z = 1, .nodes_per_switch = 2});
    const std::string m = refusal<FabricError>(f, torus_layout(f), group_of({host(f, 0, 0, 0)}));
    EXPECT_NE(m.find("no dimension longer than 1"), std::string::npos) << m;
  }
  {
    Fabric f = make_torus({.x = 3, .y = 3, .z = 1, .nodes_per_switch = 1});
    const TorusLayout l = torus_layout(f);
    const NodeId stray = f.add_node(NodeType::kHca, "stray", 1);
    const std::string m = refusal<std::invalid_argument>(f, l, group_of({host(f, 0, 0, 0), stray}));
    EXPECT_NE(m.find("member stray is not an HCA attached"), std::string::npos) << m;
    const std::string s = refusal<std::invalid_argument>(f, l, group_of({f.switch_node(4)}));
    EXPECT_NE(s.find("member sw-1-1-0 is not an HCA"), std::string::npos) << s;
    const std::string e = refusal<std::invalid_argument>(f, l, group_of({}));
    EXPECT_NE(e.find("no members"), std::string::npos) << e;
  }
}

// The abstract protocol on one group. Members arrive one at a time in a
// random order; after each arrival every switch sends what it may until
// nothing changes, shares travelling hop by hop along the programmed
// ports. The oracle's domains come from the coordinates, not from the
// entries.
class Oracle {
 public:
  Oracle(const Fabric& f, const TorusLayout& l, const Group& g,
         const std::vector<RingCombineNode>& nodes)
      : f_(f), l_(l), g_(g), entry_(f.switch_count(), nullptr) {
    for (const RingCombineNode& n : nodes) {
      entry_[n.sw] = &n;
    }
    for (int d = 0; d < 3; ++d) {
      if (l.dims[static_cast<std::size_t>(d)] > 1) {
        dims_.push_back(d);
      }
    }
    member_switches_.resize(f.switch_count());
    for (const NodeId m : g.members) {
      member_switches_[f.attach_switch(m)].push_back(m);
    }
    heard_.assign(f.switch_count(), {});
    sent_.assign(f.switch_count(), {});
  }

  // Members of s's domain j (j = -1: s itself).
  [[nodiscard]] std::vector<NodeId> domain_members(SwitchIdx s, int j) const {
    std::vector<NodeId> out;
    for (const NodeId m : g_.members) {
      const SwitchIdx t = f_.attach_switch(m);
      bool same = true;
      for (int k = j + 1; k < static_cast<int>(dims_.size()); ++k) {
        const auto d = static_cast<std::size_t>(dims_[static_cast<std::size_t>(k)]);
        same = same && l_.coord[t][d] == l_.coord[s][d];
      }
      if (j == -1) {
        same = t == s;
      }
      if (same) {
        out.push_back(m);
      }
    }
    std::ranges::sort(out);
    return out;
  }

  // The switch at position p of s's ring of phase j.
  [[nodiscard]] SwitchIdx ring_at(SwitchIdx s, int j, int p) const {
    auto c = l_.coord[s];
    c[static_cast<std::size_t>(dims_[static_cast<std::size_t>(j)])] = p;
    for (SwitchIdx t = 0; t < f_.switch_count(); ++t) {
      if (l_.coord[t] == c) {
        return t;
      }
    }
    return kNoSwitch;
  }

  // 9.5: own domain j - 1 plus the EXPECT positions' domains j - 1 make up
  // domain j, at every switch that needs phase j (its EXPECT is its word).
  void check_expect_cover(const std::string& ctx) const {
    for (SwitchIdx s = 0; s < f_.switch_count(); ++s) {
      const RingCombineNode* n = entry_[s];
      if (n == nullptr) {
        EXPECT_TRUE(domain_members(s, -1).empty()) << ctx;
        continue;
      }
      for (int j = 0; j < n->phases; ++j) {
        const RingPhase& p = n->phase[static_cast<std::size_t>(j)];
        bool needs = !n->children.empty();
        for (int k = j + 1; k < n->phases; ++k) {
          needs = needs || n->phase[static_cast<std::size_t>(k)].origin;
        }
        if (!needs) {
          EXPECT_EQ(p.expect, 0U) << ctx << " switch " << s << " phase " << j;
          continue;
        }
        std::set<NodeId> got;
        for (const NodeId m : domain_members(s, j - 1)) {
          got.insert(m);
        }
        for (int q = 0; q < p.len; ++q) {
          if ((p.expect >> q & 1U) != 0) {
            const auto dm = domain_members(ring_at(s, j, q), j - 1);
            EXPECT_FALSE(dm.empty()) << ctx << " switch " << s << " phase " << j
                                     << " expects position " << q << ", which has no member";
            got.insert(dm.begin(), dm.end());
          }
        }
        const auto want = domain_members(s, j);
        EXPECT_EQ(std::vector<NodeId>(got.begin(), got.end()), want)
            << ctx << " switch " << s << " phase " << j;
      }
    }
  }

  void arrive(NodeId m) { arrived_.insert(m); }

  [[nodiscard]] bool done(SwitchIdx s, int j) const {
    const RingCombineNode* n = entry_[s];
    bool ok = true;
    for (const NodeId m : member_switches_[s]) {
      ok = ok && arrived_.contains(m);
    }
    for (int k = 0; k <= j && ok; ++k) {
      const RingPhase& p = n->phase[static_cast<std::size_t>(k)];
      if (p.valid) {
        ok = (heard_[s][static_cast<std::size_t>(k)] & p.expect) == p.expect;
      }
    }
    return ok;
  }

  [[nodiscard]] bool complete(SwitchIdx s) const {
    const RingCombineNode* n = entry_[s];
    bool waits = !n->children.empty();
    for (int j = 0; j < n->phases; ++j) {
      const auto ju = static_cast<std::size_t>(j);
      waits = waits || n->phase[ju].expect != 0;
      if (n->phase[ju].origin && !sent_[s][ju]) {
        return false;
      }
    }
    return waits && done(s, n->phases - 1);
  }

  // Sends every share that may go until none can; returns the shares sent.
  int settle(const std::string& ctx) {
    int total = 0;
    for (bool again = true; again;) {
      again = false;
      for (SwitchIdx s = 0; s < f_.switch_count(); ++s) {
        const RingCombineNode* n = entry_[s];
        if (n == nullptr) {
          continue;
        }
        for (int j = 0; j < n->phases; ++j) {
          const auto ju = static_cast<std::size_t>(j);
          if (n->phase[ju].origin && !sent_[s][ju] && done(s, j - 1)) {
            // A share says that the sender's domain j - 1 is in.
            for (const NodeId m : domain_members(s, j - 1)) {
              EXPECT_TRUE(arrived_.contains(m))
                  << ctx << " switch " << s << " sends its share of phase " << j
                  << " before member " << f_.name(m) << " arrived";
            }
            sent_[s][ju] = true;
            send(s, j, ctx);
            again = true;
            ++total;
          }
        }
      }
      check_safety(ctx);
    }
    return total;
  }

  [[nodiscard]] const RingCombineNode* entry(SwitchIdx s) const { return entry_[s]; }

 private:
  void send(SwitchIdx s, int j, const std::string& ctx) {
    const auto ju = static_cast<std::size_t>(j);
    const RingPhase& o = entry_[s]->phase[ju];
    ASSERT_TRUE(o.valid) << ctx << " origin " << s << " phase " << j << " not valid";
    const int reach_plus = o.len / 2;
    const int reach_minus = o.len - 1 - reach_plus;
    for (const int dir : {1, -1}) {
      SwitchIdx cur = s;
      const int reach = dir == 1 ? reach_plus : reach_minus;
      for (int k = 1; k <= reach; ++k) {
        const RingPhase& cp = entry_[cur]->phase[ju];
        const PortPeer next = f_.peer(f_.switch_node(cur), dir == 1 ? cp.plus : cp.minus);
        ASSERT_TRUE(next.connected() && f_.is_switch(next.node)) << ctx;
        cur = f_.switch_index(next.node);
        const RingCombineNode* t = entry_[cur];
        ASSERT_NE(t, nullptr) << ctx << " share of " << s << " phase " << j << " reaches switch "
                              << cur << " without an entry";
        const RingPhase& tp = t->phase[ju];
        ASSERT_TRUE(tp.valid) << ctx << " share reaches switch " << cur << " not valid in " << j;
        ASSERT_EQ(tp.len, o.len) << ctx;
        ASSERT_EQ(next.port, dir == 1 ? tp.minus : tp.plus) << ctx << " switch " << cur;
        ASSERT_EQ(tp.pos, ((o.pos + dir * k) % o.len + o.len) % o.len) << ctx << " switch " << cur;
        if ((tp.expect >> o.pos & 1U) != 0) {
          heard_[cur][ju] |= 1U << o.pos;
        }
      }
    }
  }

  // A member's switch needs every phase: done with phase j there means
  // its whole domain j arrived.
  void check_safety(const std::string& ctx) const {
    for (SwitchIdx s = 0; s < f_.switch_count(); ++s) {
      const RingCombineNode* n = entry_[s];
      if (n == nullptr || n->children.empty()) {
        continue;
      }
      for (int j = 0; j < n->phases && done(s, j); ++j) {
        for (const NodeId m : domain_members(s, j)) {
          EXPECT_TRUE(arrived_.contains(m)) << ctx << " switch " << s << " done with phase " << j
                                            << " before member " << f_.name(m) << " arrived";
        }
      }
    }
  }

  const Fabric& f_;
  const TorusLayout& l_;
  const Group& g_;
  std::vector<const RingCombineNode*> entry_;
  std::vector<int> dims_;
  std::vector<std::vector<NodeId>> member_switches_;
  std::vector<std::array<std::uint32_t, fmt::kCombPhases>> heard_;
  std::vector<std::array<bool, fmt::kCombPhases>> sent_;
  std::set<NodeId> arrived_;
};

TEST(CombineRings, RandomGroupsAgainstTheProtocol) {
  const std::vector<TorusSpec> tori = {{.x = 4, .y = 4, .z = 1, .nodes_per_switch = 2},
                                       {.x = 5, .y = 3, .z = 2, .nodes_per_switch = 1},
                                       {.x = 2, .y = 1, .z = 6, .nodes_per_switch = 2},
                                       {.x = 7, .y = 1, .z = 1, .nodes_per_switch = 3}};
  for (const std::uint64_t seed : test::seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    for (const TorusSpec& spec : tori) {
      const Fabric f = make_torus(spec);
      const TorusLayout l = torus_layout(f);
      std::vector<NodeId> hcas(f.hcas().begin(), f.hcas().end());
      for (int trial = 0; trial < 25; ++trial) {
        std::ranges::shuffle(hcas, rng);
        // Small groups leave most rings empty; large ones fill them.
        const std::size_t size =
            trial % 3 == 0 ? 1 + rng() % 3 : 1 + rng() % static_cast<std::uint64_t>(hcas.size());
        const Group g = group_of({hcas.begin(), hcas.begin() + static_cast<long>(size)});
        const std::string ctx = "torus " + std::to_string(spec.x) + "x" + std::to_string(spec.y) +
                                "x" + std::to_string(spec.z) + " trial " + std::to_string(trial) +
                                "\n  replay: " + test::replay_command(seed) + "\n ";
        const auto nodes = combine_rings(f, l, g);
        Oracle o(f, l, g, nodes);
        o.check_expect_cover(ctx);
        std::vector<NodeId> order = g.members;
        std::ranges::shuffle(order, rng);
        for (const NodeId m : order) {
          o.settle(ctx);
          for (const NodeId w : g.members) {
            EXPECT_FALSE(o.complete(f.attach_switch(w))) << ctx << " complete early";
          }
          o.arrive(m);
        }
        o.settle(ctx);
        for (const NodeId m : g.members) {
          EXPECT_TRUE(o.complete(f.attach_switch(m))) << ctx << " member " << f.name(m);
        }
        if (::testing::Test::HasFailure()) {
          return;
        }
      }
    }
  }
}

}  // namespace
}  // namespace syncfab::sm
