// DCQCN's reaction point for one flow: the rate law of docs/nic/dcqcn.md
// section 5 in its fixed-point arithmetic (rates in 2^-16 flits per cycle,
// alpha in 2^-16), bit-exact with the RTL. One call of end_cycle() is the
// clock edge closing a cycle of a RUNNING flow.
#pragma once

#include <cstdint>

#include <syncfab/hw/dcqcn_regs.hpp>

namespace syncfab::model {

// The reaction-point registers (one set for every flow), reset values from
// the RDL.
struct DcqcnParams {
  std::uint32_t g_shift = hw::dcqcn::kGShiftReset;            // ALPHA_CFG.G_SHIFT, 1..16
  std::uint32_t alpha_timer = hw::dcqcn::kAlphaTimerReset;    // ALPHA_TIMER.CYCLES, >= 1
  std::uint32_t rate_timer = hw::dcqcn::kRateTimerReset;      // RATE_TIMER.CYCLES, >= 1
  std::uint32_t byte_counter = hw::dcqcn::kByteCounterReset;  // BYTE_COUNTER.FLITS, >= 1
  std::uint32_t stages = hw::dcqcn::kStagesReset;             // RATE_STAGES.F
  std::uint32_t rate_ai = hw::dcqcn::kRateAiReset;            // RATE_AI.RATE, 1..RATE_LINE
  std::uint32_t rate_hai = hw::dcqcn::kRateHaiReset;          // RATE_HAI.RATE
  std::uint32_t rate_min = hw::dcqcn::kRateMinReset;          // RATE_MIN.RATE
};

class DcqcnRp {
 public:
  // A new flow (START): RC = RT = RATE_LINE, alpha = ALPHA_ONE, counts 0.
  DcqcnRp() { reset(); }
  void reset() noexcept;

  // Flits of a packet granted in this cycle (before end_cycle()).
  void add_flits(std::uint32_t flits) noexcept { byte_count_ += flits; }
  // The edge closing a cycle: a CNP matched in it (cnp) or the timers and
  // the byte counter advance.
  void end_cycle(const DcqcnParams& p, bool cnp) noexcept;

  [[nodiscard]] std::uint32_t rc() const noexcept { return rc_; }
  [[nodiscard]] std::uint32_t rt() const noexcept { return rt_; }
  [[nodiscard]] std::uint32_t alpha() const noexcept { return alpha_; }
  [[nodiscard]] std::uint32_t timer_stage() const noexcept { return t_; }
  [[nodiscard]] std::uint32_t byte_stage() const noexcept { return bc_; }

 private:
  void on_cnp(const DcqcnParams& p) noexcept;
  void increase(const DcqcnParams& p) noexcept;

  std::uint32_t rc_ = 0;
  std::uint32_t rt_ = 0;
  std::uint32_t alpha_ = 0;
  std::uint32_t alpha_timer_ = 0;
  std::uint32_t rate_timer_ = 0;
  std::uint64_t byte_count_ = 0;
  std::uint32_t t_ = 0;
  std::uint32_t bc_ = 0;
};

}  // namespace syncfab::model
