// The EFI lower bound (efi_bound.hpp): hand cases where the bound is known
// exactly, every reported cut recounted from its switch set, the bound against
// the best over every switch set and against exhaustive search on tiny
// fabrics, and against every engine's max EFI on random group sets.
#include "syncfab/sm/efi_bound.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/test/seeds.hpp"

namespace syncfab::sm {
namespace {

struct Link {
  SwitchIdx a = 0;
  SwitchIdx b = 0;
};

// Switch-to-switch links, once each (parallel links repeat).
std::vector<Link> switch_links(const Fabric& f) {
  std::vector<Link> out;
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    const NodeId n = f.switch_node(s);
    for (int p = 1; p <= f.num_ports(n); ++p) {
      const PortPeer o = f.peer(n, static_cast<PortNum>(p));
      if (!o.connected() || !f.is_switch(o.node)) {
        continue;
      }
      const SwitchIdx t = f.switch_index(o.node);
      if (s < t || (s == t && p < o.port)) {
        out.push_back({s, t});
      }
    }
  }
  return out;
}

std::vector<std::vector<SwitchIdx>> member_sets(const Fabric& f, const std::vector<Group>& gs) {
  std::vector<std::vector<SwitchIdx>> out;
  out.reserve(gs.size());
  for (const Group& g : gs) {
    out.push_back(member_switches(f, g));
  }
  return out;
}

std::uint32_t ceil_div(std::size_t a, std::size_t b) {
  return b == 0 ? 0 : static_cast<std::uint32_t>((a + b - 1) / b);
}

// Both arguments of efi_lower_bound for the set `in`, counted the slow way.
EfiCut recount(const std::vector<Link>& links, const std::vector<std::vector<SwitchIdx>>& members,
               const std::vector<char>& in) {
  EfiCut c;
  for (const Link& l : links) {
    const int ends = (in[l.a] != 0 ? 1 : 0) + (in[l.b] != 0 ? 1 : 0);
    c.boundary += ends == 1 ? 1 : 0;
    c.inner += ends == 2 ? 1 : 0;
  }
  for (const auto& m : members) {
    const auto inside = static_cast<std::size_t>(
        std::count_if(m.begin(), m.end(), [&](SwitchIdx s) { return in[s] != 0; }));
    if (m.size() < 2 || inside == 0) {
      continue;
    }
    const bool crosses = inside < m.size();
    c.crossing += crosses ? 1 : 0;
    c.demand += crosses ? inside : inside - 1;
  }
  c.bound = std::max(ceil_div(c.crossing, c.boundary), ceil_div(c.demand, c.inner + c.boundary));
  return c;
}

Group group_of(std::uint16_t index, std::vector<NodeId> members) {
  std::sort(members.begin(), members.end());
  return Group{static_cast<Lid>(0xC000 + index), std::move(members)};
}

// Two leaves, one spine: every group with members on both leaves must use
// each leaf's single uplink.
TEST(EfiBound, OneSpineEveryCrossingGroupTakesTheUplink) {
  Fabric f;
  const NodeId l0 = f.add_node(NodeType::kSwitch, "leaf0", 5);
  const NodeId l1 = f.add_node(NodeType::kSwitch, "leaf1", 5);
  const NodeId sp = f.add_node(NodeType::kSwitch, "spine", 2);
  f.connect(l0, 5, sp, 1);
  f.connect(l1, 5, sp, 2);
  std::vector<NodeId> h;
  for (int i = 0; i < 8; ++i) {
    h.push_back(f.add_node(NodeType::kHca, "h" + std::to_string(i), 1));
    f.connect(h.back(), 1, i < 4 ? l0 : l1, static_cast<PortNum>(i % 4 + 1));
  }
  f.assign_lids();
  std::vector<Group> gs;
  for (std::uint16_t k = 0; k < 5; ++k) {
    gs.push_back(group_of(k, {h[k % 4], h[4 + (k + 1) % 4]}));
  }
  gs.push_back(group_of(5, {h[0], h[1]}));  // one leaf: no uplink needed
  const EfiBound b = efi_lower_bound(f, gs);
  EXPECT_EQ(b.switch_links, 5U);
  EXPECT_EQ(b.best.family, "switch");
  EXPECT_EQ(b.best.crossing, 5U);
  EXPECT_EQ(b.best.boundary, 1U);
  // h0 is in groups 0, 4 and 5.
  EXPECT_EQ(b.end_node, 3U);
  EXPECT_EQ(b.all_links, 5U);
  // Every engine reaches it: the bound is exact here.
  const MinHop mh(f);
  McLoad load(f);
  (void)find_mc_engine("FULB-MC").route_all(mh, gs, load);
  EXPECT_EQ(load.stats().max_switch_links, 5U);
}

// A ring of four: groups joining opposite switches split over the two halves
// at best, and the slab through them sees exactly that.
TEST(EfiBound, RingOfFourOppositeGroupsSplitOverTwoSides) {
  const Fabric f = make_fabric("torus:x=4,y=1,z=1,nodes=1");
  std::vector<Group> gs;
  for (std::uint16_t k = 0; k < 7; ++k) {
    gs.push_back(group_of(k, {f.hcas()[0], f.hcas()[2]}));
  }
  const EfiBound b = efi_lower_bound(f, gs);
  EXPECT_EQ(b.switch_links, 4U);  // ceil(7 / 2)
  const bool slab = std::any_of(b.families.begin(), b.families.end(), [](const EfiCut& c) {
    return c.family == "torus slab" && c.bound == 4;
  });
  EXPECT_TRUE(slab) << "the torus slabs were not found";
}

// The structural families are found where they exist and nowhere else.
TEST(EfiBound, FamiliesFoundFromTheStructure) {
  struct Want {
    const char* spec;
    const char* family;
    std::size_t part;  // switches in one part of that family
    bool present;
  };
  const Want wants[] = {
      {"fattree:ports=8,levels=3", "subtree", 8, true},  // a pod: 4 leaves + 4 middle
      {"fattree:ports=8,levels=3", "torus slab", 0, false},
      {"fattree:ports=8,levels=3", "local group", 0, false},
      {"dragonfly:a=4,p=2,h=2", "local group", 4, true},
      {"dragonfly:a=4,p=2,h=2", "subtree", 0, false},
      {"torus:x=5,y=4,z=3,nodes=1", "torus slab", 0, true},
      {"torus:x=5,y=4,z=3,nodes=1", "subtree", 0, false},
      {"pruned:pods=3,leaves=2,nodes=2,l2=2,tops=1,paths=2", "subtree", 4, true},
  };
  for (const Want& w : wants) {
    const Fabric f = make_fabric(w.spec);
    // Every end node in one group with its neighbour in creation order, and
    // one group of the first and last end nodes: something crosses everything.
    std::vector<Group> gs;
    for (std::size_t i = 0; i + 1 < f.hca_count(); ++i) {
      gs.push_back(group_of(static_cast<std::uint16_t>(i), {f.hcas()[i], f.hcas()[i + 1]}));
    }
    std::vector<NodeId> spread;
    for (std::size_t i = 0; i < f.hca_count(); i += 3) {
      spread.push_back(f.hcas()[i]);
    }
    gs.push_back(group_of(static_cast<std::uint16_t>(gs.size()), spread));
    const EfiBound b = efi_lower_bound(f, gs);
    const auto it = std::find_if(b.families.begin(), b.families.end(),
                                 [&](const EfiCut& c) { return c.family == w.family; });
    EXPECT_EQ(it != b.families.end(), w.present) << w.spec << " " << w.family;
    if (w.present && w.part > 0 && it != b.families.end()) {
      EXPECT_EQ(it->switches.size(), w.part) << w.spec << " " << w.family << ": " << it->what;
    }
  }
}

// Every tree each group can have, as link masks: any link set that is a
// tree, holds the member switches and ends only in members (extra branches
// only add load). Exhaustive: tiny fabrics only.
std::vector<std::vector<std::uint32_t>> tree_options(
    const std::vector<Link>& links, std::size_t switches,
    const std::vector<std::vector<SwitchIdx>>& members) {
  const std::size_t e = links.size();
  std::vector<std::vector<std::uint32_t>> options;
  for (const auto& m : members) {
    std::vector<std::uint32_t> trees;
    if (m.size() < 2) {
      trees.push_back(0);
      options.push_back(trees);
      continue;
    }
    for (std::uint32_t mask = 1; mask < (1U << e); ++mask) {
      std::vector<int> degree(switches, 0);
      std::vector<SwitchIdx> parent(switches);
      for (SwitchIdx s = 0; s < switches; ++s) {
        parent[s] = s;
      }
      std::function<SwitchIdx(SwitchIdx)> find = [&](SwitchIdx s) {
        return parent[s] == s ? s : parent[s] = find(parent[s]);
      };
      bool cycle = false;
      std::size_t edges = 0;
      for (std::size_t i = 0; i < e && !cycle; ++i) {
        if ((mask >> i & 1U) == 0) {
          continue;
        }
        ++edges;
        ++degree[links[i].a];
        ++degree[links[i].b];
        const SwitchIdx ra = find(links[i].a);
        const SwitchIdx rb = find(links[i].b);
        cycle = ra == rb;
        parent[ra] = rb;
      }
      if (cycle) {
        continue;
      }
      std::size_t vertices = 0;
      bool ok = true;
      for (SwitchIdx s = 0; s < switches; ++s) {
        const bool member = std::find(m.begin(), m.end(), s) != m.end();
        vertices += degree[s] > 0 ? 1 : 0;
        ok = ok && (!member || degree[s] > 0) && (degree[s] != 1 || member);
      }
      // A forest whose edges span one component: edges = vertices - 1.
      if (ok && edges + 1 == vertices && find(m[0]) == find(m[1])) {
        bool joined = true;
        for (SwitchIdx s : m) {
          joined = joined && find(s) == find(m[0]);
        }
        if (joined) {
          trees.push_back(mask);
        }
      }
    }
    options.push_back(trees);
  }
  return options;
}

// Fewest groups sharing a link over every choice of one tree per group.
std::uint32_t exact_min_max_efi(const std::vector<std::vector<std::uint32_t>>& options,
                                std::size_t e) {
  std::vector<std::uint32_t> load(e, 0);
  std::uint32_t best = UINT32_MAX;
  std::function<void(std::size_t, std::uint32_t)> go = [&](std::size_t g, std::uint32_t cur) {
    if (cur >= best) {
      return;
    }
    if (g == options.size()) {
      best = cur;
      return;
    }
    for (std::uint32_t mask : options[g]) {
      std::uint32_t next = cur;
      for (std::size_t i = 0; i < e; ++i) {
        if ((mask >> i & 1U) != 0) {
          next = std::max(next, ++load[i]);
        }
      }
      go(g + 1, next);
      for (std::size_t i = 0; i < e; ++i) {
        load[i] -= (mask >> i & 1U) != 0 ? 1 : 0;
      }
    }
  };
  go(0, 0);
  return best;
}

std::vector<Group> random_groups(const Fabric& f, std::mt19937_64& rng, std::size_t count,
                                 std::size_t max_size) {
  std::uniform_int_distribution<std::size_t> size(2, max_size);
  std::vector<Group> gs;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<NodeId> hs(f.hcas().begin(), f.hcas().end());
    std::shuffle(hs.begin(), hs.end(), rng);
    hs.resize(std::min(size(rng), hs.size()));
    gs.push_back(group_of(static_cast<std::uint16_t>(i), hs));
  }
  return gs;
}

// Switch-to-switch links the trees hold, summed over the trees (an entry at
// each end).
std::size_t switch_links_used(const Fabric& f, const std::vector<McTree>& trees) {
  std::size_t ends = 0;
  for (const McTree& t : trees) {
    for (const MftEntry& e : t.entries) {
      ends += f.is_switch(f.peer(f.switch_node(e.sw), e.port).node) ? 1 : 0;
    }
  }
  return ends / 2;
}

// The families whose set is the whole fabric with parts contracted: their
// counts are not those of one set S.
bool contracted(const EfiCut& c) { return c.family.starts_with("contracted "); }

// The tree links the "tree sizes" family says the groups need at least.
std::size_t tree_size_demand(const EfiBound& b) {
  for (const EfiCut& c : b.families) {
    if (c.family == "tree sizes") {
      return c.demand;
    }
  }
  return 0;
}

// On tiny fabrics: every reported cut recounts to what it says, the bound is
// at most the best of both arguments over every switch set (a family that
// claims more than any set can prove is miscounted), and at most the exact
// optimum over all tree choices.
TEST(EfiBound, TinyFabricsAgainstEverySetAndTheExactOptimum) {
  const char* const specs[] = {"fattree:ports=4,levels=2",
                               "torus:x=3,y=2,z=1,nodes=1",
                               "dragonfly:a=2,p=1,h=1",
                               "dragonfly:a=3,p=1,h=1",
                               "pruned:pods=2,leaves=2,nodes=1,l2=2,tops=1,paths=1",
                               "torus:x=8,y=1,z=1,nodes=1"};
  for (const std::uint64_t seed : test::seeds({1, 2, 3, 4, 5})) {
    std::mt19937_64 rng(seed);
    for (const char* spec : specs) {
      const Fabric f = make_fabric(spec);
      const std::vector<Link> links = switch_links(f);
      ASSERT_LE(f.switch_count(), 16U) << spec;
      const std::vector<Group> gs = random_groups(f, rng, 2 + rng() % 4, 4);
      const auto members = member_sets(f, gs);
      const EfiBound b = efi_lower_bound(f, gs);
      const MinHop mh(f);
      const EfiBound with_distances = efi_lower_bound(f, gs, &mh);
      const std::string where = std::string(spec) + ", seed " + std::to_string(seed) +
                                "\n  replay: " + test::replay_command(seed);
      EXPECT_GE(with_distances.switch_links, b.switch_links) << where;
      std::uint32_t set_based = 0;  // the families that are one set S each
      for (const EfiCut& c : b.families) {
        if (contracted(c)) {
          EXPECT_LE(c.inner, links.size()) << c.family << ", " << where;
          continue;
        }
        set_based = std::max(set_based, c.bound);
        std::vector<char> in(f.switch_count(), 0);
        for (SwitchIdx s : c.switches) {
          in[s] = 1;
        }
        const EfiCut r = recount(links, members, in);
        EXPECT_EQ(c.crossing, r.crossing) << c.family << " " << c.what << ", " << where;
        EXPECT_EQ(c.boundary, r.boundary) << c.family << " " << c.what << ", " << where;
        EXPECT_EQ(c.demand, r.demand) << c.family << " " << c.what << ", " << where;
        EXPECT_EQ(c.inner, r.inner) << c.family << " " << c.what << ", " << where;
        EXPECT_EQ(c.bound, r.bound) << c.family << " " << c.what << ", " << where;
      }
      std::uint32_t any_set = 0;
      for (std::uint32_t mask = 1; mask < (1U << f.switch_count()); ++mask) {
        std::vector<char> in(f.switch_count(), 0);
        for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
          in[s] = static_cast<char>(mask >> s & 1U);
        }
        any_set = std::max(any_set, recount(links, members, in).bound);
      }
      EXPECT_LE(set_based, any_set) << where;
      if (links.size() <= 12) {
        const auto options = tree_options(links, f.switch_count(), members);
        const std::uint32_t exact = exact_min_max_efi(options, links.size());
        EXPECT_LE(with_distances.switch_links, exact) << where;
        // The tree sizes the distances promise: at most the smallest trees.
        std::size_t smallest = 0;
        for (const auto& trees : options) {
          std::size_t fewest = SIZE_MAX;
          for (std::uint32_t mask : trees) {
            fewest = std::min<std::size_t>(fewest, static_cast<std::size_t>(std::popcount(mask)));
          }
          smallest += fewest;
        }
        for (const EfiCut& c : with_distances.families) {
          if (c.family == "tree sizes") {
            EXPECT_LE(c.demand, smallest) << where;
            EXPECT_EQ(c.inner, links.size()) << where;
          }
          if (contracted(c)) {
            EXPECT_LE(c.demand, smallest) << c.family << ", " << where;
          }
        }
        std::printf(
            "%s seed %llu: %zu groups, bound %u (with distances %u), best over all sets %u, "
            "exact %u\n",
            spec, static_cast<unsigned long long>(seed), gs.size(), b.switch_links,
            with_distances.switch_links, any_set, exact);
      }
    }
  }
}

// Groups of more member switches than the tree sizes look at in full: the
// sampled distances still promise no more links than real trees have.
TEST(EfiBound, LargeGroupsTreeSizesBelowRealTrees) {
  const Fabric f = make_fabric("torus:x=12,y=10,z=10,nodes=1");
  const MinHop mh(f);
  std::vector<Group> gs;
  gs.push_back(group_of(0, {f.hcas().begin(), f.hcas().end()}));
  std::vector<NodeId> odd;
  for (std::size_t i = 1; i < f.hca_count(); i += 2) {
    odd.push_back(f.hcas()[i]);
  }
  gs.push_back(group_of(1, odd));
  const EfiBound b = efi_lower_bound(f, gs, &mh);
  EXPECT_GE(tree_size_demand(b), f.switch_count() - 1 + odd.size() - 1);
  for (const char* engine : {"FULB-MC", "MINIHOP-MC-new"}) {
    McLoad load(f);
    const std::vector<McTree> trees = find_mc_engine(engine).route_all(mh, gs, load);
    EXPECT_GE(switch_links_used(f, trees), tree_size_demand(b)) << engine;
    EXPECT_GE(load.stats().max_switch_links, b.switch_links) << engine;
  }
}

// Every engine's max EFI on random group sets is at least the bound (a cut
// that counts a group it cannot force, or misses a boundary link, fails
// here), switch links and all links alike.
TEST(EfiBound, RandomGroupsNoEngineBelowTheBound) {
  const char* const specs[] = {"fattree:ports=8,levels=3",
                               "fattree:ports=6,levels=2",
                               "pruned:pods=3,leaves=4,nodes=2,l2=2,tops=2,paths=2",
                               "torus:x=6,y=5,z=4,nodes=1",
                               "torus:x=8,y=2,z=1,nodes=2",
                               "dragonfly:a=4,p=2,h=2",
                               "dragonfly:a=6,p=2,h=3"};
  for (const std::uint64_t seed : test::seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    for (const char* spec : specs) {
      const Fabric f = make_fabric(spec);
      const MinHop mh(f);
      const bool dragonfly = std::string(spec).starts_with("dragonfly");
      const std::vector<Group> gs = random_groups(f, rng, 20 + rng() % 60, 2 + rng() % 24);
      const EfiBound b = efi_lower_bound(f, gs, &mh);
      const std::string where = std::string(spec) + ", " + std::to_string(gs.size()) +
                                " groups, bound " + std::to_string(b.switch_links) + " (" +
                                b.best.family + ": " + b.best.what +
                                ")\n  replay: " + test::replay_command(seed);
      EXPECT_GE(b.switch_links, 1U) << where;
      for (const McEngine& e : mc_engines()) {
        if (e.dragonfly_only && !dragonfly) {
          continue;
        }
        McLoad load(f);
        const std::vector<McTree> trees = e.route_all(mh, gs, load);
        const McLoad::Stats s = load.stats();
        EXPECT_GE(s.max_switch_links, b.switch_links) << e.name << " on " << where;
        EXPECT_GE(s.max_all_links, b.all_links) << e.name << " on " << where;
        const std::size_t used = switch_links_used(f, trees);
        EXPECT_GE(used, tree_size_demand(b)) << e.name << " on " << where;
        for (const EfiCut& c : b.families) {
          EXPECT_TRUE(!contracted(c) || used >= c.demand)
              << c.family << ", " << e.name << " on " << where;
        }
      }
    }
  }
}

}  // namespace
}  // namespace syncfab::sm
