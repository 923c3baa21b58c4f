// End-to-end tests of syncfab-route: runs the built tool on small fabrics and
// checks its output folder against the library (the same engines rerun here)
// and against the files themselves parsed independently of the writers; and
// every bad-input case: one clear line, exit status 1, no output folder.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "syncfab/sm/efi_bound.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/mcfdbs.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/net_format.hpp"
#include "syncfab/sm/port_groups.hpp"
#include "syncfab/sm/route_stats.hpp"
#include "syncfab/sm/unicast.hpp"
#include "syncfab/sm/unicast_engines.hpp"

#ifndef SYNCFAB_ROUTE_BIN
#error "SYNCFAB_ROUTE_BIN must name the syncfab-route executable"
#endif

namespace syncfab::sm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string l;
  while (std::getline(ss, l)) {
    out.push_back(l);
  }
  return out;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return q + "'";
}

struct RunResult {
  int status = -1;
  std::string out;
  std::string err;
};

// A scratch folder per test, removed afterwards.
class RouteToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("syncfab-route-test-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) {
      fs::remove_all(dir_);
    } else {
      std::fprintf(stderr, "kept %s for inspection\n", dir_.c_str());
    }
  }

  RunResult run(const std::vector<std::string>& args) {
    std::string cmd = quote(SYNCFAB_ROUTE_BIN);
    for (const std::string& a : args) {
      cmd += " " + quote(a);
    }
    const fs::path out = dir_ / "tool.stdout";
    const fs::path err = dir_ / "tool.stderr";
    cmd += " >" + quote(out.string()) + " 2>" + quote(err.string());
    const int raw = std::system(cmd.c_str());
    RunResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    fs::remove(out);
    fs::remove(err);
    return r;
  }

  // Bad input: exit 1, one "syncfab-route: error: ..." line naming the
  // problem, and neither the output folder nor a staging sibling exists.
  void expect_refused(const std::vector<std::string>& args, const std::string& message) {
    const fs::path out = dir_ / "out";
    std::vector<std::string> full = args;
    full.insert(full.end(), {"--out", out.string(), "--quiet"});
    const RunResult r = run(full);
    EXPECT_EQ(r.status, 1) << r.err;
    const auto err_lines = lines_of(r.err);
    ASSERT_EQ(err_lines.size(), 1U) << r.err;
    EXPECT_EQ(err_lines[0].rfind("syncfab-route: error: ", 0), 0U) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << "expected \"" << message << "\" in: " << r.err;
    EXPECT_FALSE(fs::exists(out)) << "output folder written despite bad input";
    for (const auto& e : fs::directory_iterator(dir_)) {
      EXPECT_EQ(e.path().filename().string().find(".out."), std::string::npos)
          << "staging folder left behind: " << e.path();
    }
  }

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  fs::path dir_;
};

// GUID -> node name, read from the net file's text: switchguid=/caguid= lines
// name the next node header, whose comment holds the description; a CA's
// port lines carry its port GUIDs in parentheses.
std::map<std::uint64_t, std::string> guid_names(const std::string& net_text) {
  std::map<std::uint64_t, std::string> names;
  const std::regex guid_line(R"(^(switchguid|caguid)=0x([0-9a-fA-F]+))");
  const std::regex header(R"(^(Switch|Ca)\s+\d+\s+"[^"]+"\s+#\s+"([^"]*)\")");
  const std::regex port_line(R"(^\[\d+\]\(([0-9a-fA-F]+)\))");
  std::uint64_t pending = 0;
  std::string current;
  bool in_ca = false;
  for (const std::string& l : lines_of(net_text)) {
    std::smatch m;
    if (std::regex_search(l, m, guid_line)) {
      pending = std::stoull(m[2].str(), nullptr, 16);
    } else if (std::regex_search(l, m, header)) {
      current = m[2].str();
      in_ca = m[1].str() == "Ca";
      EXPECT_NE(pending, 0U) << "node \"" << current << "\" without a guid line";
      EXPECT_TRUE(names.emplace(pending, current).second) << "GUID of \"" << current << "\" reused";
      pending = 0;
    } else if (in_ca && std::regex_search(l, m, port_line)) {
      const std::uint64_t g = std::stoull(m[1].str(), nullptr, 16);
      const auto [it, fresh] = names.emplace(g, current);
      EXPECT_TRUE(fresh || it->second == current) << "port GUID of \"" << current << "\" reused";
    }
  }
  return names;
}

// mcfdbs parsed from its text: (switch GUID, MLID) -> ports. Checks the
// OpenSM layout line by line on the way.
std::map<std::pair<std::uint64_t, unsigned>, std::vector<unsigned>> parse_mcfdbs(
    const std::string& text) {
  std::map<std::pair<std::uint64_t, unsigned>, std::vector<unsigned>> out;
  const std::regex sw_line(R"(^Switch 0x([0-9a-f]{16})$)");
  const std::regex mlid_line(R"(^0x([0-9A-F]{4}) :((?: 0x[0-9A-F]{3} )+)$)");
  const std::regex port(R"(0x([0-9A-F]{3}))");
  const auto ls = lines_of(text);
  std::uint64_t sw = 0;
  std::uint64_t prev_sw = 0;
  for (std::size_t i = 0; i < ls.size(); ++i) {
    std::smatch m;
    if (ls[i].empty()) {
      EXPECT_TRUE(i + 1 < ls.size() && ls[i + 1].rfind("Switch ", 0) == 0) << "line " << i + 1;
    } else if (std::regex_match(ls[i], m, sw_line)) {
      sw = std::stoull(m[1].str(), nullptr, 16);
      EXPECT_TRUE(i > 0 && ls[i - 1].empty()) << "line " << i + 1;
      EXPECT_TRUE(i + 1 < ls.size() && ls[i + 1] == "LID    : Out Port(s)") << "line " << i + 2;
      EXPECT_GT(sw, prev_sw) << "switches not in GUID order at line " << i + 1;
      prev_sw = sw;
      ++i;
    } else if (std::regex_match(ls[i], m, mlid_line)) {
      const unsigned mlid = std::stoul(m[1].str(), nullptr, 16);
      std::vector<unsigned> ports;
      const std::string list = m[2].str();
      for (auto it = std::sregex_iterator(list.begin(), list.end(), port);
           it != std::sregex_iterator(); ++it) {
        ports.push_back(std::stoul((*it)[1].str(), nullptr, 16));
      }
      EXPECT_TRUE(std::is_sorted(ports.begin(), ports.end())) << "line " << i + 1;
      EXPECT_TRUE(out.emplace(std::make_pair(sw, mlid), ports).second) << "line " << i + 1;
    } else {
      ADD_FAILURE() << "unexpected mcfdbs line " << i + 1 << ": \"" << ls[i] << "\"";
    }
  }
  return out;
}

void expect_same_fabric(const Fabric& a, const Fabric& b) {
  ASSERT_EQ(a.node_count(), b.node_count());
  ASSERT_EQ(a.switch_count(), b.switch_count());
  for (NodeId n = 0; n < a.node_count(); ++n) {
    const auto m = b.find(a.name(n));
    ASSERT_TRUE(m.has_value()) << a.name(n);
    EXPECT_EQ(a.type(n), b.type(*m)) << a.name(n);
    EXPECT_EQ(a.guid(n), b.guid(*m)) << a.name(n);
    ASSERT_EQ(a.num_ports(n), b.num_ports(*m)) << a.name(n);
    EXPECT_EQ(a.lid(n, 1), b.lid(*m, 1)) << a.name(n);
    for (int p = 1; p <= a.num_ports(n); ++p) {
      const PortPeer pa = a.peer(n, static_cast<PortNum>(p));
      const PortPeer pb = b.peer(*m, static_cast<PortNum>(p));
      ASSERT_EQ(pa.connected(), pb.connected()) << a.name(n) << " port " << p;
      if (pa.connected()) {
        EXPECT_EQ(a.name(pa.node), b.name(pb.node)) << a.name(n) << " port " << p;
        EXPECT_EQ(pa.port, pb.port) << a.name(n) << " port " << p;
      }
    }
  }
}

struct Case {
  std::string spec;
  std::string pattern;
  int ppn;
  std::string placement;
  std::uint64_t seed;
  std::string engine;
  std::string unicast;  // what the tool is expected to pick
};

// Runs the tool on a generated fabric and checks every output file.
void check_case(RouteToolTest& t, const RunResult& r, const fs::path& out, const Case& c) {
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f :
       {"fabric.net", "groups.txt", "mcfdbs", "lfts.dump", "guid2lid", "stats.json"}) {
    ASSERT_TRUE(fs::exists(out / f)) << f;
  }
  (void)t;

  // fabric.net re-read equals the generated fabric.
  const Fabric gen = make_fabric(c.spec);
  const Fabric f = read_net_file((out / "fabric.net").string());
  expect_same_fabric(gen, f);

  // groups.txt re-read equals the pattern's groups.
  PatternSpec p = parse_pattern(c.pattern);
  p.processes_per_node = c.ppn;
  p.placement = c.placement == "unaware" ? Placement::kUnaware : Placement::kAware;
  p.seed = c.seed;
  const GroupSet groups = make_groups(gen, p);
  ASSERT_FALSE(groups.groups.empty());
  const GroupSet reread = read_groups_file((out / "groups.txt").string(), f);
  ASSERT_EQ(reread.groups.size(), groups.groups.size());
  for (std::size_t i = 0; i < groups.groups.size(); ++i) {
    EXPECT_EQ(reread.groups[i].mlid, groups.groups[i].mlid);
    ASSERT_EQ(reread.groups[i].members.size(), groups.groups[i].members.size());
    for (std::size_t k = 0; k < groups.groups[i].members.size(); ++k) {
      EXPECT_EQ(f.name(reread.groups[i].members[k]), gen.name(groups.groups[i].members[k]));
    }
  }

  // The same engine rerun here gives the trees the tool should have dumped.
  const MinHop mh(gen);
  McLoad load(gen);
  const std::vector<McTree> trees = find_mc_engine(c.engine).route_all(mh, groups.groups, load);
  std::map<std::pair<std::uint64_t, unsigned>, std::vector<unsigned>> expected;
  for (const McTree& tree : trees) {
    EXPECT_EQ(check_tree(mh, groups.groups[&tree - trees.data()], tree), "");
    for (const MftEntry& e : tree.entries) {
      expected[{gen.guid(gen.switch_node(e.sw)), tree.mlid}].push_back(e.port);
    }
  }
  const std::string mcfdbs_text = slurp(out / "mcfdbs");
  EXPECT_EQ(parse_mcfdbs(mcfdbs_text), expected);

  // Every GUID in the dumps resolves to a node of fabric.net, under the name
  // the dump prints.
  const auto names = guid_names(slurp(out / "fabric.net"));
  EXPECT_EQ(names.size(), gen.switch_count() + 2 * gen.hca_count());  // node + port GUID per CA
  for (const auto& [key, ports] : parse_mcfdbs(mcfdbs_text)) {
    const auto it = names.find(key.first);
    ASSERT_NE(it, names.end()) << std::hex << key.first;
    const auto node = gen.find(it->second);
    ASSERT_TRUE(node && gen.is_switch(*node)) << it->second;
  }
  const std::regex lft_header(
      R"(^Unicast lids \[0-\d+\] of switch Lid \d+ guid 0x([0-9a-f]{16}) \('(.*)'\):$)");
  const std::regex lft_entry(
      R"(^0x([0-9a-f]{4}) \d{3} # (Switch|Channel Adapter) portguid 0x([0-9a-f]{16}): '(.*)'$)");
  std::size_t headers = 0, entries = 0;
  std::set<std::pair<std::uint64_t, unsigned>> dumped;  // (port GUID, LID) of the destinations
  for (const std::string& l : lines_of(slurp(out / "lfts.dump"))) {
    std::smatch m;
    if (std::regex_match(l, m, lft_header)) {
      ++headers;
      const auto it = names.find(std::stoull(m[1].str(), nullptr, 16));
      ASSERT_NE(it, names.end()) << l;
      EXPECT_EQ(it->second, m[2].str()) << l;
    } else if (std::regex_match(l, m, lft_entry)) {
      ++entries;
      const auto it = names.find(std::stoull(m[3].str(), nullptr, 16));
      ASSERT_NE(it, names.end()) << l;
      EXPECT_EQ(it->second, m[4].str()) << l;
      dumped.emplace(std::stoull(m[3].str(), nullptr, 16),
                     static_cast<unsigned>(std::stoul(m[1].str(), nullptr, 16)));
    } else {
      EXPECT_NE(l.find(" lids dumped"), std::string::npos) << l;
    }
  }
  EXPECT_EQ(headers, gen.switch_count());
  EXPECT_GT(entries, gen.switch_count());

  // guid2lid: OpenSM's cache layout, one record and a blank line per port,
  // exactly the (port GUID, LID) pairs the dump routes to.
  const std::regex g2l_record(R"(^0x([0-9a-f]{16}) 0x([0-9a-f]{4}) 0x([0-9a-f]{4})$)");
  std::set<std::pair<std::uint64_t, unsigned>> cached;
  const std::vector<std::string> g2l = lines_of(slurp(out / "guid2lid"));
  for (std::size_t i = 0; i < g2l.size(); ++i) {
    std::smatch m;
    if (i % 2 == 1) {
      EXPECT_TRUE(g2l[i].empty()) << "guid2lid line " << i + 1 << ": " << g2l[i];
      continue;
    }
    ASSERT_TRUE(std::regex_match(g2l[i], m, g2l_record))
        << "guid2lid line " << i + 1 << ": " << g2l[i];
    EXPECT_EQ(m[2].str(), m[3].str()) << g2l[i];
    cached.emplace(std::stoull(m[1].str(), nullptr, 16),
                   static_cast<unsigned>(std::stoul(m[2].str(), nullptr, 16)));
  }
  EXPECT_EQ(cached, dumped);

  // stats.json agrees with McLoad on the same trees.
  const json s = json::parse(slurp(out / "stats.json"));
  const McLoad::Stats ls = load.stats();
  EXPECT_TRUE(s["ok"].get<bool>());
  EXPECT_EQ(s["seed"].get<std::uint64_t>(), c.seed);
  EXPECT_EQ(s["fabric"]["switches"].get<std::size_t>(), gen.switch_count());
  EXPECT_EQ(s["fabric"]["end_nodes"].get<std::size_t>(), gen.hca_count());
  EXPECT_EQ(s["groups"]["count"].get<std::size_t>(), groups.groups.size());
  EXPECT_EQ(s["multicast"]["algorithm"].get<std::string>(), c.engine);
  const json& efi = s["multicast"]["efi"];
  EXPECT_EQ(efi["max_switch_links"].get<std::uint32_t>(), ls.max_switch_links);
  EXPECT_EQ(efi["max_all_links"].get<std::uint32_t>(), ls.max_all_links);
  EXPECT_DOUBLE_EQ(efi["mean_switch_links"].get<double>(), ls.mean_switch_links);
  EXPECT_DOUBLE_EQ(efi["mean_all_links"].get<double>(), ls.mean_all_links);
  const auto hist = efi["histogram_all_links"].get<std::vector<std::size_t>>();
  const std::vector<std::size_t> load_hist = load.histogram();
  ASSERT_EQ(hist.size(), load_hist.size());
  for (std::size_t k = 1; k < hist.size(); ++k) {
    EXPECT_EQ(hist[k], load_hist[k]) << "EFI " << k;
  }
  EXPECT_EQ(hist.size() - 1, ls.max_all_links);
  // The lower bound is the library's, and the trees are not below it.
  const EfiBound bound = efi_lower_bound(gen, groups.groups, &mh);
  const json& lb = s["multicast"]["efi_lower_bound"];
  EXPECT_EQ(lb["switch_links"].get<std::uint32_t>(), bound.switch_links);
  EXPECT_EQ(lb["all_links"].get<std::uint32_t>(), bound.all_links);
  EXPECT_EQ(lb["cut"]["family"].get<std::string>(), bound.best.family);
  EXPECT_GE(ls.max_switch_links, bound.switch_links);
  EXPECT_GE(ls.max_all_links, bound.all_links);
  ASSERT_GT(bound.all_links, 0U);
  EXPECT_DOUBLE_EQ(lb["ratio_all_links"].get<double>(),
                   static_cast<double>(ls.max_all_links) / bound.all_links);
  EXPECT_TRUE(s["multicast"]["tree_check"]["ok"].get<bool>());
  EXPECT_EQ(s["multicast"]["tree_check"]["checked"].get<std::size_t>(), trees.size());
  const HeightSummary h = summarize_heights(trees);
  EXPECT_EQ(s["multicast"]["tree_height"]["min"].get<int>(), h.min);
  EXPECT_EQ(s["multicast"]["tree_height"]["max"].get<int>(), h.max);
  EXPECT_EQ(s["multicast"]["tree_height"]["histogram"].get<std::vector<std::size_t>>(),
            h.histogram);
  EXPECT_EQ(s["unicast"]["algorithm"].get<std::string>(), c.unicast);
  EXPECT_TRUE(s["unicast"]["credit_loops"]["checked"].get<bool>());
  EXPECT_TRUE(s["unicast"]["credit_loops"]["acyclic"].get<bool>());
  EXPECT_GT(s["peak_rss_bytes"].get<std::uint64_t>(), 0U);
  for (const char* k : {"minhop", "multicast_route", "unicast_route", "total"}) {
    EXPECT_GE(s["time_s"][k].get<double>(), 0.0) << k;
  }
}

TEST_F(RouteToolTest, FatTreeEndToEnd) {
  const Case c{"fattree:ports=4,levels=3", "grid2d:4x4", 1, "unaware", 3, "FULB-MC", "ftree"};
  const fs::path out = dir_ / "ft";
  const RunResult r = run({"--fabric", c.spec, "--pattern", c.pattern, "--placement", c.placement,
                           "--seed", std::to_string(c.seed), "--out", out.string()});
  check_case(*this, r, out, c);
  // The tables are those of FTREE, written by the library's dump writer.
  const Fabric f = make_fabric(c.spec);
  const MinHop mh(f);
  std::ostringstream lfts;
  write_lfts_dump(lfts, route_ftree(mh, updn_ranking(mh)));
  EXPECT_EQ(slurp(out / "lfts.dump"), lfts.str());
}

TEST_F(RouteToolTest, TorusEndToEndWithDor) {
  const Case c{"torus:x=4,y=3,z=2,nodes=2", "grid3d:4x3x4", 1, "aware", 1, "MINIHOP-MC-new", "dor"};
  const fs::path out = dir_ / "torus";
  const RunResult r = run({"--fabric", c.spec, "--pattern", c.pattern, "--mc-algorithm", c.engine,
                           "--out", out.string()});
  check_case(*this, r, out, c);
  const json s = json::parse(slurp(out / "stats.json"));
  EXPECT_EQ(s["unicast"]["credit_loops"]["lanes"].get<int>(), 2);  // the dateline lanes
  EXPECT_TRUE(s["unicast"]["default_choice"].get<bool>());
}

TEST_F(RouteToolTest, NetFileAndGroupsFileIn) {
  const Fabric f = make_fabric("fattree:ports=4,levels=2");
  const fs::path net = dir_ / "in.net";
  write_net_file(net.string(), f);
  // MLID column optional: the second group gets the lowest free MLID.
  const std::string h0 = f.name(f.hcas()[0]), h1 = f.name(f.hcas()[1]), h5 = f.name(f.hcas()[5]);
  const fs::path groups = write("in.groups", "# two groups\n0xc005 " + h0 + " " + h5 + "\n" + h1 +
                                                 " " + h5 + " " + h0 + "\n");
  const fs::path out = dir_ / "net";
  RunResult r = run({"--net", net.string(), "--groups", groups.string(), "--mc-algorithm",
                     "SSSP-MC-new", "--unicast", "updn", "--out", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(out / "groups.txt"),
            "0xc005 " + h0 + " " + h5 + "\n0xc000 " + h0 + " " + h1 + " " + h5 + "\n");
  const auto names = guid_names(slurp(out / "fabric.net"));
  const auto fdbs = parse_mcfdbs(slurp(out / "mcfdbs"));
  std::set<unsigned> mlids;
  for (const auto& [key, ports] : fdbs) {
    EXPECT_TRUE(names.count(key.first)) << std::hex << key.first;
    mlids.insert(key.second);
  }
  EXPECT_EQ(mlids, (std::set<unsigned>{0xC000, 0xC005}));
  const json s = json::parse(slurp(out / "stats.json"));
  EXPECT_EQ(s["fabric"]["source"]["net"].get<std::string>(), net.string());
  EXPECT_EQ(s["unicast"]["algorithm"].get<std::string>(), "updn");
  EXPECT_FALSE(s["unicast"]["default_choice"].get<bool>());

  // A non-empty folder is kept unless --force; --force replaces it whole.
  std::ofstream(out / "mine.txt") << "keep";
  r = run({"--net", net.string(), "--groups", groups.string(), "--out", out.string(), "-q"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("is a folder that is not empty (pass --force"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out / "mine.txt"), "keep");
  // --force with bad input leaves the old folder as it was.
  const fs::path bad_groups = write("bad.groups", h0 + "\n");
  r = run({"--net", net.string(), "--groups", bad_groups.string(), "--out", out.string(), "--force",
           "-q"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(bad_groups.string() + ":1: a group needs at least two members"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(out / "mine.txt"), "keep");
  r = run(
      {"--net", net.string(), "--groups", groups.string(), "--out", out.string(), "--force", "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "mine.txt"));
  EXPECT_TRUE(fs::exists(out / "stats.json"));
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".syncfab-route-"), std::string::npos) << e.path();
  }
  // An existing empty folder is simply filled.
  fs::create_directory(dir_ / "empty");
  r = run({"--net", net.string(), "--groups", groups.string(), "--out", (dir_ / "empty/").string(),
           "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "empty" / "mcfdbs"));
}

// A leaf-spine cluster as ibnetdiscover -g would dump it: 2 spines and 4
// leaves of 36 ports, six parallel links per leaf-spine pair, every switch
// described "SwitchIB Mellanox Technologies", 4 hosts per leaf with their
// own descriptions, one host with both ports cabled (to leaves 0 and 1),
// ports listed from the highest down, tabs, chassis lines and [ext N]
// labels. Written from the format, not from our writer.
std::string leaf_spine_dump() {
  constexpr int kSpines = 2, kLeaves = 4, kParallel = 6, kHosts = 4;
  auto sw_guid = [](int i) { return 0x7cfe900300a1b000ULL + static_cast<unsigned>(i); };
  auto ca_guid = [](int h) { return 0x248a070300f0c000ULL + 0x10ULL * static_cast<unsigned>(h); };
  auto hex16 = [](std::uint64_t v) {
    char b[20];
    std::snprintf(b, sizeof b, "%016" PRIx64, v);
    return std::string(b);
  };
  auto hexs = [](std::uint64_t v) {
    char b[20];
    std::snprintf(b, sizeof b, "%" PRIx64, v);
    return std::string(b);
  };
  const std::string desc = "SwitchIB Mellanox Technologies";
  // The dual-ported host is host 0 of leaf 0; its port 2 goes to leaf 1's
  // last host port (leaf 1 then has only 3 single-ported hosts).
  auto host_desc = [](int h) { return "node" + std::to_string(h) + " HCA-1"; };
  std::ostringstream o;
  o << "#\n# Topology file: generated on Mon Nov 30 10:00:00 2026\n#\n"
    << "# Initiated from node " << hex16(ca_guid(0)) << " port " << hex16(ca_guid(0) + 1) << "\n"
    << "\nChassis 1 (guid 0x" << hexs(sw_guid(0)) << ")\n\n# Spine Nodes\n\n# Line Nodes\n"
    << "\n# Chassis Switches\n\n# Chassis CAs\n\nNon-Chassis Nodes\n";
  const int leaf_lid0 = 1, spine_lid0 = 10, host_lid0 = 20;
  for (int sp = 0; sp < kSpines; ++sp) {
    const int id = kLeaves + sp;
    o << "\nvendid=0x2c9\ndevid=0xcb20\nsysimgguid=0x" << hexs(sw_guid(id)) << "\nswitchguid=0x"
      << hexs(sw_guid(id)) << "(" << hexs(sw_guid(id)) << ")\n"
      << "Switch\t36 \"S-" << hex16(sw_guid(id)) << "\"\t\t# \"" << desc
      << "\" enhanced port 0 lid " << spine_lid0 + sp << " lmc 0\n";
    for (int port = kLeaves * kParallel; port >= 1; --port) {
      const int leaf = (port - 1) / kParallel;
      const int leaf_port = 1 + sp * kParallel + (port - 1) % kParallel;
      o << "[" << port << "][ext " << port << "]\t\"S-" << hex16(sw_guid(leaf)) << "\"["
        << leaf_port << "]\t\t# \"" << desc << "\" lid " << leaf_lid0 + leaf << " 4xEDR\n";
    }
  }
  int host = 0;
  std::vector<std::string> ca_blocks;
  for (int leaf = 0; leaf < kLeaves; ++leaf) {
    o << "\nvendid=0x2c9\ndevid=0xcb20\nsysimgguid=0x" << hexs(sw_guid(leaf)) << "\nswitchguid=0x"
      << hexs(sw_guid(leaf)) << "(" << hexs(sw_guid(leaf)) << ")\n"
      << "Switch\t36 \"S-" << hex16(sw_guid(leaf)) << "\"\t\t# \"" << desc
      << "\" enhanced port 0 lid " << leaf_lid0 + leaf << " lmc 0\n";
    for (int k = kHosts - 1; k >= 0; --k) {
      const int port = kSpines * kParallel + 1 + k;
      int h = leaf * kHosts + k;
      int hport = 1;
      if (leaf == 1 && k == kHosts - 1) {
        h = 0;  // host 0's second port
        hport = 2;
      }
      o << "[" << port << "]\t\"H-" << hex16(ca_guid(h)) << "\"[" << hport << "]("
        << hexs(ca_guid(h) + static_cast<unsigned>(hport)) << ") \t\t# \"" << host_desc(h)
        << "\" lid " << host_lid0 + 2 * h + hport - 1 << " 4xEDR\n";
    }
    for (int port = kSpines * kParallel; port >= 1; --port) {
      const int sp = (port - 1) / kParallel;
      const int sp_port = 1 + leaf * kParallel + (port - 1) % kParallel;
      o << "[" << port << "]\t\"S-" << hex16(sw_guid(kLeaves + sp)) << "\"[" << sp_port << "][ext "
        << sp_port << "]\t\t# \"" << desc << "\" lid " << spine_lid0 + sp << " 4xEDR\n";
    }
  }
  for (int leaf = 0; leaf < kLeaves; ++leaf) {
    for (int k = 0; k < kHosts; ++k) {
      const int h = leaf * kHosts + k;
      if (leaf == 1 && k == kHosts - 1) {
        continue;  // that leaf port holds host 0's second port
      }
      const int ports = h == 0 ? 2 : 1;
      o << "\nvendid=0x2c9\ndevid=0x1017\nsysimgguid=0x" << hexs(ca_guid(h)) << "\ncaguid=0x"
        << hexs(ca_guid(h)) << "\nCa\t" << ports << " \"H-" << hex16(ca_guid(h)) << "\"\t\t# \""
        << host_desc(h) << "\"\n";
      for (int hp = ports; hp >= 1; --hp) {
        const int l = hp == 1 ? leaf : 1;
        const int lp = hp == 1 ? kSpines * kParallel + 1 + k : kSpines * kParallel + kHosts;
        o << "[" << hp << "](" << hexs(ca_guid(h) + static_cast<unsigned>(hp)) << ") \t\"S-"
          << hex16(sw_guid(l)) << "\"[" << lp << "]\t\t# lid " << host_lid0 + 2 * h + hp - 1
          << " lmc 0 \"" << desc << "\" lid " << leaf_lid0 + l << " 4xEDR\n";
      }
      ++host;
    }
  }
  return o.str();
}

// Real dumps: the example of ibnetdiscover's manual page (tests/sm/data)
// and a leaf-spine cluster dump are read, routed and checked end to end;
// groups name nodes by id, GUID or unique description; fabric.net read
// back is the same fabric under the same names.
TEST_F(RouteToolTest, RealDumpsRouteEndToEnd) {
  const fs::path manpage = fs::path(SYNCFAB_SM_DATA_DIR) / "ibnetdiscover_manpage.net";
  const fs::path leaf_spine = write("leaf_spine.net", leaf_spine_dump());
  struct Dump {
    fs::path net;
    std::string groups;
    std::size_t switches, hcas;
  };
  const std::vector<Dump> dumps{
      {manpage, "H-0008f10403960984 0x8f10403961354 H-005442b100004900 0x8f10403960558\n", 2, 4},
      {leaf_spine, "\"node0 HCA-1\" \"node5 HCA-1\" 0x248a070300f0c0a0 H-248a070300f0c0f0\n", 6,
       15},
  };
  for (const Dump& d : dumps) {
    SCOPED_TRACE(d.net.string());
    const Fabric f = read_net_file(d.net.string());
    EXPECT_EQ(f.switch_count(), d.switches);
    EXPECT_EQ(f.hca_count(), d.hcas);
    const fs::path groups = write("g.txt", d.groups);
    const fs::path out = dir_ / ("out-" + d.net.stem().string());
    const RunResult r = run({"--net", d.net.string(), "--groups", groups.string(), "--out",
                             out.string(), "--credit-check", "always", "-q"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(slurp(out / "stats.json"));
    EXPECT_TRUE(s["ok"].get<bool>());
    EXPECT_TRUE(s["multicast"]["tree_check"]["ok"].get<bool>());
    EXPECT_TRUE(s["unicast"]["credit_loops"]["acyclic"].get<bool>());
    // Every cabled CA port has an LFT entry on every switch (switch LIDs
    // may stay unreachable under Up*/Down*: spine to spine is down-up).
    std::size_t cabled = 0;
    for (const NodeId h : f.hcas()) {
      for (int p = 1; p <= f.num_ports(h); ++p) {
        cabled += f.peer(h, static_cast<PortNum>(p)).connected() ? 1 : 0;
      }
    }
    std::size_t entries = 0;
    for (const std::string& l : lines_of(slurp(out / "lfts.dump"))) {
      entries += l.find("# Channel Adapter portguid") != std::string::npos ? 1 : 0;
    }
    EXPECT_EQ(entries, f.switch_count() * cabled);
    // Read back: the same fabric, the same names (repeated descriptions
    // disambiguated by id in both).
    const Fabric back = read_net_file((out / "fabric.net").string());
    expect_same_fabric(f, back);
    const GroupSet g = read_groups_file((out / "groups.txt").string(), back);
    ASSERT_EQ(g.groups.size(), 1U);
    EXPECT_EQ(g.groups[0].members.size(), 4U);
  }
  // The leaf-spine fabric: parallel links kept, labels disambiguated.
  const Fabric f = read_net_file(leaf_spine.string());
  const NodeId leaf0 = f.resolve("S-7cfe900300a1b000");
  EXPECT_EQ(f.name(leaf0), "SwitchIB Mellanox Technologies (S-7cfe900300a1b000)");
  for (int p = 1; p <= 6; ++p) {
    EXPECT_EQ(f.peer(leaf0, static_cast<PortNum>(p)).node, f.resolve("S-7cfe900300a1b004")) << p;
  }
  const NodeId dual = f.resolve("node0 HCA-1");
  EXPECT_EQ(f.peer(dual, 2).node, f.resolve("S-7cfe900300a1b001"));
  expect_refused(
      {"--net", leaf_spine.string(), "--groups",
       write("shared.txt", "\"SwitchIB Mellanox Technologies\" \"node1 HCA-1\"\n").string()},
      "node description \"SwitchIB Mellanox Technologies\" is shared by 6 nodes");
}

// What a mutation run against the tool found, each kept as a regression:
// a root as --out hung; a grid whose rank count wraps past 2^64 overflowed
// the group builder (or made zero groups); a node described like an MLID
// silently took the MLID column; a control character in a description
// broke the tool's own groups.txt; command-line errors exited with the
// parser library's codes; --seed -1 wrapped; an empty net file, a folder as
// --net and a disconnected fabric named no file; a huge token was echoed
// whole and control characters raw.
TEST_F(RouteToolTest, MutationFindingsAreRefusedClearly) {
  const std::vector<std::string> ft{"--fabric", "fattree:ports=4,levels=2"};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& more) {
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  for (const char* root : {"/", "//"}) {
    const RunResult r = run(with(ft, {"--pattern", "grid2d:2x2", "--out", root, "-q"}));
    EXPECT_EQ(r.status, 1) << root;
    EXPECT_NE(r.err.find("name the output folder itself"), std::string::npos) << r.err;
  }
  expect_refused(with(ft, {"--pattern", "grid3d:823996703x1066043567x21"}),
                 "the grid 823996703x1066043567x21 needs more processes than the fabric's 8");
  expect_refused(with(ft, {"--pattern", "grid3d:1073741824x1073741824x16"}),
                 "needs more processes than the fabric's 8");

  const fs::path net = write("mlid.net",
                             "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"H3\"[1]\n\n"
                             "Ca 1 \"H1\" # \"0xc001\"\n[1] \"S1\"[1]\n\n"
                             "Ca 1 \"H2\"\n[1] \"S1\"[2]\n\nCa 1 \"H3\"\n[1] \"S1\"[3]\n");
  // Unquoted, the first word is the MLID; quoted, the node.
  const fs::path quoted = write("q.groups", "\"0xc001\" H2 H3\n0xc001 H2 H3 H1\n");
  const fs::path out = dir_ / "mlid-out";
  RunResult r =
      run({"--net", net.string(), "--groups", quoted.string(), "--out", out.string(), "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The quoted first word was the node; MLID 0xc001 went to the second line.
  EXPECT_EQ(slurp(out / "groups.txt"), "0xc000 \"0xc001\" H2 H3\n0xc001 \"0xc001\" H2 H3\n");
  r = run({"--net", (out / "fabric.net").string(), "--groups", (out / "groups.txt").string(),
           "--out", (dir_ / "again").string(), "-q"});
  EXPECT_EQ(r.status, 0) << r.err;

  const fs::path cr = write("cr.net",
                            "Switch 4 \"S1\" # \"leaf\r1\"\n[1] \"H1\"[1]\n\n"
                            "Ca 1 \"H1\"\n[1] \"S1\"[1]\n");
  expect_refused({"--net", cr.string(), "--pattern", "grid2d:1x1"},
                 cr.string() + R"(:1: control character in node description "leaf\r1")");

  const fs::path empty = write("empty.net", "");
  expect_refused({"--net", empty.string(), "--pattern", "grid2d:2x2"},
                 empty.string() + ": no Switch or Ca line");
  expect_refused({"--net", dir_.string(), "--pattern", "grid2d:2x2"},
                 dir_.string() + ": is a folder, not a net file");
  expect_refused({"--net", (dir_ / "nope.net").string(), "--pattern", "grid2d:2x2"},
                 (dir_ / "nope.net").string() + ": cannot open net file");
  const fs::path split =
      write("split.net",
            "Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nSwitch 4 \"S2\"\n[1] \"H2\"[1]\n\n"
            "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S2\"[1]\n");
  expect_refused({"--net", split.string(), "--pattern", "grid2d:1x2"},
                 split.string() + ": disconnected fabric");

  const std::string huge(70000, 'z');
  const RunResult big = run(with(ft, {"--pattern", "grid2d:2x2", "--mc-algorithm", huge + "\x01",
                                      "--out", (dir_ / "big").string(), "-q"}));
  EXPECT_EQ(big.status, 1);
  EXPECT_LT(big.err.size(), 400U) << big.err.size();
  EXPECT_NE(big.err.find("... (70001 bytes)"), std::string::npos) << big.err.substr(0, 300);

  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--no-such-flag"}, with(ft, {"--ppn", "0"}),
        with(ft, {"--pattern", "grid2d:2x2", "--seed", "-1", "--out", (dir_ / "s").string()})}) {
    const RunResult u = run(bad);
    EXPECT_EQ(u.status, 1) << bad.front() << ": " << u.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "s"));
}

TEST_F(RouteToolTest, CheckFailureIsReportedWithNonZeroExit) {
  // MINHOP on a torus has credit loops; --credit-check always makes that a failure.
  const fs::path out = dir_ / "loops";
  const RunResult r =
      run({"--fabric", "torus:x=4,y=4,z=1,nodes=1", "--pattern", "grid2d:4x4", "--unicast",
           "minhop", "--credit-check", "always", "--out", out.string(), "-q"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("credit-loop check FAILED (minhop): cycle of"), std::string::npos) << r.err;
  const json s = json::parse(slurp(out / "stats.json"));
  EXPECT_FALSE(s["ok"].get<bool>());
  EXPECT_FALSE(s["unicast"]["credit_loops"]["acyclic"].get<bool>());
  EXPECT_NE(s["unicast"]["credit_loops"]["cycle"].get<std::string>().find(" -> "),
            std::string::npos);
  // Without it, MINHOP's tables are not checked (it promises nothing).
  const RunResult r2 = run({"--fabric", "torus:x=4,y=4,z=1,nodes=1", "--pattern", "grid2d:4x4",
                            "--unicast", "minhop", "--out", (dir_ / "ok").string(), "-q"});
  EXPECT_EQ(r2.status, 0) << r2.err;
}

TEST_F(RouteToolTest, BadInputIsRefusedAndWritesNothing) {
  const std::vector<std::string> ft = {"--fabric", "fattree:ports=4,levels=2"};
  const Fabric f = make_fabric("fattree:ports=4,levels=2");
  const std::string a = f.name(f.hcas()[0]), b = f.name(f.hcas()[1]);
  auto with = [](std::vector<std::string> v, std::initializer_list<std::string> more) {
    v.insert(v.end(), more);
    return v;
  };

  // Malformed net file: file:line: what.
  const fs::path bad_net = write(
      "bad.net", "Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nHca 2 \"H1\"\n[1] \"S1\"[1]\n[2] \"S9\"[1]\n");
  expect_refused({"--net", bad_net.string(), "--pattern", "grid2d:2x2"},
                 bad_net.string() + ":6: unknown node \"S9\"");
  const fs::path bad_port = write("bad_port.net", "Switch 4 \"S1\"\n[5] \"H1\"[1]\n");
  expect_refused({"--net", bad_port.string(), "--pattern", "grid2d:2x2"},
                 bad_port.string() + ":2: port 5 out of range");

  // Disconnected fabric: two switch islands.
  const fs::path split = write("split.net",
                               "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n\n"
                               "Switch 4 \"S2\"\n[1] \"H3\"[1]\n[2] \"H4\"[1]\n\n"
                               "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n\n"
                               "Hca 1 \"H3\"\n[1] \"S2\"[1]\n\nHca 1 \"H4\"\n[1] \"S2\"[2]\n");
  expect_refused({"--net", split.string(), "--pattern", "grid2d:2x2"},
                 R"(disconnected fabric: "S2" cannot be reached from "S1")");

  // Groups: unknown node, one member, more groups than MLIDs.
  const fs::path unknown = write("unknown.groups", a + " " + b + "\n" + a + " nosuchnode\n");
  expect_refused(with(ft, {"--groups", unknown.string()}),
                 unknown.string() + ":2: unknown node \"nosuchnode\"");
  const fs::path single = write("single.groups", a + " " + b + "\n\n0xc001 " + b + "\n");
  expect_refused(with(ft, {"--groups", single.string()}),
                 single.string() + ":3: a group needs at least two members");
  std::string many;
  for (std::size_t i = 0; i <= kMulticastLidCount; ++i) {
    many.append(a).append(" ").append(b).append("\n");
  }
  const fs::path too_many = write("many.groups", many);
  expect_refused(with(ft, {"--groups", too_many.string()}),
                 too_many.string() + ":16384: more groups than the multicast LID space");
  expect_refused(with(ft, {"--pattern", "random:count=16384,size=2"}), "16383");

  // Unknown algorithms, a unicast engine that does not fit the fabric.
  expect_refused(with(ft, {"--pattern", "grid2d:2x2", "--mc-algorithm", "FAST-MC"}),
                 "--mc-algorithm: unknown multicast engine 'FAST-MC' (known: ");
  expect_refused(with(ft, {"--pattern", "grid2d:2x2", "--unicast", "ospf"}),
                 "--unicast: unknown unicast engine 'ospf'");
  expect_refused(with(ft, {"--pattern", "grid2d:2x2", "--unicast", "dor"}),
                 "--unicast dor needs a 3D torus");
  expect_refused({"--fabric", "fattree:ports=5", "--pattern", "grid2d:2x2"}, "ports");
  expect_refused(with(ft, {"--pattern", "grid9d:2"}), "grid9d");

  // Output path that is a file: refused, the file untouched.
  const fs::path file = write("out", "precious");
  const RunResult r = run(with(ft, {"--pattern", "grid2d:2x2", "--out", file.string(), "-q"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--out '" + file.string() + "' exists and is not a folder"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(file), "precious");
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".out."), std::string::npos) << e.path();
  }
  const RunResult r2 =
      run(with(ft, {"--pattern", "grid2d:2x2", "--out", (dir_ / "no/such/dir").string(), "-q"}));
  EXPECT_EQ(r2.status, 1);
  EXPECT_NE(r2.err.find("parent folder '" + (dir_ / "no/such").string() + "' does not exist"),
            std::string::npos)
      << r2.err;
  EXPECT_FALSE(fs::exists(dir_ / "no"));
}

TEST_F(RouteToolTest, HelpDocumentsEveryOptionAndEngine) {
  const RunResult r = run({"--help"});
  ASSERT_EQ(r.status, 0);
  for (const char* opt :
       {"--fabric",       "--net",     "--pattern",  "--groups",   "--ppn",       "--placement",
        "--mc-algorithm", "--unicast", "--seed",     "--out",      "--force",     "--no-lfts-dump",
        "--credit-check", "--quiet",   "--max-lid",  "Examples:",  "Exit status", "mcfdbs",
        "stats.json",     "lfts.dump", "groups.txt", "fabric.net", "guid2lid"}) {
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  }
  for (const McEngine& e : mc_engines()) {
    EXPECT_NE(r.out.find(std::string(e.name)), std::string::npos) << e.name;
  }
  for (const char* u : {"minhop", "updn", "ftree", "dor", "lash"}) {
    EXPECT_NE(r.out.find(std::string("  ") + u), std::string::npos) << u;
  }
}

// Past the LID space (--max-lid caps it): the same routing, checks and
// deltas as with enough LIDs, lfts.dump and guid2lid skipped and said so on
// stderr and in stats.json with the count.
TEST_F(RouteToolTest, PastTheLidSpaceRoutesAndSkipsLftsDump) {
  const std::vector<std::string> ft = {
      "--fabric", "fattree:ports=8,levels=3", "--pattern", "grid2d:8x16", "--unicast", "updn",
      "--quiet"};
  auto with = [](std::vector<std::string> v, std::initializer_list<std::string> more) {
    v.insert(v.end(), more);
    return v;
  };
  const fs::path full = dir_ / "full";
  const fs::path capped = dir_ / "capped";
  ASSERT_EQ(run(with(ft, {"--out", full.string()})).status, 0);
  RunResult r = run(with(ft, {"--max-lid", "150", "--out", capped.string()}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("not writing lfts.dump and guid2lid: 58 of 208 destinations have no LID"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(capped / "lfts.dump"));
  EXPECT_FALSE(fs::exists(capped / "guid2lid"));
  EXPECT_TRUE(fs::exists(full / "lfts.dump"));
  const json s = json::parse(slurp(capped / "stats.json"));
  EXPECT_EQ(s["fabric"]["max_lid"].get<int>(), 150);
  EXPECT_EQ(s["fabric"]["last_lid"].get<int>(), 150);
  EXPECT_EQ(s["fabric"]["destinations"].get<int>(), 208);
  EXPECT_EQ(s["fabric"]["destinations_without_lid"].get<int>(), 58);
  EXPECT_FALSE(s["unicast"]["lfts_dump_written"].get<bool>());
  EXPECT_NE(s["unicast"]["lfts_dump_skipped"].get<std::string>().find("58 of 208"),
            std::string::npos);
  EXPECT_TRUE(s["unicast"]["credit_loops"]["acyclic"].get<bool>());
  EXPECT_TRUE(s["ok"].get<bool>());
  const json sf = json::parse(slurp(full / "stats.json"));
  EXPECT_EQ(sf["fabric"]["destinations_without_lid"].get<int>(), 0);
  EXPECT_TRUE(sf["unicast"]["lfts_dump_skipped"].is_null());
  EXPECT_EQ(slurp(capped / "mcfdbs"), slurp(full / "mcfdbs"));
  // Only the LIDs differ in fabric.net: 0 past the cap.
  EXPECT_NE(slurp(capped / "fabric.net").find("lid 0 "), std::string::npos);

  // Failures (an end node past the cap among them) and a repair: the same
  // deltas as on the fabric with enough LIDs, where indices are the LIDs.
  for (const fs::path& base : {full, capped}) {
    r = run({"--from", base.string(), "--fail", "link:node-127/1", "--fail", "link:sw-l2-0/1",
             "--out", (base.string() + "-failed"), "--quiet"});
    ASSERT_EQ(r.status, 0) << r.err;
    r = run({"--from", base.string() + "-failed", "--repair", "link:sw-l2-0/1", "--out",
             (base.string() + "-repaired"), "--quiet"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  for (const char* step : {"-failed", "-repaired"}) {
    const fs::path a = full.string() + step;
    const fs::path b = capped.string() + step;
    EXPECT_EQ(slurp(a / "lft.delta"), slurp(b / "lft.delta")) << step;
    EXPECT_EQ(slurp(a / "mft.delta"), slurp(b / "mft.delta")) << step;
    EXPECT_FALSE(fs::exists(b / "lfts.dump")) << step;
    const json sb = json::parse(slurp(b / "stats.json"));
    EXPECT_EQ(sb["fabric"]["last_lid"].get<int>(), 150) << step;
    EXPECT_TRUE(sb["ok"].get<bool>()) << step;
  }
  EXPECT_NE(slurp(capped.string() + "-failed/lft.delta").find("0x00d0 255"), std::string::npos);

  // --from keeps the folder's cap.
  r = run({"--from", capped.string(), "--max-lid", "100", "--out", (dir_ / "bad").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--max-lid"), std::string::npos) << r.err;
  // The cap itself is checked.
  for (const char* bad : {"0", "49152"}) {
    r = run(with(ft, {"--max-lid", bad, "--out", (dir_ / "bad").string()}));
    EXPECT_EQ(r.status, 1) << bad;
    EXPECT_NE(r.err.find(std::string("--max-lid: Value ") + bad), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "bad"));
  }
}

// The writer on its own, on a hand-made tree: OpenSM's exact bytes.
TEST(McfdbsWriter, OpenSmLayout) {
  Fabric f;
  const NodeId s1 = f.add_node(NodeType::kSwitch, "S1", 4, 0x20);
  const NodeId s0 = f.add_node(NodeType::kSwitch, "S0", 4, 0x10);
  const NodeId h0 = f.add_node(NodeType::kHca, "h0", 1);
  const NodeId h1 = f.add_node(NodeType::kHca, "h1", 1);
  f.connect(s0, 1, s1, 1);
  f.connect(h0, 1, s0, 3);
  f.connect(h1, 1, s1, 2);
  f.assign_lids();
  McTree a{0xC001, 1, 1, {{0, 1}, {0, 2}, {1, 1}, {1, 3}}};  // switch index 0 = S1 (GUID 0x20)
  McTree b{0xC000, 1, 0, {{1, 3}}};
  std::ostringstream out;
  const std::vector<McTree> trees{a, b};
  write_mcfdbs(out, f, trees);
  EXPECT_EQ(out.str(),
            "\nSwitch 0x0000000000000010\nLID    : Out Port(s)\n"
            "0xC000 : 0x003 \n"
            "0xC001 : 0x001  0x003 \n"
            "\nSwitch 0x0000000000000020\nLID    : Out Port(s)\n"
            "0xC001 : 0x001  0x002 \n");
  const std::vector<McTree> dup{a, a};
  EXPECT_THROW(write_mcfdbs(out, f, dup), FabricError);
  (void)h0;
  (void)h1;
}

// The failure workflow: lfts.dump / mcfdbs as (switch, LID) -> port(s) maps,
// and the delta files applied to them.
using Table = std::map<std::pair<std::string, std::string>, std::string>;

// lfts.dump: "... ('name'):" headers, "0xLLLL PPP # ..." lines (routed only).
Table read_lfts(const std::string& text) {
  Table t;
  std::string sw;
  for (const std::string& l : lines_of(text)) {
    if (l.rfind("Unicast lids", 0) == 0 || l.rfind("Switch ", 0) == 0) {
      sw = l.substr(l.find("('") + 2, l.find("')") - l.find("('") - 2);
    } else if (l.rfind("0x", 0) == 0) {
      t[{sw, l.substr(0, 6)}] = l.substr(7, 3);
    }
  }
  return t;
}

// mcfdbs: "Switch 0x<guid>" then "0xC000 : ports" lines; mft.delta the same
// with " ('name')" after the GUID and "none" for a cleared entry.
Table read_mfts(const std::string& text) {
  Table t;
  std::string sw;
  for (const std::string& l : lines_of(text)) {
    if (l.rfind("Switch ", 0) == 0) {
      sw = l.substr(7, 18);
    } else if (l.rfind("0x", 0) == 0) {
      t[{sw, l.substr(0, 6)}] = l.substr(9);
    }
  }
  return t;
}

TEST_F(RouteToolTest, FailWorkflowDeltasAndChain) {
  const fs::path base = dir_ / "base";
  ASSERT_EQ(run({"--fabric", "fattree:ports=4,levels=3", "--pattern", "grid2d:4x4", "--out",
                 base.string(), "--quiet"})
                .status,
            0);
  const fs::path failed = dir_ / "failed";
  RunResult r = run({"--from", base.string(), "--fail", "link:sw-l2-0/1", "--fail",
                     "switch:sw-l1-3", "--out", failed.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"fabric.net", "groups.txt", "mcfdbs", "lfts.dump", "guid2lid",
                        "failures.json", "lft.delta", "mft.delta", "stats.json"}) {
    EXPECT_TRUE(fs::exists(failed / f)) << f;
  }
  const json s = json::parse(slurp(failed / "stats.json"));
  ASSERT_EQ(s["changes"].size(), 2U);
  EXPECT_EQ(s["changes"][0]["change"].get<std::string>(), "fail link:sw-l2-0/1");
  // sw-l1-3 carries end nodes: the groups it cuts are reported, each
  // routed over the members left.
  std::size_t cut = 0;
  for (const json& g : s["changes"][1]["groups"]) {
    cut += g["cut_off"].size();
    EXPECT_NE(g["what"].get<std::string>().find("rerouted"), std::string::npos) << g.dump();
  }
  EXPECT_GT(cut, 0U);
  EXPECT_NE(r.err.find("member(s) cut off"), std::string::npos) << r.err;
  EXPECT_TRUE(s["changes"][0]["credit_loops"]["acyclic"].get<bool>());

  // Old tables + delta = new tables.
  Table lfts = read_lfts(slurp(base / "lfts.dump"));
  for (const auto& [key, port] : read_lfts(slurp(failed / "lft.delta"))) {
    if (port == "255") {
      lfts.erase(key);
    } else {
      lfts[key] = port;
    }
  }
  Table want = read_lfts(slurp(failed / "lfts.dump"));
  std::erase_if(lfts, [](const auto& e) { return e.first.first == "sw-l1-3"; });  // failed
  std::erase_if(want, [](const auto& e) { return e.first.first == "sw-l1-3"; });
  EXPECT_EQ(lfts, want);
  EXPECT_NE(slurp(failed / "lft.delta").find("blocks: 0"), std::string::npos);
  const Fabric f = make_fabric("fattree:ports=4,levels=3");
  char dead_guid[24];
  std::snprintf(dead_guid, sizeof dead_guid, "0x%016" PRIx64, f.guid(f.resolve("sw-l1-3")));
  Table mfts = read_mfts(slurp(base / "mcfdbs"));
  for (const auto& [key, ports] : read_mfts(slurp(failed / "mft.delta"))) {
    if (ports == "none") {
      mfts.erase(key);
    } else {
      mfts[key] = ports;
    }
  }
  std::erase_if(mfts, [&](const auto& e) { return e.first.first == dead_guid; });
  EXPECT_EQ(mfts, read_mfts(slurp(failed / "mcfdbs")));

  // The new folder is a --from folder too: the link comes back.
  const fs::path repaired = dir_ / "repaired";
  r = run({"--from", failed.string(), "--repair", "link:sw-l1-0/3", "--out", repaired.string(),
           "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json h = json::parse(slurp(repaired / "failures.json"));
  EXPECT_EQ(h["changes"].size(), 3U);
  EXPECT_EQ(h["down"].size(), json::parse(slurp(failed / "failures.json"))["down"].size() - 1);

  // Bad input: clear errors naming the value, no folder.
  expect_refused({"--from", failed.string(), "--repair", "link:sw-l1-1/1"},
                 "\"sw-l1-1\" port 1 never failed");
  expect_refused({"--from", failed.string(), "--fail", "link:nosuch/1"}, "unknown node \"nosuch\"");
  expect_refused({"--from", failed.string(), "--fail", "link:sw-l2-0/1"}, "is already down");
  expect_refused({"--from", failed.string(), "--fail", "switch:sw-l1-3"}, "has already failed");
  expect_refused({"--from", failed.string(), "--fail", "link:sw-l1-2/9"},
                 "port '9' of \"sw-l1-2\" is not one of 1..4");
  expect_refused({"--from", base.string(), "--fail", "cable"},
                 "expected link:NODE/PORT or switch:NODE");
  expect_refused({"--from", (dir_ / "nothing").string(), "--fail", "switch:sw-l1-3"},
                 "not a folder");
  // A folder whose tables were edited is not a base for a delta.
  fs::copy(base, dir_ / "edited", fs::copy_options::recursive);
  std::ofstream(dir_ / "edited" / "mcfdbs", std::ios::app) << "\nSwitch 0x0\n";
  expect_refused({"--from", (dir_ / "edited").string(), "--fail", "switch:sw-l1-3"},
                 "mcfdbs differs");
}

}  // namespace
}  // namespace syncfab::sm

namespace syncfab::sm {
namespace {

// --ecmp: lfts.dump as without it (each entry's single port), the groups in
// port_groups as the library writes them, stats.json counting them and the
// credit-loop check run over every member; --lag likewise; refused where no
// engine emits groups, with --from, and together.
TEST_F(RouteToolTest, EcmpAndLagWritePortGroupsNextToLftsDump) {
  const std::string spec = "pruned:pods=3,leaves=2,nodes=2,l2=2,tops=1,paths=2";
  const Fabric f = make_fabric(spec);
  const MinHop mh(f);
  const fs::path plain = dir_ / "plain";
  ASSERT_EQ(
      run({"--fabric", spec, "--pattern", "grid2d:3x4", "--out", plain.string(), "-q"}).status, 0);
  EXPECT_FALSE(fs::exists(plain / "port_groups"));
  EXPECT_EQ(json::parse(slurp(plain / "stats.json"))["unicast"]["port_groups"]["mode"], "off");
  for (const auto& [flag, mode] :
       {std::pair{"--ecmp", GroupMode::kEcmp}, std::pair{"--lag", GroupMode::kLag}}) {
    const fs::path out = dir_ / (std::string(flag).substr(2));
    const RunResult r =
        run({"--fabric", spec, "--pattern", "grid2d:3x4", flag, "--out", out.string(), "-q"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(slurp(out / "lfts.dump"), slurp(plain / "lfts.dump")) << flag;
    UnicastRouting uc;
    uc.group_mode = mode;
    route_unicast("ftree", mh, uc);
    std::ostringstream want;
    write_port_groups(want, *uc.lft, *uc.groups);
    EXPECT_EQ(slurp(out / "port_groups"), want.str()) << flag;
    const json s = json::parse(slurp(out / "stats.json"))["unicast"];
    EXPECT_EQ(s["port_groups"]["mode"], std::string(flag).substr(2));
    EXPECT_EQ(s["port_groups"]["grouped_entries"].get<std::size_t>(), uc.groups->grouped_entries());
    EXPECT_GT(uc.groups->grouped_entries(), 0U);
    EXPECT_EQ(s["port_groups"]["fallback_entries"].get<std::size_t>(), 0U);
    EXPECT_TRUE(s["credit_loops"]["acyclic"].get<bool>());
    EXPECT_GT(s["credit_loops"]["dependencies"].get<std::size_t>(),
              json::parse(slurp(plain / "stats.json"))["unicast"]["credit_loops"]["dependencies"]
                  .get<std::size_t>())
        << flag;
  }
  expect_refused({"--fabric", "torus:x=3,y=3,z=1,nodes=1", "--pattern", "grid2d:3x3", "--ecmp"},
                 "--ecmp: the unicast engine is dor; port groups come from minhop, updn or ftree");
  expect_refused({"--fabric", spec, "--pattern", "grid2d:3x4", "--unicast", "none", "--lag"},
                 "--lag: the unicast engine is none");
  const RunResult both = run({"--fabric", spec, "--pattern", "grid2d:3x4", "--ecmp", "--lag",
                              "--out", (dir_ / "both").string(), "-q"});
  EXPECT_EQ(both.status, 1);
  EXPECT_FALSE(fs::exists(dir_ / "both"));
  const RunResult from =
      run({"--from", (dir_ / "ecmp").string(), "--fail", f.name(f.switch_node(0)) + "/1", "--out",
           (dir_ / "next").string(), "-q"});
  EXPECT_EQ(from.status, 1);
  EXPECT_NE(from.err.find("routed with --ecmp; incremental rerouting keeps no port groups"),
            std::string::npos)
      << from.err;
  const RunResult help = run({"--help"});
  for (const char* word : {"--ecmp", "--lag", "port_groups"}) {
    EXPECT_NE(help.out.find(word), std::string::npos) << word;
  }
}

}  // namespace
}  // namespace syncfab::sm
