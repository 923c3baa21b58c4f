#!/usr/bin/env bash
# `make bench-route` (also part of `make bench`): the subnet manager on the
# FULB-MC paper's fabrics. The work is scripts/bench_route.py (one process per
# run, peak RSS per run, targets computed from the numbers); it writes
# docs/bench-route.{md,csv,png}, docs/bench-route-unicast.csv and
# docs/bench-route-scale.csv (syncfab-route end to end on the largest
# fabrics; `--scale-only` runs just those and rewrites only their section).
# Usage: scripts/bench_route.sh [BUILD_DIR] [bench_route.py options]
set -euo pipefail
build=${1:-build}
shift $(($# > 0 ? 1 : 0))
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/.venv/bin/python" "$root/scripts/bench_route.py" --build "$build" "$@"
