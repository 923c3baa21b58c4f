// An incast on the golden models: N golden NICs with the data path each run
// one flow into one receiving NIC through one golden switch (WRED/ECN on the
// bottleneck queue, PFC on the flows' priority on every port), with DCQCN on
// or off (PFC only). Every link is `link_delay` cycles each way, store and
// forward at both ends. Figures: pause frames, bottleneck throughput, per
// flow rates and their Jain index, lossless drops (docs/nic/dcqcn.md §8).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <syncfab/model/ecn_controller.hpp>

namespace syncfab::sim::dcqcn {

struct IncastConfig {
  unsigned senders = 8;
  unsigned payload_flits = 15;  // 16-flit DATA packets
  std::uint64_t cycles = 400000;
  std::uint64_t warmup = 100000;  // figures count from here to the end (switch counters: whole run)
  unsigned link_delay = 8;
  unsigned prio = 3;       // the flows' lossless priority
  bool dcqcn = true;       // false: CTRL.RP_ENABLE = NP_ENABLE = 0 (PFC only)
  std::uint64_t seed = 1;  // senders start within start_spread cycles, seeded
  unsigned start_spread = 64;
  // Switch: per-ingress buffer, PFC thresholds (cells), WRED on the
  // bottleneck's queue.
  unsigned buf_cells = 1024;
  unsigned xoff = 256;
  unsigned xon = 128;
  unsigned quanta = 32;
  unsigned kmin = 64;
  unsigned kmax = 512;
  unsigned pmax = 64;  // /256 at Kmax
  // DCQCN times scaled to the run (the defaults are 55 us = 55000 cycles).
  std::uint32_t cnp_interval = 500;
  std::uint32_t alpha_timer = 550;
  std::uint32_t rate_timer = 550;
  std::uint32_t byte_counter = 65536;

  // Time series and barriers through the congested fabric
  // (docs/congestion-scenarios.md).
  bool flows = true;               // false: the idle fabric (barriers alone)
  std::uint64_t sample_every = 0;  // cycles per time-series sample; 0: none
  // Every NIC (the senders and the receiver) runs one dissemination barrier
  // every barrier_every cycles from barrier_first (0: no barriers); a
  // barrier still running when the next is due delays it (the missed slots
  // are skipped), and none is posted in the last barrier_every cycles of
  // the run, so only a barrier slower than barrier_every can be left
  // running at the end.
  std::uint64_t barrier_every = 0;
  std::uint64_t barrier_first = 1000;
  unsigned barrier_fanout = 1;
  // The barriers' priority (every NIC's NET_CFG.TC): lossless (PFC on every
  // port, its own thresholds) and strict priority at the switch's egress.
  // Equal to prio: the barriers share the flows' class.
  unsigned barrier_prio = 5;
  unsigned barrier_xoff = 64;
  unsigned barrier_xon = 32;

  // Fan-in schedule: from cycle `at` on, senders 0..active-1 send (a sender
  // coming back starts a fresh flow) and the others stop. Empty: every
  // sender from its start to the end.
  struct FaninStep {
    std::uint64_t at = 0;
    unsigned active = 0;
  };
  std::vector<FaninStep> fanin;
  unsigned join_spread = 0;  // senders joining at a step start within this many cycles of it
  // Dynamic ECN thresholds on the bottleneck queue (docs/switch-ecn-dynamic.md):
  // ecn_dyn's registers with EN set for prio; kmin/kmax/pmax are then the
  // static registers the law starts from.
  bool ecn_dynamic = false;
  model::EcnDynConfig ecn_dyn{};
};

// One time-series sample: the interval (end - length, end] of cycles.
struct IncastSample {
  std::uint64_t end = 0;
  std::uint64_t length = 0;
  std::vector<std::uint64_t>
      flow_flits;                      // flits (header too) of each sender handed to the receiver
  std::vector<double> flow_rate;       // each sender's RC at the end, fraction of the line
  std::uint32_t queue_cells = 0;       // bottleneck queue (rx port, prio) at the end
  std::uint32_t queue_max = 0;         // its largest value in the interval
  std::uint64_t pause_tx = 0;          // PAUSE_TX on prio, all switch ports
  std::uint64_t pause_rx = 0;          // frames pausing prio the senders took (XOFF, refresh)
  std::uint64_t paused_cycles = 0;     // sender cycles with prio paused (summed over senders)
  std::uint64_t barrier_pause_tx = 0;  // PAUSE_TX on barrier_prio (when separate)
  std::uint64_t ecn_marks = 0;         // ECN_MARK at the bottleneck
  std::uint64_t cnps = 0;              // CNPs the receiver sent
  std::uint64_t barriers_done = 0;     // barriers completed everywhere
};

// One barrier: posted on every NIC in cycle `posted`; latency = the last
// NIC's completion cycle - posted.
struct BarrierRecord {
  std::uint64_t posted = 0;
  std::uint64_t latency = 0;
};

struct BarrierStats {
  std::size_t count = 0;
  std::uint64_t median = 0;
  std::uint64_t p99 = 0;  // nearest rank
  std::uint64_t max = 0;
};

struct IncastResult {
  std::uint64_t pause_frames = 0;       // PAUSE_TX on prio, all switch ports
  std::uint64_t lossless_drops = 0;     // every DROP_* counter of prio
  double throughput = 0;                // bottleneck flits per cycle in the window
  double jain = 0;                      // over the senders' flits in the window
  std::vector<double> share;            // each sender's flits per cycle in the window
  std::uint64_t cnps = 0;               // CNPs the receiver sent
  std::uint64_t ecn_marks = 0;          // ECN_MARK at the bottleneck
  std::uint64_t delivered_packets = 0;  // DATA packets the receiver took

  std::uint64_t delivered_flits = 0;       // their payload flits (the receiver's counter)
  std::uint64_t rx_link_flits = 0;         // flits on the receiver's link not yet taken at the end
  std::uint64_t barrier_pause_frames = 0;  // PAUSE_TX on barrier_prio (when separate)
  std::vector<IncastSample> series;        // sample_every > 0
  std::vector<BarrierRecord> barriers;     // completed, in order
  std::uint64_t barriers_posted = 0;
  std::uint64_t barriers_failed = 0;  // a completion with a status other than OK

  // Bottleneck queue length (cells) sampled every cycle of the window.
  std::uint32_t qlen_p99 = 0;
  std::uint32_t qlen_max = 0;
  double qlen_mean = 0;
  // The bottleneck queue's dynamic-ECN state over the window (the static
  // Pmax and shift 0 when the law is off).
  unsigned ecn_level_min = 0;
  unsigned ecn_level_max = 0;
  unsigned ecn_shift_max = 0;
};

// The barriers posted at or after `from` (cycle).
BarrierStats barrier_stats(const IncastResult& r, std::uint64_t from);

// std::invalid_argument for a configuration the switch or the NICs refuse.
IncastResult run_incast(const IncastConfig& cfg);

std::string to_string(const IncastResult& r);

}  // namespace syncfab::sim::dcqcn
