// The dynamic ECN law of the switch co-simulation (docs/switch-ecn-dynamic.md),
// per run (RTL and model): the law's state logged every cycle (RunLog::ecn)
// against golden EcnControllers of every (output, queue) stepped on that
// run's measured inputs, with the registers of a golden CSR block that
// takes the same accesses in the same cycles; the run's status reads and
// refused writes against it; every WRED decision against the golden WRED
// (model::WredEcn, the switch's one LFSR) with the golden thresholds, and
// the ECN of every copy sent against that decision.
#pragma once

#include <cstdint>

#include "switch_cosim_bench.hpp"

namespace syncfab::tb::switch_cosim {

// What the law did over the RTL's run (every figure also equal to the
// golden law's, else the check failed), the model's, and the two compared.
struct EcnLawSeen {
  std::uint64_t cycles = 0;
  std::uint64_t window_ends = 0;   // window ends of law-on queues
  std::uint64_t raised = 0;        // ... that raised P
  std::uint64_t lowered = 0;       // ... that lowered it
  std::uint64_t paused_holds = 0;  // ... with a pause and active inputs that held it
  unsigned max_sh = 0;
  std::uint64_t values_compared = 0;  // per-cycle per-queue outputs compared
  std::uint64_t reads = 0;            // status reads, equal to the golden law's
  std::uint64_t refused = 0;          // writes refused (as the golden CSR block refuses)
  std::uint64_t marks_on = 0;         // marks on a law-on queue
  std::uint64_t marks_shifted = 0;    // ... with sh > 0 on their queue
  std::uint64_t decisions = 0;        // WRED decisions, equal to the golden WRED's
  std::uint64_t flits_ecn = 0;        // copies sent whose ECN is the golden decision's
  // The model's run against the golden law on its own inputs.
  struct Model {
    std::uint64_t window_ends = 0;
    std::uint64_t raised = 0;
    std::uint64_t lowered = 0;
    std::uint64_t reads = 0;
    std::uint64_t decisions = 0;
    std::uint64_t flits_ecn = 0;
  } model;
  std::uint64_t reads_rtl_eq_model = 0;  // status reads equal between the two runs
};

// Fails at the first difference, naming cycle, queue and value.
EcnLawSeen check_ecn_law(const Setup& setup, const Stimulus& stim, const RunLog& rtl,
                         const RunLog& mdl);

}  // namespace syncfab::tb::switch_cosim
