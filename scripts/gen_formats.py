#!/usr/bin/env python3
"""Generates syncfab's format package, header and reference from one spec.

    gen_formats.py --spec rtl/spec/formats.toml --out build/generated

writes (only files whose content changed, so a re-configure does not force
rebuilds):
    <out>/syncfab_fmt_pkg.sv                SV package
    <out>/include/syncfab/fmt/formats.hpp   C++ header
    <out>/formats.md                        format reference
    <out>/formats.json                      layouts for Python (cocotb tests)

A spec that fails validation (overlapping fields, a field past the format's
size, width 0, enum values that do not fit, duplicate names, ...) writes
nothing, prints one line per problem naming the format and the field, and
exits with status 1. --check validates only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # runs at configure time; keep the source tree clean
sys.path.insert(0, str(Path(__file__).resolve().parent))

from formats import emit_cpp, emit_json, emit_md, emit_sv  # noqa: E402
from formats.spec import SpecError, load  # noqa: E402


def _write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True, type=Path, help="the formats TOML spec")
    ap.add_argument("--out", type=Path, help="output folder (required unless --check)")
    ap.add_argument("--check", action="store_true", help="validate the spec, write nothing")
    args = ap.parse_args(argv)
    if not args.check and args.out is None:
        ap.error("--out is required unless --check is given")

    try:
        spec = load(args.spec)
        outputs = {
            Path("syncfab_fmt_pkg.sv"): emit_sv.emit(spec),
            Path("include") / emit_cpp.HEADER_PATH: emit_cpp.emit(spec),
            Path("formats.md"): emit_md.emit(spec),
            Path("formats.json"): emit_json.emit(spec),
        }
    except SpecError as exc:
        for problem in exc.problems:
            print(f"gen_formats: error: {problem}", file=sys.stderr)
        return 1

    if args.check:
        print(f"gen_formats: {args.spec}: {len(spec.formats)} formats OK")
        return 0
    changed = [p for p, text in outputs.items() if _write_if_changed(args.out / p, text)]
    print(f"gen_formats: {len(spec.formats)} formats -> {args.out} "
          f"({len(changed)} of {len(outputs)} files updated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
