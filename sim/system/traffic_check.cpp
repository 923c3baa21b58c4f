#include "traffic_check.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <ostream>
#include <string>

#include "nic_fabric_scenario.hpp"
#include "syncfab/hw/dcqcn_regs.hpp"
#include "syncfab/hw/errors.hpp"

namespace syncfab::tb::system {

namespace {

using K = fmt::SwCounter;

std::uint64_t non_pfc(const DirStats& d) {
  std::uint64_t n = 0;
  for (std::size_t k = 0; k < kPktKinds; ++k) {
    n += k == static_cast<std::size_t>(PktKind::kPfc) ? 0 : d.packets.at(k);
  }
  return n;
}

// The packets of a direction that reached its receiver (those lost on the
// wire taken out).
DirStats reached(const DirStats& d) {
  DirStats r = d;
  for (std::size_t k = 0; k < kPktKinds; ++k) {
    r.packets.at(k) -= d.lost.at(k);
  }
  return r;
}

// docs/nic/dcqcn.md section 1: a NIC without the data path answers PSLVERR
// at its block, one with it shows the block's magic there.
bool has_data_path(hw::Device& dev) {
  try {
    return dev.read32(hw::dcqcn::kBase) == hw::dcqcn::kMagic;
  } catch (const hw::BusError&) {
    return false;
  }
}

void check_dir(const DirStats& d, const std::string& what, bool losses) {
  TB_CHECK_EQ(d.flits_out + d.lost_flits, d.flits_in) << what << ": flits taken + lost = sent";
  TB_CHECK(losses || d.lost_flits == 0) << what << ": " << d.lost_flits << " flits lost";
}

}  // namespace

TrafficTotals check_traffic(SystemFabric& sys, const TrafficRules& rules) {
  TB_CHECK(sys.idle()) << "a link still holds flits";
  TrafficTotals t;
  for (const auto& l : sys.links()) {
    check_dir(l->ab(), l->a().name + " -> " + l->b().name, rules.losses);
    check_dir(l->ba(), l->b().name + " -> " + l->a().name, rules.losses);
    for (const DirStats* d : {&l->ab(), &l->ba()}) {
      for (const std::uint64_t n : d->packets) {
        t.link_packets += n;
      }
      t.pfc_frames += d->count(PktKind::kPfc);
      t.peak_fifo = std::max(t.peak_fifo, d->peak_fifo);
      t.rx_stall_cycles += d->rx_stall_cycles;
    }
  }
  std::array<std::uint64_t, kPktKinds> nic_out{};
  std::array<std::uint64_t, kPktKinds> nic_in{};
  for (unsigned r = 0; r < sys.nic_count(); ++r) {
    NicNode& n = sys.nic(r);
    const fabric::Counters c = fabric::read_counters(n.device());
    const Link& l = sys.nic_link(r);
    const DirStats& out = l.from(n.port(0));
    const DirStats in = reached(l.to(n.port(0)));
    const std::string who = n.name() + ": ";
    // A DATA packet (a bulk host's, sent to a NIC's LID) goes to the NIC's
    // data path, which counts it received or dropped at its last flit; a NIC
    // without one drops it into CNT_DROP (docs/nic/dcqcn.md section 1).
    const std::uint64_t strays = in.count(PktKind::kData);
    const bool data_path = has_data_path(n.device());
    if (data_path) {
      const auto dq = [&n](std::size_t off) {
        return std::uint64_t{n.device().read32(hw::dcqcn::kBase + static_cast<std::uint32_t>(off))};
      };
      TB_CHECK_EQ(dq(offsetof(nic_dcqcn_t, CNT_DATA_RX)) + dq(offsetof(nic_dcqcn_t, CNT_DATA_DROP)),
                  strays)
          << who << "CNT_DATA_RX + CNT_DATA_DROP = the DATA packets it took";
    } else {
      TB_CHECK(c.drop >= strays) << who << "CNT_DROP " << c.drop << " below the " << strays
                                 << " DATA packet(s) it took";
    }
    const std::uint64_t dropped_strays = data_path ? 0 : strays;
    // Management datagrams: those its mailbox did not take were dropped
    // (CNT_DROP, docs/group-protocol.md section 1).
    TB_CHECK_EQ(out.count(PktKind::kMgmt), c.mgmt_sent) << who << "MGMT out = CNT_MGMT_SENT";
    TB_CHECK(in.count(PktKind::kMgmt) >= c.mgmt_recv)
        << who << "CNT_MGMT_RECV above the MGMT packets it took";
    const std::uint64_t mgmt_dropped = in.count(PktKind::kMgmt) - c.mgmt_recv;
    // Group-barrier packets it took that completed nothing (docs/group-
    // barrier.md sections 3 and 4): duplicates (CNT_DUP), drops (CNT_DROP),
    // or ARRIVEs of a released epoch a root answered with a RELEASE
    // (CNT_RELEASE_SENT, together with the multicast releases).
    const std::uint64_t group_in = in.count(PktKind::kArrive) + in.count(PktKind::kRelease) +
                                   in.count(PktKind::kCombRelease) + in.count(PktKind::kCombArrive);
    const std::uint64_t group_taken = std::uint64_t{c.arrive_recv} + c.release_recv;
    TB_CHECK(group_in >= group_taken) << who << "CNT_ARRIVE_RECV + CNT_RELEASE_RECV " << group_taken
                                      << " above the " << group_in << " group packets it took";
    const std::uint64_t group_other = group_in - group_taken;
    TB_CHECK_EQ(out.count(PktKind::kArrive) + out.count(PktKind::kCombArrive), c.arrive_sent)
        << who << "ARRIVEs + COMB_ARRIVEs out = CNT_ARRIVE_SENT";
    TB_CHECK_EQ(out.count(PktKind::kRelease), c.release_sent)
        << who << "RELEASEs out = CNT_RELEASE_SENT";
    TB_CHECK_EQ(out.count(PktKind::kCombRelease) + in.count(PktKind::kCombArrive), 0U)
        << who << "COMB_RELEASEs are made by switches and COMB_ARRIVEs taken by them";
    TB_CHECK_EQ(out.count(PktKind::kCombShare) + in.count(PktKind::kCombShare), 0U)
        << who << "COMB_SHAREs travel between switches only";
    TB_CHECK_EQ(out.count(PktKind::kPfc), 0U) << who << "a NIC sends no PFC frame";
    // DATA leaves a NIC only from its data path's flows.
    const std::uint64_t data_tx =
        data_path
            ? n.device().read32(hw::dcqcn::kBase +
                                static_cast<std::uint32_t>(offsetof(nic_dcqcn_t, CNT_DATA_TX)))
            : 0U;
    TB_CHECK_EQ(out.count(PktKind::kData), data_tx)
        << who << "DATA out = CNT_DATA_TX (0 without a data path)";
    t.nic_data_sent += data_tx;
    // Every NOTIFY it took was answered: ACKed (taken, a duplicate or a
    // drop) or NACKed.
    TB_CHECK(out.count(PktKind::kAck) >= c.recv) << who << "ACKs out below CNT_NOTIF_RECV";
    const std::uint64_t notify_dup_drop = out.count(PktKind::kAck) - c.recv;
    TB_CHECK_EQ(out.count(PktKind::kNotify), c.sent) << who << "NOTIFYs out = CNT_NOTIF_SENT";
    TB_CHECK_EQ(out.count(PktKind::kNack), c.nack_sent) << who << "NACKs out = CNT_NACK_SENT";
    TB_CHECK_EQ(in.count(PktKind::kNotify), std::uint64_t{c.recv} + c.nack_sent + notify_dup_drop)
        << who << "NOTIFYs in = CNT_NOTIF_RECV + CNT_NACK_SENT + (ACKs out - CNT_NOTIF_RECV)";
    // CNT_DUP + CNT_DROP: the NOTIFYs ACKed without being taken, the strays
    // the engine dropped, the dropped datagrams and the unused group packets,
    // of which up to CNT_RELEASE_SENT were answered by a RELEASE instead.
    const std::uint64_t dup_drop = std::uint64_t{c.dup} + c.drop;
    const std::uint64_t most = notify_dup_drop + dropped_strays + mgmt_dropped + group_other;
    TB_CHECK(dup_drop <= most && dup_drop + c.release_sent >= most)
        << who << "CNT_DUP " << c.dup << " + CNT_DROP " << c.drop << " against " << notify_dup_drop
        << " NOTIFYs ACKed untaken, " << dropped_strays << " strays, " << mgmt_dropped
        << " MGMT dropped and " << group_other << " unused group packets (" << c.release_sent
        << " RELEASEs sent)";
    TB_CHECK_EQ(in.count(PktKind::kAck) + in.count(PktKind::kNack), c.sent)
        << who << "ACKs + NACKs in = CNT_NOTIF_SENT (every NOTIFY answered once)";
    TB_CHECK_EQ(in.count(PktKind::kNack), c.nack_recv) << who << "NACKs in = CNT_NACK_RECV";
    TB_CHECK_EQ(in.count(PktKind::kPfc), c.pfc_rx) << who << "PFC frames in = CNT_PFC_RX";
    TB_CHECK_EQ(c.retry, c.nack_recv) << who << "every NACK re-sent (CNT_RETRY)";
    TB_CHECK_EQ(sys.pause_checks().at(r).pauses(), c.pause_rx)
        << who << "pauses of its class its link brought = CNT_PAUSE_RX";
    t.nic_paused_cycles += sys.pause_checks()[r].paused_cycles();
    t.notify += c.sent;
    t.ack += std::uint64_t{c.recv} + notify_dup_drop;
    t.arrivals += c.arrive_sent;
    t.releases += c.release_sent;
    t.group_retries += c.group_retry;
    t.nic_strays += strays;
    t.nack += c.nack_sent;
    t.retries += c.retry;
    t.nic_pfc_rx += c.pfc_rx;
    t.nic_pauses += c.pause_rx;
    for (std::size_t k = 0; k < kPktKinds; ++k) {
      nic_out.at(k) += out.packets.at(k);
      nic_in.at(k) += in.packets.at(k);
    }
  }
  std::array<std::uint64_t, kPktKinds> lost{};
  for (const auto& l : sys.links()) {
    for (std::size_t k = 0; k < kPktKinds; ++k) {
      lost.at(k) += l->ab().lost.at(k) + l->ba().lost.at(k);
    }
  }
  for (const PktKind k : {PktKind::kNotify, PktKind::kAck, PktKind::kNack, PktKind::kArrive}) {
    const auto i = static_cast<std::size_t>(k);
    TB_CHECK_EQ(nic_in.at(i) + lost.at(i), nic_out.at(i))
        << "every " << to_string(k) << " the NICs sent reached a NIC or was lost on a link";
  }
  TB_CHECK_EQ(nic_out[static_cast<std::size_t>(PktKind::kNotify)], t.notify)
      << "NOTIFYs out of the NICs = their CNT_NOTIF_SENT";

  for (unsigned h = 0; h < sys.host_count(); ++h) {
    BulkHost& host = sys.host(h);
    const Link& l = sys.host_link(h);
    const DirStats& out = l.from(host.port(0));
    const DirStats& in = l.to(host.port(0));
    const std::string who = host.name() + ": ";
    TB_CHECK_EQ(out.count(PktKind::kData), host.data_sent()) << who << "DATA out = DATA it sent";
    TB_CHECK_EQ(non_pfc(out) + out.count(PktKind::kPfc),
                out.count(PktKind::kData) + out.count(PktKind::kMgmt))
        << who << "a bulk host sends DATA and management datagrams only";
    TB_CHECK_EQ(out.count(PktKind::kMgmt), host.datagrams_sent())
        << who << "MGMT out = datagrams it sent";
    const BulkRxStats& rx = host.received();
    TB_CHECK_EQ(in.count(PktKind::kMgmt), rx.mgmt) << who << "MGMT in = datagrams it took";
    TB_CHECK_EQ(in.count(PktKind::kData), rx.data) << who << "DATA in = DATA it counted";
    TB_CHECK_EQ(in.count(PktKind::kPfc), rx.pfc) << who << "PFC frames in = frames it counted";
    TB_CHECK_EQ(rx.other, 0U) << who << "a barrier packet reached a bulk host";
    TB_CHECK_EQ(rx.bad_len, 0U) << who << "a malformed packet was forwarded to it";
    std::uint64_t paused = 0;
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      paused += sys.host_pause_checks().at(h * fmt::kNumPrio + q).paused_cycles();
    }
    TB_CHECK_EQ(paused, host.paused_cycles())
        << who << "cycles paused by the frames on its link = cycles it counted itself paused";
    t.host_pauses += rx.pauses;
    t.host_paused_cycles += paused;
    t.data_sent += host.data_sent();
    t.data_received += rx.data;
  }

  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    SwitchNode& sw = sys.sw(s);
    for (unsigned p = 0; p < sw.port_count(); ++p) {
      const std::string who = sw.name() + " port " + std::to_string(p) + ": ";
      for (const K k : {K::kDropNoRoute, K::kDropDisabled, K::kDropWd}) {
        TB_CHECK_EQ(sw.counter_all_prios(p, k), 0U) << who << fmt::to_string(k);
      }
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        for (const K k : {K::kDropWred, K::kDropBuf}) {
          const std::uint32_t n = sw.counter(p, q, k);
          TB_CHECK(n == 0 || ((rules.lossy_prios >> q) & 1U) != 0)
              << who << fmt::to_string(k) << " " << n << " on priority " << q
              << ", which is not lossy";
          (k == K::kDropWred ? t.drop_wred : t.drop_buf) += n;
        }
      }
      std::uint64_t want_bad = 0;
      for (const ExpectedBadPkt& e : rules.bad_pkts) {
        want_bad += e.sw == s && e.port == p ? e.count : 0;
      }
      const std::uint64_t bad = sw.counter_all_prios(p, K::kDropBadPkt);
      TB_CHECK_EQ(bad, want_bad) << who << "DROP_BAD_PKT";
      t.drop_bad_pkt += bad;
      const Link* l = sys.switch_link(s, p);
      const std::uint64_t rx = sw.counter_all_prios(p, K::kRx);
      const std::uint64_t tx = sw.counter_all_prios(p, K::kTx);
      const std::uint64_t pfc_tx =
          sw.counter_all_prios(p, K::kPauseTx) + sw.counter_all_prios(p, K::kResumeTx);
      if (l == nullptr) {
        TB_CHECK_EQ(rx + tx + pfc_tx, 0U) << who << "a port with no link counts nothing";
        continue;
      }
      const DirStats& in = l->to(sw.port(p));
      const DirStats& out = l->from(sw.port(p));
      std::uint64_t lost_in = 0;  // lost on the wire: never reached the port
      for (std::size_t k = 0; k < kPktKinds; ++k) {
        lost_in += k == static_cast<std::size_t>(PktKind::kPfc) ? 0 : in.lost.at(k);
      }
      TB_CHECK_EQ(rx, non_pfc(in) - lost_in)
          << who << "RX = packets in on its link that reached it (PFC frames aside)";
      TB_CHECK_EQ(tx, non_pfc(out)) << who << "TX = packets out on its link (PFC frames aside)";
      TB_CHECK_EQ(pfc_tx, out.count(PktKind::kPfc))
          << who << "PAUSE_TX + RESUME_TX = PFC frames out on its link";
      // The counters above are read from the model; the driver reads the
      // same over the switch's APB (CNT_SEL / CNT_VALUE).
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        for (const K k : {K::kRx, K::kTx, K::kDropWred, K::kDropBuf, K::kDropBadPkt}) {
          const std::uint32_t model = sw.counter(p, q, k);
          if (model != 0) {
            TB_CHECK_EQ(sw.driver().counter(p, q, k), model)
                << who << fmt::to_string(k) << " prio " << q << " over APB";
          }
        }
      }
    }
  }
  TB_CHECK_EQ(t.data_sent + t.nic_data_sent,
              t.data_received + t.nic_strays + t.drop_wred + t.drop_buf + t.drop_bad_pkt)
      << "every DATA packet a bulk host or a NIC's data path sent was received (by a host or by "
         "a NIC) or counted as a drop";
  return t;
}

void print_links(std::ostream& out, const SystemFabric& sys) {
  out << "| from | to | NOTIFY | ACK | NACK | PFC | data | flits | peak FIFO | rx stalls |\n"
      << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& l : sys.links()) {
    for (const bool ab : {true, false}) {
      const DirStats& d = ab ? l->ab() : l->ba();
      if (d.flits_in == 0) {
        continue;
      }
      out << "| " << (ab ? l->a() : l->b()).name << " | " << (ab ? l->b() : l->a()).name;
      for (const PktKind k :
           {PktKind::kNotify, PktKind::kAck, PktKind::kNack, PktKind::kPfc, PktKind::kData}) {
        out << " | " << d.count(k);
      }
      out << " | " << d.flits_in << " | " << d.peak_fifo << " | " << d.rx_stall_cycles << " |\n";
    }
  }
}

}  // namespace syncfab::tb::system
