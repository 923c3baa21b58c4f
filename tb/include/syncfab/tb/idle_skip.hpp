// Idle skipping: a verilated model whose state and inputs did not change over
// one rising clock edge sits at a fixed point (a synchronous model maps the
// same state and inputs to the same next state), so every further edge leaves
// it where it is until an input changes; its evals can be skipped until then.
// TestContext::skip_when_idle turns this on for one model (fabrics of many
// mostly idle NICs and switches); tracing turns it off.
//
//   * Detection, at the end of every step in which the model's clock is high,
//     once per cycle: when its inputs are the ones of the previous cycle's
//     check, the whole model (its root, every variable the model keeps) is
//     compared with the copy taken then; equal means a fixed point.
//   * Asleep, an eval is skipped while every input but the clock equals the
//     inputs at the fixed point (ModelInputs<Model>, generated from the
//     model's ports by scripts/vl_inputs.py); the first eval that sees a
//     changed input wakes the model and runs. It fell asleep at a rising edge
//     with its clock high, so the edge it wakes in is not seen twice.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "syncfab/tb/sim.hpp"

namespace syncfab::tb {

// The inputs of a model but its clock: specialised for every verilated model
// by the header scripts/vl_inputs.py writes next to V<top>.h
// (V<top>__inputs.hpp). struct State; capture(model, state); same(model, state).
template <class Model>
struct ModelInputs;

struct IdleSkipStats {
  std::uint64_t skipped_evals = 0;
  std::uint64_t sleeps = 0;
};

class IdleSkipBase {
 public:
  IdleSkipBase() = default;
  IdleSkipBase(const IdleSkipBase&) = delete;
  IdleSkipBase& operator=(const IdleSkipBase&) = delete;
  IdleSkipBase(IdleSkipBase&&) = delete;
  IdleSkipBase& operator=(IdleSkipBase&&) = delete;
  virtual ~IdleSkipBase() = default;
  // Before an eval: true to skip it (asleep, inputs unchanged).
  virtual bool skip() = 0;
  // End of a time step: the fixed-point check.
  virtual void step_end() = 0;
  [[nodiscard]] const IdleSkipStats& stats() const noexcept { return stats_; }

 protected:
  IdleSkipStats stats_;
};

template <class Model>
class IdleSkip final : public IdleSkipBase {
 public:
  using Inputs = ModelInputs<Model>;

  IdleSkip(Model& model, const Clock& clk) : model_(model), clk_(clk) {}

  bool skip() override {
    if (!asleep_) {
      return false;
    }
    if (Inputs::same(model_, asleep_inputs_)) {
      ++stats_.skipped_evals;
      return true;
    }
    asleep_ = false;
    have_snapshot_ = false;
    return false;
  }

  void step_end() override {
    if (asleep_ || model_.clk_i == 0 || clk_.cycles() == checked_cycle_) {
      return;
    }
    const std::uint64_t cycle = clk_.cycles();
    const bool next = cycle == checked_cycle_ + 1;
    checked_cycle_ = cycle;
    // The model's state as bytes: every variable the model keeps, padding
    // included (padding that differs only costs a missed sleep).
    const auto state = std::as_bytes(std::span(model_.rootp, 1));
    if (next && have_snapshot_ && std::equal(state.begin(), state.end(), snapshot_.begin())) {
      asleep_ = true;
      Inputs::capture(model_, asleep_inputs_);
      ++stats_.sleeps;
      return;
    }
    // A snapshot can only match next cycle if the inputs hold still: take one
    // when they held still over this cycle.
    const bool steady = next && Inputs::same(model_, last_inputs_);
    Inputs::capture(model_, last_inputs_);
    have_snapshot_ = steady;
    if (steady) {
      snapshot_.assign(state.begin(), state.end());
    }
  }

 private:
  Model& model_;
  const Clock& clk_;
  bool asleep_ = false;
  bool have_snapshot_ = false;
  std::uint64_t checked_cycle_ = ~std::uint64_t{0};
  std::vector<std::byte> snapshot_;
  typename Inputs::State last_inputs_{};
  typename Inputs::State asleep_inputs_{};
};

}  // namespace syncfab::tb
