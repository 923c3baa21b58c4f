#!/usr/bin/env python3
"""make scenarios: the congestion scenarios of docs/congestion-scenarios.md.

Runs syncfab-dcqcn-incast for every case and seed with its time series and a
barrier every BARRIER_EVERY cycles, and the same barriers on the idle fabric;
writes the figures of every run into docs/congestion-scenarios.csv, prints
them as the Markdown table of the doc, and plots seed 1 of every case into
docs/congestion-<case>.png (scripts/plot_scenarios.py, Debian's python3 for
its matplotlib). Then the fat-tree incast with ECMP off and on
(syncfab-ecmp-incast) and its idle fabric per seed: docs/congestion-ecmp.csv,
its table, and seed 1 plotted into docs/congestion-ecmp.png
(scripts/plot_ecmp.py). The runs' own CSVs and JSONs stay in --work.

    .venv/bin/python scripts/scenarios.py --build build [--seeds 1-3]
        [--work build/scenarios] [--out docs] [--parts dcqcn,ecmp]
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

ECMP_SAMPLE = 1000
ECMP_BARRIER_EVERY = 1000
# (name, tool arguments, barrier priority): the barriers on their own class,
# then on the flows' class for contrast.
ECMP_CASES = [("ecmp-off", [], BARRIER_PRIO), ("ecmp-on", ["--ecmp"], BARRIER_PRIO),
              ("ecmp-off-shared", [], FLOW_PRIO), ("ecmp-on-shared", ["--ecmp"], FLOW_PRIO)]
ECMP_COLUMNS = ["case", "seed", "jain", "throughput", "flows", "out_of_order", "data_sent",
                "data_received", "lossless_drops", "pause_frames", "barrier_pause_frames",
                "host_pauses", "barriers_posted", "barriers_completed", "barrier_median",
                "barrier_p99", "barrier_max", "idle_median", "idle_p99", "idle_max",
                "crossing_sends", "schedule_sends"]

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


def run(tool: pathlib.Path, work: pathlib.Path, stem: str, args: list[str],
        sample: int = SAMPLE, barrier_every: int = BARRIER_EVERY) -> dict:
    files = {"csv": work / f"{stem}.csv", "barriers-csv": work / f"{stem}-barriers.csv",
             "json": work / f"{stem}.json"}
    cmd = [str(tool), *args, "--sample", str(sample), "--barrier-every", str(barrier_every)]
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
    ap.add_argument("--parts", default="dcqcn,ecmp",
                    help="which scenarios: dcqcn (single-switch incast), ecmp (fat tree)")
    a = ap.parse_args(argv)
    parts = set(a.parts.split(","))
    if not parts or parts - {"dcqcn", "ecmp"}:
        print(f"scenarios: bad --parts '{a.parts}' (dcqcn, ecmp)", file=sys.stderr)
        return 1
    tools = {"dcqcn": a.build / "sim" / "dcqcn" / "syncfab-dcqcn-incast",
             "ecmp": a.build / "sim" / "tools" / "syncfab-ecmp-incast"}
    for part in sorted(parts):
        if not tools[part].exists():
            print(f"scenarios: {tools[part]} is not built "
                  f"(ninja -C {a.build} {tools[part].name})", file=sys.stderr)
            return 1
    work = a.work or a.build / "scenarios"
    work.mkdir(parents=True, exist_ok=True)
    a.out.mkdir(parents=True, exist_ok=True)

    state = git_state()  # before this run writes into the tree
    if "dcqcn" in parts:
        dcqcn_part(tools["dcqcn"], work, a, state)
    if "ecmp" in parts:
        ecmp_part(tools["ecmp"], work, a, state)
    return 0


def ecmp_part(tool: pathlib.Path, work: pathlib.Path, a: argparse.Namespace, state: str) -> None:
    rows = []
    for seed in a.seeds:
        def go(stem: str, args: list[str]) -> dict:
            return run(tool, work, stem, [*args, "--seed", str(seed)], ECMP_SAMPLE,
                       ECMP_BARRIER_EVERY)["figures"]
        idle = {prio: go(f"ecmp-idle-p{prio}-s{seed}",
                         ["--idle", "--barrier-prio", str(prio)])["barrier_latency"]
                for prio in sorted({c[2] for c in ECMP_CASES})}
        for name, args, prio in ECMP_CASES:
            f = go(f"{name}-s{seed}", [*args, "--barrier-prio", str(prio)])
            lat = f["barrier_latency"]
            rows.append({
                "case": name, "seed": seed, "jain": f"{f['jain']:.3f}",
                "throughput": f"{f['throughput']:.3f}", "flows": f["flows"],
                "out_of_order": f["out_of_order"], "data_sent": f["data_sent"],
                "data_received": f["data_received"], "lossless_drops": f["lossless_drops"],
                "pause_frames": f["pause_frames"],
                "barrier_pause_frames": f["barrier_pause_frames"],
                "host_pauses": f["host_pauses"], "barriers_posted": f["barriers_posted"],
                "barriers_completed": f["barriers_completed"], "barrier_median": lat["median"],
                "barrier_p99": lat["p99"], "barrier_max": lat["max"],
                "idle_median": idle[prio]["median"], "idle_p99": idle[prio]["p99"],
                "idle_max": idle[prio]["max"], "crossing_sends": f["crossing_sends"], "schedule_sends": f["schedule_sends"],
            })
            print(f"{name} seed {seed}: jain {f['jain']:.3f} pause {f['pause_frames']} "
                  f"out of order {f['out_of_order']} barrier median {lat['median']} p99 "
                  f"{lat['p99']} max {lat['max']} (idle {idle[prio]['median']})",
                  file=sys.stderr)
    with open(a.out / "congestion-ecmp.csv", "w", newline="") as out:
        w = csv.DictWriter(out, fieldnames=ECMP_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"\nECMP on the fat-tree incast: generated at {state}; seeds "
          f"{a.seeds[0]}-{a.seeds[-1]}.\n")
    print("| case | seed | Jain | throughput | out of order | DATA sent / received "
          "| lossless drops | pause frames | senders paused | barriers done/posted "
          "| barrier median / p99 / max | idle median / p99 / max |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['seed']} | {r['jain']} | {r['throughput']} "
              f"| {r['out_of_order']} | {r['data_sent']} / {r['data_received']} "
              f"| {r['lossless_drops']} | {r['pause_frames']} | {r['host_pauses']} "
              f"| {r['barriers_completed']}/{r['barriers_posted']} "
              f"| {r['barrier_median']} / {r['barrier_p99']} / {r['barrier_max']} "
              f"| {r['idle_median']} / {r['idle_p99']} / {r['idle_max']} |")
    if not a.no_plots:
        seed = a.seeds[0]
        for suffix, prio, what in (("", BARRIER_PRIO, "their own class"),
                                   ("-shared", FLOW_PRIO, "the flows' class")):
            subprocess.run(
                ["/usr/bin/python3", str(ROOT / "scripts" / "plot_ecmp.py"),
                 "--off", str(work / f"ecmp-off{suffix}-s{seed}"),
                 "--on", str(work / f"ecmp-on{suffix}-s{seed}"),
                 "--idle", str(work / f"ecmp-idle-p{prio}-s{seed}"),
                 "--title", f"fat-tree 8-to-1 incast, PFC, barriers of 12 NICs on {what} "
                            f"(seed {seed})",
                 "--out", str(a.out / f"congestion-ecmp{suffix}.png")], check=True)


def dcqcn_part(tool: pathlib.Path, work: pathlib.Path, a: argparse.Namespace, state: str) -> None:
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
