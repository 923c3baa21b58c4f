// Dynamic ECN thresholds (docs/switch-ecn-dynamic.md): the control law of one
// egress queue. At the end of every window of 2^WIN cycles it turns the
// window's peak queue length, "ran empty", active inputs and pause into a
// threshold shift `sh` (from the fan-in) and a marking level `P` (raised
// while the queue peaks above QREF, lowered when it runs empty with inputs
// sending); WRED then uses Kmin >> sh, Kmax >> sh and P. Integer, cycle-exact
// with the RTL's reading of the same text.
#pragma once

#include <cstdint>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/model/wred_ecn.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::model {

// The global registers ECN_DYN_CTRL / TARGET / PMAX, as fields.
struct EcnDynConfig {
  std::uint8_t enable = 0;  // EN: law on for egress queue q of every port (bit q)
  unsigned win = 10;        // windows of 2^win cycles, 4..20
  unsigned fan_sh = 7;      // 0..7
  std::uint16_t qref = 64;  // cells
  std::uint8_t plo = 0;     // marking level bounds (/256), plo <= phi
  std::uint8_t phi = 255;
  std::uint8_t pup = 8;  // steps
  std::uint8_t pdn = 8;

  // WIN's legal range and win_cnt's width (formats.toml): a window fits the
  // counter; FAN_SH takes every value of its field (switch_csr.rdl).
  static constexpr unsigned kMinWin = fmt::kEcnWinMin;
  static constexpr unsigned kMaxWin = fmt::kEcnWinCntWidth;
  static constexpr unsigned kMaxFanSh =
      SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bm >> SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bp;
  static constexpr unsigned kCounterBits = fmt::kEcnWinCntWidth;  // win_cnt

  [[nodiscard]] bool on(unsigned q) const noexcept { return (enable >> q & 1U) != 0; }
  // std::invalid_argument naming the value the register block would refuse.
  void validate() const;

  // Register words (field layout of §6) and back.
  [[nodiscard]] std::uint32_t ctrl_word() const noexcept;
  [[nodiscard]] std::uint32_t target_word() const noexcept;
  [[nodiscard]] std::uint32_t pmax_word() const noexcept;
  [[nodiscard]] static EcnDynConfig from_words(std::uint32_t ctrl, std::uint32_t target,
                                               std::uint32_t pmax) noexcept;
  // Whether a write of `v` to ECN_DYN_CTRL / ECN_DYN_PMAX is accepted
  // (false: PSLVERR, the register keeps its value).
  [[nodiscard]] static bool ctrl_write_ok(std::uint32_t v) noexcept;
  [[nodiscard]] static bool pmax_write_ok(std::uint32_t v) noexcept;
};

// One cycle's inputs of one queue's controller (§3).
struct EcnCtrlInputs {
  std::uint32_t qlen = 0;  // cells at the start of the cycle (saturated at 0xFFFF)
  std::uint64_t enq = 0;   // input ports whose copies reached WRED for this queue
  bool pause = false;      // PAUSE_RX of this port and priority
};

class EcnController {
 public:
  // Whether a cycle whose window counter reads `cycle` (win_cnt, §2) is the
  // last of a window.
  [[nodiscard]] static bool window_end(std::uint64_t cycle, unsigned win) noexcept;
  // floor(log2(n)), 0 for n = 0.
  [[nodiscard]] static unsigned floor_log2(unsigned n) noexcept;

  // The thresholds WRED uses in this cycle (§5): `stat` is the queue's
  // static WRED configuration (its enable passes through).
  [[nodiscard]] WredConfig effective(bool on, const WredConfig& stat) const noexcept;

  // The clock edge ending the current cycle: `on` = EN[q] in the cycle,
  // `last` = window_end(win_cnt, cfg.win).
  void step(bool on, bool last, const EcnDynConfig& cfg, const EcnCtrlInputs& in,
            const WredConfig& stat);

  void reset() noexcept { *this = EcnController{}; }

  // The status words ECN_DYN_K and ECN_DYN_STATE of this queue (§6).
  [[nodiscard]] std::uint32_t status_k(bool on, const WredConfig& stat) const noexcept;
  [[nodiscard]] std::uint32_t status_state(bool on, const WredConfig& stat) const noexcept;

  [[nodiscard]] unsigned shift() const noexcept { return sh_; }
  [[nodiscard]] unsigned level() const noexcept { return p_; }
  [[nodiscard]] unsigned active_last() const noexcept { return n_last_; }

 private:
  void clear_window() noexcept;

  // State (§4).
  unsigned sh_ = 0;
  unsigned p_ = 0;
  unsigned n_last_ = 0;
  // Accumulators (§3).
  std::uint32_t acc_qmax_ = 0;
  bool acc_empty_ = false;
  std::uint64_t acc_act_ = 0;
  bool acc_pause_ = false;
};

}  // namespace syncfab::model
