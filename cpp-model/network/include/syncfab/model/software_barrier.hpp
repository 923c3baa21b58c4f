// The same dissemination schedule run by host software instead of the NIC,
// on the same torus latencies, as the comparison of the latency study. Each
// host handles one thing at a time: posting a send costs o_send, noticing one
// arrived message costs o_poll (after it has arrived). A rank starts round
// s+1 once it has posted its round-s sends and handled every round-s message.
// With both overheads 0 this is the schedule's pure network critical path, a
// lower bound for any implementation of the schedule on this network.
#pragma once

#include <cstdint>

#include "syncfab/model/torus.hpp"

namespace syncfab::model {

struct SoftwareCosts {
  std::uint64_t o_send = 0;       // host cycles to post one message
  std::uint64_t o_poll = 0;       // host cycles to notice one arrived message
  std::uint64_t nic_latency = 4;  // as FabricConfig
  std::uint64_t hop_latency = 10;
};

struct SoftwareBarrier {
  std::uint64_t latency = 0;  // cycles until the last rank leaves
  double mean_one_way = 0;    // mean network latency of the schedule's messages
  unsigned rounds = 0;
};

// All ranks (one per torus node) enter at cycle 0.
SoftwareBarrier software_barrier(const Torus3D& torus, unsigned fanout, const SoftwareCosts& c);

}  // namespace syncfab::model
