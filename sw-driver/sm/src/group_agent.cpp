#include "syncfab/sm/group_agent.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::sm {

namespace {

fmt::McgState wire_state(McgState s) {
  switch (s) {
    case McgState::kGone:
      return fmt::McgState::kGone;
    case McgState::kReceivingJoinReq:
      return fmt::McgState::kReceivingJoin;
    case McgState::kComputingRoutes:
      return fmt::McgState::kComputingRoutes;
    case McgState::kReady:
      return fmt::McgState::kReady;
    case McgState::kReceivingLeaveReq:
      return fmt::McgState::kReceivingLeave;
    case McgState::kDestroying:
      break;
  }
  return fmt::McgState::kDestroying;
}

fmt::MgmtStatus wire_status(McgStatus s) {
  switch (s) {
    case McgStatus::kOk:
      return fmt::MgmtStatus::kOk;
    case McgStatus::kDuplicate:
      return fmt::MgmtStatus::kDuplicate;
    case McgStatus::kUnknownNode:
      return fmt::MgmtStatus::kUnknownNode;
    case McgStatus::kBadMemberCount:
      return fmt::MgmtStatus::kBadMemberCount;
    case McgStatus::kMemberCountMismatch:
      return fmt::MgmtStatus::kMemberCountMismatch;
    case McgStatus::kGroupClosed:
      return fmt::MgmtStatus::kGroupClosed;
    case McgStatus::kGroupDestroying:
      return fmt::MgmtStatus::kGroupDestroying;
    case McgStatus::kNoSuchGroup:
      return fmt::MgmtStatus::kNoSuchGroup;
    case McgStatus::kNotMember:
      return fmt::MgmtStatus::kNotMember;
    case McgStatus::kNotReady:
      return fmt::MgmtStatus::kNotReady;
    case McgStatus::kMlidExhausted:
      break;
  }
  return fmt::MgmtStatus::kMlidExhausted;
}

Mgid mgid_of(const fmt::MgmtMsg& m) { return Mgid{m.mgid_prefix(), m.mgid_id()}; }

void set_mgid(fmt::MgmtMsg& m, const Mgid& g) { m.set_mgid_prefix(g.prefix).set_mgid_id(g.id); }

// RFC 1982: a is newer than b.
bool newer(std::uint16_t a, std::uint16_t b) {
  const auto d = static_cast<std::uint16_t>(a - b);
  return d != 0 && d < 0x8000U;
}

}  // namespace

GroupAgent::GroupAgent(const Fabric& fabric, McgRouter& router, GroupProgrammer& programmer,
                       McgConfig config)
    : fabric_(fabric), programmer_(programmer), protocol_(fabric, router, config) {}

fmt::MgmtMsg GroupAgent::state(const McgResponse& r, std::uint16_t txn) {
  fmt::MgmtMsg m;
  m.set_op(fmt::MgmtOp::kState)
      .set_status(wire_status(r.status))
      .set_state(wire_state(r.record.state))
      .set_txn(txn)
      .set_mlid(r.record.mlid);
  set_mgid(m, r.record.mgid);
  return m;
}

fmt::MgmtMsg GroupAgent::ready(const Mgid& mgid, const Members& m, std::uint16_t txn) const {
  Lid root = 0;
  for (const auto& [node, idx] : m.index) {
    if (idx == 0) {
      root = fabric_.lid(node, fabric_.attach_port(node));
    }
  }
  fmt::MgmtMsg r;
  r.set_op(fmt::MgmtOp::kReady)
      .set_status(fmt::MgmtStatus::kOk)
      .set_state(fmt::McgState::kReady)
      .set_txn(txn)
      .set_member_count(static_cast<std::uint16_t>(m.index.size()))
      .set_mlid(m.mlid)
      .set_root_lid(root)
      .set_epoch(m.epoch);
  set_mgid(r, mgid);
  return r;
}

std::vector<AgentDatagram> GroupAgent::take(Lid src, const fmt::MgmtMsg& msg, McgTime now) {
  ++counters_.requests;
  std::vector<AgentDatagram> out;
  const auto answer = [&](const fmt::MgmtMsg& m) {
    out.push_back({src, m});
    ++counters_.answers;
  };
  const LidOwner owner = fabric_.lid_owner(src);
  const Mgid mgid = mgid_of(msg);
  const std::uint16_t txn = msg.txn();
  if (owner.node == kNoNode || fabric_.is_switch(owner.node)) {
    ++counters_.unknown_sources;
    McgResponse r;
    r.status = McgStatus::kUnknownNode;
    r.record.mgid = mgid;
    answer(state(r, txn));
    return out;
  }
  const NodeId node = owner.node;
  switch (msg.op()) {
    case fmt::MgmtOp::kJoin: {
      Members& m = members_[mgid];
      const auto known = m.index.find(node);
      const bool bad_index = msg.member() >= msg.member_count() ||
                             (known == m.index.end() && m.taken.contains(msg.member())) ||
                             (known != m.index.end() && known->second != msg.member());
      if (bad_index) {
        ++counters_.bad_members;
        fmt::MgmtMsg s;
        s.set_op(fmt::MgmtOp::kState)
            .set_status(fmt::MgmtStatus::kBadMember)
            .set_state(wire_state(protocol_.query({mgid}, now).state))
            .set_txn(txn);
        set_mgid(s, mgid);
        if (m.index.empty()) {
          members_.erase(mgid);
        }
        answer(s);
        return out;
      }
      const McgResponse r = protocol_.join({mgid, node, msg.member_count()}, now);
      if (r.status == McgStatus::kOk) {
        m.index[node] = msg.member();
        m.taken.insert(msg.member());
        if (!m.any_epoch || newer(msg.epoch(), m.epoch)) {
          m.epoch = msg.epoch();
          m.any_epoch = true;
        }
      }
      m.mlid = r.record.mlid != 0 ? r.record.mlid : m.mlid;
      if (m.index.empty()) {
        members_.erase(mgid);
      }
      answer(r.record.state == McgState::kReady && m.index.contains(node) ? ready(mgid, m, txn)
                                                                          : state(r, txn));
      break;
    }
    case fmt::MgmtOp::kLeave:
      answer(state(protocol_.leave({mgid, node}, now), txn));
      break;
    case fmt::MgmtOp::kQuery: {
      const McgStateRecord rec = protocol_.query({mgid}, now);
      const auto it = members_.find(mgid);
      if (rec.state == McgState::kReady && it != members_.end()) {
        answer(ready(mgid, it->second, txn));
      } else {
        McgResponse r;
        r.record = rec;
        answer(state(r, txn));
      }
      break;
    }
    default: {
      ++counters_.bad_requests;
      fmt::MgmtMsg s;
      s.set_op(fmt::MgmtOp::kState).set_status(fmt::MgmtStatus::kBadRequest).set_txn(txn);
      set_mgid(s, mgid);
      answer(s);
      return out;
    }
  }
  std::vector<AgentDatagram> notices = tick(now);
  out.insert(out.end(), notices.begin(), notices.end());
  return out;
}

std::vector<AgentDatagram> GroupAgent::tick(McgTime now) {
  protocol_.tick(now);
  return apply_updates();
}

std::vector<AgentDatagram> GroupAgent::apply_updates() {
  std::vector<AgentDatagram> out;
  for (const MftUpdate& u : protocol_.take_mft_updates()) {
    Mgid mgid{};
    Members* m = nullptr;
    for (auto& [g, mem] : members_) {
      if (mem.mlid == u.mlid) {
        mgid = g;
        m = &mem;
      }
    }
    if (u.op == MftUpdate::Op::kRemove) {
      programmer_.remove(u.mlid, u.entries);
      ++counters_.groups_removed;
      if (m != nullptr) {
        members_.erase(mgid);
      }
      continue;
    }
    if (m == nullptr) {
      throw std::logic_error("group agent: MLID " + hex_lid(u.mlid) +
                             " was routed but no group of the agent has it");
    }
    Group group;
    group.mlid = u.mlid;
    for (const auto& [node, idx] : m->index) {
      group.members.push_back(node);
    }
    const std::optional<McgGroupInfo> info = protocol_.group(mgid);
    if (!info || !info->tree) {
      throw std::logic_error("group agent: MLID " + hex_lid(u.mlid) + " has no tree to program");
    }
    programmer_.program(group, *info->tree, m->epoch);
    ++counters_.groups_programmed;
    for (const auto& [node, idx] : m->index) {
      out.push_back({fabric_.lid(node, fabric_.attach_port(node)), ready(mgid, *m, 0)});
      ++counters_.answers;
    }
  }
  return out;
}

}  // namespace syncfab::sm
