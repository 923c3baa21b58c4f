// Strict priority + weighted deficit round robin over NumQ egress queues
// (switch-egress spec, sp_wdrr_sched).
//
// Cycle-exact with the RTL: peek() is the combinational choice for the
// current inputs and state (what grant_valid_o/grant_q_o show, also while the
// output is not ready); step(in, ready) is the clock edge, which changes the
// state only when ready. SP queues (highest index first) always win and leave
// the WDRR state alone; otherwise the queue at ptr sends while its deficit
// covers its head packet, and when it cannot, ptr moves to the next eligible
// queue, which earns one quantum and may send in the same cycle.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::model {

struct SchedParams {
  unsigned num_q = fmt::kNumPrio;  // 1..64
  unsigned len_w = 8;              // head packet length width (flits), 1..31
  unsigned weight_w = 8;           // quantum width (flits), 1..31
};

// One cycle's inputs. len and weight hold one entry per queue; len matters
// only for valid queues, weight only for non-SP queues.
struct SchedInputs {
  std::uint64_t valid = 0;  // bit q: queue q has a packet and may send
  std::uint64_t sp = 0;     // bit q: queue q is served by strict priority
  std::span<const std::uint32_t> len;
  std::span<const std::uint32_t> weight;
};

struct SchedGrant {
  bool valid = false;
  unsigned queue = 0;  // 0 when !valid, like grant_q_o

  friend bool operator==(const SchedGrant&, const SchedGrant&) = default;
};

// Which rule of the spec decided a cycle (for coverage and counters).
enum class SchedRule : std::uint8_t {
  kIdle,        // no valid queue at all
  kSp,          // rule 1: strict priority
  kWdrrStay,    // rule 3: ptr's deficit covers its head packet
  kWdrrCredit,  // rule 4: ptr moves to n, n earns a quantum, still short: no grant
  kWdrrMove,    // rule 4: ptr moves to n, n earns a quantum and sends
};

// The full outcome of one cycle: the grant, the rule, and the WDRR state the
// edge writes when ready (update false: the state is left alone).
struct SchedDecision {
  SchedGrant grant;
  SchedRule rule = SchedRule::kIdle;
  bool update = false;
  unsigned ptr = 0;       // next ptr
  bool zero_old = false;  // rule 4 with ptr not eligible: deficit[old ptr] = 0
  unsigned credited = 0;  // queue whose deficit becomes new_deficit
  std::uint64_t new_deficit = 0;
};

class SpWdrrScheduler {
 public:
  explicit SpWdrrScheduler(SchedParams params = {});

  // The choice for these inputs now; no state change.
  [[nodiscard]] SchedGrant peek(const SchedInputs& in) const { return decide(in).grant; }
  // The same, with the rule and the pending state update.
  [[nodiscard]] SchedDecision decide(const SchedInputs& in) const;
  // One clock edge: returns this cycle's choice (as peek) and, when ready,
  // applies the state update. With ready low nothing is transferred or
  // updated.
  SchedGrant step(const SchedInputs& in, bool ready);
  void reset();

  [[nodiscard]] unsigned ptr() const noexcept { return ptr_; }
  [[nodiscard]] std::uint64_t deficit(unsigned q) const { return deficit_.at(q); }
  [[nodiscard]] std::span<const std::uint64_t> deficits() const noexcept { return deficit_; }
  [[nodiscard]] const SchedParams& params() const noexcept { return params_; }
  // Width of a deficit register: LenW + WeightW + 1.
  [[nodiscard]] unsigned deficit_w() const noexcept { return params_.len_w + params_.weight_w + 1; }

 private:
  void check(const SchedInputs& in) const;

  SchedParams params_;
  std::uint64_t all_ = 0;  // mask of the NumQ queues
  unsigned ptr_ = 0;
  std::vector<std::uint64_t> deficit_;
};

}  // namespace syncfab::model
