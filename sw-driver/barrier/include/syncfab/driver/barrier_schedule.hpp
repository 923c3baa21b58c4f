// The k-way dissemination schedule of one rank, computed from (rank, size,
// fan-out) alone, as the NIC runs it (docs/barrier-protocol.md, DESIGN §5a).
//
// Form: in round s, rank i notifies (i + m*(k+1)^s) mod p and expects
// (i - m*(k+1)^s) mod p for m = 1..k, keeping only offsets m*(k+1)^s < p.
// After round s rank i has heard, directly or transitively, from exactly the
// ranks i, i-1, ..., i - min(p, (k+1)^(s+1)) + 1, so ceil(log_{k+1} p) rounds
// give every rank full knowledge and no rank has it earlier. k = 1 is the
// classic dissemination barrier. For k = 2 this is the (i + m*3^s) form of
// DESIGN §5a, not the paper's (i +/- 3^s) form: both give full knowledge after
// ceil(log_3 p) rounds, this one generalises to any k with one rule.
#pragma once

#include <cstdint>
#include <vector>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::driver {

// Largest fan-out and round count a descriptor can carry (from the format spec).
inline constexpr unsigned kBarrierMaxFanout = fmt::kKMax;
inline constexpr unsigned kBarrierMaxRounds = fmt::kMaxRounds;

struct BarrierRoundPeers {
  std::vector<std::uint32_t> send_to;      // ranks notified in this round, m order
  std::vector<std::uint32_t> expect_from;  // ranks heard from in this round, m order
};

struct BarrierSchedule {
  std::uint32_t rank = 0;
  std::uint32_t size = 0;
  unsigned fanout = 0;
  std::vector<BarrierRoundPeers> rounds;  // round 0 first; empty for size 1
};

// ceil(log_{fanout+1} size): rounds of the schedule (0 for size 1).
// std::invalid_argument for size 0 or fanout 0.
unsigned dissemination_rounds(std::uint32_t size, unsigned fanout);

// The schedule of `rank` in a communicator of `size` ranks with fan-out
// `fanout`. Never lists self, never lists a rank twice in one round's
// send_to or expect_from. std::invalid_argument naming the bad value for:
// size 0, rank >= size, fanout 0 or above kBarrierMaxFanout, or a size that
// needs more than kBarrierMaxRounds rounds at this fan-out.
BarrierSchedule build_barrier_schedule(std::uint32_t rank, std::uint32_t size, unsigned fanout);

}  // namespace syncfab::driver
