#include <gtest/gtest.h>

#include <sstream>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/net_format.hpp"

namespace syncfab::sm {
namespace {

Fabric parse(const std::string& text) {
  std::istringstream in(text);
  return read_net(in, "t.net");
}

// The error for a malformed file: its message and line.
std::pair<std::string, std::size_t> error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.net");
    EXPECT_EQ(std::string(e.what()).rfind("t.net:" + std::to_string(e.line()) + ": ", 0), 0u)
        << e.what();
    return {e.what(), e.line()};
  }
  return {"no error", 0};
}

void expect_same(const Fabric& a, const Fabric& b) {
  ASSERT_EQ(a.node_count(), b.node_count());
  for (NodeId n = 0; n < a.node_count(); ++n) {
    ASSERT_EQ(a.name(n), b.name(n));
    EXPECT_EQ(a.type(n), b.type(n));
    EXPECT_EQ(a.guid(n), b.guid(n)) << a.name(n);
    ASSERT_EQ(a.num_ports(n), b.num_ports(n)) << a.name(n);
    for (int p = 0; p <= a.num_ports(n); ++p) {
      const auto pp = static_cast<PortNum>(p);
      EXPECT_EQ(a.peer(n, pp), b.peer(n, pp)) << a.name(n) << " port " << p;
      EXPECT_EQ(a.lid(n, pp), b.lid(n, pp)) << a.name(n) << " port " << p;
    }
  }
}

// ibsim's own example (net-examples/net), as ibsim ships it.
const char* kIbsimExample = R"(# Net configuration file example
Switch	8 "Switch1"
[1]	"Hca1"[1]
[2]	"Hca2"[2]
[3]	"Switch2"[3]
[4]	"Switch2"[4]

Switch 8 "Switch2"
[3]	"Switch1"[3]
[4]	"Switch1"[4]

Hca	2 "Hca1"
[1]	"Switch1"[1]

Hca	2 "Hca2"
[2]	"Switch1"[2]
)";

TEST(NetFormat, ReadsIbsimExample) {
  const Fabric f = parse(kIbsimExample);
  ASSERT_EQ(f.node_count(), 4u);
  EXPECT_EQ(f.switch_count(), 2u);
  const NodeId s1 = *f.find("Switch1"), s2 = *f.find("Switch2"), h2 = *f.find("Hca2");
  EXPECT_EQ(f.peer(s1, 4), (PortPeer{s2, 4}));
  EXPECT_EQ(f.peer(h2, 2), (PortPeer{s1, 2}));
  EXPECT_FALSE(f.peer(h2, 1).connected());
  // ibsim's GUID sequence: switches from 0x200000, CAs from 0x100000 + ports + 1.
  EXPECT_EQ(f.guid(s2), 0x200001u);
  EXPECT_EQ(f.guid(h2), 0x100003u);
  EXPECT_EQ(f.port_guid(h2, 2), 0x100005u);
}

// What ibnetdiscover prints for that fabric under ibsim.
const char* kIbnetdiscoverDump = R"(#
# Topology file: generated on Sat Jun 20 14:51:33 2026
#
# Initiated from node 0000000000200000 port 0000000000200000

vendid=0x0
devid=0x0
sysimgguid=0x200001
switchguid=0x200001(200001)
Switch  8 "S-0000000000200001"          # "Switch2" base port 0 lid 3 lmc 0
[3]     "S-0000000000200000"[3]         # "Switch1" lid 1 4xSDR
[4]     "S-0000000000200000"[4]         # "Switch1" lid 1 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x200000
switchguid=0x200000(200000)
Switch  8 "S-0000000000200000"          # "Switch1" base port 0 lid 1 lmc 0
[1]     "H-0000000000100000"[1](100001)                 # "Hca1" lid 2 4xSDR
[2]     "H-0000000000100003"[2](100005)                 # "Hca2" lid 4 4xSDR
[3]     "S-0000000000200001"[3]         # "Switch2" lid 3 4xSDR
[4]     "S-0000000000200001"[4]         # "Switch2" lid 3 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x100003
caguid=0x100003
Ca      2 "H-0000000000100003"          # "Hca2"
[2](100005)     "S-0000000000200000"[2]         # lid 4 lmc 0 "Switch1" lid 1 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x100000
caguid=0x100000
Ca      2 "H-0000000000100000"          # "Hca1"
[1](100001)     "S-0000000000200000"[1]         # lid 2 lmc 0 "Switch1" lid 1 4xSDR
)";

TEST(NetFormat, ReadsIbnetdiscoverOutputWithNamesGuidsAndLids) {
  const Fabric f = parse(kIbnetdiscoverDump);
  const NodeId s1 = *f.find("Switch1"), s2 = *f.find("Switch2");
  const NodeId h1 = *f.find("Hca1"), h2 = *f.find("Hca2");
  EXPECT_EQ(f.guid(s1), 0x200000u);
  EXPECT_EQ(f.guid(s2), 0x200001u);
  EXPECT_EQ(f.guid(h2), 0x100003u);
  EXPECT_EQ(f.lid(s1), 1);
  EXPECT_EQ(f.lid(s2), 3);
  EXPECT_EQ(f.lid(h1, 1), 2);
  EXPECT_EQ(f.lid(h2, 2), 4);
  EXPECT_EQ(f.peer(s1, 2), (PortPeer{h2, 2}));
  EXPECT_EQ(f.peer(s2, 3), (PortPeer{s1, 3}));
}

TEST(NetFormat, RoundTripKeepsEverything) {
  for (const char* spec :
       {"torus:x=3,y=3,z=2,nodes=2", "dragonfly:a=3,p=2,h=1", "fattree:ports=4,levels=3",
        "pruned:pods=2,leaves=2,nodes=2,l2=2,tops=1,paths=2"}) {
    const Fabric f = make_fabric(spec);
    std::ostringstream out;
    write_net(out, f);
    const Fabric g = parse(out.str());
    expect_same(f, g);
    std::ostringstream again;
    write_net(again, g);
    EXPECT_EQ(out.str(), again.str()) << spec;
  }
  // A hand-made fabric with a multi-port HCA, an unconnected port and LIDs
  // that are not in node order.
  Fabric f;
  const NodeId s = f.add_node(NodeType::kSwitch, "core switch", 6, 0xabc);
  const NodeId h = f.add_node(NodeType::kHca, "host-a HCA-1", 2, 0x5000);
  f.connect(s, 6, h, 2);
  f.connect(s, 2, h, 1);
  f.set_lid(h, 2, 7);
  f.assign_lids();
  std::ostringstream out;
  write_net(out, f);
  expect_same(f, parse(out.str()));
  EXPECT_NE(out.str().find("switchguid=0xabc(abc)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("caguid=0x5000\n"), std::string::npos);
  EXPECT_NE(out.str().find("[2](5002)\t\"S-0000000000000abc\"[6]"), std::string::npos);
}

TEST(NetFormat, RejectsUnknownNode) {
  const auto [msg, line] = error_of("Switch 4 \"a\"\n[1] \"b\"[1]\n");
  EXPECT_EQ(line, 2u);
  EXPECT_NE(msg.find("unknown node \"b\""), std::string::npos) << msg;
}

TEST(NetFormat, RejectsPortOutOfRange) {
  {
    const auto [msg, line] =
        error_of("Switch 4 \"a\"\n[1] \"h\"[1]\n[5] \"h\"[2]\n\nHca 2 \"h\"\n");
    EXPECT_EQ(line, 3u);
    EXPECT_NE(msg.find("port 5 out of range"), std::string::npos) << msg;
  }
  {
    const auto [msg, line] =
        error_of("Switch 4 \"a\"\n[1] \"h\"[3]\n\nHca 2 \"h\"\n[2] \"a\"[1]\n");
    EXPECT_EQ(line, 2u);
    EXPECT_NE(msg.find("peer port 3 out of range"), std::string::npos) << msg;
  }
  {
    const auto [msg, line] = error_of("Switch 4 \"a\"\n[0] \"h\"[1]\n");
    EXPECT_EQ(line, 2u);
    EXPECT_NE(msg.find("port 0 out of range"), std::string::npos) << msg;
  }
}

TEST(NetFormat, RejectsAsymmetricLinks) {
  {  // the peer names a different port
    const auto [msg, line] =
        error_of("Switch 4 \"a\"\n[1] \"b\"[2]\n\nSwitch 4 \"b\"\n[2] \"a\"[3]\n");
    EXPECT_EQ(line, 2u);
    EXPECT_NE(msg.find("asymmetric link"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(line 5)"), std::string::npos) << msg;
  }
  {  // the peer does not list the link at all
    const auto [msg, line] = error_of("Switch 4 \"a\"\n[1] \"b\"[2]\n\nSwitch 4 \"b\"\n");
    EXPECT_EQ(line, 2u);
    EXPECT_NE(msg.find("lists nothing on port 2"), std::string::npos) << msg;
  }
}

TEST(NetFormat, RejectsDuplicates) {
  {
    const auto [msg, line] = error_of("Switch 4 \"a\"\n\nSwitch 4 \"a\"\n");
    EXPECT_EQ(line, 3u);
    EXPECT_NE(msg.find("duplicate node id \"a\" (first at line 1)"), std::string::npos) << msg;
  }
  {
    const auto [msg, line] = error_of("Switch 4 \"a\"\n[1] \"b\"[1]\n[1] \"b\"[2]\n");
    EXPECT_EQ(line, 3u);
    EXPECT_NE(msg.find("listed twice"), std::string::npos) << msg;
  }
  {  // two nodes claiming one LID
    const auto [msg, line] = error_of(
        "Switch 4 \"S-1\" # \"x\" base port 0 lid 5 lmc 0\n\n"
        "Switch 4 \"S-2\" # \"y\" base port 0 lid 5 lmc 0\n");
    EXPECT_EQ(line, 3u);
    EXPECT_NE(msg.find("LID 5"), std::string::npos) << msg;
  }
}

TEST(NetFormat, RejectsGarbage) {
  EXPECT_EQ(error_of("Switch x \"a\"\n").second, 1u);
  EXPECT_EQ(error_of("Switch 4 a\n").second, 1u);
  EXPECT_EQ(error_of("\n\n[1] \"a\"[1]\n").second, 3u);
  EXPECT_NE(error_of("Rt 2 \"r\"\n").first.find("router"), std::string::npos);
  EXPECT_NE(error_of("include \"x\"\n").first.find("not supported"), std::string::npos);
  EXPECT_NE(error_of("hello\n").first.find("unrecognised line"), std::string::npos);
  EXPECT_THROW(read_net_file("/nonexistent/fabric.net"), InputError);
}

}  // namespace
}  // namespace syncfab::sm

namespace syncfab::sm {
namespace {

// Descriptions are labels: real fabrics repeat them. A repeated one names
// each node with its id appended; a unique one is the node's name. Both
// resolve, as do ids and GUIDs; a repeated description alone does not.
TEST(NetFormat, RepeatedDescriptionsAreLabels) {
  const Fabric f = parse(
      "switchguid=0x10\nSwitch 4 \"S-1\" # \"leaf\"\n[1] \"H-a\"[1]\n\n"
      "switchguid=0x20\nSwitch 4 \"S-2\" # \"leaf\" base port 0 lid 2 lmc 0\n[1] \"H-b\"[1]\n\n"
      "Ca 1 \"H-a\" # \"host a\"\n[1] \"S-1\"[1]\n\nCa 1 \"H-b\"\n[1] \"S-2\"[1]\n");
  const NodeId s1 = f.resolve("S-1"), s2 = f.resolve("S-2");
  EXPECT_EQ(f.name(s1), "leaf (S-1)");
  EXPECT_EQ(f.name(s2), "leaf (S-2)");
  EXPECT_EQ(f.description(s1), "leaf");
  EXPECT_EQ(f.id(s2), "S-2");
  EXPECT_EQ(f.find("leaf (S-2)"), s2);
  EXPECT_EQ(f.find("0x20"), s2);
  EXPECT_EQ(f.find("leaf"), std::nullopt);
  EXPECT_EQ(f.name(f.resolve("host a")), "host a");
  EXPECT_EQ(f.name(f.resolve("H-b")), "H-b");  // no description: its id
  try {
    (void)f.resolve("leaf");
    ADD_FAILURE() << "a shared description resolved";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("\"leaf\" is shared by 2 nodes (S-1, S-2)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)f.resolve("nope"), FabricError);
}

// A node read from a file keeps its id through a write and a read even when
// the id is not ibnetdiscover's "S-<GUID>" (a hand-edited dump, a GUID line
// left out): the name of a node whose description repeats carries the id.
TEST(NetFormat, RoundTripKeepsTheIdsThatNamesCarry) {
  const Fabric f = parse(
      "switchguid=0x10\nSwitch 4 \"S-1\" # \"leaf\"\n[1] \"H-a\"[1]\n\n"
      "switchguid=0x20\nSwitch 4 \"S-2\" # \"leaf\"\n[1] \"H-b\"[1]\n\n"
      "Ca 1 \"H-a\" # \"host\"\n[1] \"S-1\"[1]\n\nCa 1 \"H-b\" # \"host\"\n[1] \"S-2\"[1]\n");
  std::ostringstream out;
  write_net(out, f);
  const Fabric g = parse(out.str());
  expect_same(f, g);
  EXPECT_EQ(g.name(g.resolve("S-2")), "leaf (S-2)") << out.str();
  EXPECT_EQ(g.name(g.resolve("H-a")), "host (H-a)") << out.str();
}

// A kept id may be the text a generated node's id would be made of (its
// GUID): that node's id is counted on, and both read back as they were.
TEST(NetFormat, KeptIdsAndGuidIdsDoNotCollide) {
  const Fabric f = parse(
      "switchguid=0x2d0001\nSwitch 8 \"S-00000000002d0002\" # \"Switch2\"\n[1] \"Switch1\"[1]\n\n"
      "Switch 6 \"Switch1\"\n[1] \"S-00000000002d0002\"[1]\n");
  ASSERT_EQ(f.guid(f.resolve("Switch1")), 0x2d0002u);  // a GUID line, then counting on
  std::ostringstream out;
  write_net(out, f);
  const Fabric g = parse(out.str());
  expect_same(f, g);
  std::ostringstream again;
  write_net(again, g);
  EXPECT_EQ(out.str(), again.str());
}

// Every name finds its node and survives a write and a read.
void expect_names_round_trip(const Fabric& f) {
  for (NodeId n = 0; n < f.node_count(); ++n) {
    EXPECT_EQ(f.resolve(f.name(n)), n) << f.name(n);
  }
  std::ostringstream out;
  write_net(out, f);
  const Fabric g = parse(out.str());
  expect_same(f, g);
  std::ostringstream again;
  write_net(again, g);
  EXPECT_EQ(out.str(), again.str());
}

// A description that is another node's id is labelled like a repeated one,
// in whichever order the two nodes come.
TEST(NetFormat, DescriptionThatIsAnotherIdIsDisambiguated) {
  const Fabric f = parse(
      "Switch 8 \"S-1\" # \"Switch1\"\n[1] \"Switch1\"[1]\n\n"
      "Switch 8 \"Switch1\"\n[1] \"S-1\"[1]\n");
  EXPECT_EQ(f.name(f.resolve("S-1")), "Switch1 (S-1)");
  EXPECT_EQ(f.name(f.resolve("Switch1")), "Switch1");
  expect_names_round_trip(f);

  const Fabric g = parse(
      "Switch 8 \"Switch1\"\n[1] \"S-1\"[1]\n\n"
      "Switch 8 \"S-1\" # \"Switch1\"\n[1] \"Switch1\"[1]\n");
  EXPECT_EQ(g.name(g.resolve("S-1")), "Switch1 (S-1)");
  expect_names_round_trip(g);
}

// Undescribed nodes whose ids are the GUID ids the writer makes for other
// nodes: their ids travel as descriptions, so no new id may be one of them.
TEST(NetFormat, GuidIdsAreNotWrittenDescriptions) {
  const Fabric f = parse(
      "Switch 8 \"S-0000000000200001\"\n[1] \"S-0000000000200002\"[1]\n\n"
      "Switch 8 \"S-0000000000200002\"\n[1] \"S-0000000000200001\"[1]\n");
  ASSERT_EQ(f.guid(f.resolve("S-0000000000200001")), 0x200000u);
  expect_names_round_trip(f);
}

// Two nodes describe themselves as a third's id; an id that spells another
// node's disambiguated label sends that node back to its id.
TEST(NetFormat, LabelsAndIdsShareOneNamespace) {
  const Fabric f = parse(
      "Switch 8 \"S-1\" # \"Switch1\"\n[1] \"Switch1\"[1]\n\n"
      "Switch 8 \"S-2\" # \"Switch1\"\n[1] \"Switch1\"[2]\n\n"
      "Switch 8 \"Switch1\"\n[1] \"S-1\"[1]\n[2] \"S-2\"[1]\n[3] \"Switch1 (S-2)\"[1]\n\n"
      "Switch 4 \"Switch1 (S-2)\"\n[1] \"Switch1\"[3]\n");
  EXPECT_EQ(f.name(f.resolve("S-1")), "Switch1 (S-1)");
  EXPECT_EQ(f.name(f.resolve("S-2")), "S-2");
  EXPECT_EQ(f.name(f.resolve("Switch1")), "Switch1");
  EXPECT_EQ(f.name(f.resolve("Switch1 (S-2)")), "Switch1 (S-2)");
  expect_names_round_trip(f);
}

// ibnetdiscover -g: chassis lines, "[ext N]" front-panel labels on both
// ends, tabs; a router is refused by its id.
TEST(NetFormat, ChassisGroupingAndExtPorts) {
  const Fabric f = parse(
      "Chassis 1 (guid 0x5442ba00003000)\n\n# Spine Nodes\n\nvendid=0x8f1\ndevid=0x5a31\n"
      "sysimgguid=0x5442ba00003000\t\t# Chassis 1\n"
      "switchguid=0x5442b900003000(5442b900003000)\t# ISR9288 Spine 1 Chip 1\n"
      "Switch\t24 \"S-005442b900003000\"\t\t# \"SFB Voltaire\" base port 0 lid 10 lmc 0\n"
      "[3][ext 7]\t\"H-0008f10403960558\"[1](8f10403960559) \t\t# \"h1\" lid 4 4xSDR\n"
      "\nNon-Chassis Nodes\n\nHostname: x\ncaguid=0x8f10403960558\n"
      "Ca\t2 \"H-0008f10403960558\"\t\t# \"h1\"\n"
      "[1](8f10403960559) \t\"S-005442b900003000\"[3][ext 7]\t\t# lid 4 lmc 0 \"SFB\" lid 10 "
      "4xSDR\n");
  const NodeId sw = f.resolve("SFB Voltaire");
  const NodeId h = f.resolve("h1");
  EXPECT_EQ(f.peer(sw, 3), (PortPeer{h, 1}));
  EXPECT_EQ(f.guid(sw), 0x5442b900003000U);
  EXPECT_EQ(f.lid(h, 1), 4);
  const auto [msg, line] =
      error_of("Switch 4 \"a\"\n\nrtguid=0x10\nRt\t2 \"R-0000000000000010\"\t\t# \"gw\"\n");
  EXPECT_EQ(line, 4u);
  EXPECT_NE(msg.find("router node \"R-0000000000000010\""), std::string::npos) << msg;
}

}  // namespace
}  // namespace syncfab::sm
