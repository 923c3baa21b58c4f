// Barriers across every NIC of a system, issued as a host does it: each
// NIC's unchanged driver opens a context over the SM's LIDs (rank r = NIC r),
// arrives (the descriptor of its k-way dissemination schedule, HDQ and SDQ in
// turn) at a seeded random moment and polls its CQ; the next barrier is
// posted once the node has collected the previous one. Checked on every
// barrier: one CQ entry per NIC, status OK, the expected epoch (the first
// epoch + the barrier's index, the same at every NIC), none before the last
// node's post (safety), all within `limit` cycles (liveness).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "system_fabric.hpp"

namespace syncfab::tb::system {

struct BarrierRun {
  unsigned ctx = 0;
  unsigned k = 1;                 // fan-out of the dissemination schedule
  unsigned barriers = 1;          // in a row on the context
  unsigned skew = 0;              // each post 0 .. skew cycles after the node may post
  std::uint64_t limit = 200'000;  // cycles for the whole run
};

struct BarrierResult {
  std::vector<std::uint16_t> epochs;     // per barrier
  std::vector<std::uint64_t> last_post;  // per barrier: cycle of the last arrive()
  std::vector<std::uint64_t> last_done;  // per barrier: cycle of the last CQ entry
  std::uint64_t sends_per_barrier = 0;   // NOTIFYs the schedules send, all NICs
  std::uint64_t cycles = 0;              // simulated cycles of the run
};

// Throws TestFailure on any violation.
BarrierResult run_barriers(SystemFabric& sys, const BarrierRun& run, std::mt19937_64& rng);

}  // namespace syncfab::tb::system
