#!/usr/bin/python3
"""Plot of docs/bench-route.csv: max EFI and routing time per multicast engine.

Run with Debian's /usr/bin/python3 (python3-matplotlib, pinned in
scripts/toolchain.txt); the project's venv has no system site packages.
Usage: plot_bench_route.py BENCH.csv OUT.png
One row of panels per fabric; in each, grouped bars (one colour per engine)
for every pattern x processes-per-node x placement case; log scales, since the
originals (no root rotation) are two orders of magnitude above the rest.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def short_pattern(p: str) -> str:
    kind, _, args = p.partition(":")
    if kind == "random":
        kv = dict(item.split("=") for item in args.split(","))
        return f"rand {kv['count']}x{kv['size']}"
    return f"{kind[-2:].upper()} {args}"


def main(src: str, dst: str) -> int:
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"plot_bench_route: {src} has no rows", file=sys.stderr)
        return 1
    fabrics, engines = [], []
    for r in rows:
        if r["fabric"] not in fabrics:
            fabrics.append(r["fabric"])
        if r["engine"] not in engines:
            engines.append(r["engine"])
    colour = {e: plt.get_cmap("tab10")(i % 10) for i, e in enumerate(engines)}
    fig, axes = plt.subplots(len(fabrics), 2, figsize=(22, 4.2 * len(fabrics)), squeeze=False)
    for fi, fabric in enumerate(fabrics):
        cases = []
        cell = {}
        for r in rows:
            if r["fabric"] != fabric:
                continue
            key = (r["pattern"], r["ppn"], r["placement"])
            if key not in cases:
                cases.append(key)
            cell[key, r["engine"]] = r
        here = [e for e in engines if any((c, e) in cell for c in cases)]
        width = 0.85 / max(len(here), 1)
        for col, (field, label) in enumerate((("max_efi_all", "max EFI"),
                                              ("route_s", "routing time, s"))):
            ax = axes[fi][col]
            for ei, e in enumerate(here):
                xs, ys = [], []
                for ci, c in enumerate(cases):
                    if (c, e) in cell:
                        xs.append(ci + (ei - (len(here) - 1) / 2) * width)
                        ys.append(max(float(cell[c, e][field]), 1e-4))
                ax.bar(xs, ys, width, color=colour[e], label=e)
            ax.set_yscale("log")
            ax.set_xticks(range(len(cases)))
            ax.set_xticklabels([f"{short_pattern(p)}\nppn{n} {pl}" for p, n, pl in cases],
                               fontsize=7)
            ax.set_title(f"{fabric}: {label}", fontsize=10)
            ax.grid(axis="y", which="major", alpha=0.3)
            ax.set_xlim(-0.6, len(cases) - 0.4)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[e]) for e in engines]
    fig.legend(handles, engines, loc="upper center", ncol=len(engines), fontsize=10,
               bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    fig.savefig(dst, dpi=80)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
