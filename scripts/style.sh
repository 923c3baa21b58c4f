#!/usr/bin/env bash
# Source style: one formatter and one linter per language, each with its one
# checked-in configuration.
#
#   scripts/style.sh check   (make lint)    report every file whose format
#                                           differs and every style finding
#   scripts/style.sh fix     (make format)  rewrite files in place
#
# SystemVerilog: verible-verilog-format with the flags in
# scripts/verible-format.flags, verible-verilog-lint with .rules.verible_lint.
# C++: clang-format with .clang-format. Only files git tracks are judged
# (generated files live in the build tree).

set -euo pipefail

usage() { echo "usage: scripts/style.sh check|fix" >&2; exit 2; }
[[ $# -eq 1 ]] || usage
mode=$1
[[ "$mode" == check || "$mode" == fix ]] || usage

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
vfmt="$root/.venv/bin/verible-verilog-format"
vlint="$root/.venv/bin/verible-verilog-lint"
for tool in "$vfmt" "$vlint"; do
  [[ -x "$tool" ]] || { echo "style: $tool not found. Run 'make deps'." >&2; exit 2; }
done
command -v clang-format >/dev/null || { echo "style: clang-format not found. Run 'make deps'." >&2; exit 2; }

mapfile -t sv < <(git ls-files '*.sv' '*.svh')
mapfile -t cpp < <(git ls-files '*.cpp' '*.hpp' '*.h')
flags=(--flagfile="$root/scripts/verible-format.flags")

if [[ "$mode" == fix ]]; then
  [[ ${#sv[@]} -eq 0 ]] || "$vfmt" "${flags[@]}" --inplace "${sv[@]}"
  [[ ${#cpp[@]} -eq 0 ]] || clang-format -i "${cpp[@]}"
  echo "style: formatted ${#sv[@]} SystemVerilog and ${#cpp[@]} C++ files"
  exit 0
fi

bad=0
unformatted=()
for f in "${sv[@]}"; do
  if ! "$vfmt" "${flags[@]}" "$f" | cmp -s - "$f"; then
    unformatted+=("$f")
  fi
done
if [[ ${#unformatted[@]} -gt 0 ]]; then
  echo "---- FAILED: verible-verilog-format would change (run 'make format'):"
  printf '  %s\n' "${unformatted[@]}"
  bad=$((bad + ${#unformatted[@]}))
fi
if ! out=$("$vlint" --rules_config="$root/.rules.verible_lint" "${sv[@]}" 2>&1); then
  echo "---- FAILED: verible-verilog-lint"
  echo "$out"
  bad=$((bad + $(grep -c . <<<"$out")))
fi
if ! out=$(clang-format --dry-run --Werror "${cpp[@]}" 2>&1); then
  echo "---- FAILED: clang-format would change (run 'make format'):"
  grep -Eo '^[^:]+\.(cpp|hpp|h)' <<<"$out" | sort -u | sed 's/^/  /'
  bad=$((bad + 1))
fi
if [[ $bad -ne 0 ]]; then
  echo "style: FAILED (${#sv[@]} SystemVerilog, ${#cpp[@]} C++ files)"
  exit 1
fi
echo "style: clean (${#sv[@]} SystemVerilog, ${#cpp[@]} C++ files)"
