#!/usr/bin/env python3
"""syncfab-fabric end to end: a small fat tree routed, programmed, run and
compared with the golden fabric, its summary, CSV, FST and GTKWave save
file; and the bad input it refuses, each with exit code 1 and a message
naming what is wrong, before any simulation."""
from __future__ import annotations

import argparse
import csv
import pathlib
import re
import shutil
import subprocess
import sys


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=600)


def fail(msg: str, r: subprocess.CompletedProcess[str] | None = None) -> None:
    print(f"FAIL: {msg}")
    if r is not None:
        print(r.stdout[-4000:])
        print(r.stderr[-4000:])
    sys.exit(1)


def check_flow(tool: str, work: pathlib.Path) -> None:
    waves = work / "waves"
    table = work / "latency.csv"
    r = run(tool, "--fabric", "fattree:ports=4,levels=2", "--compare", "--k", "1,3",
            "--barriers", "2", "--seed", "3", "--trace", str(waves), "--csv", str(table))
    if r.returncode != 0:
        fail(f"small fat tree: exit {r.returncode}", r)
    out = r.stdout
    for want in ("8 NICs, 6 switches", "RTL    program", "model  barriers",
                 "RTL and golden fabric agree", "every flit sent was received"):
        if want not in out:
            fail(f"summary lacks {want!r}", r)
    rows = list(csv.DictReader(table.open()))
    if [row["k"] for row in rows] != ["1", "3"]:
        fail(f"CSV rows {[row['k'] for row in rows]}, want k = 1, 3")
    for row in rows:
        # A barrier cannot beat the wires: the physical bound holds.
        if float(row["latency"]) < float(row["bound"]) or float(row["model_latency"]) < float(row["bound"]):
            fail(f"k={row['k']}: latency below the physical bound: {row}")
    fsts = list(waves.glob("*.fst"))
    if len(fsts) != 1 or fsts[0].stat().st_size < 10_000:
        fail(f"one FST of the whole system expected in {waves}: {fsts}", r)
    gtkw = waves / "system.gtkw"
    text = gtkw.read_text()
    m = re.search(r"\((\S+), (\S+), (\S+)\)", out)
    if m is None:
        fail("the summary does not name the NIC, leaf and spine of the save file", r)
    for inst in m.groups():
        if not re.search(rf"^{re.escape(inst)}\.(nic_top|switch_top)\.", text, re.M):
            fail(f"{gtkw} shows no signal of {inst}")
    if f'[dumpfile] "{fsts[0]}"' not in text:
        fail(f"{gtkw} does not open {fsts[0]}")
    if "not in this FST" in out:
        fail("signals of the checked-in save files (tb/waves) are missing from the FST", r)
    check_gtkwave(fsts[0], gtkw, work)


GTKWAVE_TCL = """
puts "GTKWAVE_DISPLAYED [llength [gtkwave::getDisplayedSignals]]"
gtkwave::/File/Quit
"""


def check_gtkwave(fst: pathlib.Path, gtkw: pathlib.Path, work: pathlib.Path) -> None:
    """GTKWave itself (headless, under Xvfb) opens the FST with the save file
    and shows every signal the save file lists."""
    want = sum(1 for line in gtkw.read_text().splitlines() if line and line[0] not in "@-[")
    script = work / "displayed.tcl"
    script.write_text(GTKWAVE_TCL)
    r = subprocess.run(["xvfb-run", "-a", "gtkwave", f"--script={script}", str(fst), str(gtkw)],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"^GTKWAVE_DISPLAYED (\d+)", r.stdout, re.M)
    if m is None or int(m.group(1)) != want or want < 300:
        fail(f"GTKWave shows {m.group(1) if m else 'nothing'} of the save file's {want} signals", r)


def check_pfc(tool: str) -> None:
    # With PFC at one cell, the frames each NIC takes are a timing outcome;
    # everything else still agrees with the golden fabric.
    r = run(tool, "--fabric", "fattree:ports=4,levels=2", "--pfc", "--compare", "--k", "2")
    if r.returncode != 0:
        fail(f"PFC run: exit {r.returncode}", r)
    m = re.search(r"PFC frames (\d+)", r.stdout)
    if m is None or int(m.group(1)) == 0 or "golden fabric agree" not in r.stdout:
        fail("PFC run: no PFC frame crossed the links, or no agreement", r)


def check_concurrent(tool: str, work: pathlib.Path) -> None:
    # Every row and column group of a 4 x 8 grid at once, 5 barriers back to
    # back each, both kinds; RTL and golden fabric do the same barriers.
    table = work / "concurrent.csv"
    r = run(tool, "--fabric", "fattree:ports=8,levels=2", "--groups", "grid2d:4x8", "--mc",
            "MINIHOP-MC", "--group-barrier", "comb,mcast", "--concurrent", "5", "--compare",
            "--seed", "2", "--csv", str(table))
    if r.returncode != 0 or "golden fabric agree (completions per context" not in r.stdout:
        fail(f"concurrent run: exit {r.returncode}", r)
    rows = list(csv.DictReader(table.open()))
    if sorted({row["barrier"] for row in rows}) != ["comb", "mcast"] or len(rows) != 24:
        fail(f"concurrent CSV: {len(rows)} rows, want 12 groups x 2 kinds")
    for row in rows:
        if row["concurrent"] != "5" or row["mc"] != "MINIHOP-MC" or int(row["efi_max"]) < 1:
            fail(f"concurrent CSV row: {row}")
        for lat, p99, rate in (("latency", "p99", "per_kcycle"),
                               ("model_latency", "model_p99", "model_per_kcycle")):
            if not (float(row["bound"]) <= float(row[lat]) <= float(row[p99])) or float(row[rate]) <= 0:
                fail(f"concurrent CSV row: bound <= mean <= p99 and a rate > 0 expected: {row}")


def check_refused(tool: str, work: pathlib.Path) -> None:
    net = work / "unconnected.net"
    net.write_text("Switch 8 \"sw\"\n[1] \"h0\"[1]\n\nCa 1 \"h0\"\n[1] \"sw\"[1]\n\nCa 1 \"h1\"\n")
    cases = [
        (["--unicast", "bogus"], "bogus"),
        (["--mc", "NOPE"], "NOPE"),
        (["--fabric", "fattree:ports=4,levels=2", "--rtl", "nosuchnode"], "nosuchnode"),
        # Switches of 9 to 16 ports run as 16-port switches; none has more.
        (["--fabric", "fattree:ports=18,levels=2"], "has 18 ports"),
        (["--k", "0"], "fan-out 0"),
        (["--net", str(work / "missing.net")], "missing.net"),
        (["--fabric", "fattree:ports=4,levels=2", "--net", str(net)], "give one"),
        (["--concurrent", "3"], "--concurrent 3"),
        (["--concurrent", "3", "--group-barrier", "comb", "--k", "1"], "fan-out"),
        (["--disseminate-groups", "--mc", "none"], "--disseminate-groups"),
        (["--group-barrier", "comb", "--mc", "none"], "--group-barrier"),
    ]
    for args, named in cases:
        r = run(tool, *args)
        if r.returncode != 1 or named not in r.stderr:
            fail(f"{args}: want exit 1 naming {named!r}, got {r.returncode}", r)
        if "steps (wall time" in r.stdout:
            fail(f"{args}: simulated before refusing", r)
        print(f"refused {args}: {r.stderr.strip()}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True, type=pathlib.Path)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    a.work.mkdir(parents=True)
    check_refused(a.tool, a.work)
    check_flow(a.tool, a.work)
    check_pfc(a.tool)
    check_concurrent(a.tool, a.work)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
