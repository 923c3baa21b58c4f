// Barriers across every NIC of a system (or a group's members, with
// BarrierRun::group), issued as a host does it: each
// NIC's unchanged driver opens a context over the SM's LIDs (rank r = NIC r),
// arrives (the descriptor of its k-way dissemination schedule, HDQ and SDQ in
// turn or HDQ only: BarrierRun::submit) at a seeded random moment and polls its CQ; the next
// barrier is posted once the node has collected the previous one. Checked on every barrier: one CQ
// entry per NIC, status OK, the expected epoch (the first epoch + the barrier's index, the same at
// every NIC), none before the last node's post (safety), each NIC's within a bound of the last post
// computed from the fabric (liveness; BarrierResult::bound), the whole run within `limit` cycles.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "syncfab/driver/group_desc.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

// A group barrier (docs/group-barrier.md) on some of the NICs instead of
// dissemination across all of them.
struct GroupRun {
  driver::GroupBarrierKind kind = driver::GroupBarrierKind::kSwitchCombined;
  std::uint16_t mlid = 0;
  // NIC indices; member i is members[i], and the multicast-release root is
  // members[0].
  std::vector<unsigned> members{};
  // The first barrier's epoch: the one the group's combine entries wait for.
  std::uint16_t first_epoch = 1;
};

// How the hosts post their descriptors: HDQ and SDQ in turn (each node
// starts on the path its rank's parity picks, so both paths run in every
// barrier), or every one through the HDQ (the least time from post to
// packet: the latency studies' setting).
enum class SubmitMode { kAlternate, kHdq };

struct BarrierRun {
  unsigned ctx = 0;
  unsigned k = 1;                 // fan-out of the dissemination schedule
  unsigned barriers = 1;          // in a row on the context
  unsigned skew = 0;              // each post 0 .. skew cycles after the node may post
  std::uint64_t limit = 200'000;  // cycles for the whole run
  // Longest pause a PFC frame can impose on a sender (quanta x cycles per
  // quantum; 0 without PFC): the bound allows one per link of a path, each
  // way, per round.
  std::uint64_t pause_cycles = 0;
  // The longest packet of other traffic on the NICs' paths (bulk hosts' flows;
  // 0: none): at each switch a barrier packet can wait for one such packet
  // to leave its egress and one to leave its input's read port.
  unsigned other_pkt_flits = 0;
  // Every NIC posts each barrier in the same cycle (SystemFabric::
  // hold_doorbells / release_doorbells), once every NIC collected the
  // previous one; `skew` is not used. The latency of a barrier is then the
  // network's and the NICs' alone, the same measure on RTL and model.
  bool common_start = false;
  // With common_start and every > 0: `barriers` slots of `every` cycles
  // from the run's start, a barrier posted at the start of each slot once
  // the previous one is collected, so barriers sample a load at a steady
  // pace; the slots that begin while a barrier runs are skipped (fewer
  // barriers than slots: BarrierResult has one entry per barrier posted).
  // 0: `barriers` barriers, each as soon as the previous one is collected.
  std::uint64_t every = 0;
  // Cycles the run's faults may add to the liveness bound (a packet lost on
  // purpose and recovered by a re-send after GROUP_TIMEOUT).
  std::uint64_t fault_cycles = 0;
  std::optional<GroupRun> group = std::nullopt;  // set: a group barrier on its members; k unused
  SubmitMode submit = SubmitMode::kAlternate;
  // Without `group`: the NICs of the dissemination barrier, rank r = NIC
  // members[r]; empty: every NIC, rank r = NIC r. Its first epoch is
  // `first_epoch` (none: the driver's choice for a fresh context).
  std::vector<unsigned> members{};
  std::optional<std::uint16_t> first_epoch = std::nullopt;
};

struct BarrierResult {
  std::vector<std::uint16_t> epochs;     // per barrier
  std::vector<std::uint64_t> last_post;  // per barrier: cycle of the last arrive()
  // Per barrier: the last cycle an arrive() returned (after the driver's
  // descriptor writes: APB transfers on an RTL NIC, no time on a model).
  std::vector<std::uint64_t> last_posted;
  std::vector<std::uint64_t> last_done;  // per barrier: cycle of the last CQ entry
  std::uint64_t sends_per_barrier = 0;   // NOTIFYs the schedules send (group: arrivals), all NICs
  std::uint64_t cycles = 0;              // simulated cycles of the run
  std::uint64_t one_way = 0;             // uncontended one-way latency of the longest NIC path
  std::uint64_t bound = 0;               // liveness bound after the last post
  std::uint64_t worst = 0;               // largest (CQ entry - last post) seen
};

// Cycles between two host polling sweeps (the harness's hosts).
inline constexpr std::uint64_t kPollStep = 4;

// Links on the longest shortest path between two NICs of `sys` (bulk hosts
// aside): NIC to switch, the switches' hops, switch to NIC.
std::uint64_t longest_nic_path(const SystemFabric& sys);

// Throws TestFailure on any violation.
BarrierResult run_barriers(SystemFabric& sys, const BarrierRun& run, std::mt19937_64& rng);

}  // namespace syncfab::tb::system
