// Ring-mode combine entries through the switch API, register by register.
// The golden model's CSR block runs everything but the combine tables,
// which a thin device in front of it keeps as raw words (the model keeps
// tables 2 and 3 as tree-mode fields only and has no tables 4 and 5 yet):
// the tests check the words the driver writes, their order (children and
// ring words before the control word), the read-back, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "syncfab/driver/switch.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/model/switch_csr_model.hpp"

namespace syncfab::driver {
namespace {

namespace r = hw::switch_regs;

// The golden CSR model with the combine tables (TBL_ADDR.TABLE 2 .. 5)
// answered here, as raw 32-bit words, every table write recorded in order.
class CombineTableDevice final : public hw::Device {
 public:
  explicit CombineTableDevice(const model::SwitchCsrParams& p) : inner_(p) {}

  std::uint32_t read32(std::uint32_t offset) override {
    if (offset == r::TBL_RDATA.offset && local_read_) {
      return rdata_;
    }
    return inner_.read32(offset);
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    if (offset == r::TBL_ADDR.offset) {
      addr_ = value;
    } else if (offset == r::TBL_WDATA.offset) {
      wdata_ = value;
    } else if (offset == r::TBL_CMD.offset) {
      const unsigned table = r::TBL_ADDR_TABLE.get(addr_);
      local_read_ = table >= 2;
      if (local_read_) {
        const unsigned index = r::TBL_ADDR_INDEX.get(addr_);
        if (r::TBL_CMD_WRITE.get(value) != 0) {
          words_[{table, index}] = wdata_;
          writes_.emplace_back(table, index, wdata_);
        }
        if (r::TBL_CMD_READ.get(value) != 0) {
          const auto it = words_.find({table, index});
          rdata_ = it == words_.end() ? 0U : it->second;
        }
        return;
      }
    }
    inner_.write32(offset, value);
  }
  hw::DmaMemory& dma() override { return inner_.dma(); }
  bool wait_interrupt(std::chrono::nanoseconds timeout) override {
    return inner_.wait_interrupt(timeout);
  }

  // (table, index, data) of every combine-table write, in order.
  using Write = std::tuple<unsigned, unsigned, std::uint32_t>;
  [[nodiscard]] const std::vector<Write>& writes() const { return writes_; }
  void forget_writes() { writes_.clear(); }
  [[nodiscard]] std::uint32_t word(unsigned table, unsigned index) const {
    const auto it = words_.find({table, index});
    return it == words_.end() ? 0U : it->second;
  }

 private:
  model::SwitchCsrModel inner_;
  std::uint32_t addr_ = 0;
  std::uint32_t wdata_ = 0;
  std::uint32_t rdata_ = 0;
  bool local_read_ = false;
  std::map<std::pair<unsigned, unsigned>, std::uint32_t> words_;
  std::vector<Write> writes_;
};

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

// A member switch of a 4 x 3 torus at (1, 2): phase 0 on the x ring
// (ports 1/2, len 4), phase 1 on the y ring (ports 3/4, len 3); members on
// ports 7 and 8.
RingCombineEntry member_switch() {
  RingCombineEntry e;
  e.children = (1U << 7) | (1U << 8);
  e.phases = 2;
  e.phase[0] = {
      .valid = true, .plus = 1, .minus = 2, .pos = 1, .len = 4, .origin = true, .expect = 0b1001};
  e.phase[1] = {
      .valid = true, .plus = 3, .minus = 4, .pos = 2, .len = 3, .origin = true, .expect = 0b011};
  e.epoch = 0x1234;
  return e;
}

class SwitchRingTest : public ::testing::Test {
 protected:
  CombineTableDevice dev{model::SwitchCsrParams{10, 600, 64, 16}};
  Switch sw{dev};
};

TEST_F(SwitchRingTest, WritesRingWordsBeforeTheControlWord) {
  sw.set_mft(0xC003, (1U << 7) | (1U << 8) | (1U << 9));
  dev.forget_writes();
  const RingCombineEntry e = member_switch();
  sw.set_ring_combine(0xC003, e);
  // Index 3; ring words at 3 * 4 + d.
  using W = CombineTableDevice::Write;
  const std::vector<W> want = {
      {2, 3, 0x180},
      // VALID | ORIGIN | LEN 4 << 21 | POS 1 << 16 | MINUS 2 << 8 | PLUS 1
      {4, 12, 0xC0810201},
      {5, 12, 0b1001},
      // VALID | ORIGIN | LEN 3 << 21 | POS 2 << 16 | MINUS 4 << 8 | PLUS 3
      {4, 13, 0xC0620403},
      {5, 13, 0b011},
      {4, 14, 0},
      {5, 14, 0},
      // VALID | RING | PHASES 2 << 24 | EPOCH 0x1234 << 8
      {3, 3, 0xA2123400},
  };
  EXPECT_EQ(dev.writes(), want);
  EXPECT_EQ(sw.ring_combine(0xC003), e);
  EXPECT_FALSE(sw.combine(0xC003).has_value()) << "a ring entry is not a tree entry";
  EXPECT_FALSE(sw.ring_combine(0xC004).has_value());

  sw.clear_ring_combine(0xC003);
  EXPECT_FALSE(sw.ring_combine(0xC003).has_value());
  for (unsigned d = 0; d < 3; ++d) {
    EXPECT_EQ(dev.word(4, 12 + d), 0U);
    EXPECT_EQ(dev.word(5, 12 + d), 0U);
  }
}

// A relay (no members) needs no MFT entry; a ring of two may use one port
// both ways; a tree entry reads as no ring entry.
TEST_F(SwitchRingTest, RelayWithoutMftAndTwoRing) {
  RingCombineEntry relay;
  relay.phases = 3;
  relay.phase[2] = {
      .valid = true, .plus = 5, .minus = 5, .pos = 1, .len = 2, .origin = false, .expect = 0};
  relay.epoch = 0xFFFF;
  sw.set_ring_combine(0xC00F, relay);
  EXPECT_EQ(sw.ring_combine(0xC00F), relay);
  EXPECT_EQ(dev.word(3, 15), 0xA3FFFF00U);
  EXPECT_EQ(dev.word(4, 62), 0x80410505U);

  sw.set_mft(0xC001, 0b0111);
  sw.set_combine(0xC001, {.children = 0b0011, .root = false, .parent = 2, .epoch = 7});
  EXPECT_FALSE(sw.ring_combine(0xC001).has_value());
  EXPECT_TRUE(sw.combine(0xC001).has_value());
}

TEST_F(SwitchRingTest, RefusesInconsistentEntries) {
  sw.set_mft(0xC003, (1U << 7) | (1U << 8));
  const auto bad = [&](const std::function<void(RingCombineEntry&)>& edit) {
    RingCombineEntry e = member_switch();
    edit(e);
    return refusal([&] { sw.set_ring_combine(0xC003, e); });
  };
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phases = 0; }),
            "set_ring_combine: MLID 0xC003: PHASES 0 is outside 1 .. COMB_PHASES (3)");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phases = 4; }),
            "set_ring_combine: MLID 0xC003: PHASES 4 is outside 1 .. COMB_PHASES (3)");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phases = 1; }),
            "set_ring_combine: MLID 0xC003 phase 1: valid, but PHASES is 1");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[0].plus = 10; }),
            "set_ring_combine: MLID 0xC003 phase 0: PLUS port 10 does not exist (the switch has "
            "10)");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[1].minus = 7; }),
            "set_ring_combine: MLID 0xC003 phase 1: MINUS port 7 is also a child");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[0].len = 1; }),
            "set_ring_combine: MLID 0xC003 phase 0: LEN 1 is outside 2 .. COMB_RING_MAX (32)");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[0].len = 33; }),
            "set_ring_combine: MLID 0xC003 phase 0: LEN 33 is outside 2 .. COMB_RING_MAX (32)");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[1].pos = 3; }),
            "set_ring_combine: MLID 0xC003 phase 1: POS 3 is not below LEN 3");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[1].expect = 0b1001; }),
            "set_ring_combine: MLID 0xC003 phase 1: EXPECT 0x9 names positions at or beyond LEN "
            "3");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[0].expect = 0b0011; }),
            "set_ring_combine: MLID 0xC003 phase 0: EXPECT 0x3 names the switch's own POS 1");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.phase[2].expect = 1; }),
            "set_ring_combine: MLID 0xC003 phase 2: ORIGIN or EXPECT 0x1 on a phase that is not "
            "valid");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.children |= 1U << 9; }),
            "set_ring_combine: MLID 0xC003: children 0x380 are not inside the MFT mask 0x180");
  EXPECT_EQ(bad([](RingCombineEntry& e) { e.children = 1U << 10; }),
            "set_ring_combine: MLID 0xC003: child mask 0x400 names ports the switch does not "
            "have (10)");
  EXPECT_EQ(bad([](RingCombineEntry& e) {
              e.children = 0;
              e.phase = {};
            }),
            "set_ring_combine: MLID 0xC003: no children and no valid phase (a switch with nothing "
            "to do has no entry)");
  EXPECT_EQ(refusal([&] { sw.set_ring_combine(0xC004, member_switch()); }),
            "set_ring_combine: MLID 0xC004: no MFT entry for the children 0x180; program the MFT "
            "before the combine entry");
  EXPECT_EQ(refusal([&] { sw.set_ring_combine(0xC010, member_switch()); }),
            "set_ring_combine: MLID 49168 is outside the MFT (0xC000 .. 0xC000+16-1)");
  EXPECT_TRUE(dev.writes().empty()) << "a refused entry must write nothing";
}

}  // namespace
}  // namespace syncfab::driver
