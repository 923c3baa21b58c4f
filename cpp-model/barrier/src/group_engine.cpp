// The group barriers in the NIC golden model (docs/group-barrier.md §2-4,
// §6): validation of MCAST_BARRIER / COMB_BARRIER, a member's arrival, its
// re-send on GROUP_TIMEOUT and its release, the root NIC's arrival set and
// released epoch. Group packets leave through TE's ready-send order and the
// network arbiter (barrier_engine.cpp), one per cycle like a NOTIFY.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <syncfab/hw/hex.hpp>

#include "syncfab/model/barrier_engine.hpp"

namespace syncfab::model {

namespace {

std::string ctx_ep(unsigned ctx, std::uint16_t epoch) {
  return "ctx=" + std::to_string(ctx) + " ep=" + std::to_string(epoch);
}

}  // namespace

BarrierEngine::ArrivalSetView BarrierEngine::arrival_set(unsigned ctx) const {
  const Context& c = ctxs_.at(ctx);
  return ArrivalSetView{c.set_count, c.set_largest, c.set_epoch, c.released_valid,
                        c.released_epoch};
}

fmt::ErrCode BarrierEngine::validate_group(const fmt::BarrierDesc& d) const {
  // Steps 6-8 of docs/group-barrier.md §2 (validate() did 1-5).
  const bool mcast = d.opcode() == fmt::Opcode::kMcastBarrier;
  if (d.mlid() < fmt::kMlidBase) {
    return fmt::ErrCode::kBadLid;
  }
  if (mcast && d.member() > 0 &&
      (d.root_lid() == fmt::kLidNone || d.root_lid() >= fmt::kMlidBase)) {
    return fmt::ErrCode::kBadLid;
  }
  if (d.members() == 0 || d.member() >= d.members()) {
    return fmt::ErrCode::kBadMembers;
  }
  if (mcast && d.members() > fmt::kMcastMaxMembers) {
    return fmt::ErrCode::kBadMembers;
  }
  if (mcast && d.member() == 0 && d.members() > cfg_.max_members) {
    return fmt::ErrCode::kBadMembers;
  }
  if (ctxs_[d.ctx()].active) {
    return fmt::ErrCode::kCtxBusy;
  }
  return fmt::ErrCode::kNone;
}

void BarrierEngine::set_empty(Context& c, std::uint16_t epoch) const {
  if (c.set_bits.size() != cfg_.max_members) {
    c.set_bits.assign(cfg_.max_members, false);
  } else {
    std::fill(c.set_bits.begin(), c.set_bits.end(), false);
  }
  c.set_count = 0;
  c.set_largest = 0;
  c.set_epoch = epoch;
}

void BarrierEngine::activate_group(const fmt::BarrierDesc& d) {
  const unsigned ctx = d.ctx();
  Context& c = ctxs_[ctx];
  const bool mcast = d.opcode() == fmt::Opcode::kMcastBarrier;
  c.active = true;
  c.desc = d;
  c.epoch = d.epoch();
  c.num_rounds = 0;
  c.expect.clear();
  c.got.clear();
  c.sends.clear();
  c.heard = 0;
  c.released = 0;
  c.unacked = 0;
  c.role = !mcast ? GroupRole::kCombMember
                  : (d.member() == 0 ? GroupRole::kRoot : GroupRole::kMcastMember);
  c.arrival = GroupSendState::kIdle;
  c.release = GroupSendState::kIdle;
  c.resends = 0;
  c.release_matched = false;
  const unsigned p = d.members();
  trace("of.activate " + ctx_ep(ctx, c.epoch) + " op=" + std::string(fmt::to_string(d.opcode())) +
        " member=" + std::to_string(d.member()) + " members=" + std::to_string(p) +
        " mlid=" + hw::hex16(d.mlid()));
  if (p == 1) {
    finish(ctx, fmt::CqStatus::kOk, fmt::ErrCode::kNone);  // a group of one sends nothing
    return;
  }
  if (c.role != GroupRole::kRoot) {
    c.arrival = GroupSendState::kQueued;
    ready_.push_back(ReadySend{ctx, c.epoch, 0, ReadyKind::kArrival, 0});
    return;
  }
  // The early arrivals recorded for this epoch become the barrier's, unless
  // one names a member the group does not have: then the real members'
  // re-sends rebuild the set.
  if (c.set_count != 0 && c.set_epoch == c.epoch) {
    if (c.set_largest >= p) {
      count(Counter::kDrop);
      trace("ge.discard " + ctx_ep(ctx, c.epoch) + " largest=" + std::to_string(c.set_largest) +
            " members=" + std::to_string(p));
      set_empty(c, c.epoch);
    } else {
      trace("ge.early " + ctx_ep(ctx, c.epoch) + " count=" + std::to_string(c.set_count));
    }
  } else {
    set_empty(c, c.epoch);
  }
  if (c.set_count + 1 == p) {
    root_release(ctx);
  }
}

void BarrierEngine::root_take(unsigned ctx, unsigned member, const std::string& what) {
  Context& c = ctxs_[ctx];
  c.set_bits[member] = true;
  ++c.set_count;
  c.set_largest = std::max(c.set_largest, member);
  count(Counter::kArriveRecv);
  trace(what + " count=" + std::to_string(c.set_count));
}

void BarrierEngine::root_release(unsigned ctx) {
  Context& c = ctxs_[ctx];
  c.release = GroupSendState::kQueued;
  c.released_valid = true;
  c.released_epoch = c.epoch;
  ready_.push_back(ReadySend{ctx, c.epoch, 0, ReadyKind::kRelease, 0});
  trace("ge.release_ready " + ctx_ep(ctx, c.epoch) + " mlid=" + hw::hex16(c.desc.mlid()));
}

// An ARRIVE to this NIC's LID (docs/group-barrier.md §4, rules 1-6).
void BarrierEngine::on_arrive(const fmt::PktHdr& pkt) {
  const unsigned ctx = pkt.ctx();
  const std::uint16_t ep = pkt.epoch();
  const unsigned m = pkt.member();
  const std::string what = "ge.arrive " + ctx_ep(ctx, ep) + " m=" + std::to_string(m) +
                           " src=" + hw::hex16(pkt.src_lid());
  const auto drop = [&](const char* why) {
    count(Counter::kDrop);
    trace(what + " -> drop (" + why + ")");
  };
  if (!enable_) {
    drop("disabled");
    return;
  }
  if (ctx >= cfg_.num_ctx) {
    drop("no such context");
    return;
  }
  Context& c = ctxs_[ctx];
  const bool root_active = c.active && c.role == GroupRole::kRoot;
  if (root_active && c.epoch == ep) {
    const unsigned p = c.desc.members();
    if (m == 0 || m >= p) {
      drop("not a member");
      return;
    }
    if (c.set_bits[m]) {
      count(Counter::kDup);
      trace(what + " -> dup");
      return;
    }
    root_take(ctx, m, what + " -> take");
    if (c.set_count + 1 == p && c.release == GroupSendState::kIdle) {
      root_release(ctx);
    }
    return;
  }
  if (c.released_valid && ep == c.released_epoch) {
    // The member missed the release of an epoch every member reached.
    ready_.push_back(ReadySend{ctx, ep, 0, ReadyKind::kReleaseResend, pkt.src_lid()});
    trace(what + " -> re-send release");
    return;
  }
  if (!root_active && (!c.released_valid || serial_newer(ep, c.released_epoch))) {
    if (m == 0 || m >= cfg_.max_members) {
      drop("not a member");
      return;
    }
    if (c.set_count == 0 || serial_newer(ep, c.set_epoch)) {
      set_empty(c, ep);
    } else if (ep != c.set_epoch) {
      drop("older than the early set");
      return;
    }
    if (c.set_bits[m]) {
      count(Counter::kDup);
      trace(what + " -> dup (early)");
      return;
    }
    root_take(ctx, m, what + " -> early");
    return;
  }
  drop("stale epoch");
}

// A RELEASE or COMB_RELEASE (docs/group-barrier.md §3 "Release", "Any other
// release").
void BarrierEngine::on_release(const fmt::PktHdr& pkt) {
  const auto type = pkt.pkt_type();
  const bool plain = type == fmt::PktType::kRelease;
  const unsigned ctx = pkt.ctx();
  const std::uint16_t ep = pkt.epoch();
  const std::uint16_t dst = pkt.dst_lid();
  const std::string what = std::string(plain ? "ge.release " : "ge.comb_release ") +
                           ctx_ep(ctx, ep) + " dst=" + hw::hex16(dst) +
                           " src=" + hw::hex16(pkt.src_lid());
  const bool to_me = plain && dst == cfg_.lid;
  if (dst < fmt::kMlidBase && !to_me) {
    count(Counter::kDrop);
    trace(what + " -> drop (not for this node)");
    return;
  }
  if (ctx >= cfg_.num_ctx) {
    count(Counter::kDrop);
    trace(what + " -> drop (no such context)");
    return;
  }
  Context& c = ctxs_[ctx];
  const GroupRole want = plain ? GroupRole::kMcastMember : GroupRole::kCombMember;
  if (c.active && c.role == want && c.epoch == ep && (dst == c.desc.mlid() || to_me)) {
    count(Counter::kReleaseRecv);
    c.release_matched = true;
    trace(what + " -> match");
    finish(ctx, fmt::CqStatus::kOk, fmt::ErrCode::kNone);
    return;
  }
  if (c.has_last && !serial_newer(ep, c.last_epoch)) {
    count(Counter::kDup);
    trace(what + " -> dup");
    return;
  }
  count(Counter::kDrop);
  trace(what + " -> drop (no barrier waits for it)");
}

void BarrierEngine::step_group_timers() {
  if (timers_armed_ == 0) {
    return;
  }
  for (unsigned i = 0; i < cfg_.num_ctx; ++i) {
    Context& c = ctxs_[i];
    if (!c.timer_armed || c.deadline > cycle_) {
      continue;
    }
    c.timer_armed = false;
    --timers_armed_;
    if (group_retry_limit_ != 0 && c.resends >= group_retry_limit_) {
      trace("ge.timeout " + ctx_ep(i, c.epoch) + " -> retry limit " +
            std::to_string(group_retry_limit_));
      finish(i, fmt::CqStatus::kNetError, fmt::ErrCode::kReleaseTimeout);
      continue;
    }
    ++c.resends;  // CNT_GROUP_RETRY counts when the re-send leaves
    c.arrival = GroupSendState::kQueued;
    ready_.push_back(ReadySend{i, c.epoch, 0, ReadyKind::kArrival, 0});
    trace("ge.timeout " + ctx_ep(i, c.epoch) + " -> re-send " + std::to_string(c.resends));
  }
}

fmt::PktHdr BarrierEngine::ready_packet(const ReadySend& r) const {
  const Context& c = ctxs_[r.ctx];
  const auto ctx = static_cast<std::uint8_t>(r.ctx);
  fmt::PktHdr p;
  p.set_len_flits(1).set_src_lid(cfg_.lid).set_ctx(ctx).set_epoch(r.epoch).set_round(0);
  switch (r.kind) {
    case ReadyKind::kNotify: {
      const Send& s = c.sends[r.index];
      p.set_pkt_type(fmt::PktType::kNotify).set_dst_lid(s.dst).set_round(s.round);
      break;
    }
    case ReadyKind::kArrival:
      if (c.role == GroupRole::kMcastMember) {
        p.set_pkt_type(fmt::PktType::kArrive)
            .set_dst_lid(c.desc.root_lid())
            .set_member(c.desc.member());
      } else {
        p.set_pkt_type(fmt::PktType::kCombArrive).set_dst_lid(c.desc.mlid());
      }
      break;
    case ReadyKind::kRelease:
      p.set_pkt_type(fmt::PktType::kRelease).set_dst_lid(c.desc.mlid());
      break;
    case ReadyKind::kReleaseResend:
      p.set_pkt_type(fmt::PktType::kRelease).set_dst_lid(r.dst);
      break;
  }
  return p;
}

void BarrierEngine::group_granted(const ReadySend& r) {
  Context& c = ctxs_[r.ctx];
  if (r.kind == ReadyKind::kArrival) {
    c.arrival = GroupSendState::kInFlight;
  } else if (r.kind == ReadyKind::kRelease) {
    c.release = GroupSendState::kInFlight;
  }
}

void BarrierEngine::group_left(const fmt::PktHdr& h, bool retry) {
  const unsigned ctx = h.ctx();
  const std::uint16_t ep = h.epoch();
  Context& c = ctxs_[ctx];
  const auto type = h.pkt_type();
  if (type == fmt::PktType::kArrive || type == fmt::PktType::kCombArrive) {
    count(Counter::kArriveSent);
    if (retry) {
      count(Counter::kGroupRetry);
    }
    trace("ge.arrive_send " + ctx_ep(ctx, ep) + " dst=" + hw::hex16(h.dst_lid()) +
          " m=" + std::to_string(h.member()) + (retry ? " retry" : ""));
    const bool member = c.role == GroupRole::kMcastMember || c.role == GroupRole::kCombMember;
    if (c.active && member && c.epoch == ep && c.arrival == GroupSendState::kInFlight) {
      c.arrival = GroupSendState::kLeft;
      if (group_timeout_ != 0) {
        c.timer_armed = true;
        ++timers_armed_;
        c.deadline = cycle_ + group_timeout_;
      }
    }
    return;
  }
  count(Counter::kReleaseSent);
  trace("ge.release_send " + ctx_ep(ctx, ep) + " dst=" + hw::hex16(h.dst_lid()));
  if (h.dst_lid() >= fmt::kMlidBase && c.active && c.role == GroupRole::kRoot && c.epoch == ep &&
      c.release == GroupSendState::kInFlight) {
    c.release = GroupSendState::kLeft;
    finish(ctx, fmt::CqStatus::kOk, fmt::ErrCode::kNone);
  }
}

// The golden model's safety rules (docs/group-barrier.md §7): a root
// completes OK only with members - 1 arrivals, a member only on its release.
void BarrierEngine::check_ok_completion(unsigned ctx) const {
  const Context& c = ctxs_[ctx];
  if (c.role == GroupRole::kNone || c.desc.members() == 1) {
    return;
  }
  const std::string who = "NIC " + hw::hex16(cfg_.lid) + " " + ctx_ep(ctx, c.epoch);
  if (c.role == GroupRole::kRoot && c.set_count + 1 != c.desc.members()) {
    throw std::logic_error("group barrier safety: root " + who + " completes OK with " +
                           std::to_string(c.set_count) + " arrivals of " +
                           std::to_string(c.desc.members() - 1));
  }
  if (c.role != GroupRole::kRoot && !c.release_matched) {
    throw std::logic_error("group barrier safety: member " + who +
                           " completes OK without a matching release");
  }
}

}  // namespace syncfab::model
