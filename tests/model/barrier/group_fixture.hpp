// One golden-model engine running the group barriers (docs/group-barrier.md),
// the test playing the other members, the root NIC and the switches.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <syncfab/model/nic_group_regs.hpp>

#include "engine_fixture.hpp"

namespace syncfab::model::test {

inline constexpr std::uint16_t kMlid = fmt::kMlidBase + 3;
inline constexpr std::uint16_t kRoot = 0x31;

class GroupTest : public EngineTest {
 public:
  explicit GroupTest(EngineConfig cfg = make_cfg()) : EngineTest(cfg) {}

  // A group descriptor: MCAST_BARRIER or COMB_BARRIER of `members` with this
  // NIC as `member`.
  static fmt::BarrierDesc gdesc(fmt::Opcode op, std::uint8_t ctx, std::uint16_t epoch,
                                std::uint16_t member, std::uint16_t members,
                                std::uint16_t mlid = kMlid, std::uint16_t root = kRoot) {
    fmt::BarrierDesc d;
    d.set_opcode(op)
        .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
        .set_ctx(ctx)
        .set_epoch(epoch)
        .set_flag_cq_entry(true)
        .set_flag_irq(true)
        .set_flag_cmpl_write(true)
        .set_cmpl_addr(kFlagAddr + 8ULL * ctx)
        .set_cmpl_value(0xC0DE0000ULL + epoch)
        .set_mlid(mlid)
        .set_root_lid(root)
        .set_member(member)
        .set_members(members);
    return d;
  }
  static fmt::BarrierDesc mcast(std::uint8_t ctx, std::uint16_t epoch, std::uint16_t member,
                                std::uint16_t members) {
    return gdesc(fmt::Opcode::kMcastBarrier, ctx, epoch, member, members);
  }
  static fmt::BarrierDesc comb(std::uint8_t ctx, std::uint16_t epoch, std::uint16_t members) {
    return gdesc(fmt::Opcode::kCombBarrier, ctx, epoch, 1, members);
  }

 protected:
  static fmt::PktHdr group_pkt(fmt::PktType t, std::uint16_t src, std::uint16_t dst,
                               std::uint8_t ctx, std::uint16_t ep, std::uint16_t member = 0) {
    fmt::PktHdr p;
    p.set_pkt_type(t)
        .set_len_flits(1)
        .set_src_lid(src)
        .set_dst_lid(dst)
        .set_ctx(ctx)
        .set_epoch(ep)
        .set_member(member);
    return p;
  }
  void arrive(std::uint16_t src, std::uint16_t member, std::uint8_t ctx, std::uint16_t ep) {
    eng_.receive(group_pkt(fmt::PktType::kArrive, src, kMe, ctx, ep, member));
  }
  void release(std::uint8_t ctx, std::uint16_t ep, std::uint16_t dst = kMlid,
               fmt::PktType t = fmt::PktType::kRelease) {
    eng_.receive(group_pkt(t, kRoot, dst, ctx, ep));
  }
  void set_timeout(std::uint32_t cycles, std::uint32_t limit) {
    eng_.csr_write(group_regs::kGroupTimeout.offset, cycles);
    eng_.csr_write(group_regs::kGroupRetryLimit.offset, limit);
  }
  // Steps n cycles, recording the cycle each header left in.
  void run_timed(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t t = eng_.cycle();
      eng_.step();
      while (auto p = eng_.transmit()) {
        timed_.emplace_back(t, *p);
        out_.push_back(*p);
      }
    }
  }
  [[nodiscard]] bool done(std::size_t n = 1) const { return eng_.completions().size() >= n; }
  [[nodiscard]] const CompletionRecord& last() const { return eng_.completions().back(); }

  std::vector<std::pair<std::uint64_t, fmt::PktHdr>> timed_;
};

}  // namespace syncfab::model::test
