#include "syncfab/model/pfc_watchdog.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::model {

namespace {

std::uint64_t ones(unsigned w) { return w >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1; }

// The spec's `v >= t - 1`, in TimeW bits: a time of 0 (legal only while no
// queue is enabled, the spec's assertion) wraps to all ones, i.e. acts as
// 2^TimeW (docs/switch-pfc.md, Model decisions).
bool reached(std::uint32_t v, std::uint32_t t, std::uint32_t tmax) {
  return v >= ((t - 1U) & tmax);
}

}  // namespace

PfcWatchdog::PfcWatchdog(PfcWatchdogParams params) : params_(params) {
  if (params_.num_prio < 1 || params_.num_prio > kPfcMaxPrio) {
    throw std::invalid_argument("pfc_watchdog: NumPrio = " + std::to_string(params_.num_prio) +
                                " is outside 1.." + std::to_string(kPfcMaxPrio));
  }
  if (params_.time_w < 1 || params_.time_w > 32 || params_.cnt_w < 1 || params_.cnt_w > 32) {
    throw std::invalid_argument("pfc_watchdog: TimeW = " + std::to_string(params_.time_w) +
                                " / CntW = " + std::to_string(params_.cnt_w) +
                                " must each be in 1..32");
  }
  all_ = ones(params_.num_prio);
  cnt_max_ = static_cast<std::uint32_t>(ones(params_.cnt_w));
  tmax_ = static_cast<std::uint32_t>(ones(params_.time_w));
}

void PfcWatchdog::check(const PfcWatchdogInputs& in) const {
  if (((in.enable | in.xoff | in.reenable) & ~all_) != 0) {
    throw std::out_of_range("pfc_watchdog: enable/xoff/reenable names a queue >= NumPrio");
  }
  if (in.detect > tmax_ || in.recover > tmax_ || in.window > tmax_) {
    throw std::out_of_range("pfc_watchdog: detect/recover/window overflow TimeW");
  }
  if (in.limit > cnt_max_) {
    throw std::out_of_range("pfc_watchdog: limit " + std::to_string(in.limit) + " overflows CntW");
  }
  if (in.enable != 0 && (in.detect == 0 || in.recover == 0 || in.window == 0)) {
    throw std::invalid_argument("pfc_watchdog: detect " + std::to_string(in.detect) + ", recover " +
                                std::to_string(in.recover) + ", window " +
                                std::to_string(in.window) +
                                ": none may be 0 while a queue is enabled");
  }
}

PfcWatchdogCycle PfcWatchdog::decide(const PfcWatchdogInputs& in) const {
  check(in);
  PfcWatchdogCycle c;
  PfcWatchdogOutputs& o = c.out;
  for (unsigned p = 0; p < params_.num_prio; ++p) {
    const std::uint64_t bit = std::uint64_t{1} << p;
    const WdQueue& q = q_[p];
    WdQueue d = q;

    // Outputs from the state.
    o.state |= std::uint64_t{static_cast<std::uint8_t>(q.state)} << (2 * p);
    o.ignore |= q.state != fmt::WdState::kMonitor ? bit : 0;
    o.drop |= q.state == fmt::WdState::kRecover && q.drop ? bit : 0;
    o.pfc_off |= q.state == fmt::WdState::kDisabled ? bit : 0;

    // Is a deadlock declared this cycle (MONITOR only)?
    const bool watching =
        q.state == fmt::WdState::kMonitor && (in.enable & bit) != 0 && (in.xoff & bit) != 0;
    const bool declared = watching && reached(q.cnt, in.detect, tmax_);

    // Window (every state); its dl_d is the count the MONITOR rule uses.
    const bool closing = q.win_open && reached(q.win, in.window, tmax_);
    if (closing || !q.win_open) {
      if (declared) {
        d.win_open = true;
        d.win = 0;
        d.dl = 1;
        c.win_reopened |= closing ? bit : 0;
      } else if (closing) {
        d.win_open = false;
        d.win = 0;
        d.dl = 0;
        c.win_closed |= bit;
      }
    } else {
      d.win = q.win + 1;  // < window - 1 <= all ones: no wrap
      if (declared) {
        d.dl = q.dl == cnt_max_ ? cnt_max_ : q.dl + 1;
        c.dl_saturated |= q.dl == cnt_max_ ? bit : 0;
      }
    }

    switch (q.state) {
      case fmt::WdState::kMonitor:
        if (!watching) {
          d.cnt = 0;
        } else if (declared) {
          o.evt_detect |= bit;
          d.cnt = 0;
          if (in.limit != 0 && d.dl > in.limit) {
            d.state = fmt::WdState::kDisabled;
            o.evt_disable |= bit;
          } else {
            d.state = fmt::WdState::kRecover;
            d.drop = in.drop_mode;
          }
        } else {
          d.cnt = q.cnt + 1;
        }
        break;
      case fmt::WdState::kRecover:
        if (reached(q.cnt, in.recover, tmax_)) {
          d.state = fmt::WdState::kMonitor;
          d.cnt = 0;
          o.evt_recover |= bit;
        } else {
          d.cnt = q.cnt + 1;  // < recover - 1 <= all ones: no wrap
        }
        break;
      case fmt::WdState::kDisabled:
        if ((in.reenable & bit) != 0) {
          d.state = fmt::WdState::kMonitor;
          d.cnt = 0;
          d.win_open = false;
          d.dl = 0;
          d.win = 0;
          c.reenabled |= bit;
        }
        break;
    }
    c.next[p] = d;
  }
  return c;
}

PfcWatchdogOutputs PfcWatchdog::step(const PfcWatchdogInputs& in) {
  const PfcWatchdogCycle c = decide(in);
  q_ = c.next;
  return c.out;
}

}  // namespace syncfab::model
