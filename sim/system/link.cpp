#include "link.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::system {

const char* to_string(PktKind k) {
  switch (k) {
    case PktKind::kNotify:
      return "NOTIFY";
    case PktKind::kAck:
      return "ACK";
    case PktKind::kNack:
      return "NACK";
    case PktKind::kPfc:
      return "PFC";
    case PktKind::kData:
      return "data";
    case PktKind::kArrive:
      return "ARRIVE";
    case PktKind::kRelease:
      return "RELEASE";
    case PktKind::kCombArrive:
      return "COMB_ARRIVE";
    case PktKind::kCombRelease:
      return "COMB_RELEASE";
    case PktKind::kCombShare:
      return "COMB_SHARE";
    case PktKind::kMgmt:
      return "MGMT";
    case PktKind::kCnp:
      return "CNP";
    case PktKind::kOther:
      break;
  }
  return "other";
}

PktKind kind_of(const Flit& header) {
  switch (fmt::PktHdr::decode(header).pkt_type()) {
    case fmt::PktType::kNotify:
      return PktKind::kNotify;
    case fmt::PktType::kAck:
      return PktKind::kAck;
    case fmt::PktType::kNack:
      return PktKind::kNack;
    case fmt::PktType::kPfc:
      return PktKind::kPfc;
    case fmt::PktType::kData:
      return PktKind::kData;
    case fmt::PktType::kArrive:
      return PktKind::kArrive;
    case fmt::PktType::kRelease:
      return PktKind::kRelease;
    case fmt::PktType::kCombArrive:
      return PktKind::kCombArrive;
    case fmt::PktType::kCombRelease:
      return PktKind::kCombRelease;
    case fmt::PktType::kCombShare:
      return PktKind::kCombShare;
    case fmt::PktType::kMgmt:
      return PktKind::kMgmt;
    case fmt::PktType::kCnp:
      return PktKind::kCnp;
    default:
      return PktKind::kOther;
  }
}

Link::Link(const LinkEnd& a, const LinkEnd& b, unsigned delay_cycles)
    : a_{a, b, {}, {}, false, false, false, false, {}, {}, {}, {}, false},
      b_{b, a, {}, {}, false, false, false, false, {}, {}, {}, {}, false},
      delay_(delay_cycles) {
  if (a.port == nullptr || b.port == nullptr) {
    throw std::invalid_argument("link " + a.name + " - " + b.name + ": an end has no port");
  }
  if (delay_cycles == 0) {
    throw std::invalid_argument("link " + a.name + " - " + b.name +
                                ": delay 0 (a flit needs at least one cycle to cross)");
  }
}

void Link::drive(Dir& d, std::uint64_t now) {
  while (!d.wire.empty() && d.wire.front().due <= now) {
    d.fifo.push_back(d.wire.front().flit);
    d.arrived_mid = !d.wire.front().flit.last;
    d.wire.pop_front();
  }
  d.stats.peak_fifo = std::max(d.stats.peak_fifo, d.fifo.size());
  d.offered = !d.fifo.empty();
  d.to.port->offer(d.offered ? &d.fifo.front() : nullptr);
}

void Link::drive(std::uint64_t now) {
  drive(a_, now);
  drive(b_, now);
}

void Link::sample(Dir& d, std::uint64_t now) {
  d.events = DirEvents{};
  if (d.offered) {
    if (d.to.port->taken()) {
      const LinkFlit taken = d.fifo.front();
      d.fifo.pop_front();
      ++d.stats.flits_out;
      d.rx_cur.push_back(taken.data);
      if (taken.last) {
        if (d.rx_cur.size() == kPfcFrameFlits && kind_of(d.rx_cur.front()) == PktKind::kPfc) {
          fmt::PfcFrame::Bytes img{};
          for (std::size_t i = 0; i < kPfcFrameFlits; ++i) {
            std::copy(d.rx_cur[i].begin(), d.rx_cur[i].end(),
                      img.begin() + static_cast<std::ptrdiff_t>(i * kFlitBytes));
          }
          d.events.pfc_taken = fmt::PfcFrame(img);
        }
        d.rx_cur.clear();
      }
    } else {
      ++d.stats.rx_stall_cycles;
    }
  }
  const std::optional<LinkFlit> f = d.from.port->sent();
  if (!f) {
    return;
  }
  const bool head = !d.in_packet;
  if (head) {
    const PktKind k = kind_of(f->data);
    TB_CHECK(k != PktKind::kOther)
        << d.from.name << " -> " << d.to.name << " at cycle " << now
        << ": a packet starts with an unknown type "
        << static_cast<unsigned>(fmt::PktHdr::decode(f->data).pkt_type());
    ++d.stats.packets.at(static_cast<std::size_t>(k));
    d.events.started = fmt::PktHdr::decode(f->data);
    unsigned& to_drop = d.drop.at(static_cast<std::size_t>(k));
    d.dropping = to_drop != 0;
    to_drop -= d.dropping ? 1 : 0;
  }
  d.in_packet = !f->last;
  ++d.stats.flits_in;
  if ((failed() && !d.keep_rest) || d.dropping) {
    lose(d, *f, head, now);
    d.dropping = d.dropping && !f->last;
    return;
  }
  d.keep_rest = d.keep_rest && !f->last;
  d.wire.push_back(Wire{now + delay_, *f});
}

void Link::lose(Dir& d, const LinkFlit& f, bool head, std::uint64_t now) {
  ++d.stats.lost_flits;
  if (head) {
    const PktKind k = kind_of(f.data);
    ++d.stats.lost.at(static_cast<std::size_t>(k));
    lost_.push_back(LostPacket{fmt::PktHdr::decode(f.data), k, &d == &a_, now});
  }
}

void Link::drop_next(const Port& from, PktKind kind, unsigned count) {
  dir_from(from).drop.at(static_cast<std::size_t>(kind)) += count;
}

void Link::fail(Dir& d, std::uint64_t now) {
  // The wire holds the tail of the packet the far end is receiving (kept:
  // it arrives whole), then packets that have not reached it (lost).
  std::deque<Wire> kept;
  bool keep = d.arrived_mid;
  bool at_head = !d.arrived_mid;
  for (const Wire& w : d.wire) {
    if (keep) {
      kept.push_back(w);
      keep = !w.flit.last;
    } else {
      lose(d, w.flit, at_head, now);
    }
    at_head = w.flit.last;
  }
  // The packet the sender is in the middle of arrives whole if its first
  // flit was kept, and is lost whole otherwise.
  d.keep_rest = d.in_packet && (kept.empty() ? d.arrived_mid : !kept.back().flit.last);
  d.wire = std::move(kept);
}

void Link::fail(std::uint64_t now) {
  if (failed()) {
    throw std::logic_error("link " + name() + " failed already at cycle " +
                           std::to_string(*failed_at_));
  }
  failed_at_ = now;
  fail(a_, now);
  fail(b_, now);
}

std::string Link::name() const { return a_.from.name + " <-> " + b_.from.name; }

void Link::sample(std::uint64_t now) {
  sample(a_, now);
  sample(b_, now);
}

bool Link::idle() const {
  return a_.wire.empty() && a_.fifo.empty() && !a_.in_packet && b_.wire.empty() &&
         b_.fifo.empty() && !b_.in_packet;
}

Link::Dir& Link::dir_from(const Port& port) {
  return const_cast<Dir&>(std::as_const(*this).dir_from(port));
}

const Link::Dir& Link::dir_from(const Port& port) const {
  if (&port == a_.from.port) {
    return a_;
  }
  if (&port == b_.from.port) {
    return b_;
  }
  throw std::invalid_argument("link " + a_.from.name + " - " + b_.from.name +
                              ": the port is not one of its ends");
}

const DirStats& Link::from(const Port& port) const { return dir_from(port).stats; }

const DirStats& Link::to(const Port& port) const {
  return (&dir_from(port) == &a_ ? b_ : a_).stats;
}

const DirEvents& Link::events_from(const Port& port) const { return dir_from(port).events; }

const DirEvents& Link::events_to(const Port& port) const {
  return (&dir_from(port) == &a_ ? b_ : a_).events;
}

}  // namespace syncfab::tb::system
