#!/usr/bin/env bash
# `make bench`: every benchmark that exists, results under <build>/bench/.
# Today: simulation speed (bare Verilator vs the coroutine harness), the DAMQ
# traffic scenario at full length, the NIC barrier latency study on the
# verilated fabric (bench-barrier: docs/bench-barrier.{md,csv,png}) with the
# golden model's own table next to it. Routing (bench-route) runs after this
# script (Makefile).
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
echo "== barrier latency, verilated fabric (bench-barrier): hardware vs golden model vs software vs bound"
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.venv/bin/python" "$root/scripts/bench_barrier.py" --build "$build"
echo
echo "== barrier latency, golden model alone (every node posting at cycle 0)"
"$build/cpp-model/network/syncfab_barrier_latency" | tee "$out/barrier_latency_model.md"
echo "bench: results in $out/"
