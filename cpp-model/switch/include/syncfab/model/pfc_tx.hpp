// PFC pause/resume frame generation for one ingress port (switch-pfc spec,
// pfc_tx).
//
// Cycle-exact with the RTL: decide(in) is everything of cycle t (the
// registered outputs from the state, the combinational ones from the state
// and this cycle's inputs, and the state the edge ending t writes); step(in)
// returns those outputs and applies the edge. Per priority p the state is
// xoff (the peer is held paused), pend (p goes out in the next frame) and ref
// (cycles since p's last pause frame left, for the refresh).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::model {

inline constexpr unsigned kPfcMaxPrio = 32;

struct PfcTxParams {
  unsigned num_prio = fmt::kNumPrio;  // 1..32
  unsigned occ_w = 16;                // occupancy / threshold width, 1..32
  unsigned ref_w = 16;                // refresh interval width, 1..32
};

// One cycle's inputs; the spans hold one entry per priority.
struct PfcTxInputs {
  std::uint64_t enable = 0;  // bit p: PFC on priority p
  std::span<const std::uint32_t> occ;
  std::span<const std::uint32_t> xoff_thr;
  std::span<const std::uint32_t> xon_thr;
  std::span<const std::uint16_t> quanta;
  std::uint32_t refresh = 0;  // 0: never refresh
  bool frame_ready = false;
};

struct PfcTxOutputs {
  bool frame_valid = false;                               // registered
  std::uint64_t class_enable = 0;                         // registered
  std::array<std::uint16_t, kPfcMaxPrio> frame_quanta{};  // comb (0 beyond NumPrio)
  std::uint64_t xoff = 0;                                 // registered
  std::uint64_t evt_xoff_tx = 0;                          // comb
  std::uint64_t evt_xon_tx = 0;                           // comb

  friend bool operator==(const PfcTxOutputs&, const PfcTxOutputs&) = default;
};

// The outputs of one cycle, the rule terms the tests count, and the state
// the edge writes.
struct PfcTxCycle {
  PfcTxOutputs out;
  std::uint64_t sent = 0;  // step 2
  std::uint64_t due = 0;   // step 3: refresh due
  std::uint64_t xoff_d = 0;
  std::uint64_t pend_d = 0;
  std::array<std::uint32_t, kPfcMaxPrio> ref_d{};
};

class PfcTx {
 public:
  explicit PfcTx(PfcTxParams params = {});

  [[nodiscard]] PfcTxCycle decide(const PfcTxInputs& in) const;
  [[nodiscard]] PfcTxOutputs eval(const PfcTxInputs& in) const { return decide(in).out; }
  // One clock edge (not in reset): returns cycle t's outputs, then applies
  // the edge ending t.
  PfcTxOutputs step(const PfcTxInputs& in);
  void reset() noexcept;

  [[nodiscard]] std::uint64_t xoff() const noexcept { return xoff_; }
  [[nodiscard]] std::uint64_t pend() const noexcept { return pend_; }
  [[nodiscard]] std::uint32_t ref(unsigned p) const { return ref_.at(p); }
  [[nodiscard]] const PfcTxParams& params() const noexcept { return params_; }
  [[nodiscard]] std::uint64_t all() const noexcept { return all_; }

 private:
  void check(const PfcTxInputs& in) const;

  PfcTxParams params_;
  std::uint64_t all_ = 0;
  std::uint32_t ref_max_ = 0;
  std::uint64_t xoff_ = 0;
  std::uint64_t pend_ = 0;
  std::array<std::uint32_t, kPfcMaxPrio> ref_{};
};

}  // namespace syncfab::model
