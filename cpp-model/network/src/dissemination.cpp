#include "syncfab/model/dissemination.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace syncfab::model {

namespace {

// The spec says leaving out the offsets >= p already rules out self-targets
// and repeated peers; the descriptor must never have them, so they are
// filtered here too rather than trusted.
void add_peer(std::vector<unsigned>& peers, unsigned peer, unsigned self) {
  if (peer != self && std::find(peers.begin(), peers.end(), peer) == peers.end()) {
    peers.push_back(peer);
  }
}

}  // namespace

unsigned dissemination_rounds(unsigned size, unsigned fanout) {
  if (size == 0) {
    throw std::invalid_argument("dissemination schedule: communicator size 0");
  }
  if (fanout == 0) {
    throw std::invalid_argument("dissemination schedule: fan-out k = 0");
  }
  // After s rounds a rank has heard from min(p, (k+1)^s) ranks, itself included.
  unsigned rounds = 0;
  for (std::uint64_t heard = 1; heard < size; heard *= std::uint64_t{fanout} + 1U) {
    ++rounds;
  }
  return rounds;
}

std::vector<DisseminationRound> dissemination_schedule(unsigned rank, unsigned size,
                                                       unsigned fanout) {
  const unsigned rounds = dissemination_rounds(size, fanout);
  if (rank >= size) {
    throw std::invalid_argument("dissemination schedule: rank " + std::to_string(rank) +
                                " of a communicator of " + std::to_string(size));
  }
  if (fanout > fmt::kKMax) {
    throw std::invalid_argument("dissemination schedule: fan-out k = " + std::to_string(fanout) +
                                " exceeds K_MAX " + std::to_string(fmt::kKMax));
  }
  if (rounds > fmt::kMaxRounds) {
    throw std::invalid_argument("dissemination schedule: " + std::to_string(size) +
                                " ranks at k = " + std::to_string(fanout) + " need " +
                                std::to_string(rounds) + " rounds, MAX_ROUNDS is " +
                                std::to_string(fmt::kMaxRounds));
  }
  std::vector<DisseminationRound> out(rounds);
  std::uint64_t step = 1;  // (k+1)^s
  for (auto& round : out) {
    for (std::uint64_t m = 1; m <= fanout; ++m) {
      const std::uint64_t offset = m * step;
      if (offset >= size) {
        continue;  // left out by the spec (last round only)
      }
      add_peer(round.send_to, static_cast<unsigned>((rank + offset) % size), rank);
      add_peer(round.expect_from, static_cast<unsigned>((rank + size - offset) % size), rank);
    }
    step *= std::uint64_t{fanout} + 1U;
  }
  return out;
}

fmt::BarrierDesc dissemination_descriptor(unsigned rank, unsigned fanout,
                                          std::span<const std::uint16_t> lids, std::uint8_t ctx,
                                          std::uint16_t epoch, const HostCompletion& completion) {
  const auto rounds = dissemination_schedule(rank, static_cast<unsigned>(lids.size()), fanout);
  fmt::BarrierDesc d;
  d.set_opcode(fmt::Opcode::kBarrier)
      .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
      .set_ctx(ctx)
      .set_epoch(epoch)
      .set_fanout_k(static_cast<std::uint8_t>(fanout))
      .set_num_rounds(static_cast<std::uint8_t>(rounds.size()))
      .set_flag_cmpl_write(completion.write)
      .set_flag_cq_entry(completion.cq_entry)
      .set_flag_irq(completion.irq);
  if (completion.write) {
    d.set_cmpl_addr(completion.addr).set_cmpl_value(completion.value);
  }
  for (std::size_t s = 0; s < rounds.size(); ++s) {
    for (std::size_t m = 0; m < rounds[s].send_to.size(); ++m) {
      d.set_round_dst_lid(s, m, lids[rounds[s].send_to[m]]);
    }
    for (std::size_t m = 0; m < rounds[s].expect_from.size(); ++m) {
      d.set_round_src_lid(s, m, lids[rounds[s].expect_from[m]]);
    }
  }
  return d;
}

}  // namespace syncfab::model
