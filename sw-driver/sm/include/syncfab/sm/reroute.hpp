#pragma once
// Incremental rerouting after a failed link or switch, and after a link's
// repair: a routed state (fabric, min-hop data, unicast tables, multicast
// trees) is changed in place, recomputing only what the change touches, and
// what changed comes back as a delta (per switch: LFT entries and MFT masks
// to rewrite). sw-driver/sm/README.md "Failures and repairs" says what is
// recomputed and why the rest stays valid.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/unicast.hpp"
#include "syncfab/sm/unicast_engines.hpp"

namespace syncfab::sm {

// A link that is down: both ends, as they were cabled.
struct FailedLink {
  NodeId a = kNoNode;
  PortNum pa = 0;
  NodeId b = kNoNode;
  PortNum pb = 0;
  friend bool operator==(const FailedLink&, const FailedLink&) = default;
};

// Everything the switches are programmed with, and what it was computed
// from. Fabric, min-hop data and tables refer to each other, so the state
// owns them at fixed addresses.
struct RouteState {
  std::unique_ptr<Fabric> fabric;
  std::unique_ptr<MinHop> mh;
  std::string unicast;  // minhop, updn, ftree, dor or none
  UnicastRouting uc;
  // UPDN / FTREE: the (rank, GUID) order of the first routing, kept after
  // failures (any fixed order keeps up*/down* deadlock free), and FTREE's
  // destination index.
  std::vector<SwitchIdx> updn_roots;
  std::vector<std::uint32_t> updn_pos;
  std::vector<std::uint32_t> updn_rank;
  std::vector<std::uint32_t> ftree_index;
  std::optional<TorusLayout> layout;  // DOR
  const McEngine* mc = nullptr;
  std::vector<Group> groups;  // as defined (a cut-off member stays listed)
  std::vector<McTree> trees;  // per group, over its members still attached
  std::unique_ptr<McLoad> load;
  std::vector<FailedLink> failed;      // links down, in failure order
  std::vector<char> dead_switch;       // per switch: failed
  std::vector<std::uint64_t> touched;  // (switch << 16 | LID) entries a failure rewrote
  std::vector<char> touched_lid;       // per destination: some entry rewritten by a failure
};

// Routes everything from scratch. `unicast`: one of unicast_engines() but
// lash (its lanes are per switch pair: no per-destination recomputation),
// or "none"; `mc`: a name of mc_engines(). Throws std::invalid_argument for
// an unknown or unsupported engine.
RouteState route_state(Fabric fabric, std::vector<Group> groups, std::string_view unicast,
                       std::string_view mc);

// The members of a group still attached to a live switch.
Group attached_members(const Fabric& fabric, const Group& group);

struct LftChange {
  SwitchIdx sw = kNoSwitch;
  Dest lid = 0;  // the destination index (its LID where it has one)
  PortNum before = kNoRoute;
  PortNum after = kNoRoute;
  friend bool operator==(const LftChange&, const LftChange&) = default;
};
struct MftChange {
  SwitchIdx sw = kNoSwitch;
  Lid mlid = 0;
  std::vector<PortNum> ports;  // the whole new mask, ascending; empty = entry cleared
  friend bool operator==(const MftChange&, const MftChange&) = default;
};
// A group the change left with members cut off (or brought back).
struct GroupReport {
  Lid mlid = 0;
  std::vector<NodeId> cut_off;  // members no longer attached to a live switch
  std::string what;             // "rerouted over N members", "left without a tree: ..."
};

struct RerouteDelta {
  std::vector<LftChange> lft;  // by switch, then LID; only entries whose port changed
  std::vector<MftChange> mft;  // by switch, then MLID
  std::vector<GroupReport> groups;
  std::size_t distance_changes = 0;  // (switch, switch) min-hop entries changed
  std::size_t lids_examined = 0;     // (switch, LID) entries recomputed
  std::size_t trees_rerouted = 0;
  bool unicast_full = false;  // UPDN/FTREE needed a new ranking: tables routed again
  // Why, when unicast_full; UPDN / FTREE: a destination no up*/down* path
  // reaches; DOR: one left without a dimension-ordered path.
  std::string unicast_note;
  // UPDN / FTREE with the kept ranking: every rewritten entry checked for a
  // down-then-up turn it makes or meets (none anywhere = the up*/down*
  // argument: no credit loop). turns_ok is false only with a violation.
  bool turns_ok = true;
  std::size_t turns_checked = 0;
  std::string turn_violation;
  double turns_s = 0;
  std::optional<CreditLoopReport> credit;  // the whole check, when asked for
  double minhop_s = 0, unicast_s = 0, multicast_s = 0, credit_s = 0;
  [[nodiscard]] double reroute_s() const { return minhop_s + unicast_s + multicast_s; }
};

struct RerouteOptions {
  // Run check_credit_loops on the new tables (the whole check) when the
  // engine promises deadlock freedom.
  bool credit_check = true;
};

// The link at node n's port p fails (either end may be named). Throws
// FabricError naming the port when it is out of range or not linked.
RerouteDelta fail_link(RouteState& st, NodeId n, PortNum p, const RerouteOptions& o = {});
// Switch `sw` fails: all its links go down. Throws FabricError for a node
// that is not a switch or a switch that already failed.
RerouteDelta fail_switch(RouteState& st, NodeId sw, const RerouteOptions& o = {});
// A failed link comes back (either end may be named). Throws FabricError
// when no failed link has that end (the link never failed, or is up).
RerouteDelta repair_link(RouteState& st, NodeId n, PortNum p, const RerouteOptions& o = {});

// Node `member` joins, or leaves, the group of MLID `mlid`: only that group's
// tree is routed again, on the load of the others (its root kept while it is
// still of minimal height for the new members), so the delta holds that
// group's MFT masks and nothing else, and `groups` reports it. Throws
// FabricError naming the MLID or the node: no such group, a join of a member
// or of a node not attached to a live switch, a leave of a non-member.
RerouteDelta join_member(RouteState& st, Lid mlid, NodeId member);
RerouteDelta leave_member(RouteState& st, Lid mlid, NodeId member);

// UPDN / FTREE's ranking over the fabric as it is now: the first ranking's
// live roots (the first live switch when none is left), rank = distance
// from them (failed switches rank 0: they have
// no links). Where it equals RouteState::updn_rank, the kept ranking allows
// the same paths a full recomputation would.
UpdnRanking live_ranking(const RouteState& st);

// The tables a full recomputation gives on the state's fabric as it is now
// (MINHOP; UPDN / FTREE with a new ranking from the first ranking's live
// roots). DOR has none (its paths need every ring whole): throws
// std::invalid_argument.
Lft full_unicast(const RouteState& st);

// Applies the delta to tables / MFT masks (the tests' "old + delta = new").
void apply_lft_delta(Lft& lft, const RerouteDelta& delta);
// MFT masks keyed by (switch, MLID), as the trees program them.
using MftMasks = std::vector<MftChange>;
MftMasks mft_masks(std::span<const McTree> trees);
MftMasks apply_mft_delta(const MftMasks& masks, const RerouteDelta& delta);

}  // namespace syncfab::sm
