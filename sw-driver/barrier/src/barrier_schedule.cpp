#include "syncfab/driver/barrier_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace syncfab::driver {

namespace {

void check_fanout(unsigned fanout) {
  if (fanout == 0 || fanout > kBarrierMaxFanout) {
    throw std::invalid_argument("barrier fan-out k = " + std::to_string(fanout) +
                                " is out of range 1.." + std::to_string(kBarrierMaxFanout));
  }
}

// Appends r unless it is self or already listed: the descriptor must never
// name a peer twice in one round.
void add_peer(std::vector<std::uint32_t>& list, std::uint32_t r, std::uint32_t self) {
  if (r != self && std::find(list.begin(), list.end(), r) == list.end()) {
    list.push_back(r);
  }
}

}  // namespace

unsigned dissemination_rounds(std::uint32_t size, unsigned fanout) {
  if (size == 0) {
    throw std::invalid_argument("barrier communicator size 0: a barrier needs at least one rank");
  }
  if (fanout == 0) {
    throw std::invalid_argument("barrier fan-out k = 0: each round must notify at least one peer");
  }
  unsigned rounds = 0;
  std::uint64_t reach = 1;  // ranks known after `rounds` rounds: (k+1)^rounds
  while (reach < size) {
    reach *= static_cast<std::uint64_t>(fanout) + 1U;
    ++rounds;
  }
  return rounds;
}

BarrierSchedule build_barrier_schedule(std::uint32_t rank, std::uint32_t size, unsigned fanout) {
  if (size == 0) {
    throw std::invalid_argument("barrier communicator size 0: a barrier needs at least one rank");
  }
  if (rank >= size) {
    throw std::invalid_argument("barrier rank " + std::to_string(rank) +
                                " is not below the communicator size " + std::to_string(size));
  }
  check_fanout(fanout);
  const unsigned rounds = dissemination_rounds(size, fanout);
  if (rounds > kBarrierMaxRounds) {
    throw std::invalid_argument("barrier of " + std::to_string(size) + " ranks with fan-out " +
                                std::to_string(fanout) + " needs " + std::to_string(rounds) +
                                " rounds; a descriptor holds at most " +
                                std::to_string(kBarrierMaxRounds));
  }

  BarrierSchedule s{rank, size, fanout, {}};
  s.rounds.resize(rounds);
  const std::uint64_t p = size;
  std::uint64_t stride = 1;  // (k+1)^round
  for (unsigned r = 0; r < rounds; ++r) {
    for (std::uint64_t m = 1; m <= fanout; ++m) {
      const std::uint64_t offset = m * stride;
      // Offsets >= p only reach ranks whose knowledge is already covered by
      // the smaller offsets of this round (they occur in the last round only).
      if (offset >= p) {
        break;
      }
      add_peer(s.rounds[r].send_to, static_cast<std::uint32_t>((rank + offset) % p), rank);
      add_peer(s.rounds[r].expect_from, static_cast<std::uint32_t>((rank + p - offset) % p), rank);
    }
    stride *= static_cast<std::uint64_t>(fanout) + 1U;
  }
  return s;
}

}  // namespace syncfab::driver
