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

struct IncastResult {
  std::uint64_t pause_frames = 0;       // PAUSE_TX on prio, all switch ports
  std::uint64_t lossless_drops = 0;     // every DROP_* counter of prio
  double throughput = 0;                // bottleneck flits per cycle in the window
  double jain = 0;                      // over the senders' flits in the window
  std::vector<double> share;            // each sender's flits per cycle in the window
  std::uint64_t cnps = 0;               // CNPs the receiver sent
  std::uint64_t ecn_marks = 0;          // ECN_MARK at the bottleneck
  std::uint64_t delivered_packets = 0;  // DATA packets the receiver took
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

// std::invalid_argument for a configuration the switch or the NICs refuse.
IncastResult run_incast(const IncastConfig& cfg);

std::string to_string(const IncastResult& r);

}  // namespace syncfab::sim::dcqcn
