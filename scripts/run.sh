#!/usr/bin/env bash
# `make run`: the most complete flow that exists, in the order the finished
# system will run it (DESIGN §6): route the fabric's multicast groups,
# run barriers, look at the hardware under load. Today:
#   1. FULB-MC and its baselines on the paper's 16,000-node fat tree
#      (2D-grid communicators), every tree checked;
#   2. barriers across a 4x4x2 torus of 32 verilated NICs (nic_top RTL, each
#      node's unchanged driver, all posting in the same cycle; safety,
#      liveness and CQ checks on) against the golden model, software
#      dissemination and the lower bound;
#   3. the NIC's request DAMQ as verilated RTL under notification traffic,
#      checked against a reference, with its waveform written.
# The verilated NIC and switch replace the models here as they land.
set -euo pipefail
build=${1:-build}
seed=${SEED:-1}
for exe in sw-driver/sm/sm_mc_bench sim/bench/bench_barrier_rtl \
           sim/scenarios/scenario_damq_traffic; do
  [[ -x "$build/$exe" ]] || { echo "run: $build/$exe is not built; run 'make run' from the top" >&2; exit 1; }
done

echo "== 1. Multicast routing: 16,000-node fat tree (40-port, 3 levels), 160x100 process grid"
"$build/sw-driver/sm/sm_mc_bench" --case fattree grid2d:160x100 1 --seed "$seed" | grep '^|'
echo
echo "== 2. Barrier on a 4x4x2 torus of 32 verilated NICs: hardware (RTL) vs golden model vs software vs bound"
echo "   (cycles, ns at 1 GHz; software o_send 200 / o_poll 100 cycles; full study: make bench-barrier)"
"$build/sim/bench/bench_barrier_rtl" --shapes 4x4x2 --k 1,2,3 --seed "$seed" | grep -E '^\||^  \(p='
echo
echo "== 3. Verilated request DAMQ under notification traffic"
waves="$build/waves/run"
mkdir -p "$waves"
"$build/sim/scenarios/scenario_damq_traffic" --test run.damq_traffic --seed "$seed" +trace \
  --waves-dir "$waves" | grep -v -E '^\[|^==|^  (param|waves)'
echo "waveform: $waves/run.damq_traffic-seed${seed}.fst  (gtkwave <file>)"
