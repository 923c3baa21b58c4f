#!/usr/bin/env bash
# `make bench`: every benchmark that exists, results under <build>/bench/.
# Today: simulation speed (bare Verilator vs the coroutine harness), the DAMQ
# traffic scenario at full length, and the golden model's barrier latency
# table. Routing (bench-route) and the RTL barrier study (bench-barrier) join
# as their issues land.
set -euo pipefail
build=${1:-build}
out="$build/bench"
mkdir -p "$out"
echo "== simulation speed (simulated cycles per second; items_per_second)"
"$build/tb/bench/bench_sim_speed" --benchmark_out="$out/sim_speed.json" --benchmark_out_format=json
echo
echo "== request DAMQ traffic scenario, 200,000 cycles per load"
"$build/tb/scenarios/scenario_damq_traffic" --param cycles=200000 --seed 1 | tee "$out/damq_traffic.md"
echo
echo "== barrier latency, golden model (not yet RTL): hardware engine vs software dissemination"
"$build/cpp-model/network/syncfab_barrier_latency" | tee "$out/barrier_latency_model.md"
echo "bench: results in $out/"
