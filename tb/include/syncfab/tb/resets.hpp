// Resets at random points of a long random test, so every test also checks
// that reset mid-traffic returns the DUT and its reference to the same state.
//
//   RandomResets resets(cycles, ctx.rng());
//   for (...) {
//     const bool in_reset = resets.step(cycle);
//     if (resets.started()) cov.hit(c_reset);
//     if (in_reset) model.reset();
//     dut.rst_ni = in_reset ? 0 : 1;
//   }
//
// A reset lasts two steps (held over two rising edges, which the RTL's
// assertions require); the gaps between resets are drawn uniformly from
// [span/8 + 1, span/3 + 2], so a run of `span` steps sees a few.
#pragma once

#include <cstdint>
#include <random>

namespace syncfab::tb {

class RandomResets {
 public:
  RandomResets(std::int64_t span, std::mt19937_64& rng)
      : rng_(&rng), gap_(span / 8 + 1, span / 3 + 2), next_(gap_(rng)) {}

  // Advances to step `now` (a cycle or an operation count, non-decreasing);
  // true while this step is in reset.
  bool step(std::int64_t now) {
    started_ = false;
    if (left_ == 0 && now >= next_) {
      started_ = true;
      left_ = kLength;
      next_ += gap_(*rng_);
    }
    if (left_ == 0) {
      return false;
    }
    --left_;
    return true;
  }
  // A reset began at the last step().
  [[nodiscard]] bool started() const noexcept { return started_; }

 private:
  static constexpr int kLength = 2;
  std::mt19937_64* rng_;
  std::uniform_int_distribution<std::int64_t> gap_;
  std::int64_t next_;
  int left_ = 0;
  bool started_ = false;
};

}  // namespace syncfab::tb
