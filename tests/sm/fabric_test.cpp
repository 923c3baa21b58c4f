#include <gtest/gtest.h>

#include <set>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::sm {
namespace {

// Shortest paths from switch s to switch t, counting parallel links apart.
std::uint64_t count_shortest_paths(const Fabric& f, const MinHop& mh, SwitchIdx s, SwitchIdx t) {
  if (s == t) {
    return 1;
  }
  std::uint64_t total = 0;
  const NodeId node = f.switch_node(s);
  for (int p = 1; p <= f.num_ports(node); ++p) {
    if (mh.hops_via_to_switch(s, static_cast<PortNum>(p), t) == mh.distance(s, t)) {
      total += count_shortest_paths(f, mh,
                                    f.switch_index(f.peer(node, static_cast<PortNum>(p)).node), t);
    }
  }
  return total;
}

int connected_ports(const Fabric& f, NodeId n) {
  int c = 0;
  for (int p = 1; p <= f.num_ports(n); ++p) {
    c += f.peer(n, static_cast<PortNum>(p)).connected();
  }
  return c;
}

TEST(Fabric, LinksAreSymmetricAndPortsChecked) {
  Fabric f;
  const NodeId s = f.add_node(NodeType::kSwitch, "s", 4);
  const NodeId h = f.add_node(NodeType::kHca, "h", 2);
  f.connect(s, 3, h, 2);
  EXPECT_EQ(f.peer(s, 3), (PortPeer{h, 2}));
  EXPECT_EQ(f.peer(h, 2), (PortPeer{s, 3}));
  EXPECT_FALSE(f.peer(s, 1).connected());
  EXPECT_THROW(f.connect(s, 5, h, 1), FabricError);  // out of range
  EXPECT_THROW(f.connect(s, 0, h, 1), FabricError);  // management port
  EXPECT_THROW(f.connect(s, 3, h, 1), FabricError);  // in use
  EXPECT_THROW(f.add_node(NodeType::kHca, "h", 1), FabricError);
  EXPECT_THROW(f.add_node(NodeType::kSwitch, "big", 255), FabricError);
  EXPECT_EQ(f.find("h"), h);
  EXPECT_FALSE(f.find("nope").has_value());
}

TEST(Fabric, DisconnectRemovesBothEndsAndKeepsIdsNamesAndLids) {
  const Fabric full = make_fabric("fattree:ports=4,levels=2");
  Fabric f = full;
  const NodeId leaf = f.hcas().empty() ? kNoNode : f.peer(f.hcas()[0], 1).node;
  ASSERT_NE(leaf, kNoNode);
  // The leaf's first switch-facing port: a leaf-spine link.
  PortNum up = 0;
  for (int p = 1; p <= f.num_ports(leaf) && up == 0; ++p) {
    const PortPeer o = f.peer(leaf, static_cast<PortNum>(p));
    if (o.connected() && f.is_switch(o.node)) {
      up = static_cast<PortNum>(p);
    }
  }
  ASSERT_NE(up, 0);
  const PortPeer spine = f.peer(leaf, up);
  EXPECT_EQ(f.disconnect(leaf, up), spine);
  EXPECT_FALSE(f.peer(leaf, up).connected());
  EXPECT_FALSE(f.peer(spine.node, spine.port).connected());
  EXPECT_EQ(f.node_count(), full.node_count());
  for (NodeId n = 0; n < f.node_count(); ++n) {
    EXPECT_EQ(f.name(n), full.name(n));
    EXPECT_EQ(f.guid(n), full.guid(n));
    for (int p = 0; p <= f.num_ports(n); ++p) {
      EXPECT_EQ(f.lid(n, static_cast<PortNum>(p)), full.lid(n, static_cast<PortNum>(p)));
      const bool cut = (n == leaf && p == up) || (n == spine.node && p == spine.port);
      if (!cut && p > 0) {
        EXPECT_EQ(f.peer(n, static_cast<PortNum>(p)), full.peer(n, static_cast<PortNum>(p)));
      }
    }
  }
  // One link fewer: the leaf reaches that spine over another spine's pod.
  f.ensure_connected();
  const MinHop mh(f);
  EXPECT_EQ(MinHop(full).distance(f.switch_index(leaf), f.switch_index(spine.node)), 1);
  EXPECT_EQ(mh.distance(f.switch_index(leaf), f.switch_index(spine.node)), 3);
  // The port is free again, and a second pull is refused, naming the port.
  f.connect(leaf, up, spine.node, spine.port);
  EXPECT_EQ(f.peer(leaf, up), spine);
  f.disconnect(leaf, up);
  try {
    f.disconnect(leaf, up);
    ADD_FAILURE() << "a port with no link was disconnected";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("port " + std::to_string(up) + " is not linked"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(f.disconnect(leaf, 0), FabricError);
  EXPECT_THROW(f.disconnect(leaf, static_cast<PortNum>(f.num_ports(leaf) + 1)), FabricError);
  EXPECT_THROW(f.disconnect(static_cast<NodeId>(f.node_count()), 1), FabricError);
}

TEST(Fabric, GuidsFollowIbsimAndLidsAreAssignedInNodeOrder) {
  Fabric f;
  const NodeId s = f.add_node(NodeType::kSwitch, "s", 4);
  const NodeId h1 = f.add_node(NodeType::kHca, "h1", 2);
  const NodeId h2 = f.add_node(NodeType::kHca, "h2", 1);
  f.connect(s, 1, h1, 1);
  f.connect(s, 2, h1, 2);
  f.connect(s, 3, h2, 1);
  f.assign_lids();
  EXPECT_EQ(f.guid(s), 0x200000u);
  EXPECT_EQ(f.guid(h1), 0x100000u);
  EXPECT_EQ(f.port_guid(h1, 2), 0x100002u);
  EXPECT_EQ(f.guid(h2), 0x100003u);  // h1 reserved one GUID per port
  EXPECT_EQ(f.lid(s), 1);
  EXPECT_EQ(f.lid(h1, 1), 2);
  EXPECT_EQ(f.lid(h1, 2), 3);
  EXPECT_EQ(f.lid(h2, 1), 4);
  EXPECT_EQ(f.lid_owner(3).node, h1);
  EXPECT_EQ(f.lid_owner(3).port, 2);
  EXPECT_EQ(f.attach_switch(h2), 0u);
  EXPECT_THROW(f.set_lid(h2, 1, 2), FabricError);       // taken by h1
  EXPECT_THROW(f.set_lid(h2, 1, 0xC000), FabricError);  // multicast range
}

TEST(Fabric, DisconnectedFabricIsNamed) {
  Fabric f;
  const NodeId a = f.add_node(NodeType::kSwitch, "a", 2);
  const NodeId b = f.add_node(NodeType::kSwitch, "b", 2);
  f.add_node(NodeType::kHca, "lonely", 1);
  f.connect(a, 1, b, 1);
  try {
    f.ensure_connected();
    FAIL() << "no error";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("\"lonely\""), std::string::npos) << e.what();
  }
}

TEST(Generators, SmallFatTreeIsTheKPortNTree) {
  const Fabric f = make_fat_tree({4, 3});  // 2*(2^3) = 16 nodes, 5*4 = 20 switches
  EXPECT_EQ(f.hca_count(), 16u);
  EXPECT_EQ(f.switch_count(), 20u);
  for (NodeId s : f.switches()) {
    EXPECT_EQ(connected_ports(f, s), 4) << f.name(s);
  }
  const MinHop mh(f);
  // Any leaf reaches any top switch over exactly one shortest path.
  const SwitchIdx leaf = f.attach_switch(f.hcas()[0]);
  for (SwitchIdx t = 0; t < f.switch_count(); ++t) {
    if (f.name(f.switch_node(t)).rfind("sw-l3", 0) == 0) {
      EXPECT_EQ(mh.distance(leaf, t), 2);
      EXPECT_EQ(count_shortest_paths(f, mh, leaf, t), 1u);
    }
  }
  // Consecutive end nodes share a leaf (rank order).
  EXPECT_EQ(f.attach_switch(f.hcas()[0]), f.attach_switch(f.hcas()[1]));
  EXPECT_NE(f.attach_switch(f.hcas()[1]), f.attach_switch(f.hcas()[2]));
  f.ensure_connected();
}

// Past the unicast LID space the fat tree is still built: every switch and
// end-node port gets a destination index, LIDs run out at 0xBFFF.
TEST(Generators, FatTreePastTheLidSpaceGetsDestinationsWithoutLids) {
  const Fabric big = make_fabric("fattree:ports=64,levels=3");
  EXPECT_EQ(big.hca_count(), 65536U);
  EXPECT_EQ(big.switch_count(), 5120U);
  EXPECT_EQ(big.max_lid(), kLastUnicastLid);
  EXPECT_EQ(big.destination_count(), 70656U);
  EXPECT_EQ(big.dest_count(), 70657U);
  EXPECT_EQ(big.lidless_count(), 70656U - 49151U);
  const NodeId last = big.hcas().back();
  EXPECT_EQ(big.dest(last, 1), 70656U);
  EXPECT_EQ(big.lid(last, 1), 0U);
  EXPECT_EQ(big.dest_owner(70656).node, last);
  EXPECT_EQ(big.lid_owner(kLastUnicastLid).node, big.dest_owner(kLastUnicastLid).node);
  const Fabric f = make_fabric("fattree:ports=56,levels=3");
  EXPECT_EQ(f.hca_count(), 43904U);
  EXPECT_EQ(f.max_lid(), 43904U + 3920U);
  EXPECT_EQ(f.lidless_count(), 0U);
}

TEST(Generators, PaperFabricSizes) {
  const Fabric ft = make_fabric("fattree:ports=40,levels=3");
  EXPECT_EQ(ft.hca_count(), 16000u);
  EXPECT_EQ(ft.switch_count(), 2000u);
  const Fabric bl = make_fabric("pruned:paths=8");
  EXPECT_EQ(bl.hca_count(), 8704u);
  const Fabric tl = make_fabric("pruned:paths=2");
  EXPECT_EQ(tl.hca_count(), 40960u);
  const Fabric to = make_fabric("torus");
  EXPECT_EQ(to.hca_count(), 24000u);
  EXPECT_EQ(to.switch_count(), 12000u);
  const Fabric df = make_fabric("dragonfly:a=18,p=9,h=9");
  EXPECT_EQ(df.hca_count(), 26406u);
  EXPECT_EQ(df.switch_count(), 163u * 18u);
  for (const Fabric* f : {&ft, &bl, &tl, &to, &df}) {
    f->ensure_connected();
    EXPECT_LE(f->max_lid(), kLastUnicastLid);
    EXPECT_EQ(f->max_lid(), f->hca_count() + f->switch_count());
  }
}

TEST(Generators, PrunedFatTreeHasTheRequestedPathCount) {
  for (int paths : {1, 2, 4, 8}) {
    PrunedFatTreeSpec s;
    s.pods = 3;
    s.leaves_per_pod = 4;
    s.nodes_per_leaf = 2;
    s.l2_per_pod = 2;
    s.tops_per_plane = 8 / paths;
    s.paths = paths;
    const Fabric f = make_pruned_fat_tree(s);
    EXPECT_EQ(f.hca_count(), 24u);
    const MinHop mh(f);
    const SwitchIdx leaf = f.attach_switch(f.hcas().back());
    int tops = 0;
    for (SwitchIdx t = 0; t < f.switch_count(); ++t) {
      if (f.name(f.switch_node(t)).rfind("top", 0) != 0) {
        continue;
      }
      ++tops;
      EXPECT_EQ(mh.distance(leaf, t), 2);
      EXPECT_EQ(count_shortest_paths(f, mh, leaf, t), static_cast<std::uint64_t>(paths))
          << "paths=" << paths;
    }
    EXPECT_EQ(tops, 8 / paths * 2);
    for (NodeId n : f.switches()) {
      EXPECT_EQ(connected_ports(f, n), f.num_ports(n)) << f.name(n);
    }
  }
  PrunedFatTreeSpec bad;
  bad.pods = 40;  // 40 x 8 paths = 320 ports on a top switch
  EXPECT_THROW(make_pruned_fat_tree(bad), FabricError);
}

TEST(Generators, PaperPrunedTreesHaveEightAndTwoPaths) {
  for (const auto& [spec, paths] : {std::pair{"pruned:paths=8", 8}, {"pruned:paths=2", 2}}) {
    const Fabric f = make_fabric(spec);
    const MinHop mh(f);
    const SwitchIdx leaf = f.attach_switch(f.hcas()[0]);
    const SwitchIdx top = f.switch_index(*f.find("top0"));
    EXPECT_EQ(count_shortest_paths(f, mh, leaf, top), static_cast<std::uint64_t>(paths)) << spec;
  }
}

TEST(Generators, TorusWrapsAround) {
  const Fabric f = make_torus({4, 3, 2, 2});
  EXPECT_EQ(f.switch_count(), 24u);
  EXPECT_EQ(f.hca_count(), 48u);
  const MinHop mh(f);
  const SwitchIdx a = f.switch_index(*f.find("sw-0-0-0"));
  EXPECT_EQ(mh.distance(a, f.switch_index(*f.find("sw-3-0-0"))), 1);  // wrap in x
  EXPECT_EQ(mh.distance(a, f.switch_index(*f.find("sw-2-1-1"))), 4);
  // Size 2 in z: +z and -z are two parallel links to the same neighbour.
  const NodeId n = *f.find("sw-1-1-0");
  EXPECT_EQ(f.peer(n, 5).node, f.peer(n, 6).node);
  EXPECT_EQ(f.peer(*f.find("node-1-2-1-1"), 1).node, *f.find("sw-1-2-1"));
  const Fabric flat = make_torus({3, 3, 1, 1});
  EXPECT_FALSE(flat.peer(flat.switch_node(0), 5).connected());
  flat.ensure_connected();
}

TEST(Generators, DragonflyJoinsEveryGroupPairOnce) {
  const DragonflySpec s{4, 2, 2};  // 9 groups of 4 switches
  const Fabric f = make_dragonfly(s);
  const int groups = s.a * s.h + 1;
  EXPECT_EQ(f.switch_count(), static_cast<std::size_t>(groups * s.a));
  std::set<std::pair<int, int>> pairs;
  int global = 0;
  for (SwitchIdx i = 0; i < f.switch_count(); ++i) {
    const NodeId n = f.switch_node(i);
    EXPECT_EQ(connected_ports(f, n), s.p + s.a - 1 + s.h);
    for (int p = s.p + s.a; p < s.p + s.a + s.h; ++p) {
      const NodeId o = f.peer(n, static_cast<PortNum>(p)).node;
      const int g1 = static_cast<int>(i) / s.a;
      const int g2 = static_cast<int>(f.switch_index(o)) / s.a;
      EXPECT_NE(g1, g2);
      pairs.emplace(std::min(g1, g2), std::max(g1, g2));
      ++global;
    }
  }
  EXPECT_EQ(global, groups * (groups - 1));  // each link seen from both ends
  EXPECT_EQ(pairs.size(), static_cast<std::size_t>(groups * (groups - 1) / 2));
  const MinHop mh(f);
  for (SwitchIdx a = 0; a < f.switch_count(); ++a) {
    for (SwitchIdx b = 0; b < f.switch_count(); ++b) {
      EXPECT_LE(mh.distance(a, b), 3);
    }
  }
}

TEST(Generators, SpecErrorsNameTheProblem) {
  auto message = [](const char* spec) {
    try {
      make_fabric(spec);
    } catch (const FabricError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("mesh").find("unknown fabric kind"), std::string::npos);
  EXPECT_NE(message("torus:w=3").find("unknown key \"w\""), std::string::npos);
  EXPECT_NE(message("torus:x=three").find("not an integer"), std::string::npos);
  EXPECT_NE(message("fattree:ports=41").find("even"), std::string::npos);
  EXPECT_NE(message("pruned:pods=200,paths=2").find("ports"), std::string::npos);
}

// Sizes are checked before anything is built and before any arithmetic can
// overflow: a fat tree past 2^31 nodes is refused at once with its counts,
// and parameters near INT_MAX name the real (widened) sizes.
TEST(Generators, HugeSpecsAreRefusedBeforeBuilding) {
  auto message = [](const char* spec) {
    try {
      make_fabric(spec);
    } catch (const FabricError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("fattree:ports=254,levels=5").find("exceed the 2147483647 nodes"),
            std::string::npos)
      << message("fattree:ports=254,levels=5");
  EXPECT_NE(message("torus:x=100000,y=6,z=6,nodes=0")
                .find("need unicast tables of 3600000 x 3600000 entries, past the 2^34"),
            std::string::npos)
      << message("torus:x=100000,y=6,z=6,nodes=0");
  EXPECT_NE(message("dragonfly:a=127,p=64,h=64").find("past the 2^34"), std::string::npos)
      << message("dragonfly:a=127,p=64,h=64");
  EXPECT_NE(message("torus:x=2000000000,y=2000000000,z=4").find("exceed 2^31 nodes"),
            std::string::npos);
  EXPECT_NE(message("torus:nodes=2147483647").find("nodes per switch"), std::string::npos);
  EXPECT_NE(message("pruned:nodes=2147483647,l2=2147483647").find("4294967294 ports"),
            std::string::npos)
      << message("pruned:nodes=2147483647,l2=2147483647");
  EXPECT_NE(message("dragonfly:a=2147483647,p=2147483647,h=1").find("4294967294 ports"),
            std::string::npos);
  EXPECT_NE(message("dragonfly:a=20,p=220,h=20").find("ports"), std::string::npos);
}

}  // namespace
}  // namespace syncfab::sm
