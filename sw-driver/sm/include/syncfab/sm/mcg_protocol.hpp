#pragma once
// The HPC multicast-group join/leave protocol of the FULB-MC paper (section
// 3.2, DESIGN.md section 1) as the subnet manager's per-group state machine.
//
// Every process set that wants a group sends JoinReq carrying MemberCount
// (end nodes, not processes: a node joins once however many of its processes
// are members). Routes are computed once, when all MemberCount nodes have
// joined; rank 0 polls StateQuery until Ready and then tells the others.
// Leaves never recompute; the group is destroyed when all have left. A group
// that does not collect its joins (or its leaves) in time is destroyed.
//
// state              | input                      | next              | effect
// -------------------+----------------------------+-------------------+-----------------------
// (gone)             | join, valid                | ReceivingJoinReq  | MLID, join deadline
// ReceivingJoinReq   | join, new node, not last   | ReceivingJoinReq  |
// ReceivingJoinReq   | join, new node, last       | ComputingRoutes   | queued for routing
// ReceivingJoinReq   | join deadline              | Destroying        | nothing to unprogram
// ComputingRoutes    | tick, router succeeds      | Ready             | MFT program (once)
// ComputingRoutes    | tick, router throws        | Destroying        |
// Ready              | leave, member              | ReceivingLeaveReq | leave deadline, no MFT
// ReceivingLeaveReq  | leave, member, not last    | ReceivingLeaveReq |
// ReceivingLeaveReq  | leave, last member         | Destroying        | MFT remove, withdraw
// ReceivingLeaveReq  | leave deadline             | Destroying        | MFT remove, withdraw
// Destroying         | destroy_linger elapsed     | (gone)            | MLID freed, record gone
//
// Requests that change nothing get a status instead (see McgStatus): a
// duplicate join or leave is answered like the first one and counted; an
// inconsistent MemberCount, an unknown node, a join to a complete group, a
// leave before Ready, anything to a Destroying group is rejected, logged and
// counted. Time is an input: every call carries `now`, deadlines that have
// passed fire first, so the outcome does not depend on how often tick() runs.
// Routes are only computed in tick() (the SM's routing sweep), which is why
// ComputingRoutes is visible to a query.
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

// Protocol time: an arbitrary epoch, microsecond resolution.
using McgTime = std::chrono::microseconds;

// The 128-bit multicast GID that names a group on the wire.
struct Mgid {
  std::uint64_t prefix = 0;
  std::uint64_t id = 0;
  friend bool operator==(const Mgid&, const Mgid&) = default;
  friend bool operator<(const Mgid& a, const Mgid& b) {
    return a.prefix != b.prefix ? a.prefix < b.prefix : a.id < b.id;
  }
};
std::string to_string(const Mgid& mgid);

enum class McgState : std::uint8_t {
  kGone,  // no such group (never created, or destroyed and dropped)
  kReceivingJoinReq,
  kComputingRoutes,
  kReady,
  kReceivingLeaveReq,
  kDestroying,
};
const char* to_string(McgState state);

enum class McgStatus : std::uint8_t {
  kOk,                   // accepted, state advanced
  kDuplicate,            // already recorded; answered as before and counted
  kUnknownNode,          // not an end node of the fabric attached to a switch
  kBadMemberCount,       // first join: MemberCount < 2 or more than the fabric's end nodes
  kMemberCountMismatch,  // MemberCount differs from the group's
  kGroupClosed,          // join from a new node once all MemberCount nodes have joined
  kGroupDestroying,      // the group is being destroyed; retry once it is gone
  kNoSuchGroup,          // leave or query for a group that does not exist
  kNotMember,            // leave from a node that never joined
  kNotReady,             // leave before the group was Ready
  kMlidExhausted,        // no free MLID in the configured range
};
inline constexpr std::size_t kMcgStatusCount = 11;
const char* to_string(McgStatus status);

// SubnAdmSet(MCMemberRecord) extended with MemberCount.
struct JoinReq {
  Mgid mgid;
  NodeId node = kNoNode;
  std::uint32_t member_count = 0;
};
// SubnAdmDelete(MCMemberRecord).
struct LeaveReq {
  Mgid mgid;
  NodeId node = kNoNode;
};
// SubnAdmGet(MCGStateRecord).
struct StateQuery {
  Mgid mgid;
};
struct McgStateRecord {
  Mgid mgid;
  McgState state = McgState::kGone;
  Lid mlid = 0;  // 0 when gone
  friend bool operator==(const McgStateRecord&, const McgStateRecord&) = default;
};
struct McgResponse {
  McgStatus status = McgStatus::kOk;
  McgStateRecord record;  // the group after the request
  std::string detail;     // why, for anything but kOk
};

// What the switches must be told: program the tree's entries for an MLID,
// or remove them all.
struct MftUpdate {
  enum class Op : std::uint8_t { kProgram, kRemove };
  Op op = Op::kProgram;
  Lid mlid = 0;
  std::vector<MftEntry> entries;
};

enum class McgEventKind : std::uint8_t {
  kCreated,
  kJoined,
  kDuplicateJoin,
  kJoinRejected,
  kAllJoined,
  kRoutesComputed,
  kRouteFailed,
  kLeft,
  kDuplicateLeave,
  kLeaveRejected,
  kAllLeft,
  kJoinTimeout,
  kLeaveTimeout,
  kDestroying,
  kGone,
};
const char* to_string(McgEventKind kind);

struct McgEvent {
  McgTime time{0};
  Mgid mgid;
  McgEventKind kind = McgEventKind::kCreated;
  NodeId node = kNoNode;              // the requesting node, if any
  McgState state = McgState::kGone;   // the group's state after the event
  McgStatus status = McgStatus::kOk;  // for rejections
  std::string detail;
};
std::string to_string(const McgEvent& event);

struct McgConfig {
  // From the first join: all MemberCount joins must arrive by then.
  McgTime join_timeout = std::chrono::seconds(10);
  // From the first leave: all members must have left by then (else a member
  // crashed, and the group is destroyed without it).
  McgTime leave_timeout = std::chrono::seconds(10);
  // How long a destroyed group still answers queries with Destroying (so
  // rank 0 learns that setup failed) and holds its MLID (so no new group
  // reuses it while the switches are still being unprogrammed).
  McgTime destroy_linger = std::chrono::seconds(1);
  // The MLID range this SM hands out (a partition of 0xC000-0xFFFE).
  Lid first_mlid = fmt::kMlidBase;
  Lid last_mlid = kLastMulticastLid;
};

struct McgCounters {
  std::uint64_t join_requests = 0;
  std::uint64_t leave_requests = 0;
  std::uint64_t state_queries = 0;
  std::uint64_t groups_created = 0;
  std::uint64_t groups_ready = 0;
  std::uint64_t groups_gone = 0;
  std::uint64_t join_timeouts = 0;
  std::uint64_t leave_timeouts = 0;
  std::uint64_t route_computations = 0;  // router calls
  std::uint64_t route_failures = 0;
  std::array<std::uint64_t, kMcgStatusCount> joins{};   // by McgStatus
  std::array<std::uint64_t, kMcgStatusCount> leaves{};  // by McgStatus
  [[nodiscard]] std::uint64_t joins_with(McgStatus s) const {
    return joins[static_cast<std::size_t>(s)];
  }
  [[nodiscard]] std::uint64_t leaves_with(McgStatus s) const {
    return leaves[static_cast<std::size_t>(s)];
  }
};

// What a group looks like from inside the SM (tests, diagnostics).
struct McgGroupInfo {
  McgState state = McgState::kGone;
  Lid mlid = 0;
  std::uint32_t member_count = 0;
  std::size_t joined = 0;
  std::size_t left = 0;
  std::uint64_t duplicate_joins = 0;
  std::uint64_t duplicate_leaves = 0;
  std::uint64_t rejected = 0;
  std::uint32_t route_computations = 0;
  std::optional<McgTime> deadline;
  std::optional<McTree> tree;  // while Ready / ReceivingLeaveReq
};

// The strategy that turns a complete group into its tree.
class McgRouter {
 public:
  virtual ~McgRouter() = default;
  // All members have joined: compute the tree for group.mlid. Throwing
  // fails the group (it goes to Destroying, the message is logged).
  virtual McTree route(const Group& group) = 0;
  // The group is being destroyed: its tree no longer loads the fabric.
  virtual void withdraw(const McTree& tree) = 0;
};

// A multicast engine of multicast.hpp over one fabric, with the load of all
// live groups (so root and link rotation see the groups already routed).
using McEngine = std::function<McTree(const MinHop&, const Group&, const McLoad&)>;

class FabricMcgRouter : public McgRouter {
 public:
  // check_trees: run check_tree on every result and fail the group on error.
  explicit FabricMcgRouter(const MinHop& mh, McEngine engine = route_fulb_mc,
                           bool check_trees = false);
  McTree route(const Group& group) override;
  void withdraw(const McTree& tree) override;

  [[nodiscard]] const McLoad& load();
  [[nodiscard]] std::size_t live_trees() const { return live_.size(); }

 private:
  const MinHop& mh_;
  McEngine engine_;
  bool check_trees_;
  std::map<Lid, McTree> live_;
  std::unique_ptr<McLoad> load_;
  // McLoad can only add, so a withdraw marks it stale and the next use
  // rebuilds it from the live trees (once per batch of destroys).
  bool load_stale_ = false;
};

class McgProtocol {
 public:
  // Both must outlive the protocol. Throws std::invalid_argument for a
  // non-positive timeout or an MLID range outside 0xC000-0xFFFE.
  McgProtocol(const Fabric& fabric, McgRouter& router, McgConfig config = {});

  McgResponse join(const JoinReq& req, McgTime now);
  McgResponse leave(const LeaveReq& req, McgTime now);
  McgStateRecord query(const StateQuery& q, McgTime now);
  // Fires due deadlines, then routes every group in ComputingRoutes in the
  // order they completed. Returns how many groups were routed (or failed).
  std::size_t tick(McgTime now);

  [[nodiscard]] McgTime now() const { return now_; }
  [[nodiscard]] std::optional<McgGroupInfo> group(const Mgid& mgid) const;
  [[nodiscard]] std::size_t live_groups() const { return groups_.size(); }
  [[nodiscard]] std::size_t free_mlids() const { return free_mlids_.size(); }
  [[nodiscard]] const McgCounters& counters() const { return counters_; }
  [[nodiscard]] const std::vector<McgEvent>& events() const { return events_; }
  void clear_events() { events_.clear(); }
  // The switch programming the SM owes, oldest first; taking them clears them.
  std::vector<MftUpdate> take_mft_updates() { return std::exchange(mft_updates_, {}); }

 private:
  struct Rec {
    McgState state = McgState::kReceivingJoinReq;
    Lid mlid = 0;
    std::uint32_t member_count = 0;
    std::unordered_set<NodeId> joined;
    std::unordered_set<NodeId> left;
    std::uint64_t duplicate_joins = 0;
    std::uint64_t duplicate_leaves = 0;
    std::uint64_t rejected = 0;
    std::uint32_t route_computations = 0;
    std::optional<McgTime> deadline;
    std::optional<McTree> tree;
  };

  void advance(McgTime now);
  void set_deadline(const Mgid& mgid, Rec& rec, std::optional<McgTime> when);
  void enter_destroying(const Mgid& mgid, Rec& rec, McgTime at);
  void route_group(const Mgid& mgid, Rec& rec);
  void log(McgTime at, const Mgid& mgid, McgEventKind kind, NodeId node, McgState state,
           McgStatus status = McgStatus::kOk, std::string detail = {});
  McgResponse reject_join(const JoinReq& req, Rec* rec, McgStatus status, std::string detail);
  McgResponse reject_leave(const LeaveReq& req, Rec* rec, McgStatus status, std::string detail);
  [[nodiscard]] std::string node_name(NodeId node) const;

  const Fabric& fabric_;
  McgRouter& router_;
  McgConfig config_;
  std::size_t end_nodes_ = 0;
  McgTime now_{0};
  std::map<Mgid, Rec> groups_;
  std::set<std::pair<McgTime, Mgid>> deadlines_;
  std::deque<Mgid> to_route_;
  std::set<Lid> free_mlids_;  // lowest first, so a freed MLID is the next one reused
  std::vector<McgEvent> events_;
  std::vector<MftUpdate> mft_updates_;
  McgCounters counters_;
};

}  // namespace syncfab::sm
