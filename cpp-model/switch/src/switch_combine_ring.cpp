// Ring mode of the switch's combine unit (docs/group-barrier.md §9): the
// consistency check of a ring-mode entry, the decisions of §9.3 for
// COMB_ARRIVE, COMB_RELEASE and COMB_SHARE, and the pending emissions of
// §9.4, one packet per engine take (a packet with more pending is held at the
// head of its input and retaken by the engine's round robin), and the
// re-asks of §9.3 that let a stuck switch without members be reached. The
// checks of §7 and §9.6 are made on every emission and thrown as
// std::logic_error.
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include "syncfab/model/switch_model.hpp"

namespace syncfab::model {

namespace {

constexpr std::uint32_t kValid = 1U << 31;

std::string hex(unsigned v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

std::uint16_t minus1(std::uint16_t e) { return static_cast<std::uint16_t>(e - 1U); }
std::uint16_t plus1(std::uint16_t e) { return static_cast<std::uint16_t>(e + 1U); }

// Phase d takes part at this switch: below PHASES and its geometry VALID.
// A phase that does not (its ORIGIN and EXPECT included) is ignored.
bool phase_on(const CombineEntry& e, unsigned d) {
  return d < e.phases && d < fmt::kCombPhases && e.phase[d].valid();
}

// Why a ring-mode entry is not consistent (§9.2), empty when it is.
std::string ring_inconsistency(const CombineEntry& e, std::uint32_t mft, unsigned ports) {
  if (!e.valid) {
    return "not valid";
  }
  const std::uint32_t all = (1U << ports) - 1U;
  if (e.children != 0 && ((mft & kValid) == 0 || (e.children & ~(mft & all)) != 0)) {
    return "children outside the MFT entry";
  }
  if (e.phases < 1 || e.phases > fmt::kCombPhases) {
    return "PHASES " + std::to_string(e.phases);
  }
  for (unsigned d = 0; d < e.phases; ++d) {
    const RingPhase& ph = e.phase[d];
    if (!ph.valid()) {
      continue;
    }
    const std::string at = " in phase " + std::to_string(d);
    if (ph.plus() >= ports || ph.minus() >= ports) {
      return "PLUS/MINUS beyond the ports" + at;
    }
    if ((e.children >> ph.plus() & 1U) != 0 || (e.children >> ph.minus() & 1U) != 0) {
      return "PLUS/MINUS is a child port" + at;
    }
    if (ph.len() < 2 || ph.len() > fmt::kCombRingMax) {
      return "LEN " + std::to_string(ph.len()) + at;
    }
    if (ph.pos() >= ph.len()) {
      return "POS " + std::to_string(ph.pos()) + at;
    }
    const std::uint32_t in_ring =
        ph.len() >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << ph.len()) - 1U;
    if ((ph.expect & ~in_ring) != 0 || (ph.expect >> ph.pos() & 1U) != 0) {
      return "EXPECT " + hex(ph.expect) + at;
    }
  }
  return {};
}

// done_d (§9.2); done_(-1) is d = -1.
bool done_upto(const CombineEntry& e, int d) {
  if (e.arrived != e.children) {
    return false;
  }
  const auto& heard = e.heard[e.epoch & 1U];
  for (unsigned k = 0; static_cast<int>(k) <= d && k < fmt::kCombPhases; ++k) {
    if (phase_on(e, k) && (e.phase[k].expect & ~heard[k]) != 0) {
      return false;
    }
  }
  return true;
}

// Complete (§9.2): done_(P-1), every own share sent, and the entry waits
// for something (a relay never completes).
bool complete(const CombineEntry& e) {
  if (!done_upto(e, static_cast<int>(e.phases) - 1)) {
    return false;
  }
  bool waits = e.children != 0;
  for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
    if (!phase_on(e, d)) {
      continue;
    }
    if (e.phase[d].origin() && (e.sent >> d & 1U) == 0) {
      return false;
    }
    waits = waits || e.phase[d].expect != 0;
  }
  return waits;
}

// The lowest phase whose own share is due (ORIGIN_d, done_(d-1), not sent).
std::optional<unsigned> share_due(const CombineEntry& e) {
  for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
    if (phase_on(e, d) && e.phase[d].origin() && (e.sent >> d & 1U) == 0 &&
        done_upto(e, static_cast<int>(d) - 1)) {
      return d;
    }
  }
  return std::nullopt;
}

bool pending(const CombineEntry& e) {
  return share_due(e).has_value() || e.query != 0 || e.owe != 0 || complete(e);
}

// Phase d is short: some position of EXPECT_d not heard for E.
bool short_of(const CombineEntry& e, unsigned d) {
  return (e.phase[d].expect & ~e.heard[e.epoch & 1U][d]) != 0;
}

// re-ask(k) (§9.3): the own shares of the phases reached go out again, the
// short phases without ORIGIN are queried, both carrying ask k. A phase
// with ORIGIN_d but not done_(d-1) sends nothing: its share would not be
// true yet, and its lower phases are the ones asked.
void re_ask(CombineEntry& e, unsigned k) {
  for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
    if (!phase_on(e, d)) {
      continue;
    }
    if (e.phase[d].origin()) {
      if (done_upto(e, static_cast<int>(d) - 1)) {
        e.sent = static_cast<std::uint8_t>(e.sent & ~(1U << d));
      }
    } else if (short_of(e, d)) {
      e.query = static_cast<std::uint8_t>(e.query | 1U << d);
    }
  }
  e.level = static_cast<std::uint8_t>(k);
}

// The ports of an own share of a phase: PLUS if R+ > 0, MINUS if R- > 0.
std::uint32_t share_ports(const RingPhase& ph) {
  return (ph.reach_plus() > 0 ? 1U << ph.plus() : 0U) |
         (ph.reach_minus() > 0 ? 1U << ph.minus() : 0U);
}

// Completion: E advances, the completed epoch's parity becomes E + 2's.
void advance(CombineEntry& e) {
  e.heard[e.epoch & 1U] = {};
  e.epoch = plus1(e.epoch);
  e.arrived = 0;
  e.sent = 0;
  e.owe = 0;
  e.query = 0;
  e.level = 0;
}

// A completion that emits nothing (no children) needs no packet: it is
// applied as soon as it is the entry's first pending emission.
void settle(CombineEntry& e) {
  while (e.children == 0 && !share_due(e) && e.query == 0 && e.owe == 0 && complete(e)) {
    advance(e);
  }
}

struct Emission {
  fmt::PktHdr hdr;
  std::uint32_t ports = 0;
  RingEmit kind = RingEmit::kForward;
};

}  // namespace

SwitchModel::CombineTake SwitchModel::combine_ring(unsigned i, RxPacket& rx, CombineEntry& ent) {
  const fmt::PktHdr h = rx.hdr;
  const fmt::PktType type = h.pkt_type();
  const std::uint16_t dst = h.dst_lid();
  const std::uint16_t e = h.epoch();
  const unsigned x = dst - fmt::kMlidBase;
  const std::uint32_t bit = 1U << i;
  std::string what = std::string(fmt::to_string(type)) + " port=" + std::to_string(i) +
                     " pkt=" + std::to_string(rx.id) + " mlid=" + hex(dst) +
                     " ep=" + std::to_string(e) + " E=" + std::to_string(ent.epoch);
  const std::string why = ring_inconsistency(ent, csr_.mft().at(x), ports());
  if (!why.empty()) {
    if (rx.held) {
      // Reprogrammed while the packet was held: it has nothing more to do.
      if (trace_) {
        trace("COMBINE " + what + " retake: entry " + std::to_string(x) + " " + why + " -> pop");
      }
      return CombineTake::kNone;
    }
    drop_combine(i, rx, "ring entry " + std::to_string(x) + " inconsistent: " + why);
    return CombineTake::kNone;
  }
  // Emitted packets keep the processed packet's ctx, prio, dscp, ecn and
  // flow label; every other field is the emission's own.
  const auto made = [&](fmt::PktType t, std::uint16_t epoch) {
    fmt::PktHdr o;
    o.set_pkt_type(t)
        .set_len_flits(1)
        .set_src_lid(fmt::kLidNone)
        .set_dst_lid(dst)
        .set_epoch(epoch)
        .set_ctx(h.ctx())
        .set_prio(h.prio())
        .set_dscp(h.dscp())
        .set_ecn(h.ecn())
        .set_flow_label(h.flow_label());
    return o;
  };
  // An own share, a query or an answer of phase d: the same packet, from
  // this switch's position to PLUS and MINUS.
  const auto own_share = [&](const CombineEntry& s, unsigned d, std::uint16_t epoch,
                             RingEmit kind) {
    const bool answer = kind == RingEmit::kAnswer;
    fmt::PktHdr o = made(fmt::PktType::kCombShare, epoch);
    o.set_round(static_cast<std::uint8_t>(d))
        .set_member(static_cast<std::uint16_t>(s.phase[d].pos()))
        .set_answer(answer)
        .set_ask(answer ? 0 : s.level);
    return Emission{o, share_ports(s.phase[d]), kind};
  };
  // The entry's next pending emission (§9.4), applied to s.
  const auto next_pending = [&](CombineEntry& s) -> std::optional<Emission> {
    if (const auto d = share_due(s)) {
      s.sent = static_cast<std::uint8_t>(s.sent | 1U << *d);
      return own_share(s, *d, s.epoch, RingEmit::kOwn);
    }
    for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
      if ((s.query >> d & 1U) != 0) {
        s.query = static_cast<std::uint8_t>(s.query & ~(1U << d));
        return own_share(s, d, s.epoch, RingEmit::kQuery);
      }
    }
    for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
      if ((s.owe >> d & 1U) != 0) {
        s.owe = static_cast<std::uint8_t>(s.owe & ~(1U << d));
        return own_share(s, d, s.owe_epoch[d], RingEmit::kAnswer);
      }
    }
    if (complete(s)) {
      const Emission rel{made(fmt::PktType::kCombRelease, s.epoch), s.children, RingEmit::kRelease};
      advance(s);
      if (rel.ports != 0) {
        return rel;
      }
    }
    return std::nullopt;
  };

  CombineEntry t = ent;  // committed only if the take happens
  std::optional<Emission> em;
  if (!rx.held) {
    // First take: the packet's own effect (§9.3) and its own copy.
    if (type == fmt::PktType::kCombRelease) {
      drop_combine(i, rx, "COMB_RELEASE at a ring-mode entry");
      return CombineTake::kNone;
    }
    if (type == fmt::PktType::kCombArrive) {
      if ((t.children & bit) == 0) {
        drop_combine(i, rx, "arrival from port " + std::to_string(i) + ", not a child");
        return CombineTake::kNone;
      }
      if (e == t.epoch && (t.arrived & bit) == 0) {
        t.arrived |= bit;
      } else if (e == t.epoch) {
        // A member re-sent (something was lost): the deepest re-ask.
        re_ask(t, t.phases);
      } else if (e == minus1(t.epoch)) {
        // The member missed it.
        em = Emission{made(fmt::PktType::kCombRelease, e), bit, RingEmit::kResentRelease};
      } else {
        drop_combine(
            i, rx,
            "arrival of epoch " + std::to_string(e) + ", entry at " + std::to_string(t.epoch));
        return CombineTake::kNone;
      }
    } else {
      const unsigned d = h.round();
      const unsigned o = h.member();
      if (!phase_on(t, d)) {
        drop_combine(i, rx, "share of phase " + std::to_string(d) + ", not valid here");
        return CombineTake::kNone;
      }
      const RingPhase& ph = t.phase[d];
      if (i != ph.minus() && i != ph.plus()) {
        drop_combine(i, rx,
                     "share of phase " + std::to_string(d) + " from port " + std::to_string(i) +
                         ", not its PLUS or MINUS");
        return CombineTake::kNone;
      }
      if (o >= ph.len() || o == ph.pos()) {
        drop_combine(i, rx,
                     "share of phase " + std::to_string(d) + " from position " + std::to_string(o) +
                         " (POS " + std::to_string(ph.pos()) + ", LEN " + std::to_string(ph.len()) +
                         ")");
        return CombineTake::kNone;
      }
      const bool plus = i == ph.minus();
      const unsigned len = ph.len();
      const unsigned k = plus ? (ph.pos() + len - o) % len : (o + len - ph.pos()) % len;
      const unsigned reach = plus ? ph.reach_plus() : ph.reach_minus();
      if (k > reach) {
        drop_combine(i, rx,
                     "share of phase " + std::to_string(d) + " from position " + std::to_string(o) +
                         " travelling " + (plus ? "+" : "-") + " " + std::to_string(k) +
                         " hops, reach " + std::to_string(reach));
        return CombineTake::kNone;
      }
      if (k + 1 <= reach) {
        fmt::PktHdr f = h;
        f.set_src_lid(fmt::kLidNone);
        em = Emission{f, 1U << (plus ? ph.plus() : ph.minus()), RingEmit::kForward};
      }
      const bool expected = (ph.expect >> o & 1U) != 0;
      const bool current = e == t.epoch || e == plus1(t.epoch);
      if (current && expected) {
        t.heard[e & 1U][d] |= 1U << o;
      } else if (!current && static_cast<std::uint16_t>(t.epoch - e) < 0x8000U && !h.answer() &&
                 h.ask() >= 1 && ph.origin()) {
        t.owe = static_cast<std::uint8_t>(t.owe | 1U << d);
        t.owe_epoch[d] = e;
      }
      // A switch that waits on this one asks: if this one is stuck too, it
      // asks in turn, one level less (a switch without members has no timer).
      if (current && h.ask() >= 2) {
        re_ask(t, h.ask() - 1U);
      }
    }
  }
  settle(t);
  // The state the emission is made from, for the checks.
  const CombineEntry before = t;
  if (!em) {
    em = next_pending(t);
    settle(t);
  }
  if (!em) {
    ent = t;
    if (trace_) {
      trace("COMBINE " + what + (rx.held ? " retake: nothing pending -> pop" : " -> absorbed") +
            " arrived=" + hex(ent.arrived) + " E'=" + std::to_string(ent.epoch));
    }
    return CombineTake::kNone;
  }
  const bool hold = pending(t);
  if (hold && in_[i].used >= params_.csr.buf_cells) {
    if (trace_) {
      trace("COMBINE " + what + " -> would hold, no free cell: not taken");
    }
    return CombineTake::kNoCell;
  }
  check_ring_emission(before, em->hdr, em->ports, rx.held ? nullptr : &h, i, em->kind, what);
  ent = t;
  rx.hdr = em->hdr;
  rx.flits[0] = em->hdr.bytes();
  rx.outputs = em->ports;
  const bool first = !rx.held;
  rx.held = hold;
  if (trace_) {
    const fmt::PktHdr& o = em->hdr;
    trace("COMBINE " + what + (first ? "" : " retake") + " -> " +
          std::string(fmt::to_string(o.pkt_type())) + " ep=" + std::to_string(o.epoch()) +
          (o.pkt_type() == fmt::PktType::kCombShare
               ? " phase=" + std::to_string(o.round()) + " member=" + std::to_string(o.member()) +
                     " answer=" + std::to_string(o.answer() ? 1 : 0) +
                     " ask=" + std::to_string(o.ask())
               : "") +
          " ports=" + hex(em->ports) + " E'=" + std::to_string(ent.epoch) +
          (hold ? " (held)" : ""));
  }
  return hold ? CombineTake::kHold : CombineTake::kEmit;
}

// §7 and §9.6, from the entry's state before the emission: a release of the
// current epoch only by a complete entry to its children, otherwise only for
// E - 1 on the port of a member's arrival of E - 1; a share forwarded only
// as received, within its reach and only to the port of its direction; an
// own share of phase d for E only with done_(d-1), an answer only for E - 1
// and with ask 0; a query of phase d never from a phase with ORIGIN_d.
void SwitchModel::check_ring_emission(const CombineEntry& s, const fmt::PktHdr& out,
                                      std::uint32_t ports, const fmt::PktHdr* in, unsigned i,
                                      RingEmit kind, const std::string& what) {
  const auto unsafe = [&](const std::string& rule) {
    throw std::logic_error("switch combine safety (ring): " + rule + " (" + what + ")");
  };
  if (out.len_flits() != 1 || out.src_lid() != fmt::kLidNone) {
    unsafe("an emitted packet is not one flit made by the switch");
  }
  const bool release = kind == RingEmit::kRelease || kind == RingEmit::kResentRelease;
  if (release != (out.pkt_type() == fmt::PktType::kCombRelease)) {
    unsafe("a " + std::string(fmt::to_string(out.pkt_type())) + " made by the wrong rule");
  }
  if (release) {
    if (out.epoch() == s.epoch) {
      if (!complete(s) || ports != s.children || s.arrived != s.children) {
        unsafe("a release of the current epoch by an entry that is not complete");
      }
    } else if (out.epoch() != minus1(s.epoch) || in == nullptr ||
               in->pkt_type() != fmt::PktType::kCombArrive || in->epoch() != out.epoch() ||
               ports != 1U << i || (s.children >> i & 1U) == 0) {
      unsafe("a release not for E - 1 on the port of a member's arrival of E - 1");
    }
    return;
  }
  if (out.pkt_type() != fmt::PktType::kCombShare) {
    unsafe("ring mode emits only COMB_SHARE and COMB_RELEASE");
  }
  const unsigned d = out.round();
  if (!phase_on(s, d)) {
    unsafe("a share of a phase that is not valid here");
  }
  const RingPhase& ph = s.phase[d];
  if (kind == RingEmit::kForward) {
    if (in == nullptr || in->pkt_type() != fmt::PktType::kCombShare || in->round() != d ||
        in->member() != out.member() || in->epoch() != out.epoch() ||
        in->answer() != out.answer() || in->ask() != out.ask()) {
      unsafe("a forwarded share that is not the received one");
    }
    const bool plus = i == ph.minus();
    if (!plus && i != ph.plus()) {
      unsafe("a share forwarded from a port that is not of its ring");
    }
    const unsigned len = ph.len();
    const unsigned o = out.member();
    const unsigned k = plus ? (ph.pos() + len - o) % len : (o + len - ph.pos()) % len;
    if (o >= len || k == 0 || k + 1 > (plus ? ph.reach_plus() : ph.reach_minus())) {
      unsafe("a share forwarded beyond its reach");
    }
    if (ports != 1U << (plus ? ph.plus() : ph.minus())) {
      unsafe("a share forwarded to a port other than its direction's");
    }
    return;
  }
  if (out.member() != ph.pos() || ports != share_ports(ph)) {
    unsafe("a share made here not from its position to PLUS/MINUS");
  }
  if (kind == RingEmit::kQuery) {
    if (ph.origin()) {
      unsafe("a query of phase " + std::to_string(d) + " from a phase with ORIGIN_d");
    }
    if (out.answer() || out.epoch() != s.epoch || out.ask() != s.level) {
      unsafe("a query not for E with answer 0 and ask = level");
    }
    return;
  }
  if (!ph.origin()) {
    unsafe("an own share of phase " + std::to_string(d) + " without ORIGIN_d");
  }
  if (kind == RingEmit::kAnswer) {
    if (!out.answer() || static_cast<std::uint16_t>(s.epoch - out.epoch()) >= 0x8000U ||
        out.epoch() == s.epoch || out.ask() != 0) {
      unsafe("an answer not for an epoch behind E with ask 0");
    }
  } else if (out.answer() || out.epoch() != s.epoch || out.ask() != s.level) {
    unsafe("an own share not for E with answer 0 and ask = level");
  } else if (!done_upto(s, static_cast<int>(d) - 1)) {
    unsafe("an own share of phase " + std::to_string(d) + " before done_(d-1)");
  }
}

}  // namespace syncfab::model
