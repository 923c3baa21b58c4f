// Dynamic ECN thresholds on the whole switch (docs/switch-ecn-dynamic.md):
// the registers (reset values, refused writes answered with PSLVERR and
// nothing written, the status of the queue CNT_SEL names) and the law fed
// by the switch's own measures (the inputs that enqueue to a queue set
// ACTIVE and the shift). The law itself is checked by hand sequences in
// ecn_dyn_test.cpp.
//
// Parameters of the verilated model: NumPorts 4, BufCells 128,
// LftEntries 64, MftEntries 16.
#include <Vswitch_top.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>

#include "switch_top_bench.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/regs/switch_csr.h"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_top_bench;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace r = syncfab::hw::switch_regs;

namespace {

constexpr std::uint32_t kCtrl = offsetof(switch_csr_t, ECN_DYN_CTRL);
constexpr std::uint32_t kTarget = offsetof(switch_csr_t, ECN_DYN_TARGET);
constexpr std::uint32_t kPmax = offsetof(switch_csr_t, ECN_DYN_PMAX);
constexpr std::uint32_t kK = offsetof(switch_csr_t, ECN_DYN_K);
constexpr std::uint32_t kState = offsetof(switch_csr_t, ECN_DYN_STATE);

constexpr std::uint32_t ctrl_word(unsigned en, unsigned win, unsigned fan_sh) {
  return (en << SWITCH_CSR__ECN_DYN_CTRL__EN_bp) | (win << SWITCH_CSR__ECN_DYN_CTRL__WIN_bp) |
         (fan_sh << SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bp);
}
constexpr std::uint32_t pmax_word(unsigned plo, unsigned phi, unsigned pup, unsigned pdn) {
  return (plo << SWITCH_CSR__ECN_DYN_PMAX__PLO_bp) | (phi << SWITCH_CSR__ECN_DYN_PMAX__PHI_bp) |
         (pup << SWITCH_CSR__ECN_DYN_PMAX__PUP_bp) | (pdn << SWITCH_CSR__ECN_DYN_PMAX__PDN_bp);
}
unsigned get(std::uint32_t v, unsigned bp, std::uint32_t bm) { return (v & bm) >> bp; }

// WIN's legal range (formats.toml) and the largest value its field holds.
constexpr unsigned kWinMin = syncfab::fmt::kEcnWinMin;
constexpr unsigned kWinMax = syncfab::fmt::kEcnWinCntWidth;
constexpr unsigned kWinField = SWITCH_CSR__ECN_DYN_CTRL__WIN_bm >> SWITCH_CSR__ECN_DYN_CTRL__WIN_bp;
static_assert(kWinMin > 0 && kWinMax < kWinField, "a refused WIN on either side of the range");

}  // namespace

// Reset values (section 6); a write with WIN just outside ECN_WIN_MIN ..
// ECN_WIN_CNT_WIDTH (formats.toml), WIN 0, the field's largest value, or
// with PLO > PHI is refused whole (PSLVERR, the register keeps its value);
// WIN at either end of the range and PLO = PHI are taken; the status
// registers are read-only. The words are built at the C header's positions,
// so a field the RTL reads elsewhere fails here.
SYNCFAB_TEST(switch_ecn_dyn, registers) {
  Bench b(ctx);
  co_await b.reset();
  TB_CHECK_EQ((co_await b.apb.read(kCtrl)).data, ctrl_word(0, 10, 7));
  TB_CHECK_EQ((co_await b.apb.read(kTarget)).data, 64U);
  TB_CHECK_EQ((co_await b.apb.read(kPmax)).data, pmax_word(0, 255, 8, 8));
  for (const unsigned win : {kWinMin - 1, kWinMax + 1, 0U, kWinField}) {
    const ApbResult w = co_await b.apb.write(kCtrl, ctrl_word(0xFF, win, 2));
    TB_CHECK(w.error) << "WIN " << win << " not refused";
    TB_CHECK_EQ((co_await b.apb.read(kCtrl)).data, ctrl_word(0, 10, 7)) << "WIN " << win;
  }
  for (const unsigned win : {kWinMin, kWinMax}) {
    const ApbResult w = co_await b.apb.write(kCtrl, ctrl_word(0x81, win, 2));
    TB_CHECK(!w.error) << "WIN " << win << " refused";
    TB_CHECK_EQ((co_await b.apb.read(kCtrl)).data, ctrl_word(0x81, win, 2));
  }
  const ApbResult bad = co_await b.apb.write(kPmax, pmax_word(9, 8, 1, 1));
  TB_CHECK(bad.error) << "PLO > PHI not refused";
  TB_CHECK_EQ((co_await b.apb.read(kPmax)).data, pmax_word(0, 255, 8, 8));
  const ApbResult ok = co_await b.apb.write(kPmax, pmax_word(9, 9, 3, 4));
  TB_CHECK(!ok.error) << "PLO = PHI refused";
  TB_CHECK_EQ((co_await b.apb.read(kPmax)).data, pmax_word(9, 9, 3, 4));
  TB_CHECK((co_await b.apb.write(kK, 1)).error) << "ECN_DYN_K is read-only";
  TB_CHECK((co_await b.apb.write(kState, 1)).error) << "ECN_DYN_STATE is read-only";
}

// The law on queue 2 of every port, FAN_SH 0: three inputs sending to
// output 3 (held, so its queue only grows) make a window with ACTIVE 3,
// shift 1 and the static thresholds halved, for the queue CNT_SEL names;
// another queue and the law off show the static values, SHIFT 0, ACTIVE 0.
SYNCFAB_TEST(switch_ecn_dyn, fan_in_shift) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  hw::Csr csr(b.dev);
  constexpr unsigned kOut = 3;
  constexpr unsigned kQ = 2;
  sw.set_lft(0x10, kOut);
  sw.configure_wred(kOut, kQ, drv::WredQueue{true, 64, 512, 32});
  sw.configure_wred(kOut, 5, drv::WredQueue{true, 40, 80, 9});
  sw.enable(true);
  const auto select = [&csr](unsigned port, unsigned prio) {
    csr.write(r::CNT_SEL, {{r::CNT_SEL_PORT, port}, {r::CNT_SEL_PRIO, prio}});
  };
  select(kOut, kQ);
  TB_CHECK_EQ(b.dev.read32(kK), (512U << 16) | 64U) << "law off: static";
  TB_CHECK_EQ(b.dev.read32(kState), 32U) << "law off: Pmax, SHIFT 0, ACTIVE 0";
  b.dev.write32(kCtrl, ctrl_word(1U << kQ, 10, 0));
  b.hold_tx(kOut, true);
  // Three rounds of one packet from each of inputs 0..2, a window apart:
  // at least one round lands inside one window.
  unsigned max_active = 0;
  bool seen = false;
  for (unsigned round = 0; round < 3; ++round) {
    for (unsigned in = 0; in < 3; ++in) {
      b.send(in, make_packet(Hdr{.len = 2,
                                 .dst = 0x10,
                                 .src = static_cast<std::uint16_t>(in),
                                 .prio = kQ,
                                 .flow = round * 3 + in}));
    }
    for (unsigned k = 0; k < 60; ++k) {
      co_await ClockCycles(b.clk, 20);
      const std::uint32_t st = b.dev.read32(kState);
      const unsigned active =
          get(st, SWITCH_CSR__ECN_DYN_STATE__ACTIVE_bp, SWITCH_CSR__ECN_DYN_STATE__ACTIVE_bm);
      const unsigned shift =
          get(st, SWITCH_CSR__ECN_DYN_STATE__SHIFT_bp, SWITCH_CSR__ECN_DYN_STATE__SHIFT_bm);
      max_active = std::max(max_active, active);
      TB_CHECK(active <= 3) << "ACTIVE " << active << " with three inputs";
      if (active == 3) {
        seen = true;
        TB_CHECK_EQ(shift, 1U) << "floor(log2 3) - FAN_SH 0";
        TB_CHECK_EQ(b.dev.read32(kK), (256U << 16) | 32U) << "thresholds halved";
      }
    }
  }
  TB_CHECK(seen) << "no window with all three inputs (most " << max_active << ")";
  select(kOut, 5);
  TB_CHECK_EQ(b.dev.read32(kK), (80U << 16) | 40U) << "queue 5: law off";
  TB_CHECK_EQ(b.dev.read32(kState), 9U);
  select(kPorts, kQ);
  TB_CHECK_EQ(b.dev.read32(kK), 0U) << "a port the switch does not have";
  b.dev.write32(kCtrl, ctrl_word(0, 10, 0));
  select(kOut, kQ);
  TB_CHECK_EQ(b.dev.read32(kK), (512U << 16) | 64U) << "law off again: static";
  TB_CHECK_EQ(b.dev.read32(kState), 32U);
  b.hold_tx(kOut, false);
  co_await b.drain();
  TB_CHECK_EQ(b.out[kOut].size(), 9U);
  std::cout << "switch_ecn_dyn.fan_in_shift: most active inputs in a window " << max_active << "\n";
}
