// Ingress of the switch model (docs/switch-datapath.md "Ingress" and
// "Enqueue"): header checks in the spec's order, LFT/MFT lookup, admission,
// store and forward into the input's cell buffer, and for a complete packet
// the per-copy remap + WRED decision and the VOQ append, at the enqueue rate.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <string>

#include "syncfab/model/port_group.hpp"
#include "syncfab/model/switch_model.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::model {

namespace {

constexpr std::uint32_t kValid = 1U << 31;
constexpr std::uint32_t kLftGroup = 1U << 30;

std::string hex16(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", v & 0xFFFFU);
  return buf;
}

bool forwardable(fmt::PktType t) {
  return t == fmt::PktType::kData || t == fmt::PktType::kNotify || t == fmt::PktType::kAck ||
         t == fmt::PktType::kNack || t == fmt::PktType::kCnp || t == fmt::PktType::kArrive ||
         t == fmt::PktType::kRelease || t == fmt::PktType::kMgmt;
}

bool combined(fmt::PktType t) {
  return t == fmt::PktType::kCombArrive || t == fmt::PktType::kCombRelease ||
         t == fmt::PktType::kCombShare;
}

}  // namespace

void SwitchModel::ingress(unsigned i) {
  InPort& p = in_[i];
  if (p.pending.empty()) {
    return;
  }
  Arrival& a = p.pending.front();
  if (a.cycles[p.next_flit] != now_) {
    return;
  }
  const Flit& f = a.flits[p.next_flit];
  if (p.next_flit == 0) {
    p.active = true;
    rx_header(i, a.id, f);
  }
  rx_flit(i, f);
  if (++p.next_flit == a.flits.size()) {
    rx_last(i, a.flits.size());
    p.pending.pop_front();
    p.active = false;
    p.next_flit = 0;
  }
}

void SwitchModel::drop_ingress(unsigned i, fmt::SwCounter why, const std::string& detail) {
  RxPacket& rx = in_[i].rx;
  count(i, rx.prio, why);
  drops_.push_back({rx.id, i, rx.prio, why, now_});
  if (why == fmt::SwCounter::kDropBadPkt) {
    csr_.hw_raise(SWITCH_CSR__INTR_STATUS__BAD_PKT_bm);
  }
  if (trace_) {
    trace(std::string(to_string(why)) + " port=" + std::to_string(i) +
          " prio=" + std::to_string(rx.prio) + " pkt=" + std::to_string(rx.id) + " " + detail);
  }
  rx.mode = RxMode::kDiscard;
}

std::uint32_t SwitchModel::group_output(unsigned i, const fmt::PktHdr& hdr, unsigned group) {
  const auto& groups = csr_.port_groups();
  if (group >= groups.size() || (groups[group] & kValid) == 0) {
    return 0;
  }
  const MemberChoice c = choose_member(groups[group], csr_.port_up(), i, ports(),
                                       flow_hash(hdr.src_lid(), hdr.dst_lid(), hdr.flow_label()));
  if (c.skipped) {
    csr_.hw_count_group_skip();
  }
  if (trace_) {
    trace("GROUP port=" + std::to_string(i) + " group=" + std::to_string(group) +
          " out=" + std::to_string(c.port) + (c.skipped ? " skipped" : ""));
  }
  return c.port < 0 ? 0U : 1U << static_cast<unsigned>(c.port);
}

void SwitchModel::rx_header(unsigned i, std::uint64_t id, const Flit& flit) {
  InPort& ip = in_[i];
  RxPacket& rx = ip.rx;
  rx = RxPacket{};
  rx.id = id;
  rx.hdr = fmt::PktHdr(flit);
  rx.prio = rx.hdr.prio();
  const fmt::PktType type = rx.hdr.pkt_type();
  if (type == fmt::PktType::kPfc) {
    rx.mode = RxMode::kPfc;  // link-local: never checked, buffered or counted RX
    return;
  }
  const unsigned len = rx.hdr.len_flits();
  const std::uint16_t dst = rx.hdr.dst_lid();
  count(i, rx.prio, fmt::SwCounter::kRx);
  if (trace_) {
    trace("RX port=" + std::to_string(i) + " prio=" + std::to_string(rx.prio) +
          " pkt=" + std::to_string(id) + " type=" + std::to_string(static_cast<unsigned>(type)) +
          " dst=" + hex16(dst) + " len=" + std::to_string(len));
  }
  // 1. Header checks, first failure wins.
  if (!cfg_.enable) {
    drop_ingress(i, fmt::SwCounter::kDropDisabled, "(CTRL.ENABLE 0)");
    return;
  }
  if (!forwardable(type) && !combined(type)) {
    drop_ingress(i, fmt::SwCounter::kDropBadPkt,
                 "(pkt_type " + std::to_string(static_cast<unsigned>(type)) + ")");
    return;
  }
  // 2. Lookup. COMB_ARRIVE / COMB_RELEASE / COMB_SHARE are never looked up:
  // the combine unit routes them at the enqueue step.
  const std::uint32_t all = (1U << ports()) - 1U;
  std::uint32_t outputs = 0;
  if (combined(type)) {
    rx.combine = true;
  } else if (dst >= fmt::kMlidBase) {
    const unsigned idx = dst - fmt::kMlidBase;
    const auto& mft = csr_.mft();
    if (idx < mft.size() && (mft[idx] & kValid) != 0) {
      outputs = mft[idx] & all & ~(1U << i);
    }
  } else {
    const auto& lft = csr_.lft();
    const std::uint32_t e = dst < lft.size() ? lft[dst] : 0U;
    if ((e & kValid) != 0 && (e & kLftGroup) != 0) {
      outputs = group_output(i, rx.hdr, e & 0xFFU);
    } else if ((e & kValid) != 0 && (e & 0xFFU) < ports()) {
      outputs = 1U << (e & 0xFFU);
    }
  }
  if (outputs == 0 && !rx.combine) {
    drop_ingress(i, fmt::SwCounter::kDropNoRoute, "dst=" + hex16(dst));
    return;
  }
  // 3. Admission.
  const SwitchPortConfig& pc = cfg_.port[i];
  const bool lossless = (pc.pfc_en >> rx.prio & 1U) != 0;
  const std::uint32_t free = params_.csr.buf_cells - ip.used;
  if (lossless) {
    // The driver's headroom keeps this from happening while the peer honours
    // pauses; a peer whose watchdog ignores them or has disabled PFC does
    // not, and then the buffer's end is a drop like any other (the spec's
    // admission rule). Tests whose sources honour pauses check that no
    // lossless DROP_BUF occurs.
    if (len > free) {
      drop_ingress(i, fmt::SwCounter::kDropBuf,
                   "lossless len=" + std::to_string(len) + " free=" + std::to_string(free));
      return;
    }
  } else if (ip.lossy + len > pc.lossy_limit || len > free) {
    drop_ingress(i, fmt::SwCounter::kDropBuf,
                 "lossy=" + std::to_string(ip.lossy) + " len=" + std::to_string(len) +
                     " limit=" + std::to_string(pc.lossy_limit) + " free=" + std::to_string(free));
    return;
  }
  rx.mode = RxMode::kStore;
  rx.lossy = !lossless;
  rx.outputs = outputs;
  rx.flits.reserve(len);
}

void SwitchModel::rx_flit(unsigned i, const Flit& flit) {
  InPort& ip = in_[i];
  RxPacket& rx = ip.rx;
  if (rx.mode == RxMode::kDiscard) {
    return;
  }
  const std::uint32_t len = rx.mode == RxMode::kPfc ? 2U : rx.hdr.len_flits();
  if (rx.count > len) {
    return;  // cut at len_flits + 1: the rest is discarded until last
  }
  ++rx.count;
  if (rx.count > len) {
    return;  // the extra flit only makes the count wrong; it takes no cell
  }
  rx.flits.push_back(flit);
  if (rx.mode == RxMode::kStore) {
    ++ip.used;
    ++ip.occ[rx.prio];
    ip.lossy += rx.lossy ? 1U : 0U;
  }
}

void SwitchModel::rx_last(unsigned i, std::size_t arrived_flits) {
  InPort& ip = in_[i];
  RxPacket& rx = ip.rx;
  if (rx.mode == RxMode::kPfc) {
    if (arrived_flits != kPfcFrameFlits || rx.hdr.len_flits() != kPfcFrameFlits) {
      drop_ingress(i, fmt::SwCounter::kDropBadPkt,
                   "(PFC frame of " + std::to_string(arrived_flits) + " flits, len_flits " +
                       std::to_string(rx.hdr.len_flits()) + ")");
      return;
    }
    fmt::PfcFrame::Bytes img{};
    std::copy(rx.flits[0].begin(), rx.flits[0].end(), img.begin());
    std::copy(rx.flits[1].begin(), rx.flits[1].end(), img.begin() + kFlitBytes);
    const fmt::PfcFrame frame(img);
    PendingFrame pf;
    pf.cycle = now_ + params_.pfc_rx_latency;
    pf.class_enable = frame.class_enable();
    for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
      pf.quanta[p] = frame.quanta(p);
    }
    out_[i].rx_frames.push_back(pf);
    if (trace_) {
      trace("PFC_FRAME_RX port=" + std::to_string(i) + " class=" + std::to_string(pf.class_enable));
    }
    return;
  }
  if (rx.mode != RxMode::kStore) {
    return;
  }
  const std::uint32_t len = rx.hdr.len_flits();
  if (rx.count != len) {
    release_cells(i, rx.prio, rx.lossy, static_cast<std::uint32_t>(rx.flits.size()));
    drop_ingress(
        i, fmt::SwCounter::kDropBadPkt,
        "(" + std::to_string(arrived_flits) + " flits, len_flits " + std::to_string(len) + ")");
    return;
  }
  in_[i].complete.push_back(std::move(rx));
}

void SwitchModel::release_cells(unsigned i, unsigned prio, bool lossy, std::uint32_t cells) {
  InPort& ip = in_[i];
  ip.used -= cells;
  ip.occ[prio] -= cells;
  ip.lossy -= lossy ? cells : 0U;
}

void SwitchModel::free_cells(std::uint64_t id) {
  const auto it = stored_.find(id);
  const Stored& s = it->second;
  release_cells(s.in, s.prio, s.lossy, static_cast<std::uint32_t>(s.flits.size()));
  stored_.erase(it);
}

void SwitchModel::enqueue_cycle() {
  const unsigned n = ports();
  const unsigned budget = params_.enqueue_per_cycle;
  unsigned done = 0;
  // Inputs whose held combine packet found no free cell this cycle: the
  // engine serves the others and comes back next cycle.
  std::uint32_t no_cell = 0;
  for (;;) {
    if (!enq_.busy) {
      if (params_.enqueue_by_packet && budget != 0 && done == budget) {
        return;
      }
      // Unlimited: inputs ascending (every packet goes this cycle anyway);
      // limited: round robin, starting after the input served last.
      const unsigned first = budget == 0 ? 0 : enq_.in + 1;
      unsigned k = 0;
      while (k < n &&
             (in_[(first + k) % n].complete.empty() || (no_cell >> ((first + k) % n) & 1U) != 0)) {
        ++k;
      }
      if (k == n) {
        return;
      }
      const unsigned in = (first + k) % n;
      RxPacket& head = in_[in].complete.front();
      const CombineTake take = head.combine ? combine(in, head) : CombineTake::kEmit;
      if (take == CombineTake::kNoCell) {
        no_cell |= 1U << in;
        continue;
      }
      if (take == CombineTake::kNone) {
        // Absorbed or dropped: no copy, its cells are free at once.
        release_cells(in, head.prio, head.lossy, static_cast<std::uint32_t>(head.flits.size()));
        in_[in].complete.pop_front();
        if (budget != 0) {
          enq_.in = in;  // served: the round robin moves on
        }
        continue;
      }
      const bool hold = take == CombineTake::kHold;
      const std::uint64_t key = hold ? next_emission_++ : head.id;
      enq_ = Enqueuing{true, in, 0, key, head.hdr, head.outputs, !hold};
      // Every copy holds the packet until it is dropped or has left, so a
      // copy that leaves before its siblings are enqueued cannot free it.
      // A held packet's emission takes one fresh cell of the input, which
      // its copies hold the same way.
      Stored s;
      s.in = in;
      s.prio = head.prio;
      s.lossy = head.lossy;
      s.refs = static_cast<unsigned>(std::popcount(head.outputs));
      if (hold) {
        s.flits.assign(1, head.hdr.bytes());
        InPort& ip = in_[in];
        ++ip.used;
        ++ip.occ[s.prio];
        ip.lossy += s.lossy ? 1U : 0U;
      } else {
        s.flits = head.flits;
      }
      stored_.emplace(key, std::move(s));
    }
    while (enq_.next_out < n && (enq_.outputs >> enq_.next_out & 1U) == 0) {
      ++enq_.next_out;
    }
    if (enq_.next_out == n) {
      if (enq_.pop) {
        in_[enq_.in].complete.pop_front();
      }
      enq_.busy = false;
      done += params_.enqueue_by_packet ? 1U : 0U;
      continue;
    }
    if (!params_.enqueue_by_packet && budget != 0 && done == budget) {
      return;
    }
    enqueue_copy(enq_.next_out++);
    done += params_.enqueue_by_packet ? 0U : 1U;
  }
}

void SwitchModel::enqueue_copy(unsigned o) {
  const unsigned i = enq_.in;
  const std::uint64_t id = enq_.key;
  const Stored& st = stored_.at(id);
  const auto len = static_cast<unsigned>(st.flits.size());
  const bool hook_in = cfg_.remap_enable && (cfg_.uplink_mask >> i & 1U) != 0;
  OutPort& op = out_[o];
  fmt::PktHdr hdr = enq_.hdr;
  const unsigned prio = st.prio;
  unsigned q = prio;
  if (hook_in && (cfg_.uplink_mask >> o & 1U) != 0) {
    q = cfg_.remap_prio[prio];
    hdr.set_dscp(cfg_.remap_dscp[prio]);
  }
  hdr.set_prio(static_cast<std::uint8_t>(q));
  const SwitchPortConfig& pc = cfg_.port[o];
  WredPacket wp;
  wp.qlen = std::min<std::uint32_t>(op.qlen[q], 0xFFFFU);
  wp.ecn = hdr.ecn();
  // A queue the watchdog of o has DISABLED (pfc_off, registered: the
  // state after the previous edge) is not lossless for WRED
  // (docs/switch-datapath.md "Enqueue", docs/switch-pfc.md pfc_off_o).
  wp.lossless = (pc.pfc_en >> q & 1U) != 0 && op.wd.queue(q).state != fmt::WdState::kDisabled;
  WredEcn& wred = params_.shared_wred ? out_[0].wred : op.wred;
  op.ecn_enq[q] |= std::uint64_t{1} << i;
  const WredConfig eff = op.ecn[q].effective(ecn_dyn_.on(q), pc.wred[q]);
  const WredDecision d = wred.enqueue(wp, eff);
  if (d.drop) {
    count(o, q, fmt::SwCounter::kDropWred);
    drops_.push_back({id, o, q, fmt::SwCounter::kDropWred, now_});
    if (trace_) {
      trace("DROP_WRED out=" + std::to_string(o) + " q=" + std::to_string(q) +
            " in=" + std::to_string(i) + " pkt=" + std::to_string(id) +
            " qlen=" + std::to_string(wp.qlen) + " kmin=" + std::to_string(eff.kmin));
    }
    if (--stored_.at(id).refs == 0) {
      free_cells(id);
    }
    return;
  }
  if (d.mark) {
    hdr.set_ecn(fmt::Ecn::kCe);
    count(o, q, fmt::SwCounter::kEcnMark);
    if (trace_) {
      trace("ECN_MARK out=" + std::to_string(o) + " q=" + std::to_string(q) +
            " in=" + std::to_string(i) + " pkt=" + std::to_string(id) +
            " qlen=" + std::to_string(wp.qlen) + " kmin=" + std::to_string(eff.kmin));
    }
  }
  voq(i, o, q).push_back(Copy{id, hdr, len, now_ + params_.fwd_latency});
  op.qlen[q] += len;
  if (trace_) {
    trace("ENQ in=" + std::to_string(i) + " out=" + std::to_string(o) + " q=" + std::to_string(q) +
          " pkt=" + std::to_string(id) + " len=" + std::to_string(len) +
          " qlen=" + std::to_string(op.qlen[q]));
  }
}

}  // namespace syncfab::model
