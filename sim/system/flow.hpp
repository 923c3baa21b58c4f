// The system flow on one set of backends, step by step as a user runs it:
// build the fabric (every node's backend), start it (reset, links, every
// driver), configure PFC when asked, program the SM's tables through the
// switches' drivers (read back), run common-start barriers for each fan-out
// on its own context, check the lossless traffic identities, and keep what
// the golden comparison needs (compare.hpp). Each step's wall time and
// simulated cycles are reported.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "barrier_run.hpp"
#include "combine_program.hpp"
#include "compare.hpp"
#include "concurrent_run.hpp"
#include "routing.hpp"
#include "syncfab/driver/group_desc.hpp"
#include "system_fabric.hpp"
#include "traffic_check.hpp"

namespace syncfab::tb::system {

struct FlowOptions {
  SystemConfig cfg;  // backends and link delays
  std::vector<unsigned> ks{1, 2, 3};
  unsigned barriers = 1;  // per fan-out, each a common start
  bool pfc = false;       // the NICs' priority lossless, pausing at one cell
  std::uint32_t retry_delay = 16;
  std::uint64_t limit = 200'000;  // cycles for the barriers of one fan-out
  // Group barriers after the dissemination ones (docs/group-barrier.md): each
  // kind on every routed group in turn, on context 0, `barriers` common
  // starts per group. Kind i's group g starts at epoch 1 + (i * groups + g)
  // * barriers (its combine entries are programmed with it), so a NIC in
  // several groups only counts up on the context.
  std::vector<driver::GroupBarrierKind> group_kinds;
  // How the switches combine the switch-combined kind: the group's tree, or
  // the rings of a torus (the fabric must be one).
  CombScheme comb_scheme = CombScheme::kTree;
  SubmitMode submit = SubmitMode::kAlternate;  // every run's (BarrierRun::submit)
  // Each kind of group barrier on every group at once, this many back to
  // back per group (concurrent_run.hpp), instead of one group after another;
  // 0: off. Kind i starts at epoch 1 + i * concurrent on every group's
  // context (contexts kConcurrentCtx.., one per group a NIC is in: every
  // context of the system's NICs, so no dissemination fan-outs with it).
  unsigned concurrent = 0;
  // Dissemination on every group's members (one run per group and fan-out,
  // group g from epoch 1 + g * barriers) instead of across every NIC.
  bool disseminate_groups = false;
};

// The contexts of concurrent group barriers: the system NICs' all.
inline constexpr unsigned kConcurrentCtx = 0;
inline constexpr unsigned kConcurrentCtxs = 4;

// One kind of group barrier over every group of the run.
struct GroupFlowResult {
  driver::GroupBarrierKind kind = driver::GroupBarrierKind::kSwitchCombined;
  std::vector<BarrierResult> per_group;  // in the routing's group order
  std::vector<double> latency;           // per group: mean of (last completion - common post)
  std::vector<std::uint64_t> bound;      // per group: group_bound (barrier_bound.hpp)
  double mean_latency = 0;               // over the groups
  double mean_over_bound = 0;            // mean over the groups of latency / bound
  double max_over_bound = 0;
  // FlowOptions::concurrent: every barrier instance's latency (group's last
  // completion - its last post) is in `concurrent`; `latency` is then each
  // group's mean over its barriers.
  std::optional<ConcurrentResult> concurrent;
  double p99 = 0;         // over every barrier instance of every group
  double per_kcycle = 0;  // barriers completed (all groups) per 1000 cycles
};

struct FlowStep {
  std::string name;
  double wall_s = 0;
  std::uint64_t cycles = 0;  // simulated
};

struct FlowResult {
  std::string label;
  std::vector<FlowStep> steps;
  ProgramReport program;
  std::vector<BarrierResult> per_k;     // in FlowOptions::ks order
  std::vector<GroupFlowResult> groups;  // in FlowOptions::group_kinds order
  std::size_t combine_entries = 0;      // (switch, MLID) combine entries programmed
  TrafficTotals traffic;
  FabricRecord record;  // every fan-out's barriers together
  // Per fan-out: the mean of (last completion - common post), cycles.
  std::vector<double> latency;
};

// Throws TestFailure (a check failed) or std::exception (bad input).
FlowResult run_flow(TestContext& ctx, const sm::Fabric& smf, const SystemRouting& routing,
                    const FlowOptions& opts, const std::string& label);

}  // namespace syncfab::tb::system
