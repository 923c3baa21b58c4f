#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"

namespace syncfab::sm {
namespace {

std::vector<std::string> names(const Fabric& f, const Group& g) {
  std::vector<std::string> out;
  for (NodeId n : g.members) {
    out.push_back(f.name(n));
  }
  return out;
}

// 4 leaves x 2 nodes: node-0..node-15 on a 4-port 3-tree (16 end nodes).
const Fabric& tree() {
  static const Fabric f = make_fat_tree({4, 3});
  return f;
}

TEST(GroupPatterns, Grid2DRowsAndColumnsTopologyAware) {
  PatternSpec s = parse_pattern("grid2d:4x4");
  const GroupSet gs = make_groups(tree(), s);
  ASSERT_EQ(gs.groups.size(), 8u);  // 4 rows + 4 columns
  // Rank = col + 4*row; the rows come first.
  EXPECT_EQ(names(tree(), gs.groups[0]),
            (std::vector<std::string>{"node-0", "node-1", "node-2", "node-3"}));
  EXPECT_EQ(names(tree(), gs.groups[4]),
            (std::vector<std::string>{"node-0", "node-4", "node-8", "node-12"}));
  for (std::size_t i = 0; i < gs.groups.size(); ++i) {
    EXPECT_EQ(gs.groups[i].mlid, fmt::kMlidBase + i);
  }
  EXPECT_EQ(gs.single_node_groups, 0u);
}

TEST(GroupPatterns, FourProcessesPerNodeJoinOnce) {
  PatternSpec s = parse_pattern("grid2d:4x8");
  s.processes_per_node = 4;
  const GroupSet gs = make_groups(tree(), s);
  // Rows of 8 consecutive ranks span two nodes; columns of 4 ranks (stride 8)
  // span four nodes.
  ASSERT_EQ(gs.groups.size(), 12u);
  EXPECT_EQ(names(tree(), gs.groups[0]), (std::vector<std::string>{"node-0", "node-1"}));
  EXPECT_EQ(names(tree(), gs.groups[4]),
            (std::vector<std::string>{"node-0", "node-2", "node-4", "node-6"}));
  // 4x4 with 4 per node: each row's four ranks share a node.
  PatternSpec one = parse_pattern("grid2d:4x4");
  one.processes_per_node = 4;
  const GroupSet g1 = make_groups(tree(), one);
  EXPECT_EQ(g1.single_node_groups, 4u);  // the rows: ranks 4r..4r+3 share a node
  EXPECT_EQ(g1.groups.size(), 4u);
}

TEST(GroupPatterns, Grid3DLinesInEveryDimension) {
  const GroupSet gs = make_groups(tree(), parse_pattern("grid3d:2x2x4"));
  // rank = z + 4*(y + 2*x). z-lines: 2*2 = 4, y-lines: 2*4 = 8, x-lines: 8.
  ASSERT_EQ(gs.groups.size(), 20u);
  EXPECT_EQ(names(tree(), gs.groups[0]),
            (std::vector<std::string>{"node-0", "node-1", "node-2", "node-3"}));
  EXPECT_EQ(names(tree(), gs.groups[4]), (std::vector<std::string>{"node-0", "node-4"}));
  EXPECT_EQ(names(tree(), gs.groups[12]), (std::vector<std::string>{"node-0", "node-8"}));
  // Every rank is in exactly three groups.
  std::vector<int> seen(16, 0);
  for (const Group& g : gs.groups) {
    for (NodeId n : g.members) {
      ++seen[std::stoul(tree().name(n).substr(5))];
    }
  }
  for (int c : seen) {
    EXPECT_EQ(c, 3);
  }
}

TEST(GroupPatterns, UnawarePlacementIsASeededShuffle) {
  PatternSpec s = parse_pattern("grid2d:4x4");
  s.placement = Placement::kUnaware;
  s.seed = 7;
  const GroupSet a = make_groups(tree(), s);
  const GroupSet b = make_groups(tree(), s);
  s.seed = 8;
  const GroupSet c = make_groups(tree(), s);
  ASSERT_EQ(a.groups.size(), 8u);
  bool all_same = true, differs_from_aware = false;
  const GroupSet aware = make_groups(tree(), parse_pattern("grid2d:4x4"));
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].members, b.groups[i].members);
    all_same = all_same && a.groups[i].members == c.groups[i].members;
    differs_from_aware = differs_from_aware || a.groups[i].members != aware.groups[i].members;
  }
  EXPECT_FALSE(all_same) << "seeds 7 and 8 gave the same placement";
  EXPECT_TRUE(differs_from_aware);
  // Still a permutation: each node in one row and one column.
  std::multiset<NodeId> rows;
  for (std::size_t i = 0; i < 4; ++i) {
    rows.insert(a.groups[i].members.begin(), a.groups[i].members.end());
  }
  EXPECT_EQ(rows.size(), 16u);
  EXPECT_EQ(std::set<NodeId>(rows.begin(), rows.end()).size(), 16u);
}

TEST(GroupPatterns, RandomGroupsHaveDistinctMembers) {
  PatternSpec s = parse_pattern("random:count=50,size=5");
  s.seed = 3;
  const GroupSet gs = make_groups(tree(), s);
  ASSERT_EQ(gs.groups.size(), 50u);
  for (const Group& g : gs.groups) {
    EXPECT_EQ(g.members.size(), 5u);
    EXPECT_EQ(std::set<NodeId>(g.members.begin(), g.members.end()).size(), 5u);
  }
  EXPECT_EQ(make_groups(tree(), s).groups[17].members, gs.groups[17].members);
}

TEST(GroupPatterns, Errors) {
  EXPECT_THROW(make_groups(tree(), parse_pattern("grid2d:5x4")), FabricError);  // 20 > 16
  EXPECT_THROW(parse_pattern("grid2d:4"), FabricError);
  EXPECT_THROW(parse_pattern("grid3d:2x2"), FabricError);
  EXPECT_THROW(parse_pattern("grid2d:0x4"), FabricError);
  EXPECT_THROW(parse_pattern("random:count=3"), FabricError);
  EXPECT_THROW(parse_pattern("ring:4"), FabricError);
  PatternSpec many = parse_pattern("random:count=16384,size=2");
  try {
    make_groups(tree(), many);
    FAIL() << "no error";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("multicast LID space"), std::string::npos) << e.what();
  }
  many.count = 16383;
  EXPECT_EQ(make_groups(tree(), many).groups.back().mlid, kLastMulticastLid);
}

GroupSet read(const std::string& text, const Fabric& f = tree()) {
  std::istringstream in(text);
  return read_groups(in, "groups.txt", f);
}

std::pair<std::string, std::size_t> error_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "groups.txt");
    return {e.what(), e.line()};
  }
  return {"no error", 0};
}

TEST(GroupsFile, RoundTripAndOptionalMlids) {
  const GroupSet gs = make_groups(tree(), parse_pattern("grid3d:2x2x4"));
  std::ostringstream out;
  write_groups(out, tree(), gs);
  EXPECT_EQ(out.str().substr(0, 34), "0xc000 node-0 node-1 node-2 node-3");
  const GroupSet back = read(out.str());
  ASSERT_EQ(back.groups.size(), gs.groups.size());
  for (std::size_t i = 0; i < gs.groups.size(); ++i) {
    EXPECT_EQ(back.groups[i].mlid, gs.groups[i].mlid);
    EXPECT_EQ(back.groups[i].members, gs.groups[i].members);
  }
  // Without MLIDs: the lowest free ones, after the explicit ones are known.
  const GroupSet mixed =
      read("# comment\nnode-1 node-2\n\n0xC000 node-3 node-4  # tail\nnode-5 node-0\n");
  ASSERT_EQ(mixed.groups.size(), 3u);
  EXPECT_EQ(mixed.groups[0].mlid, 0xC001);
  EXPECT_EQ(mixed.groups[1].mlid, 0xC000);
  EXPECT_EQ(mixed.groups[2].mlid, 0xC002);
  EXPECT_EQ(names(tree(), mixed.groups[2]), (std::vector<std::string>{"node-0", "node-5"}));
}

TEST(GroupsFile, NamesWithSpacesAreQuoted) {
  Fabric f;
  const NodeId s = f.add_node(NodeType::kSwitch, "sw", 4);
  const NodeId a = f.add_node(NodeType::kHca, "node018 HCA-1", 1);
  const NodeId b = f.add_node(NodeType::kHca, "0xbeef", 1);
  f.connect(s, 1, a, 1);
  f.connect(s, 2, b, 1);
  GroupSet gs;
  gs.groups.push_back(Group{0xC005, {a, b}});
  std::ostringstream out;
  write_groups(out, f, gs);
  EXPECT_EQ(out.str(), "0xc005 \"node018 HCA-1\" \"0xbeef\"\n");
  const GroupSet back = read(out.str(), f);
  ASSERT_EQ(back.groups.size(), 1u);
  EXPECT_EQ(back.groups[0].members, (std::vector<NodeId>{a, b}));
  EXPECT_EQ(read("0xbeef sw\n", f).groups[0].mlid, fmt::kMlidBase);  // a name, not an MLID
}

// A quoted word ends at the next '"': a name holding one is written as
// something that reads back as the same node (its id, else its GUID).
TEST(GroupsFile, NamesWithAQuoteAreWrittenAsIdOrGuid) {
  Fabric f;
  const NodeId s = f.add_node(NodeType::kSwitch, "sw", 4, 0x200000);
  const NodeId a = f.add_node(NodeType::kHca, "h-a", 1, 0x100000, "say \"hi\"");
  const NodeId b = f.add_node(NodeType::kHca, "h\"b", 1, 0x100002, "q\"b");
  const NodeId c = f.add_node(NodeType::kHca, "h-c", 1, 0x100004);
  f.connect(s, 1, a, 1);
  f.connect(s, 2, b, 1);
  f.connect(s, 3, c, 1);
  GroupSet gs;
  gs.groups.push_back(Group{0xC005, {a, b, c}});
  std::ostringstream out;
  write_groups(out, f, gs);
  EXPECT_EQ(out.str(), "0xc005 h-a \"0x100002\" h-c\n");
  const GroupSet back = read(out.str(), f);
  ASSERT_EQ(back.groups.size(), 1u);
  EXPECT_EQ(back.groups[0].members, (std::vector<NodeId>{a, b, c}));
}

TEST(GroupsFile, ErrorsNameTheLine) {
  {
    const auto [msg, line] = error_of("node-1 node-2\nnode-3 node-99\n");
    EXPECT_EQ(line, 2u);
    EXPECT_NE(msg.find("groups.txt:2: unknown node \"node-99\""), std::string::npos) << msg;
  }
  {
    const auto [msg, line] = error_of("\n0xc000 node-3\n");
    EXPECT_EQ(line, 2u);
    EXPECT_NE(msg.find("at least two members, this one has 1"), std::string::npos) << msg;
  }
  {
    const auto [msg, line] = error_of("node-1 node-2 node-1\n");
    EXPECT_EQ(line, 1u);
    EXPECT_NE(msg.find("listed twice"), std::string::npos) << msg;
  }
  {
    const auto [msg, line] = error_of("0xc000 node-1 node-2\n0xc000 node-3 node-4\n");
    EXPECT_EQ(line, 2u);
    EXPECT_NE(msg.find("already used at line 1"), std::string::npos) << msg;
  }
  EXPECT_NE(error_of("0x0010 node-1 node-2\n").first.find("outside the multicast range"),
            std::string::npos);
  EXPECT_NE(error_of("0xzz node-1 node-2\n").first.find("bad MLID"), std::string::npos);
  EXPECT_NE(error_of("\"node-1 node-2\n").first.find("unterminated"), std::string::npos);
  std::string many;
  for (std::size_t i = 0; i <= kMulticastLidCount; ++i) {
    many += "node-1 node-2\n";
  }
  const auto [msg, line] = error_of(many);
  EXPECT_EQ(line, kMulticastLidCount + 1);
  EXPECT_NE(msg.find("multicast LID space"), std::string::npos) << msg;
  EXPECT_THROW(read_groups_file("/nonexistent/groups.txt", tree()), InputError);
}

}  // namespace
}  // namespace syncfab::sm
