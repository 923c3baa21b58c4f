#!/usr/bin/env python3
"""make scenarios: the congestion scenarios of docs/congestion-scenarios.md.

Runs syncfab-dcqcn-incast for every case and seed with its time series and a
barrier every BARRIER_EVERY cycles, and the same barriers on the idle fabric;
writes the figures of every run into docs/congestion-scenarios.csv, prints
them as the Markdown table of the doc, and plots seed 1 of every case into
docs/congestion-<case>.png (scripts/plot_scenarios.py, Debian's python3 for
its matplotlib). The runs' own CSVs and JSONs stay in --work.

    .venv/bin/python scripts/scenarios.py --build build [--seeds 1-3]
        [--work build/scenarios] [--out docs]
"""
from __future__ import annotations

import argparse
import csv
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE = 2000
BARRIER_EVERY = 2000
BARRIER_PRIO = 5  # the barriers' own lossless class (the flows run on 3)
FLOW_PRIO = 3

# (name, title, tool arguments, barrier priority)
CASES = [
    ("pfc", "PFC only, barriers on their own priority", ["--case", "pfc"], BARRIER_PRIO),
    ("dcqcn", "DCQCN, barriers on their own priority", ["--case", "dcqcn"], BARRIER_PRIO),
    ("dcqcn-decn", "DCQCN + dynamic ECN, barriers on their own priority",
     ["--case", "dcqcn", "--ecn-dynamic"], BARRIER_PRIO),
    ("pfc-shared", "PFC only, barriers on the flows' priority", ["--case", "pfc"], FLOW_PRIO),
    ("dcqcn-shared", "DCQCN, barriers on the flows' priority", ["--case", "dcqcn"], FLOW_PRIO),
    ("dcqcn-decn-shared", "DCQCN + dynamic ECN, barriers on the flows' priority",
     ["--case", "dcqcn", "--ecn-dynamic"], FLOW_PRIO),
]

COLUMNS = ["case", "seed", "pause_frames", "barrier_pause_frames", "throughput",
           "lossless_drops", "jain", "cnps", "ecn_marks", "barriers_posted",
           "barriers_completed", "barrier_median", "barrier_p99", "barrier_max", "idle_median",
           "idle_p99", "idle_max"]


def seed_range(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    a, b = int(lo), int(hi or lo)
    if a < 0 or b < a:
        raise argparse.ArgumentTypeError(f"bad seed range '{text}'")
    return list(range(a, b + 1))


def run(tool: pathlib.Path, work: pathlib.Path, stem: str, args: list[str]) -> dict:
    files = {"csv": work / f"{stem}.csv", "barriers-csv": work / f"{stem}-barriers.csv",
             "json": work / f"{stem}.json"}
    cmd = [str(tool), *args, "--sample", str(SAMPLE), "--barrier-every", str(BARRIER_EVERY)]
    for opt, path in files.items():
        cmd += [f"--{opt}", str(path)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads(files["json"].read_text())


def git_state() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                          capture_output=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           text=True, capture_output=True, check=True).stdout.strip()
    return head + (" (tree not clean)" if dirty else "")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=pathlib.Path, default=ROOT / "build")
    ap.add_argument("--seeds", type=seed_range, default=seed_range("1-3"))
    ap.add_argument("--work", type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "docs")
    ap.add_argument("--no-plots", action="store_true")
    a = ap.parse_args(argv)
    tool = a.build / "sim" / "dcqcn" / "syncfab-dcqcn-incast"
    if not tool.exists():
        print(f"scenarios: {tool} is not built (ninja -C {a.build} syncfab-dcqcn-incast)",
              file=sys.stderr)
        return 1
    work = a.work or a.build / "scenarios"
    work.mkdir(parents=True, exist_ok=True)
    a.out.mkdir(parents=True, exist_ok=True)

    state = git_state()  # before this run writes into the tree
    rows = []
    for seed in a.seeds:
        idle = {}
        for prio in sorted({c[3] for c in CASES}):
            j = run(tool, work, f"idle-p{prio}-s{seed}",
                    ["--case", "pfc", "--idle", "--barrier-prio", str(prio), "--seed", str(seed)])
            idle[prio] = j["figures"]["barrier_latency"]
        for name, _, args, prio in CASES:
            f = run(tool, work, f"{name}-s{seed}",
                    [*args, "--barrier-prio", str(prio), "--seed", str(seed)])["figures"]
            lat = f["barrier_latency"]
            rows.append({
                "case": name, "seed": seed, "pause_frames": f["pause_frames"],
                "barrier_pause_frames": f["barrier_pause_frames"],
                "throughput": f"{f['throughput']:.3f}", "lossless_drops": f["lossless_drops"],
                "jain": f"{f['jain']:.3f}", "cnps": f["cnps"], "ecn_marks": f["ecn_marks"],
                "barriers_posted": f["barriers_posted"],
                "barriers_completed": f["barriers_completed"], "barrier_median": lat["median"],
                "barrier_p99": lat["p99"], "barrier_max": lat["max"],
                "idle_median": idle[prio]["median"], "idle_p99": idle[prio]["p99"],
                "idle_max": idle[prio]["max"],
            })
            print(f"{name} seed {seed}: pause {f['pause_frames']} throughput "
                  f"{f['throughput']:.3f} jain {f['jain']:.3f} barrier median {lat['median']} "
                  f"p99 {lat['p99']} max {lat['max']} (idle {idle[prio]['median']})",
                  file=sys.stderr)

    summary = a.out / "congestion-scenarios.csv"
    with open(summary, "w", newline="") as out:
        w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)

    print(f"Generated at {state}; seeds {a.seeds[0]}-{a.seeds[-1]}.\n")
    print("| case | seed | pause frames | throughput | lossless drops | Jain | CNPs | ECN marks "
          "| barriers done/posted | barrier median / p99 / max | idle median / p99 / max |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['seed']} | {r['pause_frames']} | {r['throughput']} "
              f"| {r['lossless_drops']} | {r['jain']} | {r['cnps']} | {r['ecn_marks']} "
              f"| {r['barriers_completed']}/{r['barriers_posted']} "
              f"| {r['barrier_median']} / {r['barrier_p99']} / {r['barrier_max']} "
              f"| {r['idle_median']} / {r['idle_p99']} / {r['idle_max']} |")

    if not a.no_plots:
        seed = a.seeds[0]
        for name, title, _, prio in CASES:
            subprocess.run(
                ["/usr/bin/python3", str(ROOT / "scripts" / "plot_scenarios.py"),
                 "--series", str(work / f"{name}-s{seed}.csv"),
                 "--barriers", str(work / f"{name}-s{seed}-barriers.csv"),
                 "--idle-barriers", str(work / f"idle-p{prio}-s{seed}-barriers.csv"),
                 "--title", f"8-to-1 incast: {title} (seed {seed})",
                 "--out", str(a.out / f"congestion-{name}.png")], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
