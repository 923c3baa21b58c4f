// The golden fabric against the RTL fabric: the same SM fabric, routing,
// barrier scenario and drivers, run once on each; record() keeps what a run
// leaves and compare() asserts the two agree (throws TestFailure naming the
// node, link or counter). The rules (docs/system-fabric.md, "The golden
// fabric"):
//  - per NIC and context, its completion records in order: epoch, status,
//    error (contexts that run at once interleave by timing);
//  - per directed link, ACKs exact; NOTIFYs and NACKs exact when neither run
//    saw a NACK, otherwise within the larger run's NACK total (a NACK is a
//    timing outcome: a full request DAMQ; each one adds one NACK and one
//    re-sent NOTIFY to the links of one path); PFC frames excluded (their
//    count is a timing outcome; without PFC both runs must send none);
//  - per NIC, every counter exact except CNT_NOTIF_SENT, CNT_NACK_SENT,
//    CNT_NACK_RECV and CNT_RETRY, which must agree within that same NACK
//    allowance, with CNT_NOTIF_SENT - CNT_RETRY exact, and, when PFC frames
//    crossed the links (in both runs or in neither), CNT_PFC_RX and
//    CNT_PAUSE_RX;
//  - per switch port, RX and TX (all priorities) exact, or within the NACK
//    allowance (twice it: a NOTIFY re-sent and its NACK) when a run saw one;
//  - the barrier latency (mean over the run's barriers of last completion -
//    the cycle the last arrive() returned: an RTL NIC's descriptor writes
//    take bus cycles, a model's none) RTL / model within the band.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "barrier_run.hpp"
#include "nic_fabric_scenario.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

struct FabricRecord {
  std::string label;                              // "RTL", "model", for messages
  std::vector<std::vector<nic_top::CqWrite>> cq;  // per NIC, in order
  std::vector<fabric::Counters> counters;         // per NIC
  // Per link (the fabric's order), per direction (a -> b, b -> a), packets by kind.
  std::vector<std::array<std::array<std::uint64_t, kPktKinds>, 2>> links;
  std::vector<std::string> link_names;  // per link, "a <-> b"
  // Per switch, per port: RX and TX summed over the priorities.
  std::vector<std::vector<std::array<std::uint64_t, 2>>> switch_rx_tx;
  double latency = 0;            // mean over barriers of (last completion - last_posted), cycles
  std::uint64_t nacks = 0;       // NACKs the NICs sent
  std::uint64_t pfc_frames = 0;  // over every directed link
};

// After the run (links idle): what compare() needs.
FabricRecord record(SystemFabric& sys, const BarrierResult& run, std::string label);

// Bounds of RTL / model barrier latency.
struct CompareBand {
  double lo = 0;
  double hi = 0;
};

// Throws TestFailure on the first rule broken; returns RTL / model latency.
double compare(const FabricRecord& rtl, const FabricRecord& model, const CompareBand& band);

}  // namespace syncfab::tb::system
