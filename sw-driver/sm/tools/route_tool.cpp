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
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/efi_bound.hpp"
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
#include "syncfab/sm/port_groups.hpp"
#include "syncfab/sm/reroute.hpp"
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
  bool ecmp = false;
  bool lag = false;
  std::uint32_t max_lid = kLastUnicastLid;
  std::string credit_check = "auto";
  bool quiet = false;
  // Failure workflow: an existing output folder, the changes to apply.
  std::string from;
  std::vector<std::string> fail;
  std::vector<std::string> repair;
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
               see --no-lfts-dump); not written, nor guid2lid, when destinations past the LID
               space (0xBFFF, or --max-lid) have no LID: said on stderr and in stats.json
  port_groups  with --ecmp or --lag (and lfts.dump): per switch its port groups ("0x<guid> <group>
               <port> ..."), then the LFT entries naming one ("0x<guid> lid 0x<LID> group <g>");
               lfts.dump keeps each such entry's single port (sw-driver/sm/README.md)
  guid2lid     every port's LID in OpenSM's guid2lid cache layout (with lfts.dump): OpenSM
               --honor_guid2lid -R file -U lfts.dump then loads the tables for these LIDs
  stats.json   sizes, algorithms, seed, EFI (max, mean over used links, histogram), a lower bound
               of the max EFI any trees could reach and the engine's ratio to it, tree heights,
               times (min-hop, multicast, unicast, checks), peak memory, check results

Failures and repairs (--from DIR --out NEWDIR --fail SPEC --repair SPEC): the routed state of
  DIR (its fabric.net, groups.txt, failures.json and engines, checked against its mcfdbs and
  lfts.dump) is changed incrementally: only the distances, LFT entries and trees a change
  touches are recomputed. NEWDIR gets the new fabric.net, mcfdbs, lfts.dump (when DIR has one),
  groups.txt, failures.json (links down and every change so far, so NEWDIR can be --from
  again), lft.delta and mft.delta (per switch, the entries to rewrite against DIR's tables)
  and stats.json (per change: what was recomputed, groups with members cut off, times).
  SPEC: link:NODE/PORT (either end of the cable; NODE by id, name, GUID or a description only
  it has) or switch:NODE (--fail only). Unicast engines: minhop, updn, ftree, dor (lash
  refused). A group whose members are cut off is reported and routed over the rest.

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
  syncfab-route --from run1 --fail link:sw-l2-0/1 --fail switch:sw-l1-3 --out run1-failed
  syncfab-route --from run1-failed --repair link:sw-l2-0/1 --out run1-repaired
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

json cut_json(const EfiCut& c) {
  return json{{"family", c.family},     {"what", c.what},
              {"bound", c.bound},       {"crossing", c.crossing},
              {"boundary", c.boundary}, {"demand", c.demand},
              {"inner", c.inner},       {"switches", c.switches.size()}};
}

// The lower bound next to what the engine reached: ratio = max / bound (null
// when the bound is 0, i.e. nothing to route).
json bound_json(const EfiBound& b, const EfiSummary& e, double secs) {
  auto ratio = [](std::uint32_t got, std::uint32_t bound) {
    return bound == 0 ? json(nullptr) : json(static_cast<double>(got) / bound);
  };
  json families = json::array();
  for (const EfiCut& c : b.families) {
    families.push_back(cut_json(c));
  }
  return json{{"switch_links", b.switch_links},
              {"all_links", b.all_links},
              {"end_node", b.end_node},
              {"end_node_what", b.end_node_what},
              {"ratio_switch_links", ratio(e.stats.max_switch_links, b.switch_links)},
              {"ratio_all_links", ratio(e.stats.max_all_links, b.all_links)},
              {"cut", cut_json(b.best)},
              {"families", families},
              {"cuts_evaluated", b.cuts},
              {"time_s", secs},
              {"note",
               "no set of trees can have a lower max EFI; from cut and volume arguments "
               "(sw-driver/sm/README.md, \"EFI lower bound\")"}};
}

std::string ratio_text(std::uint32_t got, std::uint32_t bound) {
  if (bound == 0) {
    return "-";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(got) / bound);
  return buf;
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
  fabric.limit_lids(static_cast<Lid>(o.max_lid));
  try {
    fabric.ensure_connected();
  } catch (const FabricError& e) {
    throw FabricError((o.net_file.empty() ? "--fabric " + o.fabric_spec : o.net_file) + ": " +
                      e.what());
  }
  const double fabric_s = since(t0);
  const std::size_t lidless = fabric.lidless_count();
  log("fabric: " + std::to_string(fabric.switch_count()) + " switches, " +
      std::to_string(fabric.hca_count()) + " end nodes" +
      (lidless == 0
           ? std::string()
           : ", " + std::to_string(lidless) + " of " + std::to_string(fabric.destination_count()) +
                 " destinations without a LID (routed by destination index)"));
  const bool unicast_default = unicast.empty();
  if (unicast_default) {
    unicast = default_unicast(fabric);
  }
  const GroupMode group_mode =
      o.ecmp ? GroupMode::kEcmp : (o.lag ? GroupMode::kLag : GroupMode::kOff);
  if (group_mode != GroupMode::kOff && unicast != "minhop" && unicast != "updn" &&
      unicast != "ftree") {
    throw UsageError(std::string("--") + std::string(group_mode_name(group_mode)) +
                     ": the unicast engine is " + unicast +
                     "; port groups come from minhop, updn or ftree");
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
  // Past the LID space the tables are still routed and checked per
  // destination; only the OpenSM files need a LID for each.
  json lfts_dump_skipped = nullptr;
  if (unicast == "none") {
    lfts_dump_skipped = "--unicast none";
  } else if (o.no_lfts_dump) {
    lfts_dump_skipped = "--no-lfts-dump";
  } else if (lidless != 0) {
    const std::string why =
        std::to_string(lidless) + " of " + std::to_string(fabric.destination_count()) +
        " destinations have no LID (the LID space ends at " + hex_lid(fabric.last_lid()) +
        "): lfts.dump and guid2lid need one per destination";
    lfts_dump_skipped = why;
    std::fprintf(stderr, "syncfab-route: note: not writing lfts.dump and guid2lid: %s\n",
                 why.c_str());
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
  uc.group_mode = group_mode;
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
      const CreditLoopReport r =
          check_credit_loops(*uc.lft, uc.groups ? &*uc.groups : nullptr, uc.vls);
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
  const bool lfts_dump = uc.lft && !o.no_lfts_dump && lidless == 0;
  if (lfts_dump) {
    write_file(staged.file("lfts.dump"), [&](std::ostream& out) { write_lfts_dump(out, *uc.lft); });
    write_file(staged.file("guid2lid"), [&](std::ostream& out) { write_guid2lid(out, fabric); });
    if (uc.groups) {
      write_file(staged.file("port_groups"),
                 [&](std::ostream& out) { write_port_groups(out, *uc.lft, *uc.groups); });
    }
  }
  const double write_s = since(t0);

  const bool ok = tree_failures == 0 && !credit_failed;
  json groups_json = {{"mode", group_mode_name(group_mode)}};
  if (uc.groups) {
    std::size_t max_per_switch = 0;
    for (SwitchIdx s = 0; s < fabric.switch_count(); ++s) {
      max_per_switch = std::max(max_per_switch, uc.groups->group_count(s));
    }
    groups_json["groups"] = uc.groups->total_groups();
    groups_json["max_groups_per_switch"] = max_per_switch;
    groups_json["limit_per_switch"] = syncfab::fmt::kPortGroups;
    groups_json["grouped_entries"] = uc.groups->grouped_entries();
    groups_json["fallback_entries"] = uc.groups->fallback_entries();
    groups_json["file_written"] = lfts_dump;
  }
  const EfiSummary efi = summarize_efi(fabric, load);
  t0 = Clock::now();
  const EfiBound bound = efi_lower_bound(fabric, groups.groups, &mh);
  const double bound_s = since(t0);
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
        {"max_lid", fabric.max_lid()},
        {"last_lid", fabric.last_lid()},
        {"destinations", fabric.destination_count()},
        {"destinations_without_lid", lidless}}},
      {"groups",
       {{"source", groups_source},
        {"count", groups.groups.size()},
        {"single_node_groups", groups.single_node_groups},
        {"members_total", member_total}}},
      {"multicast",
       {{"algorithm", engine->name},
        {"route_s", mc_s},
        {"efi", efi_json(efi)},
        {"efi_lower_bound", bound_json(bound, efi, bound_s)},
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
        {"lfts_dump_written", lfts_dump},
        {"lfts_dump_skipped", lfts_dump_skipped},
        {"port_groups", groups_json},
        {"credit_loops", credit}}},
      {"time_s",
       {{"fabric", fabric_s},
        {"groups", groups_s},
        {"minhop", minhop_s},
        {"multicast_route", mc_s},
        {"tree_check", tree_check_s},
        {"efi_lower_bound", bound_s},
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
        "%s: %zu groups, %s + %s, max EFI %u (switch links) / %u (all), lower bound %u / %u "
        "(ratio %s / %s), mean %.2f, heights %d..%d, multicast %.3f s, unicast %.3f s, peak %.0f "
        "MB, %s\n",
        staged.target().string().c_str(), groups.groups.size(), std::string(engine->name).c_str(),
        unicast.c_str(), efi.stats.max_switch_links, efi.stats.max_all_links, bound.switch_links,
        bound.all_links, ratio_text(efi.stats.max_switch_links, bound.switch_links).c_str(),
        ratio_text(efi.stats.max_all_links, bound.all_links).c_str(), efi.stats.mean_switch_links,
        heights.min, heights.max, mc_s, uc_s, static_cast<double>(rss) / (1024.0 * 1024.0),
        ok ? "all checks passed" : "CHECKS FAILED");
  }
  return ok ? 0 : kExitCheckFailed;
}

// ---------------------------------------------------------------------------
// Failure workflow (--from DIR --fail SPEC --repair SPEC): the routed state of
// an existing output folder, changed incrementally (reroute.hpp).

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read '" + p.string() + "'");
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "link:NODE/PORT" -> (node, port); "switch:NODE" -> (node, 0).
struct ChangeSpec {
  enum class Kind : std::uint8_t { kFailLink, kFailSwitch, kRepairLink } kind{};
  NodeId node = kNoNode;
  PortNum port = 0;
  std::string text;
};

ChangeSpec parse_change(const Fabric& f, const std::string& text, bool repair) {
  const std::string opt = repair ? "--repair" : "--fail";
  const auto colon = text.find(':');
  const std::string kind = colon == std::string::npos ? "" : text.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  ChangeSpec c;
  c.text = (repair ? "repair " : "fail ") + text;
  auto node_of = [&](const std::string& name) {
    try {
      return f.resolve(name);
    } catch (const FabricError& e) {
      throw UsageError(opt + " '" + printable(text) + "': " + e.what());
    }
  };
  if (kind == "switch" && !repair) {
    c.kind = ChangeSpec::Kind::kFailSwitch;
    c.node = node_of(rest);
    if (!f.is_switch(c.node)) {
      throw UsageError(opt + " '" + printable(text) + "': \"" + f.name(c.node) +
                       "\" is not a switch");
    }
    return c;
  }
  if (kind != "link") {
    throw UsageError(opt + " '" + printable(text) + "': expected " +
                     (repair ? "link:NODE/PORT" : "link:NODE/PORT or switch:NODE"));
  }
  const auto slash = rest.rfind('/');
  if (slash == std::string::npos || slash + 1 == rest.size()) {
    throw UsageError(opt + " '" + printable(text) + "': expected link:NODE/PORT");
  }
  c.kind = repair ? ChangeSpec::Kind::kRepairLink : ChangeSpec::Kind::kFailLink;
  c.node = node_of(rest.substr(0, slash));
  const std::string port = rest.substr(slash + 1);
  if (port.empty() || port.size() > 3 ||
      !std::all_of(port.begin(), port.end(), [](unsigned char ch) { return std::isdigit(ch); }) ||
      std::stoi(port) < 1 || std::stoi(port) > f.num_ports(c.node)) {
    throw UsageError(opt + " '" + printable(text) + "': port '" + printable(port) + "' of \"" +
                     f.name(c.node) + "\" is not one of 1.." + std::to_string(f.num_ports(c.node)));
  }
  c.port = static_cast<PortNum>(std::stoi(port));
  return c;
}

RerouteDelta apply_change(RouteState& st, const ChangeSpec& c, const RerouteOptions& ro) {
  try {
    switch (c.kind) {
      case ChangeSpec::Kind::kFailLink:
        return fail_link(st, c.node, c.port, ro);
      case ChangeSpec::Kind::kFailSwitch:
        return fail_switch(st, c.node, ro);
      case ChangeSpec::Kind::kRepairLink:
        return repair_link(st, c.node, c.port, ro);
    }
  } catch (const FabricError& e) {
    throw UsageError(c.text + ": " + e.what());
  }
  return {};
}

std::string guid_hex(std::uint64_t g) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(g));
  return buf;
}

int run_changes(const Options& o, const std::string& command_line) {
  const auto t_start = Clock::now();
  auto log = [&](const std::string& msg) {
    if (!o.quiet) {
      std::fprintf(stderr, "syncfab-route: %s (%.2f s)\n", msg.c_str(), since(t_start));
    }
  };
  StagedOutput staged(o.out, o.force);
  const fs::path from(o.from);
  std::error_code ec;
  if (!fs::is_directory(from, ec)) {
    throw UsageError("--from '" + o.from + "': not a folder");
  }
  for (const char* name : {"stats.json", "fabric.net", "groups.txt", "mcfdbs"}) {
    if (!fs::exists(from / name, ec)) {
      throw UsageError("--from '" + o.from + "': no " + name +
                       " (not an output folder of syncfab-route)");
    }
  }
  if (fs::equivalent(from, staged.target(), ec)) {
    throw UsageError("--out must be a new folder, not the --from folder");
  }
  json prev;
  try {
    prev = json::parse(slurp(from / "stats.json"));
  } catch (const json::exception& e) {
    throw UsageError("--from '" + o.from + "': stats.json: " + e.what());
  }
  const std::string mc = prev.at("multicast").at("algorithm").get<std::string>();
  const std::string uc = prev.at("unicast").at("algorithm").get<std::string>();
  if (const std::string mode =
          prev.at("unicast").value("port_groups", json::object()).value("mode", "off");
      mode != "off") {
    throw UsageError("--from '" + o.from + "': routed with --" + mode +
                     "; incremental rerouting keeps no port groups (route the changed fabric "
                     "again instead)");
  }
  json history = json{{"down", json::array()}, {"changes", json::array()}};
  if (fs::exists(from / "failures.json", ec)) {
    history = json::parse(slurp(from / "failures.json"));
  }

  // The folder's routed state: its fabric with the links that are down
  // cabled again, routed in full, then its changes replayed in order.
  auto t0 = Clock::now();
  // Destinations past the LID space have no LID in fabric.net: numbered
  // only once the links that are down are cabled again, they get the
  // indices (node order) they were routed with.
  Fabric fabric = read_net_file((from / "fabric.net").string(), false);
  for (const json& d : history.at("down")) {
    const NodeId a = fabric.resolve(d.at("a").get<std::string>());
    const NodeId b = fabric.resolve(d.at("b").get<std::string>());
    fabric.connect(a, d.at("pa").get<PortNum>(), b, d.at("pb").get<PortNum>());
    // An end node's port without its cable is written without its LID.
    for (const auto& [node, port, lid] :
         {std::tuple{a, d.at("pa").get<PortNum>(), d.value("lid_a", Lid{0})},
          std::tuple{b, d.at("pb").get<PortNum>(), d.value("lid_b", Lid{0})}}) {
      if (lid != 0 && fabric.lid(node, port) == 0) {
        fabric.set_lid(node, port, lid);
      }
    }
  }
  fabric.assign_lids();
  fabric.limit_lids(prev.value("fabric", json::object()).value("last_lid", kLastUnicastLid));
  GroupSet groups = read_groups_file((from / "groups.txt").string(), fabric);
  RouteState st = [&] {
    try {
      return route_state(std::move(fabric), std::move(groups.groups), uc, mc);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--from '" + o.from + "': " + e.what());
    }
  }();
  RerouteOptions quiet_options;
  quiet_options.credit_check = false;
  for (const json& c : history.at("changes")) {
    const std::string op = c.at("op").get<std::string>();
    const NodeId node = st.fabric->resolve(c.at("node").get<std::string>());
    const PortNum port = c.value("port", PortNum{0});
    if (op == "fail-link") {
      (void)fail_link(st, node, port, quiet_options);
    } else if (op == "fail-switch") {
      (void)fail_switch(st, node, quiet_options);
    } else if (op == "repair-link") {
      (void)repair_link(st, node, port, quiet_options);
    } else {
      throw UsageError("--from '" + o.from + "': failures.json: unknown change '" + op + "'");
    }
  }
  // The tables the folder holds must be the ones this state programs, or
  // a delta against them would be wrong.
  {
    std::ostringstream mcf;
    write_mcfdbs(mcf, *st.fabric, st.trees);
    if (mcf.str() != slurp(from / "mcfdbs")) {
      throw UsageError("--from '" + o.from +
                       "': mcfdbs differs from the trees its fabric.net, groups.txt and "
                       "failures.json route to (edited, or written by another version)");
    }
    if (st.uc.lft && fs::exists(from / "lfts.dump", ec)) {
      std::ostringstream lf;
      write_lfts_dump(lf, *st.uc.lft);
      if (lf.str() != slurp(from / "lfts.dump")) {
        throw UsageError("--from '" + o.from +
                         "': lfts.dump differs from the tables its fabric.net, groups.txt and "
                         "failures.json route to");
      }
    }
  }
  const double restore_s = since(t0);
  log("state of " + o.from + " restored: " + mc + " + " + uc);

  std::vector<ChangeSpec> changes;
  for (const std::string& r : o.repair) {
    changes.push_back(parse_change(*st.fabric, r, true));
  }
  for (const std::string& f : o.fail) {
    changes.push_back(parse_change(*st.fabric, f, false));
  }
  std::optional<Lft> before;
  if (st.uc.lft) {
    before.emplace(*st.uc.lft);
  }
  const MftMasks masks_before = mft_masks(st.trees);
  RerouteOptions ro;
  ro.credit_check = o.credit_check != "never";
  json change_stats = json::array();
  bool credit_failed = false;
  const Fabric& f = *st.fabric;
  for (const ChangeSpec& c : changes) {
    const RerouteDelta d = apply_change(st, c, ro);
    json groups_json = json::array();
    for (const GroupReport& g : d.groups) {
      json cut = json::array();
      for (NodeId n : g.cut_off) {
        cut.push_back(f.name(n));
      }
      groups_json.push_back({{"mlid", hex_mlid(g.mlid)}, {"cut_off", cut}, {"what", g.what}});
      std::fprintf(stderr, "syncfab-route: %s: group %s: %s%s\n", c.text.c_str(),
                   hex_mlid(g.mlid).c_str(), g.what.c_str(),
                   g.cut_off.empty()
                       ? ""
                       : (" (" + std::to_string(g.cut_off.size()) + " member(s) cut off)").c_str());
    }
    json credit = {{"checked", d.credit.has_value()}};
    if (d.credit) {
      credit["acyclic"] = d.credit->acyclic;
      if (!d.credit->acyclic) {
        credit_failed = true;
        credit["cycle"] = d.credit->describe(f);
        std::fprintf(stderr, "syncfab-route: %s: credit-loop check FAILED: %s\n", c.text.c_str(),
                     d.credit->describe(f).c_str());
      }
    }
    if (!d.unicast_note.empty()) {
      std::fprintf(stderr, "syncfab-route: %s: %s\n", c.text.c_str(), d.unicast_note.c_str());
    }
    if (!d.turns_ok) {
      credit_failed = true;
      std::fprintf(stderr, "syncfab-route: %s: up*/down* turn check FAILED: %s\n", c.text.c_str(),
                   d.turn_violation.c_str());
    }
    change_stats.push_back({{"change", c.text},
                            {"updn_turns",
                             {{"checked_entries", d.turns_checked},
                              {"ok", d.turns_ok},
                              {"violation", d.turn_violation},
                              {"time_s", d.turns_s}}},
                            {"distance_changes", d.distance_changes},
                            {"lft_entries_examined", d.lids_examined},
                            {"lft_entries_changed", d.lft.size()},
                            {"trees_rerouted", d.trees_rerouted},
                            {"mft_entries_changed", d.mft.size()},
                            {"unicast_full", d.unicast_full},
                            {"unicast_note", d.unicast_note},
                            {"groups", groups_json},
                            {"credit_loops", credit},
                            {"time_s",
                             {{"minhop", d.minhop_s},
                              {"unicast", d.unicast_s},
                              {"multicast", d.multicast_s},
                              {"reroute", d.reroute_s()},
                              {"credit_loop_check", d.credit_s}}}});
    history["changes"].push_back({{"op", c.kind == ChangeSpec::Kind::kFailLink     ? "fail-link"
                                         : c.kind == ChangeSpec::Kind::kFailSwitch ? "fail-switch"
                                                                                   : "repair-link"},
                                  {"node", f.id(c.node)},
                                  {"port", c.port}});
    log(c.text + ": " + std::to_string(d.lft.size()) + " LFT and " + std::to_string(d.mft.size()) +
        " MFT entries, " + std::to_string(d.trees_rerouted) + " trees rerouted in " +
        std::to_string(static_cast<int>(d.reroute_s() * 1e3)) + " ms");
  }
  history["down"] = json::array();
  for (const FailedLink& l : st.failed) {
    history["down"].push_back({{"a", f.id(l.a)},
                               {"pa", l.pa},
                               {"lid_a", f.is_switch(l.a) ? 0 : f.lid(l.a, l.pa)},
                               {"b", f.id(l.b)},
                               {"pb", l.pb},
                               {"lid_b", f.is_switch(l.b) ? 0 : f.lid(l.b, l.pb)}});
  }

  // The delta of all the changes against the folder's tables.
  std::map<SwitchIdx, std::vector<std::pair<Dest, PortNum>>> lft_delta;
  std::size_t lft_entries = 0;
  if (before) {
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      for (std::size_t l = 1; l < before->dest_count(); ++l) {
        const PortNum now = st.uc.lft->get(s, static_cast<Dest>(l));
        if (now != before->get(s, static_cast<Dest>(l))) {
          lft_delta[s].emplace_back(static_cast<Dest>(l), now);
          ++lft_entries;
        }
      }
    }
  }
  RerouteDelta total;
  {
    const MftMasks after = mft_masks(st.trees);
    std::map<std::pair<SwitchIdx, Lid>, std::vector<PortNum>> a, b;
    for (const MftChange& m : masks_before) {
      b[{m.sw, m.mlid}] = m.ports;
    }
    for (const MftChange& m : after) {
      a[{m.sw, m.mlid}] = m.ports;
    }
    for (const auto& [k, ports] : b) {
      if (!a.contains(k) && st.dead_switch[k.first] == 0) {
        total.mft.push_back({k.first, k.second, {}});
      }
    }
    for (const auto& [k, ports] : a) {
      const auto it = b.find(k);
      if (it == b.end() || it->second != ports) {
        total.mft.push_back({k.first, k.second, ports});
      }
    }
    std::sort(total.mft.begin(), total.mft.end(), [](const MftChange& x, const MftChange& y) {
      return x.sw != y.sw ? x.sw < y.sw : x.mlid < y.mlid;
    });
  }

  t0 = Clock::now();
  staged.begin();
  write_file(staged.file("fabric.net"), [&](std::ostream& out) { write_net(out, f); });
  write_file(staged.file("groups.txt"),
             [&](std::ostream& out) { out << slurp(from / "groups.txt"); });
  write_file(staged.file("mcfdbs"), [&](std::ostream& out) { write_mcfdbs(out, f, st.trees); });
  if (st.uc.lft && fs::exists(from / "lfts.dump", ec)) {
    write_file(staged.file("lfts.dump"),
               [&](std::ostream& out) { write_lfts_dump(out, *st.uc.lft); });
    write_file(staged.file("guid2lid"), [&](std::ostream& out) { write_guid2lid(out, f); });
  }
  write_file(staged.file("failures.json"),
             [&](std::ostream& out) { out << history.dump(2) << "\n"; });
  write_file(staged.file("lft.delta"), [&](std::ostream& out) {
    out << "# LFT entries to rewrite, per switch: LID and new port (0xFF = unrouted), then the\n"
           "# 64-entry LinearForwardingTable blocks they fall in.\n";
    for (const auto& [s, entries] : lft_delta) {
      const NodeId node = f.switch_node(s);
      out << "Switch " << guid_hex(f.guid(node)) << " ('" << f.name(node)
          << "'): " << entries.size() << " entries\n";
      std::vector<unsigned> blocks;
      for (const auto& [l, p] : entries) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%04x %03u\n", static_cast<unsigned>(l),
                      static_cast<unsigned>(p));
        out << buf;
        if (blocks.empty() || blocks.back() != l / 64U) {
          blocks.push_back(l / 64U);
        }
      }
      out << "blocks:";
      for (unsigned b : blocks) {
        out << " " << b;
      }
      out << "\n";
    }
  });
  write_file(staged.file("mft.delta"), [&](std::ostream& out) {
    out << "# MFT entries to rewrite, per switch: MLID and its whole new port mask (none =\n"
           "# cleared), in mcfdbs's layout.\n";
    SwitchIdx last = kNoSwitch;
    for (const MftChange& m : total.mft) {
      if (m.sw != last) {
        out << "Switch " << guid_hex(f.guid(f.switch_node(m.sw))) << " ('"
            << f.name(f.switch_node(m.sw)) << "')\n";
        last = m.sw;
      }
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%04X :", static_cast<unsigned>(m.mlid));
      out << buf;
      if (m.ports.empty()) {
        out << " none";
      }
      for (PortNum p : m.ports) {
        std::snprintf(buf, sizeof buf, " 0x%03X ", static_cast<unsigned>(p));
        out << buf;
      }
      out << "\n";
    }
  });
  const double write_s = since(t0);
  const bool ok = !credit_failed;
  json stats = {
      {"tool", "syncfab-route"},
      {"command", command_line},
      {"ok", ok},
      {"from", o.from},
      {"fabric",
       {{"max_lid", f.max_lid()},
        {"last_lid", f.last_lid()},
        {"destinations", f.destination_count()},
        {"destinations_without_lid", f.lidless_count()}}},
      {"multicast", {{"algorithm", mc}}},
      {"unicast", {{"algorithm", uc}}},
      {"changes", change_stats},
      {"delta", {{"lft_entries", lft_entries}, {"mft_entries", total.mft.size()}}},
      {"links_down", history["down"].size()},
      {"time_s", {{"restore", restore_s}, {"write_outputs", write_s}, {"total", since(t_start)}}},
      {"peak_rss_bytes", peak_rss_bytes()}};
  write_file(staged.file("stats.json"), [&](std::ostream& out) { out << stats.dump(2) << "\n"; });
  staged.commit();
  if (!o.quiet) {
    std::printf("%s: %zu change(s) on %s, %zu LFT and %zu MFT entries to rewrite, %s\n",
                staged.target().string().c_str(), changes.size(), o.from.c_str(), lft_entries,
                total.mft.size(), ok ? "all checks passed" : "CHECKS FAILED");
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
  auto* ecmp_opt = app.add_flag("--ecmp", o.ecmp,
                                "port groups: every minimum-hop port the unicast engine allows "
                                "(minhop, updn, ftree), written to port_groups");
  auto* lag_opt = app.add_flag("--lag", o.lag,
                               "port groups: the parallel links to the engine's next switch "
                               "(minhop, updn, ftree), written to port_groups");
  ecmp_opt->excludes(lag_opt);
  app.add_flag(
      "--no-lfts-dump", o.no_lfts_dump,
      "route and check the unicast tables but do not write lfts.dump (huge on big fabrics)");
  auto* max_lid_opt =
      app.add_option("--max-lid", o.max_lid,
                     "last unicast LID to assign (1..49151 = 0xBFFF, the default): destinations "
                     "past it are routed and checked by destination index but get no LID, so "
                     "lfts.dump and guid2lid are not written (with --from: the folder's)")
          ->check(CLI::Range(1U, static_cast<unsigned>(kLastUnicastLid)));
  app.add_option("--credit-check", o.credit_check,
                 "credit-loop check of the unicast tables: auto (when the engine promises "
                 "acyclic), always (a cycle fails the run), never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag("-q,--quiet", o.quiet, "no progress on stderr, no summary on stdout");
  auto* from_opt =
      app.add_option("--from", o.from,
                     "failure workflow: the output folder of an earlier run (or of an earlier "
                     "--from run) whose routed state --fail / --repair change")
          ->option_text("DIR");
  app.add_option("--fail", o.fail,
                 "with --from: fail a link (link:NODE/PORT, either end) or a switch "
                 "(switch:NODE); repeatable, applied in order after the repairs")
      ->option_text("SPEC")
      ->needs(from_opt);
  app.add_option("--repair", o.repair,
                 "with --from: bring back a failed link (link:NODE/PORT, either end); "
                 "repeatable, applied in order before the failures")
      ->option_text("SPEC")
      ->needs(from_opt);
  for (CLI::Option* opt :
       {fabric_opt, net_opt, pattern_opt, groups_opt, max_lid_opt, ecmp_opt, lag_opt}) {
    from_opt->excludes(opt);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input (exit 1, as documented).
    return app.exit(e) == 0 ? 0 : kExitError;
  }
  std::string command_line;
  for (int i = 0; i < argc; ++i) {
    command_line += (i == 0 ? "" : " ") + std::string(argv[i]);
  }
  if (!o.from.empty()) {
    if (o.fail.empty() && o.repair.empty()) {
      throw UsageError("--from: give the changes: --fail SPEC and/or --repair SPEC (see --help)");
    }
    return run_changes(o, command_line);
  }
  if (o.fabric_spec.empty() && o.net_file.empty()) {
    throw UsageError("give the fabric: --fabric SPEC or --net FILE (see --help)");
  }
  if (o.pattern.empty() && o.groups_file.empty()) {
    throw UsageError("give the groups: --pattern SPEC or --groups FILE (see --help)");
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
