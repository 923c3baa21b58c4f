// The k-way dissemination schedule as docs/barrier-protocol.md section 1
// defines it, and the barrier descriptor a host posts for it (format
// barrier_desc, rtl/spec/formats.toml). The model's own reading of the spec:
// the fabric scenario's hosts and the software comparison use it, never the
// driver's schedule builder, so a bug in the driver cannot hide in the model
// too. tests/model/network/dissemination_test.cpp holds the two readings against each
// other.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::model {

// One round of one rank: the ranks it notifies and the ranks it must hear
// from, for m = 1..k in that order.
struct DisseminationRound {
  std::vector<unsigned> send_to;
  std::vector<unsigned> expect_from;

  friend bool operator==(const DisseminationRound&, const DisseminationRound&) = default;
};

// R = ceil(log_{k+1} p): the rounds after which every rank has heard from
// every other (0 for p = 1). std::invalid_argument for p = 0 or k = 0.
unsigned dissemination_rounds(unsigned size, unsigned fanout);

// Round s of rank i of p: notify (i + m*(k+1)^s) mod p, expect
// (i - m*(k+1)^s) mod p, m = 1..k, offsets m*(k+1)^s >= p left out; never
// self, never a rank twice in a round. std::invalid_argument naming the value
// for p = 0, rank >= p, k outside 1..K_MAX, or more than MAX_ROUNDS rounds.
std::vector<DisseminationRound> dissemination_schedule(unsigned rank, unsigned size,
                                                       unsigned fanout);

// What the NIC does once the barrier completes (the descriptor's flags).
struct HostCompletion {
  bool write = false;       // write `value` (8 bytes) to `addr`
  std::uint64_t addr = 0;   // only with write
  std::uint64_t value = 0;  // only with write
  bool cq_entry = true;
  bool irq = false;
};

// The descriptor of rank `rank` in a barrier of lids.size() ranks, rank r at
// LID lids[r]; unused peer slots hold LID_NONE, cmpl_addr and cmpl_value are 0
// without a completion write. Throws as dissemination_schedule().
fmt::BarrierDesc dissemination_descriptor(unsigned rank, unsigned fanout,
                                          std::span<const std::uint16_t> lids, std::uint8_t ctx,
                                          std::uint16_t epoch, const HostCompletion& completion);

}  // namespace syncfab::model
