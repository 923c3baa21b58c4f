// The fat-tree incast of switch_fabric.incast_8to1_ecmp on the system fabric,
// with and without ECMP, while NICs run barriers through it
// (docs/congestion-scenarios.md, "ECMP on the fat-tree incast").
//
// The fabric: the switch test's leaf-spine (3 leaves, 4 spines; every leaf
// hosts h0..h3 on ports 0-3 and one uplink per spine on ports 4-7, every
// spine one port per leaf) with 4 NICs more on every leaf (ports 8-11: the
// leaves are 16-port switches). h0..h11 are bulk hosts (bulk_host.hpp),
// n0..n11 the NICs. h1..h8 send to h0 on a lossless priority (PFC on every
// port), `flows_per_sender` flows each (one flow label each, as a host runs
// several queue pairs; sequential labels, or pseudo-random ones as RFC 6437
// asks of a host); the routing is FTREE, with or without ECMP port
// groups, programmed through the switches' drivers (routing.hpp). Every NIC
// runs a dissemination barrier every `barrier_every` cycles on its own
// lossless, strict-priority class.
//
// Per sample of `sample_every` cycles: the flits each sender delivered, the
// buffered cells of the flows' priority where the incast queues, the pause
// frames, the barriers completed. Run figures: Jain over the senders, the
// bottleneck throughput, out-of-order packets per flow, lossless drops, the
// barriers' latency (one CQ entry per NIC, status OK, run_barriers' checks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "node.hpp"
#include "syncfab/sm/fabric.hpp"

namespace syncfab::tb::system {

// How a sender labels its flows: 20 pseudo-random bits each, drawn from the
// run's seed (a host's flow labels should be uniformly distributed, RFC
// 6437, so that hashes of them spread), or its index x 256 + the flow's
// (labels that differ in their low bits only).
enum class FlowLabels : std::uint8_t { kRandom, kSequential };

struct EcmpIncastConfig {
  bool ecmp = false;
  Backend backend = Backend::kModel;  // every node
  bool flows = true;                  // false: the idle fabric (barriers alone)
  unsigned senders = 8;               // h1..h<senders>, to h0
  unsigned flows_per_sender = 8;
  FlowLabels labels = FlowLabels::kSequential;
  unsigned len_flits = 16;
  unsigned flow_prio = 3;
  unsigned switch_delay = 8;  // cycles on a switch-switch link
  unsigned host_delay = 4;    // on a host or NIC link
  // PFC on the flows' priority (the switch test's), and on the barriers'.
  unsigned xoff = 64;
  unsigned xon = 32;
  unsigned quanta = 32;
  unsigned cycles_per_quantum = 8;
  unsigned barrier_prio = 5;  // == flow_prio: the barriers share the flows' class
  unsigned barrier_xoff = 16;
  unsigned barrier_xon = 8;
  unsigned barrier_k = 1;
  // Cycles from the flows' start (t0): the run, the figures' window from
  // `warmup` to `cycles`, the samples, the barriers (the first at
  // barrier_first, then every barrier_every, none in the last barrier_every).
  std::uint64_t cycles = 60'000;
  std::uint64_t warmup = 10'000;
  std::uint64_t sample_every = 1000;
  std::uint64_t barrier_first = 500;
  std::uint64_t barrier_every = 1000;
  std::uint64_t seed = 1;  // the senders' start within 4 packets, the hosts' sweeps
  // DCQCN instead of the bulk hosts: the senders are the NICs n1..n<senders>
  // (n1-n3 on leaf0, n4-n7 on leaf1, n8 on leaf2, as h1..h8), each with
  // flows_per_sender (<= NUM_FLOWS) data-path flows of len_flits-flit DATA
  // packets to n0 (driver::DataFlows, one flow label each, RP and NP on);
  // WRED/ECN on the flows' priority at every switch egress; the bulk hosts
  // idle. The NICs' PFC covers the flows' priority too. DCQCN's times are
  // scaled to the run as in sim/dcqcn (incast.hpp).
  bool dcqcn = false;
  std::uint32_t cnp_interval = 500;
  std::uint32_t alpha_timer = 550;
  std::uint32_t rate_timer = 550;
  std::uint32_t byte_counter = 65536;
  unsigned kmin = 64;
  unsigned kmax = 512;
  unsigned pmax = 64;  // /256 at Kmax
};

// One sample: cycles (end - length, end] after t0.
struct EcmpSample {
  std::uint64_t end = 0;
  std::uint64_t length = 0;
  // Per sender: DATA flits (header too) h0 took; with dcqcn, the flits the
  // sender's data path sent (CNT_DATA_TX_FLITS: n0 counts no sender).
  std::vector<std::uint64_t> flits;
  // Cells of the flows' priority buffered, summed over a set of switch
  // ingress ports, at the end and the largest sum in the interval.
  struct Queue {
    std::uint32_t end = 0;
    std::uint32_t max = 0;
  };
  std::vector<Queue> queues;               // per EcmpIncastResult::queue_names
  std::uint64_t pause_tx = 0;              // PAUSE_TX of the flows' priority, every switch port
  std::vector<std::uint64_t> pause_tx_at;  // the same per EcmpIncastResult::pause_names
  std::uint64_t host_pauses = 0;           // frames that paused a sender
  std::uint64_t barrier_pause_tx = 0;      // PAUSE_TX of the barriers' priority (own class)
  std::uint64_t barriers_done = 0;         // barriers whose last completion fell in the interval
};

struct EcmpBarrier {
  std::uint64_t posted = 0;   // cycle after t0
  std::uint64_t latency = 0;  // last CQ entry - post (every NIC posts in one cycle)
};

struct EcmpLatency {
  std::size_t count = 0;
  std::uint64_t median = 0;
  std::uint64_t p99 = 0;  // nearest rank
  std::uint64_t max = 0;
};

struct EcmpIncastResult {
  std::vector<std::string> sender_names;
  std::vector<std::string> queue_names;
  std::vector<std::string> pause_names;
  std::vector<EcmpSample> series;
  std::vector<EcmpBarrier> barriers;
  double jain = 0;            // over the senders' flits in the window
  double throughput = 0;      // h0's DATA flits per cycle in the window
  std::vector<double> share;  // per sender, flits per cycle in the window
  std::uint64_t flows = 0;    // flows h0 received from
  // Summed over the flows (bulk_host.hpp's BulkRxFlow); with dcqcn 0: the
  // NIC's data path counts no order.
  std::uint64_t out_of_order = 0;
  std::uint64_t data_sent = 0;  // DATA packets the senders sent
  std::uint64_t data_received = 0;
  std::uint64_t data_flits = 0;  // h0's count of the DATA flits it took (bulk host's own)
  // Flits h0 took from the senders after the run's last sample (draining).
  std::uint64_t flits_after_end = 0;
  std::uint64_t lossless_drops = 0;  // every DROP_* of the flows' and barriers' priorities
  std::uint64_t pause_frames = 0;    // PAUSE_TX of the flows' priority, the whole run
  std::uint64_t barrier_pause_frames = 0;
  std::uint64_t host_pauses = 0;
  std::uint64_t barriers_posted = 0;
  std::uint64_t port_groups = 0;    // written into the switches
  std::uint64_t group_entries = 0;  // LFT entries naming a group
  // Barrier sends (schedule pairs) that can take an egress the incast
  // takes, of all the schedule's sends; and those egresses, as names.
  std::uint64_t crossing_sends = 0;
  std::uint64_t schedule_sends = 0;
  std::vector<std::string> shared_egresses;
  std::uint64_t fabric_cycles = 0;  // simulated after t0, drain included
  // With dcqcn: CNPs n0 sent and the senders took, ECN marks on the flows'
  // priority (every switch port), DATA packets n0's data path dropped.
  std::uint64_t cnps = 0;
  std::uint64_t cnps_received = 0;
  std::uint64_t ecn_marks = 0;
  std::uint64_t data_drops = 0;
};

// The barriers posted at or after `from` (cycle after t0).
EcmpLatency latency_stats(const EcmpIncastResult& r, std::uint64_t from);

// The fabric described above (the SM's model of it; names as above).
sm::Fabric ecmp_incast_fabric();

// Runs the scenario in ctx's simulation; throws std::invalid_argument for a
// bad configuration (naming the field), TestFailure when a check fails.
EcmpIncastResult run_ecmp_incast(TestContext& ctx, const EcmpIncastConfig& cfg);

}  // namespace syncfab::tb::system
