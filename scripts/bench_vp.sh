#!/bin/sh
# Speed of the virtual platform (docs/virtual-platform.md "Speed"): host
# instructions per barrier (callgrind Ir of two run lengths, differenced) and
# barriers per wall second (best of three, interleaved) of syncfab-vp against
# bench_vp_model_loop (the same barriers without SystemC), and, when the
# build has it, syncfab-fabric --backend model (the coroutine harness, model
# NICs and switches). Usage: scripts/bench_vp.sh [build dir]. Not a test.
set -eu
build=${1:-build}
vp="$build/vp/syncfab-vp"
loop="$build/vp/bench_vp_model_loop"
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
