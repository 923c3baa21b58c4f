#!/usr/bin/env python3
"""`make coverage`: code and functional coverage of the RTL over the seeds of
the RTL tests (docs/coverage.md).

1. configures a build tree of its own (default build-cov) with
   SYNCFAB_COVERAGE=ON: every verilated model with line, toggle and user
   coverage and the bind modules of rtl/coverage/, the RTL tests only;
2. builds the RTL tests' binaries (tests/rtl), nothing else;
3. runs them with ctest, the seeded ones over --seeds, every test run
   writing its own .dat into <build>/coverage/dat/;
4. merges and reports (scripts/coverage/merge.py) into <build>/coverage/.

    run.py [--build build-cov] [--seeds 1-5] [--jobs N] [--top8]

Exit status: 0 every test passed and every functional point was hit; 1
otherwise (a test failed, or a point was never hit); 2 the run itself failed.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import merge  # noqa: E402  (this folder's merge.py)


def cached(build: Path, var: str) -> str | None:
    cache = build / "CMakeCache.txt"
    if not cache.exists():
        return None
    m = re.search(rf"^{var}:[A-Z]+=(.*)$", cache.read_text(), re.MULTILINE)
    return m[1] if m else None


def configure(build: Path, seeds: str, top8: bool) -> None:
    # A configure runs Verilator on every model (minutes): only when the tree
    # is new or the seeds (they are on the tests' command lines) or the
    # shapes changed.
    want_top8 = "ON" if top8 else "OFF"
    if (build / "build.ninja").exists() and cached(build, "SYNCFAB_COV_SEEDS") == seeds \
            and cached(build, "SYNCFAB_COVERAGE") == "ON" \
            and cached(build, "SYNCFAB_COV_TOP8") == want_top8:
        return
    log = build.with_name(build.name + ".configure.log")
    print(f"coverage: configuring {build} (log: {log})", flush=True)
    with log.open("w") as f:
        r = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                            "-DSYNCFAB_COVERAGE=ON", f"-DSYNCFAB_COV_SEEDS={seeds}",
                            f"-DSYNCFAB_COV_TOP8={want_top8}"],
                           stdout=f, stderr=subprocess.STDOUT, check=False)
    if r.returncode != 0:
        raise SystemExit(f"coverage: configure failed, see {log}")


def rtl_test_targets(build: Path) -> list[str]:
    """The harness tests of tests/rtl (tb-tests/<target>.txt names each
    one's binary)."""
    # A test no longer configured leaves its file behind: ctest says which
    # tests the tree has now.
    listed = subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1"],
                            capture_output=True, text=True, check=True)
    tests = {t["name"] for t in json.loads(listed.stdout).get("tests", [])}
    out = []
    for f in sorted((build / "tb-tests").glob("*.txt")):
        exe = f.read_text().splitlines()[0]
        if "/tests/rtl/" in exe and f.stem in tests:
            out.append(f.stem)
    if not out:
        raise SystemExit(f"coverage: no RTL test in {build}/tb-tests")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=Path, default=ROOT / "build-cov")
    ap.add_argument("--seeds", default="1-5", help="seeds of the seeded tests, A-B")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--top8", action="store_true",
                    help="also the 8-port switch and its tests (switch_top8, ring mode)")
    ap.add_argument("--waivers", type=Path, default=ROOT / "rtl/coverage/waivers.txt")
    args = ap.parse_args(argv)
    if not re.fullmatch(r"\d+-\d+", args.seeds):
        ap.error(f"--seeds '{args.seeds}' is not A-B")
    t0 = time.monotonic()
    build = args.build.resolve()
    configure(build, args.seeds, args.top8)
    targets = rtl_test_targets(build)
    print(f"coverage: building {len(targets)} RTL test binaries", flush=True)
    r = subprocess.run(["ninja", "-C", str(build), "-j", str(args.jobs)] + targets, check=False)
    if r.returncode != 0:
        return 2
    t_build = time.monotonic() - t0

    dat = build / "coverage" / "dat"
    shutil.rmtree(dat, ignore_errors=True)
    dat.mkdir(parents=True)
    (build / "test-results").mkdir(exist_ok=True)
    print(f"coverage: running the RTL tests, seeds {args.seeds}", flush=True)
    tests = subprocess.run(["ctest", "--test-dir", str(build), "-R", "^test_", "-j",
                            str(args.jobs), "--output-on-failure", "--output-junit",
                            "test-results/coverage.xml"], check=False)
    t_tests = time.monotonic() - t0 - t_build

    try:
        rc = merge.merge([dat], build / "coverage", args.waivers)
    except merge.MergeError as e:
        print(f"coverage: {e}", file=sys.stderr)
        return 2
    t_all = time.monotonic() - t0
    print(f"coverage: build {t_build:.0f} s, tests {t_tests:.0f} s, "
          f"merge and report {t_all - t_build - t_tests:.0f} s, total {t_all:.0f} s")
    print(f"coverage: {build / 'coverage/summary.md'}, HTML {build / 'coverage/html/index.html'}")
    if tests.returncode != 0:
        print("coverage: some tests failed (above)", file=sys.stderr)
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
