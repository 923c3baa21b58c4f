// The NIC data path: docs/nic/dcqcn.md sections 2-6 (flows, DATA packets,
// notification point, token buckets, the data path's arbiter sources) and
// the register semantics of rtl/nic/nic_dcqcn.rdl.
#include "syncfab/model/data_path.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <syncfab/hw/errors.hpp>

namespace syncfab::model {

namespace dq = hw::dcqcn;

namespace {

std::string hex(std::uint32_t v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

[[noreturn]] void refuse(std::uint32_t offset, const std::string& why) {
  throw hw::BusError("model data-path CSR at offset " + hex(offset) + ": PSLVERR (" + why + ")");
}

// A rate register's value: 1 .. RATE_LINE.
std::uint32_t rate_value(std::uint32_t offset, const hw::Field& f, std::uint32_t value) {
  const std::uint32_t r = f.get(value);
  if (r == 0 || r > fmt::kRateLine) {
    refuse(offset, std::string(f.name) + " = " + std::to_string(r) + " outside 1.." +
                       std::to_string(fmt::kRateLine));
  }
  return r;
}

std::uint32_t nonzero(std::uint32_t offset, const hw::Field& f, std::uint32_t value) {
  const std::uint32_t v = f.get(value);
  if (v == 0) {
    refuse(offset, std::string(f.name) + " = 0");
  }
  return v;
}

bool is_paused(std::uint8_t paused, std::uint32_t prio) { return ((paused >> prio) & 1U) != 0; }

}  // namespace

void DataPath::count(Counter c, std::uint32_t n) noexcept {
  auto& v = counters_[static_cast<unsigned>(c)];
  v = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{v} + n, 0xFFFFFFFFU));
}

// ------------------------------------------------------------------- CSRs

std::uint32_t DataPath::summary() const {
  std::uint32_t run = 0;
  std::uint32_t done = 0;
  std::uint32_t err = 0;
  for (unsigned f = 0; f < fmt::kNumFlows; ++f) {
    run |= (flows_[f].state == fmt::FlowState::kRunning ? 1U : 0U) << f;
    done |= (flows_[f].state == fmt::FlowState::kDone ? 1U : 0U) << f;
    err |= (flows_[f].state == fmt::FlowState::kError ? 1U : 0U) << f;
  }
  return dq::FLOW_SUMMARY_RUNNING.put(run) | dq::FLOW_SUMMARY_DONE.put(done) |
         dq::FLOW_SUMMARY_ERROR.put(err);
}

DataPath::FlowView DataPath::flow(unsigned index) const {
  const Flow& f = flows_.at(index);
  return FlowView{f.state, f.err, f.sent, f.rp.rc(), f.rp.rt(), f.rp.alpha(), f.cnps};
}

std::uint32_t DataPath::csr_read(std::uint32_t offset) const {
  if (offset % 4 != 0) {
    refuse(offset, "unaligned");
  }
  for (unsigned i = 0; i < dq::kNumCounters; ++i) {
    if (offset == dq::kCounterOffsets[i]) {
      return counters_[i];
    }
  }
  const FlowView v = flow(flow_sel_);
  switch (offset) {
    case dq::ID.offset:
      return dq::kMagic;
    case dq::VERSION.offset:
      return dq::VERSION_MAJOR.put(dq::kVersionMajor) | dq::VERSION_MINOR.put(dq::kVersionMinor);
    case dq::HW_CFG.offset:
      return dq::HW_CFG_NUM_FLOWS.put(fmt::kNumFlows) | dq::HW_CFG_NP_SLOTS.put(fmt::kNpSlots) |
             dq::HW_CFG_CNP_QUEUE.put(fmt::kCnpQueueDepth);
    case dq::CTRL.offset:
      return dq::CTRL_RP_ENABLE.put(rp_enable_ ? 1 : 0) |
             dq::CTRL_NP_ENABLE.put(np_enable_ ? 1 : 0);
    case dq::NP_CFG.offset:
      return dq::NP_CFG_CNP_PRIO.put(cnp_prio_);
    case dq::CNP_INTERVAL.offset:
      return cnp_interval_;
    case dq::ALPHA_CFG.offset:
      return dq::ALPHA_CFG_G_SHIFT.put(params_.g_shift);
    case dq::ALPHA_TIMER.offset:
      return params_.alpha_timer;
    case dq::RATE_TIMER.offset:
      return params_.rate_timer;
    case dq::BYTE_COUNTER.offset:
      return params_.byte_counter;
    case dq::RATE_STAGES.offset:
      return dq::RATE_STAGES_F.put(params_.stages);
    case dq::RATE_AI.offset:
      return params_.rate_ai;
    case dq::RATE_HAI.offset:
      return params_.rate_hai;
    case dq::RATE_MIN.offset:
      return params_.rate_min;
    case dq::FLOW_DST.offset:
      return stage_dst_;
    case dq::FLOW_CFG.offset:
      return stage_cfg_;
    case dq::FLOW_LABEL.offset:
      return stage_label_;
    case dq::FLOW_COUNT.offset:
      return stage_count_;
    case dq::FLOW_CTRL.offset:
      return dq::FLOW_CTRL_INDEX.put(flow_ctrl_index_);  // START/STOP read 0
    case dq::FLOW_SUMMARY.offset:
      return summary();
    case dq::FLOW_SEL.offset:
      return flow_sel_;
    case dq::FLOW_STATUS.offset:
      return dq::FLOW_STATUS_STATE.put(static_cast<std::uint32_t>(v.state)) |
             dq::FLOW_STATUS_ERR.put(static_cast<std::uint32_t>(v.err));
    case dq::FLOW_SENT.offset:
      return v.sent;
    case dq::FLOW_RATE.offset:
      return v.rc;
    case dq::FLOW_TARGET.offset:
      return v.rt;
    case dq::FLOW_ALPHA.offset:
      return v.alpha;
    case dq::FLOW_CNP.offset:
      return v.cnps;
    default:
      refuse(offset, "unmapped");
  }
}

void DataPath::csr_write(std::uint32_t offset, std::uint32_t value, std::uint16_t node_lid) {
  if (offset % 4 != 0) {
    refuse(offset, "unaligned");
  }
  switch (offset) {
    case dq::CTRL.offset:
      rp_enable_ = dq::CTRL_RP_ENABLE.get(value) != 0;
      np_enable_ = dq::CTRL_NP_ENABLE.get(value) != 0;
      if (dq::CTRL_CNT_CLEAR.get(value) != 0) {
        counters_.fill(0);
      }
      return;
    case dq::NP_CFG.offset:
      cnp_prio_ = dq::NP_CFG_CNP_PRIO.get(value);
      return;
    case dq::CNP_INTERVAL.offset:
      cnp_interval_ = value;
      return;
    case dq::ALPHA_CFG.offset: {
      const std::uint32_t g = dq::ALPHA_CFG_G_SHIFT.get(value);
      if (g < 1 || g > 16) {
        refuse(offset, "ALPHA_CFG.G_SHIFT = " + std::to_string(g) + " outside 1..16");
      }
      params_.g_shift = g;
      return;
    }
    case dq::ALPHA_TIMER.offset:
      params_.alpha_timer = nonzero(offset, dq::ALPHA_TIMER_CYCLES, value);
      return;
    case dq::RATE_TIMER.offset:
      params_.rate_timer = nonzero(offset, dq::RATE_TIMER_CYCLES, value);
      return;
    case dq::BYTE_COUNTER.offset:
      params_.byte_counter = nonzero(offset, dq::BYTE_COUNTER_FLITS, value);
      return;
    case dq::RATE_STAGES.offset:
      params_.stages = dq::RATE_STAGES_F.get(value);
      return;
    case dq::RATE_AI.offset:
      params_.rate_ai = rate_value(offset, dq::RATE_AI_RATE, value);
      return;
    case dq::RATE_HAI.offset:
      params_.rate_hai = rate_value(offset, dq::RATE_HAI_RATE, value);
      return;
    case dq::RATE_MIN.offset:
      params_.rate_min = rate_value(offset, dq::RATE_MIN_RATE, value);
      return;
    case dq::FLOW_DST.offset:
      stage_dst_ = value & dq::FLOW_DST_LID.mask;
      return;
    case dq::FLOW_CFG.offset:
      stage_cfg_ = value & (dq::FLOW_CFG_PAYLOAD_FLITS.mask | dq::FLOW_CFG_PRIO.mask |
                            dq::FLOW_CFG_ECT.mask);
      return;
    case dq::FLOW_LABEL.offset:
      stage_label_ = value & dq::FLOW_LABEL_LABEL.mask;
      return;
    case dq::FLOW_COUNT.offset:
      stage_count_ = value;
      return;
    case dq::FLOW_CTRL.offset: {
      const std::uint32_t index = dq::FLOW_CTRL_INDEX.get(value);
      const bool start_bit = dq::FLOW_CTRL_START.get(value) != 0;
      const bool stop_bit = dq::FLOW_CTRL_STOP.get(value) != 0;
      if (index >= fmt::kNumFlows) {
        refuse(offset, "FLOW_CTRL.INDEX = " + std::to_string(index) + " >= NUM_FLOWS " +
                           std::to_string(fmt::kNumFlows));
      }
      if (start_bit && stop_bit) {
        refuse(offset, "FLOW_CTRL.START and STOP together");
      }
      if (start_bit && flows_[index].state == fmt::FlowState::kRunning) {
        refuse(offset, "FLOW_CTRL.START on flow " + std::to_string(index) + ", which is RUNNING");
      }
      flow_ctrl_index_ = index;
      if (start_bit) {
        start(index, node_lid);
      } else if (stop_bit && flows_[index].state == fmt::FlowState::kRunning) {
        flows_[index].state = fmt::FlowState::kStopped;
      }
      return;
    }
    case dq::FLOW_SEL.offset: {
      const std::uint32_t index = dq::FLOW_SEL_INDEX.get(value);
      if (index >= fmt::kNumFlows) {
        refuse(offset, "FLOW_SEL.INDEX = " + std::to_string(index) + " >= NUM_FLOWS " +
                           std::to_string(fmt::kNumFlows));
      }
      flow_sel_ = index;
      return;
    }
    default:
      refuse(offset, "unmapped or read-only");
  }
}

void DataPath::start(unsigned index, std::uint16_t node_lid) {
  Flow& f = flows_[index];
  f.dst = static_cast<std::uint16_t>(dq::FLOW_DST_LID.get(stage_dst_));
  f.label = dq::FLOW_LABEL_LABEL.get(stage_label_);
  f.payload_flits = dq::FLOW_CFG_PAYLOAD_FLITS.get(stage_cfg_);
  f.prio = dq::FLOW_CFG_PRIO.get(stage_cfg_);
  f.ect = dq::FLOW_CFG_ECT.get(stage_cfg_) != 0;
  f.count = stage_count_;
  f.sent = 0;
  f.cnps = 0;
  f.cnp_now = false;
  f.rp.reset();
  f.credit = std::uint64_t{f.payload_flits + 1} << fmt::kRateFracBits;
  fmt::FlowErr err = fmt::FlowErr::kNone;
  if (f.payload_flits == 0 || f.payload_flits > fmt::kDataMaxPayloadFlits) {
    err = fmt::FlowErr::kBadLength;
  } else if (f.count == 0) {
    err = fmt::FlowErr::kBadCount;
  } else if (f.dst == fmt::kLidNone || f.dst >= fmt::kMlidBase || f.dst == node_lid ||
             node_lid == fmt::kLidNone) {
    err = fmt::FlowErr::kBadLid;
  } else {
    for (unsigned g = 0; g < fmt::kNumFlows; ++g) {
      const Flow& o = flows_[g];
      if (g != index && o.state == fmt::FlowState::kRunning && o.dst == f.dst &&
          o.label == f.label) {
        err = fmt::FlowErr::kDupFlow;
      }
    }
  }
  f.err = err;
  f.state = err == fmt::FlowErr::kNone ? fmt::FlowState::kRunning : fmt::FlowState::kError;
}

// ------------------------------------------------------------------- transmit

std::optional<fmt::PktHdr> DataPath::cnp_head(std::uint8_t paused) const {
  if (cnp_q_.empty() || is_paused(paused, cnp_prio_)) {
    return std::nullopt;
  }
  return cnp_q_.front();
}

fmt::PktHdr DataPath::grant_cnp() {
  const fmt::PktHdr h = cnp_q_.front();
  cnp_q_.pop_front();
  return h;
}

std::optional<unsigned> DataPath::pick(std::uint8_t paused) const {
  for (unsigned i = 0; i < fmt::kNumFlows; ++i) {
    const unsigned f = (rr_next_ + i) % fmt::kNumFlows;
    const Flow& fl = flows_[f];
    if (fl.state != fmt::FlowState::kRunning || fl.sent >= fl.count || is_paused(paused, fl.prio)) {
      continue;
    }
    const std::uint64_t cost = std::uint64_t{fl.payload_flits + 1} << fmt::kRateFracBits;
    if (!rp_enable_ || fl.credit >= cost) {
      return f;
    }
  }
  return std::nullopt;
}

fmt::PktHdr DataPath::data_header(unsigned f, std::uint16_t node_lid) const {
  const Flow& fl = flows_[f];
  fmt::PktHdr h;
  h.set_pkt_type(fmt::PktType::kData)
      .set_len_flits(static_cast<std::uint8_t>(fl.payload_flits + 1))
      .set_dst_lid(fl.dst)
      .set_src_lid(node_lid)
      .set_prio(static_cast<std::uint8_t>(fl.prio))
      .set_ecn(fl.ect ? fmt::Ecn::kEct0 : fmt::Ecn::kNotEct)
      .set_flow_label(fl.label)
      .set_epoch(static_cast<std::uint16_t>(fl.sent & 0xFFFFU));
  return h;
}

std::optional<fmt::PktHdr> DataPath::data_head(std::uint8_t paused, std::uint16_t node_lid) const {
  if (payload_) {
    return std::nullopt;
  }
  const auto f = pick(paused);
  if (!f) {
    return std::nullopt;
  }
  return data_header(*f, node_lid);
}

fmt::PktHdr DataPath::grant_data(std::uint8_t paused, std::uint16_t node_lid) {
  const unsigned f = *pick(paused);
  Flow& fl = flows_[f];
  const fmt::PktHdr h = data_header(f, node_lid);
  const std::uint32_t flits = fl.payload_flits + 1;
  if (rp_enable_) {
    fl.credit -= std::uint64_t{flits} << fmt::kRateFracBits;
  }
  fl.rp.add_flits(flits);
  payload_ = Payload{f, fl.label, fl.sent, 1, fl.payload_flits, false};
  ++fl.sent;
  count(Counter::kDataTx);
  count(Counter::kDataTxFlits, flits);
  rr_next_ = (f + 1) % fmt::kNumFlows;
  return h;
}

void DataPath::data_header_left() { payload_->header_left = true; }

LinkFlit DataPath::payload_flit() const {
  LinkFlit out;
  const Payload& p = *payload_;
  for (unsigned b = 0; b < 4; ++b) {
    out.data[b] = static_cast<std::uint8_t>(p.label >> (8 * b));
    out.data[4 + b] = static_cast<std::uint8_t>(p.psn >> (8 * b));
  }
  out.data[8] = static_cast<std::uint8_t>(p.next);
  out.data[9] = static_cast<std::uint8_t>(p.next >> 8);
  out.last = p.next == p.flits;
  return out;
}

void DataPath::payload_flit_left() {
  Payload& p = *payload_;
  if (p.next < p.flits) {
    ++p.next;
    return;
  }
  Flow& fl = flows_[p.flow];
  if (fl.state == fmt::FlowState::kRunning && fl.sent >= fl.count) {
    fl.state = fmt::FlowState::kDone;
  }
  payload_.reset();
}

// -------------------------------------------------------------------- receive

void DataPath::rx_data(const fmt::PktHdr& hdr, unsigned flits, std::uint16_t node_lid,
                       std::uint64_t cycle) {
  if (flits != hdr.len_flits() || hdr.dst_lid() != node_lid) {
    count(Counter::kDataDrop);
    return;
  }
  count(Counter::kDataRx);
  count(Counter::kDataRxFlits, flits - 1);
  if (hdr.ecn() != fmt::Ecn::kCe) {
    return;
  }
  count(Counter::kDataRxCe);
  if (!np_enable_) {
    return;
  }
  const auto recent = [&](const NpSlot& s) {
    return s.valid && cycle - s.t0 < std::uint64_t{cnp_interval_};
  };
  NpSlot* slot = nullptr;
  for (auto& s : np_) {
    if (s.valid && s.src == hdr.src_lid() && s.label == hdr.flow_label()) {
      slot = &s;
      break;
    }
  }
  if (slot != nullptr && recent(*slot)) {
    count(Counter::kCnpSuppressed);
    return;
  }
  if (slot == nullptr) {
    for (auto& s : np_) {
      if (!recent(s)) {
        slot = &s;
        break;
      }
    }
  }
  if (slot == nullptr || cnp_q_.size() >= fmt::kCnpQueueDepth) {
    count(Counter::kCnpDrop);
    return;
  }
  *slot = NpSlot{true, hdr.src_lid(), hdr.flow_label(), cycle};
  fmt::PktHdr cnp;
  cnp.set_pkt_type(fmt::PktType::kCnp)
      .set_len_flits(1)
      .set_dst_lid(hdr.src_lid())
      .set_src_lid(node_lid)
      .set_prio(static_cast<std::uint8_t>(cnp_prio_))
      .set_ecn(fmt::Ecn::kNotEct)
      .set_flow_label(hdr.flow_label());
  cnp_q_.push_back(cnp);
}

void DataPath::rx_cnp(const fmt::PktHdr& hdr, std::uint16_t node_lid) {
  if (hdr.len_flits() == 1 && hdr.dst_lid() == node_lid) {
    for (auto& f : flows_) {
      if (f.state == fmt::FlowState::kRunning && f.dst == hdr.src_lid() &&
          f.label == hdr.flow_label()) {
        f.cnp_now = true;
        f.cnps = f.cnps == 0xFFFFFFFFU ? f.cnps : f.cnps + 1;
        count(Counter::kCnpRx);
        return;
      }
    }
  }
  count(Counter::kCnpUnknown);
}

// ---------------------------------------------------------------- clock edge

void DataPath::end_cycle() {
  for (auto& f : flows_) {
    if (f.state != fmt::FlowState::kRunning) {
      f.cnp_now = false;
      continue;
    }
    f.rp.end_cycle(params_, f.cnp_now);
    f.cnp_now = false;
    const std::uint64_t cap = std::uint64_t{f.payload_flits + 1} << fmt::kRateFracBits;
    f.credit = std::min(f.credit + f.rp.rc(), cap);
  }
}

bool DataPath::idle() const {
  if (payload_ || !cnp_q_.empty()) {
    return false;
  }
  return std::none_of(flows_.begin(), flows_.end(),
                      [](const Flow& f) { return f.state == fmt::FlowState::kRunning; });
}

}  // namespace syncfab::model
