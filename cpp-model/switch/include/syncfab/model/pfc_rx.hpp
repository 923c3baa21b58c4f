// Honouring received PFC frames for one egress port (switch-pfc spec,
// pfc_rx).
//
// Cycle-exact with the RTL: per priority a timer of 16 + CpqW bits holds the
// cycles of pause left. A frame for an enabled p replaces it with quanta x
// cycles-per-quantum (0 = resume); otherwise it counts down to 0; disabling p
// clears it. xoff shows the timer (what the peer asked for), stop masks it
// with the watchdog's ignore.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/model/pfc_tx.hpp"  // kPfcMaxPrio

namespace syncfab::model {

struct PfcRxParams {
  unsigned num_prio = fmt::kNumPrio;  // 1..32
  unsigned cpq_w = 8;                 // cycles-per-quantum width, 1..32
};

struct PfcRxInputs {
  std::uint64_t enable = 0;
  std::uint32_t cyc_per_quantum = 1;
  bool frame_valid = false;
  std::uint64_t class_enable = 0;
  std::span<const std::uint16_t> quanta;  // one per priority
  std::uint64_t ignore = 0;
};

struct PfcRxOutputs {
  std::uint64_t xoff = 0;         // registered
  std::uint64_t stop = 0;         // comb
  std::uint64_t evt_xoff_rx = 0;  // comb
  std::uint64_t evt_xon_rx = 0;   // comb

  friend bool operator==(const PfcRxOutputs&, const PfcRxOutputs&) = default;
};

struct PfcRxCycle {
  PfcRxOutputs out;
  std::uint64_t hit = 0;
  std::array<std::uint64_t, kPfcMaxPrio> timer_d{};
};

class PfcRx {
 public:
  explicit PfcRx(PfcRxParams params = {});

  [[nodiscard]] PfcRxCycle decide(const PfcRxInputs& in) const;
  [[nodiscard]] PfcRxOutputs eval(const PfcRxInputs& in) const { return decide(in).out; }
  PfcRxOutputs step(const PfcRxInputs& in);
  void reset() noexcept { timer_.fill(0); }

  [[nodiscard]] std::uint64_t timer(unsigned p) const { return timer_.at(p); }
  [[nodiscard]] const PfcRxParams& params() const noexcept { return params_; }
  [[nodiscard]] std::uint64_t all() const noexcept { return all_; }

 private:
  void check(const PfcRxInputs& in) const;

  PfcRxParams params_;
  std::uint64_t all_ = 0;
  std::array<std::uint64_t, kPfcMaxPrio> timer_{};
};

}  // namespace syncfab::model
