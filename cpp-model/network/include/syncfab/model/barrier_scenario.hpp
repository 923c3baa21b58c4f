// A barrier workload on a Fabric, with the checks of DESIGN §5: every node
// runs `barriers` consecutive barriers on each of `contexts` contexts; each
// node's host takes its descriptor from the model's own reading of the
// schedule (dissemination.hpp, never the driver's builder), submits it (HDQ by
// PIO or SDQ ring + doorbell, chosen at random), polls its completion queue,
// and arrives at the next barrier a random skew after leaving the previous
// one. Malformed descriptors can be mixed in; each must complete with its
// error code and disturb nothing.
//
// Every NIC is set to one traffic class and pause quantum (NET_CFG,
// PFC_CFG), and its link may send it PFC frames (pause_interval): the
// barriers then run on a lossless link that pauses the NICs now and then.
//
// Checked on every run: safety (no node completes a barrier before every
// node has posted it), liveness (every node completes within
// liveness_bound() cycles of the last post), the right completion entries and
// completion writes, and the counter identities of a lossless fabric
// (docs/nic/programming.md "Counters"), CNT_PFC_RX and CNT_PAUSE_RX against
// the frames the links sent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <syncfab/hw/nic_regs.hpp>

#include "syncfab/model/fabric.hpp"

namespace syncfab::model {

struct ScenarioConfig {
  unsigned x = 4, y = 4, z = 8;  // torus; every node takes part (rank = node)
  unsigned fanout = 2;           // k of the schedule
  unsigned contexts = 1;         // contexts used at once (<= num_ctx)
  unsigned barriers = 3;         // consecutive barriers per context
  unsigned hop_latency = 10;
  unsigned nic_latency = 4;
  unsigned max_skew = 300;                           // arrival skew, uniform 0..max_skew cycles
  unsigned num_ctx = 8;                              // contexts the NICs implement
  unsigned damq_entries = 16;                        // request-DAMQ capacity per NIC
  unsigned retry_delay = 64;                         // RETRY_DELAY
  double malformed = 0.0;                            // chance a submission is preceded by a bad one
  double sdq_share = 0.5;                            // chance a submission goes through the SDQ
  unsigned traffic_class = hw::nic::kNetCfgTcReset;  // NET_CFG.TC
  unsigned cyc_per_quantum = hw::nic::kPfcCfgCycPerQuantumReset;  // PFC_CFG.CYC_PER_QUANTUM
  // The links pause the NICs: a PFC frame every pause_interval ..
  // 2 * pause_interval cycles per NIC (0: never), each class asking for
  // 1 .. pause_quanta quanta or resuming (LinkPauses).
  unsigned pause_interval = 0;
  unsigned pause_quanta = 16;
  std::uint64_t seed = 1;
  std::uint64_t cycle_limit = 20'000'000;
  bool trace = false;  // print every NIC's event trace
};

struct BarrierTiming {
  unsigned ctx = 0;
  unsigned index = 0;              // n-th barrier on the context
  std::uint64_t last_arrival = 0;  // latest post over all nodes
  std::uint64_t first_done = 0;    // earliest completion seen by a host
  std::uint64_t last_done = 0;     // latest completion seen by a host
};

struct ScenarioResult {
  std::vector<std::string> violations;  // empty: every check passed
  std::vector<BarrierTiming> barriers;
  std::uint64_t cycles = 0;
  std::uint64_t liveness_bound = 0;
  std::uint64_t malformed_posted = 0;
  std::uint64_t packets = 0;
  std::uint64_t counters[kNumCounters] = {};  // summed over all NICs
  double wall_seconds = 0;

  [[nodiscard]] bool ok() const noexcept { return violations.empty(); }
  // "seed 7: 3 violation(s): ..." for test output.
  [[nodiscard]] std::string summary() const;
};

// Cycles within which every node completes once the last node has posted.
std::uint64_t liveness_bound(const ScenarioConfig& cfg);

ScenarioResult run_barrier_scenario(const ScenarioConfig& cfg);

}  // namespace syncfab::model
