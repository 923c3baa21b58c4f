// Reference model of stream_arbiter, from the interface spec only: round
// robin as in rr_arbiter (a pointer, reset 0; the winner is the first asking
// source at or after it; a taken transfer moves the pointer past the winner),
// plus the lock: a winner shown and not taken stays the winner while it keeps
// asking, whoever else asks. Outputs are combinational in valid.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace syncfab::tb::ref {

class StreamArbiter {
 public:
  explicit StreamArbiter(unsigned num_req) : n_(num_req) {
    if (num_req == 0 || num_req > 64) {
      throw std::invalid_argument("StreamArbiter: 1..64 sources");
    }
  }

  [[nodiscard]] std::optional<unsigned> winner(std::uint64_t valid) const {
    if (locked(valid)) {
      return lock_idx_;
    }
    for (unsigned k = 0; k < n_; ++k) {
      const unsigned i = (ptr_ + k) % n_;
      if ((valid >> i) & 1U) {
        return i;
      }
    }
    return std::nullopt;
  }
  // The lock decides this cycle's winner (not the pointer).
  [[nodiscard]] bool locked(std::uint64_t valid) const {
    return lock_ && ((valid >> lock_idx_) & 1U) != 0;
  }
  [[nodiscard]] bool lock_pending() const noexcept { return lock_; }
  [[nodiscard]] unsigned lock_idx() const noexcept { return lock_idx_; }
  [[nodiscard]] std::uint64_t gnt(std::uint64_t valid) const {
    auto w = winner(valid);
    return w ? (std::uint64_t{1} << *w) : 0;
  }
  [[nodiscard]] unsigned idx(std::uint64_t valid) const { return winner(valid).value_or(0); }
  [[nodiscard]] unsigned pointer() const noexcept { return ptr_; }

  void edge(std::uint64_t valid, bool ready) {
    const auto w = winner(valid);
    if (w && ready) {
      ptr_ = (*w + 1) % n_;
    }
    lock_ = w && !ready;
    if (lock_) {
      lock_idx_ = *w;
    }
  }
  void reset() noexcept {
    ptr_ = 0;
    lock_ = false;
  }

 private:
  unsigned n_;
  unsigned ptr_ = 0;
  bool lock_ = false;
  unsigned lock_idx_ = 0;
};

}  // namespace syncfab::tb::ref
