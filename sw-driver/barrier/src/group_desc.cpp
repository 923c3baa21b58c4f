#include "syncfab/driver/group_desc.hpp"

#include <stdexcept>
#include <string>

#include "syncfab/hw/hex.hpp"

namespace syncfab::driver {

namespace {

bool is_mcast(fmt::Opcode op) { return op == fmt::Opcode::kMcastBarrier; }

}  // namespace

const char* to_string(GroupBarrierKind kind) {
  return kind == GroupBarrierKind::kMulticastRelease ? "multicast-release" : "switch-combined";
}

std::optional<GroupBarrier> group_of(const fmt::BarrierDesc& desc) {
  const fmt::Opcode op = desc.opcode();
  if (op != fmt::Opcode::kMcastBarrier && op != fmt::Opcode::kCombBarrier) {
    return std::nullopt;
  }
  GroupBarrier g;
  g.kind = is_mcast(op) ? GroupBarrierKind::kMulticastRelease : GroupBarrierKind::kSwitchCombined;
  g.mlid = desc.mlid();
  g.root_lid = desc.root_lid();
  g.member = desc.member();
  g.members = desc.members();
  return g;
}

std::optional<DescFault> validate_group_fields(const fmt::BarrierDesc& desc, unsigned max_members) {
  using E = fmt::ErrCode;
  const bool mcast = is_mcast(desc.opcode());
  if (desc.mlid() < fmt::kMlidBase) {
    return DescFault{E::kBadLid, "descriptor mlid " + hw::hex16(desc.mlid()) +
                                     " is not a multicast LID (BAD_LID)"};
  }
  if (mcast && desc.member() != 0 &&
      (desc.root_lid() == fmt::kLidNone || desc.root_lid() >= fmt::kMlidBase)) {
    return DescFault{E::kBadLid, "descriptor root_lid " + hw::hex16(desc.root_lid()) +
                                     " is not a unicast LID (BAD_LID)"};
  }
  if (desc.members() == 0 || desc.member() >= desc.members()) {
    return DescFault{E::kBadMembers, "descriptor member " + std::to_string(desc.member()) + " of " +
                                         std::to_string(desc.members()) +
                                         " members is out of range (BAD_MEMBERS)"};
  }
  if (mcast && desc.members() > fmt::kMcastMaxMembers) {
    return DescFault{E::kBadMembers, "multicast-release barrier of " +
                                         std::to_string(desc.members()) + " members exceeds " +
                                         std::to_string(fmt::kMcastMaxMembers) +
                                         " (MCAST_MAX_MEMBERS, BAD_MEMBERS)"};
  }
  if (mcast && desc.member() == 0 && max_members != 0 && desc.members() > max_members) {
    return DescFault{E::kBadMembers, "multicast-release root of " + std::to_string(desc.members()) +
                                         " members exceeds the NIC's " +
                                         std::to_string(max_members) +
                                         " (HW_CFG2.MAX_MEMBERS, BAD_MEMBERS)"};
  }
  return std::nullopt;
}

fmt::BarrierDesc encode_group_desc(const GroupBarrier& group, std::uint8_t ctx, std::uint16_t epoch,
                                   const BarrierCompletion& completion) {
  if (completion.write && (completion.addr == 0 || completion.addr % 8 != 0)) {
    throw std::invalid_argument("barrier completion write address " +
                                std::to_string(completion.addr) +
                                " must be non-zero and 8-byte aligned");
  }
  const bool mcast = group.kind == GroupBarrierKind::kMulticastRelease;
  fmt::BarrierDesc d;
  d.set_opcode(mcast ? fmt::Opcode::kMcastBarrier : fmt::Opcode::kCombBarrier)
      .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
      .set_ctx(ctx)
      .set_flag_cmpl_write(completion.write)
      .set_flag_cq_entry(completion.cq_entry)
      .set_flag_irq(completion.irq)
      .set_epoch(epoch)
      .set_cmpl_addr(completion.write ? completion.addr : 0)
      .set_cmpl_value(completion.write ? completion.value : 0)
      .set_mlid(group.mlid)
      .set_root_lid(mcast && group.member != 0 ? group.root_lid : 0)
      .set_member(group.member)
      .set_members(group.members);
  if (const auto fault = validate_group_fields(d, 0)) {
    throw std::invalid_argument(std::string(to_string(group.kind)) + " barrier: " + fault->message);
  }
  return d;
}

}  // namespace syncfab::driver
