#!/usr/bin/env bash
# `make run`: the most complete flow that exists. Today: the request DAMQ of
# the NIC under notification traffic (verilated RTL against a reference, with
# a summary table) plus the NIC CSR identity check through the driver on the
# verilated register block. Writes the run's waveform and prints its path.
set -euo pipefail
build=${1:-build}
scen="$build/tb/scenarios/scenario_damq_traffic"
[[ -x "$scen" ]] || { echo "run: $scen is not built; run 'make run' from the top" >&2; exit 1; }
waves="$build/waves/run"
mkdir -p "$waves"
"$scen" --test run.damq_traffic --seed "${SEED:-1}" +trace --waves-dir "$waves"
echo "waveform: $waves/run.damq_traffic-seed${SEED:-1}.fst  (gtkwave <file>)"
