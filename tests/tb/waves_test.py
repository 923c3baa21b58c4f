"""scripts/waves.py against a throw-away build tree listing tb_vlt_selftest.

usage: waves_test.py <waves.py> <tb_vlt_selftest binary> <scratch build dir>
"""
import pathlib
import shutil
import subprocess
import sys

waves_py, binary, build = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
shutil.rmtree(build, ignore_errors=True)
(build / "tb-tests").mkdir(parents=True)
(build / "tb-tests" / "tb_vlt_selftest.txt").write_text(binary + "\n")
failures = []


def waves(test, seed, build_dir=build):
    r = subprocess.run([sys.executable, waves_py, "--build", str(build_dir), "--test", test, "--seed", seed],
                       capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def check(cond, what, out):
    if not cond:
        failures.append(f"{what}\n--- output ---\n{out}")


rc, out, err = waves("vlt.count", "3")
fst = build / "waves" / "vlt.count-seed3.fst"
check(rc == 0, "a passing test exits 0", out + err)
check(f"waves: {fst}" in out, "prints the FST path", out)
check(fst.is_file() and fst.stat().st_size > 200, "writes the FST", out)

rc, out, err = waves("vlt.conut", "1")
check(rc == 2, "unknown test exits 2", out + err)
check("unknown test 'vlt.conut': did you mean vlt.count" in err, "names close matches", err)
check(len(err.strip().splitlines()) == 1, "one line", err)

rc, out, err = waves("no.such_thing_at_all", "1")
check(rc == 2 and "unknown test 'no.such_thing_at_all'" in err, "unknown test without matches", err)

for bad in ["-1", "abc", "", "1.5", " 2"]:
    rc, out, err = waves("vlt.count", bad)
    check(rc == 2 and f"SEED '{bad}' is not a non-negative integer" in err, f"bad seed {bad!r}", out + err)
    check(len(err.strip().splitlines()) == 1, f"bad seed {bad!r}: one line", err)

rc, out, err = waves("", "1")
check(rc == 2 and "no TEST given" in err, "empty TEST", err)

rc, out, err = waves("vlt.count", "1", build_dir=build / "nowhere")
check(rc == 2 and "build first" in err, "missing build tree", err)

rc, out, err = waves("vlt.rtl_error", "1")
check(rc == 1, "a failing test still writes waves and exits 1", out + err)
check((build / "waves" / "vlt.rtl_error-seed1.fst").is_file(), "failing test FST", out)

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("waves.py: all checks passed")
