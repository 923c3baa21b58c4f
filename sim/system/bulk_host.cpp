#include "bulk_host.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "link.hpp"

namespace syncfab::tb::system {

namespace {

Flit header(fmt::PktType type, unsigned len_flits, std::uint16_t dst, std::uint16_t src,
            unsigned prio, fmt::Ecn ecn, std::uint8_t dscp, std::uint32_t flow_label) {
  fmt::PktHdr h;
  h.set_pkt_type(type)
      .set_len_flits(static_cast<std::uint8_t>(len_flits))
      .set_dst_lid(dst)
      .set_src_lid(src)
      .set_prio(static_cast<std::uint8_t>(prio))
      .set_ecn(ecn)
      .set_dscp(dscp)
      .set_flow_label(flow_label & 0xFFFFFU);
  return h.bytes();
}

}  // namespace

void BulkHostPort::offer(const LinkFlit* flit) {
  offered_.reset();
  if (flit != nullptr) {
    offered_ = *flit;
  }
}

BulkHost::BulkHost(TestContext& ctx, const std::string& name, unsigned index, std::uint16_t lid)
    : Node(name), clock_(ctx.sim(), name), index_(index), lid_(lid), cpq_(nic_top::kCpqReset) {}

Port& BulkHost::port(unsigned p) {
  if (p != 0) {
    throw std::out_of_range("bulk host " + name() + " has one port (0), not " + std::to_string(p));
  }
  return port_;
}

void BulkHost::set_cycles_per_quantum(unsigned cpq) {
  if (cpq == 0) {
    throw std::invalid_argument("bulk host " + name() + ": 0 cycles per PFC quantum");
  }
  cpq_ = cpq;
}

unsigned BulkHost::add_flow(const swfab::FlowSpec& spec) {
  const std::string who = "bulk host " + name() + " flow " + std::to_string(flows_.size()) + ": ";
  if (spec.len_flits < 2 || spec.len_flits > 255) {
    // Flit 1 carries the PacketId; len_flits is an 8-bit field.
    throw std::invalid_argument(who + "len_flits " + std::to_string(spec.len_flits) + " (2..255)");
  }
  if (spec.prio >= fmt::kNumPrio) {
    throw std::invalid_argument(who + "prio " + std::to_string(spec.prio));
  }
  if (!(spec.rate > 0.0 && spec.rate <= 1.0)) {
    throw std::invalid_argument(who + "rate " + std::to_string(spec.rate) + " (0, 1]");
  }
  if (spec.dst_lid == 0) {
    throw std::invalid_argument(who + "dst_lid 0");
  }
  if (spec.flow_label && *spec.flow_label > 0xFFFFFU) {
    throw std::invalid_argument(who + "flow_label " + std::to_string(*spec.flow_label) +
                                " (20 bits)");
  }
  flows_.push_back(BulkFlowState{spec, 0, 0, false});
  return static_cast<unsigned>(flows_.size() - 1);
}

void BulkHost::stop_flows() {
  for (BulkFlowState& f : flows_) {
    f.stopped = true;
  }
}

void BulkHost::inject_malformed(const MalformedSpec& spec) {
  // A management datagram is malformed by its length alone; any other
  // packet by a flit count that differs from its len_flits.
  const bool mgmt = spec.type == fmt::PktType::kMgmt;
  const bool malformed = mgmt ? spec.len_flits != fmt::kMgmtFlits || spec.flits != spec.len_flits
                              : spec.flits != spec.len_flits;
  if (spec.flits == 0 || !malformed || spec.len_flits > 255 || spec.prio >= fmt::kNumPrio) {
    throw std::invalid_argument("bulk host " + name() + ": not a malformed packet: len_flits " +
                                std::to_string(spec.len_flits) + ", " + std::to_string(spec.flits) +
                                " flit(s), prio " + std::to_string(spec.prio));
  }
  malformed_.push_back(spec);
}

bool BulkHost::flow_done(const BulkFlowState& f, std::uint64_t now) const {
  return f.stopped || (f.spec.count != 0 && f.issued >= f.spec.count) || now >= f.spec.stop_cycle;
}

bool BulkHost::quiet(std::uint64_t cycle) const {
  return cur_.empty() && malformed_.empty() && mgmt_out_.empty() &&
         std::all_of(flows_.begin(), flows_.end(),
                     [&](const BulkFlowState& f) { return flow_done(f, cycle); });
}

std::uint64_t BulkHost::data_sent() const {
  std::uint64_t n = malformed_done_.size();
  for (const BulkFlowState& f : flows_) {
    n += f.sent;
  }
  return n;
}

void BulkHost::receive(const LinkFlit& f, std::uint64_t now) {
  rx_cur_.push_back(f.data);
  if (!f.last) {
    return;
  }
  const std::vector<Flit> pkt = std::move(rx_cur_);
  rx_cur_.clear();
  switch (kind_of(pkt.front())) {
    case PktKind::kData:
      ++rx_.data;
      rx_.data_flits += pkt.size();
      if (fmt::PktHdr::decode(pkt.front()).len_flits() != pkt.size()) {
        ++rx_.bad_len;
      }
      if (pkt.size() >= 2) {
        const swfab::PacketId id = swfab::decode_payload(pkt[1]);
        BulkRxFlow& f = rx_flows_[{id.src_host, id.flow}];
        ++f.packets;
        f.flits += pkt.size();
        f.out_of_order += id.seq != f.next_seq ? 1 : 0;
        f.next_seq = std::max(f.next_seq, id.seq + 1);
      }
      return;
    case PktKind::kPfc:
      break;
    case PktKind::kMgmt:
      if (pkt.size() == fmt::kMgmtFlits &&
          fmt::PktHdr::decode(pkt.front()).len_flits() == fmt::kMgmtFlits) {
        ++rx_.mgmt;
        fmt::MgmtMsg::Bytes img{};
        for (std::size_t i = 0; i < img.size(); ++i) {
          img[i] = pkt[1 + i / kFlitBytes][i % kFlitBytes];
        }
        mgmt_in_.emplace_back(fmt::PktHdr::decode(pkt.front()).src_lid(), fmt::MgmtMsg(img));
      } else {
        ++rx_.other;
      }
      return;
    default:
      ++rx_.other;
      return;
  }
  ++rx_.pfc;
  if (pkt.size() != kPfcFrameFlits) {
    return;  // not a frame anyone honours: counted, the checks find it (traffic_check)
  }
  fmt::PfcFrame::Bytes img{};
  for (std::size_t i = 0; i < kPfcFrameFlits; ++i) {
    std::copy(pkt[i].begin(), pkt[i].end(),
              img.begin() + static_cast<std::ptrdiff_t>(i * kFlitBytes));
  }
  const fmt::PfcFrame frame(img);
  bool paused = false;
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    if (((frame.class_enable() >> q) & 1U) == 0) {
      continue;
    }
    const std::uint64_t quanta = frame.quanta(q);
    if (quanta == 0) {
      paused_to_[q].reset();
    } else {
      paused_to_[q] = now + quanta * cpq_;
      paused = true;
    }
  }
  rx_.pauses += paused ? 1 : 0;
}

void BulkHost::send_datagram(std::uint16_t dst, const fmt::MgmtMsg& msg, unsigned prio) {
  if (prio >= fmt::kNumPrio) {
    throw std::invalid_argument(name() + ": datagram priority " + std::to_string(prio));
  }
  mgmt_out_.push_back({dst, msg, prio});
}

std::optional<std::pair<std::uint16_t, fmt::MgmtMsg>> BulkHost::take_datagram() {
  if (mgmt_in_.empty()) {
    return std::nullopt;
  }
  auto d = mgmt_in_.front();
  mgmt_in_.pop_front();
  return d;
}

void BulkHost::start_packet(std::uint64_t now) {
  const auto paused = [&](unsigned q) { return paused_to_[q] && now <= *paused_to_[q]; };
  if (!mgmt_out_.empty() && !paused(mgmt_out_.front().prio)) {
    const Outgoing o = mgmt_out_.front();
    mgmt_out_.pop_front();
    cur_.assign(fmt::kMgmtFlits, Flit{});
    cur_[0] =
        header(fmt::PktType::kMgmt, fmt::kMgmtFlits, o.dst, lid_, o.prio, fmt::Ecn::kNotEct, 0, 0);
    const auto& b = o.msg.bytes();
    for (std::size_t i = 0; i < b.size(); ++i) {
      cur_[1 + i / kFlitBytes][i % kFlitBytes] = b[i];
    }
    cur_flow_.reset();
    cur_mgmt_ = true;
    return;
  }
  if (!malformed_.empty() && now >= malformed_.front().at_cycle &&
      !paused(malformed_.front().prio)) {
    const MalformedSpec m = malformed_.front();
    malformed_.erase(malformed_.begin());
    cur_.assign(m.flits, Flit{});
    cur_[0] = header(m.type, m.len_flits, m.dst_lid, lid_, m.prio, fmt::Ecn::kNotEct, 0, 0);
    for (std::size_t i = 1; i < cur_.size(); ++i) {
      cur_[i].fill(0xA5);
    }
    cur_flow_.reset();
    cur_mgmt_ = m.type == fmt::PktType::kMgmt;  // counted with the datagrams it was sent as
    return;
  }
  for (std::size_t k = 0; k < flows_.size(); ++k) {
    const std::size_t at = (rr_ + k) % flows_.size();
    BulkFlowState& f = flows_[at];
    if (flow_done(f, now) || now < f.spec.start_cycle || paused(f.spec.prio)) {
      continue;
    }
    // Packet k may start at start_cycle + k * len_flits / rate (FlowSpec).
    const double due = static_cast<double>(f.spec.start_cycle) +
                       static_cast<double>(f.issued) * f.spec.len_flits / f.spec.rate;
    if (static_cast<double>(now) + 1e-9 < std::floor(due)) {
      continue;
    }
    rr_ = at + 1;
    cur_.assign(f.spec.len_flits, Flit{});
    cur_[0] = header(fmt::PktType::kData, f.spec.len_flits, f.spec.dst_lid, lid_, f.spec.prio,
                     f.spec.ecn, f.spec.dscp,
                     f.spec.flow_label.value_or(static_cast<std::uint32_t>((index_ << 8U) | at)));
    cur_[1] =
        swfab::encode_payload(swfab::PacketId{index_, static_cast<std::uint32_t>(at), f.issued});
    for (std::size_t i = 2; i < cur_.size(); ++i) {
      cur_[i].fill(static_cast<std::uint8_t>(f.issued + i));
    }
    cur_flow_ = static_cast<unsigned>(at);
    ++f.issued;
    return;
  }
}

void BulkHost::settle(std::uint64_t cycle) {
  // A frame taken in this cycle acts from the next one (a pause as a
  // resume: pfc_rx loads its timer at the edge): this cycle's decision and
  // count use the pauses in force before it.
  for (const auto& to : paused_to_) {
    paused_cycles_ += to && cycle <= *to ? 1 : 0;
  }
  if (cur_.empty()) {
    start_packet(cycle);
  }
  if (port_.offered()) {
    receive(*port_.offered(), cycle);
  }
  if (cur_.empty()) {
    port_.set_sending(std::nullopt);
    return;
  }
  const bool last = pos_ + 1 == cur_.size();
  port_.set_sending(LinkFlit{cur_[pos_], last});
  ++pos_;
  if (!last) {
    return;
  }
  if (cur_flow_) {
    ++flows_[*cur_flow_].sent;
  } else if (cur_mgmt_) {
    ++mgmt_sent_;
  } else {
    malformed_done_.push_back(cycle);
  }
  cur_mgmt_ = false;
  cur_.clear();
  cur_flow_.reset();
  pos_ = 0;
}

}  // namespace syncfab::tb::system
