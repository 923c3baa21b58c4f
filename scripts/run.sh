#!/usr/bin/env bash
# `make run`: the system flow on the default fabric (DESIGN §6), one command:
# a two-level fat tree of 8-port switches with 32 NICs routed by the subnet
# manager (FTREE unicast, FULB-MC trees of random groups), every switch
# verilated and programmed through its own driver (every entry read back),
# barriers (k = 1, 2, 3, every NIC posting in the same cycle) on the 32
# verilated NICs through their drivers, checked (completions, safety,
# liveness, lossless traffic identities), the multicast-release and the
# switch-combined barrier on every group's FULB-MC tree (combine entries
# programmed through the drivers), the same on the golden fabric and
# the two compared; one FST of the whole RTL system and a GTKWave save file.
set -euo pipefail
build=${1:-build}
seed=${SEED:-1}
tool="$build/sim/tools/syncfab-fabric"
[[ -x "$tool" ]] || { echo "run: $tool is not built; run 'make run' from the top" >&2; exit 1; }
waves="$build/waves/run"
rm -rf "$waves"
echo "== The system flow: 32 verilated NICs through 12 verilated switches, against the golden fabric"
echo "   (syncfab-fabric --help for every option; your own net file: --net <file>)"
"$tool" --fabric fattree:ports=8,levels=2 --k 1,2,3 --group-barrier mcast,comb --compare \
  --seed "$seed" --trace "$waves"
