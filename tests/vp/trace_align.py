"""Checks that the SystemC VCD (syncfab-vp --trace) and the verilated FST
(--fst) of one run share a time base: the first rising edge of a signal
seen in both (the interrupt line: the VCD's irq<n> is the sc_signal that the
verilated nic_top's intr_o drives) is at the same time in both files, and
there is one (a check that cannot pass on empty traces).

Usage: trace_align.py RUN.vcd RUN.fst VCD_SIGNAL FST_SIGNAL
A signal is named by the end of its dotted scope path (e.g. irq3,
nic3.dut.nic_top.intr_o).
"""

import subprocess
import sys
from fractions import Fraction

UNITS = {"s": 1, "ms": Fraction(1, 10**3), "us": Fraction(1, 10**6), "ns": Fraction(1, 10**9),
         "ps": Fraction(1, 10**12), "fs": Fraction(1, 10**15)}


def rising_edges(text: str, signal: str) -> tuple[list[Fraction], str]:
    """Times (seconds) of every 0 -> 1 of `signal`, and its full name."""
    tokens = text.split()
    scale = None
    scopes: list[str] = []
    ident = None
    full = ""
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "$timescale":
            j = tokens.index("$end", i)
            spec = "".join(tokens[i + 1:j])
            num = "".join(c for c in spec if c.isdigit())
            unit = spec[len(num):]
            scale = Fraction(int(num)) * UNITS[unit]
            i = j
        elif tok == "$scope":
            scopes.append(tokens[i + 2])
            i += 2
        elif tok == "$upscope":
            scopes.pop()
        elif tok == "$var":
            code, name = tokens[i + 3], tokens[i + 4]
            path = ".".join(scopes + [name])
            if ident is None and (path == signal or path.endswith("." + signal)):
                ident, full = code, path
            i += 4
        elif tok == "$enddefinitions":
            i += 1
            break
        i += 1
    if scale is None or ident is None:
        raise SystemExit(f"trace_align: no {'timescale' if scale is None else signal} in trace")
    edges: list[Fraction] = []
    now = Fraction(0)
    value = "x"
    after_vector = False  # the token names the signal of a vector value
    for tok in tokens[i:]:
        if after_vector:
            after_vector = False
        elif tok[0] in "bBrR":
            after_vector = True
        elif tok.startswith("#"):
            now = int(tok[1:]) * scale
        elif tok[1:] == ident and tok[0] in "01xz":
            if tok[0] == "1" and value != "1":
                edges.append(now)
            value = tok[0]
    return edges, full


def main() -> int:
    vcd_path, fst_path, vcd_signal, fst_signal = sys.argv[1:5]
    with open(vcd_path, encoding="utf-8") as f:
        vcd = f.read()
    fst = subprocess.run(["fst2vcd", "-f", fst_path], check=True, capture_output=True,
                         text=True).stdout
    a, a_name = rising_edges(vcd, vcd_signal)
    b, b_name = rising_edges(fst, fst_signal)
    print(f"{vcd_path} {a_name}: {len(a)} rising edges, first at "
          f"{float(a[0]) * 1e9 if a else float('nan'):.3f} ns")
    print(f"{fst_path} {b_name}: {len(b)} rising edges, first at "
          f"{float(b[0]) * 1e9 if b else float('nan'):.3f} ns")
    if not a or not b:
        print("FAIL: no rising edge to compare")
        return 1
    if a != b:
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        print(f"FAIL: the edges differ from edge {first} on")
        return 1
    print(f"PASS: the same {len(a)} edges at the same times")
    return 0


if __name__ == "__main__":
    sys.exit(main())
