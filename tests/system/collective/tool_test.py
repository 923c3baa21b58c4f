#!/usr/bin/env python3
"""syncfab-collective: a small run prints its rows, a concurrent one its
barriers per cycle, a torus runs both comb schemes (tree and ring), and bad
input (an unknown kind, p larger than the fabric, an empty member set, a p
that is no number, ring mode off a torus) exits nonzero with a message naming
the value."""

from __future__ import annotations

import argparse
import subprocess
import sys


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    tool = ap.parse_args().tool
    failures = []

    ok = run(tool, "--fabric", "fattree:ports=8,levels=2", "--p", "all,8", "--kinds",
             "comb,mcast,diss1,sw1")
    if ok.returncode != 0 or ok.stdout.count("fattree:ports=8,levels=2 ") < 8:
        failures.append(f"good run: status {ok.returncode}\n{ok.stdout}{ok.stderr}")

    conc = run(tool, "--fabric", "fattree:ports=8,levels=2", "--p", "8", "--kinds", "comb,diss2",
               "--groups", "3", "--barriers", "4")
    if conc.returncode != 0 or conc.stdout.count("12 barriers in") != 2:
        failures.append(f"concurrent run: status {conc.returncode}\n{conc.stdout}{conc.stderr}")

    torus = run(tool, "--fabric", "torus:x=4,y=3,z=1,nodes=2", "--p", "5,all", "--kinds",
                "comb,ring")
    if torus.returncode != 0 or torus.stdout.count(" ring ") != 2:
        failures.append(f"torus run: status {torus.returncode}\n{torus.stdout}{torus.stderr}")

    bad = [
        (["--kinds", "comb,bogus"], "'bogus'"),
        (["--p", "33"], "p = 33"),
        (["--p", "0"], "p = 0"),
        (["--p", "many"], "'many'"),
        (["--timing", "fast"], "'fast'"),
        (["--mc", "NO-SUCH-MC", "--kinds", "comb", "--p", "8"], "NO-SUCH-MC"),
        (["--kinds", "ring", "--p", "8"], "ring mode needs a torus"),
    ]
    for args, want in bad:
        r = run(tool, "--fabric", "fattree:ports=8,levels=2", *args)
        if r.returncode == 0 or want not in r.stderr:
            failures.append(f"{' '.join(args)}: status {r.returncode}, stderr {r.stderr!r}, "
                            f"wanted {want!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(bad) + 3 - len(failures)} of {len(bad) + 3} cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
