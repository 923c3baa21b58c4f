// Reference model of rr_arbiter, from the interface spec only: a pointer
// (reset 0) names the highest-priority requester; the winner is the first
// requester at or after it, cyclically; on ack with a grant the pointer moves
// to winner + 1, otherwise it stays. Outputs are combinational in req.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace syncfab::tb::ref {

class RrArbiter {
 public:
  explicit RrArbiter(unsigned num_req) : n_(num_req) {
    if (num_req == 0 || num_req > 64) {
      throw std::invalid_argument("RrArbiter: 1..64 requesters");
    }
  }

  [[nodiscard]] std::optional<unsigned> winner(std::uint64_t req) const {
    for (unsigned k = 0; k < n_; ++k) {
      const unsigned i = (ptr_ + k) % n_;
      if ((req >> i) & 1U) {
        return i;
      }
    }
    return std::nullopt;
  }
  [[nodiscard]] std::uint64_t gnt(std::uint64_t req) const {
    auto w = winner(req);
    return w ? (std::uint64_t{1} << *w) : 0;
  }
  [[nodiscard]] unsigned gnt_idx(std::uint64_t req) const { return winner(req).value_or(0); }
  [[nodiscard]] bool gnt_valid(std::uint64_t req) const { return winner(req).has_value(); }
  [[nodiscard]] unsigned pointer() const noexcept { return ptr_; }

  void edge(std::uint64_t req, bool ack) {
    if (auto w = winner(req); ack && w) {
      ptr_ = (*w + 1) % n_;
    }
  }
  void reset() noexcept { ptr_ = 0; }

 private:
  unsigned n_;
  unsigned ptr_ = 0;
};

}  // namespace syncfab::tb::ref
