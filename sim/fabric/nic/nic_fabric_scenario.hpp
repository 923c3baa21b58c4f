// Barrier scenarios on the verilated fabric (nic_fabric.hpp): every node's
// host posts its own descriptor through its own driver with a seeded random
// skew, polls its CQ, and posts the next barrier a random gap after leaving
// the previous one. Checks on every run: safety (no CQ entry before the last
// node posted), liveness (every CQ entry within a bound of the last post),
// every entry OK and exactly once, the counter identities of a lossless
// fabric (docs/barrier-protocol.md §10, docs/nic/programming.md "Counters"),
// with the PFC counters equal to the frames the links sent.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nic_fabric.hpp"
#include "syncfab/hw/device.hpp"

namespace syncfab::tb::fabric {

struct Flow {
  unsigned ctx = 0;
  unsigned k = 1;
  unsigned barriers = 1;
};

struct Scenario {
  std::vector<Flow> flows;
  unsigned skew = 0;  // first post of each node: 0 .. skew cycles after start
  unsigned gap = 0;   // next post: 0 .. gap cycles after collecting the last
  std::uint32_t retry_delay = 16;
  // Node `late_node` posts its first barrier `late` cycles after the start
  // (the others within skew): NOTIFYs pile up in its request DAMQ.
  unsigned late_node = 0;
  unsigned late = 0;
  // Every node's first barrier of every flow is posted in the same cycle
  // (doorbells held, then released together: Fabric::release_doorbells);
  // needs skew = late = 0. Off: posts are served one host after another.
  bool common_start = false;
  // Submission path of every post; unset: HDQ and SDQ alternate over node,
  // flow and barrier.
  std::optional<driver::SubmitPath> path{};
  // Chance that a post is preceded, on the same path, by a malformed
  // descriptor of the same context (bad opcode, too many rounds, k above
  // K_MAX, k = 0 in turn), submitted raw; it must complete with DESC_ERROR and
  // its code while the barrier still completes OK everywhere.
  double malformed = 0.0;
  // PFC frames toward the NICs while the scenario runs (Network::start_pauses);
  // unset: none. The liveness bound grows by four pauses a round (a NOTIFY,
  // a NACK, the re-send and the ACK may each wait for one).
  std::optional<PauseSpec> pauses{};
};

struct BarrierFigure {
  unsigned ctx = 0;
  unsigned k = 1;
  unsigned barrier = 0;
  std::uint64_t first_post = 0;
  std::uint64_t last_post = 0;      // arrive() called
  std::uint64_t last_returned = 0;  // last arrive() returned (descriptor handed over)
  std::uint64_t last_done = 0;      // last CQ entry written (hardware)
  double mean_done = 0;             // mean over nodes of (CQ entry - last post)
};

struct ScenarioResult {
  std::vector<BarrierFigure> barriers;
  std::uint64_t bound = 0;          // liveness bound used
  std::uint64_t worst = 0;          // largest (CQ entry - last post) seen
  std::uint64_t nack_sent = 0;      // sum of CNT_NACK_SENT
  std::uint64_t retries = 0;        // sum of CNT_RETRY
  std::uint64_t notif_sent = 0;     // sum of CNT_NOTIF_SENT
  std::uint64_t cycles = 0;         // simulated cycles of the scenario
  std::uint64_t ahead = 0;          // posts of barrier n+1 before another node's CQ entry of n
  std::uint64_t malformed = 0;      // malformed descriptors posted (each checked)
  std::uint64_t pfc_frames = 0;     // PFC frames the NICs took (sum of CNT_PFC_RX)
  std::uint64_t pauses = 0;         // of which pauses of NET_CFG.TC (sum of CNT_PAUSE_RX)
  std::uint64_t paused_cycles = 0;  // cycles a NIC's transmit was paused, summed over nodes
};

// A NIC's CSR event counters (they count from reset; scenarios use differences).
struct Counters {
  std::uint32_t sent = 0, recv = 0, nack_sent = 0, nack_recv = 0, retry = 0, completion = 0,
                error = 0, drop = 0, dup = 0, pfc_rx = 0, pause_rx = 0;
  // Group barriers (docs/group-barrier.md).
  std::uint32_t arrive_sent = 0, arrive_recv = 0, release_sent = 0, release_recv = 0,
                group_retry = 0;
  // The management mailbox (docs/group-protocol.md).
  std::uint32_t mgmt_sent = 0, mgmt_recv = 0;
  Counters operator-(const Counters& o) const {
    return {sent - o.sent,
            recv - o.recv,
            nack_sent - o.nack_sent,
            nack_recv - o.nack_recv,
            retry - o.retry,
            completion - o.completion,
            error - o.error,
            drop - o.drop,
            dup - o.dup,
            pfc_rx - o.pfc_rx,
            pause_rx - o.pause_rx,
            arrive_sent - o.arrive_sent,
            arrive_recv - o.arrive_recv,
            release_sent - o.release_sent,
            release_recv - o.release_recv,
            group_retry - o.group_retry,
            mgmt_sent - o.mgmt_sent,
            mgmt_recv - o.mgmt_recv};
  }
};
// CNT_NOTIF_SENT .. CNT_MGMT_RECV over the device's CSRs.
Counters read_counters(hw::Device& d);

// Driver options of every node (retry delay as the scenario's): the one-NIC
// bench's.
using nic_top::nic_options;
// Runs the scenario on a fabric already brought up; throws TestFailure.
ScenarioResult run_scenario(Fabric& fab, const Scenario& sc, std::mt19937_64& rng);
void print(const std::string& name, Fabric& fab, const ScenarioResult& r);

}  // namespace syncfab::tb::fabric
