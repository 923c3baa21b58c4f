#!/usr/bin/env python3
"""Fuzzes the formats generator's input (scripts/gen_formats.py): spec text
either loads or raises SpecError naming its problems, and a spec that loads
generates its SV package, C++ header, reference and JSON layouts (or
SpecError). Any other exception is a finding. Run by scripts/fuzz.sh with
atheris (libFuzzer's flags and corpus folders as arguments)."""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

with atheris.instrument_imports():
    from formats import emit_cpp, emit_json, emit_md, emit_sv
    from formats.spec import SpecError, loads

SPEC_PATH = Path("fuzz.toml")


def one_input(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # load() turns undecodable bytes into a SpecError before parsing
    try:
        spec = loads(text, SPEC_PATH)
    except SpecError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems), exc.problems
        return
    try:
        emit_sv.emit(spec)
        emit_cpp.emit(spec)
        emit_md.emit(spec)
        emit_json.emit(spec)
    except SpecError as exc:
        assert exc.problems, "a SpecError without problems"


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
