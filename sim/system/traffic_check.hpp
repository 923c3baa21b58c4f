// The traffic identities of a system, from reset (the NICs' CSR counters
// and the switches' counters count from reset, the links from start()):
// checked when every link is idle.
//
// - No flit lost: on every direction of every link, flits taken = flits sent
//   (taken + lost = sent where TrafficRules::losses allows losses).
// - Each NIC's outbound link carries what its counters say it sent: NOTIFY =
//   CNT_NOTIF_SENT, NACK = CNT_NACK_SENT, ACK = CNT_NOTIF_RECV + CNT_DUP +
//   CNT_DROP - DATA in (every NOTIFY it took is answered; a DATA packet is a
//   stray: dropped, counted, not answered); its inbound link: NOTIFY =
//   CNT_NOTIF_RECV + CNT_NACK_SENT + CNT_DUP + CNT_DROP - DATA in, ACK +
//   NACK = CNT_NOTIF_SENT, NACK = CNT_NACK_RECV, PFC = CNT_PFC_RX, and the
//   pauses of its class among them (NicPauseCheck) = CNT_PAUSE_RX.
//   Group barriers (docs/group-barrier.md): ARRIVE + COMB_ARRIVE out =
//   CNT_ARRIVE_SENT, RELEASE out = CNT_RELEASE_SENT, no COMB_RELEASE out and
//   no COMB_ARRIVE in (switches make and take those); the group packets it
//   took and did not use (beyond CNT_ARRIVE_RECV + CNT_RELEASE_RECV) are
//   duplicates or drops, taken out of CNT_DUP + CNT_DROP before the NOTIFY
//   identities above.
// - Summed over the NICs, per kind: every NOTIFY, ACK, NACK and ARRIVE a NIC
//   sent reached a NIC (no barrier packet lost).
// - Each bulk host (bulk_host.hpp): its outbound link carries DATA packets
//   and management datagrams only, as many as it sent; its inbound link DATA,
//   MGMT and PFC frames only, as many as it counted; the pauses it honoured (NicPauseCheck per
//   priority) add up to the cycles it counted itself paused. Summed over the hosts, DATA sent =
//   DATA received + the NICs' strays + the switches' DROP_WRED, DROP_BUF and DROP_BAD_PKT (every
//   bulk packet delivered or counted where it was dropped).
// - Each switch port: RX (all priorities) = packets other than PFC that came
//   in on its link (a dropped one included), TX = such packets that left on
//   it, PAUSE_TX + RESUME_TX = PFC frames that left (exact with one lossless
//   priority: a frame then names one); DROP_WRED and DROP_BUF 0 on every
//   priority not in TrafficRules::lossy_prios, DROP_BAD_PKT as the rules
//   expect it (0 elsewhere), every other drop counter 0; a port with no link
//   counts nothing; every nonzero RX, TX and drop counter read again over the
//   switch's APB.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "system_fabric.hpp"

namespace syncfab::tb::system {

// DROP_BAD_PKT expected at one switch port (summed over its priorities).
struct ExpectedBadPkt {
  unsigned sw = 0;
  unsigned port = 0;
  std::uint64_t count = 0;
};

// What a lossy load may do to the fabric; the default is a lossless system.
struct TrafficRules {
  std::uint8_t lossy_prios = 0;  // priorities whose packets may be dropped (WRED, buffer)
  std::vector<ExpectedBadPkt> bad_pkts;
  // Links may lose packets (Link::fail, Link::drop_next): flits taken +
  // lost = sent on every direction, and the per-kind sums count the lost.
  bool losses = false;
};

struct TrafficTotals {
  std::uint64_t notify = 0;  // NOTIFYs the NICs sent
  std::uint64_t ack = 0;
  std::uint64_t nack = 0;
  std::uint64_t retries = 0;            // sum of CNT_RETRY
  std::uint64_t arrivals = 0;           // group-barrier arrivals the NICs sent (CNT_ARRIVE_SENT)
  std::uint64_t releases = 0;           // RELEASEs root NICs sent (CNT_RELEASE_SENT)
  std::uint64_t group_retries = 0;      // arrivals re-sent on timeout (CNT_GROUP_RETRY)
  std::uint64_t link_packets = 0;       // packets over every directed link
  std::uint64_t pfc_frames = 0;         // PFC frames over every directed link
  std::uint64_t nic_pfc_rx = 0;         // of which the NICs took (sum of CNT_PFC_RX)
  std::uint64_t nic_pauses = 0;         // pauses of NET_CFG.TC among them (sum of CNT_PAUSE_RX)
  std::uint64_t nic_paused_cycles = 0;  // cycles a NIC's transmit was paused, summed
  std::size_t peak_fifo = 0;            // deepest receive FIFO of any link end
  std::uint64_t rx_stall_cycles = 0;    // summed over every link end
  std::uint64_t data_sent = 0;          // DATA packets the bulk hosts sent
  std::uint64_t nic_data_sent = 0;      // DATA packets the NICs' data paths sent
  std::uint64_t data_received = 0;      // ... and bulk hosts received
  std::uint64_t nic_strays = 0;         // DATA packets the NICs took (data path or CNT_DROP)
  std::uint64_t drop_wred = 0;          // summed over every switch port and priority
  std::uint64_t drop_buf = 0;
  std::uint64_t drop_bad_pkt = 0;
  std::uint64_t host_pauses = 0;         // PFC frames that paused a bulk host's priority
  std::uint64_t host_paused_cycles = 0;  // cycles x priorities a bulk host was paused, summed
};

// Throws TestFailure on any violation.
TrafficTotals check_traffic(SystemFabric& sys, const TrafficRules& rules = {});

// Per directed link with traffic: packets by kind, flits, peak FIFO.
void print_links(std::ostream& out, const SystemFabric& sys);

}  // namespace syncfab::tb::system
