// syncfab-route: the subnet manager's command-line tool. Reads or generates a
// fabric, builds or reads the multicast groups, routes them with one engine
// of the registry (mc_engines.hpp) and the unicast tables with one unicast
// engine, checks every tree and the unicast tables, and writes an output
// folder (fabric.net, groups.txt, mcfdbs, lfts.dump, guid2lid, stats.json).
//
// The folder appears complete or not at all: everything is written into a
// temporary sibling that is renamed into place only at the end, so bad input
// (or a crash) never leaves a half-written folder where the user looks.
#include <sys/stat.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/mcfdbs.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/net_format.hpp"
#include "syncfab/sm/route_stats.hpp"
#include "syncfab/sm/unicast.hpp"
#include "syncfab/sm/unicast_engines.hpp"

namespace {

using namespace syncfab::sm;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kExitError = 1;        // bad input or I/O error: nothing written
constexpr int kExitCheckFailed = 2;  // a tree or the unicast tables failed a check

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A user mistake worth one line, without a stack of context.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------
// Output folder: validated before any work, written into a temporary sibling,
// renamed into place last.

class StagedOutput {
 public:
  StagedOutput(const std::string& out, bool force) : force_(force) {
    if (out.empty()) {
      throw UsageError("--out: empty path");
    }
    target_ = fs::path(out);
    // "dir/" -> "dir"; a root ("/", "//") has no relative part and stops
    // here (its parent_path() is itself).
    while (target_.has_relative_path() && !target_.has_filename()) {
      target_ = target_.parent_path();
    }
    const std::string leaf = target_.filename().string();
    if (leaf.empty() || leaf == "." || leaf == "..") {
      throw UsageError("--out '" + out +
                       "': name the output folder itself, not '.', '..' or a root");
    }
    parent_ = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(parent_, ec)) {
      throw UsageError("--out '" + out + "': parent folder '" + parent_.string() +
                       "' does not exist");
    }
    check_target();
  }
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  ~StagedOutput() {
    if (!staging_.empty()) {
      std::error_code ec;
      fs::remove_all(staging_, ec);
    }
  }

  // Creates the temporary sibling (hidden, unique) the files go into.
  void begin() {
    std::string pattern =
        (parent_ / ("." + target_.filename().string() + ".syncfab-route-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary folder next to '" + target_.string() +
                               "': " + std::error_code(errno, std::generic_category()).message());
    }
    staging_ = pattern;
    // mkdtemp makes it 0700; the published folder gets the usual umask mode.
    const mode_t mask = umask(0);
    umask(mask);
    fs::permissions(staging_, static_cast<fs::perms>(0777 & ~mask));
  }
  [[nodiscard]] fs::path file(const std::string& name) const { return staging_ / name; }
  [[nodiscard]] const fs::path& target() const { return target_; }

  // Renames the staging folder to the target. An existing empty folder is
  // replaced by rename(2) itself; a non-empty one (only with --force) is moved
  // aside first and removed once the new one is in place.
  void commit() {
    check_target();  // the target may have changed while we computed
    std::error_code ec;
    fs::path aside;
    if (fs::exists(fs::symlink_status(target_, ec)) && !fs::is_empty(target_, ec)) {
      aside = staging_;
      aside += ".old";
      fs::rename(target_, aside, ec);
      if (ec) {
        throw std::runtime_error("cannot move the old '" + target_.string() +
                                 "' aside: " + ec.message());
      }
    }
    fs::rename(staging_, target_, ec);
    if (ec) {
      if (!aside.empty()) {
        std::error_code back;
        fs::rename(aside, target_, back);
      }
      throw std::runtime_error("cannot rename the output into '" + target_.string() +
                               "': " + ec.message());
    }
    staging_.clear();
    if (!aside.empty()) {
      fs::remove_all(aside, ec);
    }
  }

 private:
  void check_target() const {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(target_, ec);
    if (!fs::exists(st)) {
      return;
    }
    if (!fs::is_directory(st)) {
      throw UsageError("--out '" + target_.string() + "' exists and is not a folder");
    }
    if (!force_ && !fs::is_empty(target_, ec)) {
      throw UsageError("--out '" + target_.string() +
                       "' is a folder that is not empty (pass --force to replace it)");
    }
  }

  bool force_;
  fs::path target_;
  fs::path parent_;
  fs::path staging_;
};

void write_file(const fs::path& path, const std::function<void(std::ostream&)>& body) {
  std::vector<char> buffer(1 << 20);
  std::ofstream out;
  out.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.open(path);
  if (!out) {
    throw std::runtime_error("cannot create '" + path.string() + "'");
  }
  body(out);
  out.flush();
  if (!out) {
    throw std::runtime_error("error writing '" + path.string() + "' (disk full?)");
  }
}

// ---------------------------------------------------------------------------
// Unicast engines by name (unicast_engines.hpp), plus "none".

constexpr std::string_view kNoUnicastSummary = "no unicast routing, no lfts.dump";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// ---------------------------------------------------------------------------

struct Options {
  std::string fabric_spec;
  std::string net_file;
  std::string pattern;
  std::string groups_file;
  int ppn = 1;
  std::string placement = "aware";
  std::string mc_algorithm = "FULB-MC";
  std::string unicast;  // empty: the per-fabric default
  std::uint64_t seed = 1;
  std::string out;
  bool force = false;
  bool no_lfts_dump = false;
  std::string credit_check = "auto";
  bool quiet = false;
};

std::string help_footer() {
  std::string s = "\nMulticast engines (--mc-algorithm):\n";
  for (const McEngine& e : mc_engines()) {
    s += "  " + std::string(e.name) +
         std::string(e.name.size() < 18 ? 18 - e.name.size() : 1, ' ') + std::string(e.summary) +
         "\n";
  }
  s += "\nUnicast engines (--unicast; default: dor on a 3D torus, ftree when some switches carry\n"
       "no end nodes (fat trees), updn otherwise):\n";
  for (const UnicastEngineInfo& e : unicast_engines()) {
    s += "  " + std::string(e.name) + std::string(8 - e.name.size(), ' ') + std::string(e.summary) +
         "\n";
  }
  s += "  none    " + std::string(kNoUnicastSummary) + "\n";
  s += R"(
Fabric specs (--fabric): fattree[:ports=40,levels=3]  pruned[:paths=8|2,pods=,leaves=,nodes=,l2=,tops=]
  torus[:x=30,y=20,z=20,nodes=2]  dragonfly[:a=18,p=9,h=9]   (defaults = the FULB-MC paper's fabrics)
Patterns (--pattern): grid2d:RxC (rows and columns are groups), grid3d:XxYxZ (lines along each
  dimension), random:count=N,size=M; ranks placed --placement aware (rank r on end node r/ppn)
  or unaware (shuffled with --seed), --ppn processes per node (a node joins a group once).
Groups file (--groups): one group per line, optional MLID (0xC000..0xFFFE), then member node
  names (quoted when they hold spaces); '#' comments. This is the groups.txt the tool writes.

Output folder (--out DIR), created complete or not at all:
  fabric.net   the fabric in ibnetdiscover's net format (switchguid=/caguid= lines, node names)
  groups.txt   one line per group: MLID in hex, then the member node names
  mcfdbs       per-switch multicast forwarding tables, layout of OpenSM's opensm.mcfdbs
  lfts.dump    per-switch unicast tables, layout of OpenSM's opensm-lfts.dump (switches x LIDs
               lines: 4.9 GB for pruned:paths=2, about 30 GB for the 24,000-node torus;
               see --no-lfts-dump)
  guid2lid     every port's LID in OpenSM's guid2lid cache layout (with lfts.dump): OpenSM
               --honor_guid2lid -R file -U lfts.dump then loads the tables for these LIDs
  stats.json   sizes, algorithms, seed, EFI (max, mean over used links, histogram), tree heights,
               times (min-hop, multicast, unicast, checks), peak memory, check results

Exit status: 0 all checks passed; 1 bad input or I/O error (nothing written);
  2 a tree or the unicast tables failed a check (the folder is written, stats.json says what).

Examples:
  syncfab-route --fabric fattree:ports=8,levels=3 --pattern grid2d:16x8 --out run1
  syncfab-route --fabric pruned:paths=2 --pattern grid3d:40x32x32 --mc-algorithm FULB-MC \
                --no-lfts-dump --out taihulight
  syncfab-route --fabric torus --pattern grid3d:30x20x40 --unicast dor --no-lfts-dump --out torus
  syncfab-route --net cluster.net --groups groups.txt --mc-algorithm SSSP-MC-new --out cluster
  syncfab-route --fabric dragonfly:a=4,p=2,h=2 --pattern random:count=20,size=6 --ppn 4 \
                --placement unaware --seed 7 --mc-algorithm FULB-MC-DF --unicast updn --out df
  syncfab-route --fabric torus:x=4,y=4,z=1,nodes=1 --pattern grid2d:4x4 --unicast minhop \
                --credit-check always --out loops     (exit 2: MINHOP has credit loops on a torus)
)";
  return s;
}

json efi_json(const EfiSummary& e) {
  return json{{"max_switch_links", e.stats.max_switch_links},
              {"max_all_links", e.stats.max_all_links},
              {"mean_switch_links", e.stats.mean_switch_links},
              {"mean_all_links", e.stats.mean_all_links},
              {"used_switch_links", e.stats.used_switch_links},
              {"used_all_links", e.stats.used_all_links},
              {"histogram_switch_links", e.switch_links},
              {"histogram_all_links", e.all_links},
              {"histogram_note", "[k] = directed links out of a switch with EFI k; [0] = unused"}};
}

std::string hex_mlid(Lid mlid) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(mlid));
  return buf;
}

std::size_t count_links(const Fabric& f, bool switch_to_switch) {
  std::size_t n = 0;
  for (NodeId s : f.switches()) {
    for (int p = 1; p <= f.num_ports(s); ++p) {
      const PortPeer o = f.peer(s, static_cast<PortNum>(p));
      if (o.connected() && f.is_switch(o.node) == switch_to_switch) {
        ++n;
      }
    }
  }
  return switch_to_switch ? n / 2 : n;
}

int run(const Options& o, const std::string& command_line) {
  const auto t_start = Clock::now();
  auto log = [&](const std::string& msg) {
    if (!o.quiet) {
      std::fprintf(stderr, "syncfab-route: %s (%.2f s)\n", msg.c_str(), since(t_start));
    }
  };

  // Everything that can be refused cheaply is refused before any work.
  StagedOutput staged(o.out, o.force);
  const McEngine* engine = nullptr;
  try {
    engine = &find_mc_engine(o.mc_algorithm);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--mc-algorithm: ") + e.what());
  }
  std::string unicast = lower(o.unicast);
  if (!unicast.empty()) {
    if (unicast != "none" && !is_unicast_engine(unicast)) {
      throw UsageError("--unicast: unknown unicast engine '" + o.unicast +
                       "' (known: " + unicast_engine_names() + ", none)");
    }
  }

  std::optional<PatternSpec> pattern;
  if (o.groups_file.empty()) {
    pattern = parse_pattern(o.pattern);
    pattern->processes_per_node = o.ppn;
    pattern->placement = o.placement == "unaware" ? Placement::kUnaware : Placement::kAware;
    pattern->seed = o.seed;
  }

  // Fabric.
  auto t0 = Clock::now();
  Fabric fabric = o.net_file.empty() ? make_fabric(o.fabric_spec) : read_net_file(o.net_file);
  try {
    fabric.ensure_connected();
  } catch (const FabricError& e) {
    throw FabricError((o.net_file.empty() ? "--fabric " + o.fabric_spec : o.net_file) + ": " +
                      e.what());
  }
  const double fabric_s = since(t0);
  log("fabric: " + std::to_string(fabric.switch_count()) + " switches, " +
      std::to_string(fabric.hca_count()) + " end nodes");
  const bool unicast_default = unicast.empty();
  if (unicast_default) {
    unicast = default_unicast(fabric);
  }
  if (unicast == "lash" && fabric.switch_count() > kLashMaxSwitches) {
    throw UsageError("--unicast lash: " + std::to_string(fabric.switch_count()) +
                     " switches; LASH is limited to " + std::to_string(kLashMaxSwitches) +
                     " (it searches a graph per switch pair)");
  }
  if (engine->dragonfly_only && !o.fabric_spec.empty() &&
      o.fabric_spec.rfind("dragonfly", 0) != 0) {
    std::fprintf(stderr, "syncfab-route: warning: %s is meant for dragonfly fabrics\n",
                 std::string(engine->name).c_str());
  }

  // Groups.
  t0 = Clock::now();
  GroupSet groups;
  json groups_source;
  if (!pattern) {
    groups = read_groups_file(o.groups_file, fabric);
    groups_source = {{"file", o.groups_file}};
  } else {
    groups = make_groups(fabric, *pattern);
    groups_source = {{"pattern", o.pattern}, {"ppn", o.ppn}, {"placement", o.placement}};
  }
  const double groups_s = since(t0);
  log(std::to_string(groups.groups.size()) + " groups");

  // Routing and checks.
  t0 = Clock::now();
  const MinHop mh(fabric);
  const double minhop_s = since(t0);
  log("min-hop data");

  McLoad load(fabric);
  t0 = Clock::now();
  const std::vector<McTree> trees = engine->route_all(mh, groups.groups, load);
  const double mc_s = since(t0);
  if (trees.size() != groups.groups.size()) {
    throw std::logic_error(std::string(engine->name) + " returned " + std::to_string(trees.size()) +
                           " trees for " + std::to_string(groups.groups.size()) + " groups");
  }
  log(std::string(engine->name) + " routed " + std::to_string(trees.size()) + " groups");

  t0 = Clock::now();
  std::size_t tree_failures = 0;
  json tree_errors = json::array();
  for (std::size_t i = 0; i < trees.size(); ++i) {
    std::string err = check_tree(mh, groups.groups[i], trees[i]);
    if (err.empty() && trees[i].mlid != groups.groups[i].mlid) {
      err = "tree carries MLID " + hex_mlid(trees[i].mlid);
    }
    if (!err.empty()) {
      ++tree_failures;
      if (tree_errors.size() < 20) {
        tree_errors.push_back("MLID " + hex_mlid(groups.groups[i].mlid) + ": " + err);
      }
    }
  }
  const double tree_check_s = since(t0);
  for (const auto& e : tree_errors) {
    std::fprintf(stderr, "syncfab-route: tree check FAILED: %s\n", e.get<std::string>().c_str());
  }

  UnicastRouting uc;
  double uc_s = 0;
  double cdg_s = 0;
  json credit = {{"checked", false}};
  bool credit_failed = false;
  if (unicast != "none") {
    t0 = Clock::now();
    try {
      route_unicast(unicast, mh, uc);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--unicast ") + e.what());
    }
    uc_s = since(t0);
    log("unicast " + unicast);
    const bool check =
        o.credit_check == "always" || (o.credit_check == "auto" && uc.promises_acyclic);
    if (check) {
      t0 = Clock::now();
      const CreditLoopReport r = check_credit_loops(*uc.lft, uc.vls);
      cdg_s = since(t0);
      credit = {{"checked", true},
                {"acyclic", r.acyclic},
                {"lanes", uc.vls.lanes},
                {"channels", r.channels},
                {"dependencies", r.dependencies}};
      if (!r.acyclic) {
        credit_failed = true;
        credit["cycle_links"] = r.cycle.size();
        credit["cycle"] = r.describe(fabric);
        std::fprintf(stderr,
                     "syncfab-route: credit-loop check FAILED (%s): cycle of %zu links: %s\n",
                     unicast.c_str(), r.cycle.size(), r.describe(fabric).c_str());
      }
      log(std::string("credit-loop check: ") + (r.acyclic ? "acyclic" : "CYCLE"));
    } else {
      credit["reason"] = o.credit_check == "never" ? "--credit-check never"
                                                   : unicast + " does not promise deadlock freedom";
    }
  } else {
    credit["reason"] = "--unicast none";
  }

  // Output.
  t0 = Clock::now();
  staged.begin();
  write_file(staged.file("fabric.net"), [&](std::ostream& out) { write_net(out, fabric); });
  write_file(staged.file("groups.txt"),
             [&](std::ostream& out) { write_groups(out, fabric, groups); });
  write_file(staged.file("mcfdbs"), [&](std::ostream& out) { write_mcfdbs(out, fabric, trees); });
  if (uc.lft && !o.no_lfts_dump) {
    write_file(staged.file("lfts.dump"), [&](std::ostream& out) { write_lfts_dump(out, *uc.lft); });
    write_file(staged.file("guid2lid"), [&](std::ostream& out) { write_guid2lid(out, fabric); });
  }
  const double write_s = since(t0);

  const bool ok = tree_failures == 0 && !credit_failed;
  const EfiSummary efi = summarize_efi(fabric, load);
  const HeightSummary heights = summarize_heights(trees);
  std::size_t member_total = 0;
  for (const Group& g : groups.groups) {
    member_total += g.members.size();
  }
  const std::uint64_t rss = peak_rss_bytes();
  json stats = {
      {"tool", "syncfab-route"},
      {"command", command_line},
      {"ok", ok},
      {"seed", o.seed},
      {"fabric",
       {{"source", o.net_file.empty() ? json{{"spec", o.fabric_spec}} : json{{"net", o.net_file}}},
        {"switches", fabric.switch_count()},
        {"end_nodes", fabric.hca_count()},
        {"switch_links", count_links(fabric, true)},
        {"end_node_links", count_links(fabric, false)},
        {"max_lid", fabric.max_lid()}}},
      {"groups",
       {{"source", groups_source},
        {"count", groups.groups.size()},
        {"single_node_groups", groups.single_node_groups},
        {"members_total", member_total}}},
      {"multicast",
       {{"algorithm", engine->name},
        {"route_s", mc_s},
        {"efi", efi_json(efi)},
        {"tree_height",
         {{"min", heights.min},
          {"max", heights.max},
          {"mean", heights.mean},
          {"histogram", heights.histogram}}},
        {"tree_check",
         {{"ok", tree_failures == 0},
          {"checked", trees.size()},
          {"failed", tree_failures},
          {"errors", tree_errors}}}}},
      {"unicast",
       {{"algorithm", unicast},
        {"default_choice", unicast_default},
        {"route_s", uc_s},
        {"lft_bits_per_entry", uc.lft ? uc.lft->bits_per_entry() : 0},
        {"lfts_dump_written", uc.lft.has_value() && !o.no_lfts_dump},
        {"credit_loops", credit}}},
      {"time_s",
       {{"fabric", fabric_s},
        {"groups", groups_s},
        {"minhop", minhop_s},
        {"multicast_route", mc_s},
        {"tree_check", tree_check_s},
        {"unicast_route", uc_s},
        {"credit_loop_check", cdg_s},
        {"write_outputs", write_s},
        {"total", since(t_start)}}},
      {"minhop_bytes", mh.memory_bytes()},
      {"peak_rss_bytes", rss},
      {"peak_rss_mb", static_cast<double>(rss) / (1024.0 * 1024.0)},
  };
  write_file(staged.file("stats.json"), [&](std::ostream& out) { out << stats.dump(2) << "\n"; });
  staged.commit();
  log("wrote " + staged.target().string() + (ok ? "" : " (CHECKS FAILED)"));
  if (!o.quiet) {
    std::printf(
        "%s: %zu groups, %s + %s, max EFI %u (switch links) / %u (all), mean %.2f, heights %d..%d, "
        "multicast %.3f s, unicast %.3f s, peak %.0f MB, %s\n",
        staged.target().string().c_str(), groups.groups.size(), std::string(engine->name).c_str(),
        unicast.c_str(), efi.stats.max_switch_links, efi.stats.max_all_links,
        efi.stats.mean_switch_links, heights.min, heights.max, mc_s, uc_s,
        static_cast<double>(rss) / (1024.0 * 1024.0), ok ? "all checks passed" : "CHECKS FAILED");
  }
  return ok ? 0 : kExitCheckFailed;
}

int main_impl(int argc, char** argv) {
  Options o;
  CLI::App app{
      "syncfab-route: route the multicast groups and unicast tables of a fabric (generated or\n"
      "read from an ibnetdiscover net file), check every tree and the unicast tables for credit\n"
      "loops, and write fabric.net, groups.txt, mcfdbs, lfts.dump, guid2lid and stats.json to a\n"
      "folder.\n"
      "Needs the fabric (--fabric or --net), the groups (--pattern or --groups) and --out.",
      "syncfab-route"};
  app.footer(help_footer());
  auto* fabric_opt = app.add_option("--fabric", o.fabric_spec,
                                    "generate the fabric from SPEC, e.g. fattree:ports=8,levels=3, "
                                    "pruned:paths=2, torus:x=4,y=4,z=2,nodes=2")
                         ->option_text("SPEC");
  auto* net_opt =
      app.add_option("--net", o.net_file, "read the fabric from an ibnetdiscover / ibsim net file")
          ->option_text("FILE");
  fabric_opt->excludes(net_opt);
  auto* pattern_opt = app.add_option("--pattern", o.pattern,
                                     "build the groups from a pattern: grid2d:RxC, grid3d:XxYxZ, "
                                     "random:count=N,size=M")
                          ->option_text("SPEC");
  auto* groups_opt =
      app.add_option("--groups", o.groups_file,
                     "read the groups from a groups.txt file (MLID column optional; a member by "
                     "node id, GUID 0x.., or a description only it has)")
          ->option_text("FILE");
  pattern_opt->excludes(groups_opt);
  app.add_option("--ppn", o.ppn, "processes per node for --pattern (the paper uses 1 and 4)")
      ->check(CLI::PositiveNumber)
      ->needs(pattern_opt)
      ->capture_default_str();
  app.add_option("--placement", o.placement,
                 "rank placement for --pattern: aware (rank r on end node r/ppn) or unaware "
                 "(shuffled with --seed)")
      ->check(CLI::IsMember({"aware", "unaware"}))
      ->needs(pattern_opt)
      ->capture_default_str();
  app.add_option("--mc-algorithm", o.mc_algorithm, "multicast engine (list below)")
      ->option_text("NAME")
      ->capture_default_str();
  app.add_option("--unicast", o.unicast,
                 "unicast engine: minhop, updn, ftree, dor, lash or none (default per fabric, "
                 "below)")
      ->option_text("NAME");
  app.add_option("--seed", o.seed, "seed of unaware placement and random groups")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--out", o.out, "output folder (created; must not exist or be empty)")
      ->option_text("DIR")
      ->required();
  app.add_flag("--force", o.force, "replace an existing non-empty output folder");
  app.add_flag(
      "--no-lfts-dump", o.no_lfts_dump,
      "route and check the unicast tables but do not write lfts.dump (huge on big fabrics)");
  app.add_option("--credit-check", o.credit_check,
                 "credit-loop check of the unicast tables: auto (when the engine promises "
                 "acyclic), always (a cycle fails the run), never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag("-q,--quiet", o.quiet, "no progress on stderr, no summary on stdout");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input (exit 1, as documented).
    return app.exit(e) == 0 ? 0 : kExitError;
  }
  if (o.fabric_spec.empty() && o.net_file.empty()) {
    throw UsageError("give the fabric: --fabric SPEC or --net FILE (see --help)");
  }
  if (o.pattern.empty() && o.groups_file.empty()) {
    throw UsageError("give the groups: --pattern SPEC or --groups FILE (see --help)");
  }
  std::string command_line;
  for (int i = 0; i < argc; ++i) {
    command_line += (i == 0 ? "" : " ") + std::string(argv[i]);
  }
  return run(o, command_line);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "syncfab-route: error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "syncfab-route: error: unknown exception\n");
  }
  return kExitError;
}
