#!/usr/bin/env python3
"""Runs clang-tidy on one translation unit unless identical inputs were already found clean.

    clang_tidy_cached.py <build-dir> <file.cpp>

clang-tidy takes about ten seconds per translation unit here (GoogleTest,
coroutines and Verilator headers), which would make `make lint` slow as the
project grows. Its verdict only depends on its inputs, so a clean result is
remembered under <build-dir>/lint-cache/clang-tidy/, keyed by a hash of:
the clang-tidy version, every .clang-tidy from the repository root down to the
file, the compile command, and the path and content of every file the
preprocessor reads for this translation unit (found with the compiler's -M).
Only clean results are cached, so a finding is reported again on every run.
LINT_NO_CACHE=1 ignores the cache.

Prints clang-tidy's output; exits non-zero when clang-tidy fails or reports
anything. A cache hit prints "clang-tidy: cached clean" on stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FINDING = re.compile(r"(warning|error):")


def compile_entry(build: Path, source: Path) -> dict:
    for entry in json.loads((build / "compile_commands.json").read_text()):
        path = Path(os.path.normpath(Path(entry["directory"]) / entry["file"]))
        if path == source:
            return entry
    raise SystemExit(f"clang_tidy_cached: {source} is not in {build}/compile_commands.json")


def compile_args(entry: dict) -> list[str]:
    return list(entry["arguments"]) if "arguments" in entry else shlex.split(entry["command"])


def dependencies(entry: dict) -> list[Path] | None:
    """Every file the preprocessor reads for this unit, or None if that fails
    (for example a generated header is missing; clang-tidy will say so)."""
    args = compile_args(entry)
    cmd: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-o":
            skip = True
        elif arg != "-c" and not arg.startswith("-o"):
            cmd.append(arg)
    proc = subprocess.run(cmd + ["-M"],
                          cwd=entry["directory"], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    text = proc.stdout.replace("\\\n", " ")
    _, _, deps = text.partition(":")
    return [Path(entry["directory"], d) for d in deps.split()]


def cache_key(entry: dict, source: Path, deps: list[Path]) -> str:
    h = hashlib.sha256()
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    h.update(version.encode())
    folder = source.parent
    while True:
        cfg = folder / ".clang-tidy"
        if cfg.is_file():
            h.update(str(cfg).encode() + b"\0" + cfg.read_bytes())
        if folder == ROOT or folder == folder.parent:
            break
        folder = folder.parent
    h.update("\0".join(compile_args(entry)).encode())
    for dep in sorted(set(deps)):
        h.update(str(dep).encode() + b"\0")
        h.update(dep.read_bytes() if dep.is_file() else b"<missing>")
    return h.hexdigest()


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    build = Path(sys.argv[1]).resolve()
    source = Path(os.path.normpath(Path(sys.argv[2]).resolve()))
    entry = compile_entry(build, source)

    use_cache = os.environ.get("LINT_NO_CACHE", "0") in ("", "0")
    stamp = build / "lint-cache" / "clang-tidy" / (hashlib.sha256(str(source).encode()).hexdigest() + ".ok")
    key = None
    if use_cache:
        deps = dependencies(entry)
        if deps is not None:
            key = cache_key(entry, source, deps)
            if stamp.is_file() and stamp.read_text() == key:
                print("clang-tidy: cached clean", file=sys.stderr)
                return 0

    proc = subprocess.run(["clang-tidy", "-p", str(build), "--quiet", str(source)],
                          capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    sys.stdout.write(out)
    clean = proc.returncode == 0 and not FINDING.search(out)
    if clean and key is not None:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
