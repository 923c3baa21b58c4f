// The event-driven golden fabric for barriers at scale
// (docs/collective-model.md): every packet of a barrier is an event on
// directed links with a fixed delay, switches that enqueue one copy per
// cycle, combine units and NICs with the cycle figures of Timing. Written
// from docs/group-barrier.md, docs/barrier-protocol.md and the switch and
// NIC timing docs, not from the cycle models.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "syncfab/model/collective/inputs.hpp"
#include "syncfab/model/collective/network.hpp"

namespace syncfab::model::collective {

struct Traffic {
  std::array<std::uint64_t, kPacketKinds> sent{};  // packets NICs put on their links
  std::array<std::uint64_t, kPacketKinds> hops{};  // link traversals (copies included)
  std::uint64_t events = 0;
  // Ring mode: shares a switch sent as answers to an origin still at an
  // epoch the switch completed that asked (docs/group-barrier.md section
  // 9.3); none on this lossless fabric, whose shares never ask.
  std::uint64_t answers = 0;
};

struct BarrierOutcome {
  Cycle latency = 0;        // the last post (a common start: cycle 0) to the last completion
  std::vector<Cycle> done;  // per member: its CQ entry (software: the host leaves)
  Traffic traffic;
};

struct ConcurrentOutcome {
  // Per group, per barrier: the last member's completion minus the last
  // member's post, and the last completion.
  std::vector<std::vector<Cycle>> latency;
  std::vector<std::vector<Cycle>> last_done;
  Cycle end = 0;  // the last completion of all
  Traffic traffic;
};

// Every member of g posts in cycle 0 (or at g.first_post). Throws std::invalid_argument naming the
// group's bad member or tree switch, std::logic_error when a safety check
// fails (a member completing an epoch before every member posted it, naming
// the group, epoch and member).
BarrierOutcome run_barrier(Network& net, const Group& g, const Timing& t = {});

// Every group runs `barriers` barriers back to back, all at once: each member
// posts its first in cycle 0 (or at its group's first_post) and its next on a group in the cycle
// its previous one on that group completed (a member of several groups has one context per group).
// Same throws.
ConcurrentOutcome run_concurrent(Network& net, std::span<const Group> groups, unsigned barriers,
                                 const Timing& t = {});

// R = ceil(log_{k+1} p) (0 for p = 1) and, for rank i's round s, the offsets
// m * (k+1)^s < p, m = 1 .. k (docs/barrier-protocol.md section 1): rank i
// notifies i + offset and expects i - offset (mod p).
unsigned dissemination_rounds(unsigned p, unsigned k);
std::vector<unsigned> round_offsets(unsigned p, unsigned k, unsigned round);

}  // namespace syncfab::model::collective
