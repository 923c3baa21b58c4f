// Barrier descriptor encoding: a rank schedule, the ranks' LIDs, the context,
// the epoch and what to do on completion, into the generated BarrierDesc
// image (syncfab::fmt); and the decoder back to LIDs, for round-trip checks
// and tools.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/driver/barrier_schedule.hpp"
#include "syncfab/hw/device.hpp"

namespace syncfab::driver {

// What the NIC does when the barrier completes (descriptor flags + address).
struct BarrierCompletion {
  bool write = false;       // write `value` (8 bytes) to `addr`
  hw::BusAddr addr = 0;     // non-zero and 8-byte aligned when write
  std::uint64_t value = 0;  //
  bool cq_entry = true;     // post a completion-queue entry
  bool irq = false;         // raise INTR_STATUS.DONE

  friend bool operator==(const BarrierCompletion&, const BarrierCompletion&) = default;
};

// One round as LIDs (only used slots, LID_NONE slots left out).
struct BarrierRoundLids {
  std::vector<std::uint16_t> dst;
  std::vector<std::uint16_t> src;

  friend bool operator==(const BarrierRoundLids&, const BarrierRoundLids&) = default;
};

struct DecodedBarrier {
  std::uint8_t ctx = 0;
  std::uint16_t epoch = 0;
  unsigned fanout = 0;
  BarrierCompletion completion;
  std::vector<BarrierRoundLids> rounds;

  friend bool operator==(const DecodedBarrier&, const DecodedBarrier&) = default;
};

// Encodes `schedule` with rank r at LID rank_lids[r]. std::invalid_argument
// naming the problem if rank_lids does not hold one LID per rank, a LID is
// LID_NONE or multicast, two ranks share a LID, or the completion write
// address is 0 or unaligned. Unused slots are LID_NONE (0).
fmt::BarrierDesc encode_barrier_desc(const BarrierSchedule& schedule,
                                     std::span<const std::uint16_t> rank_lids, std::uint8_t ctx,
                                     std::uint16_t epoch, const BarrierCompletion& completion);

// The same schedule as LIDs (what encode wrote, read back through the format).
DecodedBarrier schedule_as_lids(const BarrierSchedule& schedule,
                                std::span<const std::uint16_t> rank_lids, std::uint8_t ctx,
                                std::uint16_t epoch, const BarrierCompletion& completion);

// Device limits a descriptor is validated against; 0 = the format's maximum
// (no context check for num_ctx 0). A real device reports its own in CAPS.
struct DescLimits {
  unsigned num_ctx = 0;
  unsigned k_max = 0;
  unsigned max_rounds = 0;
  unsigned max_members = 0;  // a multicast-release root's HW_CFG2.MAX_MEMBERS
};

// Why the NIC would refuse a descriptor: the error code it completes with
// (docs/barrier-protocol.md section 3, first failure in that order; CTX_BUSY
// is run-time state and not checked here) and a message naming the field.
struct DescFault {
  fmt::ErrCode code = fmt::ErrCode::kNone;
  std::string message;
};
std::optional<DescFault> validate_barrier_desc(const fmt::BarrierDesc& desc,
                                               const DescLimits& limits = {});

// Decodes a descriptor image (a group barrier's fields: group_of() in
// group_desc.hpp; its rounds are ignored and decode empty, fanout 0).
// std::invalid_argument naming the field for
// what the format rejects: unknown opcode, version, num_rounds > MAX_ROUNDS,
// fan-out 0 or above K_MAX, bad completion address, multicast LID in a used
// slot, or a LID repeated in one round's dst or src slots.
DecodedBarrier decode_barrier_desc(const fmt::BarrierDesc& desc);

// The descriptor as the little-endian 32-bit words the HDQ window takes.
inline constexpr std::size_t kBarrierDescWords = fmt::BarrierDesc::kSizeBytes / 4;
std::array<std::uint32_t, kBarrierDescWords> desc_words(const fmt::BarrierDesc& desc);

}  // namespace syncfab::driver
