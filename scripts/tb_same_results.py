#!/usr/bin/env python3
"""Runs a harness test binary twice, with two settings, and fails unless both
runs print the same results.

An optimisation of the harness that must not change what a test sees (idle
skipping: TestContext::skip_when_idle) is checked by running the same tests
and seeds with it off and on: every line a test prints (simulated times,
cycle counts, checks, statistics) must match. Only what is allowed to differ
is removed before the comparison: wall-clock times, the `param` line of the
knob under test, and `bench:` lines. The second run must show the
optimisation at work (`--require-skipped`: some model skipped evals, read
from its `bench:` lines), so the check cannot pass because nothing was
skipped.

Usage:
  tb_same_results.py <binary> --knob skip_idle --off 0 --on 1
                     [--require-skipped] -- <test args...>
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import subprocess
import sys

WALL = re.compile(r"\(\d+(\.\d+)? s(, |\))")
BENCH = "bench: "


def run(binary: str, args: list[str], knob: str, value: str) -> list[str]:
    cmd = [binary, *args, "--param", f"{knob}={value}", "--bench"]
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"tb_same_results: {binary} {knob}={value} exited {proc.returncode}")
    return proc.stdout.splitlines()


def results(lines: list[str], knob: str) -> list[str]:
    out = []
    for line in lines:
        if line.startswith(BENCH) or re.match(rf"\s*param {re.escape(knob)} = ", line):
            continue
        out.append(WALL.sub("(", line))
    return out


def skipped(lines: list[str]) -> int:
    total = 0
    for line in lines:
        if line.startswith(BENCH):
            for model in json.loads(line[len(BENCH):])["models"].values():
                total += int(model.get("skipped", 0))
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--knob", required=True, help="the --param that switches the setting")
    ap.add_argument("--off", required=True)
    ap.add_argument("--on", required=True)
    ap.add_argument("--require-skipped", action="store_true",
                    help="fail unless the --on run skipped some evals")
    argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("the test arguments go after --")
    cut = argv.index("--")
    ns = ap.parse_args(argv[:cut])
    args = argv[cut + 1:]
    if not args:
        ap.error("no test arguments after --")

    off = run(ns.binary, args, ns.knob, ns.off)
    on = run(ns.binary, args, ns.knob, ns.on)
    a, b = results(off, ns.knob), results(on, ns.knob)
    if a != b:
        sys.stdout.writelines(
            line + "\n" for line in difflib.unified_diff(
                a, b, f"{ns.knob}={ns.off}", f"{ns.knob}={ns.on}", lineterm="", n=2))
        print(f"tb_same_results: FAIL: the runs with {ns.knob}={ns.off} and "
              f"{ns.knob}={ns.on} print different results (diff above)")
        return 1
    n_skipped = skipped(on)
    if ns.require_skipped and n_skipped == 0:
        print(f"tb_same_results: FAIL: {ns.knob}={ns.on} skipped no eval, so the "
              "comparison proves nothing")
        return 1
    print(f"tb_same_results: PASS: {len(a)} result lines identical; "
          f"{ns.knob}={ns.on} skipped {n_skipped} evals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
