// PFC deadlock detection, recovery and control for one egress port
// (switch-pfc spec, pfc_watchdog; white paper section 3.1.3).
//
// Cycle-exact with the RTL. Per queue p: MONITOR counts continuous XOFF
// cycles and declares a deadlock after detect of them; RECOVER (ignore pause,
// or drop, for recover cycles) then back to MONITOR; a deadlock that makes
// more than limit in the open window goes to DISABLED instead, until
// software's reenable. The window runs in every state.
#pragma once

#include <array>
#include <cstdint>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/model/pfc_tx.hpp"  // kPfcMaxPrio

namespace syncfab::model {

struct PfcWatchdogParams {
  unsigned num_prio = fmt::kNumPrio;  // 1..32
  unsigned time_w = 24;               // detect / recover / window width, 1..32
  unsigned cnt_w = 8;                 // deadlock count width, 1..32
};

struct PfcWatchdogInputs {
  std::uint64_t enable = 0;
  std::uint64_t xoff = 0;
  std::uint32_t detect = 1;
  std::uint32_t recover = 1;
  bool drop_mode = false;
  std::uint32_t window = 1;
  std::uint32_t limit = 0;  // 0: never disable
  std::uint64_t reenable = 0;
};

struct PfcWatchdogOutputs {
  std::uint64_t ignore = 0;       // registered
  std::uint64_t drop = 0;         // registered
  std::uint64_t pfc_off = 0;      // registered
  std::uint64_t state = 0;        // registered: 2 bits per queue, queue p at bits 2p+1:2p
  std::uint64_t evt_detect = 0;   // comb
  std::uint64_t evt_recover = 0;  // comb
  std::uint64_t evt_disable = 0;  // comb

  friend bool operator==(const PfcWatchdogOutputs&, const PfcWatchdogOutputs&) = default;
};

// Per-queue state.
struct WdQueue {
  fmt::WdState state = fmt::WdState::kMonitor;
  std::uint32_t cnt = 0;
  std::uint32_t win = 0;
  bool win_open = false;
  std::uint32_t dl = 0;
  bool drop = false;

  friend bool operator==(const WdQueue&, const WdQueue&) = default;
};

struct PfcWatchdogCycle {
  PfcWatchdogOutputs out;
  std::uint64_t win_closed = 0;    // the window closed (no deadlock in the same cycle)
  std::uint64_t win_reopened = 0;  // closing window replaced by a new one (deadlock that cycle)
  std::uint64_t reenabled = 0;     // DISABLED left on reenable
  std::uint64_t dl_saturated = 0;  // a deadlock counted with dl already all ones
  std::array<WdQueue, kPfcMaxPrio> next{};
};

class PfcWatchdog {
 public:
  explicit PfcWatchdog(PfcWatchdogParams params = {});

  [[nodiscard]] PfcWatchdogCycle decide(const PfcWatchdogInputs& in) const;
  [[nodiscard]] PfcWatchdogOutputs eval(const PfcWatchdogInputs& in) const {
    return decide(in).out;
  }
  PfcWatchdogOutputs step(const PfcWatchdogInputs& in);
  void reset() noexcept { q_.fill(WdQueue{}); }

  [[nodiscard]] const WdQueue& queue(unsigned p) const { return q_.at(p); }
  [[nodiscard]] const PfcWatchdogParams& params() const noexcept { return params_; }
  [[nodiscard]] std::uint64_t all() const noexcept { return all_; }

 private:
  void check(const PfcWatchdogInputs& in) const;

  PfcWatchdogParams params_;
  std::uint64_t all_ = 0;
  std::uint32_t cnt_max_ = 0;
  std::uint32_t tmax_ = 0;
  std::array<WdQueue, kPfcMaxPrio> q_{};
};

}  // namespace syncfab::model
