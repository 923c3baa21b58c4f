#!/usr/bin/env python3
"""The regression on a Slurm cluster (or on this machine with --local).

Every ctest test the selection picks becomes one Slurm job array: a test that
takes seeds (`--seeds A-B` on its command line, as the harness tests, or
SYNCFAB_SEEDS=A-B in its environment, as the GoogleTest ones) is split into
chunks of --chunk seeds, one array task each; any other test is one task.
Every task runs the test's own command (as ctest would: its environment, its
working folder) and leaves a result file; when every array has finished, the
results and the tests' own JUnit files are merged into one JUnit file, the
failures are listed with the command that replays each (and the replay lines
the test printed), and the exit status is the local run's: 0 all passed, 1
something failed, 2 the regression itself could not run.

    scripts/slurm/regress.py --build build [-R REGEX] [-L LABEL] [--seeds A-B]
        [--chunk N] [--out DIR] [--partition P] [--time MIN] [--local] [--coverage]

On a coverage tree (SYNCFAB_COVERAGE=ON, the build of `make coverage`; or
with --coverage) every task also writes its test runs' coverage files into
OUT/coverage/dat, and they are merged and reported into OUT/coverage as
`make coverage` does (scripts/coverage/merge.py); a functional point never
hit makes the exit status 1.

The cluster is whatever SLURM_CONF (or the system's configuration) names;
scripts/slurm/local_cluster.sh starts a single-node one on this machine.
Tasks read the build folder and write to --out, so both must be on a file
system every node sees.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

# A Slurm array larger than the cluster's MaxArraySize (1001 by default) is
# refused: bigger ones are submitted as several arrays.
MAX_ARRAY = 1000
REPLAY = re.compile(r"replay", re.IGNORECASE)


class UsageError(Exception):
    pass


@dataclass
class Task:
    test: str
    index: int
    command: list[str]
    env: dict[str, str]
    cwd: str
    seeds: str = ""  # "a-b" or "" for an unseeded test
    junit: str = ""  # the test's own JUnit file, when it writes one
    timeout: float = 0.0


@dataclass
class TestPlan:
    name: str
    tasks: list[Task] = field(default_factory=list)


def parse_range(text: str, what: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if not m:
        raise UsageError(f"{what}: '{text}' is not a seed or a range A-B")
    a = int(m[1])
    b = int(m[2]) if m[2] else a
    if b < a:
        raise UsageError(f"{what}: '{text}' ends before it starts")
    return a, b


def chunks(a: int, b: int, size: int) -> list[tuple[int, int]]:
    return [(lo, min(lo + size - 1, b)) for lo in range(a, b + 1, size)]


def ctest_tests(build: Path, regex: str | None, label: str | None) -> list[dict]:
    ctest = shutil.which("ctest")
    if ctest is None:
        raise UsageError("ctest not found (cmake provides it)")
    cmd = [ctest, "--test-dir", str(build), "--show-only=json-v1"]
    if regex:
        cmd += ["-R", regex]
    if label:
        cmd += ["-L", label]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise UsageError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout).get("tests", [])


def plan(test: dict, seeds: tuple[int, int] | None, chunk: int, out: Path,
         build: Path, coverage: Path | None = None) -> TestPlan:
    """The tasks of one ctest test: its command per seed chunk (with
    coverage, the folder its coverage files go to)."""
    name = test["name"]
    command = list(test.get("command") or [])
    if not command:
        raise UsageError(f"test {name}: ctest lists no command (not built?)")
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    # What the task adds to the environment it runs in: the test's own
    # variables, and the regression's.
    env = {"SYNCFAB_REGRESS": "1"}
    if coverage is not None:
        env["SYNCFAB_COVERAGE_DIR"] = str(coverage)
    for kv in props.get("ENVIRONMENT", []):
        k, _, v = kv.partition("=")
        env[k] = v
    # CMake's tests always name it; a hand-written CTestTestfile.cmake runs
    # in the build folder, as ctest would.
    cwd = props.get("WORKING_DIRECTORY", str(build))
    timeout = float(props.get("TIMEOUT", 0) or 0)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    # How the test takes its seeds.
    own: tuple[int, int] | None = None
    where = ""
    if "--seeds" in command[:-1]:
        own = parse_range(command[command.index("--seeds") + 1], f"test {name}: --seeds")
        where = "arg"
    elif "SYNCFAB_SEEDS" in env:
        own = parse_range(env["SYNCFAB_SEEDS"], f"test {name}: SYNCFAB_SEEDS")
        where = "env"
    p = TestPlan(name)
    ranges = chunks(*(seeds or own), chunk) if own else [None]
    for i, rng in enumerate(ranges):
        cmd = list(command)
        e = dict(env)
        text = f"{rng[0]}-{rng[1]}" if rng else ""
        if where == "arg":
            cmd[cmd.index("--seeds") + 1] = text
        elif where == "env":
            e["SYNCFAB_SEEDS"] = text
        junit = ""
        if "--junit" in cmd[:-1]:
            junit = str(out / "junit" / f"{safe}.{i}.xml")
            cmd[cmd.index("--junit") + 1] = junit
        elif any(a.startswith("--gtest_") for a in cmd[1:]):
            junit = str(out / "junit" / f"{safe}.{i}.xml")
            cmd.append(f"--gtest_output=xml:{junit}")
        p.tasks.append(Task(name, i, cmd, e, cwd, text, junit, timeout))
    return p


def task_file(out: Path, name: str) -> Path:
    return out / "tasks" / (re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".json")


def result_file(out: Path, name: str, index: int) -> Path:
    return out / "results" / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.{index}.json"


def run_task(tasks_path: Path, index: int, out: Path) -> int:
    """One array task: runs the test's command and writes its result."""
    tasks = json.loads(tasks_path.read_text())
    if not 0 <= index < len(tasks):
        print(f"regress: task {index} of {tasks_path}: only {len(tasks)} tasks", file=sys.stderr)
        return 2
    t = Task(**tasks[index])
    log = out / "logs" / (tasks_path.stem + f".{index}.log")
    t0 = time.monotonic()
    status = "passed"
    with log.open("w") as f:
        f.write("$ " + " ".join(shlex.quote(a) for a in t.command) + "\n")
        f.flush()
        try:
            r = subprocess.run(t.command, env={**os.environ, **t.env}, cwd=t.cwd, stdout=f,
                               stderr=subprocess.STDOUT, timeout=t.timeout or None)
            code = r.returncode
            if code != 0:
                status = "failed"
        except subprocess.TimeoutExpired:
            code, status = -1, "timeout"
        except OSError as e:
            f.write(f"regress: cannot run: {e}\n")
            code, status = -1, "failed"
    res = {"test": t.test, "index": index, "seeds": t.seeds, "status": status, "exit": code,
           "seconds": round(time.monotonic() - t0, 3), "log": str(log),
           "host": os.uname().nodename}
    dst = result_file(out, t.test, index)
    tmp = dst.with_suffix(".tmp")
    tmp.write_text(json.dumps(res))
    tmp.replace(dst)  # a result is there whole or not at all
    return 0 if status == "passed" else 1


def submit(plans: list[TestPlan], out: Path, args) -> list[str]:
    sbatch = shutil.which("sbatch")
    if sbatch is None:
        raise UsageError("sbatch not found: a Slurm client is needed (or --local); "
                         "scripts/slurm/local_cluster.sh starts one on this machine")
    ids = []
    for p in plans:
        tasks = task_file(out, p.name)
        for first in range(0, len(p.tasks), MAX_ARRAY):
            last = min(first + MAX_ARRAY, len(p.tasks)) - 1
            # The array index counts from 0 in each submission; the offset
            # makes it the task's index.
            wrap = (f"exec {shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).resolve()))}"
                    f" --run-task {shlex.quote(str(tasks))} --out {shlex.quote(str(out))}"
                    f" --index $(( SLURM_ARRAY_TASK_ID + {first} ))")
            cmd = [sbatch, "--parsable", f"--array=0-{last - first}",
                   f"--job-name=syncfab:{p.name}", "--cpus-per-task=1",
                   f"--output={out / 'logs' / 'slurm-%A_%a.out'}", "--wrap", wrap]
            if args.partition:
                cmd.insert(1, f"--partition={args.partition}")
            if args.time:
                cmd.insert(1, f"--time={args.time}")
            cmd[1:1] = args.sbatch_arg or []
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise UsageError(f"sbatch for {p.name}: exit {r.returncode}: {r.stderr.strip()}")
            ids.append(r.stdout.strip().split(";")[0])
    return ids


def wait(ids: list[str], poll: float, deadline: float | None) -> None:
    squeue = shutil.which("squeue") or "squeue"
    while True:
        r = subprocess.run([squeue, "-h", "-o", "%i", "-j", ",".join(ids)],
                           capture_output=True, text=True)
        # squeue exits non-zero once every job has left the queue.
        if r.returncode != 0 or not r.stdout.strip():
            return
        if deadline is not None and time.monotonic() > deadline:
            subprocess.run([shutil.which("scancel") or "scancel", *ids])
            raise UsageError(f"jobs {','.join(ids)} still queued or running at the deadline; "
                             "cancelled")
        time.sleep(poll)


def run_local(plans: list[TestPlan], out: Path, jobs: int) -> None:
    work = [(task_file(out, p.name), t.index) for p in plans for t in p.tasks]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(lambda w: subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--run-task", str(w[0]),
             "--out", str(out), "--index", str(w[1])]), work))


def replay(t: Task, build: Path) -> str:
    env = f"SYNCFAB_SEEDS={t.seeds} " if "SYNCFAB_SEEDS" in t.env and t.seeds else ""
    cmd = [a for a in t.command if not a.startswith("--gtest_output=")]
    if "--junit" in cmd[:-1]:
        i = cmd.index("--junit")
        del cmd[i:i + 2]
    return f"(cd {shlex.quote(t.cwd)} && {env}" + " ".join(shlex.quote(a) for a in cmd) + ")"


def collect(plans: list[TestPlan], out: Path, build: Path, wall: float) -> int:
    root = ET.Element("testsuites", name="syncfab regress")
    failures: list[tuple[Task, dict]] = []
    n_tasks = n_seeds = 0
    for p in plans:
        suite = ET.SubElement(root, "testsuite", name=p.name, tests=str(len(p.tasks)))
        bad = 0
        for t in p.tasks:
            n_tasks += 1
            if t.seeds:
                a, b = parse_range(t.seeds, "seeds")
                n_seeds += b - a + 1
            path = result_file(out, p.name, t.index)
            res = json.loads(path.read_text()) if path.exists() else {
                "status": "no result", "seconds": 0,
                "log": str(out / "logs" / (task_file(out, p.name).stem + f".{t.index}.log"))}
            case = ET.SubElement(suite, "testcase", classname=p.name,
                                 name=f"seeds {t.seeds}" if t.seeds else p.name,
                                 time=str(res.get("seconds", 0)))
            if res["status"] != "passed":
                bad += 1
                failures.append((t, res))
                fail = ET.SubElement(case, "failure", message=res["status"])
                fail.text = tail(res.get("log", ""))
        suite.set("failures", str(bad))
        # The test's own per-seed JUnit, where it writes one.
        for t in p.tasks:
            if t.junit and Path(t.junit).exists():
                try:
                    own = ET.parse(t.junit).getroot()
                except ET.ParseError:
                    continue
                for s in ([own] if own.tag == "testsuite" else list(own)):
                    s.set("name", f"{p.name} [{t.seeds or 'run'}] {s.get('name', '')}".strip())
                    root.append(s)
    merged = out / "regress.xml"
    ET.ElementTree(root).write(merged, encoding="utf-8", xml_declaration=True)
    print(f"regress: {len(plans)} test(s), {n_tasks} task(s), {n_seeds} seed(s), "
          f"{n_tasks - len(failures)} passed, {len(failures)} failed, {wall:.0f} s wall; "
          f"JUnit: {merged}")
    for t, res in failures:
        print(f"FAILED {t.test}" + (f" seeds {t.seeds}" if t.seeds else "") +
              f" ({res['status']}; log {res.get('log', '-')})")
        print(f"  replay: {replay(t, build)}")
        for line in replay_lines(res.get("log", "")):
            print(f"  the test says: {line}")
    return 1 if failures else 0


def tail(log: str, lines: int = 40) -> str:
    try:
        return "\n".join(Path(log).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {log})"


def replay_lines(log: str) -> list[str]:
    try:
        text = Path(log).read_text(errors="replace").splitlines()
    except OSError:
        return []
    seen: list[str] = []
    for line in text[1:]:  # the first line is the command (run_task)
        s = line.strip()
        if REPLAY.search(s) and s not in seen:
            seen.append(s)
    return seen[:5]


def is_coverage_tree(build: Path) -> bool:
    cache = build / "CMakeCache.txt"
    return cache.exists() and re.search(r"^SYNCFAB_COVERAGE:BOOL=ON$", cache.read_text(),
                                        re.MULTILINE) is not None


def merge_coverage(out: Path) -> int:
    """scripts/coverage/merge.py over every task's coverage files."""
    spec = importlib.util.spec_from_file_location(
        "syncfab_cov_merge", Path(__file__).resolve().parents[1] / "coverage" / "merge.py")
    merge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(merge)
    try:
        return merge.merge([out / "coverage" / "dat"], out / "coverage")
    except merge.MergeError as e:
        print(f"regress: coverage: {e}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("--build", type=Path, help="the build folder (ctest's)")
    ap.add_argument("-R", dest="regex", help="ctest -R: tests whose name matches")
    ap.add_argument("-L", dest="label", help="ctest -L: tests with this label")
    ap.add_argument("--seeds", help="seed range A-B for every test that takes seeds "
                                    "(default: each test's own)")
    ap.add_argument("--chunk", type=int, default=20, help="seeds per array task (20)")
    ap.add_argument("--out", type=Path, help="results folder (default BUILD/regress-slurm)")
    ap.add_argument("--partition", help="Slurm partition")
    ap.add_argument("--time", help="Slurm time limit per task (sbatch --time)")
    ap.add_argument("--sbatch-arg", action="append", help="more sbatch options (repeatable)")
    ap.add_argument("--poll", type=float, default=2.0, help="seconds between squeue polls")
    ap.add_argument("--deadline", type=float, help="give up (and scancel) after this many s")
    ap.add_argument("--local", action="store_true",
                    help="run the tasks on this machine instead of submitting them")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="tasks at once with --local")
    ap.add_argument("--coverage", action="store_true",
                    help="gather and merge the tests' coverage files (on by itself for a "
                         "coverage tree)")
    ap.add_argument("--run-task", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--index", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    try:
        if a.run_task:
            if a.index is None or a.out is None:
                raise UsageError("--run-task needs --index and --out")
            return run_task(a.run_task, a.index, a.out)
        if a.build is None:
            raise UsageError("--build: the build folder is needed")
        if a.chunk < 1:
            raise UsageError(f"--chunk: {a.chunk} (at least 1)")
        build = a.build.resolve()
        if not (build / "CTestTestfile.cmake").exists():
            raise UsageError(f"--build '{a.build}': no CTestTestfile.cmake (not a build folder)")
        seeds = parse_range(a.seeds, "--seeds") if a.seeds else None
        out = (a.out or build / "regress-slurm").resolve()
        if out.exists():
            shutil.rmtree(out)
        for sub in ("tasks", "results", "logs", "junit"):
            (out / sub).mkdir(parents=True)
        tests = ctest_tests(build, a.regex, a.label)
        if not tests:
            raise UsageError("no test selected" + (f" by -R '{a.regex}'" if a.regex else "") +
                             (f" and -L '{a.label}'" if a.label else ""))
        coverage = a.coverage or is_coverage_tree(build)
        cov_dir = out / "coverage" / "dat" if coverage else None
        if cov_dir is not None:
            cov_dir.mkdir(parents=True)
        plans = [plan(t, seeds, a.chunk, out, build, cov_dir) for t in tests]
        for p in plans:
            task_file(out, p.name).write_text(json.dumps([t.__dict__ for t in p.tasks]))
        t0 = time.monotonic()
        if a.local:
            run_local(plans, out, max(1, a.jobs))
        else:
            ids = submit(plans, out, a)
            print(f"regress: submitted {sum(len(p.tasks) for p in plans)} task(s) of "
                  f"{len(plans)} test(s) as job(s) {','.join(ids)}", flush=True)
            wait(ids, a.poll, t0 + a.deadline if a.deadline else None)
        rc = collect(plans, out, build, time.monotonic() - t0)
        if coverage:
            rc = max(rc, merge_coverage(out))
        return rc
    except UsageError as e:
        print(f"regress: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
