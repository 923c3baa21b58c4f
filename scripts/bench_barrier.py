#!/usr/bin/env python3
"""`make bench-barrier`: the NIC barrier latency study.

Runs sim/bench/bench_barrier_rtl of a build (verilated fabric of nic_top
on a 3D torus, every node posting in the same cycle; golden model, software
dissemination, network critical path and lower bound next to it) and writes
docs/bench-barrier.md (parameters, machine, table, simulation speed, "Against
the paper" with a host-overhead sweep), docs/bench-barrier.csv and
docs/bench-barrier.png (latency vs p, log x; one line per k for HW-RTL,
software and the lower bound).

The plot needs matplotlib: Debian's /usr/bin/python3 has it
(python3-matplotlib, scripts/toolchain.txt), the project's venv does not; when
this interpreter cannot import it, the plot is drawn by re-running this
script under /usr/bin/python3 with --plot-only.
Usage: bench_barrier.py [--build DIR] [--shapes 2,8,...] [--o-send N --o-poll N] ...
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path("sim/bench/bench_barrier_rtl")
# Host overheads the sweep tries (o_poll = o_send / 2, the default 2:1 ratio).
SWEEP = list(range(0, 401, 2))
PAPER_MEAN = 40.0  # % by which hardware beats software, mean over sizes
PAPER_128 = 73.0  # % at 128 nodes


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.node()}: {cpu}, nproc = {os.cpu_count()}, "
            f"load average {load:.2f} at start, {platform.system()} {platform.release()}")


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def saving(hw: float, sw: float) -> float:
    """How much faster hardware is, as a latency reduction: 1 - HW/SW, in %."""
    return 100.0 * (1.0 - hw / sw)


def solve_overhead(rows, sweep, pick, target):
    """Smallest o_send of the sweep at which the mean saving over the rows
    `pick` selects reaches `target` %, linearly interpolated."""
    sw = {}
    for s in sweep:
        sw[int(s["p"]), int(s["k"]), int(s["o_send"])] = float(s["sw_cycles"])
    chosen = [r for r in rows if pick(r)]
    if not chosen:
        return None
    prev = None
    for o in SWEEP:
        vals = [saving(float(r["hw_cycles"]), sw[int(r["p"]), int(r["k"]), o])
                for r in chosen if sw.get((int(r["p"]), int(r["k"]), o), 0) > 0]
        if not vals:
            continue
        m = sum(vals) / len(vals)
        if m >= target:
            if prev is None:
                return float(o), m
            o0, m0 = prev
            return o0 + (o - o0) * (target - m0) / (m - m0), target
        prev = (o, m)
    return None


def plot(csv_path: Path, png: Path) -> int:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_csv(csv_path)
    ks = sorted({int(r["k"]) for r in rows})
    fig, ax = plt.subplots(figsize=(10, 6.5))
    cmap = plt.get_cmap("tab10")
    for i, k in enumerate(ks):
        rk = sorted((r for r in rows if int(r["k"]) == k), key=lambda r: int(r["p"]))
        ps = [int(r["p"]) for r in rk]
        col = cmap(i)
        ax.plot(ps, [float(r["hw_cycles"]) for r in rk], "-o", color=col, label=f"HW-RTL k={k}")
        ax.plot(ps, [float(r["sw_cycles"]) for r in rk], "--s", color=col, alpha=0.8,
                label=f"software k={k}")
        ax.plot(ps, [float(r["bound_cycles"]) for r in rk], ":", color=col, alpha=0.8,
                label=f"lower bound k={k}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("nodes p (3D torus, log scale)")
    ax.set_ylabel("barrier latency, cycles (log scale)")
    ax.set_title("NIC barrier on the verilated fabric vs software dissemination")
    allp = sorted({int(r["p"]) for r in rows})
    ax.set_xticks(allp)
    ax.set_xticklabels([str(p) for p in allp], fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    return 0


def write_md(args, rows, sweep, wall_total, out: Path, keep: dict[str, str]) -> None:
    """keep: lines of an earlier run's .md ("- Machine:", "- Wall time:") that
    a --reuse rewrite carries over, since they describe the run, not now."""
    ghz = args.ghz
    by_p = {}
    for r in rows:
        by_p.setdefault(int(r["p"]), r)
    sav = [float(r["hw_saving_pct"]) for r in rows]
    mean_sav = sum(sav) / len(sav)
    at128 = [r for r in rows if int(r["p"]) == 128]
    sav128 = (sum(float(r["hw_saving_pct"]) for r in at128) / len(at128)) if at128 else None
    ratio = [float(r["hw_over_model"]) for r in rows]
    hw_bound = [float(r["hw_cycles"]) / float(r["bound_cycles"]) for r in rows]
    one_way = args.nic + args.hop
    L = []
    L.append("# NIC barrier latency study (verilated fabric)\n")
    L.append("Generated by `make bench-barrier` (scripts/bench_barrier.py running "
             "`sim/bench/bench_barrier_rtl`); do not edit by hand.\n")
    L.append("## What was measured\n")
    L.append(
        "For every torus shape (p = 2 … 128, the shapes of "
        "`cpp-model/network/tools/barrier_latency.cpp`, non-powers included) a fabric of p "
        "verilated `nic_top` is built (sim/fabric/nic/nic_fabric.*, docs/nic/verification.md "
        "\"Verilated fabric\"), and for k = 1, 2, 3 one barrier runs on its own context. "
        "Every node's unchanged driver writes its descriptor; the doorbells (HDQ_POST) are "
        "held and released at one clock edge, so **all p posts land in the same cycle** "
        "(checked: first post = last post). The scenario's checks stay on — safety (no CQ "
        "entry before the last post), liveness bound, exactly one CQ entry per node with "
        "status OK, counter identities — and any failure makes the bench exit non-zero.\n")
    L.append("Columns:\n")
    L.append("- **HW-RTL**: common post cycle → last CQ entry written (seen on the NIC's memory "
             "port), cycles and ns at the stated clock; **mean/node**: mean over nodes of "
             "(CQ entry − post). Includes the doorbell's APB write, descriptor intake, every "
             "round, the ACKs of the last round (completion waits for them) and the CQ write.")
    L.append("- **model**: the golden-model fabric (`model::run_barrier_scenario`) for the same "
             "shape, k, hop latency, RETRY_DELAY, request-DAMQ depth, contexts and queue (HDQ), "
             "every node posting at cycle 0; last post → last completion. **RTL/model** is "
             "their ratio (not forced to 1: the model is transaction-level with a fixed "
             f"{args.nic}-cycle NIC latency per packet).")
    L.append(f"- **SW**: the same schedule driven by host software "
             f"(`model::software_barrier`): o_send = {args.o_send} host cycles to post one "
             f"message, o_poll = {args.o_poll} to notice one, on the same torus latencies "
             f"(NIC {args.nic} + hops × {args.hop} cycles per message). **HW saves** = "
             "1 − HW/SW (the latency reduction; the paper's \"x% faster\").")
    L.append("- **net path**: the same schedule with zero host overheads — the schedule's "
             "network critical path on this torus.")
    L.append(f"- **bound**: ⌈log_(k+1) p⌉ × one-way latency of one hop, where one-way = NIC "
             f"injection + ejection ({args.nic} cycles, the model's constant) + one link "
             f"({args.hop} cycles) = {one_way} cycles. It ignores that schedule peers are "
             "usually several hops apart and the ACKs; HW/bound shows how far the RTL is "
             "from it.\n")
    L.append("## Parameters\n")
    L.append(f"- Clock: {ghz:g} GHz for the ns columns (the harness clock is 10 ns; only "
             "cycles are measured).")
    L.append(f"- Torus: dimension-order routing, {args.hop} cycles per hop, +1 cycle from tx "
             "to the first link, one header per cycle per directed link, unbounded inbound "
             "queues with rx backpressure, tx_ready always 1.")
    L.append("- NIC (vl_nic_top): NumCtx = 4, request DAMQ ReqDamqSlots = 4 (shared by the "
             "contexts), response DAMQ RespDamqSlots = 2, HdqDepth = 2, K_MAX and MAX_ROUNDS "
             "from the format spec (4, 20); memory BFM answering in 1 cycle without stalls.")
    L.append(f"- RETRY_DELAY = {args.retry_delay} cycles, retry limit 0 (unlimited); "
             "submission path HDQ (PIO window + HDQ_POST) on every node.")
    L.append(f"- Golden model: nic_latency {args.nic}, request DAMQ 4 entries, 4 contexts, "
             "HDQ only, skew 0.")
    L.append(f"- Software: o_send = {args.o_send}, o_poll = {args.o_poll} host cycles; seed "
             f"{args.seed}.")
    L.append(keep.get("- Machine:", f"- Machine: {machine()}."))
    shape_wall = sum(float(r["shape_wall_s"]) for r in by_p.values())
    wall_line = (f"- Wall time: {shape_wall:.0f} s summed over the shapes' fabric runs" +
                 (f", {wall_total:.0f} s for the whole bench (golden model and sweep "
                  "included)" if wall_total is not None else "") + ".")
    L.append(keep.get("- Wall time:", wall_line) + "\n")
    L.append("## Table\n")
    L.append("| p | shape | k | rounds | HW-RTL cycles | HW-RTL ns | mean/node | model | "
             "RTL/model | SW cycles | SW ns | HW saves | net path | bound | HW/bound | NACKs |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        hw = float(r["hw_cycles"])
        L.append(
            f"| {r['p']} | {r['x']}x{r['y']}x{r['z']} | {r['k']} | {r['rounds']} | "
            f"{r['hw_cycles']} | {hw / ghz:.0f} | {float(r['hw_mean_cycles']):.1f} | "
            f"{r['model_cycles']} | {float(r['hw_over_model']):.2f} | {r['sw_cycles']} | "
            f"{float(r['sw_cycles']) / ghz:.0f} | {float(r['hw_saving_pct']):.0f}% | "
            f"{r['net_path_cycles']} | {r['bound_cycles']} | "
            f"{hw / float(r['bound_cycles']):.1f} | {r['nacks']} |")
    L.append("")
    L.append(f"RTL/model over all rows: {min(ratio):.2f} … {max(ratio):.2f} "
             f"(mean {sum(ratio) / len(ratio):.2f}). HW-RTL / bound: {min(hw_bound):.1f} … "
             f"{max(hw_bound):.1f}.\n")
    L.append("![latency vs p](bench-barrier.png)\n")
    L.append("## Simulation speed\n")
    L.append("Per shape: one fabric built, reset, every node's driver brought up (NODE_LID, "
             "rings, CSRs), one barrier per k, drivers closed. Simulated cycles of the whole "
             "shape run, wall time of the same, and their ratio (each cycle evaluates all p "
             "models).\n")
    L.append("| p | shape | simulated cycles | wall s | cycles/s | model-cycles/s |")
    L.append("|---|---|---|---|---|---|")
    for p in sorted(by_p):
        r = by_p[p]
        cps = float(r["shape_cycles_per_s"])
        L.append(f"| {p} | {r['x']}x{r['y']}x{r['z']} | {r['shape_sim_cycles']} | "
                 f"{float(r['shape_wall_s']):.2f} | {cps:.0f} | {cps * p:.0f} |")
    L.append("")
    if 128 in by_p:
        r = by_p[128]
        L.append(f"The 128-node run: {float(r['shape_wall_s']):.1f} s wall for "
                 f"{r['shape_sim_cycles']} simulated cycles "
                 f"({float(r['shape_cycles_per_s']):.0f} cycles/s).\n")
    L.append("## Against the paper\n")
    L.append(f"The paper reports the hardware barrier {PAPER_MEAN:.0f}% faster than software "
             f"on average and {PAPER_128:.0f}% at 128 nodes. This model (o_send = "
             f"{args.o_send}, o_poll = {args.o_poll}) gives **{mean_sav:.0f}% on average** "
             "over every p and k above" +
             (f" and **{sav128:.0f}% at 128 nodes** (mean of k = 1, 2, 3: " +
              ", ".join(f"k={r['k']} {float(r['hw_saving_pct']):.0f}%" for r in at128) + ")."
              if at128 else "."))
    L.append("")
    sav_p = {}
    for r in rows:
        sav_p.setdefault(int(r["p"]), []).append(float(r["hw_saving_pct"]))
    sav_p = {p: sum(v) / len(v) for p, v in sav_p.items()}
    p_lo = min(sav_p, key=sav_p.get)
    p_hi = max(sav_p, key=sav_p.get)
    cross = []  # hardware k=2 (the paper's improved form) vs software k=1 (classic)
    for p in sorted(sav_p):
        hw2 = [r for r in rows if int(r["p"]) == p and r["k"] == "2"]
        sw1 = [r for r in rows if int(r["p"]) == p and r["k"] == "1"]
        if hw2 and sw1:
            cross.append((p, saving(float(hw2[0]["hw_cycles"]), float(sw1[0]["sw_cycles"]))))
    if cross:
        cm = sum(c for _, c in cross) / len(cross)
        L.append(f"Compared as the paper compares (hardware running the improved k = 2 "
                 f"schedule against software running classic k = 1 dissemination): {cm:.0f}% "
                 "on average" + "".join(f", {c:.0f}% at {p} nodes" for p, c in cross
                                        if p == 128) + ".\n")
    one_way_max = max(float(r["net_path_cycles"]) / int(r["rounds"]) for r in rows)
    L.append(
        "**Why it differs.** The saving 1 − HW/SW is set by the ratio of host overhead to "
        "network latency, which the paper does not state. Software pays o_send for every "
        "message it posts and o_poll for every message it notices, in every round: "
        f"{args.o_send} + {args.o_poll} host cycles per message against a one-hop latency of "
        f"{one_way} cycles (NIC + one link) and at most {one_way_max:.0f} cycles per round on "
        "this schedule's network critical path (net path / rounds). Software time here is "
        f"almost all host overhead (SW / net path = "
        f"{min(float(r['sw_cycles']) / float(r['net_path_cycles']) for r in rows):.0f}… "
        f"{max(float(r['sw_cycles']) / float(r['net_path_cycles']) for r in rows):.0f}×), "
        "and the NIC removes nearly all of it. The sweep below reaches the paper's 40% only "
        "when o_send is of the order of one hop's latency.\n")
    L.append(
        f"The shape in p differs too. Here the saving is nearly flat: {sav_p[p_lo]:.0f}% "
        f"(p = {p_lo}) to {sav_p[p_hi]:.0f}% (p = {p_hi}), mean over k. Both sides grow "
        "with the number of rounds — software by a fixed host cost per round, hardware by one "
        "network crossing per round plus longer routes — so their ratio barely moves. The "
        "paper's saving rises with p (40% on average, 73% at 128), so its software cost must "
        "grow faster with p than its hardware's; a fixed per-message host overhead cannot do "
        "that, so no single (o_send, o_poll) reproduces both of its figures (below). What "
        "would (not modelled here): host costs that grow with p — MPI point-to-point "
        "matching over more peers and unexpected messages, OS noise whose odds grow with the "
        "number of nodes a round waits for. Hardware here is also charged for what software "
        f"is not: the doorbell write, the descriptor intake, the ACKs of the last round and "
        f"the NIC pipeline (HW-RTL / net path = "
        f"{min(float(r['hw_cycles']) / float(r['net_path_cycles']) for r in rows):.1f}… "
        f"{max(float(r['hw_cycles']) / float(r['net_path_cycles']) for r in rows):.1f}), "
        f"while software is charged {args.nic} cycles of NIC per message.\n")
    mean_fit = solve_overhead(rows, sweep, lambda r: True, PAPER_MEAN)
    fit128 = solve_overhead(rows, sweep, lambda r: int(r["p"]) == 128, PAPER_128)
    L.append("Sweep (software only, against the measured HW-RTL numbers; no extra RTL "
             "runs): host overheads with the same 2:1 ratio that reproduce the paper's "
             "figures —\n")
    if mean_fit:
        o = mean_fit[0]
        L.append(f"- {PAPER_MEAN:.0f}% on average: o_send ≈ {o:.0f}, o_poll ≈ {o / 2:.0f} "
                 f"cycles ({o / ghz:.0f} / {o / 2 / ghz:.0f} ns at {ghz:g} GHz), i.e. host "
                 f"overheads about {(o * 1.5) / one_way:.1f}× the one-hop latency.")
    else:
        L.append(f"- {PAPER_MEAN:.0f}% on average: not reached for o_send in 0 … {SWEEP[-1]}.")
    if fit128:
        o = fit128[0]
        L.append(f"- {PAPER_128:.0f}% at 128 nodes (mean over k): o_send ≈ {o:.0f}, o_poll ≈ "
                 f"{o / 2:.0f} cycles.")
    else:
        L.append(f"- {PAPER_128:.0f}% at 128 nodes: not reached for o_send in 0 … {SWEEP[-1]}.")
    L.append("")
    if mean_fit and fit128:
        L.append("The two fits differ by a factor "
                 f"{fit128[0] / max(mean_fit[0], 1e-9):.1f}: one pair of overheads cannot give "
                 "both figures, because the saving here does not climb with p.\n")
    L.append("Sweep table (mean saving over all rows / at 128 nodes):\n")
    L.append("| o_send | o_poll | mean saving | saving at 128 |")
    L.append("|---|---|---|---|")
    sw = {(int(s["p"]), int(s["k"]), int(s["o_send"])): float(s["sw_cycles"]) for s in sweep}
    for o in (0, 10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 400):
        if o not in SWEEP:
            continue
        vals = [saving(float(r["hw_cycles"]), sw[int(r["p"]), int(r["k"]), o]) for r in rows
                if sw.get((int(r["p"]), int(r["k"]), o), 0) > 0]
        v128 = [saving(float(r["hw_cycles"]), sw[int(r["p"]), int(r["k"]), o]) for r in at128
                if sw.get((int(r["p"]), int(r["k"]), o), 0) > 0]
        m = f"{sum(vals) / len(vals):.0f}%" if vals else "—"
        m128 = f"{sum(v128) / len(v128):.0f}%" if v128 else "—"
        L.append(f"| {o} | {o // 2} | {m} | {m128} |")
    L.append("")
    L.append("## Reproduce\n")
    L.append("`make bench-barrier` (or `scripts/bench_barrier.py --build <build>`; options: "
             "`--shapes 8,128 --k 1,2 --o-send N --o-poll N --ghz G --hop H`). The executable "
             "alone: `<build>/sim/bench/bench_barrier_rtl --help`.")
    out.write_text("\n".join(L) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out-dir", default=str(ROOT / "docs"))
    ap.add_argument("--shapes", help="comma list of XxYxZ or node counts (default: all)")
    ap.add_argument("--k", default="1,2,3")
    ap.add_argument("--o-send", type=int, default=200)
    ap.add_argument("--o-poll", type=int, default=100)
    ap.add_argument("--ghz", type=float, default=1.0)
    ap.add_argument("--hop", type=int, default=10)
    ap.add_argument("--nic", type=int, default=4)
    ap.add_argument("--retry-delay", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--reuse", action="store_true",
                    help="no RTL runs: rewrite the .md and .png from the existing .csv")
    ap.add_argument("--plot-only", nargs=2, metavar=("CSV", "PNG"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.plot_only:
        return plot(Path(args.plot_only[0]), Path(args.plot_only[1]))

    exe = Path(args.build) / BENCH
    if not exe.exists():
        print(f"bench_barrier: {exe} is not built (cmake --build {args.build} --target "
              "bench_barrier_rtl)", file=sys.stderr)
        return 1
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        csv_tmp = Path(tmp) / "bench.csv"
        sweep_tmp = Path(tmp) / "sweep.csv"
        cmd = [str(exe), "--csv", str(csv_tmp), "--k", args.k, "--o-send", str(args.o_send),
               "--o-poll", str(args.o_poll), "--ghz", str(args.ghz), "--hop", str(args.hop),
               "--nic", str(args.nic), "--retry-delay", str(args.retry_delay),
               "--seed", str(args.seed), "--sweep-o-send", ",".join(map(str, SWEEP)),
               "--sweep-csv", str(sweep_tmp)]
        if args.shapes:
            cmd += ["--shapes", args.shapes]
        if args.reuse:
            rows = read_csv(out / "bench-barrier.csv")
            shapes = sorted({f"{r['x']}x{r['y']}x{r['z']}" for r in rows})
            cmd = [c for c in cmd if c != str(csv_tmp)]
            cmd.remove("--csv")
            if "--shapes" not in cmd:
                cmd += ["--shapes", ",".join(shapes)]
            cmd.append("--sweep-only")
        t0 = time.monotonic()
        rc = subprocess.run(cmd).returncode
        wall = None if args.reuse else time.monotonic() - t0
        if rc != 0:
            print(f"bench_barrier: {exe.name} failed (exit {rc}); docs not written",
                  file=sys.stderr)
            return 1
        if not args.reuse:
            rows = read_csv(csv_tmp)
            (out / "bench-barrier.csv").write_text(csv_tmp.read_text())
        sweep = read_csv(sweep_tmp)
    keep = {}
    md = out / "bench-barrier.md"
    if args.reuse and md.exists():
        for line in md.read_text().splitlines():
            for key in ("- Machine:", "- Wall time:"):
                if line.startswith(key):
                    keep[key] = line
    write_md(args, rows, sweep, wall, md, keep)
    print(f"bench_barrier: {out / 'bench-barrier.md'}, {out / 'bench-barrier.csv'}" +
          (f" ({wall:.0f} s)" if wall is not None else ""))
    if args.no_plot:
        return 0
    png = out / "bench-barrier.png"
    try:
        import matplotlib  # noqa: F401
        return plot(out / "bench-barrier.csv", png)
    except ImportError:
        rc = subprocess.run(["/usr/bin/python3", __file__, "--plot-only",
                             str(out / "bench-barrier.csv"), str(png)]).returncode
        if rc != 0:
            print("bench_barrier: plot failed (matplotlib: `make deps` installs "
                  "python3-matplotlib)", file=sys.stderr)
        return rc


if __name__ == "__main__":
    sys.exit(main())
