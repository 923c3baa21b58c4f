#!/bin/sh
# Speed of the virtual platform (docs/virtual-platform.md "Speed"): host
# instructions per barrier (callgrind Ir of two run lengths, differenced) and
# barriers per wall second (best of three, interleaved) of syncfab-vp against
# bench_vp_model_loop (the same barriers without SystemC), and, when the
# build has it, syncfab-fabric --backend model (the coroutine harness, model
# NICs and switches). Then the platform with verilated RTL NICs: VP-model,
# VP-RTL and the coroutine harness on the RTL (bench_vp_rtl_harness: the
# verilated NIC fabric; and syncfab-fabric --backend rtl, NICs and switches,
# when the build has it) in the harness's configuration.
# Usage: scripts/bench_vp.sh [build dir]. Not a test.
set -eu
build=${1:-build}
vp="$build/vp/syncfab-vp"
loop="$build/vp/bench_vp_model_loop"
harness="$build/vp/bench_vp_rtl_harness"
fabric=${SYNCFAB_FABRIC:-$build/sim/tools/syncfab-fabric}
command -v valgrind >/dev/null || { echo "bench_vp: valgrind not found" >&2; exit 2; }

ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
  awk '/Collected/{print $4}'; }
per() { echo $(( ($2 - $1) / $3 )); }
# Barriers per wall second from a tool's own line.
rate() { "$@" | sed -n 's/.* \([0-9][0-9]*\) barriers per wall second.*/\1/p'; }
max() { [ "$1" -gt "$2" ] && echo "$1" || echo "$2"; }

echo "| shape | nodes | VP instr/barrier | loop instr/barrier | VP/loop | VP barriers/wall s | loop barriers/wall s |"
echo "|---|---|---|---|---|---|---|"
for cfg in "2x2x2 8 100 300 1000" "4x4x2 32 20 60 300"; do
  set -- $cfg
  s=$1 n=$2 lo=$3 hi=$4 wall=$5
  a=$(ir "$vp" --shape "$s" --barriers "$lo" --skew 0)
  b=$(ir "$vp" --shape "$s" --barriers "$hi" --skew 0)
  c=$(ir "$loop" --shape "$s" --barriers "$lo")
  d=$(ir "$loop" --shape "$s" --barriers "$hi")
  v=$(per "$a" "$b" $((hi - lo)))
  l=$(per "$c" "$d" $((hi - lo)))
  # Best of three, the two interleaved so that a busy machine hits both alike.
  rv=0 rl=0
  for _ in 1 2 3; do
    rv=$(max "$rv" "$(rate "$vp" --shape "$s" --barriers "$wall" --skew 0)")
    rl=$(max "$rl" "$(rate "$loop" --shape "$s" --barriers "$wall")")
  done
  echo "| $s | $n | $v | $l | $(awk -v v="$v" -v l="$l" 'BEGIN{printf "%.2f", v/l}') | $rv | $rl |"
done

if [ -x "$fabric" ]; then
  f="--fabric torus:x=2,y=2,z=2,nodes=1 --backend model --k 2"
  # shellcheck disable=SC2086
  a=$(ir "$fabric" $f --barriers 100)
  # shellcheck disable=SC2086
  b=$(ir "$fabric" $f --barriers 300)
  # shellcheck disable=SC2086
  t=$("$fabric" $f --barriers 300 | awk '$2=="barriers"{print $3}')
  echo
  echo "syncfab-fabric --backend model, 8 NICs + 8 switches: $(per "$a" "$b" 200) instructions per barrier; 300 barriers in $t s wall"
fi

# The RTL table: the verilated NIC fabric's configuration (10 ns cycles, the
# drivers poll every 40 ns, 10-cycle hops and no NIC latency on top of the
# RTL's own), 2x2x2, k = 2, HDQ and SDQ in turn, no compute time.
rc="--shape 2x2x2 --k 2 --skew 0 --clock 10 --poll 40 --hop 10 --nic-latency 0"
echo
echo "| run | instr/barrier | barriers/wall s | simulated cycles/barrier |"
echo "|---|---|---|---|"
cyc() { "$@" | sed -n 's/.*simulated time \([0-9.]*\) us.*/\1/p'; }
for nic in model rtl; do
  if [ "$nic" = model ]; then lo=100 hi=300 wall=1000; else lo=10 hi=30 wall=200; fi
  # shellcheck disable=SC2086
  a=$(ir "$vp" $rc --nic "$nic" --barriers "$lo")
  # shellcheck disable=SC2086
  b=$(ir "$vp" $rc --nic "$nic" --barriers "$hi")
  r=0
  for _ in 1 2 3; do
    # shellcheck disable=SC2086
    r=$(max "$r" "$(rate "$vp" $rc --nic "$nic" --barriers "$wall")")
  done
  # shellcheck disable=SC2086
  us=$(cyc "$vp" $rc --nic "$nic" --barriers "$wall")
  echo "| syncfab-vp --nic $nic | $(per "$a" "$b" $((hi - lo))) | $r | $(awk -v u="$us" -v n="$wall" 'BEGIN{printf "%.0f", u*100/n}') |"
done
if [ -x "$harness" ]; then
  hc="--shape 2x2x2 --k 2 --hop 10"
  # shellcheck disable=SC2086
  a=$(ir "$harness" $hc --barriers 10)
  # shellcheck disable=SC2086
  b=$(ir "$harness" $hc --barriers 30)
  r=0
  for _ in 1 2 3; do
    # shellcheck disable=SC2086
    r=$(max "$r" "$(rate "$harness" $hc --barriers 200)")
  done
  # shellcheck disable=SC2086
  c=$("$harness" $hc --barriers 200 | sed -n 's/.*simulated \([0-9]*\) cycles.*/\1/p')
  echo "| bench_vp_rtl_harness (verilated NIC fabric) | $(per "$a" "$b" 20) | $r | $((c / 200)) |"
fi
if [ -x "$fabric" ]; then
  f="--fabric torus:x=2,y=2,z=2,nodes=1 --backend rtl --k 2"
  # shellcheck disable=SC2086
  t=$("$fabric" $f --barriers 50 | awk '$2=="barriers"{print $3}')
  echo
  echo "syncfab-fabric --backend rtl, 8 verilated NICs + 8 verilated switches: 50 barriers in $t s wall"
fi
