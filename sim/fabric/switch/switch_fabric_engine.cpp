// The fabric's per-cycle engine (switch_fabric.hpp): hosts send and sink,
// links carry flits with their delay, switches' pins are driven and sampled.
//
// Timing, per fabric cycle t (one coroutine, after the rising edge):
// flits due at t are moved from the wires into the receive FIFOs (or hosts),
// hosts put their flit of t on their link, every switch's rx pins show its
// FIFO's head; in ReadOnly a flit the switch took (valid && ready) leaves the
// FIFO and a flit it sent (tx_valid; tx_ready is always high: a link never
// refuses) enters the link, due at the far end at t + delay.
#include <algorithm>
#include <cmath>

#include "switch_fabric_internal.hpp"

namespace syncfab::tb::swfab {

namespace {

bool is_pfc(const Flit& head) { return fmt::PktHdr(head).pkt_type() == fmt::PktType::kPfc; }

struct PfcInfo {
  std::uint8_t cls = 0;
  std::array<std::uint16_t, fmt::kNumPrio> quanta{};
};

PfcInfo decode_pfc(const std::vector<Flit>& flits) {
  PfcInfo info;
  if (flits.size() != kPfcFrameFlits) {
    return info;
  }
  fmt::PfcFrame::Bytes img{};
  for (std::size_t i = 0; i < kPfcFrameFlits; ++i) {
    std::copy(flits[i].begin(), flits[i].end(),
              img.begin() + static_cast<std::ptrdiff_t>(i * kFlitBytes));
  }
  const fmt::PfcFrame f(img);
  info.cls = f.class_enable();
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    info.quanta[q] = f.quanta(q);
  }
  return info;
}

bool is_pause(const PfcInfo& p) {
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    if ((p.cls >> q & 1U) != 0 && p.quanta[q] != 0) {
      return true;
    }
  }
  return false;
}

// The interval list of a state sampled every cycle: extend or open.
void mark(std::vector<Interval>& v, bool on, std::uint64_t now) {
  if (on) {
    if (!v.empty() && v.back().open) {
      v.back().to = now + 1;
    } else {
      v.push_back(Interval{now, now + 1, true});
    }
  } else if (!v.empty() && v.back().open) {
    v.back().open = false;
  }
}

}  // namespace

Task<> Fabric::Impl::run() {
  Clock& clk = fab.switches_.front()->clk;
  if (clk.sim().in_readonly()) {
    co_await RisingEdge(clk);
  }
  for (;;) {
    const std::uint64_t now = clk.cycles() - start_cycle;
    cycle_inputs(now);
    co_await ReadOnly();
    cycle_outputs(now);
    sampled = now;
    for (auto& h : hooks) {
      h(now);
    }
    co_await RisingEdge(clk);
  }
}

void Fabric::Impl::cycle_inputs(std::uint64_t now) {
  deliver(now);
  for (unsigned i = 0; i < fab.hosts_.size(); ++i) {
    host_send(*fab.hosts_[i], i, now);
  }
  for (auto& sp : fab.switches_) {
    SwitchNode& s = *sp;
    std::uint32_t valid = 0;
    std::uint32_t last = 0;
    auto* words = reinterpret_cast<std::uint32_t*>(&s.dut.rx_data_i);
    for (unsigned p = 0; p < kPorts; ++p) {
      if (s.rx_fifo[p].empty()) {
        continue;
      }
      const SwitchRx& r = s.rx_fifo[p].front();
      valid |= 1U << p;
      last |= static_cast<std::uint32_t>(r.last) << p;
      std::uint32_t* w = words + kFlitWords * p;
      for (std::size_t k = 0; k < kFlitWords; ++k) {
        w[k] = static_cast<std::uint32_t>(r.data[4 * k]) |
               static_cast<std::uint32_t>(r.data[4 * k + 1]) << 8U |
               static_cast<std::uint32_t>(r.data[4 * k + 2]) << 16U |
               static_cast<std::uint32_t>(r.data[4 * k + 3]) << 24U;
      }
    }
    s.dut.rx_valid_i = valid;
    s.dut.rx_last_i = last;
    s.dut.tx_ready_i = (1U << kPorts) - 1;
  }
}

void Fabric::Impl::cycle_outputs(std::uint64_t now) {
  for (unsigned self = 0; self < fab.switches_.size(); ++self) {
    SwitchNode& s = *fab.switches_[self];
    const auto* tx_words = reinterpret_cast<const std::uint32_t*>(&s.dut.tx_data_o);
    const unsigned rx_ready = s.dut.rx_ready_o;
    const unsigned tx_valid = s.dut.tx_valid_o;
    const unsigned tx_last = s.dut.tx_last_o;
    for (unsigned p = 0; p < kPorts; ++p) {
      auto& fifo = s.rx_fifo[p];
      if (!fifo.empty()) {
        if ((rx_ready >> p & 1U) != 0) {
          if (fifo.front().is_data) {
            last_data_move = now;
          }
          fifo.pop_front();
        } else {
          LinkInfo& li = fab.links_[*s.link[p]];
          ++(li.a == switch_end(self, p) ? li.ba : li.ab).rx_stall_cycles;
        }
      }
      if ((tx_valid >> p & 1U) == 0) {
        continue;
      }
      TB_CHECK(s.link[p].has_value()) << "switch " << s.name << " sent a flit out of port " << p
                                      << ", which has no link (a table entry names it)";
      Flit f{};
      const std::uint32_t* w = tx_words + kFlitWords * p;
      for (std::size_t i = 0; i < f.size(); ++i) {
        f[i] = static_cast<std::uint8_t>(w[i / 4] >> (8 * (i % 4)));
      }
      const LinkInfo& li = fab.links_[*s.link[p]];
      enter(*s.link[p], li.a == switch_end(self, p), f, (tx_last >> p & 1U) != 0, now);
    }
    sample(s, now);
  }
}

void Fabric::Impl::sample(SwitchNode& s, std::uint64_t now) {
  for (unsigned p = 0; p < kPorts; ++p) {
    const PortProbe& pr = s.probe[p];
    const std::uint8_t xoff = *pr.xoff;
    const std::uint8_t stop = *pr.stop;
    if ((xoff | s.last_xoff[p] | stop | s.last_stop[p]) != 0) {
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        mark(s.trace[p][q].xoff, (xoff >> q & 1U) != 0, now);
        mark(s.trace[p][q].stop, (stop >> q & 1U) != 0, now);
      }
    }
    s.last_xoff[p] = xoff;
    s.last_stop[p] = stop;
    s.wd[p] = *pr.wd;
    s.free[p] = *pr.free;
    if (s.free[p] != kBufCells) {
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        const std::uint32_t occ = pr.occupancy(q);
        PortPrioTrace& t = s.trace[p][q];
        if (occ > t.peak_occ) {
          t.peak_occ = occ;
          t.peak_occ_cycle = now;
        }
      }
    }
  }
}

void Fabric::Impl::enter(unsigned link, bool from_a, const Flit& f, bool last, std::uint64_t now) {
  LinkInfo& li = fab.links_[link];
  LinkDir& d = from_a ? ab[link] : ba[link];
  DirStats& st = from_a ? li.ab : li.ba;
  if (!d.in_packet) {
    d.in_packet = true;
    d.dropping = !li.up;
    d.cur.clear();
  }
  d.cur.push_back(f);
  ++st.flits;
  if (d.dropping) {
    ++st.dropped_flits;
  } else {
    d.wire.push_back(WireFlit{now + li.delay, f, last, !is_pfc(d.cur.front())});
  }
  if (!is_pfc(d.cur.front())) {
    last_data_move = now;
  }
  if (!last) {
    return;
  }
  d.in_packet = false;
  if (d.dropping) {
    ++st.dropped_packets;
    return;
  }
  if (is_pfc(d.cur.front())) {
    if (is_pause(decode_pfc(d.cur))) {
      ++st.pause_frames;
    } else {
      ++st.resume_frames;
    }
    return;
  }
  const fmt::PktHdr h(d.cur.front());
  ++st.packets;
  ++st.packets_by_prio.at(h.prio());
  ++st.packets_by_dst[h.dst_lid()];
  st.data_flits += d.cur.size();
}

void Fabric::Impl::deliver(std::uint64_t now) {
  for (unsigned l = 0; l < fab.links_.size(); ++l) {
    const LinkInfo& li = fab.links_[l];
    for (int dir = 0; dir < 2; ++dir) {
      LinkDir& d = dir == 0 ? ab[l] : ba[l];
      const End to = dir == 0 ? li.b : li.a;
      DirStats& st = dir == 0 ? fab.links_[l].ab : fab.links_[l].ba;
      while (!d.wire.empty() && d.wire.front().arrive <= now) {
        const WireFlit wf = d.wire.front();
        d.wire.pop_front();
        if (to.kind == NodeKind::kSwitch) {
          auto& fifo = fab.switches_[to.node]->rx_fifo[to.port];
          fifo.push_back(SwitchRx{wf.data, wf.last, wf.is_data});
          st.peak_rx_fifo = std::max(st.peak_rx_fifo, fifo.size());
        } else {
          host_receive(*fab.hosts_[to.node], to.node, wf.data, wf.last, now);
        }
      }
    }
  }
}

bool Fabric::Impl::flow_done(unsigned id, std::uint64_t now) const {
  const FlowState& f = fab.flows_[id];
  const FlowRun& r = flow_run[id];
  if (f.spec.count != 0 && r.issued >= f.spec.count) {
    return true;
  }
  return f.stopped || now >= f.spec.stop_cycle;
}

std::vector<Flit> Fabric::Impl::make_packet(unsigned flow_id, std::uint64_t seq) const {
  const FlowState& fl = fab.flows_[flow_id];
  const HostNode& h = *fab.hosts_[fl.src_host];
  fmt::PktHdr hdr;
  hdr.set_pkt_type(fmt::PktType::kData)
      .set_len_flits(static_cast<std::uint8_t>(fl.spec.len_flits))
      .set_dst_lid(fl.spec.dst_lid)
      .set_src_lid(h.lid)
      .set_prio(static_cast<std::uint8_t>(fl.spec.prio))
      .set_ecn(fl.spec.ecn)
      .set_dscp(fl.spec.dscp)
      .set_flow_label(fl.spec.flow_label.value_or(flow_id) & 0xFFFFFU);
  std::vector<Flit> flits(fl.spec.len_flits);
  flits[0] = hdr.bytes();
  flits[1] = encode_payload(PacketId{fl.src_host, flow_id, seq});
  for (std::size_t i = 2; i < flits.size(); ++i) {
    flits[i].fill(static_cast<std::uint8_t>(seq + i));
  }
  return flits;
}

bool Fabric::Impl::storm_done(unsigned id, std::uint64_t now) const {
  const PfcStormState& st = fab.storms_[id];
  if (st.spec.count != 0 && st.issued >= st.spec.count) {
    return true;
  }
  return st.stopped || now >= st.spec.stop_cycle;
}

bool Fabric::Impl::start_storm_frame(HostNode& h, std::uint64_t now) {
  for (const unsigned id : h.storms) {
    PfcStormState& st = fab.storms_[id];
    if (storm_done(id, now) || now < st.spec.start_cycle + st.issued * st.spec.period_cycles) {
      continue;
    }
    fmt::PfcFrame fr;
    fr.set_pkt_type(fmt::PktType::kPfc)
        .set_len_flits(kPfcFrameFlits)
        .set_class_enable(st.spec.class_mask);
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      fr.set_quanta(q, (st.spec.class_mask >> q & 1U) != 0 ? st.spec.quanta : std::uint16_t{0});
    }
    h.cur.assign(kPfcFrameFlits, Flit{});
    for (std::size_t i = 0; i < kPfcFrameFlits; ++i) {
      std::copy_n(fr.bytes().begin() + static_cast<std::ptrdiff_t>(i * kFlitBytes), kFlitBytes,
                  h.cur[i].begin());
    }
    h.pos = 0;
    h.cur_storm = id;
    // The next frame is due one period after this one's slot; slots the
    // link was too busy for are skipped, not sent back to back later.
    st.issued = (now - st.spec.start_cycle) / st.spec.period_cycles + 1;
    if (st.spec.count != 0) {
      st.issued = std::min(st.issued, st.spec.count);
    }
    return true;
  }
  return false;
}

void Fabric::Impl::host_send(HostNode& h, unsigned index, std::uint64_t now) {
  // Between packets a due PFC frame goes first, as in the switch's pfc_tx.
  if (!h.cur_flow && !h.cur_storm && !h.storms.empty()) {
    start_storm_frame(h, now);
  }
  if (!h.cur_flow && !h.cur_storm && !h.flows.empty()) {
    for (std::size_t k = 0; k < h.flows.size(); ++k) {
      const std::size_t at = (h.rr + k) % h.flows.size();
      const unsigned id = h.flows[at];
      const FlowState& fl = fab.flows_[id];
      if (flow_done(id, now) || now < fl.spec.start_cycle || h.paused_until[fl.spec.prio] > now) {
        continue;
      }
      const double due =
          static_cast<double>(fl.spec.start_cycle) +
          static_cast<double>(flow_run[id].issued) * fl.spec.len_flits / fl.spec.rate;
      if (static_cast<double>(now) + 1e-9 < std::floor(due)) {
        continue;
      }
      h.rr = at + 1;
      h.cur_flow = id;
      h.cur = make_packet(id, flow_run[id].issued);
      h.pos = 0;
      ++flow_run[id].issued;
      FlowState& fs = fab.flows_[id];
      if (!fs.first_start) {
        fs.first_start = now;
      }
      break;
    }
  }
  if (!h.cur_flow && !h.cur_storm) {
    return;
  }
  const bool last = h.pos + 1 == h.cur.size();
  const LinkInfo& li = fab.links_[*h.link];
  enter(*h.link, li.a == host_end(index), h.cur[h.pos], last, now);
  ++h.pos;
  if (last && h.cur_storm) {
    PfcStormState& st = fab.storms_[*h.cur_storm];
    ++st.sent;
    if (!st.first_end) {
      st.first_end = now;
    }
    st.last_end = now;
    h.cur_storm.reset();
    h.cur.clear();
  } else if (last) {
    FlowState& fs = fab.flows_[*h.cur_flow];
    ++fs.sent;
    fs.last_end = now;
    h.cur_flow.reset();
    h.cur.clear();
  }
}

void Fabric::Impl::host_receive(HostNode& h, unsigned index, const Flit& f, bool last,
                                std::uint64_t now) {
  if (h.rx_cur.empty()) {
    h.rx_first = now;
  }
  h.rx_cur.push_back(f);
  if (!last) {
    return;
  }
  std::vector<Flit> pkt = std::move(h.rx_cur);
  h.rx_cur.clear();
  if (is_pfc(pkt.front())) {
    const PfcInfo info = decode_pfc(pkt);
    TB_CHECK(pkt.size() == 2) << "host " << h.name << " got a PFC frame of " << pkt.size()
                              << " flits";
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      if ((info.cls >> q & 1U) == 0) {
        continue;
      }
      // The frame's last flit arrived in `now`: a source stops starting
      // packets from the next cycle (a packet already started completes).
      const std::uint64_t from = now + 1;
      const std::uint64_t until = from + std::uint64_t{info.quanta[q]} * cpq;
      auto& iv = h.paused[q];
      const bool paused = h.paused_until[q] > from;
      if (info.quanta[q] == 0) {
        if (paused) {
          iv.back().to = from;
        }
        h.paused_until[q] = 0;
        continue;
      }
      if (paused) {
        iv.back().to = until;
      } else {
        iv.push_back(Interval{from, until, false});
      }
      h.paused_until[q] = until;
    }
    return;
  }
  TB_CHECK(pkt.size() >= 2) << "host " << h.name << " got a data packet of " << pkt.size()
                            << " flit(s); hosts send at least 2";
  const fmt::PktHdr hdr(pkt.front());
  RxPacket r;
  r.host = index;
  r.id = decode_payload(pkt[1]);
  r.src_lid = hdr.src_lid();
  r.dst_lid = hdr.dst_lid();
  r.prio = hdr.prio();
  r.ecn = hdr.ecn();
  r.dscp = hdr.dscp();
  r.len_flits = hdr.len_flits();
  r.flits = static_cast<unsigned>(pkt.size());
  r.first_cycle = h.rx_first;
  r.last_cycle = now;
  h.received.push_back(r);
}

bool Fabric::Impl::idle(std::uint64_t now) const {
  for (unsigned id = 0; id < fab.flows_.size(); ++id) {
    if (!flow_done(id, now)) {
      return false;
    }
  }
  for (unsigned id = 0; id < fab.storms_.size(); ++id) {
    if (!storm_done(id, now)) {
      return false;
    }
  }
  for (const auto& h : fab.hosts_) {
    if (h->cur_flow || h->cur_storm) {
      return false;
    }
  }
  for (std::size_t l = 0; l < ab.size(); ++l) {
    if (!ab[l].wire.empty() || !ba[l].wire.empty()) {
      return false;
    }
  }
  for (const auto& s : fab.switches_) {
    for (unsigned p = 0; p < kPorts; ++p) {
      if (!s->rx_fifo[p].empty() || s->free[p] != kBufCells) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace syncfab::tb::swfab
