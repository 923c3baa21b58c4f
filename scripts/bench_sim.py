#!/usr/bin/env python3
"""`make bench-sim`: how fast the verilated models simulate, in one table.

For every verilated top this measures simulated cycles per CPU second:
  * bare: the model's own eval loop with the clock toggled by hand
    (sim/bench/bench_bare_*: switch_top at its 4- and 8-port shapes under
    uniform random load and idle, nic_top idle), assertions on (the tests'
    configuration) and off, and with FST tracing;
  * harness: every harness test binary (build/tb-tests/*.txt) run as ctest
    runs it, with --bench: its simulated cycles, CPU time, and the time spent
    inside each model's eval, so the harness's own share is measured
    (overhead = (CPU - eval) / eval); again with +trace;
  * fabrics: the NIC torus at 8 ... 128 nodes (bring-up + three barriers,
    test_nic_fabric nic_fabric.torus_speed) and every switch-fabric scenario
    (test_switch_fabric), in fabric cycles and model-cycles per CPU second;
  * compile (--compile): each verilated library built from scratch in a
    throw-away build tree without the compiler cache: Verilator's own time
    and the C++ compile time.
Every figure is the best (least CPU) of --runs runs. Writes <out>.md and
<out>.csv (default docs/bench-sim) with the machine, its load, the Verilator
version and the commit (and whether the tree was clean).

Usage: bench_sim.py [--build DIR] [--runs N] [--out PATH] [--compile]
                    [--quick] [--only SECTION ...]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("bare", "harness", "fabric", "compile")

# (shape name, x, y, z) of the NIC torus fabrics.
TORUS = [("8", 2, 2, 2), ("16", 4, 2, 2), ("32", 4, 4, 2), ("64", 4, 4, 4), ("128", 4, 4, 8)]


def fail(msg: str) -> None:
    print(f"bench_sim: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd: list[str], timeout: float = 3600, env=None) -> str:
    """Runs cmd, returns stdout; a failure ends the bench naming the command."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        tail = "\n".join((p.stdout + p.stderr).splitlines()[-20:])
        fail(f"{shlex.join(cmd)} exited with {p.returncode}:\n{tail}")
    return p.stdout


def bench_lines(out: str) -> list[dict]:
    return [json.loads(line[len("bench: "):]) for line in out.splitlines()
            if line.startswith("bench: ")]


def best(runs: int, once):
    """The run with the least CPU time of `runs` runs of once() -> dict(cpu_s=...)."""
    results = [once() for _ in range(runs)]
    return min(results, key=lambda r: r["cpu_s"])


# ----------------------------------------------------------------------- bare

def bare_cases(build: Path, quick: bool) -> list[tuple[str, list[str]]]:
    cases = []
    sw_cycles = "2000" if quick else "30000"
    for shape in ("4p", "8p"):
        exe = build / f"sim/bench/bench_bare_switch_{shape}"
        if not exe.is_file():
            continue
        for load in ("uniform", "idle"):
            for extra in ([], ["--no-assert"]):
                cases.append((f"switch_top {shape} {load}",
                              [str(exe), "--load", load, "--cycles", sw_cycles] + extra))
        cases.append((f"switch_top {shape} uniform trace",
                      [str(exe), "--load", "uniform", "--cycles", sw_cycles, "--trace", "TRACE"]))
    exe = build / "sim/bench/bench_bare_nic"
    if exe.is_file():
        nic_cycles = "20000" if quick else "400000"
        for extra in ([], ["--no-assert"]):
            cases.append(("nic_top idle", [str(exe), "--cycles", nic_cycles] + extra))
        cases.append(("nic_top idle trace", [str(exe), "--cycles", nic_cycles, "--trace", "TRACE"]))
    return cases


def measure_bare(build: Path, runs: int, quick: bool, tmp: Path) -> list[dict]:
    rows = []
    for name, cmd in bare_cases(build, quick):
        cmd = [str(tmp / "bare.fst") if a == "TRACE" else a for a in cmd]

        def once(cmd=cmd):
            return json.loads(run(cmd).strip().splitlines()[-1])
        r = best(runs, once)
        rows.append({
            "section": "bare", "name": name, "model": r["top"], "shape": r["shape"],
            "load": r["load"], "mode": r["mode"], "assert": r["assert"],
            "instances": 1, "cycles": r["cycles"], "cpu_s": r["cpu_s"],
            "cycles_per_cpu_s": r["cycles"] / r["cpu_s"],
        })
        print(f"  bare {name} assert={r['assert']}: {rows[-1]['cycles_per_cpu_s']:,.0f} cycles/s",
              flush=True)
    return rows


# -------------------------------------------------------------------- harness

def manifest(build: Path) -> list[dict]:
    out = []
    for entry in sorted((build / "tb-tests").glob("*.txt")):
        lines = entry.read_text().splitlines()
        info = {"target": entry.stem, "binary": lines[0].strip(), "models": "", "args": ""}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
        if Path(info["binary"]).is_file():
            out.append(info)
    return out


def verilated_libs(build: Path) -> dict[str, dict]:
    libs = {}
    for entry in sorted((build / "verilated").glob("*.txt")):
        info = {}
        for line in entry.read_text().splitlines():
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
        libs[entry.stem] = info
    return libs


def harness_run(binary: str, args: list[str], trace: bool, tmp: Path) -> dict:
    cmd = [binary] + args + ["--seed", "1", "--bench"]
    if trace:
        cmd += ["+trace", "--waves-dir", str(tmp / "waves")]
    env = dict(os.environ)
    env.pop("WAVES", None)
    lines = bench_lines(run(cmd, env=env))
    if not lines:
        fail(f"{shlex.join(cmd)} printed no bench line")
    total = {"cycles": 0, "cpu_s": 0.0, "wall_s": 0.0, "eval_s": 0.0, "models": {},
             "tests": len(lines)}
    for j in lines:
        total["cycles"] += j["cycles"]
        total["cpu_s"] += j["cpu_s"]
        total["wall_s"] += j["wall_s"]
        total["eval_s"] += j["eval_s"]
        for name, m in j["models"].items():
            acc = total["models"].setdefault(
                name, {"instances": 0, "eval_s": 0.0, "evals": 0, "skipped": 0})
            acc["instances"] = max(acc["instances"], m["instances"])
            acc["eval_s"] += m["eval_s"]
            acc["evals"] += m["evals"]
            acc["skipped"] += m.get("skipped", 0)
    if trace:
        shutil.rmtree(tmp / "waves", ignore_errors=True)
    return total


def eval_split(r: dict) -> tuple[float, float]:
    """(CPU seconds inside eval, harness overhead) of one run. Evals are timed
    with the time-stamp counter, i.e. in wall time; on a loaded machine the
    process is descheduled inside evals and outside alike, so the wall-time
    share of eval, applied to the CPU time, estimates eval's CPU seconds, and
    the overhead is the same ratio in either clock."""
    if r["eval_s"] <= 0 or r["wall_s"] <= 0:
        return 0.0, 0.0
    share = min(r["eval_s"] / r["wall_s"], 1.0)
    return r["cpu_s"] * share, (1.0 - share) / share


def measure_harness(build: Path, runs: int, tmp: Path) -> list[dict]:
    rows = []
    libs = verilated_libs(build)
    for t in manifest(build):
        if not t["models"]:
            continue  # plain C++ models (scenarios of the harness itself)
        args = shlex.split(t["args"])
        plain = best(runs, lambda: harness_run(t["binary"], args, False, tmp))
        traced = best(1 if runs > 1 else runs, lambda: harness_run(t["binary"], args, True, tmp))
        shapes = ", ".join(f"{lib} ({libs.get(lib, {}).get('params', '') or 'defaults'})"
                           for lib in t["models"].split())
        inst = sum(m["instances"] for m in plain["models"].values())
        eval_s, overhead = eval_split(plain)
        rows.append({
            "section": "harness", "name": t["target"], "model": ", ".join(plain["models"]),
            "shape": shapes, "load": f"{plain['tests']} test(s)", "mode": "harness",
            "assert": True, "instances": inst, "cycles": plain["cycles"],
            "cpu_s": plain["cpu_s"], "eval_s": eval_s,
            "cycles_per_cpu_s": plain["cycles"] / plain["cpu_s"],
            "bare_cycles_per_s": plain["cycles"] * max(inst, 1) / eval_s if eval_s else 0.0,
            "overhead": overhead,
            "trace_cycles_per_cpu_s": traced["cycles"] / traced["cpu_s"],
        })
        r = rows[-1]
        print(f"  harness {t['target']}: {r['cycles_per_cpu_s']:,.0f} cycles/s, "
              f"overhead {100 * r['overhead']:.0f} %", flush=True)
    return rows


# -------------------------------------------------------------------- fabrics

def measure_fabrics(build: Path, runs: int, quick: bool) -> list[dict]:
    rows = []
    nic = build / "tests/system/nic/test_nic_fabric"
    torus = TORUS[:2] if quick else TORUS
    for name, x, y, z in torus:
        cmd = [str(nic), "--test", "nic_fabric.torus_speed", "--seed", "1", "--bench",
               "--param", f"x={x}", "--param", f"y={y}", "--param", f"z={z}"]
        r = best(runs, lambda cmd=cmd: bench_lines(run(cmd))[0])
        rows.append(fabric_row(f"NIC torus {x}x{y}x{z}", "nic_top", r))
    sw = build / "tests/system/switch/test_switch_fabric"
    if sw.is_file() and not quick:
        tests = run([str(sw), "--list"]).split()
        for test in tests:
            cmd = [str(sw), "--test", test, "--seed", "1", "--bench"]
            r = best(runs, lambda cmd=cmd: bench_lines(run(cmd))[0])
            rows.append(fabric_row(test, "switch_top 8p", r))
    return rows


def skipped_share(r: dict) -> float:
    """Share of the model evals the harness skipped because the model was idle."""
    evals = sum(m["evals"] for m in r["models"].values())
    skipped = sum(m.get("skipped", 0) for m in r["models"].values())
    return skipped / (evals + skipped) if evals + skipped else 0.0


def fabric_row(name: str, model: str, r: dict) -> dict:
    inst = sum(m["instances"] for m in r["models"].values())
    eval_s, overhead = eval_split(r)
    row = {
        "section": "fabric", "name": name, "model": model, "shape": f"{inst} models",
        "load": "", "mode": "harness", "assert": True, "instances": inst,
        "cycles": r["cycles"], "cpu_s": r["cpu_s"], "wall_s": r["wall_s"],
        "eval_s": eval_s, "cycles_per_cpu_s": r["cycles"] / r["cpu_s"],
        "model_cycles_per_cpu_s": r["cycles"] * inst / r["cpu_s"],
        "bare_cycles_per_s": r["cycles"] * inst / eval_s if eval_s else 0.0,
        "overhead": overhead,
        "skipped_share": skipped_share(r),
    }
    print(f"  fabric {name}: {row['cycles']} cycles in {row['wall_s']:.2f} s wall, "
          f"{row['cycles_per_cpu_s']:,.0f} fabric cycles/s, overhead {100 * row['overhead']:.0f} %",
          flush=True)
    return row


# -------------------------------------------------------------------- compile

def measure_compile(build: Path) -> list[dict]:
    """Each verilated library from scratch, in a fresh build tree, no ccache."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="syncfab-compile-") as d:
        tree = Path(d) / "build"
        env = dict(os.environ, CCACHE_DISABLE="1")
        t0 = time.monotonic()
        run(["cmake", "-S", str(ROOT), "-B", str(tree), "-G", "Ninja"], env=env)
        configure = time.monotonic() - t0
        run(["cmake", "--build", str(tree), "--target", "syncfab_verilated_rt", "-j", "2"], env=env)
        for lib, info in verilated_libs(tree).items():
            vl = verilate_seconds(tree, lib)
            t0 = time.monotonic()
            c0 = children_cpu()
            run(["cmake", "--build", str(tree), "--target", lib, "-j", "2"], env=env)
            rows.append({
                "section": "compile", "name": lib, "model": info.get("top", ""),
                "shape": info.get("params", ""), "verilate_s": vl,
                "compile_wall_s": time.monotonic() - t0, "compile_cpu_s": children_cpu() - c0,
                "generated_mb": generated_mb(tree, lib),
            })
            r = rows[-1]
            print(f"  compile {lib}: verilate {vl:.1f} s, C++ {r['compile_cpu_s']:.1f} CPU s "
                  f"({r['compile_wall_s']:.1f} s wall)", flush=True)
        rows.append({"section": "compile", "name": "(configure, every model verilated)",
                     "compile_wall_s": configure})
    return rows


def children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def model_dir(tree: Path, lib: str) -> Path | None:
    hits = list(tree.glob(f"**/CMakeFiles/{lib}.dir/*.dir/verilator_args.txt"))
    return hits[0].parent if hits else None


def verilate_seconds(tree: Path, lib: str) -> float:
    """Verilator alone on the library's arguments (it ran at configure time)."""
    mdir = model_dir(tree, lib)
    if mdir is None:
        return float("nan")
    # The verilator command CMake ran, as a CMake list (binary first).
    args = [a for a in re.split(r"[;\n]", (mdir / "verilator_args.txt").read_text()) if a]
    if args and Path(args[0]).name.startswith("verilator"):
        args = args[1:]
    with tempfile.TemporaryDirectory(prefix="syncfab-vl-") as out:
        fixed = []
        skip = False
        for a in args:
            if skip:
                skip = False
                continue
            if a == "--Mdir":
                skip = True
                continue
            fixed.append(a)
        c0 = children_cpu()
        run(["verilator_bin", "--Mdir", out] + fixed)
        return children_cpu() - c0


def generated_mb(tree: Path, lib: str) -> float:
    mdir = model_dir(tree, lib)
    if mdir is None:
        return float("nan")
    return sum(f.stat().st_size for f in mdir.glob("*.cpp")) / 1e6


# ----------------------------------------------------------------------- docs

def machine(load0: float) -> str:
    cpu = platform.processor() or "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    load1 = os.getloadavg()[0]
    return (f"{cpu}, {os.cpu_count()} cores, load average {load0:.2f} at start and "
            f"{load1:.2f} at the end, {platform.system()} {platform.release()}")


def commit() -> str:
    sha = run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]).strip()
    dirty = run(["git", "-C", str(ROOT), "status", "--porcelain"]).strip()
    return f"{sha}" + (" (tree with uncommitted changes)" if dirty else " (clean tree)")


def verilator_version() -> str:
    return run(["verilator", "--version"]).strip()


def fmt(v, digits=0) -> str:
    if v is None or v == "":
        return ""
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return str(v)


def write_md(path: Path, rows: list[dict], header: str) -> None:
    out = [header, ""]
    bare = [r for r in rows if r["section"] == "bare"]
    if bare:
        out += ["## Bare eval loop (sim/bench/bench_bare_*)", "",
                "The model alone, clock toggled by hand. switch_top: three evals per cycle "
                "(inputs, rising edge, falling edge) as the harness orders them under traffic; "
                "nic_top, idle with steady inputs: one eval per edge.", "",
                "| top | shape | load | mode | assertions | cycles | CPU s | cycles / CPU s |",
                "|---|---|---|---|---|---:|---:|---:|"]
        for r in bare:
            out.append(f"| {r['model']} | {r['shape']} | {r['load']} | {r['mode']} | "
                       f"{'on' if r['assert'] else 'off'} | {r['cycles']} | {fmt(r['cpu_s'], 3)} | "
                       f"{fmt(r['cycles_per_cpu_s'])} |")
        out.append("")
    harness = [r for r in rows if r["section"] == "harness"]
    if harness:
        out += ["## Under the harness: every harness test binary as `make test` runs it", "",
                "`eval cycles/s` is the bare-equivalent speed: simulated model-cycles per "
                "second spent inside the models' eval; overhead = (total - eval) / eval is the "
                "harness's and the test's own share (evals are timed with the time-stamp "
                "counter; eval's CPU time is its share of the wall time applied to the CPU "
                "time).", "",
                "| binary | verilated library | tests | models | cycles | CPU s | cycles / CPU s "
                "| eval cycles / s | overhead | traced cycles / CPU s |",
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in harness:
            out.append(f"| {r['name']} | {r['shape']} | {r['load'].split()[0]} | {r['instances']} | "
                       f"{r['cycles']} | {fmt(r['cpu_s'], 2)} | {fmt(r['cycles_per_cpu_s'])} | "
                       f"{fmt(r['bare_cycles_per_s'])} | {fmt(100 * r['overhead'], 0)} % | "
                       f"{fmt(r['trace_cycles_per_cpu_s'])} |")
        out.append("")
    fabric = [r for r in rows if r["section"] == "fabric"]
    if fabric:
        out += ["## Fabrics", "",
                "`skipped`: the share of model evals the harness skipped because the model sat "
                "at a fixed point with steady inputs (TestContext::skip_when_idle; the NIC "
                "fabric). `eval cycles / s` is simulated model-cycles per second inside eval, "
                "skipped cycles included, and the overhead is relative to the evals that ran: "
                "where most evals are skipped, the harness's per-cycle work (coroutines, "
                "the skip checks) is most of the time, and the fabric is still far faster than "
                "evaluating every model (compare model-cycles / CPU s with the bare nic_top).", "",
                "| fabric | models | cycles | wall s | CPU s | fabric cycles / CPU s | "
                "model-cycles / CPU s | eval cycles / s | overhead | skipped |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in fabric:
            out.append(f"| {r['name']} | {r['instances']} | {r['cycles']} | {fmt(r['wall_s'], 2)} | "
                       f"{fmt(r['cpu_s'], 2)} | {fmt(r['cycles_per_cpu_s'])} | "
                       f"{fmt(r['model_cycles_per_cpu_s'])} | {fmt(r['bare_cycles_per_s'])} | "
                       f"{fmt(100 * r['overhead'], 0)} % | "
                       f"{fmt(100 * r.get('skipped_share', 0.0), 0)} % |")
        out.append("")
    comp = [r for r in rows if r["section"] == "compile"]
    if comp:
        out += ["## Compile time of every verilated model (cold: fresh tree, no ccache, 2 jobs)",
                "", "| library | top | parameters | Verilator CPU s | C++ CPU s | C++ wall s | "
                "generated C++ MB |", "|---|---|---|---:|---:|---:|---:|"]
        for r in comp:
            out.append(f"| {r['name']} | {r.get('model', '')} | {r.get('shape', '')} | "
                       f"{fmt(r.get('verilate_s'), 1)} | {fmt(r.get('compile_cpu_s'), 1)} | "
                       f"{fmt(r.get('compile_wall_s'), 1)} | {fmt(r.get('generated_mb'), 1)} |")
        out.append("")
    path.write_text("\n".join(out) + "\n")


def write_csv(path: Path, rows: list[dict]) -> None:
    keys: list[str] = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", type=Path)
    ap.add_argument("--runs", default=3, type=int, help="runs per figure (the best is kept)")
    ap.add_argument("--out", default=ROOT / "docs" / "bench-sim", type=Path,
                    help="writes OUT.md and OUT.csv")
    ap.add_argument("--compile", action="store_true",
                    help="also build every verilated model from scratch (slow)")
    ap.add_argument("--quick", action="store_true", help="short runs (the smoke test)")
    ap.add_argument("--only", nargs="+", choices=SECTIONS, help="measure these sections only")
    a = ap.parse_args()
    if a.runs < 1:
        fail(f"--runs {a.runs}: need at least one run")
    build = a.build.resolve()
    if not (build / "tb-tests").is_dir():
        fail(f"{build} holds no built harness tests; run `make build` first")
    sections = set(a.only or ("bare", "harness", "fabric") + (("compile",) if a.compile else ()))
    load0 = os.getloadavg()[0]
    header_commit = commit()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="syncfab-bench-sim-") as d:
        tmp = Path(d)
        if "bare" in sections:
            rows += measure_bare(build, a.runs, a.quick, tmp)
        if "harness" in sections:
            rows += measure_harness(build, a.runs, tmp)
        if "fabric" in sections:
            rows += measure_fabrics(build, a.runs, a.quick)
    if "compile" in sections:
        rows += measure_compile(build)
    header = "\n".join([
        "# Simulation speed (`make bench-sim`)", "",
        f"Generated by `scripts/bench_sim.py` at commit {header_commit}, "
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}; {verilator_version()}; best of {a.runs} run(s).",
        "", f"Machine: {machine(load0)}.", "",
        "Where the time goes in each top, what was changed and the figures before the "
        "changes: docs/sim-speed.md.",
    ])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    write_md(a.out.with_suffix(".md"), rows, header)
    write_csv(a.out.with_suffix(".csv"), rows)
    print(f"bench_sim: {a.out.with_suffix('.md')} and {a.out.with_suffix('.csv')}")


if __name__ == "__main__":
    main()
