#include <gtest/gtest.h>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::sm {
namespace {

// a[1] - [1]b[2] - [1]c, plus a parallel a[2]-b[3]; h1 on a[3], h2 on c[2],
// h3 with two ports on b[4] and c[3].
struct Line {
  Fabric f;
  NodeId a, b, c, h1, h2, h3;
  Line() {
    a = f.add_node(NodeType::kSwitch, "a", 4);
    b = f.add_node(NodeType::kSwitch, "b", 4);
    c = f.add_node(NodeType::kSwitch, "c", 4);
    h1 = f.add_node(NodeType::kHca, "h1", 1);
    h2 = f.add_node(NodeType::kHca, "h2", 1);
    h3 = f.add_node(NodeType::kHca, "h3", 2);
    f.connect(a, 1, b, 1);
    f.connect(a, 2, b, 3);
    f.connect(b, 2, c, 1);
    f.connect(h1, 1, a, 3);
    f.connect(h2, 1, c, 2);
    f.connect(h3, 1, b, 4);
    f.connect(h3, 2, c, 3);
    f.assign_lids();
  }
};

TEST(MinHop, HandCheckedLine) {
  Line t;
  const MinHop mh(t.f);
  const SwitchIdx a = t.f.switch_index(t.a), b = t.f.switch_index(t.b), c = t.f.switch_index(t.c);
  EXPECT_EQ(mh.distance(a, c), 2);
  EXPECT_EQ(mh.distance(c, a), 2);
  EXPECT_EQ(mh.distance(b, b), 0);
  const Lid lc = t.f.lid(t.c), lh1 = t.f.lid(t.h1, 1), lh2 = t.f.lid(t.h2, 1);
  const Lid lh3a = t.f.lid(t.h3, 1), lh3b = t.f.lid(t.h3, 2);
  // Column 0 (best port): switch LIDs count switch hops, end nodes one more.
  EXPECT_EQ(mh.hops(a, lc), 2);
  EXPECT_EQ(mh.hops(a, lh2), 3);
  EXPECT_EQ(mh.hops(a, lh1), 1);
  EXPECT_EQ(mh.hops(c, lc), 0);
  EXPECT_EQ(mh.hops(a, lh3a), 2);
  EXPECT_EQ(mh.hops(a, lh3b), 3);
  // Per port: both parallel links of a lead to b; port 3 is h1 only.
  EXPECT_EQ(mh.hops_via(a, 1, lh2), 3);
  EXPECT_EQ(mh.hops_via(a, 2, lh2), 3);
  EXPECT_EQ(mh.hops_via(a, 3, lh2), kUnreachable);
  EXPECT_EQ(mh.hops_via(a, 3, lh1), 1);
  EXPECT_EQ(mh.hops_via(a, 4, lh1), kUnreachable);  // unconnected
  EXPECT_EQ(mh.hops_via(a, 0, lh1), kUnreachable);
  // From b: toward a costs 1 + dist(a, a) + 1 to h1; away from a costs more.
  EXPECT_EQ(mh.hops_via(b, 1, lh1), 2);
  EXPECT_EQ(mh.hops_via(b, 2, lh1), 4);
  EXPECT_EQ(mh.hops_via(b, 4, lh3a), 1);
  EXPECT_EQ(mh.hops_via(b, 4, lh3b), kUnreachable);  // HCAs do not forward
  EXPECT_EQ(mh.hops_via(b, 2, lh3b), 2);
  EXPECT_EQ(mh.hops_via_to_switch(c, 1, a), 2);
  EXPECT_EQ(mh.hops(a, 0), kUnreachable);
  EXPECT_EQ(mh.hops(a, 999), kUnreachable);
}

TEST(MinHop, DisconnectedSwitchesAreUnreachable) {
  Fabric f;
  const NodeId a = f.add_node(NodeType::kSwitch, "a", 2);
  const NodeId b = f.add_node(NodeType::kSwitch, "b", 2);
  f.add_node(NodeType::kSwitch, "c", 2);
  f.connect(a, 1, b, 1);
  f.assign_lids();
  const MinHop mh(f);
  EXPECT_EQ(mh.distance(0, 1), 1);
  EXPECT_EQ(mh.distance(0, 2), kUnreachable);
  EXPECT_EQ(mh.hops(2, f.lid(a)), kUnreachable);
}

TEST(MinHop, TorusDistancesAreSumsOfRingDistances) {
  const TorusSpec s{5, 4, 3, 1};
  const Fabric f = make_torus(s);
  const MinHop mh(f);
  auto ring = [](int a, int b, int n) { return std::min((a - b + n) % n, (b - a + n) % n); };
  for (SwitchIdx i = 0; i < f.switch_count(); ++i) {
    for (SwitchIdx j = 0; j < f.switch_count(); ++j) {
      const int xi = static_cast<int>(i) % 5, yi = static_cast<int>(i) / 5 % 4,
                zi = static_cast<int>(i) / 20;
      const int xj = static_cast<int>(j) % 5, yj = static_cast<int>(j) / 5 % 4,
                zj = static_cast<int>(j) / 20;
      EXPECT_EQ(mh.distance(i, j), ring(xi, xj, 5) + ring(yi, yj, 4) + ring(zi, zj, 3));
    }
  }
}

TEST(MinHop, CompactForTheLargestPaperFabric) {
  const Fabric f = make_fabric("pruned:paths=2");
  const MinHop mh(f);
  // 1,632 switches: the matrix is 2.7 MB; a dense switch x LID x port table
  // would be 1,632 x 42,593 x 161 bytes, about 11 GB.
  EXPECT_LT(mh.memory_bytes(), 4u << 20);
  const SwitchIdx leaf0 = f.attach_switch(f.hcas().front());
  const SwitchIdx leaf_last = f.attach_switch(f.hcas().back());
  EXPECT_EQ(mh.distance(leaf0, leaf_last), 4);  // different pods: up to the top and down
  EXPECT_EQ(mh.hops(leaf0, f.lid(f.hcas().back(), 1)), 5);
}

}  // namespace
}  // namespace syncfab::sm
