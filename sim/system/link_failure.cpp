#include "link_failure.hpp"

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "switch_fabric_sm.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::tb::system {

namespace {

using K = fmt::SwCounter;

std::uint64_t non_pfc(const DirStats& d, bool delivered) {
  std::uint64_t n = 0;
  for (const PktKind k : {PktKind::kNotify, PktKind::kAck, PktKind::kNack, PktKind::kData}) {
    n += d.count(k) - (delivered ? d.count_lost(k) : 0);
  }
  return n;
}

std::size_t index_of(const SystemFabric& sys, const Link& l) {
  const auto& links = sys.links();
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].get() == &l) {
      return i;
    }
  }
  throw std::invalid_argument("link " + l.name() + " is not one of the fabric's");
}

// Packets of `kind` in `d` since `m` (entered, or entered and not lost).
std::uint64_t since(const DirStats& d, const DirStats& m, PktKind kind, bool delivered) {
  const std::uint64_t entered = d.count(kind) - m.count(kind);
  return delivered ? entered - (d.count_lost(kind) - m.count_lost(kind)) : entered;
}

}  // namespace

SmPort sm_port_of(SystemFabric& sys, const Link& link) {
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
      if (sys.switch_link(s, p) == &link) {
        return SmPort{sys.sm().switch_node(s), swfab::sm_port(p, sys.sw(s).port_count())};
      }
    }
  }
  throw std::invalid_argument("link " + link.name() + " has no switch end in this fabric");
}

sm::Fabric fabric_without(SystemFabric& sys, const Link& link) {
  sm::Fabric f = sys.sm();
  const SmPort end = sm_port_of(sys, link);
  f.disconnect(end.node, end.port);
  return f;
}

Rerouting route_around(const sm::Fabric& degraded, const RoutingOptions& opts) {
  const sm::MinHop mh(degraded);
  Rerouting out;
  SystemRouting& r = out.routing;
  // The first NIC pair an engine's tables do not join, or "".
  const auto gap = [&](const sm::Lft& lft) -> std::string {
    for (const sm::NodeId a : degraded.hcas()) {
      for (const sm::NodeId b : degraded.hcas()) {
        if (a != b && sm::walk(lft, degraded.attach_switch(a), degraded.lid(b, 1)).empty()) {
          return degraded.name(a) + " does not reach " + degraded.name(b) + " (LID " +
                 sm::hex_lid(degraded.lid(b, 1)) + ")";
        }
      }
    }
    return "";
  };
  const std::vector<std::string> engines{
      opts.unicast.empty() ? sm::default_unicast(degraded) : opts.unicast, "updn"};
  for (const std::string& engine : engines) {
    r.uc.lft.reset();
    sm::route_unicast(engine, mh, r.uc);
    r.unicast = engine;
    const std::string why = gap(*r.uc.lft);
    if (why.empty()) {
      break;
    }
    std::string msg = engine;
    msg += ": ";
    msg += why;
    if (engine == "updn") {
      if (!out.why_fallback.empty()) {
        msg += "; ";
        msg += out.why_fallback;
      }
      throw std::invalid_argument("unicast on the degraded fabric: " + msg);
    }
    out.why_fallback = std::move(msg);
  }
  for (sm::SwitchIdx s = 0; s < degraded.switch_count(); ++s) {
    for (const sm::NodeId h : degraded.hcas()) {
      if (sm::walk(*r.uc.lft, s, degraded.lid(h, 1)).empty()) {
        out.unreached.emplace_back(s, h);
      }
    }
  }
  try {
    route_groups(degraded, mh, opts, r);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("on the degraded fabric: ") + e.what());
  }
  return out;
}

void check_avoids(SystemFabric& sys, const SystemRouting& r, const Link& link) {
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
      if (sys.switch_link(s, p) != &link) {
        continue;
      }
      const std::string who = sys.sw(s).name() + " port " + std::to_string(p);
      for (const driver::LftEntry& e : swfab::lft_entries(*r.uc.lft, s, sys.sw(s).port_count())) {
        TB_CHECK_NE(unsigned{e.port}, p)
            << r.unicast << " routes LID " << sm::hex_lid(e.lid) << " at " << who
            << " onto the failed link " << link.name();
      }
      for (const auto& [mlid, mask] : swfab::mft_masks(r.trees, s, sys.sw(s).port_count())) {
        TB_CHECK_EQ((mask >> p) & 1U, 0U)
            << r.mc << " forwards MLID " << sm::hex_lid(mlid) << " at " << who
            << " onto the failed link " << link.name();
      }
    }
  }
}

RerouteReport reprogram_changed(SystemFabric& sys, const SystemRouting& before,
                                const SystemRouting& after) {
  RerouteReport rep;
  const std::uint64_t t0 = sys.cycle();
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    std::map<std::uint16_t, std::uint8_t> old_lft;
    std::map<std::uint16_t, std::uint8_t> new_lft;
    for (const driver::LftEntry& e :
         swfab::lft_entries(*before.uc.lft, s, sys.sw(s).port_count())) {
      old_lft[e.lid] = e.port;
    }
    for (const driver::LftEntry& e : swfab::lft_entries(*after.uc.lft, s, sys.sw(s).port_count())) {
      new_lft[e.lid] = e.port;
    }
    const auto old_mft = swfab::mft_masks(before.trees, s, sys.sw(s).port_count());
    const auto new_mft = swfab::mft_masks(after.trees, s, sys.sw(s).port_count());

    driver::Switch& d = sys.sw(s).driver();
    const std::string& name = sys.sw(s).name();
    std::vector<std::uint16_t> lft_written;
    std::vector<std::uint16_t> lft_gone;
    for (const auto& [lid, port] : new_lft) {
      const auto it = old_lft.find(lid);
      if (it == old_lft.end() || it->second != port) {
        d.set_lft(lid, port);
        lft_written.push_back(lid);
      }
    }
    for (const auto& [lid, port] : old_lft) {
      if (!new_lft.contains(lid)) {
        d.clear_lft(lid);
        lft_gone.push_back(lid);
      }
    }
    std::vector<std::uint16_t> mft_written;
    std::vector<std::uint16_t> mft_gone;
    for (const auto& [mlid, mask] : new_mft) {
      const auto it = old_mft.find(mlid);
      if (it == old_mft.end() || it->second != mask) {
        d.set_mft(mlid, mask);
        mft_written.push_back(mlid);
      }
    }
    for (const auto& [mlid, mask] : old_mft) {
      if (!new_mft.contains(mlid)) {
        d.clear_mft(mlid);
        mft_gone.push_back(mlid);
      }
    }
    // Read back what was written: the driver's own table reads over the bus.
    for (const std::uint16_t lid : lft_written) {
      const std::optional<unsigned> got = d.lft(lid);
      if (got != new_lft.at(lid)) {
        throw std::runtime_error(name + ": LFT LID " + sm::hex_lid(lid) + " reads back " +
                                 (got ? "port " + std::to_string(*got) : std::string("no entry")) +
                                 ", rewritten to port " + std::to_string(new_lft.at(lid)));
      }
    }
    for (const std::uint16_t lid : lft_gone) {
      if (const std::optional<unsigned> got = d.lft(lid)) {
        throw std::runtime_error(name + ": LFT LID " + sm::hex_lid(lid) + " reads back port " +
                                 std::to_string(*got) + " after it was cleared");
      }
    }
    for (const std::uint16_t mlid : mft_written) {
      const std::optional<std::uint32_t> got = d.mft(mlid);
      if (got != new_mft.at(mlid)) {
        throw std::runtime_error(name + ": MFT MLID " + sm::hex_lid(mlid) + " reads back " +
                                 (got ? "mask " + std::to_string(*got) : std::string("no entry")) +
                                 ", rewritten to mask " + std::to_string(new_mft.at(mlid)));
      }
    }
    for (const std::uint16_t mlid : mft_gone) {
      if (const std::optional<std::uint32_t> got = d.mft(mlid)) {
        throw std::runtime_error(name + ": MFT MLID " + sm::hex_lid(mlid) + " reads back mask " +
                                 std::to_string(*got) + " after it was cleared");
      }
    }
    const std::size_t changed =
        lft_written.size() + lft_gone.size() + mft_written.size() + mft_gone.size();
    rep.switches += changed != 0 ? 1 : 0;
    rep.lft_set += lft_written.size();
    rep.lft_cleared += lft_gone.size();
    rep.mft_set += mft_written.size();
    rep.mft_cleared += mft_gone.size();
  }
  rep.cycles = sys.cycle() - t0;
  return rep;
}

std::vector<bool> predict_stuck(std::span<const driver::BarrierSchedule> schedules,
                                std::span<const std::uint16_t> lids, unsigned ctx,
                                std::uint16_t epoch, std::span<const LostPacket> lost) {
  const std::size_t p = schedules.size();
  if (lids.size() != p) {
    throw std::invalid_argument("predict_stuck: " + std::to_string(lids.size()) + " LIDs for " +
                                std::to_string(p) + " schedules");
  }
  std::map<std::uint16_t, std::uint32_t> rank_of;
  for (std::uint32_t r = 0; r < p; ++r) {
    rank_of[lids[r]] = r;
  }
  // (sender rank, receiver rank, round) of each NOTIFY that never reached
  // its receiver's SE, and of each whose ACK never reached its sender.
  using Send = std::tuple<std::uint32_t, std::uint32_t, unsigned>;
  std::set<Send> unheard;
  std::set<Send> unacked;
  for (const LostPacket& l : lost) {
    if (l.hdr.ctx() != ctx || l.hdr.epoch() != epoch) {
      continue;
    }
    const auto src = rank_of.find(l.hdr.src_lid());
    const auto dst = rank_of.find(l.hdr.dst_lid());
    if (src == rank_of.end() || dst == rank_of.end()) {
      continue;
    }
    switch (l.kind) {
      case PktKind::kNotify:
        unheard.emplace(src->second, dst->second, l.hdr.round());
        break;
      case PktKind::kNack:  // the NOTIFY was refused and will not be re-sent
        unheard.emplace(dst->second, src->second, l.hdr.round());
        unacked.emplace(dst->second, src->second, l.hdr.round());
        break;
      case PktKind::kAck:  // a response goes from the NOTIFY's receiver to its sender
        unacked.emplace(dst->second, src->second, l.hdr.round());
        break;
      default:
        break;
    }
  }
  std::size_t rounds = 0;
  for (const auto& s : schedules) {
    rounds = std::max(rounds, s.rounds.size());
  }
  // reached[r][s]: rank r sends its round-s NOTIFYs (it heard every peer of
  // rounds < s). Rounds are computed in order, every rank at once.
  std::vector<std::vector<bool>> reached(p, std::vector<bool>(rounds + 1, false));
  for (std::size_t r = 0; r < p; ++r) {
    reached[r][0] = true;
  }
  const auto heard = [&](std::uint32_t from, std::uint32_t to, unsigned round) {
    return reached[from][round] && !unheard.contains(Send{from, to, round});
  };
  for (unsigned s = 0; s < rounds; ++s) {
    for (std::uint32_t r = 0; r < p; ++r) {
      bool all = reached[r][s];
      if (s < schedules[r].rounds.size()) {
        for (const std::uint32_t from : schedules[r].rounds[s].expect_from) {
          all = all && heard(from, r, s);
        }
      }
      reached[r][s + 1] = all;
    }
  }
  std::vector<bool> stuck(p, false);
  for (std::uint32_t r = 0; r < p; ++r) {
    bool done = reached[r][rounds];
    for (unsigned s = 0; s < schedules[r].rounds.size(); ++s) {
      for (const std::uint32_t to : schedules[r].rounds[s].send_to) {
        done = done && heard(r, to, s) && !unacked.contains(Send{r, to, s});
      }
    }
    stuck[r] = !done;
  }
  return stuck;
}

void wait_idle(SystemFabric& sys, std::uint64_t limit, const std::string& what) {
  const std::uint64_t t0 = sys.cycle();
  while (!sys.idle()) {
    TB_CHECK(sys.cycle() - t0 < limit)
        << what << ": a link still holds flits " << limit << " cycles later";
    sys.idle_cycles(4);
  }
}

std::vector<unsigned> reopen_nics(SystemFabric& sys, const driver::NicOptions& opts,
                                  std::uint64_t limit) {
  std::vector<unsigned> abandoned;
  for (unsigned r = 0; r < sys.nic_count(); ++r) {
    abandoned.push_back(sys.nic(r).nic().close());
  }
  wait_idle(sys, limit, "after every NIC's driver closed");
  for (unsigned r = 0; r < sys.nic_count(); ++r) {
    sys.nic(r).bring_up(sys.nic_lid(r), opts);
  }
  return abandoned;
}

TrafficMark mark_traffic(SystemFabric& sys) {
  TrafficMark m;
  for (const auto& l : sys.links()) {
    m.ab.push_back(l->ab());
    m.ba.push_back(l->ba());
    m.lost.push_back(l->lost().size());
  }
  for (unsigned r = 0; r < sys.nic_count(); ++r) {
    m.nics.push_back(fabric::read_counters(sys.nic(r).device()));
  }
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    SwitchNode& sw = sys.sw(s);
    m.sw_rx.emplace_back();
    m.sw_tx.emplace_back();
    for (unsigned p = 0; p < sw.port_count(); ++p) {
      m.sw_rx.back().push_back(sw.counter_all_prios(p, K::kRx));
      m.sw_tx.back().push_back(sw.counter_all_prios(p, K::kTx));
    }
  }
  return m;
}

PhaseTraffic check_traffic_since(SystemFabric& sys, const TrafficMark& mark) {
  TB_CHECK(sys.idle()) << "a link still holds flits";
  PhaseTraffic t;
  // Responses lost on their way to a LID, NOTIFYs lost from a LID.
  std::map<std::uint16_t, std::uint64_t> lost_resp_to;
  std::map<std::uint16_t, std::uint64_t> lost_notify_from;
  const auto& links = sys.links();
  for (std::size_t i = 0; i < links.size(); ++i) {
    const Link& l = *links[i];
    for (const bool ab : {true, false}) {
      const DirStats& d = ab ? l.ab() : l.ba();
      const DirStats& m = ab ? mark.ab[i] : mark.ba[i];
      const std::string what =
          ab ? l.a().name + " -> " + l.b().name : l.b().name + " -> " + l.a().name;
      const std::uint64_t lost = d.lost_flits - m.lost_flits;
      TB_CHECK_EQ(d.flits_out - m.flits_out + lost, d.flits_in - m.flits_in)
          << what << ": flits taken + lost = flits sent";
      TB_CHECK(lost == 0 || l.failed()) << what << ": " << lost << " flits lost on a live link";
      t.lost_flits += lost;
      for (std::size_t k = 0; k < kPktKinds; ++k) {
        t.link_packets += d.packets.at(k) - m.packets.at(k);
      }
    }
    for (std::size_t j = mark.lost.at(i); j < l.lost().size(); ++j) {
      const LostPacket& p = l.lost()[j];
      if (p.kind == PktKind::kNotify) {
        ++t.lost_notify;
        ++lost_notify_from[p.hdr.src_lid()];
      } else if (p.kind == PktKind::kAck || p.kind == PktKind::kNack) {
        ++(p.kind == PktKind::kAck ? t.lost_ack : t.lost_nack);
        ++lost_resp_to[p.hdr.dst_lid()];
      }
    }
  }
  std::uint64_t notify_in = 0;
  for (unsigned r = 0; r < sys.nic_count(); ++r) {
    NicNode& n = sys.nic(r);
    const fabric::Counters c = fabric::read_counters(n.device()) - mark.nics.at(r);
    const Link& l = sys.nic_link(r);
    const std::size_t li = index_of(sys, l);
    const bool a_is_nic = l.a().port == &n.port(0);
    const DirStats& out = l.from(n.port(0));
    const DirStats& in = l.to(n.port(0));
    const DirStats& mout = a_is_nic ? mark.ab[li] : mark.ba[li];
    const DirStats& min = a_is_nic ? mark.ba[li] : mark.ab[li];
    const std::uint16_t lid = sys.nic_lid(r);
    const std::string who = n.name() + ": ";
    TB_CHECK_EQ(since(out, mout, PktKind::kNotify, false), c.sent)
        << who << "NOTIFYs out = CNT_NOTIF_SENT";
    TB_CHECK_EQ(since(out, mout, PktKind::kNack, false), c.nack_sent)
        << who << "NACKs out = CNT_NACK_SENT";
    TB_CHECK_EQ(since(out, mout, PktKind::kAck, false), std::uint64_t{c.recv} + c.dup + c.drop)
        << who << "ACKs out = CNT_NOTIF_RECV + CNT_DUP + CNT_DROP";
    const std::uint64_t notify_here = since(in, min, PktKind::kNotify, true);
    TB_CHECK_EQ(notify_here, std::uint64_t{c.recv} + c.nack_sent + c.dup + c.drop)
        << who << "NOTIFYs in = CNT_NOTIF_RECV + CNT_NACK_SENT + CNT_DUP + CNT_DROP";
    const std::uint64_t resp_in =
        since(in, min, PktKind::kAck, true) + since(in, min, PktKind::kNack, true);
    TB_CHECK_EQ(resp_in + lost_resp_to[lid], std::uint64_t{c.sent} - lost_notify_from[lid])
        << who
        << "ACKs + NACKs in + those lost = CNT_NOTIF_SENT - its NOTIFYs lost (every NOTIFY that "
           "arrived answered once)";
    TB_CHECK_EQ(since(in, min, PktKind::kNack, true), c.nack_recv)
        << who << "NACKs in = CNT_NACK_RECV";
    TB_CHECK_EQ(c.retry, c.nack_recv) << who << "every NACK re-sent (CNT_RETRY)";
    t.notify += c.sent;
    t.ack += std::uint64_t{c.recv} + c.dup + c.drop;
    t.nack += c.nack_sent;
    notify_in += notify_here;
  }
  TB_CHECK_EQ(notify_in + t.lost_notify, t.notify)
      << "every NOTIFY the NICs sent reached a NIC or was lost on a failed link";

  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    SwitchNode& sw = sys.sw(s);
    for (unsigned p = 0; p < sw.port_count(); ++p) {
      const std::string who = sw.name() + " port " + std::to_string(p) + ": ";
      for (const K k : {K::kDropWred, K::kDropNoRoute, K::kDropBadPkt, K::kDropDisabled, K::kDropWd,
                        K::kDropBuf}) {
        TB_CHECK_EQ(sw.counter_all_prios(p, k), 0U) << who << fmt::to_string(k);
      }
      const Link* l = sys.switch_link(s, p);
      const std::uint64_t rx = sw.counter_all_prios(p, K::kRx) - mark.sw_rx.at(s).at(p);
      const std::uint64_t tx = sw.counter_all_prios(p, K::kTx) - mark.sw_tx.at(s).at(p);
      if (l == nullptr) {
        TB_CHECK_EQ(rx + tx, 0U) << who << "a port with no link counts nothing";
        continue;
      }
      const std::size_t li = index_of(sys, *l);
      const bool a_is_port = l->a().port == &sw.port(p);
      const DirStats& in = l->to(sw.port(p));
      const DirStats& out = l->from(sw.port(p));
      const DirStats& min = a_is_port ? mark.ba[li] : mark.ab[li];
      const DirStats& mout = a_is_port ? mark.ab[li] : mark.ba[li];
      TB_CHECK_EQ(rx, non_pfc(in, true) - non_pfc(min, true))
          << who << "RX = packets that arrived on its link (PFC frames aside)";
      TB_CHECK_EQ(tx, non_pfc(out, false) - non_pfc(mout, false))
          << who << "TX = packets that left into its link (PFC frames aside)";
    }
  }
  return t;
}

}  // namespace syncfab::tb::system
