// The stimulus mixes of the switch co-simulation (switch_cosim_test.cpp) as
// scenarios: one configuration and one seeded stimulus each, built from the
// test's seed and --param knobs. Shared with switch_cover_test.cpp, which
// runs them on the coverage build of the switch to reach its cover points.
#pragma once

#include <array>

#include "switch_cosim_bench.hpp"

namespace syncfab::tb::switch_cosim {

struct Scenario {
  Setup setup;
  Stimulus stim;
};

// Unicast only, no PFC, no WRED, no remap.
Scenario unicast_smoke(TestContext& ctx, unsigned packets);
// Unicast to port groups and to plain entries, PORT_UP changes while
// traffic runs (docs/switch-ecmp.md).
Scenario port_groups(TestContext& ctx, unsigned packets);
// Unicast, multicast, misses, bad types and lengths, received PFC frames
// (some malformed), PFC on 3 and 5, WRED, SP + WDRR, hook-flow remap, rx
// gaps and tx backpressure (--param pfc_long, pfc_badlen, len0, stall_pct).
Scenario random_mix(TestContext& ctx, unsigned packets);
// Every input back to back, prio 3 all to one output (3-to-1 plus itself),
// prio 5 to random outputs, lossy traffic besides, output stalls
// (--param stall_pct).
Scenario lossless_full_load(TestContext& ctx, unsigned packets);
// The random mix with the PFC watchdog (peers that never resume: drop mode,
// ignore mode, over the limit DISABLED) and two CTRL.ENABLE = 0 windows.
Scenario watchdog_and_disable(TestContext& ctx, unsigned packets);
// Overload without PFC: every input back to back with packets of one to
// three flits (more than the one copy per cycle the enqueue engine takes, so
// the pending FIFOs fill and rx_ready drops), three quarters of them to one
// output, every tx stalled 80 % of the cycles (so the input buffers fill:
// DROP_BUF for want of cells).
Scenario overload(TestContext& ctx, unsigned packets);
// Cells returned from three places in one cycle at one input: WRED drops
// every Not-ECT copy (Kmin = Kmax = 0 on the two queues used; a dropped
// unicast copy frees its packet at once), the other copies finish, and
// about half of the packets carry a wrong length (freed at their last
// flit).
Scenario release_storm(TestContext& ctx, unsigned packets);
// A lossless queue the watchdog DISABLES early (queue 5 of port 1: a peer
// that never resumes, detect and recover 20 cycles, limit 1), then WRED on
// it (Kmin = Kmax = 0): marks while lossless, DROP_WRED of its Not-ECT
// copies once DISABLED; its copies keep flowing past the peer's pauses.
Scenario wred_after_disable(TestContext& ctx, unsigned packets);

// The dynamic ECN law on (docs/switch-ecn-dynamic.md), windows of 2^4 to
// 2^6 cycles: lossy queues 0 and 1 and lossless queue 3 with WRED, fan-in
// to outputs 2 and 1 stepping 1 -> 2 -> 4 -> 1 inputs and back, a peer
// pausing queue 3 of port 1, queues running empty, and the law's registers
// rewritten while traffic runs (EN per queue off and on, WIN mid-window,
// FAN_SH, QREF, PLO/PHI/PUP/PDN, a WRED_K/WRED_P write), some writes the
// block refuses, and status sweeps (CNT_SEL, ECN_DYN_K, ECN_DYN_STATE) of
// every queue. The law's state is logged every RTL cycle
// (Stimulus::probe_ecn). `scale` stretches the phases.
Scenario ecn_dynamic(TestContext& ctx, unsigned scale);
// The queues whose law ecn_dynamic's status sweeps read.
inline constexpr std::array<unsigned, 4> kEcnSweepQueues{0, 1, 3, 5};

}  // namespace syncfab::tb::switch_cosim
