#!/usr/bin/python3
"""The fat-tree incast, ECMP off against on (docs/congestion-scenarios.md,
"ECMP on the fat-tree incast"), from the CSVs of syncfab-ecmp-incast.

    /usr/bin/python3 scripts/plot_ecmp.py --off OFF --on ON [--idle IDLE]
        [--title T] --out OUT.png

OFF and ON are a run's file stem: STEM.csv (--csv), STEM-barriers.csv
(--barriers-csv) and STEM.json (--json, for the series' names); IDLE the
idle fabric's stem (its barriers only). Two columns (ECMP off, on), four
panels each over time (cycles): each sender's delivered rate (flits per
cycle in the sample) with the fair share; the flows' cells buffered at the
watched switch inputs (largest in the sample); pause frames sent per sample
by switch, and those the senders took; every barrier's latency at its post
cycle with the idle fabric's median.

Debian's python3 (python3-matplotlib, scripts/toolchain.txt).
"""
from __future__ import annotations

import argparse
import csv
import json
import pathlib
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

SERIES_COLUMNS = ("end", "length", "pause_tx", "host_pauses", "barriers_done")


def read_csv(path: pathlib.Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load(stem: pathlib.Path) -> dict:
    run = {"series": read_csv(stem.with_suffix(".csv")),
           "barriers": read_csv(stem.parent / f"{stem.name}-barriers.csv"),
           "meta": json.loads(stem.with_suffix(".json").read_text())}
    series = run["series"]
    if not series:
        raise ValueError(f"{stem}.csv has no rows")
    missing = [c for c in SERIES_COLUMNS if c not in series[0]]
    names = run["meta"]["series"]
    missing += [f"flits_{s}" for s in names["senders"] if f"flits_{s}" not in series[0]]
    missing += [f"queue_max_{i}" for i in range(len(names["queues"]))
                if f"queue_max_{i}" not in series[0]]
    if missing:
        raise ValueError(f"{stem}.csv lacks the columns {', '.join(missing)}")
    return run


def plot_column(axes, run: dict, idle_median: float | None, lat_top: float) -> None:
    series = run["series"]
    names = run["meta"]["series"]
    t = [int(r["end"]) for r in series]
    length = [max(int(r["length"]), 1) for r in series]
    cmap = plt.get_cmap("tab10")
    senders = names["senders"]

    ax = axes[0]
    for i, s in enumerate(senders):
        ax.plot(t, [int(r[f"flits_{s}"]) / le for r, le in zip(series, length)],
                color=cmap(i % 10), lw=0.9, label=s)
    ax.axhline(1.0 / len(senders), color="black", lw=0.8, ls="--", label="fair share")
    ax.set_ylabel("flits / cycle")
    ax.set_ylim(0, 0.45)
    ax.legend(fontsize=6, ncol=5, loc="upper right")

    ax = axes[1]
    for i, q in enumerate(names["queues"]):
        ax.plot(t, [int(r[f"queue_max_{i}"]) for r in series], lw=0.8, label=q)
    ax.set_ylabel("cells (max in sample)")
    ax.legend(fontsize=6, loc="upper right")

    ax = axes[2]
    for p in names["pauses"]:
        ax.plot(t, [int(r[f"pause_tx_{p}"]) for r in series], lw=0.8, label=f"sent by {p}")
    ax.plot(t, [int(r["host_pauses"]) for r in series], lw=0.8, ls=":",
            label="taken by the senders")
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylabel("frames per sample")
    ax.legend(fontsize=6, loc="upper right")

    ax = axes[3]
    b = run["barriers"]
    ax.plot([int(x["posted"]) for x in b], [int(x["latency"]) for x in b], ".", ms=3,
            label="under the incast")
    if idle_median is not None:
        ax.axhline(idle_median, color="black", lw=0.8, ls="--",
                   label=f"idle fabric median ({idle_median:g})")
    ax.set_ylim(0, lat_top)
    ax.set_ylabel("cycles")
    ax.set_xlabel("cycle")
    ax.legend(fontsize=6, loc="lower right")


def plot(off: dict, on: dict, idle: list[dict[str, str]] | None, title: str,
         out: pathlib.Path) -> None:
    idle_median = statistics.median(int(b["latency"]) for b in idle) if idle else None
    lat = [int(b["latency"]) for r in (off, on) for b in r["barriers"]]
    lat_top = 1.15 * max(lat + [idle_median or 0, 1])
    fig, axes = plt.subplots(4, 2, figsize=(14, 12), sharex=True, sharey="row")
    for col, (run, name) in enumerate(((off, "ECMP off"), (on, "ECMP on"))):
        plot_column(axes[:, col], run, idle_median, lat_top)
        f = run["meta"]["figures"]
        axes[0, col].set_title(f"{name}: delivered rate per sender (Jain {f['jain']:.3f})",
                               fontsize=9)
        axes[1, col].set_title(f"{name}: flows' cells buffered at switch inputs", fontsize=9)
        axes[2, col].set_title(f"{name}: pause frames per sample ({f['pause_frames']} in all)",
                               fontsize=9)
        lat = f["barrier_latency"]
        axes[3, col].set_title(f"{name}: barrier latency (median {lat['median']}, p99 "
                               f"{lat['p99']}, max {lat['max']} in the window)", fontsize=9)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--off", type=pathlib.Path, required=True)
    ap.add_argument("--on", type=pathlib.Path, required=True)
    ap.add_argument("--idle", type=pathlib.Path)
    ap.add_argument("--title", default="")
    ap.add_argument("--out", type=pathlib.Path, required=True)
    a = ap.parse_args(argv)
    try:
        idle = read_csv(a.idle.parent / f"{a.idle.name}-barriers.csv") if a.idle else None
        plot(load(a.off), load(a.on), idle, a.title, a.out)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_ecmp: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
