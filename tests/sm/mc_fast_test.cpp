// Speed work on the multicast engines: the vectorised
// root scan against a plain per-switch reference, the root index's early
// hand-over to the scan against the scan, and FULB-MC-G's rip-up with tree
// reuse against the baselines it must not exceed.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/root_index.hpp"
#include "syncfab/test/seeds.hpp"

namespace syncfab::sm {
namespace {

// The definition, one switch at a time: min over s of max over m of d(s, m).
RootChoice reference_roots(const MinHop& mh, const std::vector<SwitchIdx>& ms) {
  RootChoice out;
  int best = kUnreachable;
  std::vector<int> ecc(mh.switch_count(), 0);
  for (SwitchIdx s = 0; s < mh.switch_count(); ++s) {
    for (SwitchIdx m : ms) {
      ecc[s] = std::max<int>(ecc[s], mh.distance(s, m));
    }
    best = std::min(best, ecc[s]);
  }
  out.height = best;
  if (best == kUnreachable) {
    return out;
  }
  for (SwitchIdx s = 0; s < mh.switch_count(); ++s) {
    if (ecc[s] == best) {
      out.candidates.push_back(s);
    }
  }
  return out;
}

std::vector<SwitchIdx> random_switches(const MinHop& mh, std::mt19937_64& rng) {
  std::uniform_int_distribution<SwitchIdx> sw(0, static_cast<SwitchIdx>(mh.switch_count() - 1));
  std::uniform_int_distribution<int> size(1, 41);  // odd and even: the two-row sweep
  std::vector<SwitchIdx> out;
  for (int i = size(rng); i > 0; --i) {
    out.push_back(sw(rng));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

TEST(McFast, VectorisedScanMatchesThePerSwitchDefinition) {
  // Switch counts that are and are not multiples of 16 (the vector width):
  // 80, 30, 17 (9x1x1 + the tail), 42, 480.
  for (const std::uint64_t seed : test::seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    for (const char* spec :
         {"fattree:ports=8,levels=3", "torus:x=6,y=5,z=1,nodes=1", "torus:x=17,y=1,z=1,nodes=1",
          "torus:x=7,y=6,z=1,nodes=2", "torus:x=10,y=8,z=6,nodes=1", "dragonfly:a=6,p=2,h=3"}) {
      const Fabric f = make_fabric(spec);
      const MinHop mh(f);
      for (int i = 0; i < 200; ++i) {
        const std::vector<SwitchIdx> ms = random_switches(mh, rng);
        const RootChoice want = reference_roots(mh, ms);
        const RootChoice got = minimal_height_roots(mh, ms);
        ASSERT_EQ(want.height, got.height)
            << spec << " group " << i << "\n  replay: " << test::replay_command(seed);
        ASSERT_EQ(want.candidates, got.candidates)
            << spec << " group " << i << "\n  replay: " << test::replay_command(seed);
      }
    }
  }
}

TEST(McFast, IndexHandsSpreadTorusGroupsToTheScanWithTheSameRoots) {
  // A torus has no twins: scattered groups take the planner's early exit,
  // clustered ones the index walk; both must give the scan's roots.
  for (const std::uint64_t seed : test::seeds({1, 2, 3})) {
    std::mt19937_64 rng(seed);
    const Fabric f = make_fabric("torus:x=10,y=8,z=6,nodes=2");
    const MinHop mh(f);
    const RootIndex index(mh);
    ASSERT_EQ(index.class_count(), mh.switch_count());
    std::uniform_int_distribution<std::size_t> hca(0, f.hca_count() - 1);
    for (int i = 0; i < 300; ++i) {
      std::vector<SwitchIdx> ms;
      const bool clustered = i % 2 == 0;
      const std::size_t first = hca(rng);
      for (std::size_t k = 0; k < 3 + static_cast<std::size_t>(i % 40); ++k) {
        ms.push_back(f.attach_switch(f.hcas()[clustered ? (first + k) % f.hca_count() : hca(rng)]));
      }
      std::sort(ms.begin(), ms.end());
      ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
      const RootChoice want = reference_roots(mh, ms);
      const RootChoice got = index.roots(ms);
      ASSERT_EQ(want.height, got.height)
          << "group " << i << "\n  replay: " << test::replay_command(seed);
      ASSERT_EQ(want.candidates, got.candidates)
          << "group " << i << "\n  replay: " << test::replay_command(seed);
    }
  }
}

// FULB-MC-G's target: never above the better of MINIHOP-MC-new and
// SSSP-MC-new, every tree valid, the load in step with the trees.
TEST(McFast, FulbMcGNeverAboveTheBestBaselineOnDenseGroupSets) {
  for (const std::uint64_t seed : test::seeds({1, 2})) {
    for (const char* spec :
         {"dragonfly:a=6,p=3,h=3", "fattree:ports=8,levels=3", "torus:x=6,y=5,z=4,nodes=2",
          "pruned:pods=3,leaves=4,nodes=2,l2=2,tops=2,paths=4"}) {
      const Fabric f = make_fabric(spec);
      const MinHop mh(f);
      for (const char* pattern : {"grid3d:4x4x4", "random:count=300,size=8"}) {
        for (const Placement pl : {Placement::kAware, Placement::kUnaware}) {
          PatternSpec p = parse_pattern(pattern);
          p.placement = pl;
          p.processes_per_node = 4;
          p.seed = seed;
          const GroupSet gs = make_groups(f, p);
          auto max_efi = [&](std::string_view engine, std::vector<McTree>* out) {
            McLoad load(f);
            std::vector<McTree> trees = find_mc_engine(engine).route_all(mh, gs.groups, load);
            McLoad again(f);
            for (const McTree& t : trees) {
              again.add(t);
            }
            EXPECT_EQ(again.histogram(), load.histogram()) << engine << ": load out of step";
            if (out != nullptr) {
              *out = std::move(trees);
            }
            return load.stats().max_switch_links;
          };
          std::vector<McTree> g;
          const std::uint32_t best =
              std::min(max_efi("MINIHOP-MC-new", nullptr), max_efi("SSSP-MC-new", nullptr));
          const std::uint32_t got = max_efi("FULB-MC-G", &g);
          const std::string where = std::string(spec) + " " + pattern +
                                    (pl == Placement::kAware ? " aware" : " unaware") +
                                    "\n  replay: " + test::replay_command(seed);
          EXPECT_LE(got, best) << where;
          for (std::size_t i = 0; i < g.size(); ++i) {
            ASSERT_EQ(check_tree(mh, gs.groups[i], g[i]), "") << "group " << i << " " << where;
          }
        }
      }
    }
  }
}

// Regression: the benchmark's torus grid2d:240x100 ppn 1 aware in small
// (rows of 4 whole x-rings, columns every 4th y over all z). Once the root
// tie-break let MINIHOP-MC-new's compact dimension-ordered trees reach 3
// there, FULB-MC-G on FULB-MC's own trees (which spread over about twice
// the links) stayed at 5, and here at 4 and 3 against 3 and 2: no single
// group could be moved. The compact first pass meets the target.
TEST(McFast, FulbMcGMeetsMinihopNewOnTorusRowsAndColumns) {
  for (const auto& [spec, pattern, want] :
       {std::tuple{"torus:x=10,y=8,z=8,nodes=2", "grid2d:80x16", 3u},
        std::tuple{"torus:x=10,y=8,z=8,nodes=2", "grid2d:40x32", 3u},
        std::tuple{"torus:x=8,y=8,z=4,nodes=2", "grid2d:64x8", 2u}}) {
    const Fabric f = make_fabric(spec);
    const MinHop mh(f);
    PatternSpec p = parse_pattern(pattern);
    p.placement = Placement::kAware;
    const GroupSet gs = make_groups(f, p);
    auto max_efi = [&](std::string_view engine) {
      McLoad load(f);
      const std::vector<McTree> trees = find_mc_engine(engine).route_all(mh, gs.groups, load);
      for (std::size_t i = 0; i < trees.size(); ++i) {
        EXPECT_EQ(check_tree(mh, gs.groups[i], trees[i]), "") << engine << " group " << i;
      }
      return load.stats().max_all_links;
    };
    const std::string where = std::string(spec) + " " + pattern;
    EXPECT_EQ(max_efi("MINIHOP-MC-new"), want) << where;
    EXPECT_LE(max_efi("FULB-MC-G"), want) << where;
    EXPECT_GT(max_efi("FULB-MC"), want) << where << " (no longer a case that needs the rip-up)";
  }
}

}  // namespace
}  // namespace syncfab::sm
