#!/usr/bin/python3
"""One figure of a congestion scenario (docs/congestion-scenarios.md) from
the CSVs of syncfab-dcqcn-incast (--csv, --barriers-csv).

    /usr/bin/python3 scripts/plot_scenarios.py --series S.csv --barriers B.csv
        [--idle-barriers I.csv] [--title T] --out OUT.png

Four panels over time (cycles): each sender's delivered rate (flits per
cycle in the sample) and its DCQCN rate RC; the bottleneck queue (cells, at
the sample's end and its maximum in the sample); pause frames sent, ECN
marks and CNPs per sample; every barrier's latency at its post cycle, the
idle fabric's median as a line.

Debian's python3 (python3-matplotlib, scripts/toolchain.txt): the project's
venv has no system site packages.
"""
from __future__ import annotations

import argparse
import csv
import pathlib
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

SERIES_COLUMNS = ("end", "length", "queue_cells", "queue_max", "pause_tx", "ecn_marks", "cnps")


def read_csv(path: pathlib.Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def senders_of(row: dict[str, str]) -> int:
    n = 0
    while f"flits_{n}" in row and f"rate_{n}" in row:
        n += 1
    return n


def plot(series: list[dict[str, str]], barriers: list[dict[str, str]],
         idle: list[dict[str, str]] | None, title: str, out: pathlib.Path) -> None:
    if not series:
        raise ValueError("the series has no rows")
    missing = [c for c in SERIES_COLUMNS if c not in series[0]]
    if missing:
        raise ValueError(f"the series lacks the columns {', '.join(missing)}")
    n = senders_of(series[0])
    if n == 0:
        raise ValueError("the series has no flits_<s>/rate_<s> columns")
    t = [int(r["end"]) for r in series]
    length = [int(r["length"]) for r in series]
    fig, axes = plt.subplots(4, 1, figsize=(10, 12), sharex=True)
    cmap = plt.get_cmap("tab10")

    ax = axes[0]
    for s in range(n):
        rate = [int(r[f"flits_{s}"]) / max(le, 1) for r, le in zip(series, length)]
        ax.plot(t, rate, color=cmap(s % 10), lw=0.9, label=f"sender {s}")
        rc = [float(r[f"rate_{s}"]) for r in series]
        if min(rc) < 1.0:  # PFC only: the rate limiter never acts, RC stays at the line
            ax.plot(t, rc, color=cmap(s % 10), lw=0.7, ls=":")
    ax.axhline(1.0 / n, color="black", lw=0.8, ls="--", label="fair share")
    ax.set_ylabel("flits / cycle")
    ax.set_title("per-flow rate: delivered (solid), DCQCN RC (dotted)", fontsize=9)
    ax.set_ylim(0, max(ax.get_ylim()[1], 1.6 / n))  # room for the legend above the fair share
    ax.legend(fontsize=7, ncol=5, loc="upper right")

    ax = axes[1]
    ax.plot(t, [int(r["queue_max"]) for r in series], lw=0.8, label="max in sample")
    ax.plot(t, [int(r["queue_cells"]) for r in series], lw=0.8, label="at sample end")
    ax.set_ylabel("cells")
    ax.set_title("bottleneck queue (receiver's port, flows' priority)", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")

    ax = axes[2]
    for col, label in (("pause_tx", "pause frames sent (switch)"),
                       ("pause_rx", "pause frames the senders took"), ("ecn_marks", "ECN marks"),
                       ("cnps", "CNPs")):
        if col in series[0]:
            ax.plot(t, [int(r[col]) for r in series], lw=0.8, label=label)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylabel("per sample")
    ax.set_title("pause frames, ECN marks and CNPs per sample", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")

    ax = axes[3]
    if barriers:
        ax.plot([int(b["posted"]) for b in barriers], [int(b["latency"]) for b in barriers],
                ".", ms=3, label="under load")
    if idle:
        med = statistics.median(int(b["latency"]) for b in idle)
        ax.axhline(med, color="black", lw=0.8, ls="--", label=f"idle fabric median ({med:g})")
    lat = [int(b["latency"]) for b in barriers] + [int(b["latency"]) for b in idle or []]
    if lat and max(lat) > 20 * max(min(lat), 1):
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel("cycles")
    ax.set_xlabel("cycle")
    ax.set_title("barrier latency (post to the last rank's completion)", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--series", type=pathlib.Path, required=True)
    ap.add_argument("--barriers", type=pathlib.Path, required=True)
    ap.add_argument("--idle-barriers", type=pathlib.Path)
    ap.add_argument("--title", default="")
    ap.add_argument("--out", type=pathlib.Path, required=True)
    a = ap.parse_args(argv)
    try:
        plot(read_csv(a.series), read_csv(a.barriers),
             read_csv(a.idle_barriers) if a.idle_barriers else None, a.title, a.out)
    except (OSError, ValueError) as e:
        print(f"plot_scenarios: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
