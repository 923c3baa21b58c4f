// The stimulus mixes of the switch co-simulation (switch_cosim_test.cpp) as
// scenarios: one configuration and one seeded stimulus each, built from the
// test's seed and --param knobs.
#pragma once

#include "switch_cosim_bench.hpp"

namespace syncfab::tb::switch_cosim {

struct Scenario {
  Setup setup;
  Stimulus stim;
};

// Unicast only, no PFC, no WRED, no remap.
Scenario unicast_smoke(TestContext& ctx, unsigned packets);
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

}  // namespace syncfab::tb::switch_cosim
