// The traffic identities of a lossless system, from reset (the NICs' CSR
// counters and the switches' counters count from reset, the links from
// start()): checked when every link is idle.
//
// - No flit lost: on every direction of every link, flits taken = flits sent.
// - Each NIC's outbound link carries what its counters say it sent: NOTIFY =
//   CNT_NOTIF_SENT, NACK = CNT_NACK_SENT, ACK = CNT_NOTIF_RECV + CNT_DUP +
//   CNT_DROP (every NOTIFY it took is answered); its inbound link: NOTIFY =
//   CNT_NOTIF_RECV + CNT_NACK_SENT + CNT_DUP + CNT_DROP, ACK + NACK =
//   CNT_NOTIF_SENT, NACK = CNT_NACK_RECV, PFC = CNT_PFC_RX, and the pauses of
//   its class among them (NicPauseCheck) = CNT_PAUSE_RX.
// - Summed over the NICs: every NOTIFY sent reached a NIC (no switch drops).
// - Each switch port: RX (all priorities) = packets other than PFC that came
//   in on its link, TX = such packets that left on it, PAUSE_TX + RESUME_TX =
//   PFC frames that left (exact with one lossless priority: a frame then
//   names one); every drop counter 0; a port with no link counts nothing;
//   every nonzero RX and TX counter read again over the switch's APB.
#pragma once

#include <cstdint>
#include <iosfwd>

#include "system_fabric.hpp"

namespace syncfab::tb::system {

struct TrafficTotals {
  std::uint64_t notify = 0;  // NOTIFYs the NICs sent
  std::uint64_t ack = 0;
  std::uint64_t nack = 0;
  std::uint64_t retries = 0;            // sum of CNT_RETRY
  std::uint64_t link_packets = 0;       // packets over every directed link
  std::uint64_t pfc_frames = 0;         // PFC frames over every directed link
  std::uint64_t nic_pfc_rx = 0;         // of which the NICs took (sum of CNT_PFC_RX)
  std::uint64_t nic_pauses = 0;         // pauses of NET_CFG.TC among them (sum of CNT_PAUSE_RX)
  std::uint64_t nic_paused_cycles = 0;  // cycles a NIC's transmit was paused, summed
  std::size_t peak_fifo = 0;            // deepest receive FIFO of any link end
  std::uint64_t rx_stall_cycles = 0;    // summed over every link end
};

// Throws TestFailure on any violation.
TrafficTotals check_traffic(SystemFabric& sys);

// Per directed link with traffic: packets by kind, flits, peak FIFO.
void print_links(std::ostream& out, const SystemFabric& sys);

}  // namespace syncfab::tb::system
