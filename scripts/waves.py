#!/usr/bin/env python3
"""Re-run one harness test with FST tracing on and print the waveform's path.

    make waves TEST=<suite.name> SEED=<n>
    .venv/bin/python scripts/waves.py --build build --test damq.random --seed 17

The harness test binaries are listed in <build>/tb-tests/*.txt (written by
syncfab_add_tb_test); the one whose --list names TEST is run with
`--test TEST --seed SEED +trace`. Exit code: the test's (0 = passed), or 2 when
TEST or SEED is not usable.
"""
from __future__ import annotations

import argparse
import difflib
import os
import pathlib
import re
import subprocess
import sys


def refuse(msg: str) -> None:
    print(f"waves: {msg}", file=sys.stderr)
    sys.exit(2)


def test_binaries(build: pathlib.Path) -> list[pathlib.Path]:
    manifest = build / "tb-tests"
    if not manifest.is_dir():
        refuse(f"no harness tests in {build} ({manifest} is missing); build first with `make build`")
    found = []
    for entry in sorted(manifest.glob("*.txt")):
        binary = pathlib.Path(entry.read_text().splitlines()[0].strip())
        if binary.is_file() and os.access(binary, os.X_OK):
            found.append(binary)
    if not found:
        refuse(f"the harness test binaries listed in {manifest} are not built; run `make build`")
    return found


def list_tests(binary: pathlib.Path) -> list[str]:
    r = subprocess.run([str(binary), "--list"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        refuse(f"{binary} --list failed: {(r.stderr or r.stdout).strip()}")
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="build folder")
    ap.add_argument("--test", required=True, help="test name, suite.name")
    ap.add_argument("--seed", required=True, help="seed (non-negative integer)")
    args = ap.parse_args()

    if not args.test:
        refuse("no TEST given: make waves TEST=<suite.name> SEED=<n>")
    if not re.fullmatch(r"[0-9]{1,19}", args.seed):
        refuse(f"SEED '{args.seed}' is not a non-negative integer")
    seed = int(args.seed)

    build = pathlib.Path(args.build).resolve()
    owner: dict[str, pathlib.Path] = {}
    for binary in test_binaries(build):
        for name in list_tests(binary):
            owner.setdefault(name, binary)
    if args.test not in owner:
        close = difflib.get_close_matches(args.test, list(owner), n=5, cutoff=0.6)
        hint = (f"did you mean {', '.join(close)}?" if close
                else f"{len(owner)} tests exist; list them with any test binary's --list")
        refuse(f"unknown test '{args.test}': {hint}")

    binary = owner[args.test]
    waves_dir = build / "waves"
    fst = waves_dir / f"{args.test}-seed{seed}.fst"
    if fst.exists():
        fst.unlink()
    cmd = [str(binary), "--test", args.test, "--seed", str(seed), "--waves-dir", str(waves_dir), "+trace"]
    print("waves: running " + " ".join(cmd), flush=True)
    rc = subprocess.call(cmd)
    if not fst.is_file():
        refuse(f"{args.test} ran (exit {rc}) but wrote no {fst}: it creates no model with ctx.make_dut")
    print(f"waves: {fst}")
    print(f"waves: open it with: gtkwave {fst}")
    if rc != 0:
        print(f"waves: note: the test failed (exit {rc}); the waveform shows the failure", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
