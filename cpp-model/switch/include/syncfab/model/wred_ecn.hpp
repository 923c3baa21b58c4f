// WRED/ECN decision at egress enqueue (switch-egress spec, wred_ecn).
//
// Bit-exact with the RTL: the random number is a 16-bit Galois LFSR that
// steps once per enqueue, and the decision of an enqueue uses the state
// before its own step. A packet is "selected" below Kmin never, at or above
// Kmax always, and in between when r * (Kmax - Kmin) < (Pmax << (16 - ProbW)) *
// (qlen - Kmin); a selected ECN-capable packet is marked CE, a selected
// Not-ECT packet is dropped unless its priority is lossless.
#pragma once

#include <cstdint>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::model {

// The packet's 2-bit ECN field (codepoints from the format spec).
using fmt::Ecn;

// Build-time shape of one WRED instance (the RTL's parameters).
struct WredParams {
  unsigned qlen_w = 16;              // queue length / threshold width, 1..16
  unsigned prob_w = 8;               // Pmax = pmax / 2^prob_w, 1..16
  std::uint16_t lfsr_seed = 0xACE1;  // LFSR reset state, non-zero
};

// Per-queue run-time configuration (CSRs).
struct WredConfig {
  bool enable = false;
  std::uint32_t kmin = 0;
  std::uint32_t kmax = 0;
  std::uint32_t pmax = 0;
};

// One enqueue.
struct WredPacket {
  std::uint32_t qlen = 0;  // queue length at enqueue
  Ecn ecn = Ecn::kNotEct;
  bool lossless = false;  // PFC-enabled priority: never dropped
};

struct WredDecision {
  bool hit = false;   // selected by the WRED curve (before the ECN/lossless rules)
  bool mark = false;  // set CE
  bool drop = false;
  Ecn ecn = Ecn::kNotEct;  // the ECN field after marking

  friend bool operator==(const WredDecision&, const WredDecision&) = default;
};

class WredEcn {
 public:
  static constexpr std::uint16_t kLfsrMask = 0xD008;

  explicit WredEcn(WredParams params = {});

  // The decision for a packet enqueued now (current LFSR state); no step.
  [[nodiscard]] WredDecision decide(const WredPacket& pkt, const WredConfig& cfg) const;
  // One enqueue: decide, then step the LFSR.
  WredDecision enqueue(const WredPacket& pkt, const WredConfig& cfg);
  // One clock edge: the LFSR steps iff a packet was enqueued in that cycle.
  void clock(bool req) {
    if (req) {
      lfsr_ = lfsr_next(lfsr_);
    }
  }
  void reset() noexcept { lfsr_ = params_.lfsr_seed; }

  [[nodiscard]] std::uint16_t lfsr_state() const noexcept { return lfsr_; }
  [[nodiscard]] const WredParams& params() const noexcept { return params_; }

  // The selection rule for random number r (pure; validates ranges).
  [[nodiscard]] bool selected(std::uint16_t r, std::uint32_t qlen, const WredConfig& cfg) const;

  [[nodiscard]] static constexpr std::uint16_t lfsr_next(std::uint16_t s) noexcept {
    return static_cast<std::uint16_t>((s >> 1) ^ ((s & 1U) != 0 ? kLfsrMask : 0U));
  }

 private:
  void check(std::uint32_t qlen, const WredConfig& cfg) const;

  WredParams params_;
  std::uint16_t lfsr_;
};

}  // namespace syncfab::model
