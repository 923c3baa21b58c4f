"""scripts/slurm/regress.py: the regression split into seed chunks, run as
array tasks, merged into one JUnit file with the failures and their replay
commands, and the exit status of the local run. A planted test (a shell
command in a hand-written CTestTestfile.cmake) fails on exactly one seed, so
the merge has to find exactly that chunk.

The `cluster` tests start a single-node Slurm (scripts/slurm/local_cluster.sh,
root, munge and slurm-wlm from `make deps`) and submit through it; the others
run the tasks on this machine (--local). SYNCFAB_BUILD names the build folder
whose seeded test the cluster runs over 200 seeds."""
import importlib.util
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "slurm" / "regress.py"
CLUSTER = ROOT / "scripts" / "slurm" / "local_cluster.sh"

_spec = importlib.util.spec_from_file_location("regress", SCRIPT)
rg = importlib.util.module_from_spec(_spec)
sys.modules["regress"] = rg
_spec.loader.exec_module(rg)

# Fails on seed 13 only, saying how to replay it; the plain test takes no seeds.
PLANTED = """\
add_test(planted "/bin/sh" "-c" "a=${SYNCFAB_SEEDS%-*}; b=${SYNCFAB_SEEDS#*-}; \
if [ $a -le 13 ] && [ 13 -le $b ]; then echo 'seed 13: wrong; replay: SYNCFAB_SEED=13 planted'; \
exit 1; fi; echo seeds $a..$b ok")
set_tests_properties(planted PROPERTIES ENVIRONMENT "SYNCFAB_SEEDS=1-40" LABELS "slow")
add_test(plain "/bin/echo" "no seeds")
set_tests_properties(plain PROPERTIES LABELS "unit")
add_test(args "/bin/sh" "-c" "echo $0 $1 > seen.txt" "--seeds" "5-9")
"""


def fake_build(tmp: Path) -> Path:
    b = tmp / "build"
    b.mkdir()
    (b / "CTestTestfile.cmake").write_text(PLANTED.replace("$", "\\$").replace("\\${", "\\${"))
    return b


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def test_chunks_and_ranges():
    assert rg.chunks(1, 40, 10) == [(1, 10), (11, 20), (21, 30), (31, 40)]
    assert rg.chunks(5, 7, 10) == [(5, 7)]
    assert rg.parse_range("7", "x") == (7, 7)
    with pytest.raises(rg.UsageError, match="ends before it starts"):
        rg.parse_range("9-3", "--seeds")
    with pytest.raises(rg.UsageError, match="not a seed"):
        rg.parse_range("1-", "--seeds")


def test_local_run_finds_the_failing_chunk(tmp_path):
    build = fake_build(tmp_path)
    out = tmp_path / "out"
    r = run("--build", str(build), "--chunk", "10", "--out", str(out), "--local", "-j", "2")
    assert r.returncode == 1, r.stdout + r.stderr
    # planted: 4 chunks; plain: 1 task; args: its own --seeds 5-9 as one chunk.
    assert "3 test(s), 6 task(s), 45 seed(s), 5 passed, 1 failed" in r.stdout
    assert "FAILED planted seeds 11-20" in r.stdout
    assert "SYNCFAB_SEEDS=11-20" in r.stdout
    assert "the test says: seed 13: wrong; replay: SYNCFAB_SEED=13 planted" in r.stdout
    suites = {s.get("name"): s for s in ET.parse(out / "regress.xml").getroot()}
    assert suites["planted"].get("failures") == "1"
    assert [c.get("name") for c in suites["planted"]] == \
        ["seeds 1-10", "seeds 11-20", "seeds 21-30", "seeds 31-40"]
    assert suites["plain"].get("failures") == "0"
    # The chunk reached the command line of a test that takes --seeds.
    assert (build / "seen.txt").read_text().split() == ["--seeds", "5-9"]


def test_seed_override_label_and_bad_input(tmp_path):
    build = fake_build(tmp_path)
    r = run("--build", str(build), "-L", "slow", "--seeds", "20-29", "--chunk", "5",
            "--out", str(tmp_path / "o1"), "--local")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 test(s), 2 task(s), 10 seed(s), 2 passed, 0 failed" in r.stdout
    r = run("--build", str(build), "-R", "^nothing$", "--local", "--out", str(tmp_path / "o2"))
    assert r.returncode == 2 and "no test selected by -R '^nothing$'" in r.stderr
    r = run("--build", str(tmp_path), "--local")
    assert r.returncode == 2 and "not a build folder" in r.stderr
    r = run("--build", str(build), "--chunk", "0", "--local")
    assert r.returncode == 2 and "--chunk: 0" in r.stderr
    r = run("--build", str(build), "--seeds", "9-1", "--local")
    assert r.returncode == 2 and "ends before it starts" in r.stderr


# A seeded test of a coverage tree: one coverage file per seed of its chunk,
# its one functional point hit on seed 3 only (the file names itself as the
# point's source, so genhtml and the annotation have a file to read).
COV_TEST = r"""a=${2%-*}; b=${2#*-}; s=$a
while [ $s -le $b ]; do
  n=0; [ $s -eq 3 ] && n=1
  printf "# SystemC::Coverage-3\nC '\001f\002%s\001l\0021\001page\002v_user/m\001o\002c_point\001h\002dut.m' %d\n" "$0" $n > "$SYNCFAB_COVERAGE_DIR/t.c.seed$s.dat"
  s=$((s+1))
done
"""


def test_local_run_merges_coverage(tmp_path):
    if shutil.which("verilator_coverage") is None or shutil.which("genhtml") is None:
        pytest.fail("verilator_coverage and genhtml needed: `make deps` installs verilator, lcov")
    build = tmp_path / "build"
    build.mkdir()
    helper = tmp_path / "cov.sh"
    helper.write_text(COV_TEST)
    (build / "CTestTestfile.cmake").write_text(f'add_test(cov "/bin/sh" "{helper}" "--seeds" "1-6")\n')
    out = tmp_path / "out"
    r = run("--build", str(build), "--chunk", "2", "--out", str(out), "--local", "--coverage")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 test(s), 3 task(s), 6 seed(s), 3 passed, 0 failed" in r.stdout
    assert sorted(p.name for p in (out / "coverage" / "dat").iterdir()) == \
        [f"t.c.seed{s}.dat" for s in range(1, 7)]
    assert "coverage: 6 files merged" in r.stdout
    summary = (out / "coverage" / "summary.md").read_text()
    assert "| m.c_point | 1 |" in summary and "Functional points: 1 of 1 hit" in summary
    assert (out / "coverage" / "html" / "index.html").exists()


@pytest.fixture
def cluster(tmp_path):
    for tool in ("munged", "slurmctld", "slurmd", "sbatch"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found: `make deps` installs munge and slurm-wlm")
    d = tmp_path / "cluster"
    # Its own ports, so a cluster left running elsewhere on the machine is no
    # obstacle.
    env = {**os.environ, "SYNCFAB_SLURM_PORT": "16917"}
    r = subprocess.run([str(CLUSTER), "start", str(d)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    yield {"SLURM_CONF": str(d / "slurm.conf")}
    subprocess.run([str(CLUSTER), "stop", str(d)])


@pytest.mark.cluster
def test_cluster_runs_200_seeds_and_the_planted_failure(tmp_path, cluster):
    build = Path(os.environ.get("SYNCFAB_BUILD", ROOT / "build"))
    out = tmp_path / "seeded"
    r = run("--build", str(build), "-R", "^sm\\.reroute\\.regress$", "--seeds", "1-200",
            "--chunk", "20", "--out", str(out), "--poll", "0.5", "--deadline", "600",
            env=cluster)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 test(s), 10 task(s), 200 seed(s), 10 passed, 0 failed" in r.stdout
    root = ET.parse(out / "regress.xml").getroot()
    mine = [s for s in root if s.get("name") == "sm.reroute.regress"]
    assert len(mine) == 1 and len(list(mine[0])) == 10
    # The test's own GoogleTest JUnit of every chunk, merged in.
    own = [s for s in root if s.get("name", "").startswith("sm.reroute.regress [")]
    assert len(own) == 10 and all(s.get("failures") == "0" for s in own)

    planted = fake_build(tmp_path)
    r = run("--build", str(planted), "--chunk", "10", "--out", str(tmp_path / "planted"),
            "--poll", "0.5", "--deadline", "300", env=cluster)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "submitted 6 task(s) of 3 test(s)" in r.stdout
    assert "FAILED planted seeds 11-20" in r.stdout
    assert "replay: SYNCFAB_SEED=13 planted" in r.stdout
