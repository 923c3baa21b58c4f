#include "syncfab/sm/mcg_protocol.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {
namespace {}  // namespace

std::string to_string(const Mgid& mgid) {
  std::array<char, 40> buf{};
  std::snprintf(buf.data(), buf.size(), "%016llx:%016llx",
                static_cast<unsigned long long>(mgid.prefix),
                static_cast<unsigned long long>(mgid.id));
  return buf.data();
}

const char* to_string(McgState state) {
  switch (state) {
    case McgState::kGone:
      return "Gone";
    case McgState::kReceivingJoinReq:
      return "ReceivingJoinReq";
    case McgState::kComputingRoutes:
      return "ComputingRoutes";
    case McgState::kReady:
      return "Ready";
    case McgState::kReceivingLeaveReq:
      return "ReceivingLeaveReq";
    case McgState::kDestroying:
      return "Destroying";
  }
  return "?";
}

const char* to_string(McgStatus status) {
  switch (status) {
    case McgStatus::kOk:
      return "ok";
    case McgStatus::kDuplicate:
      return "duplicate";
    case McgStatus::kUnknownNode:
      return "unknown node";
    case McgStatus::kBadMemberCount:
      return "bad MemberCount";
    case McgStatus::kMemberCountMismatch:
      return "MemberCount mismatch";
    case McgStatus::kGroupClosed:
      return "group closed";
    case McgStatus::kGroupDestroying:
      return "group destroying";
    case McgStatus::kNoSuchGroup:
      return "no such group";
    case McgStatus::kNotMember:
      return "not a member";
    case McgStatus::kNotReady:
      return "not ready";
    case McgStatus::kMlidExhausted:
      return "MLID space exhausted";
  }
  return "?";
}

const char* to_string(McgEventKind kind) {
  switch (kind) {
    case McgEventKind::kCreated:
      return "created";
    case McgEventKind::kJoined:
      return "joined";
    case McgEventKind::kDuplicateJoin:
      return "duplicate-join";
    case McgEventKind::kJoinRejected:
      return "join-rejected";
    case McgEventKind::kAllJoined:
      return "all-joined";
    case McgEventKind::kRoutesComputed:
      return "routes-computed";
    case McgEventKind::kRouteFailed:
      return "route-failed";
    case McgEventKind::kLeft:
      return "left";
    case McgEventKind::kDuplicateLeave:
      return "duplicate-leave";
    case McgEventKind::kLeaveRejected:
      return "leave-rejected";
    case McgEventKind::kAllLeft:
      return "all-left";
    case McgEventKind::kJoinTimeout:
      return "join-timeout";
    case McgEventKind::kLeaveTimeout:
      return "leave-timeout";
    case McgEventKind::kDestroying:
      return "destroying";
    case McgEventKind::kGone:
      return "gone";
  }
  return "?";
}

std::string to_string(const McgEvent& event) {
  std::string s = std::to_string(event.time.count()) + "us " + to_string(event.mgid) + " " +
                  to_string(event.kind);
  if (event.node != kNoNode) {
    s += " node " + std::to_string(event.node);
  }
  s += std::string(" -> ") + to_string(event.state);
  if (event.status != McgStatus::kOk) {
    s += std::string(" [") + to_string(event.status) + "]";
  }
  if (!event.detail.empty()) {
    s += ": " + event.detail;
  }
  return s;
}

// ---------------------------------------------------------------------------

FabricMcgRouter::FabricMcgRouter(const MinHop& mh, McEngine engine, bool check_trees)
    : mh_(mh),
      engine_(std::move(engine)),
      check_trees_(check_trees),
      load_(std::make_unique<McLoad>(mh.fabric())) {}

const McLoad& FabricMcgRouter::load() {
  if (load_stale_) {
    load_ = std::make_unique<McLoad>(mh_.fabric());
    for (const auto& [mlid, tree] : live_) {
      load_->add(tree);
    }
    load_stale_ = false;
  }
  return *load_;
}

McTree FabricMcgRouter::route(const Group& group) {
  if (live_.contains(group.mlid)) {
    throw FabricError("MLID " + hex_lid(group.mlid) + " is already routed");
  }
  McTree tree = engine_(mh_, group, load());
  tree.mlid = group.mlid;
  if (check_trees_) {
    if (const std::string err = check_tree(mh_, group, tree); !err.empty()) {
      throw FabricError("tree check failed: " + err);
    }
  }
  load_->add(tree);
  live_.emplace(tree.mlid, tree);
  return tree;
}

void FabricMcgRouter::withdraw(const McTree& tree) {
  if (live_.erase(tree.mlid) != 0) {
    load_stale_ = true;
  }
}

// ---------------------------------------------------------------------------

McgProtocol::McgProtocol(const Fabric& fabric, McgRouter& router, McgConfig config)
    : fabric_(fabric), router_(router), config_(config) {
  if (config_.join_timeout.count() <= 0 || config_.leave_timeout.count() <= 0 ||
      config_.destroy_linger.count() < 0) {
    throw std::invalid_argument(
        "McgConfig: join and leave timeouts must be positive, destroy_linger not negative");
  }
  if (config_.first_mlid < fmt::kMlidBase || config_.last_mlid > kLastMulticastLid ||
      config_.first_mlid > config_.last_mlid) {
    throw std::invalid_argument("McgConfig: MLID range must lie within " + hex_lid(fmt::kMlidBase) +
                                "-" + hex_lid(kLastMulticastLid));
  }
  for (std::uint32_t l = config_.first_mlid; l <= config_.last_mlid; ++l) {
    free_mlids_.insert(free_mlids_.end(), static_cast<Lid>(l));
  }
  for (const NodeId n : fabric_.hcas()) {
    if (fabric_.attach_switch(n) != kNoSwitch) {
      ++end_nodes_;
    }
  }
}

std::string McgProtocol::node_name(NodeId node) const {
  std::string s = "node " + std::to_string(node);
  if (node < fabric_.node_count()) {
    s += " (" + fabric_.name(node) + ")";
  }
  return s;
}

void McgProtocol::log(McgTime at, const Mgid& mgid, McgEventKind kind, NodeId node, McgState state,
                      McgStatus status, std::string detail) {
  events_.push_back(McgEvent{at, mgid, kind, node, state, status, std::move(detail)});
}

void McgProtocol::set_deadline(const Mgid& mgid, Rec& rec, std::optional<McgTime> when) {
  if (rec.deadline) {
    deadlines_.erase({*rec.deadline, mgid});
  }
  rec.deadline = when;
  if (when) {
    deadlines_.emplace(*when, mgid);
  }
}

void McgProtocol::advance(McgTime now) {
  if (now < now_) {
    throw std::invalid_argument("McgProtocol: time went backwards (" + std::to_string(now.count()) +
                                "us after " + std::to_string(now_.count()) + "us)");
  }
  now_ = now;
  // Deadlines fire at their own time, in order, so a Destroying group whose
  // linger has also passed is dropped in the same call.
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const auto [at, mgid] = *deadlines_.begin();
    deadlines_.erase(deadlines_.begin());
    auto it = groups_.find(mgid);
    Rec& rec = it->second;
    rec.deadline.reset();
    switch (rec.state) {
      case McgState::kReceivingJoinReq:
        ++counters_.join_timeouts;
        log(at, mgid, McgEventKind::kJoinTimeout, kNoNode, rec.state, McgStatus::kOk,
            std::to_string(rec.joined.size()) + " of " + std::to_string(rec.member_count) +
                " members joined within " + std::to_string(config_.join_timeout.count()) + "us");
        enter_destroying(mgid, rec, at);
        break;
      case McgState::kReceivingLeaveReq:
        ++counters_.leave_timeouts;
        log(at, mgid, McgEventKind::kLeaveTimeout, kNoNode, rec.state, McgStatus::kOk,
            std::to_string(rec.left.size()) + " of " + std::to_string(rec.member_count) +
                " members left within " + std::to_string(config_.leave_timeout.count()) + "us");
        enter_destroying(mgid, rec, at);
        break;
      case McgState::kDestroying:
        free_mlids_.insert(rec.mlid);
        ++counters_.groups_gone;
        log(at, mgid, McgEventKind::kGone, kNoNode, McgState::kGone, McgStatus::kOk,
            "MLID " + hex_lid(rec.mlid) + " freed");
        groups_.erase(it);
        break;
      default:
        throw std::logic_error("McgProtocol: deadline in state " +
                               std::string(to_string(rec.state)));
    }
  }
}

void McgProtocol::enter_destroying(const Mgid& mgid, Rec& rec, McgTime at) {
  rec.state = McgState::kDestroying;
  if (rec.tree) {
    mft_updates_.push_back(MftUpdate{MftUpdate::Op::kRemove, rec.mlid, rec.tree->entries});
    router_.withdraw(*rec.tree);
    rec.tree.reset();
  }
  log(at, mgid, McgEventKind::kDestroying, kNoNode, rec.state);
  set_deadline(mgid, rec, at + config_.destroy_linger);
}

McgResponse McgProtocol::reject_join(const JoinReq& req, Rec* rec, McgStatus status,
                                     std::string detail) {
  ++counters_.joins[static_cast<std::size_t>(status)];
  McgResponse r{status, {req.mgid, McgState::kGone, 0}, std::move(detail)};
  if (rec != nullptr) {
    ++rec->rejected;
    r.record = {req.mgid, rec->state, rec->mlid};
  }
  log(now_, req.mgid, McgEventKind::kJoinRejected, req.node, r.record.state, status, r.detail);
  return r;
}

McgResponse McgProtocol::reject_leave(const LeaveReq& req, Rec* rec, McgStatus status,
                                      std::string detail) {
  ++counters_.leaves[static_cast<std::size_t>(status)];
  McgResponse r{status, {req.mgid, McgState::kGone, 0}, std::move(detail)};
  if (rec != nullptr) {
    ++rec->rejected;
    r.record = {req.mgid, rec->state, rec->mlid};
  }
  log(now_, req.mgid, McgEventKind::kLeaveRejected, req.node, r.record.state, status, r.detail);
  return r;
}

McgResponse McgProtocol::join(const JoinReq& req, McgTime now) {
  advance(now);
  ++counters_.join_requests;
  auto it = groups_.find(req.mgid);
  Rec* rec = it == groups_.end() ? nullptr : &it->second;
  if (req.node >= fabric_.node_count() || fabric_.is_switch(req.node) ||
      fabric_.attach_switch(req.node) == kNoSwitch) {
    return reject_join(req, rec, McgStatus::kUnknownNode,
                       node_name(req.node) + " is not an end node attached to the fabric");
  }
  if (rec == nullptr) {
    if (req.member_count < 2 || req.member_count > end_nodes_) {
      return reject_join(req, rec, McgStatus::kBadMemberCount,
                         "MemberCount " + std::to_string(req.member_count) + " outside 2.." +
                             std::to_string(end_nodes_) + " (end nodes of the fabric)");
    }
    if (free_mlids_.empty()) {
      return reject_join(req, rec, McgStatus::kMlidExhausted,
                         "all " + std::to_string(config_.last_mlid - config_.first_mlid + 1) +
                             " MLIDs of " + hex_lid(config_.first_mlid) + ".." +
                             hex_lid(config_.last_mlid) + " are in use");
    }
    rec = &groups_[req.mgid];
    rec->mlid = *free_mlids_.begin();
    free_mlids_.erase(free_mlids_.begin());
    rec->member_count = req.member_count;
    ++counters_.groups_created;
    log(now_, req.mgid, McgEventKind::kCreated, req.node, rec->state, McgStatus::kOk,
        "MLID " + hex_lid(rec->mlid) + ", MemberCount " + std::to_string(rec->member_count));
    set_deadline(req.mgid, *rec, now_ + config_.join_timeout);
  } else {
    if (rec->state == McgState::kDestroying) {
      return reject_join(req, rec, McgStatus::kGroupDestroying,
                         "group is being destroyed; join again once it is gone");
    }
    if (req.member_count != rec->member_count) {
      return reject_join(req, rec, McgStatus::kMemberCountMismatch,
                         node_name(req.node) + " sent MemberCount " +
                             std::to_string(req.member_count) + ", the group has " +
                             std::to_string(rec->member_count));
    }
    if (rec->joined.contains(req.node)) {
      // A retransmission (its answer was lost) or a stale copy: answer it
      // like the first one, whatever the state.
      ++rec->duplicate_joins;
      ++counters_.joins[static_cast<std::size_t>(McgStatus::kDuplicate)];
      log(now_, req.mgid, McgEventKind::kDuplicateJoin, req.node, rec->state,
          McgStatus::kDuplicate);
      return {McgStatus::kDuplicate, {req.mgid, rec->state, rec->mlid}, "already joined"};
    }
    if (rec->state != McgState::kReceivingJoinReq) {
      return reject_join(req, rec, McgStatus::kGroupClosed,
                         "all " + std::to_string(rec->member_count) +
                             " members have joined; the group's membership is fixed");
    }
  }
  rec->joined.insert(req.node);
  ++counters_.joins[static_cast<std::size_t>(McgStatus::kOk)];
  log(now_, req.mgid, McgEventKind::kJoined, req.node, rec->state);
  if (rec->joined.size() == rec->member_count) {
    rec->state = McgState::kComputingRoutes;
    set_deadline(req.mgid, *rec, std::nullopt);
    to_route_.push_back(req.mgid);
    log(now_, req.mgid, McgEventKind::kAllJoined, req.node, rec->state);
  }
  return {McgStatus::kOk, {req.mgid, rec->state, rec->mlid}, {}};
}

McgResponse McgProtocol::leave(const LeaveReq& req, McgTime now) {
  advance(now);
  ++counters_.leave_requests;
  auto it = groups_.find(req.mgid);
  if (it == groups_.end()) {
    return reject_leave(req, nullptr, McgStatus::kNoSuchGroup, "no group " + to_string(req.mgid));
  }
  Rec& rec = it->second;
  switch (rec.state) {
    case McgState::kReceivingJoinReq:
    case McgState::kComputingRoutes:
      // Nobody may leave before Ready: a leave now is a stale one from an
      // earlier group with this MGID, and must not tear down the new one.
      return reject_leave(req, &rec, McgStatus::kNotReady,
                          std::string("group is ") + to_string(rec.state));
    case McgState::kDestroying:
      return reject_leave(req, &rec, McgStatus::kGroupDestroying, "group is being destroyed");
    default:
      break;
  }
  if (!rec.joined.contains(req.node)) {
    return reject_leave(req, &rec, McgStatus::kNotMember, node_name(req.node) + " never joined");
  }
  if (rec.left.contains(req.node)) {
    ++rec.duplicate_leaves;
    ++counters_.leaves[static_cast<std::size_t>(McgStatus::kDuplicate)];
    log(now_, req.mgid, McgEventKind::kDuplicateLeave, req.node, rec.state, McgStatus::kDuplicate);
    return {McgStatus::kDuplicate, {req.mgid, rec.state, rec.mlid}, "already left"};
  }
  rec.left.insert(req.node);
  ++counters_.leaves[static_cast<std::size_t>(McgStatus::kOk)];
  if (rec.state == McgState::kReady) {
    rec.state = McgState::kReceivingLeaveReq;
    set_deadline(req.mgid, rec, now_ + config_.leave_timeout);
  }
  log(now_, req.mgid, McgEventKind::kLeft, req.node, rec.state);
  if (rec.left.size() == rec.member_count) {
    log(now_, req.mgid, McgEventKind::kAllLeft, req.node, rec.state);
    enter_destroying(req.mgid, rec, now_);
  }
  return {McgStatus::kOk, {req.mgid, rec.state, rec.mlid}, {}};
}

McgStateRecord McgProtocol::query(const StateQuery& q, McgTime now) {
  advance(now);
  ++counters_.state_queries;
  const auto it = groups_.find(q.mgid);
  if (it == groups_.end()) {
    return {q.mgid, McgState::kGone, 0};
  }
  return {q.mgid, it->second.state, it->second.mlid};
}

void McgProtocol::route_group(const Mgid& mgid, Rec& rec) {
  Group group{rec.mlid, {rec.joined.begin(), rec.joined.end()}};
  std::sort(group.members.begin(), group.members.end());
  ++rec.route_computations;
  ++counters_.route_computations;
  try {
    McTree tree = router_.route(group);
    tree.mlid = rec.mlid;
    mft_updates_.push_back(MftUpdate{MftUpdate::Op::kProgram, rec.mlid, tree.entries});
    rec.tree = std::move(tree);
    rec.state = McgState::kReady;
    ++counters_.groups_ready;
    log(now_, mgid, McgEventKind::kRoutesComputed, kNoNode, rec.state, McgStatus::kOk,
        "root switch " + std::to_string(rec.tree->root) + ", height " +
            std::to_string(rec.tree->height) + ", " + std::to_string(rec.tree->entries.size()) +
            " MFT entries");
  } catch (const std::exception& e) {
    ++counters_.route_failures;
    log(now_, mgid, McgEventKind::kRouteFailed, kNoNode, rec.state, McgStatus::kOk, e.what());
    enter_destroying(mgid, rec, now_);
  }
}

std::size_t McgProtocol::tick(McgTime now) {
  advance(now);
  std::size_t routed = 0;
  while (!to_route_.empty()) {
    const Mgid mgid = to_route_.front();
    to_route_.pop_front();
    auto it = groups_.find(mgid);
    if (it != groups_.end() && it->second.state == McgState::kComputingRoutes) {
      route_group(mgid, it->second);
      ++routed;
    }
  }
  return routed;
}

std::optional<McgGroupInfo> McgProtocol::group(const Mgid& mgid) const {
  const auto it = groups_.find(mgid);
  if (it == groups_.end()) {
    return std::nullopt;
  }
  const Rec& r = it->second;
  return McgGroupInfo{r.state,
                      r.mlid,
                      r.member_count,
                      r.joined.size(),
                      r.left.size(),
                      r.duplicate_joins,
                      r.duplicate_leaves,
                      r.rejected,
                      r.route_computations,
                      r.deadline,
                      r.tree};
}

}  // namespace syncfab::sm
