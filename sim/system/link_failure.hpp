// A link that fails mid-run, and what the subnet manager and the hosts do
// about it: the SM's fabric without the link (sm::Fabric::disconnect),
// routed again (route_around), the switches whose entries changed
// reprogrammed through their own drivers, changed entries only, each read
// back (reprogram_changed); which barriers the lost packets leave unable to
// complete (predict_stuck: the NIC has no ACK timeout, so a NOTIFY, ACK or
// NACK lost on the link is never re-sent); the host's recovery (close and
// reopen every NIC's driver: reopen_nics); and the traffic identities of a
// phase in which a link may have lost packets (check_traffic_since).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nic_fabric_scenario.hpp"
#include "routing.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

// The link's switch end in SM terms (a NIC link: the leaf's end).
struct SmPort {
  sm::NodeId node = sm::kNoNode;
  sm::PortNum port = 0;
};
SmPort sm_port_of(SystemFabric& sys, const Link& link);

// The SM's fabric of `sys` without `link`: node ids, names and LIDs kept.
sm::Fabric fabric_without(SystemFabric& sys, const Link& link);

// The SM's routing of a fabric that lost a link. Up*/down* routes (FTREE,
// UPDN) cannot take a spine that lost its link to a leaf down to that leaf
// (the way round goes down, up and down again), so that switch has no LFT
// entry for the leaf's NICs; no NIC's path passes it, and the rule checked
// is that every NIC reaches every NIC (from its leaf), not every switch.
struct Rerouting {
  SystemRouting routing;     // its unicast names the engine used
  std::string why_fallback;  // why opts.unicast refused the fabric (empty: it did not)
  // (switch, NIC) pairs with no LFT entry: no NIC's path passes them.
  std::vector<std::pair<sm::SwitchIdx, sm::NodeId>> unreached;
};

// Routes `degraded` with opts.unicast or, when some NIC does not reach
// another with it, with UPDN (std::invalid_argument naming the NICs when
// neither does); FULB-MC (opts.mc) on opts' groups (the same pattern and
// seed: the same groups as before), every tree checked (sm::check_tree,
// std::invalid_argument naming the group).
Rerouting route_around(const sm::Fabric& degraded, const RoutingOptions& opts);

// TestFailure if an LFT entry or an MFT port mask of `r` sends a packet onto
// `link` (its ports in `sys`).
void check_avoids(SystemFabric& sys, const SystemRouting& r, const Link& link);

struct RerouteReport {
  unsigned switches = 0;        // switches with at least one changed entry
  std::size_t lft_set = 0;      // LFT entries written (new or changed port)
  std::size_t lft_cleared = 0;  // LFT entries cleared (no route any more)
  std::size_t mft_set = 0;
  std::size_t mft_cleared = 0;
  std::uint64_t cycles = 0;  // simulated cycles of the writes and read-backs
};

// Writes into each switch, through its driver and with the switch enabled
// (an entry write is one table access: a packet looks up the old entry or the
// new one), only the entries that differ between `before` and `after`, then
// reads every written entry back (std::runtime_error naming the switch and
// the LID or MLID).
RerouteReport reprogram_changed(SystemFabric& sys, const SystemRouting& before,
                                const SystemRouting& after);

// Per rank: true when barrier (ctx, epoch) cannot complete at that NIC given
// the packets of it lost in `lost`. A NIC sends round s once it heard every
// peer of rounds < s; a NOTIFY lost (or NACKed with the NACK lost) is never
// heard, an ACK lost leaves its sender waiting. `schedules` and `lids` are in
// rank order.
std::vector<bool> predict_stuck(std::span<const driver::BarrierSchedule> schedules,
                                std::span<const std::uint16_t> lids, unsigned ctx,
                                std::uint16_t epoch, std::span<const LostPacket> lost);

// Closes every NIC's driver (Nic::close: the drain, then the engine disabled
// and soft-reset), lets the fabric empty (a disabled NIC NACKs what still
// arrives, a reset one drops stray responses), then opens a new driver on
// every NIC. Returns per rank the barriers close() abandoned. TestFailure if
// the fabric is not empty `limit` cycles after the last close.
std::vector<unsigned> reopen_nics(SystemFabric& sys, const driver::NicOptions& opts,
                                  std::uint64_t limit);

// Waits until every link is empty; TestFailure after `limit` cycles.
void wait_idle(SystemFabric& sys, std::uint64_t limit, const std::string& what);

// The counters of links, NICs and switches at a moment, for the identities
// of what follows it.
struct TrafficMark {
  std::vector<DirStats> ab;  // per link
  std::vector<DirStats> ba;
  std::vector<std::size_t> lost;  // per link: lost() entries
  std::vector<fabric::Counters> nics;
  std::vector<std::vector<std::uint64_t>> sw_rx;  // per switch, port: RX, all priorities
  std::vector<std::vector<std::uint64_t>> sw_tx;
};
TrafficMark mark_traffic(SystemFabric& sys);

struct PhaseTraffic {
  std::uint64_t notify = 0;  // NOTIFYs the NICs sent
  std::uint64_t ack = 0;
  std::uint64_t nack = 0;
  std::uint64_t lost_notify = 0;  // lost on failed links
  std::uint64_t lost_ack = 0;
  std::uint64_t lost_nack = 0;
  std::uint64_t lost_flits = 0;
  std::uint64_t link_packets = 0;
};

// The identities of check_traffic over what happened since `mark` (no NIC
// reset in between: a soft reset drops NACKed re-sends), with the losses of
// failed links accounted: every direction's flits taken + lost = sent (no
// loss on a link that has not failed); per NIC, NOTIFY, NACK and ACK out as
// its counters say, NOTIFYs in = RECV + NACK_SENT + DUP + DROP, ACK + NACK in
// + the responses to it that were lost = NOTIF_SENT - its NOTIFYs that were
// lost, NACK in = NACK_RECV = RETRY; summed, every NOTIFY sent reached a NIC
// or was lost; per switch port, RX = packets that arrived on its link, TX =
// packets that left into it, every drop counter 0 from reset (a switch does not
// know the link failed). Throws TestFailure.
PhaseTraffic check_traffic_since(SystemFabric& sys, const TrafficMark& mark);

}  // namespace syncfab::tb::system
