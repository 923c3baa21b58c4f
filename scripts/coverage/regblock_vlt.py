#!/usr/bin/env python3
"""Writes the coverage tree's Verilator configuration for the register-block
signals of the hand-written RTL (docs/coverage.md).

Every variable or port whose type is one of PeakRDL's hwif structs
(`<block>__in_t`, `<block>__out_t`: nic_top's hwif_in, nic_csr's hwif_i,
switch_top's hwif_out, ...) gets `coverage_off` on its declaration line. Why:
with toggle coverage, Verilator 5.006 writes C++ that does not compile for
these unpacked structs ("lvalue required as left operand of assignment" on a
masked struct member); and their bits are the generated register block's
fields, which the register tests check field by field. The fields' uses in
the design (the logic reading hwif_out, driving hwif_in) keep their line
coverage.

    regblock_vlt.py --out FILE.vlt RTL.sv...
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# A declaration of a hwif struct: `[input|output] <blk>__in_t|__out_t <name>`.
DECL = re.compile(r"^\s*(?:(?:input|output)\s+)?\w+__(?:in|out)_t\s+\w+")


def lines_of(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if DECL.match(line)]


def render(files: list[Path]) -> str:
    out = ["// Written by scripts/coverage/regblock_vlt.py (the coverage tree): no",
           "// toggle coverage of PeakRDL hwif structs (the script says why).",
           "`verilator_config"]
    for f in sorted(files):
        for n in lines_of(f.read_text(errors="replace")):
            out.append(f'coverage_off -file "{f.resolve()}" -lines {n}')
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    text = render(args.files)
    if not args.out.exists() or args.out.read_text() != text:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
