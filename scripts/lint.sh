#!/usr/bin/env bash
# make lint: the source style (scripts/style.sh check: verible format and lint
# for SystemVerilog, clang-format for C++), every RTL top and module through
# Verilator -Wall with the build's own flags, and the project's C++ through
# clang-tidy. Any warning fails.
#
#   scripts/lint.sh <build-dir>        (the build dir must be configured: it
#                                       provides generated/ and compile_commands.json)
#
# What runs, two jobs at a time (LINT_JOBS overrides):
#   * for every .f under rtl/ and tests/ (the .f is named after its top):
#       verilator --lint-only  <build flags> --top-module <top>
#       verilator --cc         <build flags> --trace-fst --trace-structs ...
#     The --cc run matters: Verilator reports some warnings (SYNCASYNCNET) only
#     when it builds a model, and the build is what must stay clean.
#   * switch_top at 16 ports on its 16-port register block (vl_switch_top16's
#     shape), lint-only;
#   * every module file under rtl/ and tests/spec/rtl/ on its own (--top-module <file
#     stem>, default parameters), with the sources of a .f that lists it, so a
#     submodule is also clean outside the parameters its parent happens to use.
#     A module file that no .f lists is reported: nothing builds or tests it.
#   * clang-tidy -p <build-dir> on the project's .cpp files in tb/, cpp-model/,
#     sw-driver/, sim/, vp/ and tests/ that the build compiles (generated files excluded),
#     with the checks in .clang-tidy (warnings are errors there), through
#     scripts/clang_tidy_cached.py: a file whose inputs (its source, every
#     header it reads, flags, .clang-tidy) are unchanged since a clean run is
#     not re-checked. LINT_NO_CACHE=1 checks everything.
#
# The Verilator flags come from rtl/verilator_flags.f, the file the build and
# cocotb read too, so that lint and build cannot drift.

set -euo pipefail

usage() { echo "usage: scripts/lint.sh <build-dir>" >&2; exit 2; }
[[ $# -eq 1 ]] || usage

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "$1" 2>/dev/null && pwd) || { echo "lint: build dir '$1' does not exist; run 'make configure'" >&2; exit 2; }
gen="$build/generated"
py="$root/.venv/bin/python"
jobs=${LINT_JOBS:-2}
start=$SECONDS

for tool in verilator clang-tidy; do
  command -v "$tool" >/dev/null || { echo "lint: '$tool' not found. Run 'make deps'." >&2; exit 2; }
done
[[ -x "$py" ]] || { echo "lint: the Python environment .venv is missing. Run 'make deps'." >&2; exit 2; }
[[ -f "$build/compile_commands.json" ]] ||
  { echo "lint: $build/compile_commands.json missing; configure first ('make configure')" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/syncfab-lint.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/jobs" "$work/srcs" "$work/cc"

# --- the build's Verilator flags ---------------------------------------------
mapfile -t vflags < <("$py" "$root/scripts/filelist.py" --flags)
[[ ${#vflags[@]} -gt 0 ]] || exit 2
for need in -Wall --assert; do
  [[ " ${vflags[*]} " == *" $need "* ]] || { echo "lint: build flags lack $need" >&2; exit 2; }
done

# --- job queue ------------------------------------------------------------------
# Each job is a small script; its output and exit code land next to it.
njobs=0
add_job() {  # add_job <label> <command...>
  local label=$1; shift
  local id; id=$(printf '%04d' "$njobs")
  {
    printf 'cd %q\n' "$root"
    printf '%q ' "$@"; printf '\n'
  } >"$work/jobs/$id.sh"
  printf '%s\n' "$label" >"$work/jobs/$id.label"
  njobs=$((njobs + 1))
}

findings=()  # problems found while planning (not from a tool run)

# --- source style ------------------------------------------------------------------
if ! style_out=$("$root/scripts/style.sh" check 2>&1); then
  findings+=("source style (scripts/style.sh check):
$style_out")
fi

# --- RTL tops -------------------------------------------------------------------
ntops=0
mapfile -t flists < <(cd "$root" && find rtl tests -name '*.f' ! -path rtl/verilator_flags.f -type f 2>/dev/null | sort)
for f in "${flists[@]}"; do
  top=$(basename "$f" .f)
  stem=$top
  # rtl/coverage/<top>.cover.f: <top> with its functional cover points bound
  # in (the coverage tree's sources of that top, docs/coverage.md).
  [[ "$f" == rtl/coverage/*.cover.f ]] && top=${top%.cover}
  if ! args_out=$("$py" "$root/scripts/filelist.py" --gen "$gen" "$root/$f" 2>&1); then
    findings+=("$f: $args_out")
    continue
  fi
  mapfile -t args <<<"$args_out"
  "$py" "$root/scripts/filelist.py" --gen "$gen" --format sources "$root/$f" >"$work/srcs/$stem.txt"
  missing=$(while read -r src; do [[ -e "$src" ]] || echo "$src"; done <"$work/srcs/$stem.txt")
  if [[ -n "$missing" ]]; then
    findings+=("$f: generated source(s) missing, re-configure the build ('make configure'): $missing")
    continue
  fi
  printf '%s\n' "$f" >"$work/srcs/$stem.flist"
  add_job "verilator --lint-only $top ($f)" \
    verilator --lint-only "${vflags[@]}" --top-module "$top" "${args[@]}"
  add_job "verilator --cc $top ($f)" \
    verilator --cc "${vflags[@]}" --trace-fst --trace-structs --top-module "$top" \
    -Mdir "$work/cc/$stem" "${args[@]}"
  ntops=$((ntops + 1))
done

# --- switch_top at 16 ports ------------------------------------------------------
# vl_switch_top16 (rtl/switch/CMakeLists.txt): switch_top at NumPorts 16 on
# the register block generated with 16 PORT blocks (switch_csr16_vl/), not
# the 8 of switch_top.f's switch_csr_vl/.
if args_out=$("$py" "$root/scripts/filelist.py" --gen "$gen" "$root/rtl/switch/switch_top.f" 2>/dev/null); then
  mapfile -t args < <(sed 's#/switch_csr_vl/#/switch_csr16_vl/#' <<<"$args_out")
  add_job "verilator --lint-only switch_top at 16 ports (vl_switch_top16)" \
    verilator --lint-only "${vflags[@]}" --top-module switch_top \
    -GNumPorts=16 -GBufCells=256 -GLftEntries=1024 -GMftEntries=256 "${args[@]}"
  ntops=$((ntops + 1))
fi

# --- every module file on its own ---------------------------------------------------
nmods=0
mapfile -t svfiles < <(cd "$root" && find rtl tests/spec/rtl -name '*.sv' -type f 2>/dev/null | sort)
for sv in "${svfiles[@]}"; do
  mod=$(basename "$sv" .sv)
  grep -Eq "^[[:space:]]*module[[:space:]]+$mod\b" "$root/$sv" || continue  # packages etc.
  [[ -f "$work/srcs/$mod.txt" ]] && continue  # a top: linted above
  owner=$(grep -lxF "$root/$sv" "$work"/srcs/*.txt 2>/dev/null | head -n 1 || true)
  if [[ -z "$owner" ]]; then
    findings+=("$sv: module $mod is in no .f file list, so nothing builds, lints or tests it")
    continue
  fi
  owner_top=$(basename "$owner" .txt)
  mapfile -t args < <("$py" "$root/scripts/filelist.py" --gen "$gen" "$root/$(cat "$work/srcs/$owner_top.flist")")
  add_job "verilator --lint-only $mod (module, sources of $owner_top.f)" \
    verilator --lint-only "${vflags[@]}" --top-module "$mod" "${args[@]}"
  nmods=$((nmods + 1))
done

# --- C++ ------------------------------------------------------------------------------
mapfile -t cppfiles < <("$py" - "$root" "$build" <<'EOF'
import json, os, sys
root, build = sys.argv[1], sys.argv[2]
own = tuple(os.path.join(root, d) + os.sep for d in ("tb", "cpp-model", "sw-driver", "sim", "vp", "tests"))
seen = set()
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if path.endswith(".cpp") and path.startswith(own) and not path.startswith(build + os.sep):
        seen.add(path)
print("\n".join(sorted(seen)))
EOF
)
ncpp=0
for cpp in "${cppfiles[@]}"; do
  [[ -n "$cpp" ]] || continue
  add_job "clang-tidy ${cpp#"$root"/}" "$py" "$root/scripts/clang_tidy_cached.py" "$build" "$cpp"
  ncpp=$((ncpp + 1))
done

# --- run ----------------------------------------------------------------------------------
if [[ $njobs -gt 0 ]]; then
  find "$work/jobs" -name '*.sh' -print0 | sort -z |
    xargs -0 -r -P "$jobs" -n 1 bash -c 'bash "$1" >"${1%.sh}.log" 2>&1; echo $? >"${1%.sh}.rc"' _
fi

# A job fails on a non-zero exit or on any warning it printed (Verilator
# %Warning/%Error, compiler-style "warning:" / "error:" from clang-tidy).
failed=0
for sh in "$work"/jobs/*.sh; do
  [[ -e "$sh" ]] || continue
  base=${sh%.sh}
  rc=$(cat "$base.rc" 2>/dev/null || echo 127)
  if [[ $rc -ne 0 ]] || grep -Eq '%(Warning|Error)|(warning|error):' "$base.log"; then
    failed=$((failed + 1))
    echo "---- FAILED: $(cat "$base.label") (exit $rc)"
    cat "$base.log"
  fi
done
for msg in "${findings[@]}"; do
  echo "---- FAILED: $msg"
done

total_bad=$((failed + ${#findings[@]}))
ncached=$(grep -lx 'clang-tidy: cached clean' "$work"/jobs/*.log 2>/dev/null | wc -l || true)
summary="verilator: $ntops tops (lint-only + cc), $nmods modules; clang-tidy: $ncpp files ($ncached unchanged since clean); $((SECONDS - start))s"
if [[ $total_bad -ne 0 ]]; then
  echo "lint: FAILED, $total_bad problem(s) [$summary]"
  exit 1
fi
echo "lint: clean [$summary]"
