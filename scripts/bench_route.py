#!/usr/bin/env python3
"""`make bench-route`: the subnet manager on the FULB-MC paper's fabrics.

Runs the C++ tools (sm_minhop_bench, sm_mc_bench, sm_unicast_bench) of a
build, one subprocess per run so that each run's peak RSS is its own
(os.wait4), and writes docs/bench-route.md (machine, tables, targets with
PASS/MISS computed from the numbers), docs/bench-route.csv (one row per
multicast run), docs/bench-route-unicast.csv and, through
scripts/plot_bench_route.py under Debian's python3 (matplotlib),
docs/bench-route.png. Timing is the tools' own wall time of the routing call,
never a timed unit test.

The end-to-end scale rows run `syncfab-route` itself (fabric, min-hop,
multicast, unicast tables, credit-loop check, every tree checked) and write
docs/bench-route-scale.csv; the failure rows run `sm_reroute_bench` (links
failed and repaired one at a time on the paper's fat tree and torus, members
joining and leaving). `--scale-only` runs just those two and replaces their
sections of an existing docs/bench-route.md, leaving the rest (the full
benchmark takes over ten minutes) as it was.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# --- what runs -------------------------------------------------------------


@dataclass(frozen=True)
class FabricCase:
    label: str  # short name in the tables
    spec: str  # generator spec for the tools
    nodes: int
    # patterns per processes-per-node: 2D grid, 3D grid, random. Grids use
    # every process (rows x cols = nodes x ppn); 3D grids follow the
    # fabric's shape where it has one (the paper's 240x100 torus and
    # 81x27x12 dragonfly patterns are the ppn=1 ones here).
    patterns: dict[int, tuple[str, ...]]
    lash: bool = False  # LASH is switches^2 paths: only where it finishes in seconds
    unicast: bool = True  # the unicast engines and credit loops on this fabric


FABRICS: tuple[FabricCase, ...] = (
    FabricCase("fattree", "fattree:ports=40,levels=3", 16000, {
        1: ("grid2d:160x100", "grid3d:40x20x20", "random:count=4000,size=16"),
        4: ("grid2d:320x200", "grid3d:40x40x40", "random:count=4000,size=16"),
    }),
    # The max-EFI target case (TARGET_CASE): k=32 three-level fat tree, one
    # pattern; its unicast tables add nothing to the 40-port tree's.
    FabricCase("fattree32", "fattree:ports=32,levels=3", 8192, {1: ("grid2d:128x64",)},
               unicast=False),
    FabricCase("pruned:paths=8", "pruned:paths=8", 8704, {
        1: ("grid2d:136x64", "grid3d:17x32x16", "random:count=4000,size=16"),
        4: ("grid2d:136x256", "grid3d:34x32x32", "random:count=4000,size=16"),
    }, lash=True),
    # "Many small groups" (the paper's SSSP-MC worst case) on the largest fabric.
    FabricCase("pruned:paths=2", "pruned:paths=2", 40960, {
        1: ("grid2d:160x256", "grid3d:40x32x32", "random:count=16000,size=8"),
        4: ("grid2d:320x512", "grid3d:80x64x32", "random:count=16000,size=8"),
    }, lash=True),
    FabricCase("dragonfly", "dragonfly:a=18,p=9,h=9", 26406, {
        1: ("grid2d:163x162", "grid3d:81x27x12", "random:count=4000,size=16"),
        4: ("grid2d:326x324", "grid3d:162x54x12", "random:count=4000,size=16"),
    }),
    # Last: SSSP-MC on 12,000 switches is the slow part of the whole benchmark.
    FabricCase("torus", "torus:x=30,y=20,z=20,nodes=2", 24000, {
        1: ("grid2d:240x100", "grid3d:30x20x40", "random:count=4000,size=16"),
        4: ("grid2d:480x200", "grid3d:60x40x40", "random:count=4000,size=16"),
    }),
)
PLACEMENTS = ("aware", "unaware")
SEED = 1


@dataclass(frozen=True)
class ScaleCase:
    label: str
    spec: str
    pattern: str
    nodes: int
    max_wall_s: float  # the target, whole process
    max_mb: float


# `syncfab-route` end to end with the default engines (FULB-MC; DOR on the
# torus, FTREE on the fat tree, UPDN on the dragonfly), without lfts.dump
# (switches x LIDs lines: about 30 GB on the torus). The fat tree of 64-port
# switches (65,536 end nodes) and the 97,656-node dragonfly need more unicast
# LIDs than InfiniBand has (1..0xBFFF): they are routed by destination index,
# the destinations past 0xBFFF without a LID (sw-driver/sm/README.md, "Past
# the LID space"); the largest of each family that fits stays for comparison.
SCALE: tuple[ScaleCase, ...] = (
    ScaleCase("torus 30x20x20x2", "torus:x=30,y=20,z=20,nodes=2", "grid2d:240x100", 24000,
              10.0, 1024.0),
    ScaleCase("fat tree 56-port 3-level", "fattree:ports=56,levels=3", "grid2d:224x196", 43904,
              30.0, 4096.0),
    ScaleCase("dragonfly 20/10/10", "dragonfly:a=20,p=10,h=10", "grid2d:201x200", 40200,
              30.0, 4096.0),
    ScaleCase("fat tree 64-port 3-level", "fattree:ports=64,levels=3", "grid2d:256x256", 65536,
              30.0, 4096.0),
    ScaleCase("dragonfly 24/13/13", "dragonfly:a=24,p=13,h=13", "grid2d:313x312", 97656,
              30.0, 4096.0),
)
SCALE_PHASES = (("fabric", "fabric"), ("minhop", "min-hop"), ("multicast_route", "multicast"),
                ("tree_check", "tree check"), ("unicast_route", "unicast"),
                ("credit_loop_check", "credit check"), ("write_outputs", "write"))
SCALE_HEADING = "## End to end at scale (`syncfab-route`)"
REROUTE_HEADING = "## Failures, repairs and members joining (`sm_reroute_bench`)"
# The paper's fabrics and how fast one link failure must be rerouted there.
REROUTE_CASES = (("fattree:ports=40,levels=3", 50.0), ("torus:x=30,y=20,z=20,nodes=2", 200.0))
REROUTE_FAILURES = 5

# The paper's engines; anything else the registry lists is a variant that
# the "beyond the paper" target applies to.
PAPER_ENGINES = ("MINIHOP-MC", "MINIHOP-MC-new", "SSSP-MC", "SSSP-MC-new", "FULB-MC", "FULB-MC-DF")
# Unicast engines that must come out free of credit loops (the routing targets);
# MINHOP and DOR with one lane are shown for contrast.
DEADLOCK_FREE = ("UPDN", "FTREE", "DOR+dateline", "LASH")

# --- running a tool --------------------------------------------------------


@dataclass
class RunResult:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    peak_mb: float  # this process's max RSS
    cpu_s: float = 0.0  # its user + system time


def run_tool(argv: list[str]) -> RunResult:
    """Runs one tool and reaps it with os.wait4, so the peak RSS is its own."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped
        out.seek(0)
        err.seek(0)
        return RunResult(argv, proc.returncode, out.read(), err.read(), wall,
                         usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime)


# --- parsing the tools' output -----------------------------------------------

MC_FIELDS = ("fabric", "pattern", "ppn", "placement", "seed", "groups", "single_node_groups",
             "engine", "max_efi_sw", "max_efi_all", "mean_efi_sw", "mean_efi_all", "route_s",
             "trees")
# The case's EFI lower bound (sm::efi_lower_bound), when the tool reports it.
BOUND_FIELDS = ("bound_sw", "bound_all", "bound_s", "bound_cut")


def parse_mc_csv(text: str) -> list[dict]:
    """Rows of `sm_mc_bench --csv` with numbers converted."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [f for f in MC_FIELDS if f not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"sm_mc_bench --csv: missing columns {missing}")
    rows = []
    for r in reader:
        for k in ("ppn", "seed", "groups", "single_node_groups", "max_efi_sw", "max_efi_all"):
            r[k] = int(r[k])
        for k in ("mean_efi_sw", "mean_efi_all", "route_s"):
            r[k] = float(r[k])
        for k in BOUND_FIELDS:
            if r.get(k) in (None, ""):
                r[k] = None
            elif k != "bound_cut":
                r[k] = float(r[k]) if k == "bound_s" else int(r[k])
        rows.append(r)
    return rows


_UC_HEAD = re.compile(r"^(?P<spec>\S+): (?P<switches>\d+) switches, (?P<nodes>\d+) end nodes, "
                      r"min-hop (?P<minhop_s>[\d.]+) s$")
_UC_ROW = re.compile(
    r"^  (?P<engine>\S.*?)\s+route\s+(?P<route_s>[\d.]+) s\s+LFT\s+(?P<lft_mb>[\d.]+) MB "
    r"\((?P<bits>\d+) bit\)\s+shortest: (?P<shortest>.*) \((?P<check_s>[\d.]+) s\)\s+"
    r"max/mean LIDs per link (?P<max_lids>\d+)/(?P<mean_lids>[\d.]+), up-port spread "
    r"(?P<spread>\d+), unrouted (?P<unrouted>\d+)\s+CDG: (?P<cdg>acyclic|CYCLIC), "
    r"(?P<channels>\d+) nodes, (?P<deps>\d+) deps \((?P<cdg_s>[\d.]+) s\)$")
_UC_LANES = re.compile(r"^  LASH: (?P<lanes>\d+) lanes$")
_UC_CYCLE = re.compile(r"^    cycle(?:: (?P<links>.*)| of (?P<n>\d+) links)$")


def parse_unicast(text: str) -> list[dict]:
    """Rows of sm_unicast_bench's report (one per fabric x engine)."""
    rows: list[dict] = []
    head: dict | None = None
    lanes = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if m := _UC_HEAD.match(line):
            head = {"spec": m["spec"], "switches": int(m["switches"]), "nodes": int(m["nodes"]),
                    "minhop_s": float(m["minhop_s"])}
            continue
        if m := _UC_LANES.match(line):
            lanes = int(m["lanes"])
            continue
        if m := _UC_ROW.match(line):
            if head is None:
                raise ValueError(f"sm_unicast_bench: engine line before a fabric line: {line!r}")
            row = dict(head)
            row.update(engine=m["engine"], route_s=float(m["route_s"]),
                       lft_mb=float(m["lft_mb"]), shortest=m["shortest"],
                       check_s=float(m["check_s"]), cdg_s=float(m["cdg_s"]),
                       acyclic=m["cdg"] == "acyclic", channels=int(m["channels"]),
                       deps=int(m["deps"]), unrouted=int(m["unrouted"]),
                       lanes=lanes if m["engine"] == "LASH" else
                       (2 if m["engine"] == "DOR+dateline" else 1),
                       cycle_links=0, cycle="")
            rows.append(row)
            continue
        if m := _UC_CYCLE.match(line):
            if not rows:
                raise ValueError(f"sm_unicast_bench: cycle line before an engine line: {line!r}")
            if m["links"] is not None:
                rows[-1]["cycle"] = m["links"]
                rows[-1]["cycle_links"] = m["links"].count("->")  # one arrow per link
            else:
                rows[-1]["cycle_links"] = int(m["n"])
            continue
        raise ValueError(f"sm_unicast_bench: unexpected line {line!r}")
    return rows


_MH_ROW = re.compile(r"^\|\s*(?P<spec>[^|\s-][^|]*?)\s*\|\s*(?P<nodes>\d+)\s*\|\s*(?P<switches>\d+)"
                     r"\s*\|\s*(?P<diam>\d+)\s*\|\s*(?P<build_s>[\d.]+)\s*\|\s*(?P<minhop_s>[\d.]+)"
                     r"\s*\|\s*(?P<minhop_mb>[\d.]+)\s*\|\s*(?P<peak_mb>[\d.]+)\s*\|$")


def parse_minhop(text: str) -> list[dict]:
    rows = []
    for line in text.splitlines():
        if m := _MH_ROW.match(line.strip()):
            rows.append({"spec": m["spec"], "nodes": int(m["nodes"]),
                         "switches": int(m["switches"]), "diameter": int(m["diam"]),
                         "build_s": float(m["build_s"]), "minhop_s": float(m["minhop_s"]),
                         "minhop_mb": float(m["minhop_mb"]), "peak_mb": float(m["peak_mb"])})
    return rows


ROOT_HEADER = ("fabric / pattern", "groups", "switches", "classes", "index build ms", "scan s",
               "scan us/group", "index s", "index us/group", "speedup", "roots")


def parse_root_bench(text: str) -> list[dict]:
    """Rows of `sm_mc_bench --root-bench` (root selection alone: full scan vs index)."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or cells[0] == ROOT_HEADER[0] or len(cells) < 2:
            continue
        if len(cells) != len(ROOT_HEADER):
            raise ValueError(f"sm_mc_bench --root-bench: {len(cells)} columns, expected "
                             f"{len(ROOT_HEADER)}: {line!r}")
        rows.append(dict(zip(ROOT_HEADER, cells)))
    return rows


# --- targets, computed from the rows ---------------------------------


@dataclass
class Target:
    name: str
    passed: bool
    detail: str

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "MISS"


def _case_key(r: dict) -> tuple:
    return (r["fabric"], r["pattern"], r["ppn"], r["placement"])


def _case_name(key: tuple) -> str:
    fabric, pattern, ppn, placement = key
    return f"{fabric} {pattern} ppn{ppn} {placement}"


def _by_case(rows: list[dict]) -> dict[tuple, dict[str, dict]]:
    cases: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        cases.setdefault(_case_key(r), {})[r["engine"]] = r
    return cases


def max_efi(r: dict) -> int:
    """EFI over all links (DESIGN §5b): every directed switch-to-switch and switch-to-node link."""
    return r["max_efi_all"]


def bound_all(r: dict) -> int | None:
    """The case's lower bound of max_efi(r): no set of trees does better."""
    return r.get("bound_all")


def ratio_text(r: dict) -> str:
    b = bound_all(r)
    return f"{max_efi(r) / b:.2f}" if b else "—"


# The max-EFI target: an engine beyond the paper at most TARGET_EFI on this
# case, at most TARGET_TIME x FULB-MC's routing time there.
TARGET_CASE = ("fattree32", "grid2d:128x64", 1, "unaware")
TARGET_SPEC = "fattree:ports=32,levels=3"
TARGET_EFI = 8
TARGET_TIME = 2.0

TIME_TARGETS = (("fattree", 0.2), ("torus", 2.3), ("pruned:paths=2", 3.0))
SPEEDUP_FABRIC = "pruned:paths=2"
SPEEDUP_MIN = 10.0


def compute_targets(rows: list[dict]) -> list[Target]:
    cases = _by_case(rows)
    out: list[Target] = []

    # Routing time of FULB-MC, worst case over the fabric's patterns.
    for fabric, limit in TIME_TARGETS:
        runs = [r for r in rows if r["fabric"] == fabric and r["engine"] == "FULB-MC"]
        name = f"FULB-MC routes every pattern on {fabric} in < {limit} s"
        if not runs:
            out.append(Target(name, False, "no FULB-MC run on this fabric"))
            continue
        worst = max(runs, key=lambda r: r["route_s"])
        out.append(Target(name, worst["route_s"] < limit,
                          f"worst {worst['route_s']:.3f} s ({_case_name(_case_key(worst))}) "
                          f"over {len(runs)} runs"))

    # Speedup over SSSP-MC-new with many small groups.
    ratios = []
    for key, eng in cases.items():
        if key[0] == SPEEDUP_FABRIC and key[1].startswith("random:") and \
                "FULB-MC" in eng and "SSSP-MC-new" in eng:
            ratios.append((eng["SSSP-MC-new"]["route_s"] / max(eng["FULB-MC"]["route_s"], 1e-9),
                           key))
    name = f"FULB-MC >= {SPEEDUP_MIN:g}x faster than SSSP-MC-new on {SPEEDUP_FABRIC}, random groups"
    if ratios:
        low, key = min(ratios)
        out.append(Target(name, low >= SPEEDUP_MIN,
                          f"lowest {low:.1f}x ({_case_name(key)}), highest "
                          f"{max(ratios)[0]:.1f}x over {len(ratios)} cases"))
    else:
        out.append(Target(name, False, "no random case with both engines"))

    # Max EFI equal on the standard fat tree.
    bad, n = [], 0
    for key, eng in cases.items():
        if key[0] != "fattree" or "FULB-MC" not in eng:
            continue
        n += 1
        others = [max_efi(eng[e]) for e in ("MINIHOP-MC-new", "SSSP-MC-new") if e in eng]
        if len(others) < 2 or any(o != max_efi(eng["FULB-MC"]) for o in others):
            bad.append(f"{_case_name(key)}: FULB {max_efi(eng['FULB-MC'])} vs {others}")
    out.append(Target("FULB-MC max EFI = MINIHOP-MC-new = SSSP-MC-new on fattree",
                      n > 0 and not bad,
                      f"{n} cases" + (f"; differ: {'; '.join(bad)}" if bad else ", all equal")
                      if n else "no fattree case"))

    # At most half of MINIHOP-MC's on the pruned tree with 8 paths.
    worst, n = None, 0
    for key, eng in cases.items():
        if key[0] != "pruned:paths=8" or "FULB-MC" not in eng or "MINIHOP-MC" not in eng:
            continue
        n += 1
        ratio = max_efi(eng["FULB-MC"]) / max(max_efi(eng["MINIHOP-MC"]), 1)
        if worst is None or ratio > worst[0]:
            worst = (ratio, key, max_efi(eng["FULB-MC"]), max_efi(eng["MINIHOP-MC"]))
    name = "FULB-MC max EFI <= 1/2 of MINIHOP-MC's on pruned:paths=8"
    if worst is None:
        out.append(Target(name, False, "no pruned:paths=8 case with both engines"))
    else:
        out.append(Target(name, worst[0] <= 0.5,
                          f"worst ratio {worst[0]:.2f} ({worst[2]} vs {worst[3]}, "
                          f"{_case_name(worst[1])}) over {n} cases"))

    # Within 10% of SSSP-MC-new everywhere.
    bad, n = [], 0
    for key, eng in cases.items():
        if "FULB-MC" not in eng or "SSSP-MC-new" not in eng:
            continue
        n += 1
        f, s = max_efi(eng["FULB-MC"]), max_efi(eng["SSSP-MC-new"])
        if f > 1.10 * s:
            bad.append(f"{_case_name(key)}: {f} vs {s}")
    out.append(Target("FULB-MC max EFI <= 1.1 x SSSP-MC-new's on every case", n > 0 and not bad,
                      (f"{n} cases" + (f"; above: {'; '.join(bad)}" if bad else ", none above"))
                      if n else "no case with both engines"))

    out.append(efi_case_target(cases.get(TARGET_CASE, {})))

    # Beyond-the-paper variants.
    variants = sorted({r["engine"] for r in rows} - set(PAPER_ENGINES))
    if not variants:
        out.append(Target("a variant beyond the paper: max EFI <= min(MINIHOP-MC-new, "
                          "SSSP-MC-new) everywhere", False,
                          "no engine beyond the paper's in the registry (mc_engines())"))
    for v in variants:
        bad_efi, bad_time, n = [], [], 0
        for key, eng in cases.items():
            if v not in eng:
                continue
            n += 1
            base = [max_efi(eng[e]) for e in ("MINIHOP-MC-new", "SSSP-MC-new") if e in eng]
            if len(base) < 2:
                bad_efi.append(f"{_case_name(key)}: baselines missing")
            elif max_efi(eng[v]) > min(base):
                bad_efi.append(f"{_case_name(key)}: {max_efi(eng[v])} vs {min(base)}")
            if "FULB-MC" in eng and eng[v]["route_s"] > 2 * eng["FULB-MC"]["route_s"]:
                bad_time.append(f"{_case_name(key)}: {eng[v]['route_s']:.3f} s vs "
                                f"{eng['FULB-MC']['route_s']:.3f} s")
        out.append(Target(f"{v} max EFI <= min(MINIHOP-MC-new, SSSP-MC-new) on every case",
                          n > 0 and not bad_efi,
                          f"{n} cases" + (f"; above: {'; '.join(bad_efi)}" if bad_efi
                                          else ", none above")))
        out.append(Target(f"{v} routing time <= 2 x FULB-MC's on every case",
                          n > 0 and not bad_time,
                          f"{n} cases" + (f"; slower: {'; '.join(bad_time)}" if bad_time
                                          else ", none slower")))
    return out


def efi_case_target(eng: dict[str, dict]) -> Target:
    """The best engine beyond the paper (FULB-MC-G first on a tie) on TARGET_CASE:
    max EFI <= TARGET_EFI at <= TARGET_TIME x FULB-MC's routing time."""
    fabric, pattern, _, placement = TARGET_CASE
    name = (f"FULB-MC-G (or the best engine beyond the paper) max EFI <= {TARGET_EFI} on "
            f"{TARGET_SPEC} {pattern} {placement} at <= {TARGET_TIME:g}x FULB-MC's routing time")
    if "FULB-MC" not in eng:
        return Target(name, False, f"no FULB-MC run on {_case_name(TARGET_CASE)}")
    base = eng["FULB-MC"]
    variants = [e for e in eng if e not in PAPER_ENGINES]
    if not variants:
        return Target(name, False, f"no engine beyond the paper ran on {_case_name(TARGET_CASE)}")

    def ok(e: str) -> bool:
        return (max_efi(eng[e]) <= TARGET_EFI and
                eng[e]["route_s"] <= TARGET_TIME * base["route_s"])

    best = min(variants, key=lambda e: (not ok(e), max_efi(eng[e]), e != "FULB-MC-G",
                                        eng[e]["route_s"]))
    r = eng[best]
    bound = bound_all(r)
    detail = (f"{best}: max EFI {max_efi(r)} in {r['route_s']:.4f} s = "
              f"{r['route_s'] / max(base['route_s'], 1e-9):.2f}x FULB-MC's "
              f"({max_efi(base)} in {base['route_s']:.4f} s)")
    if bound:
        detail += f"; lower bound {bound} (ratio {ratio_text(r)})"
    return Target(name, ok(best), detail)


def checker_targets(mc_rows: list[dict], uc_rows: list[dict], failures: list[str],
                    root_rows: list[dict] | None = None) -> list[Target]:
    out = []
    bad = [f"{_case_name(_case_key(r))} {r['engine']}: {r['trees']}" for r in mc_rows
           if r["trees"] != "all ok"]
    out.append(Target("tree checker: every tree of every multicast run",
                      bool(mc_rows) and not bad,
                      f"{len(mc_rows)} runs" + (f"; failing: {'; '.join(bad)}" if bad
                                                else ", all ok")))
    bounded = [r for r in mc_rows if r.get("bound_all") is not None]
    below = [f"{_case_name(_case_key(r))} {r['engine']}: {r['max_efi_sw']}/{r['max_efi_all']} < "
             f"{r['bound_sw']}/{r['bound_all']}" for r in bounded
             if r["max_efi_all"] < r["bound_all"] or r["max_efi_sw"] < r["bound_sw"]]
    out.append(Target("EFI lower bound: no engine below it (switch links and all links)",
                      bool(bounded) and not below,
                      f"{len(bounded)} runs" + (f"; below: {'; '.join(below)}" if below
                                                else ", none below")))
    need = [r for r in uc_rows if r["engine"] in DEADLOCK_FREE]
    cyc = [f"{r['spec']} {r['engine']}" for r in need if not r["acyclic"]]
    out.append(Target("credit-loop checker: UPDN, FTREE, DOR+dateline, LASH acyclic",
                      bool(need) and not cyc,
                      f"{len(need)} tables" + (f"; cyclic: {', '.join(cyc)}" if cyc
                                               else ", all acyclic")))
    if root_rows:
        differ = [f"{r['fabric / pattern']}: {r['roots']}" for r in root_rows
                  if r["roots"] != "same"]
        speed = [float(r["speedup"].rstrip("x")) for r in root_rows]
        out.append(Target("indexed root selection picks the full scan's roots",
                          not differ,
                          (f"{len(root_rows)} cases, all the same; index {min(speed):.1f}x to "
                           f"{max(speed):.1f}x faster than the scan") if not differ
                          else "; ".join(differ)))
    if failures:
        out.append(Target("every tool run exited cleanly", False, "; ".join(failures)))
    return out


def parse_scale(stats: dict, case: ScaleCase, wall_s: float, peak_mb: float,
                cpu_s: float = 0.0) -> dict:
    """One scale row from syncfab-route's stats.json and the process's own figures."""
    times = stats["time_s"]
    row = {"label": case.label, "spec": case.spec, "pattern": case.pattern,
           "nodes": stats["fabric"]["end_nodes"], "switches": stats["fabric"]["switches"],
           "lidless": stats["fabric"].get("destinations_without_lid", 0),
           "groups": stats["groups"]["count"], "unicast": stats["unicast"]["algorithm"],
           "credit": ("acyclic" if stats["unicast"]["credit_loops"].get("acyclic")
                      else "CYCLE"),
           "checks": "ok" if stats.get("ok") else "FAILED",
           "total_s": float(times["total"]), "wall_s": wall_s, "cpu_s": cpu_s,
           "peak_mb": peak_mb,
           "max_wall_s": case.max_wall_s, "max_mb": case.max_mb}
    for key, _ in SCALE_PHASES:
        row[key + "_s"] = float(times[key])
    return row


def scale_verdict(r: dict) -> str:
    ok = (r["wall_s"] < r["max_wall_s"] and r["peak_mb"] < r["max_mb"] and r["checks"] == "ok"
          and r["credit"] == "acyclic")
    return "PASS" if ok else "MISS"


def scale_section(rows: list[dict], machine: str, failures: list[str]) -> list[str]:
    md = [SCALE_HEADING, "",
          "`syncfab-route --fabric SPEC --pattern PATTERN --no-lfts-dump` (default engines: "
          "FULB-MC, and DOR with its dateline lanes on the torus, FTREE on the fat tree, UPDN "
          "on the dragonfly; every tree and the unicast tables checked), one process per row; "
          "phases from its stats.json, wall and peak from the process (os.wait4). The 65,536-"
          "node fat tree of 64-port switches and the 97,656-node dragonfly exceed the unicast "
          "LID space (49,151 LIDs): they are routed and checked by destination index, `no "
          "LID` counting the destinations past 0xBFFF (sw-driver/sm/README.md, \"Past the LID "
          "space\"); the largest fat tree and dragonfly that fit are the rows above them. The "
          "verdict is on wall time; `cpu s` (user + system, both threads where min-hop and the credit-loop "
          "check use two) shows what other jobs on the shared cores added to it. Only this "
          "section: `scripts/bench_route.sh build --scale-only`.", "", machine, ""]
    md += _table(["fabric", "pattern", "end nodes", "switches", "no LID", "groups", "unicast"] +
                 [name + " s" for _, name in SCALE_PHASES] +
                 ["total wall s", "cpu s", "peak MB", "target", "verdict"],
                 [[r["spec"], r["pattern"], r["nodes"], r["switches"], r.get("lidless", 0),
                   r["groups"],
                   f"{r['unicast']} ({r['credit']})"] +
                  [f"{r[key + '_s']:.2f}" for key, _ in SCALE_PHASES] +
                  [f"{r['wall_s']:.2f}", f"{r.get('cpu_s', 0.0):.2f}", f"{r['peak_mb']:.0f}",
                   f"< {r['max_wall_s']:.0f} s, < {r['max_mb'] / 1024:.0f} GiB",
                   f"**{scale_verdict(r)}**"] for r in rows])
    if failures:
        md += ["", "Failed: " + "; ".join(failures)]
    return md


def replace_section(text: str, heading: str, section: list[str]) -> str:
    """text with the section under `heading` (up to the next "## " heading) replaced by
    `section`, or `section` appended when the heading is not there."""
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    try:
        start = lines.index(heading)
    except ValueError:
        return "\n".join(lines + ([""] if lines else []) + section) + "\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
               len(lines))
    tail = lines[end:]
    return "\n".join(lines[:start] + section + ([""] + tail if tail else [])) + "\n"


_OWN_TARGETS = ("| syncfab-route end to end on ", "| one link failure rerouted on ")


def commit_of(machine: str) -> str:
    m = re.search(r"commit ([^;]+);", machine)
    return m[1] if m else "unknown commit"


def replace_target_rows(text: str, targets: list[Target], commit: str) -> str:
    """text with the Targets table's scale and failure rows replaced by `targets`, their
    measurement marked with `commit` (the rest of the table is from the whole run)."""
    lines = text.split("\n")
    at = [i for i, line in enumerate(lines) if line.startswith(_OWN_TARGETS)]
    if not at:
        raise ValueError("bench-route.md has no scale rows in its Targets table: run the "
                         "whole benchmark (make bench-route) once")
    rows = [f"| {t.name} | **{t.verdict}** | {t.detail} (`--scale-only` at {commit}) |"
            for t in targets]
    keep = [line for i, line in enumerate(lines) if i not in set(at)]
    return "\n".join(keep[:at[0]] + rows + keep[at[0]:])


def run_scale(route_bin: str, cases: tuple[ScaleCase, ...], log) -> tuple[list[dict], list[str]]:
    rows, failures = [], []
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            r = run_tool([route_bin, "--fabric", case.spec, "--pattern", case.pattern,
                          "--no-lfts-dump", "--out", str(out)])
            stats_path = out / "stats.json"
            if not stats_path.exists():
                failures.append(f"syncfab-route {case.spec}: exit {r.returncode}: "
                                f"{r.stderr.strip().splitlines()[-1:]}")
                log(f"scale {case.label}: FAILED")
                continue
            row = parse_scale(json.loads(stats_path.read_text()), case, r.wall_s, r.peak_mb,
                              r.cpu_s)
        rows.append(row)
        log(f"scale {case.label}: {row['wall_s']:.2f} s wall, {row['peak_mb']:.0f} MB, "
            f"credit check {row['credit_loop_check_s']:.2f} s, {scale_verdict(row)}")
    return rows, failures


def scale_targets(rows: list[dict]) -> list[Target]:
    return [Target(f"syncfab-route end to end on {r['spec']} ({r['pattern']}) in < "
                   f"{r['max_wall_s']:.0f} s and < {r['max_mb'] / 1024:.0f} GiB",
                   scale_verdict(r) == "PASS",
                   f"{r['wall_s']:.1f} s wall ({r['cpu_s']:.1f} s CPU), {r['peak_mb']:.0f} MB, "
                   f"checks {r['checks']}, {r['unicast']} {r['credit']}") for r in rows]


_REROUTE_HEAD = re.compile(r"^(\S+): (\d+) switches, (\d+) groups, (\S+) \+ (\S+), "
                           r"full routing ([\d.]+) s$")
_REROUTE_FAIL = re.compile(r"^  fail (\S+)\s+([\d.]+) ms \(min-hop ([\d.]+), unicast ([\d.]+), "
                           r"multicast ([\d.]+)\).*?, (\d+) rewritten, (\d+) trees rerouted, "
                           r"(\d+) MFT entries.*?credit loops: (\w+) \(check (\d+) ms\)")
_REROUTE_REPAIR = re.compile(r"^  repair\s+([\d.]+) ms\s+(\d+) LFT entries, (\d+) MFT entries")
_REROUTE_MEMBER = re.compile(r"^  join (\S+) (\S+)\s+([\d.]+) ms\s+(\d+) MFT entries; leave\s+"
                             r"([\d.]+) ms\s+(\d+) MFT entries")


def parse_reroute(text: str, max_ms: float) -> dict:
    """One fabric's figures from sm_reroute_bench --credit-check."""
    row: dict = {"max_ms": max_ms, "fail_ms": [], "rewritten": [], "trees": [], "mft": [],
                 "credit": [], "check_ms": [], "repair_ms": [], "join_ms": [], "leave_ms": []}
    for line in text.splitlines():
        if m := _REROUTE_HEAD.match(line):
            row.update(spec=m[1], switches=int(m[2]), groups=int(m[3]), unicast=m[4],
                       mc=m[5], full_s=float(m[6]))
        elif m := _REROUTE_FAIL.match(line):
            row["fail_ms"].append(float(m[2]))
            row["rewritten"].append(int(m[6]))
            row["trees"].append(int(m[7]))
            row["mft"].append(int(m[8]))
            row["credit"].append(m[9])
            row["check_ms"].append(int(m[10]))
        elif m := _REROUTE_REPAIR.match(line):
            row["repair_ms"].append(float(m[1]))
        elif m := _REROUTE_MEMBER.match(line):
            row["join_ms"].append(float(m[3]))
            row["leave_ms"].append(float(m[5]))
    if "spec" not in row or not row["fail_ms"]:
        raise ValueError("sm_reroute_bench printed no fabric or no failure line")
    return row


def reroute_verdict(r: dict) -> str:
    ok = max(r["fail_ms"]) < r["max_ms"] and all(c == "none" for c in r["credit"])
    return "PASS" if ok else "MISS"


def run_reroute(bench_bin: str, log) -> tuple[list[dict], list[str]]:
    rows, failures = [], []
    for spec, max_ms in REROUTE_CASES:
        r = run_tool([bench_bin, "--fabric", spec, "--failures", str(REROUTE_FAILURES),
                      "--credit-check"])
        if r.returncode != 0:
            failures.append(f"sm_reroute_bench {spec}: exit {r.returncode}: "
                            f"{r.stderr.strip().splitlines()[-1:]}")
            log(f"reroute {spec}: FAILED")
            continue
        try:
            row = parse_reroute(r.stdout, max_ms)
        except ValueError as e:
            failures.append(f"sm_reroute_bench {spec}: {e}")
            continue
        rows.append(row)
        log(f"reroute {spec}: link failures {min(row['fail_ms']):.1f}-{max(row['fail_ms']):.1f} "
            f"ms, {reroute_verdict(row)}")
    return rows, failures


def _span(v: list, digits: int = 0) -> str:
    lo, hi = min(v), max(v)
    return f"{lo:.{digits}f}" if lo == hi else f"{lo:.{digits}f}-{hi:.{digits}f}"


def reroute_section(rows: list[dict], machine: str, failures: list[str]) -> list[str]:
    md = [REROUTE_HEADING, "",
          f"`sm_reroute_bench --fabric SPEC --failures {REROUTE_FAILURES} --credit-check`: the "
          "fabric routed in full (260 groups of `grid2d:160x100`, FULB-MC, the fabric's default "
          "unicast engine), then seeded random switch-to-switch links failed one at a time, each "
          "repaired before the next; the reroute time is min-hop + unicast + multicast (what a "
          "subnet manager waits for before it writes the delta), the whole credit-loop check of "
          "the new tables timed apart; then members join and leave random groups, each change "
          "routing that group's tree alone (sw-driver/sm/README.md, \"Failures and repairs\"). "
          "Only this section and the scale rows: `scripts/bench_route.sh build --scale-only`.",
          "", machine, ""]
    md += _table(["fabric", "unicast", "failures", "link failure ms", "LFT entries rewritten",
                  "trees rerouted", "MFT entries", "repair ms", "credit loops after each",
                  "whole check s", "join ms", "leave ms", "target", "verdict"],
                 [[r["spec"], r["unicast"], len(r["fail_ms"]), _span(r["fail_ms"], 1),
                   _span(r["rewritten"]), _span(r["trees"]), _span(r["mft"]),
                   _span(r["repair_ms"], 1), ", ".join(sorted(set(r["credit"]))),
                   _span([c / 1000 for c in r["check_ms"]], 2),
                   _span(r["join_ms"], 2) if r["join_ms"] else "-",
                   _span(r["leave_ms"], 2) if r["leave_ms"] else "-",
                   f"< {r['max_ms']:.0f} ms, no credit loop", f"**{reroute_verdict(r)}**"]
                  for r in rows])
    if failures:
        md += ["", "Failed: " + "; ".join(failures)]
    return md


def reroute_targets(rows: list[dict]) -> list[Target]:
    return [Target(f"one link failure rerouted on {r['spec']} ({r['unicast']}) in < "
                   f"{r['max_ms']:.0f} ms, no credit loop after it",
                   reroute_verdict(r) == "PASS",
                   f"{_span(r['fail_ms'], 1)} ms over {len(r['fail_ms'])} failures; credit loops "
                   f"{', '.join(sorted(set(r['credit'])))} (whole check "
                   f"{_span([c / 1000 for c in r['check_ms']], 2)} s)") for r in rows]


SCALE_CSV_FIELDS = ("spec", "pattern", "nodes", "switches", "groups", "unicast", "credit",
                    "checks") + tuple(k + "_s" for k, _ in SCALE_PHASES) + (
                        "total_s", "wall_s", "cpu_s", "peak_mb")


# --- output ---------------------------------------------------------------------


def machine_line(root: Path) -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        commit += " (with uncommitted changes)" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    load = os.getloadavg()[0]
    return (f"Machine: {os.cpu_count()} cores, {cpu}, {mem_gib:.0f} GiB RAM, "
            f"{platform.system()} {platform.release()}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {commit}; "
            f"load average at start {load:.2f} (the machine is shared).")


def _table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


def engines_in_order(rows: list[dict]) -> list[str]:
    seen: list[str] = []
    for r in rows:
        if r["engine"] not in seen:
            seen.append(r["engine"])
    return seen


def _pivot(rows: list[dict], engines: list[str], cell, extra=None, lead=None) -> list[str]:
    """One line per case, one column per engine; `lead` = (header, fn(engines)) columns
    before the engines, `extra` = one (header, fn(engines)) column after them."""
    cases = _by_case(rows)
    lead = lead or []
    header = ["fabric", "pattern", "ppn", "placement", "groups"] + [h for h, _ in lead] + engines
    if extra:
        header.append(extra[0])
    body = []
    for key, eng in cases.items():
        groups = next(iter(eng.values()))["groups"]
        line = list(key) + [groups] + [fn(eng) for _, fn in lead] + \
            [cell(eng[e]) if e in eng else "—" for e in engines]
        if extra:
            line.append(extra[1](eng))
        body.append(line)
    return _table(header, body)


def _case_bound(eng: dict[str, dict]) -> str:
    b = bound_all(next(iter(eng.values())))
    return "—" if b is None else str(b)


def _case_cut(eng: dict[str, dict]) -> str:
    return (next(iter(eng.values())).get("bound_cut") or "—").replace("|", "/")


def write_markdown(path: Path, machine: str, mh_rows: list[dict], mc_rows: list[dict],
                   uc_rows: list[dict], targets: list[Target], wall_s: float,
                   floor_mb: float, root_rows: list[dict] | None = None,
                   scale_rows: list[dict] | None = None,
                   reroute_rows: list[dict] | None = None) -> None:
    engines = engines_in_order(mc_rows)
    largest = max(mc_rows, key=lambda r: r["peak_mb"]) if mc_rows else None
    md = ["# Routing benchmark (generated by `make bench-route`)", "",
          machine, "",
          f"Whole benchmark: {wall_s / 60:.1f} min wall (load average at the end "
          f"{os.getloadavg()[0]:.2f}). Every run is its own process "
          "(peak MB = that process's max RSS from os.wait4; the kernel counts the spawning "
          "Python process's resident set into it, so a value near the floor of "
          f"{floor_mb:.0f} MB means \"at most that\"); `route s` is the tool's wall time "
          "of routing all groups (min-hop and setup excluded), the least of "
          f"{TIME_REPEATS} runs in one process (SSSP engines: one run). Data: "
          "[bench-route.csv](bench-route.csv) (multicast, one row per run), "
          "[bench-route-unicast.csv](bench-route-unicast.csv); plot: "
          "[bench-route.png](bench-route.png). Regenerate with `make bench-route`.", "",
          "## Targets", "",
          "Computed by scripts/bench_route.py from the rows below.", ""]
    md += _table(["target", "verdict", "measured"],
                 [[t.name, f"**{t.verdict}**", t.detail] for t in targets])
    if largest:
        md += ["", f"Largest peak memory of a multicast run: {largest['peak_mb']:.0f} MB "
               f"({_case_name(_case_key(largest))}, {largest['engine']})."]
    md += ["", "## Min-hop data (whole fabric)", ""]
    md += _table(["fabric", "end nodes", "switches", "diameter", "build s", "min-hop s",
                  "min-hop MB", "peak MB"],
                 [[r["spec"], r["nodes"], r["switches"], r["diameter"], f"{r['build_s']:.3f}",
                   f"{r['minhop_s']:.3f}", f"{r['minhop_mb']:.1f}", f"{r['peak_mb']:.1f}"]
                  for r in mh_rows])
    md += ["", "## Multicast engines", "",
           "Patterns: `grid2d:RxC` (every row and every column a group), `grid3d:XxYxZ` "
           "(every line along each dimension), `random:count=N,size=M`; ranks row-major; "
           "`aware` = rank r on end node r/ppn, `unaware` = process slots shuffled (seed "
           f"{SEED}); with 4 processes per node a node joins a group once. `groups` = "
           "groups needing the fabric. SSSP-MC and MINIHOP-MC are the paper's originals "
           "(first minimal-height root); `-new` adds root rotation. "
           "FULB-MC-DF runs on the dragonfly only.", "",
           "### Max EFI (all directed links, switch-to-switch and switch-to-node)", "",
           "`trees`: the tree checker on every tree of every engine of the case (reaches "
           "every member, no loop, minimal height).", ""]
    md += _pivot(mc_rows, engines, lambda r: r["max_efi_all"],
                 ("trees", lambda eng: "all ok" if all(r["trees"] == "all ok"
                                                       for r in eng.values()) else "**BAD**"),
                 lead=[("lower bound", _case_bound)])
    md += ["", "### Max EFI / lower bound", "",
           "`lower bound`: no set of trees, one connected tree per group over its members' "
           "switches, can have a lower max EFI (`sm::efi_lower_bound`: cut and volume "
           "arguments over single switches, the whole fabric, subtrees, dragonfly groups, "
           "torus slabs, the tree sizes the distances force and the fabric with subtrees or "
           "dragonfly groups contracted; sw-driver/sm/README.md, \"EFI lower bound\"); "
           "`cut` = what proves it (a set of switches, or an end node in that many groups). "
           "Each engine's max EFI divided by it: 1.00 = provably optimal; above, the gap is "
           "the engine's or the bound's (the bound ignores much, e.g. that a tree spanning "
           "many pods needs many uplinks).", ""]
    md += _pivot(mc_rows, engines, ratio_text,
                 lead=[("lower bound", _case_bound), ("cut", _case_cut)])
    md += ["", "### Mean EFI (over used switch-to-switch links)", ""]
    md += _pivot(mc_rows, engines, lambda r: f"{r['mean_efi_sw']:.2f}")
    md += ["", "### Routing time, s", ""]
    md += _pivot(mc_rows, engines, lambda r: f"{r['route_s']:.3f}")
    md += ["", "### Peak memory of the run, MB", ""]
    md += _pivot(mc_rows, engines, lambda r: f"{r['peak_mb']:.0f}")
    if root_rows:
        md += ["", "### Root selection alone: full scan vs index", "",
               "`sm_mc_bench --root-bench`: the minimal-height roots of every group's member "
               "switches, by scanning every switch (`minimal_height_roots`) and through "
               "`RootIndex`; both must give the same candidates.", ""]
        md += _table(list(ROOT_HEADER), [[r[h] for h in ROOT_HEADER] for r in root_rows])
    md += ["", "## Unicast engines and the credit-loop checker", "",
           "The fabric's unicast tables (as `sm_unicast_bench` builds them) through "
           "`check_credit_loops` (channel dependency graph per lane). UPDN, FTREE, DOR with "
           "the dateline lanes and LASH must be acyclic; MINHOP and DOR on one lane are shown "
           "for contrast (a torus ring closes a loop). LASH runs where it finishes in "
           "seconds (switches^2 paths). `shortest` = every entry on a shortest path (from "
           "the switches with end nodes for up*/down*). Peak MB is the whole fabric's "
           "process (all its engines).", ""]
    md += _table(["fabric", "engine", "lanes", "route s", "LFT MB", "shortest", "CDG",
                  "CDG s", "peak MB"],
                 [[r["spec"], r["engine"], r["lanes"], f"{r['route_s']:.3f}",
                   f"{r['lft_mb']:.1f}", r["shortest"],
                   ("acyclic" if r["acyclic"] else f"cycle of {r['cycle_links']} links"),
                   f"{r['cdg_s']:.2f}", f"{r['peak_mb']:.0f}"] for r in uc_rows])
    if scale_rows:
        md += [""] + scale_section(scale_rows, "Measured with the whole benchmark.", [])
    if reroute_rows:
        md += [""] + reroute_section(reroute_rows, "Measured with the whole benchmark.", [])
    path.write_text("\n".join(md) + "\n")


CSV_FIELDS = ("fabric", "spec", "pattern", "ppn", "placement", "seed", "engine", "groups",
              "single_node_groups", "max_efi_all", "mean_efi_all", "max_efi_sw", "mean_efi_sw",
              "route_s", "peak_mb", "wall_s", "trees", "bound_all", "bound_sw", "bound_cut")
UC_CSV_FIELDS = ("spec", "switches", "nodes", "engine", "lanes", "route_s", "lft_mb", "shortest",
                 "check_s", "acyclic", "channels", "deps", "cdg_s", "cycle_links", "unrouted",
                 "peak_mb", "wall_s")


def write_csv(path: Path, fields: tuple[str, ...], rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


# --- main ---------------------------------------------------------------------


# Routing time is the least of this many runs in one process (a shared
# machine's noise only ever adds, and the ratio targets compare runs of a few
# milliseconds). The SSSP engines take seconds to minutes per run and only
# appear as the denominator of "FULB-MC >= 10x faster", so they run once.
TIME_REPEATS = 3


def repeats_of(engine: str) -> int:
    return 1 if engine.startswith("SSSP") else TIME_REPEATS


def discover_engines(mc_bench: str) -> tuple[list[str], set[str]]:
    """Every registered engine in registry order, and the dragonfly-only ones: the
    tool's default set (all but SSSP-MC) on a tiny dragonfly and a tiny fat tree,
    plus SSSP-MC."""
    seen = {}
    for spec in ("dragonfly:a=2,p=2,h=1", "fattree:ports=4,levels=2"):
        r = run_tool([mc_bench, "--csv", "--case", spec, "random:count=4,size=3", "1"])
        if r.returncode != 0:
            raise SystemExit(f"bench-route: engine discovery failed: {r.stderr.strip()}")
        seen[spec] = [row["engine"] for row in parse_mc_csv(r.stdout)]
    names = seen["dragonfly:a=2,p=2,h=1"]
    if "SSSP-MC" not in names:
        at = names.index("SSSP-MC-new") if "SSSP-MC-new" in names else len(names)
        names.insert(at, "SSSP-MC")
    return names, set(names) - set(seen["fattree:ports=4,levels=2"]) - {"SSSP-MC"}


def scale_only(route_bin: str, out_dir: Path) -> int:
    if not os.access(route_bin, os.X_OK):
        print(f"bench-route: {route_bin} is not built", file=sys.stderr)
        return 1
    t_start = time.monotonic()

    def log(msg: str) -> None:
        print(f"bench-route [{time.monotonic() - t_start:6.0f} s] {msg}", file=sys.stderr,
              flush=True)

    machine = machine_line(ROOT)
    rows, failures = run_scale(route_bin, SCALE, log)
    reroute_bin = str(Path(route_bin).parent / "sm_reroute_bench")
    rr_rows, rr_failures = run_reroute(reroute_bin, log)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / "bench-route-scale.csv", SCALE_CSV_FIELDS, rows)
    md = out_dir / "bench-route.md"
    old = md.read_text() if md.exists() else ""
    end = f" Load average at the end {os.getloadavg()[0]:.2f}."
    text = replace_section(old, SCALE_HEADING, scale_section(rows, machine + end, failures))
    text = replace_section(text, REROUTE_HEADING,
                           reroute_section(rr_rows, machine + end, rr_failures))
    text = replace_target_rows(text, scale_targets(rows) + reroute_targets(rr_rows),
                               commit_of(machine))
    md.write_text(text)
    log(f"wrote the scale and failure sections of {md} and {out_dir}/bench-route-scale.csv")
    return 1 if (failures or rr_failures or any(scale_verdict(r) != "PASS" for r in rows)
                 or any(reroute_verdict(r) != "PASS" for r in rr_rows)) else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="build folder with the sm tools")
    ap.add_argument("--out", default=str(ROOT / "docs"), help="where bench-route.* go")
    ap.add_argument("--fabric", action="append", help="only these fabric labels (repeatable)")
    ap.add_argument("--ppn", type=int, action="append", help="only these ppn (1, 4)")
    ap.add_argument("--placement", action="append", choices=PLACEMENTS)
    ap.add_argument("--engine", action="append", help="only these multicast engines")
    ap.add_argument("--no-unicast", action="store_true", help="skip the unicast/credit-loop part")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-scale", action="store_true", help="skip the end-to-end scale rows")
    ap.add_argument("--scale-only", action="store_true",
                    help="run only the end-to-end scale rows and the failure rows and replace "
                         "their sections of an existing bench-route.md")
    args = ap.parse_args(argv)
    route_bin = str(Path(args.build) / "sw-driver" / "sm" / "syncfab-route")
    if args.scale_only:
        return scale_only(route_bin, Path(args.out))

    tools = Path(args.build) / "sw-driver" / "sm"
    exe = {n: str(tools / n) for n in ("sm_minhop_bench", "sm_mc_bench", "sm_unicast_bench")}
    for path in exe.values():
        if not os.access(path, os.X_OK):
            print(f"bench-route: {path} is not built (cmake --build {args.build} --target "
                  f"{Path(path).name})", file=sys.stderr)
            return 1
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    fabrics = [f for f in FABRICS if not args.fabric or f.label in args.fabric]
    ppns = args.ppn or [1, 4]
    placements = args.placement or list(PLACEMENTS)
    machine = machine_line(ROOT)
    t_start = time.monotonic()
    failures: list[str] = []

    def log(msg: str) -> None:
        print(f"bench-route [{time.monotonic() - t_start:6.0f} s] {msg}", file=sys.stderr,
              flush=True)

    # The kernel carries the parent's resident set (at fork/vfork) into the
    # child's max RSS across exec, so every run's peak has this floor.
    floor_mb = run_tool(["/bin/true"]).peak_mb
    log(f"min-hop data (peak RSS floor of a spawned process: {floor_mb:.0f} MB)")
    r = run_tool([exe["sm_minhop_bench"]] + [f.spec for f in fabrics])
    mh_rows = parse_minhop(r.stdout)
    if r.returncode != 0:
        failures.append(f"sm_minhop_bench: exit {r.returncode}: {r.stderr.strip()}")

    engines, dragonfly_only = discover_engines(exe["sm_mc_bench"])
    if args.engine:
        engines = [e for e in engines if e in args.engine]
    log(f"engines: {', '.join(engines)} (dragonfly only: {', '.join(sorted(dragonfly_only))})")
    mc_rows: list[dict] = []
    root_rows: list[dict] = []
    uc_rows: list[dict] = []
    scale_rows: list[dict] = []
    reroute_rows: list[dict] = []
    root_bench = "--root-bench" in run_tool([exe["sm_mc_bench"], "--help"]).stdout
    csv_path = out_dir / "bench-route.csv"

    def report(done: list[str]) -> list[Target]:
        """Writes everything measured so far (after each fabric, so an interrupted
        run still leaves complete fabrics behind)."""
        wall = time.monotonic() - t_start
        targets = checker_targets(mc_rows, uc_rows, failures, root_rows) + \
            compute_targets(mc_rows) + scale_targets(scale_rows) + \
            reroute_targets(reroute_rows)
        write_csv(csv_path, CSV_FIELDS, mc_rows)
        write_csv(out_dir / "bench-route-unicast.csv", UC_CSV_FIELDS, uc_rows)
        partial = len(done) < len(fabrics)
        write_markdown(out_dir / "bench-route.md",
                       machine + (f" **Partial run: {', '.join(done)} only.**" if partial
                                  else ""),
                       mh_rows, mc_rows, uc_rows, targets, wall, floor_mb, root_rows,
                       scale_rows, reroute_rows)
        if not args.no_plot and mc_rows:
            plot = subprocess.run(["/usr/bin/python3",
                                   str(ROOT / "scripts" / "plot_bench_route.py"),
                                   str(csv_path), str(out_dir / "bench-route.png")])
            if plot.returncode != 0 and not partial:
                failures.append("plot_bench_route.py failed (matplotlib: `make deps` installs "
                                "python3-matplotlib)")
        return targets

    def parsed(parse, r: RunResult, what: str) -> list[dict]:
        try:
            return parse(r.stdout)
        except ValueError as e:
            failures.append(f"{what}: {e}")
            log(f"{what}: {e}")
            return []

    done: list[str] = []
    targets: list[Target] = []
    for fab in fabrics:
        dragonfly = fab.spec.startswith("dragonfly")
        for ppn in ppns:
            for pattern in fab.patterns.get(ppn, ()):
                for placement in placements:
                    for engine in engines:
                        if engine in dragonfly_only and not dragonfly:
                            continue
                        r = run_tool([exe["sm_mc_bench"], "--csv", "--seed", str(SEED),
                                      "--placement", placement, "--case", fab.spec, pattern,
                                      str(ppn), "--engine", engine,
                                      "--repeat", str(repeats_of(engine))])
                        what = f"{fab.label} {pattern} ppn{ppn} {placement} {engine}"
                        rows = parsed(parse_mc_csv, r, what) if r.stdout.strip() else []
                        if r.returncode != 0 and not rows:
                            failures.append(f"{what}: exit {r.returncode}: {r.stderr.strip()}")
                            log(f"{what}: FAILED {r.stderr.strip()}")
                            continue
                        if not rows:
                            failures.append(f"{what}: no output")
                            continue
                        for row in rows:
                            row.update(fabric=fab.label, spec=fab.spec, peak_mb=r.peak_mb,
                                       wall_s=r.wall_s)
                            mc_rows.append(row)
                            log(f"{what}: max EFI {row['max_efi_all']}, "
                                f"{row['route_s']:.3f} s, {r.peak_mb:.0f} MB, {row['trees']}")
        if root_bench:
            for pattern in fab.patterns.get(1, ()):
                log(f"root selection, scan vs index: {fab.label} {pattern} unaware")
                r = run_tool([exe["sm_mc_bench"], "--root-bench", "--placement", "unaware",
                              "--seed", str(SEED), "--case", fab.spec, pattern, "1"])
                if r.returncode != 0 and not r.stdout.strip():
                    failures.append(f"root bench {fab.label} {pattern}: exit {r.returncode}: "
                                    f"{r.stderr.strip()}")
                root_rows += parsed(parse_root_bench, r, f"root bench {fab.label} {pattern}")
        if not args.no_unicast and fab.unicast:
            log(f"unicast engines + credit loops on {fab.label}")
            r = run_tool([exe["sm_unicast_bench"], "--fabric", fab.spec] +
                         (["--lash"] if fab.lash else []))
            if r.returncode != 0:
                failures.append(f"sm_unicast_bench {fab.spec}: exit {r.returncode}: "
                                f"{r.stderr.strip()}")
            for row in parsed(parse_unicast, r, f"sm_unicast_bench {fab.spec}"):
                row.update(spec=fab.label, peak_mb=r.peak_mb, wall_s=r.wall_s)
                uc_rows.append(row)
                log(f"  {row['engine']}: {'acyclic' if row['acyclic'] else 'CYCLIC'}")
        done.append(fab.label)
        targets = report(done)
    if not args.no_scale and os.access(route_bin, os.X_OK):
        scale_rows[:], scale_failures = run_scale(route_bin, SCALE, log)
        failures += scale_failures
        write_csv(out_dir / "bench-route-scale.csv", SCALE_CSV_FIELDS, scale_rows)
        reroute_bin = str(tools / "sm_reroute_bench")
        if os.access(reroute_bin, os.X_OK):
            reroute_rows[:], rr_failures = run_reroute(reroute_bin, log)
            failures += rr_failures
        targets = report(done)
    for t in targets:
        log(f"{t.verdict}  {t.name}: {t.detail}")
    log(f"wrote {out_dir}/bench-route.{{md,csv,png}} and bench-route-unicast.csv "
        f"in {(time.monotonic() - t_start) / 60:.1f} min")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
