// Group-barrier descriptors (docs/group-barrier.md): a multicast-release or a
// switch-combined barrier on a multicast group, encoded into the generated
// BarrierDesc image (syncfab::fmt), and read back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/driver/barrier_desc.hpp"

namespace syncfab::driver {

enum class GroupBarrierKind : std::uint8_t {
  kMulticastRelease,  // MCAST_BARRIER: arrivals to the root NIC (member 0), one multicast release
  kSwitchCombined,    // COMB_BARRIER: the switches combine arrivals up the group's tree
};
const char* to_string(GroupBarrierKind kind);

struct GroupBarrier {
  GroupBarrierKind kind = GroupBarrierKind::kSwitchCombined;
  std::uint16_t mlid = 0;      // the group's multicast LID
  std::uint16_t root_lid = 0;  // multicast-release, member > 0: the root NIC's LID
  std::uint16_t member = 0;    // this node's index in the group
  std::uint16_t members = 1;   // the group's size
  friend bool operator==(const GroupBarrier&, const GroupBarrier&) = default;
};

// std::invalid_argument naming the field when the NIC would refuse the
// descriptor (docs/group-barrier.md section 2: BAD_LID, BAD_MEMBERS) or the
// completion write address is 0 or unaligned. root_lid is written only
// where it is used (0 otherwise).
fmt::BarrierDesc encode_group_desc(const GroupBarrier& group, std::uint8_t ctx, std::uint16_t epoch,
                                   const BarrierCompletion& completion);

// The group fields of a descriptor whose opcode is a group barrier; nullopt
// for any other opcode.
std::optional<GroupBarrier> group_of(const fmt::BarrierDesc& desc);

// Section 2 rules 6 and 7 (BAD_LID, BAD_MEMBERS) on a group descriptor;
// max_members is the root NIC's HW_CFG2.MAX_MEMBERS (0: the format's
// MCAST_MAX_MEMBERS).
std::optional<DescFault> validate_group_fields(const fmt::BarrierDesc& desc, unsigned max_members);

}  // namespace syncfab::driver
