// The cycle loop of the switch model: per cycle, the CSR snapshot, ingress of
// every port (switch_model_ingress.cpp), the PFC receive side and watchdog,
// the outputs' flits in progress, then the output/input matching and pfc_tx.
// docs/switch-datapath.md "Golden model decisions" fixes the order.
#include "syncfab/model/switch_model.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::model {

SwitchModel::OutPort::OutPort(const SwitchModelParams& p)
    : wred(WredParams{16, 8, p.wred_seed}),
      sched(SchedParams{fmt::kNumPrio, fmt::PktHdr::kLenFlitsWidth, 8}),
      pfc_tx(PfcTxParams{fmt::kNumPrio, 16, 16}),
      pfc_rx(PfcRxParams{fmt::kNumPrio, 8}),
      wd(PfcWatchdogParams{fmt::kNumPrio, 24, 8}) {}

SwitchModel::SwitchModel(const SwitchModelParams& params) : params_(params), csr_(params.csr) {
  if (params_.csr.ports < 1 || params_.csr.ports > hw::switch_regs::kMaxPorts) {
    throw std::invalid_argument("switch model: " + std::to_string(params_.csr.ports) +
                                " ports (the register map has 1.." +
                                std::to_string(hw::switch_regs::kMaxPorts) + ")");
  }
  if (params_.csr.buf_cells < 1 || params_.csr.buf_cells > 0xFFFF) {
    throw std::invalid_argument("switch model: BUF_CELLS " + std::to_string(params_.csr.buf_cells) +
                                " outside 1..65535");
  }
  if (params_.fwd_latency < 1) {
    throw std::invalid_argument(
        "switch model: fwd_latency must be >= 1 (a copy cannot leave "
        "in the cycle its last flit arrives)");
  }
  if (params_.wred_seed == 0) {
    throw std::invalid_argument("switch model: wred_seed 0 would lock the LFSR");
  }
  const unsigned n = ports();
  in_.resize(n);
  enq_.in = n - 1;  // the round robin serves input 0 first after reset
  out_.reserve(n);
  for (unsigned o = 0; o < n; ++o) {
    out_.emplace_back(params_);
  }
  voq_.resize(std::size_t{n} * n * fmt::kNumPrio);
  stop_.assign(n, 0);
  wd_drop_.assign(n, 0);
  stalled_.assign(n, false);
  tx_log_.resize(n);
  pfc_log_.resize(n);
  cfg_ = read_switch_config(csr_, n);
  ecn_dyn_ = read_ecn_dyn_config(csr_);
  // The model is neither copied nor moved, so the hook's `this` stays valid.
  csr_.hw_set_ecn_status(
      [this](unsigned port, unsigned q, bool state) { return ecn_status(port, q, state); });
}

void SwitchModel::check_port(unsigned port, const char* what) const {
  if (port >= ports()) {
    throw std::invalid_argument(std::string("switch model ") + what + ": port " +
                                std::to_string(port) + " does not exist (" +
                                std::to_string(ports()) + " ports)");
  }
}

std::uint64_t SwitchModel::receive(unsigned port, std::span<const Flit> flits,
                                   std::uint64_t first_cycle) {
  std::vector<std::uint64_t> cycles(flits.size());
  for (std::size_t k = 0; k < cycles.size(); ++k) {
    cycles[k] = first_cycle + k;
  }
  return receive_timed(port, flits, cycles);
}

std::uint64_t SwitchModel::receive_timed(unsigned port, std::span<const Flit> flits,
                                         std::span<const std::uint64_t> cycles) {
  check_port(port, "receive");
  if (flits.empty() || flits.size() != cycles.size()) {
    throw std::invalid_argument("switch model receive: port " + std::to_string(port) + ": " +
                                std::to_string(flits.size()) + " flits with " +
                                std::to_string(cycles.size()) +
                                " arrival cycles (a packet has >= 1 flit, one cycle each)");
  }
  InPort& p = in_[port];
  if (cycles[0] < now_ || cycles[0] < p.busy_until) {
    throw std::invalid_argument("switch model receive: port " + std::to_string(port) +
                                ": packet starts in cycle " + std::to_string(cycles[0]) +
                                ", but the port is free only from cycle " +
                                std::to_string(std::max(now_, p.busy_until)) +
                                " (past, or overlapping the previous packet)");
  }
  for (std::size_t k = 1; k < cycles.size(); ++k) {
    if (cycles[k] <= cycles[k - 1]) {
      throw std::invalid_argument("switch model receive: port " + std::to_string(port) + ": flit " +
                                  std::to_string(k) + " does not arrive after the flit before it");
    }
  }
  p.busy_until = cycles.back() + 1;
  Arrival a;
  a.id = next_id_++;
  a.flits.assign(flits.begin(), flits.end());
  a.cycles.assign(cycles.begin(), cycles.end());
  p.pending.push_back(std::move(a));
  return p.pending.back().id;
}

void SwitchModel::set_tx_stalled(unsigned port, bool stalled) {
  check_port(port, "set_tx_stalled");
  stalled_[port] = stalled;
}

void SwitchModel::set_tx_ready(std::function<bool(unsigned, std::uint64_t)> ready) {
  ready_cb_ = std::move(ready);
}

bool SwitchModel::tx_ready(unsigned port) const {
  return !stalled_[port] && (!ready_cb_ || ready_cb_(port, now_));
}

std::size_t SwitchModel::voq_depth(unsigned in, unsigned out, unsigned q) const {
  check_port(in, "voq_depth");
  check_port(out, "voq_depth");
  if (q >= fmt::kNumPrio) {
    throw std::invalid_argument("switch model voq_depth: queue " + std::to_string(q) +
                                " does not exist (" + std::to_string(fmt::kNumPrio) +
                                " per output)");
  }
  return voq(in, out, q).size();
}

void SwitchModel::count(unsigned port, unsigned prio, fmt::SwCounter kind, std::uint32_t n) {
  csr_.hw_count(port, prio, static_cast<unsigned>(kind), n);
}

void SwitchModel::violation(const std::string& what) {
  std::string msg = "cycle " + std::to_string(now_) + ": " + what;
  if (trace_) {
    trace("VIOLATION " + what);
  }
  violations_.push_back(std::move(msg));
}

void SwitchModel::trace(const std::string& what) {
  if (trace_) {
    trace_("cyc=" + std::to_string(now_) + " " + what);
  }
}

bool SwitchModel::idle() const {
  if (!stored_.empty()) {
    return false;
  }
  for (const InPort& p : in_) {
    if (p.active || !p.pending.empty() || !p.complete.empty()) {
      return false;
    }
  }
  for (const OutPort& o : out_) {
    if (o.busy != OutPort::Busy::kIdle || !o.rx_frames.empty() || o.pfc_tx.pend() != 0) {
      return false;
    }
  }
  return true;
}

void SwitchModel::run(std::uint64_t n) {
  for (std::uint64_t k = 0; k < n; ++k) {
    tick();
  }
}

bool SwitchModel::run_until_idle(std::uint64_t max_cycles) {
  for (std::uint64_t k = 0; k < max_cycles && !idle(); ++k) {
    tick();
  }
  return idle();
}

void SwitchModel::tick() {
  const unsigned n = ports();
  read_switch_config(csr_, n, cfg_);
  ecn_dyn_ = read_ecn_dyn_config(csr_);
  // The dynamic-ECN controllers sample the queue lengths as they are at the
  // start of the cycle (docs/switch-ecn-dynamic.md §3).
  std::array<std::array<std::uint32_t, fmt::kNumPrio>, hw::switch_regs::kMaxPorts> qlen_start{};
  for (unsigned o = 0; o < n; ++o) {
    qlen_start[o] = out_[o].qlen;
  }
  // pfc_tx sees the occupancy registers as they were at the start of the
  // cycle; this cycle's writes and frees count from the next one.
  std::array<std::array<std::uint32_t, fmt::kNumPrio>, hw::switch_regs::kMaxPorts> occ{};
  for (unsigned i = 0; i < n; ++i) {
    occ[i] = in_[i].occ;
  }
  for (unsigned i = 0; i < n; ++i) {
    ingress(i);
  }
  enqueue_cycle();
  pfc_cycle();
  std::array<bool, hw::switch_regs::kMaxPorts> ready{};
  for (unsigned o = 0; o < n; ++o) {
    ready[o] = tx_ready(o);
    egress(o, ready[o]);
  }
  // Free outputs are matched in round-robin order (start rotates by one per
  // cycle); an output takes its pending PFC frame before any data packet.
  std::array<bool, hw::switch_regs::kMaxPorts> frame_ready{};
  const auto first = static_cast<unsigned>(now_ % n);
  unsigned starts = 0;
  for (unsigned k = 0; k < n; ++k) {
    const unsigned o = (first + k) % n;
    OutPort& op = out_[o];
    if (op.busy != OutPort::Busy::kIdle || now_ < op.free_at || !ready[o]) {
      continue;  // not free: the scheduler sees ready low and keeps its state
    }
    if (op.pfc_tx.pend() != 0) {
      frame_ready[o] = true;
      op.busy = OutPort::Busy::kPfc;
      op.sent = 1;
      continue;
    }
    if (params_.starts_per_cycle != 0 && starts == params_.starts_per_cycle) {
      continue;  // no match for this output this cycle: its scheduler does not step
    }
    starts += start(o) ? 1U : 0U;
  }
  for (unsigned i = 0; i < n; ++i) {
    const SwitchPortConfig& pc = cfg_.port[i];
    if (pfc_tx_quiet(out_[i].pfc_tx, pc, occ[i])) {
      continue;  // the edge would leave the all-zero state as it is
    }
    PfcTxInputs in;
    in.enable = pc.pfc_en;
    in.occ = occ[i];
    in.xoff_thr = pc.xoff;
    in.xon_thr = pc.xon;
    in.quanta = pc.quanta;
    in.refresh = cfg_.refresh;
    in.frame_ready = frame_ready[i];
    const PfcTxOutputs out = out_[i].pfc_tx.step(in);
    if (!frame_ready[i]) {
      continue;
    }
    TxPfcFrame& f = out_[i].frame;
    f = TxPfcFrame{};
    f.first_cycle = now_;
    f.class_enable = static_cast<std::uint8_t>(out.class_enable);
    fmt::PfcFrame img;
    img.set_pkt_type(fmt::PktType::kPfc)
        .set_len_flits(kPfcFrameFlits)
        .set_class_enable(f.class_enable);
    for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
      f.quanta[p] = out.frame_quanta[p];
      img.set_quanta(p, f.quanta[p]);
      if ((out.evt_xoff_tx >> p & 1U) != 0) {
        count(i, p, fmt::SwCounter::kPauseTx);
        if (trace_) {
          trace("PAUSE_TX port=" + std::to_string(i) + " prio=" + std::to_string(p) +
                " quanta=" + std::to_string(f.quanta[p]) + " occ=" + std::to_string(occ[i][p]));
        }
      }
      if ((out.evt_xon_tx >> p & 1U) != 0) {
        count(i, p, fmt::SwCounter::kResumeTx);
        if (trace_) {
          trace("RESUME_TX port=" + std::to_string(i) + " prio=" + std::to_string(p) +
                " occ=" + std::to_string(occ[i][p]));
        }
      }
    }
    std::copy_n(img.bytes().begin(), kFlitBytes, f.flits[0].begin());
    std::copy_n(img.bytes().begin() + kFlitBytes, kFlitBytes, f.flits[1].begin());
    pfc_log_[i].push_back(f);
  }
  ecn_cycle(std::span(qlen_start).first(n));
  ++now_;
}

bool SwitchModel::pfc_tx_quiet(const PfcTx& tx, const SwitchPortConfig& pc,
                               const std::array<std::uint32_t, fmt::kNumPrio>& occ) {
  // Not paused and nothing pending: ref is 0 too (it clears whenever xoff
  // is 0), and it stays so unless an enabled priority reaches XOFF.
  if (tx.xoff() != 0 || tx.pend() != 0) {
    return false;
  }
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    if ((pc.pfc_en >> p & 1U) != 0 && occ[p] >= pc.xoff[p]) {
      return false;
    }
  }
  return true;
}

void SwitchModel::pfc_cycle() {
  std::array<std::uint8_t, hw::switch_regs::kMaxPorts> reenable{};
  for (const auto& [port, mask] : csr_.take_reenables()) {
    if (port < ports()) {
      reenable[port] |= mask;
    }
  }
  for (unsigned e = 0; e < ports(); ++e) {
    OutPort& op = out_[e];
    const SwitchPortConfig& pc = cfg_.port[e];
    std::uint64_t xoff = 0;  // pfc_rx.xoff_o (registered): the watchdog's input
    for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
      xoff |= op.pfc_rx.timer(p) != 0 ? std::uint64_t{1} << p : 0;
    }
    // A watchdog that is off, at rest and not re-enabled keeps its reset
    // state through the edge; skipping it is the same and much cheaper.
    PfcWatchdogOutputs wo;
    bool wd_ran = false;
    if (pc.wd_enable != 0 || reenable[e] != 0 || !wd_at_rest(op.wd)) {
      PfcWatchdogInputs wi;
      wi.enable = pc.wd_enable;
      wi.xoff = xoff;
      wi.detect = cfg_.wd_detect;
      wi.recover = cfg_.wd_recover;
      wi.drop_mode = pc.wd_drop_mode;
      wi.window = cfg_.wd_window;
      wi.limit = cfg_.wd_limit;
      wi.reenable = reenable[e];
      wo = op.wd.step(wi);
      wd_ran = true;
    }

    PfcRxInputs ri;
    ri.enable = pc.pfc_en;
    ri.cyc_per_quantum = cfg_.cyc_per_quantum;
    ri.ignore = wo.ignore;
    std::array<std::uint16_t, fmt::kNumPrio> quanta{};
    if (!op.rx_frames.empty() && op.rx_frames.front().cycle == now_) {
      const PendingFrame f = op.rx_frames.front();
      op.rx_frames.pop_front();
      if (cfg_.cyc_per_quantum == 0) {
        violation("port " + std::to_string(e) +
                  ": PFC frame taken with PFC_TIMING.CYC_PER_QUANTUM 0 (ignored)");
      } else {
        ri.frame_valid = true;
        ri.class_enable = f.class_enable;
        quanta = f.quanta;
      }
    }
    ri.quanta = quanta;
    // No frame and no timer running: pfc_rx's outputs are 0 and its timers
    // stay 0.
    const PfcRxOutputs ro = ri.frame_valid || xoff != 0 ? op.pfc_rx.step(ri) : PfcRxOutputs{};
    op.ecn_pause = static_cast<std::uint8_t>(ro.evt_xoff_rx & 0xFFU);
    stop_[e] = ro.stop;
    wd_drop_[e] = wo.drop;
    const std::uint64_t any =
        ro.evt_xoff_rx | ro.evt_xon_rx | wo.evt_detect | wo.evt_recover | wo.evt_disable;
    for (unsigned p = 0; p < fmt::kNumPrio && (any != 0 || wd_ran); ++p) {
      const auto ev = [&](std::uint64_t mask, fmt::SwCounter kind, std::uint32_t intr) {
        if ((mask >> p & 1U) == 0) {
          return;
        }
        count(e, p, kind);
        csr_.hw_raise(intr);
        if (trace_) {
          trace(std::string(to_string(kind)) + " port=" + std::to_string(e) +
                " prio=" + std::to_string(p) +
                (kind == fmt::SwCounter::kPauseRx ? " quanta=" + std::to_string(quanta[p])
                                                  : std::string()));
        }
      };
      ev(ro.evt_xoff_rx, fmt::SwCounter::kPauseRx, 0);
      ev(ro.evt_xon_rx, fmt::SwCounter::kResumeRx, 0);
      ev(wo.evt_detect, fmt::SwCounter::kWdDetect, SWITCH_CSR__INTR_STATUS__WD_DETECT_bm);
      ev(wo.evt_recover, fmt::SwCounter::kWdRecover, SWITCH_CSR__INTR_STATUS__WD_RECOVER_bm);
      ev(wo.evt_disable, fmt::SwCounter::kWdDisable, SWITCH_CSR__INTR_STATUS__WD_DISABLE_bm);
      if (wd_ran) {
        csr_.hw_set_wd_state(e, p, static_cast<unsigned>(op.wd.queue(p).state));
      }
    }
  }
}

bool SwitchModel::wd_at_rest(const PfcWatchdog& wd) {
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    if (!(wd.queue(p) == WdQueue{})) {
      return false;
    }
  }
  return true;
}

void SwitchModel::egress(unsigned o, bool tx_ready) {
  OutPort& op = out_[o];
  if (op.busy == OutPort::Busy::kPfc) {
    if (tx_ready && ++op.sent == kPfcFrameFlits) {
      op.busy = OutPort::Busy::kIdle;
      op.free_at = now_ + 1 + params_.egress_gap;
    }
    return;
  }
  if (op.busy == OutPort::Busy::kData && (op.discard || tx_ready)) {
    if (++op.sent == op.copy.len) {
      finish_copy(o);
    }
  }
}

bool SwitchModel::start(unsigned o) {
  OutPort& op = out_[o];
  if (std::all_of(op.qlen.begin(), op.qlen.end(), [](std::uint32_t c) { return c == 0; })) {
    return false;  // nothing waiting: the scheduler would see no valid queue and keep its state
  }
  const SwitchPortConfig& pc = cfg_.port[o];
  const unsigned n = ports();
  std::array<std::uint32_t, fmt::kNumPrio> len{};
  std::array<unsigned, fmt::kNumPrio> cand{};
  SchedInputs si;
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    if ((stop_[o] >> q & 1U) != 0) {
      continue;
    }
    // Round robin per (o, q): the first input after the last one served
    // that holds a copy ready to go and whose read port is free.
    for (unsigned k = 1; k <= n; ++k) {
      const unsigned i = (op.rr[q] + k) % n;
      const InPort& ip = in_[i];
      const std::deque<Copy>& v = voq(i, o, q);
      const bool shares = params_.shared_read && !v.empty() && ip.shared_at == now_ &&
                          v.front().id == ip.shared_id && v.front().len == 1;
      if (ip.streaming_to < 0 && (now_ >= ip.read_free_at || shares) && !v.empty() &&
          v.front().ready_cycle <= now_) {
        cand[q] = i;
        len[q] = v.front().len;
        si.valid |= std::uint64_t{1} << q;
        break;
      }
    }
  }
  si.sp = pc.sp_mask;
  si.len = len;
  si.weight = pc.weight;
  const SchedGrant g = op.sched.step(si, true);
  if (!g.valid) {
    return false;
  }
  const unsigned q = g.queue;
  const unsigned i = cand[q];
  std::deque<Copy>& v = voq(i, o, q);
  op.copy = v.front();
  v.pop_front();
  op.qlen[q] -= op.copy.len;
  op.rr[q] = i;
  op.queue = q;
  op.in = i;
  op.sent = 1;
  op.busy = OutPort::Busy::kData;
  op.discard = (wd_drop_[o] >> q & 1U) != 0;
  in_[i].streaming_to = static_cast<int>(o);
  const Stored& s = stored_.at(op.copy.id);
  op.log = TxPacket{};
  op.log.pkt_id = op.copy.id;
  op.log.in_port = i;
  op.log.queue = q;
  op.log.first_cycle = now_;
  if (!op.discard) {
    op.log.flits.reserve(s.flits.size());
    op.log.flits.push_back(op.copy.hdr.bytes());
    op.log.flits.insert(op.log.flits.end(), s.flits.begin() + 1, s.flits.end());
  }
  if (trace_) {
    trace(std::string(op.discard ? "WD_DISCARD_START" : "TX_START") + " out=" + std::to_string(o) +
          " q=" + std::to_string(q) + " in=" + std::to_string(i) +
          " pkt=" + std::to_string(op.copy.id) + " len=" + std::to_string(op.copy.len));
  }
  if (op.copy.len == 1) {
    in_[i].shared_id = op.copy.id;
    in_[i].shared_at = now_;
    finish_copy(o);
  }
  return true;
}

void SwitchModel::finish_copy(unsigned o) {
  OutPort& op = out_[o];
  const unsigned q = op.queue;
  op.log.last_cycle = now_;
  if (op.discard) {
    count(o, q, fmt::SwCounter::kDropWd);
    drops_.push_back({op.copy.id, o, q, fmt::SwCounter::kDropWd, now_});
  } else {
    count(o, q, fmt::SwCounter::kTx);
    tx_log_[o].push_back(std::move(op.log));
  }
  if (trace_) {
    trace(std::string(op.discard ? "DROP_WD" : "TX") + " out=" + std::to_string(o) +
          " q=" + std::to_string(q) + " in=" + std::to_string(op.in) +
          " pkt=" + std::to_string(op.copy.id));
  }
  InPort& ip = in_[op.in];
  ip.streaming_to = -1;
  ip.read_free_at = now_ + 1;
  op.busy = OutPort::Busy::kIdle;
  op.discard = false;
  op.free_at = now_ + 1 + params_.egress_gap;
  Stored& s = stored_.at(op.copy.id);
  if (--s.refs == 0) {
    free_cells(op.copy.id);
  }
}

}  // namespace syncfab::model
