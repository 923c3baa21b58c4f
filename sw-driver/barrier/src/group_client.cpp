#include "syncfab/driver/group_client.hpp"

#include <stdexcept>
#include <utility>

namespace syncfab::driver {

namespace {

bool same_group(const fmt::MgmtMsg& a, const fmt::MgmtMsg& b) {
  return a.mgid_prefix() == b.mgid_prefix() && a.mgid_id() == b.mgid_id();
}

// A status that leaves a join waiting for READY (the group is not complete
// yet, or this join was already recorded).
bool still_joining(const fmt::MgmtMsg& a) {
  return a.status() == fmt::MgmtStatus::kOk || a.status() == fmt::MgmtStatus::kDuplicate;
}

}  // namespace

const char* to_string(RequestState s) {
  switch (s) {
    case RequestState::kPending:
      return "pending";
    case RequestState::kDone:
      return "done";
    case RequestState::kRefused:
      return "refused";
    case RequestState::kTimedOut:
      break;
  }
  return "timed out";
}

GroupClient::GroupClient(hw::Device& nic, std::uint16_t agent_lid, GroupClientOptions options)
    : mailbox_(nic), agent_(agent_lid), opt_(std::move(options)) {
  if (!opt_.clock_ns) {
    throw std::invalid_argument("GroupClient: a device clock (clock_ns) is required");
  }
  if (opt_.resend_ns == 0 || opt_.timeout_ns < opt_.resend_ns) {
    throw std::invalid_argument("GroupClient: resend_ns " + std::to_string(opt_.resend_ns) +
                                " must be non-zero and at most timeout_ns " +
                                std::to_string(opt_.timeout_ns));
  }
  if (agent_lid == fmt::kLidNone || agent_lid >= fmt::kMlidBase) {
    throw std::invalid_argument("GroupClient: agent LID " + std::to_string(agent_lid) +
                                " is not a unicast LID");
  }
}

unsigned GroupClient::start(fmt::MgmtMsg msg) {
  const unsigned txn = next_txn_;
  next_txn_ = next_txn_ == 0xFFFF ? 1 : next_txn_ + 1;  // txn 0 marks an unprompted READY
  msg.set_txn(static_cast<std::uint16_t>(txn));
  Request r;
  r.msg = msg;
  r.first_at = opt_.clock_ns();
  requests_[txn] = r;
  return txn;
}

unsigned GroupClient::join(const GroupId& group, std::uint16_t member_count, std::uint16_t member,
                           std::uint16_t proposed_epoch) {
  if (member >= member_count) {
    throw std::invalid_argument("GroupClient::join: member " + std::to_string(member) + " of " +
                                std::to_string(member_count) + " members");
  }
  fmt::MgmtMsg m;
  m.set_op(fmt::MgmtOp::kJoin)
      .set_mgid_prefix(group.prefix)
      .set_mgid_id(group.id)
      .set_member_count(member_count)
      .set_member(member)
      .set_epoch(proposed_epoch);
  return start(m);
}

unsigned GroupClient::leave(const GroupId& group) {
  fmt::MgmtMsg m;
  m.set_op(fmt::MgmtOp::kLeave).set_mgid_prefix(group.prefix).set_mgid_id(group.id);
  return start(m);
}

void GroupClient::take(const Datagram& d) {
  const fmt::MgmtMsg& a = d.msg;
  Request* r = nullptr;
  if (d.src == agent_) {
    if (a.txn() != 0) {
      const auto it = requests_.find(a.txn());
      r = it != requests_.end() && same_group(it->second.msg, a) ? &it->second : nullptr;
    } else if (a.op() == fmt::MgmtOp::kReady) {
      for (auto& [txn, req] : requests_) {
        if (req.msg.op() == fmt::MgmtOp::kJoin && same_group(req.msg, a) &&
            req.state == RequestState::kPending) {
          r = &req;
        }
      }
    }
  }
  if (r == nullptr || r->state != RequestState::kPending) {
    ++stats_.stale;
    return;
  }
  ++stats_.answers;
  if (r->msg.op() == fmt::MgmtOp::kJoin) {
    if (a.op() == fmt::MgmtOp::kReady) {
      r->answer = a;
      r->state = RequestState::kDone;
    } else if (!still_joining(a)) {
      r->answer = a;
      r->state = RequestState::kRefused;
    }
    return;
  }
  r->answer = a;
  r->state = still_joining(a) ? RequestState::kDone : RequestState::kRefused;
}

void GroupClient::poll() {
  while (const std::optional<Datagram> d = mailbox_.receive()) {
    take(*d);
  }
  const std::uint64_t now = opt_.clock_ns();
  for (auto& [txn, r] : requests_) {
    if (r.state != RequestState::kPending) {
      continue;
    }
    if (now - r.first_at >= opt_.timeout_ns) {
      r.state = RequestState::kTimedOut;
      continue;
    }
    if (r.sent_at && now - *r.sent_at < opt_.resend_ns) {
      continue;
    }
    if (!mailbox_.send(agent_, r.msg)) {
      return;  // the mailbox is still sending: the rest go at the next poll
    }
    stats_.resent += r.sent_at ? 1 : 0;
    ++stats_.sent;
    r.sent_at = now;
  }
}

const GroupClient::Request& GroupClient::request(unsigned handle) const {
  const auto it = requests_.find(handle);
  if (it == requests_.end()) {
    throw std::invalid_argument("GroupClient: no request " + std::to_string(handle));
  }
  return it->second;
}

RequestState GroupClient::state(unsigned handle) const { return request(handle).state; }

const std::optional<fmt::MgmtMsg>& GroupClient::answer(unsigned handle) const {
  return request(handle).answer;
}

GroupTarget GroupClient::target(unsigned handle, GroupBarrierKind kind) const {
  const Request& r = request(handle);
  if (r.state != RequestState::kDone || r.msg.op() != fmt::MgmtOp::kJoin) {
    throw std::logic_error("GroupClient: request " + std::to_string(handle) +
                           " is not a completed join (" + describe(handle) + ")");
  }
  return GroupTarget{kind, r.answer->mlid(), r.answer->root_lid()};
}

std::uint16_t GroupClient::first_epoch(unsigned handle) const {
  (void)target(handle, GroupBarrierKind::kSwitchCombined);
  return request(handle).answer->epoch();
}

std::string GroupClient::describe(unsigned handle) const {
  const Request& r = request(handle);
  std::string s = std::string(r.msg.op() == fmt::MgmtOp::kJoin ? "join" : "leave") + " of group " +
                  std::to_string(r.msg.mgid_prefix()) + ":" + std::to_string(r.msg.mgid_id()) +
                  " " + to_string(r.state);
  if (r.answer) {
    s += ", status " + std::string(fmt::to_string(r.answer->status())) + ", state " +
         std::string(fmt::to_string(r.answer->state()));
    if (r.answer->mlid() != 0) {
      s += ", MLID " + std::to_string(r.answer->mlid());
    }
  }
  return s;
}

}  // namespace syncfab::driver
