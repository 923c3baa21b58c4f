#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang-14, ASan + UBSan) in a
# tree of their own and runs every target, each from a copy of its seed
# corpus, for --time seconds and/or --runs executions (default 60 s; both:
# whichever comes first), docs/fuzz.md.
#
#   scripts/fuzz.sh [--time S] [--runs N] [--build DIR] [--jobs J] [--csv FILE]
#                   [--target NAME]...
#
# Prints executions and findings per target, writes them to FILE (default
# DIR/fuzz-results.csv),
# and exits 1 when any target found something: a crash, a sanitizer report,
# a broken round trip, a timeout (-timeout=10 s per input) or an out-of-memory
# (2 GB), with the input that caused it in DIR/findings/<target>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
time_s=
runs=
build="$root/build-fuzz"
jobs=2
csv=
targets=()
while (($#)); do
  case "$1" in
    --time) time_s=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    *) echo "fuzz: unknown argument '$1' (see the head of scripts/fuzz.sh)" >&2; exit 2 ;;
  esac
done
all=(net_reader groups_reader generator_spec group_pattern desc_hex desc_image formats_spec)
((${#targets[@]})) || targets=("${all[@]}")
python=${SYNCFAB_FUZZ_PYTHON:-$root/.venv/bin/python}

for tool in clang++-14 clang-14; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool not found; run 'make deps'" >&2; exit 1; }
done
if [[ ! -f "$(clang++-14 -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]]; then
  echo "fuzz: libFuzzer's runtime is missing; run 'make deps' (installs libclang-rt-14-dev)" >&2
  exit 1
fi

mkdir -p "$build"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DSYNCFAB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; echo "fuzz: configure failed (log: $build.configure.log)" >&2; exit 1; }
fi
cmake --build "$build" --target fuzz_all -j "$jobs" >"$build.build.log" 2>&1 ||
  { tail -50 "$build.build.log"; echo "fuzz: build failed (log: $build.build.log)" >&2; exit 1; }

# Both given: whichever comes first ends a target's run.
[[ -n "$time_s" || -n "$runs" ]] || time_s=60
limit=()
[[ -z "$time_s" ]] || limit+=(-max_total_time="$time_s")
[[ -z "$runs" ]] || limit+=(-runs="$runs")
csv=${csv:-$build/fuzz-results.csv}
echo "target,executions,seconds,findings,commit" >"$csv"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
failed=0
printf '%-16s %12s %8s %10s  %s\n' target executions seconds exec/s findings
for t in "${targets[@]}"; do
  seeds="$root/tests/fuzz/corpus/$t"
  work="$build/corpus/$t"
  found="$build/findings/$t"
  log="$build/logs/$t.log"
  mkdir -p "$work" "$found" "$(dirname "$log")"
  flags=("${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
         -artifact_prefix="$found/" "$work" "$seeds")
  start=$(date +%s.%N)
  rc=0
  if [[ "$t" == formats_spec ]]; then
    nice -n 19 "$python" "$root/tests/fuzz/fuzz_formats_spec.py" "${flags[@]}" >"$log" 2>&1 || rc=$?
  else
    [[ -x "$build/tests/fuzz/fuzz_$t" ]] || { echo "fuzz: no target '$t'" >&2; exit 2; }
    nice -n 19 "$build/tests/fuzz/fuzz_$t" "${flags[@]}" >"$log" 2>&1 || rc=$?
  fi
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.0f", e-s}')
  execs=$(awk '/stat::number_of_executed_units/{n=$NF} END{print n+0}' "$log")
  findings=0
  if ((rc != 0)); then
    findings=$(find "$found" -type f | wc -l)
    ((findings > 0)) || findings=1
    failed=1
  fi
  rate=$(awk -v n="$execs" -v s="$secs" 'BEGIN{printf "%.0f", (s > 0 ? n / s : n)}')
  printf '%-16s %12s %8s %10s  %s\n' "$t" "$execs" "$secs" "$rate" \
    "$findings$( ((rc == 0)) || echo " (exit $rc; log $log, inputs in $found/)")"
  echo "$t,$execs,$secs,$findings,$commit" >>"$csv"
done
echo "fuzz: results in $csv"
exit "$failed"
