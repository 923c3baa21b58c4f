#!/usr/bin/env bash
# `make bench`: every benchmark that exists, results under <build>/bench/.
# Today: simulation speed (bare Verilator vs the coroutine harness), the
# verilated 4-port switch's speed (bare, harness, golden model, co-simulation
# with the scoreboard: switch_speed.{json,md}), the DAMQ
# traffic scenario at full length, the NIC barrier latency study on the
# verilated fabric (bench-barrier: docs/bench-barrier.{md,csv,png}) with the
# golden model's own table next to it. Routing (bench-route) runs after this
# script (Makefile).
set -euo pipefail
build=${1:-build}
out="$build/bench"
mkdir -p "$out"
echo "== simulation speed (simulated cycles per second; items_per_second)"
"$build/sim/bench/bench_sim_speed" --benchmark_out="$out/sim_speed.json" --benchmark_out_format=json
echo
echo "== verilated 4-port switch, full random traffic (simulated cycles per second)"
"$build/sim/bench/bench_switch_speed" --benchmark_out="$out/switch_speed.json" \
  --benchmark_out_format=json
# The whole co-simulation (RTL + model + scoreboard) from the test's own speed line.
cosim_lines=$("$build/tests/rtl/switch/test_switch_cosim" --test 'switch_cosim.random_mix' \
  --test 'switch_cosim.lossless_full_load' --seed 1 --param packets=6000 | grep ' speed: ')
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.venv/bin/python" - "$out/switch_speed.json" "$cosim_lines" >"$out/switch_speed.md" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
print("# Verilated switch (4 ports, 128 cells) simulation speed\n")
print("| what | simulated cycles/s |\n|---|---|")
for b in runs:
    print(f"| {b['name']} | {b['items_per_second']:,.0f} |")
print("\nCo-simulation with the scoreboard (test_switch_cosim, seed 1, 6000 packets):\n")
for line in sys.argv[2].splitlines():
    print(f"- {line.strip()}")
PY
cat "$out/switch_speed.md"
echo
echo "== request DAMQ traffic scenario, 200,000 cycles per load"
"$build/sim/scenarios/scenario_damq_traffic" --param cycles=200000 --seed 1 | tee "$out/damq_traffic.md"
echo
echo "== barrier latency, verilated fabric (bench-barrier): hardware vs golden model vs software vs bound"
"$root/.venv/bin/python" "$root/scripts/bench_barrier.py" --build "$build"
echo
echo "== barrier latency, golden model alone (every node posting at cycle 0)"
"$build/cpp-model/network/syncfab_barrier_latency" | tee "$out/barrier_latency_model.md"
echo "bench: results in $out/"
