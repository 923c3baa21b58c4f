#include "syncfab/model/ecn_controller.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace syncfab::model {

namespace {

// Field positions of docs/switch-ecn-dynamic.md §6, from the register map.
constexpr unsigned kEnShift = SWITCH_CSR__ECN_DYN_CTRL__EN_bp;
constexpr std::uint32_t kEnMask = SWITCH_CSR__ECN_DYN_CTRL__EN_bm >> kEnShift;
constexpr unsigned kWinShift = SWITCH_CSR__ECN_DYN_CTRL__WIN_bp;
constexpr std::uint32_t kWinMask = SWITCH_CSR__ECN_DYN_CTRL__WIN_bm >> kWinShift;
constexpr unsigned kFanShift = SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bp;
constexpr std::uint32_t kFanMask = SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bm >> kFanShift;
constexpr unsigned kQrefShift = SWITCH_CSR__ECN_DYN_TARGET__QREF_bp;
constexpr std::uint32_t kQrefMask = SWITCH_CSR__ECN_DYN_TARGET__QREF_bm >> kQrefShift;
constexpr unsigned kPloShift = SWITCH_CSR__ECN_DYN_PMAX__PLO_bp;
constexpr std::uint32_t kPloMask = SWITCH_CSR__ECN_DYN_PMAX__PLO_bm >> kPloShift;
constexpr unsigned kPhiShift = SWITCH_CSR__ECN_DYN_PMAX__PHI_bp;
constexpr std::uint32_t kPhiMask = SWITCH_CSR__ECN_DYN_PMAX__PHI_bm >> kPhiShift;
constexpr unsigned kPupShift = SWITCH_CSR__ECN_DYN_PMAX__PUP_bp;
constexpr std::uint32_t kPupMask = SWITCH_CSR__ECN_DYN_PMAX__PUP_bm >> kPupShift;
constexpr unsigned kPdnShift = SWITCH_CSR__ECN_DYN_PMAX__PDN_bp;
constexpr std::uint32_t kPdnMask = SWITCH_CSR__ECN_DYN_PMAX__PDN_bm >> kPdnShift;

}  // namespace

void EcnDynConfig::validate() const {
  if (win < kMinWin || win > kMaxWin) {
    throw std::invalid_argument("ecn_dyn: WIN = " + std::to_string(win) + " is outside " +
                                std::to_string(kMinWin) + ".." + std::to_string(kMaxWin));
  }
  if (fan_sh > kMaxFanSh) {
    throw std::invalid_argument("ecn_dyn: FAN_SH = " + std::to_string(fan_sh) + " is above " +
                                std::to_string(kMaxFanSh));
  }
  if (plo > phi) {
    throw std::invalid_argument("ecn_dyn: PLO = " + std::to_string(plo) +
                                " is above PHI = " + std::to_string(phi));
  }
}

std::uint32_t EcnDynConfig::ctrl_word() const noexcept {
  return (enable & kEnMask) << kEnShift | (win & kWinMask) << kWinShift |
         (fan_sh & kFanMask) << kFanShift;
}

std::uint32_t EcnDynConfig::target_word() const noexcept {
  return (qref & kQrefMask) << kQrefShift;
}

std::uint32_t EcnDynConfig::pmax_word() const noexcept {
  return (plo & kPloMask) << kPloShift | (phi & kPhiMask) << kPhiShift |
         (pup & kPupMask) << kPupShift | (pdn & kPdnMask) << kPdnShift;
}

EcnDynConfig EcnDynConfig::from_words(std::uint32_t ctrl, std::uint32_t target,
                                      std::uint32_t pmax) noexcept {
  EcnDynConfig c;
  c.enable = static_cast<std::uint8_t>(ctrl >> kEnShift & kEnMask);
  c.win = ctrl >> kWinShift & kWinMask;
  c.fan_sh = ctrl >> kFanShift & kFanMask;
  c.qref = static_cast<std::uint16_t>(target >> kQrefShift & kQrefMask);
  c.plo = static_cast<std::uint8_t>(pmax >> kPloShift & kPloMask);
  c.phi = static_cast<std::uint8_t>(pmax >> kPhiShift & kPhiMask);
  c.pup = static_cast<std::uint8_t>(pmax >> kPupShift & kPupMask);
  c.pdn = static_cast<std::uint8_t>(pmax >> kPdnShift & kPdnMask);
  return c;
}

bool EcnDynConfig::ctrl_write_ok(std::uint32_t v) noexcept {
  const unsigned w = v >> kWinShift & kWinMask;
  return w >= kMinWin && w <= kMaxWin;
}

bool EcnDynConfig::pmax_write_ok(std::uint32_t v) noexcept {
  return (v >> kPloShift & kPloMask) <= (v >> kPhiShift & kPhiMask);
}

bool EcnController::window_end(std::uint64_t cycle, unsigned win) noexcept {
  const std::uint64_t mask = (std::uint64_t{1} << win) - 1;
  const std::uint64_t cnt = cycle & ((std::uint64_t{1} << EcnDynConfig::kCounterBits) - 1);
  return (cnt & mask) == mask;
}

unsigned EcnController::floor_log2(unsigned n) noexcept {
  return n == 0 ? 0 : static_cast<unsigned>(std::bit_width(n)) - 1;
}

WredConfig EcnController::effective(bool on, const WredConfig& stat) const noexcept {
  if (!on) {
    return stat;
  }
  WredConfig e = stat;
  e.kmin = stat.kmin >> sh_;
  e.kmax = stat.kmax >> sh_;
  e.pmax = p_;
  return e;
}

std::uint32_t EcnController::status_k(bool on, const WredConfig& stat) const noexcept {
  const WredConfig e = effective(on, stat);
  return (e.kmin & 0xFFFFU) | (e.kmax & 0xFFFFU) << 16;
}

std::uint32_t EcnController::status_state(bool on, const WredConfig& stat) const noexcept {
  const WredConfig e = effective(on, stat);
  return (e.pmax & 0xFFU) | (on ? sh_ : 0U) << 8 | (on ? n_last_ : 0U) << 16;
}

void EcnController::clear_window() noexcept {
  acc_qmax_ = 0;
  acc_empty_ = false;
  acc_act_ = 0;
  acc_pause_ = false;
}

void EcnController::step(bool on, bool last, const EcnDynConfig& cfg, const EcnCtrlInputs& in,
                         const WredConfig& stat) {
  if (in.qlen > 0xFFFFU) {
    throw std::out_of_range("ecn_ctrl: qlen = " + std::to_string(in.qlen) +
                            " does not fit in 16 bits");
  }
  if (!on) {
    sh_ = 0;
    p_ = stat.pmax & 0xFFU;
    n_last_ = 0;
    clear_window();
    return;
  }
  const std::uint32_t qmax = std::max(acc_qmax_, in.qlen);
  const bool empty = acc_empty_ || in.qlen == 0;
  const std::uint64_t act = acc_act_ | in.enq;
  const bool paused = acc_pause_ || in.pause;
  if (!last) {
    acc_qmax_ = qmax;
    acc_empty_ = empty;
    acc_act_ = act;
    acc_pause_ = paused;
    return;
  }
  // §4, in its order.
  const auto n = static_cast<unsigned>(std::popcount(act));
  const unsigned lg = floor_log2(n);
  const unsigned sh_new = lg > cfg.fan_sh ? lg - cfg.fan_sh : 0;
  unsigned raw = p_;
  if (qmax > cfg.qref) {
    raw = p_ + cfg.pup;
  } else if (empty && n != 0 && !paused) {
    raw = p_ >= cfg.pdn ? p_ - cfg.pdn : 0;
  }
  p_ = std::min<unsigned>(std::max<unsigned>(raw, cfg.plo), cfg.phi);
  sh_ = sh_new;
  n_last_ = n;
  clear_window();
}

}  // namespace syncfab::model
