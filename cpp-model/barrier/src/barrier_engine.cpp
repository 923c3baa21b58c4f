#include "syncfab/model/barrier_engine.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <syncfab/hw/errors.hpp>
#include <syncfab/hw/hex.hpp>
#include <syncfab/hw/nic_regs.hpp>

#include "syncfab/model/nic_group_regs.hpp"

namespace syncfab::model {

namespace {

fmt::PktHdr make_pkt(fmt::PktType type, std::uint16_t src, std::uint16_t dst, std::uint8_t ctx,
                     std::uint16_t epoch, std::uint8_t round) {
  fmt::PktHdr p;
  p.set_pkt_type(type)
      .set_len_flits(1)
      .set_src_lid(src)
      .set_dst_lid(dst)
      .set_ctx(ctx)
      .set_epoch(epoch)
      .set_round(round);
  return p;
}

}  // namespace

BarrierEngine::BarrierEngine(const EngineConfig& config, hw::DmaMemory& memory)
    : cfg_(config),
      mem_(&memory),
      retry_delay_(hw::nic::kRetryDelayReset),
      retry_limit_(hw::nic::kRetryLimitReset),
      net_tc_(hw::nic::kNetCfgTcReset),
      pfc_enable_(hw::nic::kPfcCfgEnableReset),
      pfc_cyc_per_q_(hw::nic::kPfcCfgCycPerQuantumReset),
      group_timeout_(group_regs::kGroupTimeoutReset),
      group_retry_limit_(group_regs::kGroupRetryLimitReset),
      hdq_window_(hw::nic::kHdqWindowWords, 0),
      ctxs_(config.num_ctx),
      damq_(config.num_ctx, std::max(config.req_damq_entries, 1U)),
      pfc_(PfcRxParams{fmt::kNumPrio, hw::nic::PFC_CFG_CYC_PER_QUANTUM.width}) {
  if (cfg_.lid == fmt::kLidNone || cfg_.lid >= fmt::kMlidBase) {
    throw std::invalid_argument("engine LID " + hw::hex16(cfg_.lid) + " is not a unicast LID");
  }
  // HW_CFG.NUM_CTX is 8 bits wide.
  if (cfg_.num_ctx == 0 || cfg_.num_ctx > 255) {
    throw std::invalid_argument("engine num_ctx " + std::to_string(cfg_.num_ctx) +
                                " is out of range 1..255");
  }
  if (cfg_.hdq_depth == 0 || cfg_.hdq_depth > 255) {
    throw std::invalid_argument("engine hdq_depth " + std::to_string(cfg_.hdq_depth) +
                                " is out of range 1..255");
  }
  if (cfg_.req_damq_entries == 0) {
    throw std::invalid_argument("engine req_damq_entries 0: the request DAMQ needs an entry");
  }
  if (cfg_.resp_queue_depth == 0) {
    throw std::invalid_argument(
        "engine resp_queue_depth 0: SE's response queue needs an entry (a NOTIFY would never be "
        "taken)");
  }
  if (cfg_.max_members == 0 || cfg_.max_members > fmt::kMcastMaxMembers) {
    throw std::invalid_argument("engine max_members " + std::to_string(cfg_.max_members) +
                                " is out of range 1.." + std::to_string(fmt::kMcastMaxMembers));
  }
  if (cfg_.data_path) {
    dp_.emplace();
  }
  // HW_CFG2.MBOX_DEPTH is 8 bits wide.
  if (cfg_.mbox_depth == 0 || cfg_.mbox_depth > 255) {
    throw std::invalid_argument("engine mbox_depth " + std::to_string(cfg_.mbox_depth) +
                                " is out of range 1..255");
  }
  static_assert((1U << hw::nic::NET_CFG_TC.width) >= fmt::kNumPrio,
                "NET_CFG.TC names every priority");
  static_assert(hw::nic::PFC_CFG_ENABLE.width == fmt::kNumPrio,
                "PFC_CFG.ENABLE has one bit per priority");
  static_assert(fmt::BarrierDesc::kSizeBytes <= hw::nic::kHdqWindowWords * 4,
                "a descriptor fits the HDQ window");
}

bool BarrierEngine::serial_newer(std::uint16_t a, std::uint16_t b) noexcept {
  // RFC 1982 serial-number order on 16 bits: a is after b.
  return a != b && static_cast<std::uint16_t>(a - b) < 0x8000U;
}

void BarrierEngine::count(Counter c) {
  auto& v = counters_[static_cast<unsigned>(c)];
  if (v != 0xFFFF'FFFFU) {
    ++v;
  }
}

void BarrierEngine::trace(const std::string& what) {
  if (trace_) {
    trace_("cyc=" + std::to_string(cycle_) + " " + what);
  }
}

void BarrierEngine::receive(const fmt::PktHdr& pkt) { link_in_.push_back(header_flit(pkt)); }

void BarrierEngine::receive(std::span<const LinkFlit> flits) {
  link_in_.insert(link_in_.end(), flits.begin(), flits.end());
}

std::optional<fmt::PktHdr> BarrierEngine::transmit() {
  if (tx_out_.empty()) {
    return std::nullopt;
  }
  const fmt::PktHdr p(tx_out_.front().front().data);
  tx_out_.pop_front();
  return p;
}

std::optional<std::vector<LinkFlit>> BarrierEngine::transmit_flits() {
  if (tx_out_.empty()) {
    return std::nullopt;
  }
  auto p = std::move(tx_out_.front());
  tx_out_.pop_front();
  return p;
}

bool BarrierEngine::quiescent() const {
  if (!link_in_.empty() || !tx_out_.empty() || tx_hold_ || !resp_q_.empty() || !ready_.empty() ||
      !retries_.empty() || of_busy_ != 0 || cmpl_busy_ != 0 || timers_armed_ != 0 ||
      mbox_tx_busy() || (dp_ && !dp_->idle()) || rx_state_ == RxState::kData) {
    return false;
  }
  if (enable_ && (!hdq_.empty() || sdq_pending())) {
    return false;
  }
  // A completion stalled on a full CQ waits for a CSR write, like the idle engine.
  return cmpl_q_.empty() || cq_full();
}

void BarrierEngine::run(std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    step();
  }
}

void BarrierEngine::skip(std::uint64_t n) {
  if (!quiescent()) {
    throw std::logic_error("BarrierEngine::skip: the engine at LID " + hw::hex16(cfg_.lid) +
                           " has work pending at cycle " + std::to_string(cycle_));
  }
  // The pause timers run on: n cycles without a frame (a timer at 0 stays 0).
  std::uint64_t left = 0;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    left = std::max(left, pfc_.timer(p));
  }
  for (std::uint64_t i = 0; i < std::min(n, left); ++i) {
    step_pfc(PfcIn{});
  }
  cycle_ += n;
}

void BarrierEngine::step() {
  NetIn in;
  if (!link_in_.empty()) {
    in.rx = link_in_.front();
  }
  in.tx_ready = tx_ready_;
  const NetOut out = step_link(in);
  if (out.rx_taken) {
    link_in_.pop_front();
  }
  if (out.tx_taken) {
    tx_partial_.push_back(*out.tx_flit);
    if (out.tx_flit->last) {
      tx_out_.push_back(std::move(tx_partial_));
      tx_partial_.clear();
    }
  }
}

NetOut BarrierEngine::step(const NetIn& in) {
  if (in.rx && !link_in_.empty()) {
    throw std::logic_error("BarrierEngine::step: a flit offered at the pins while " +
                           std::to_string(link_in_.size()) +
                           " flit(s) wait on the queued link (receive())");
  }
  return step_link(in);
}

NetOut BarrierEngine::step_link(const NetIn& in) {
  NetOut out;
  // This cycle's outputs follow from the state before its edge: rx_ready,
  // and the header on tx (granted now if none is held and TC is not paused).
  const bool rx_ok = in.rx && rx_ready(*in.rx);
  while (!ready_.empty() && !ready_valid(ready_.front())) {
    ready_.pop_front();  // stale: its barrier ended or was reset
  }
  if (mbox_tx_.state == MboxTxState::kPayload) {
    // The rest of a MGMT packet whose header left: nothing in between.
    out.tx_flit = mbox_payload_flit();
    if (in.tx_ready) {
      out.tx_taken = true;
      mbox_flit_left();
    }
  } else if (dp_ && dp_->payload_active()) {
    // The rest of a DATA packet whose header left (docs/nic/dcqcn.md §6).
    out.tx_flit = dp_->payload_flit();
    if (in.tx_ready) {
      out.tx_taken = true;
      dp_->payload_flit_left();
    }
  } else if (!tx_hold_) {
    grant_all();
  }
  if (tx_hold_ && !out.tx_flit) {
    const bool own = tx_hold_->cnp || tx_hold_->data;  // prio and src_lid set by the data path
    out.tx = own ? tx_hold_->hdr : stamp(tx_hold_->hdr, tx_hold_->resp || tx_hold_->mgmt);
    out.tx_flit = header_flit(*out.tx, !tx_hold_->mgmt && !tx_hold_->data);
    if (in.tx_ready) {
      out.tx_taken = true;
      const TxHold h = *tx_hold_;
      tx_hold_.reset();
      tx_taken(h);
    }
  }
  step_retry_timers();
  step_group_timers();
  PfcIn frame;
  if (rx_ok) {
    out.rx_taken = true;
    rx_flit(*in.rx, frame);
  }
  step_dispatch();
  step_completion();
  step_pfc(frame);
  if (dp_) {
    dp_->end_cycle();
  }
  ++cycle_;
  return out;
}

// ------------------------------------------------------------ rx demux, PFC rx

bool BarrierEngine::se_ready() const {
  const std::size_t held = tx_hold_ && tx_hold_->resp ? 1 : 0;
  return resp_q_.size() + held < cfg_.resp_queue_depth;
}

bool BarrierEngine::rx_ready(const LinkFlit& flit) const {
  if (rx_state_ != RxState::kIdle) {
    return true;  // the rest of a packet being dropped, or of a PFC frame
  }
  const fmt::PktHdr h(flit.data);
  // A one-flit NOTIFY goes to SE (its response needs room); a one-flit
  // ACK/NACK to TE (whose response DAMQ always has a slot); anything else is
  // taken at once.
  return !(h.pkt_type() == fmt::PktType::kNotify && flit.last) || se_ready();
}

void BarrierEngine::net_drop(const std::string& why) {
  count(Counter::kDrop);
  trace("net.drop " + why);
}

void BarrierEngine::rx_flit(const LinkFlit& flit, PfcIn& frame) {
  switch (rx_state_) {
    case RxState::kDrop:
      if (flit.last) {
        rx_state_ = RxState::kIdle;
        net_drop("(last flit of a packet the engine does not take)");
      }
      return;
    case RxState::kPfc: {
      ++rx_flits_;
      if (rx_flits_ == kPfcFrameFlits) {
        auto bytes = rx_pfc_.bytes();
        std::copy(flit.data.begin(), flit.data.end(),
                  bytes.begin() + static_cast<std::ptrdiff_t>(kFlitBytes));
        rx_pfc_ = fmt::PfcFrame(bytes);
      }
      if (!flit.last) {
        return;
      }
      rx_state_ = RxState::kIdle;
      if (rx_flits_ != kPfcFrameFlits || rx_pfc_.len_flits() != kPfcFrameFlits) {
        net_drop("malformed PFC frame: " + std::to_string(rx_flits_) + " flits, len_flits " +
                 std::to_string(rx_pfc_.len_flits()));
        return;
      }
      frame.valid = true;
      frame.class_enable = rx_pfc_.class_enable();
      std::string q;
      for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
        frame.quanta[p] = rx_pfc_.quanta(p);
        if (((frame.class_enable >> p) & 1U) != 0) {
          q += " q" + std::to_string(p) + "=" + std::to_string(frame.quanta[p]);
        }
      }
      trace("net.pfc class=" + hw::hex16(frame.class_enable) + q);
      return;
    }
    case RxState::kMgmt:
      mbox_rx_flit(flit);
      return;
    case RxState::kData:
      ++rx_data_flits_;
      if (flit.last) {
        rx_state_ = RxState::kIdle;
        dp_->rx_data(rx_data_hdr_, rx_data_flits_, cfg_.lid, cycle_);
      }
      return;
    case RxState::kIdle:
      break;
  }
  const fmt::PktHdr h(flit.data);
  const auto type = h.pkt_type();
  if (dp_ && type == fmt::PktType::kData) {
    rx_data_hdr_ = h;
    rx_data_flits_ = 1;
    if (flit.last) {
      dp_->rx_data(h, 1, cfg_.lid, cycle_);
    } else {
      rx_state_ = RxState::kData;
    }
    return;
  }
  if (dp_ && type == fmt::PktType::kCnp && flit.last) {
    dp_->rx_cnp(h, cfg_.lid);
    return;
  }
  if (type == fmt::PktType::kMgmt) {
    mbox_rx_flit(flit);  // to the mailbox, whatever its length
    return;
  }
  const bool barrier_pkt = type == fmt::PktType::kNotify || type == fmt::PktType::kAck ||
                           type == fmt::PktType::kNack || type == fmt::PktType::kArrive ||
                           type == fmt::PktType::kRelease || type == fmt::PktType::kCombArrive ||
                           type == fmt::PktType::kCombRelease;
  if (barrier_pkt && flit.last) {
    process_rx(h);  // to SE, TE or the group logic: they check the rest of the header
    return;
  }
  if (type == fmt::PktType::kPfc) {
    fmt::PfcFrame::Bytes bytes{};
    std::copy(flit.data.begin(), flit.data.end(), bytes.begin());
    rx_pfc_ = fmt::PfcFrame(bytes);
    rx_flits_ = 1;
    if (flit.last) {
      net_drop("malformed PFC frame: 1 flit, len_flits " + std::to_string(rx_pfc_.len_flits()));
    } else {
      rx_state_ = RxState::kPfc;
    }
    return;
  }
  // DATA, CNP, an unknown type, a NOTIFY/ACK/NACK of more than one flit:
  // consumed, counted once at the packet's last flit.
  if (flit.last) {
    net_drop("type=" + std::to_string(static_cast<unsigned>(type)) +
             " src=" + hw::hex16(h.src_lid()) + " dst=" + hw::hex16(h.dst_lid()));
  } else {
    rx_state_ = RxState::kDrop;
  }
}

void BarrierEngine::step_pfc(const PfcIn& frame) {
  PfcRxInputs in;
  in.enable = pfc_enable_;
  in.cyc_per_quantum = std::max<std::uint32_t>(pfc_cyc_per_q_, 1);  // 0 acts as 1
  in.frame_valid = frame.valid;
  in.class_enable = frame.class_enable;
  in.quanta = frame.quanta;
  in.ignore = 0;  // the NIC has no watchdog
  const PfcRxOutputs out = pfc_.step(in);
  if (frame.valid) {
    count(Counter::kPfcRx);
  }
  if (((out.evt_xoff_rx >> net_tc_) & 1U) != 0) {
    count(Counter::kPauseRx);
    trace("net.pause prio=" + std::to_string(net_tc_) +
          " cycles=" + std::to_string(pfc_.timer(net_tc_)));
  }
}

bool BarrierEngine::tx_paused() const { return pfc_.timer(net_tc_) != 0; }

std::uint8_t BarrierEngine::paused_mask() const {
  std::uint8_t m = 0;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    m = static_cast<std::uint8_t>(m | ((pfc_.timer(p) != 0 ? 1U : 0U) << p));
  }
  return m;
}

// ------------------------------------------------------------------ network in

// A one-flit NOTIFY (to SE), ACK/NACK (to TE) or group-barrier packet from
// the rx demux.
void BarrierEngine::process_rx(const fmt::PktHdr& pkt) {
  const auto type = pkt.pkt_type();
  if (type == fmt::PktType::kRelease || type == fmt::PktType::kCombRelease ||
      type == fmt::PktType::kCombArrive) {
    if (pkt.len_flits() != 1 || type == fmt::PktType::kCombArrive) {
      // A COMB_ARRIVE is for the switches' combine units (§6).
      count(Counter::kDrop);
      trace("net.drop type=" + std::to_string(static_cast<unsigned>(type)) +
            " src=" + hw::hex16(pkt.src_lid()) + " dst=" + hw::hex16(pkt.dst_lid()));
      return;
    }
    on_release(pkt);  // to this node or to a group: checked there
    return;
  }
  const bool barrier_pkt = type == fmt::PktType::kNotify || type == fmt::PktType::kAck ||
                           type == fmt::PktType::kNack || type == fmt::PktType::kArrive;
  if (!barrier_pkt || pkt.len_flits() != 1 || pkt.dst_lid() != cfg_.lid) {
    // §4 rule 1, SE's and TE's own check: a header that says it is longer
    // than its one flit, or is another node's, is dropped unanswered.
    count(Counter::kDrop);
    trace("net.drop type=" + std::to_string(static_cast<unsigned>(type)) +
          " src=" + hw::hex16(pkt.src_lid()) + " dst=" + hw::hex16(pkt.dst_lid()));
    return;
  }
  if (type == fmt::PktType::kNotify) {
    on_notify(pkt);
  } else if (type == fmt::PktType::kArrive) {
    on_arrive(pkt);
  } else {
    on_response(pkt, type == fmt::PktType::kAck);
  }
}

void BarrierEngine::respond(const fmt::PktHdr& n, fmt::PktType type) {
  resp_q_.push_back(make_pkt(type, cfg_.lid, n.src_lid(), n.ctx(), n.epoch(), n.round()));
  if (type == fmt::PktType::kNack) {
    count(Counter::kNackSent);
  }
}

bool BarrierEngine::mark_received(Context& c, std::uint16_t src, unsigned round) {
  if (round >= c.num_rounds) {
    return false;
  }
  const auto& e = c.expect[round];
  const auto it = std::find(e.begin(), e.end(), src);
  if (it == e.end()) {
    return false;
  }
  c.got[round][static_cast<std::size_t>(it - e.begin())] = true;
  return true;
}

void BarrierEngine::on_notify(const fmt::PktHdr& n) {
  const unsigned ctx = n.ctx();
  const std::uint16_t ep = n.epoch();
  const std::string what = "se.notify ctx=" + std::to_string(ctx) + " ep=" + std::to_string(ep) +
                           " r=" + std::to_string(n.round()) + " src=" + hw::hex16(n.src_lid());
  if (!enable_) {
    respond(n, fmt::PktType::kNack);
    trace(what + " -> NACK (disabled)");
    return;
  }
  if (ctx >= cfg_.num_ctx) {
    count(Counter::kDrop);
    respond(n, fmt::PktType::kAck);
    trace(what + " -> drop (no such context)");
    return;
  }
  Context& c = ctxs_[ctx];
  const bool stale =
      c.active ? serial_newer(c.epoch, ep) : (c.has_last && !serial_newer(ep, c.last_epoch));
  if (stale) {
    count(Counter::kDrop);
    respond(n, fmt::PktType::kAck);
    trace(what + " -> drop (stale epoch)");
    return;
  }
  if (c.active && c.epoch == ep) {
    const unsigned r = n.round();
    if (r < c.num_rounds) {
      const auto& e = c.expect[r];
      const auto it = std::find(e.begin(), e.end(), n.src_lid());
      if (it != e.end()) {
        const auto slot = static_cast<std::size_t>(it - e.begin());
        if (c.got[r][slot]) {
          count(Counter::kDup);
          respond(n, fmt::PktType::kAck);
          trace(what + " -> dup");
          return;
        }
        c.got[r][slot] = true;
        count(Counter::kNotifRecv);
        respond(n, fmt::PktType::kAck);
        trace(what + " -> match");
        advance(ctx);
        return;
      }
    }
    count(Counter::kDrop);
    respond(n, fmt::PktType::kAck);
    trace(what + " -> drop (not expected)");
    return;
  }
  // Not yet active, or a later epoch: park it.
  const ParkedNotify pn{n.src_lid(), ep, n.round()};
  if (damq_.contains(ctx, pn)) {
    count(Counter::kDup);
    respond(n, fmt::PktType::kAck);
    trace(what + " -> dup (parked)");
    return;
  }
  if (damq_.park(ctx, pn)) {
    count(Counter::kNotifRecv);
    respond(n, fmt::PktType::kAck);
    trace(what + " -> park (damq " + std::to_string(damq_.used()) + "/" +
          std::to_string(damq_.capacity()) + ")");
    return;
  }
  respond(n, fmt::PktType::kNack);
  trace(what + " -> NACK (damq full)");
}

void BarrierEngine::on_response(const fmt::PktHdr& p, bool ack) {
  const unsigned ctx = p.ctx();
  const std::string what = std::string(ack ? "te.ack" : "te.nack") + " ctx=" + std::to_string(ctx) +
                           " ep=" + std::to_string(p.epoch()) + " r=" + std::to_string(p.round()) +
                           " from=" + hw::hex16(p.src_lid());
  Send* s = nullptr;
  std::size_t index = 0;
  if (ctx < cfg_.num_ctx && ctxs_[ctx].active && ctxs_[ctx].epoch == p.epoch()) {
    auto& sends = ctxs_[ctx].sends;
    for (std::size_t i = 0; i < sends.size(); ++i) {
      if (sends[i].round == p.round() && sends[i].dst == p.src_lid() &&
          sends[i].state == SendState::kInFlight) {
        s = &sends[i];
        index = i;
        break;
      }
    }
  }
  if (s == nullptr) {
    // A response to nothing we have in flight (aborted barrier, or forged).
    count(Counter::kDrop);
    trace(what + " -> drop (no send in flight)");
    return;
  }
  Context& c = ctxs_[ctx];
  if (ack) {
    s->state = SendState::kAcked;
    --c.unacked;
    trace(what);
    advance(ctx);
    return;
  }
  count(Counter::kNackRecv);
  if (retry_limit_ != 0 && s->retries >= retry_limit_) {
    trace(what + " -> retry limit " + std::to_string(retry_limit_));
    finish(ctx, fmt::CqStatus::kNetError, fmt::ErrCode::kRetryLimit);
    return;
  }
  s->state = SendState::kRetryWait;
  s->retry_at = cycle_ + retry_delay_;
  retries_.push(RetryTimer{s->retry_at, ctx, c.epoch, index});
  trace(what + " -> retry at " + std::to_string(s->retry_at));
}

void BarrierEngine::step_retry_timers() {
  while (!retries_.empty() && retries_.top().at <= cycle_) {
    const auto t = retries_.top();
    retries_.pop();
    Context& c = ctxs_[t.ctx];
    if (!c.active || c.epoch != t.epoch || t.index >= c.sends.size()) {
      continue;
    }
    Send& s = c.sends[t.index];
    if (s.state != SendState::kRetryWait || s.retry_at != t.at) {
      continue;
    }
    s.state = SendState::kQueued;
    ++s.retries;  // CNT_RETRY counts when the re-send leaves
    ready_.push_back(ReadySend{t.ctx, t.epoch, t.index});
  }
}

// --------------------------------------------------------------- SE -> TE, done

void BarrierEngine::advance(unsigned ctx) {
  Context& c = ctxs_[ctx];
  if (!c.active) {
    return;
  }
  while (c.heard < c.num_rounds &&
         std::all_of(c.got[c.heard].begin(), c.got[c.heard].end(), [](bool b) { return b; })) {
    ++c.heard;
    trace("se.round_done ctx=" + std::to_string(ctx) + " heard=" + std::to_string(c.heard));
  }
  // TE may send round r once every notification of rounds < r is held.
  while (c.released < c.num_rounds && c.released <= c.heard) {
    for (std::size_t i = 0; i < c.sends.size(); ++i) {
      if (c.sends[i].round == c.released && c.sends[i].state == SendState::kLocked) {
        c.sends[i].state = SendState::kQueued;
        ready_.push_back(ReadySend{ctx, c.epoch, i});
      }
    }
    ++c.released;
  }
  if (c.heard == c.num_rounds && c.released == c.num_rounds && c.unacked == 0) {
    finish(ctx, fmt::CqStatus::kOk, fmt::ErrCode::kNone);
  }
}

void BarrierEngine::finish(unsigned ctx, fmt::CqStatus status, fmt::ErrCode err) {
  Context& c = ctxs_[ctx];
  if (status == fmt::CqStatus::kOk) {
    check_ok_completion(ctx);
  }
  if (c.timer_armed) {
    c.timer_armed = false;
    --timers_armed_;
  }
  c.active = false;
  c.has_last = true;
  c.last_epoch = c.epoch;
  PendingCompletion pc;
  pc.rec = CompletionRecord{static_cast<std::uint8_t>(ctx), c.epoch, status, err, 0};
  pc.write = c.desc.flag_cmpl_write();
  pc.addr = c.desc.cmpl_addr();
  pc.value = c.desc.cmpl_value();
  pc.cq_entry = c.desc.flag_cq_entry();
  pc.irq = c.desc.flag_irq();
  cmpl_q_.push_back(pc);
  c.sends.clear();
  trace("te.done ctx=" + std::to_string(ctx) + " ep=" + std::to_string(c.epoch) + " status=" +
        std::string(fmt::to_string(status)) + " err=" + std::string(fmt::to_string(err)));
}

// ---------------------------------------------------------------- OF dispatcher

bool BarrierEngine::sdq_pending() const {
  return sdq_size_ != 0 && sdq_prod_ < sdq_size_ && sdq_cons_ != sdq_prod_;
}

void BarrierEngine::step_dispatch() {
  if (of_busy_ != 0) {
    if (--of_busy_ == 0) {
      if (of_dma_error_) {
        of_dma_error_ = false;
        intr_status_ |= hw::nic::INTR_STATUS_DMA_ERROR.mask;
        complete_error(0, 0, fmt::ErrCode::kDmaError);
      } else {
        dispatch(*of_desc_);
      }
      of_desc_.reset();
    }
    return;
  }
  if (!enable_) {
    return;
  }
  const bool hdq = !hdq_.empty();
  const bool sdq = sdq_pending();
  if (!hdq && !sdq) {
    return;
  }
  // Round-robin between the two queues when both have work.
  const Source src = (hdq && sdq) ? next_source_ : (hdq ? Source::kHdq : Source::kSdq);
  next_source_ = src == Source::kHdq ? Source::kSdq : Source::kHdq;
  if (src == Source::kHdq) {
    of_desc_ = hdq_.front();
    hdq_.pop_front();
    of_busy_ = std::max(cfg_.hdq_dispatch_cycles, 1U);
    trace("of.fetch hdq");
  } else {
    const std::uint64_t addr = sdq_base_ + std::uint64_t{sdq_cons_} * fmt::BarrierDesc::kSizeBytes;
    fmt::BarrierDesc::Bytes image{};
    try {
      mem_->read(addr, std::as_writable_bytes(std::span(image)));
      of_desc_ = fmt::BarrierDesc(image);
    } catch (const hw::DmaError&) {
      of_dma_error_ = true;
    }
    sdq_cons_ = (sdq_cons_ + 1) % sdq_size_;
    of_busy_ = std::max(cfg_.sdq_fetch_cycles, 1U);
    trace("of.fetch sdq slot=" + std::to_string((sdq_cons_ + sdq_size_ - 1) % sdq_size_) +
          (of_dma_error_ ? " DMA_ERROR" : ""));
  }
}

fmt::ErrCode BarrierEngine::validate(const fmt::BarrierDesc& d) const {
  const bool group =
      d.opcode() == fmt::Opcode::kMcastBarrier || d.opcode() == fmt::Opcode::kCombBarrier;
  if (d.opcode() != fmt::Opcode::kBarrier && !group) {
    return fmt::ErrCode::kBadOpcode;
  }
  if (d.version() != fmt::kDescVersion) {
    return fmt::ErrCode::kBadVersion;
  }
  if (d.ctx() >= cfg_.num_ctx) {
    return fmt::ErrCode::kBadContext;
  }
  if (!group && d.num_rounds() > fmt::kMaxRounds) {
    return fmt::ErrCode::kBadRounds;
  }
  if (!group && (d.fanout_k() == 0 || d.fanout_k() > fmt::kKMax)) {
    return fmt::ErrCode::kBadFanout;
  }
  if (d.flag_cmpl_write() && (d.cmpl_addr() == 0 || d.cmpl_addr() % 8 != 0)) {
    return fmt::ErrCode::kBadAddr;
  }
  if (group) {
    return validate_group(d);
  }
  for (std::size_t r = 0; r < d.num_rounds(); ++r) {
    for (std::size_t i = 0; i < d.fanout_k(); ++i) {
      const auto dst = d.round_dst_lid(r, i);
      const auto src = d.round_src_lid(r, i);
      if (dst >= fmt::kMlidBase || src >= fmt::kMlidBase) {
        return fmt::ErrCode::kBadLid;
      }
      for (std::size_t j = 0; j < i; ++j) {
        if ((dst != fmt::kLidNone && d.round_dst_lid(r, j) == dst) ||
            (src != fmt::kLidNone && d.round_src_lid(r, j) == src)) {
          return fmt::ErrCode::kBadLid;  // a peer twice in one round is ambiguous
        }
      }
    }
  }
  if (ctxs_[d.ctx()].active) {
    return fmt::ErrCode::kCtxBusy;
  }
  return fmt::ErrCode::kNone;
}

void BarrierEngine::dispatch(const fmt::BarrierDesc& d) {
  const auto err = validate(d);
  if (err != fmt::ErrCode::kNone) {
    trace("of.reject ctx=" + std::to_string(d.ctx()) + " ep=" + std::to_string(d.epoch()) +
          " err=" + std::string(fmt::to_string(err)));
    complete_error(d.ctx(), d.epoch(), err);
    return;
  }
  activate(d);
}

void BarrierEngine::complete_error(std::uint8_t ctx, std::uint16_t epoch, fmt::ErrCode err) {
  PendingCompletion pc;
  pc.rec = CompletionRecord{ctx, epoch, fmt::CqStatus::kDescError, err, 0};
  cmpl_q_.push_back(pc);
}

void BarrierEngine::activate(const fmt::BarrierDesc& d) {
  if (d.opcode() != fmt::Opcode::kBarrier) {
    activate_group(d);
    return;
  }
  const unsigned ctx = d.ctx();
  Context& c = ctxs_[ctx];
  c.active = true;
  c.role = GroupRole::kNone;
  c.desc = d;
  c.epoch = d.epoch();
  c.num_rounds = d.num_rounds();
  c.expect.assign(c.num_rounds, {});
  c.got.assign(c.num_rounds, {});
  c.sends.clear();
  c.heard = 0;
  c.released = 0;
  for (unsigned r = 0; r < c.num_rounds; ++r) {
    for (std::size_t i = 0; i < d.fanout_k(); ++i) {
      if (const auto src = d.round_src_lid(r, i); src != fmt::kLidNone) {
        c.expect[r].push_back(src);
      }
      if (const auto dst = d.round_dst_lid(r, i); dst != fmt::kLidNone) {
        c.sends.push_back(Send{dst, static_cast<std::uint8_t>(r), SendState::kLocked, 0, 0});
      }
    }
    c.got[r].assign(c.expect[r].size(), false);
  }
  c.unacked = static_cast<unsigned>(c.sends.size());
  trace("of.activate ctx=" + std::to_string(ctx) + " ep=" + std::to_string(c.epoch) +
        " rounds=" + std::to_string(c.num_rounds) + " k=" + std::to_string(d.fanout_k()));
  // Parked notifications of this epoch are taken now; older ones can never be
  // expected again (dropped); later epochs stay parked.
  damq_.drain(ctx, [&](const ParkedNotify& n) {
    if (n.epoch == c.epoch) {
      if (!mark_received(c, n.src, n.round)) {
        count(Counter::kDrop);
        trace("damq.drop ctx=" + std::to_string(ctx) + " src=" + hw::hex16(n.src) +
              " (not expected)");
      } else {
        trace("damq.take ctx=" + std::to_string(ctx) + " r=" + std::to_string(n.round) +
              " src=" + hw::hex16(n.src));
      }
      return true;
    }
    if (serial_newer(c.epoch, n.epoch)) {
      count(Counter::kDrop);
      trace("damq.drop ctx=" + std::to_string(ctx) + " src=" + hw::hex16(n.src) + " (stale epoch)");
      return true;
    }
    return false;
  });
  advance(ctx);
}

// -------------------------------------------------------------- network arbiter

bool BarrierEngine::ready_valid(const ReadySend& r) const {
  const Context& c = ctxs_[r.ctx];
  switch (r.kind) {
    case ReadyKind::kNotify:
      return c.active && c.epoch == r.epoch && r.index < c.sends.size() &&
             c.sends[r.index].state == SendState::kQueued;
    case ReadyKind::kArrival:
      return c.active && c.epoch == r.epoch &&
             (c.role == GroupRole::kMcastMember || c.role == GroupRole::kCombMember) &&
             c.arrival == GroupSendState::kQueued;
    case ReadyKind::kRelease:
      return c.active && c.epoch == r.epoch && c.role == GroupRole::kRoot &&
             c.release == GroupSendState::kQueued;
    case ReadyKind::kReleaseResend:
      return true;  // the epoch was released: the answer stays right
  }
  return false;
}

std::optional<BarrierEngine::Grant> BarrierEngine::arbitrate() const {
  std::optional<std::size_t> send;
  for (std::size_t i = 0; i < ready_.size(); ++i) {
    if (ready_valid(ready_[i])) {
      send = i;
      break;
    }
  }
  const std::array<bool, kArbSrcs> want{!resp_q_.empty(), send.has_value(),
                                        mbox_tx_.state == MboxTxState::kPending};
  // One header per cycle, round-robin over the sources that wait (§6): SE's
  // responses, TE's sends, the mailbox.
  for (unsigned i = 0; i < kArbSrcs; ++i) {
    const unsigned s = (arb_next_ + i) % kArbSrcs;
    if (want[s]) {
      return Grant{static_cast<ArbSrc>(s), s == static_cast<unsigned>(ArbSrc::kSend) ? *send : 0};
    }
  }
  return std::nullopt;
}

fmt::PktHdr BarrierEngine::stamp(fmt::PktHdr hdr, bool resp) const {
  // prio follows NET_CFG.TC, a response's src_lid NODE_LID, as the header leaves.
  hdr.set_prio(static_cast<std::uint8_t>(net_tc_));
  if (resp) {
    hdr.set_src_lid(cfg_.lid);
  }
  return hdr;
}

std::optional<fmt::PktHdr> BarrierEngine::tx_header() const {
  if (mbox_tx_.state == MboxTxState::kPayload || (dp_ && dp_->payload_active())) {
    return std::nullopt;  // a MGMT or DATA packet's payload flit is shown
  }
  if (tx_hold_) {
    if (tx_hold_->cnp || tx_hold_->data) {
      return tx_hold_->hdr;
    }
    return stamp(tx_hold_->hdr, tx_hold_->resp);
  }
  return peek_all();
}

// What grant_all() would hold: the CNP queue, the barrier sources, the bulk
// sender, in that strict order, each only while its priority is not paused
// (docs/nic/dcqcn.md §6).
std::optional<fmt::PktHdr> BarrierEngine::peek_all() const {
  const std::uint8_t paused = paused_mask();
  if (dp_) {
    if (auto c = dp_->cnp_head(paused)) {
      return c;
    }
  }
  if (tx_paused()) {
    return dp_ ? dp_->data_head(paused, cfg_.lid) : std::nullopt;
  }
  const auto g = arbitrate();
  if (!g) {
    return dp_ ? dp_->data_head(paused, cfg_.lid) : std::nullopt;
  }
  if (!g) {
    return std::nullopt;
  }
  switch (g->src) {
    case ArbSrc::kResp:
      return stamp(resp_q_.front(), true);
    case ArbSrc::kMgmt:
      return stamp(mbox_tx_.hdr, true);
    case ArbSrc::kSend:
      break;
  }
  return stamp(ready_packet(ready_[g->index]), false);
}

std::optional<LinkFlit> BarrierEngine::tx_flit() const {
  if (mbox_tx_.state == MboxTxState::kPayload) {
    return mbox_payload_flit();
  }
  if (dp_ && dp_->payload_active()) {
    return dp_->payload_flit();
  }
  const auto h = tx_header();
  if (!h) {
    return std::nullopt;
  }
  return header_flit(*h,
                     h->pkt_type() != fmt::PktType::kMgmt && h->pkt_type() != fmt::PktType::kData);
}

void BarrierEngine::grant_all() {
  const std::uint8_t paused = paused_mask();
  if (dp_ && dp_->cnp_head(paused)) {
    tx_hold_ = TxHold{dp_->grant_cnp(), false, false, false, true, false};
    return;
  }
  if (!tx_paused()) {
    grant();
  }
  if (!tx_hold_ && dp_ && dp_->data_head(paused, cfg_.lid)) {
    tx_hold_ = TxHold{dp_->grant_data(paused, cfg_.lid), false, false, false, false, true};
  }
}

void BarrierEngine::grant() {
  const auto g = arbitrate();
  if (!g) {
    return;
  }
  arb_next_ = (static_cast<unsigned>(g->src) + 1) % kArbSrcs;
  if (g->src == ArbSrc::kResp) {
    tx_hold_ = TxHold{resp_q_.front(), true, false};
    resp_q_.pop_front();
    return;
  }
  if (g->src == ArbSrc::kMgmt) {
    tx_hold_ = TxHold{mbox_tx_.hdr, false, false, true};
    mbox_tx_.state = MboxTxState::kShown;
    return;
  }
  // Stale entries ahead of the granted one never leave.
  const ReadySend r = ready_[g->index];
  ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(g->index) + 1);
  if (r.kind != ReadyKind::kNotify) {
    const bool resend = r.kind == ReadyKind::kArrival && ctxs_[r.ctx].resends != 0;
    tx_hold_ = TxHold{ready_packet(r), false, resend};
    group_granted(r);
    return;
  }
  Context& c = ctxs_[r.ctx];
  Send& s = c.sends[r.index];
  s.state = SendState::kInFlight;  // in flight once chosen (te.md "In flight")
  tx_hold_ = TxHold{make_pkt(fmt::PktType::kNotify, cfg_.lid, s.dst,
                             static_cast<std::uint8_t>(r.ctx), c.epoch, s.round),
                    false, s.retries != 0};
}

void BarrierEngine::tx_taken(const TxHold& h) {
  if (h.cnp) {
    dp_->cnp_left();
    return;
  }
  if (h.data) {
    dp_->data_header_left();
    return;
  }
  if (h.resp) {
    return;  // counted (NACK_SENT) when SE decided it
  }
  if (h.mgmt) {
    mbox_flit_left();
    return;
  }
  if (h.hdr.pkt_type() != fmt::PktType::kNotify) {
    group_left(h.hdr, h.retry);
    return;
  }
  // NOTIF_SENT (and RETRY) when the NOTIFY leaves; one chosen before its
  // barrier ended still leaves (a shown header is never withdrawn).
  count(Counter::kNotifSent);
  if (h.retry) {
    count(Counter::kRetry);
  }
  trace("te.send ctx=" + std::to_string(h.hdr.ctx()) + " ep=" + std::to_string(h.hdr.epoch()) +
        " r=" + std::to_string(h.hdr.round()) + " dst=" + hw::hex16(h.hdr.dst_lid()) +
        (h.retry ? " retry" : ""));
}

// ------------------------------------------------------------- completion unit

bool BarrierEngine::cq_full() const {
  return cq_size_ != 0 && (cq_head_ + 1) % cq_size_ == cq_tail_ % cq_size_;
}

void BarrierEngine::step_completion() {
  if (cmpl_busy_ != 0) {
    if (--cmpl_busy_ == 0) {
      perform(cmpl_q_.front());
      cmpl_q_.pop_front();
    }
    return;
  }
  if (cmpl_q_.empty()) {
    return;
  }
  const auto& pc = cmpl_q_.front();
  const bool wants_cq = pc.rec.status != fmt::CqStatus::kOk || pc.cq_entry;
  if (wants_cq && cq_full()) {
    return;  // never overwrite an unread entry
  }
  cmpl_busy_ = std::max(cfg_.completion_cycles, 1U);
}

void BarrierEngine::perform(PendingCompletion& pc) {
  auto& rec = pc.rec;
  if (rec.status == fmt::CqStatus::kOk && pc.write) {
    try {
      mem_->write64(pc.addr, pc.value);
    } catch (const hw::DmaError&) {
      intr_status_ |= hw::nic::INTR_STATUS_DMA_ERROR.mask;
      rec.status = fmt::CqStatus::kNetError;
      rec.err = fmt::ErrCode::kDmaError;
    }
  }
  const bool ok = rec.status == fmt::CqStatus::kOk;
  if ((pc.cq_entry || !ok) && cq_size_ != 0) {
    fmt::CqEntry e;
    e.set_ctx(rec.ctx)
        .set_status(rec.status)
        .set_err_code(rec.err)
        .set_epoch(rec.epoch)
        .set_phase(cq_phase_);
    try {
      mem_->write(cq_base_ + std::uint64_t{cq_head_} * fmt::CqEntry::kSizeBytes,
                  std::as_bytes(std::span(e.bytes())));
    } catch (const hw::DmaError&) {
      intr_status_ |= hw::nic::INTR_STATUS_DMA_ERROR.mask;
    }
    cq_head_ = (cq_head_ + 1) % cq_size_;
    if (cq_head_ == 0) {
      cq_phase_ = !cq_phase_;
    }
  }
  if (!ok) {
    intr_status_ |= hw::nic::INTR_STATUS_ERROR.mask;
    count(Counter::kError);
  } else if (pc.irq) {
    intr_status_ |= hw::nic::INTR_STATUS_DONE.mask;
  }
  count(Counter::kCompletion);
  rec.cycle = cycle_;
  completions_.push_back(rec);
  trace("cq.complete ctx=" + std::to_string(rec.ctx) + " ep=" + std::to_string(rec.epoch) +
        " status=" + std::string(fmt::to_string(rec.status)) +
        " err=" + std::string(fmt::to_string(rec.err)));
}

void BarrierEngine::soft_reset() {
  hdq_.clear();
  of_busy_ = 0;
  of_desc_.reset();
  of_dma_error_ = false;
  for (auto& c : ctxs_) {
    c = Context{};
  }
  damq_.clear();
  resp_q_.clear();
  ready_.clear();
  retries_ = {};
  timers_armed_ = 0;
  tx_hold_.reset();  // SE, TE and the mailbox withdraw what they showed on tx
  mbox_soft_reset();
  cmpl_q_.clear();
  cmpl_busy_ = 0;
  sdq_cons_ = 0;
  cq_head_ = 0;
  cq_phase_ = true;
  // The link is not the engine's to reset: the queued link, the rx demux's
  // state and the pause timers stay.
  trace("engine.soft_reset");
}

}  // namespace syncfab::model
