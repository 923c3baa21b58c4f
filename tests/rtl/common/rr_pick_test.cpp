// rr_pick against a cyclic scan (the definition): for every mask and every
// start at this build's width, the first set bit at or after start,
// wrapping; nothing for an empty mask.
#include <Vrr_pick.h>

#include <cstdint>

#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

struct Pick {
  bool any = false;
  unsigned idx = 0;
};

Pick reference(unsigned n, std::uint32_t mask, unsigned start) {
  for (unsigned k = 0; k < n; ++k) {
    const unsigned i = (start + k) % n;
    if ((mask >> i & 1U) != 0) {
      return {true, i};
    }
  }
  return {};
}

}  // namespace

SYNCFAB_TEST(rr_pick, exhaustive) {
  auto& dut = ctx.make_dut<Vrr_pick>();
  constexpr unsigned kN = SF_RR_PICK_N;
  unsigned checked = 0;
  for (std::uint32_t mask = 0; mask < (1U << kN); ++mask) {
    for (unsigned start = 0; start < kN; ++start) {
      dut.mask_i = mask;
      dut.start_i = static_cast<std::uint8_t>(start);
      co_await Timer(1, Unit::ns);
      co_await ReadOnly();
      const Pick want = reference(kN, mask, start);
      TB_CHECK_EQ(dut.any_o != 0, want.any) << "mask 0x" << std::hex << mask << " start " << start;
      TB_CHECK_EQ(unsigned{dut.idx_o}, want.idx)
          << "mask 0x" << std::hex << mask << std::dec << " start " << start;
      ++checked;
    }
  }
  TB_CHECK_EQ(checked, (1U << kN) * kN);
}
