#include "syncfab/driver/barrier_desc.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/driver/group_desc.hpp"
#include "syncfab/hw/hex.hpp"

namespace syncfab::driver {

static_assert(fmt::BarrierDesc::kSizeBytes % 4 == 0, "descriptor is a whole number of words");

namespace {

void check_completion(const BarrierCompletion& c) {
  if (c.write && (c.addr == 0 || c.addr % 8 != 0)) {
    throw std::invalid_argument("barrier completion write address " + std::to_string(c.addr) +
                                " must be non-zero and 8-byte aligned");
  }
}

void check_lids(std::span<const std::uint16_t> lids, std::uint32_t size) {
  if (lids.size() != size) {
    throw std::invalid_argument("barrier of " + std::to_string(size) + " ranks needs " +
                                std::to_string(size) + " rank LIDs, got " +
                                std::to_string(lids.size()));
  }
  std::vector<std::uint16_t> sorted(lids.begin(), lids.end());
  for (std::size_t r = 0; r < lids.size(); ++r) {
    if (lids[r] == fmt::kLidNone || lids[r] >= fmt::kMlidBase) {
      throw std::invalid_argument("LID " + hw::hex16(lids[r]) + " of rank " + std::to_string(r) +
                                  " is not a unicast LID (1.." + hw::hex16(fmt::kMlidBase - 1) +
                                  ")");
    }
  }
  std::sort(sorted.begin(), sorted.end());
  const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) {
    throw std::invalid_argument("LID " + hw::hex16(*dup) + " is given to two ranks");
  }
}

}  // namespace

DecodedBarrier schedule_as_lids(const BarrierSchedule& schedule,
                                std::span<const std::uint16_t> rank_lids, std::uint8_t ctx,
                                std::uint16_t epoch, const BarrierCompletion& completion) {
  check_lids(rank_lids, schedule.size);
  check_completion(completion);
  DecodedBarrier d{ctx, epoch, schedule.fanout, completion, {}};
  if (!completion.write) {  // the descriptor carries no address or value then
    d.completion.addr = 0;
    d.completion.value = 0;
  }
  for (const auto& round : schedule.rounds) {
    BarrierRoundLids lr;
    for (auto r : round.send_to) {
      lr.dst.push_back(rank_lids[r]);
    }
    for (auto r : round.expect_from) {
      lr.src.push_back(rank_lids[r]);
    }
    d.rounds.push_back(std::move(lr));
  }
  return d;
}

fmt::BarrierDesc encode_barrier_desc(const BarrierSchedule& schedule,
                                     std::span<const std::uint16_t> rank_lids, std::uint8_t ctx,
                                     std::uint16_t epoch, const BarrierCompletion& completion) {
  const DecodedBarrier lids = schedule_as_lids(schedule, rank_lids, ctx, epoch, completion);
  if (schedule.fanout == 0 || schedule.fanout > fmt::kKMax ||
      schedule.rounds.size() > fmt::kMaxRounds) {
    throw std::invalid_argument("barrier schedule with fan-out " + std::to_string(schedule.fanout) +
                                " and " + std::to_string(schedule.rounds.size()) +
                                " rounds does not fit a descriptor");
  }
  fmt::BarrierDesc d;
  d.set_opcode(fmt::Opcode::kBarrier)
      .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
      .set_ctx(ctx)
      .set_flag_cmpl_write(completion.write)
      .set_flag_cq_entry(completion.cq_entry)
      .set_flag_irq(completion.irq)
      .set_epoch(epoch)
      .set_num_rounds(static_cast<std::uint8_t>(lids.rounds.size()))
      .set_fanout_k(static_cast<std::uint8_t>(schedule.fanout))
      .set_cmpl_addr(completion.write ? completion.addr : 0)
      .set_cmpl_value(completion.write ? completion.value : 0);
  for (std::size_t r = 0; r < lids.rounds.size(); ++r) {
    const auto& lr = lids.rounds[r];
    if (lr.dst.size() > schedule.fanout || lr.src.size() > schedule.fanout) {
      throw std::invalid_argument("barrier schedule round " + std::to_string(r) +
                                  " lists more peers than its fan-out " +
                                  std::to_string(schedule.fanout));
    }
    for (std::size_t i = 0; i < lr.dst.size(); ++i) {
      d.set_round_dst_lid(r, i, lr.dst[i]);
    }
    for (std::size_t i = 0; i < lr.src.size(); ++i) {
      d.set_round_src_lid(r, i, lr.src[i]);
    }
  }
  return d;
}

std::optional<DescFault> validate_barrier_desc(const fmt::BarrierDesc& desc,
                                               const DescLimits& limits) {
  // A device limit past the format's cannot let a descriptor name slots or
  // rounds its image does not hold: the format bounds both.
  const unsigned max_rounds = std::min<unsigned>(
      limits.max_rounds != 0 ? limits.max_rounds : fmt::kMaxRounds, fmt::kMaxRounds);
  const unsigned k_max =
      std::min<unsigned>(limits.k_max != 0 ? limits.k_max : fmt::kKMax, fmt::kKMax);
  using E = fmt::ErrCode;
  const bool group = group_of(desc).has_value();
  if (desc.opcode() != fmt::Opcode::kBarrier && !group) {
    return DescFault{E::kBadOpcode,
                     "descriptor opcode " + std::to_string(static_cast<unsigned>(desc.opcode())) +
                         " is not BARRIER, MCAST_BARRIER or COMB_BARRIER (BAD_OPCODE)"};
  }
  if (desc.version() != fmt::kDescVersion) {
    return DescFault{E::kBadVersion, "descriptor version " + std::to_string(desc.version()) +
                                         " differs from " + std::to_string(fmt::kDescVersion) +
                                         " (BAD_VERSION)"};
  }
  if (limits.num_ctx != 0 && desc.ctx() >= limits.num_ctx) {
    return DescFault{E::kBadContext, "descriptor ctx " + std::to_string(desc.ctx()) +
                                         " is not below the device's " +
                                         std::to_string(limits.num_ctx) +
                                         " contexts (BAD_CONTEXT)"};
  }
  if (group) {
    if (desc.flag_cmpl_write() && (desc.cmpl_addr() == 0 || desc.cmpl_addr() % 8 != 0)) {
      return DescFault{E::kBadAddr, "descriptor cmpl_addr " + std::to_string(desc.cmpl_addr()) +
                                        " must be non-zero and 8-byte aligned (BAD_ADDR)"};
    }
    return validate_group_fields(desc, limits.max_members);
  }
  if (desc.num_rounds() > max_rounds) {
    return DescFault{E::kBadRounds, "descriptor num_rounds " + std::to_string(desc.num_rounds()) +
                                        " exceeds " + std::to_string(max_rounds) + " (BAD_ROUNDS)"};
  }
  if (desc.fanout_k() == 0 || desc.fanout_k() > k_max) {
    return DescFault{E::kBadFanout, "descriptor fanout_k " + std::to_string(desc.fanout_k()) +
                                        " is out of range 1.." + std::to_string(k_max) +
                                        " (BAD_FANOUT)"};
  }
  if (desc.flag_cmpl_write() && (desc.cmpl_addr() == 0 || desc.cmpl_addr() % 8 != 0)) {
    return DescFault{E::kBadAddr, "descriptor cmpl_addr " + std::to_string(desc.cmpl_addr()) +
                                      " must be non-zero and 8-byte aligned (BAD_ADDR)"};
  }
  for (std::size_t r = 0; r < desc.num_rounds(); ++r) {
    for (const bool dst : {true, false}) {
      const char* what = dst ? "dst" : "src";
      std::vector<std::uint16_t> seen;
      for (std::size_t i = 0; i < desc.fanout_k(); ++i) {
        const std::uint16_t lid = dst ? desc.round_dst_lid(r, i) : desc.round_src_lid(r, i);
        if (lid == fmt::kLidNone) {
          continue;
        }
        if (lid >= fmt::kMlidBase) {
          return DescFault{E::kBadLid, "descriptor round " + std::to_string(r) + " " + what +
                                           " slot " + std::to_string(i) + " holds multicast LID " +
                                           hw::hex16(lid) + " (BAD_LID)"};
        }
        if (std::find(seen.begin(), seen.end(), lid) != seen.end()) {
          return DescFault{E::kBadLid, "descriptor round " + std::to_string(r) + " lists " + what +
                                           " LID " + hw::hex16(lid) + " twice (BAD_LID)"};
        }
        seen.push_back(lid);
      }
    }
  }
  return std::nullopt;
}

DecodedBarrier decode_barrier_desc(const fmt::BarrierDesc& desc) {
  if (const auto fault = validate_barrier_desc(desc)) {
    throw std::invalid_argument(fault->message);
  }
  DecodedBarrier d;
  d.ctx = desc.ctx();
  d.epoch = desc.epoch();
  d.fanout = group_of(desc) ? 0 : desc.fanout_k();
  d.completion.write = desc.flag_cmpl_write();
  d.completion.cq_entry = desc.flag_cq_entry();
  d.completion.irq = desc.flag_irq();
  d.completion.addr = desc.cmpl_addr();
  d.completion.value = desc.cmpl_value();
  if (!d.completion.write) {
    d.completion.addr = 0;
    d.completion.value = 0;
  }
  const std::size_t rounds = d.fanout == 0 ? 0 : desc.num_rounds();
  for (std::size_t r = 0; r < rounds; ++r) {
    BarrierRoundLids lr;
    for (std::size_t i = 0; i < d.fanout; ++i) {
      if (const std::uint16_t lid = desc.round_dst_lid(r, i); lid != fmt::kLidNone) {
        lr.dst.push_back(lid);
      }
      if (const std::uint16_t lid = desc.round_src_lid(r, i); lid != fmt::kLidNone) {
        lr.src.push_back(lid);
      }
    }
    d.rounds.push_back(std::move(lr));
  }
  return d;
}

std::array<std::uint32_t, kBarrierDescWords> desc_words(const fmt::BarrierDesc& desc) {
  std::array<std::uint32_t, kBarrierDescWords> words{};
  const auto& b = desc.bytes();
  for (std::size_t w = 0; w < words.size(); ++w) {
    words[w] = static_cast<std::uint32_t>(b[4 * w]) |
               (static_cast<std::uint32_t>(b[4 * w + 1]) << 8) |
               (static_cast<std::uint32_t>(b[4 * w + 2]) << 16) |
               (static_cast<std::uint32_t>(b[4 * w + 3]) << 24);
  }
  return words;
}

}  // namespace syncfab::driver
