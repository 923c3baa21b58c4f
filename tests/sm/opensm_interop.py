#!/usr/bin/env python3
"""A real subnet manager loads syncfab-route's unicast tables.

syncfab-route writes a fabric (fabric.net, ibnetdiscover layout) and its
tables (lfts.dump, OpenSM's opensm-lfts.dump layout). This check starts
ibsim on that fabric, gives OpenSM our LIDs (a guid2lid cache it is told to
honour), runs OpenSM once with its file routing engine on our lfts.dump
(`-R file -U lfts.dump`), reads every switch's table back from the
simulated switches with ibroute, and requires them equal to ours, entry by
entry (a LID OpenSM left unrouted or routed elsewhere is a failure naming
the switch, the LID and both ports).

Usage: opensm_interop.py --tool syncfab-route --workdir DIR -- <syncfab-route args>
(without --out: the folder is DIR/route). Needs opensm, ibsim and ibroute
(scripts/toolchain.txt; `make deps` installs them).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
HEADER = re.compile(r"^Unicast lids \[[0-9a-fA-Fx]+-[0-9a-fA-Fx]+\] of switch Lid (\d+) "
                    r"guid (0x[0-9a-fA-F]+)")
ENTRY = re.compile(r"^0x([0-9a-fA-F]{4}) (\d{3}) ")
PORTGUID = re.compile(r"portguid (0x[0-9a-fA-F]+)")


class InteropError(Exception):
    pass


def read_lfts(path: Path):
    """{switch guid: {lid: port}}, {switch guid: switch lid}, {port guid: lid}."""
    tables, switch_lid, owner = {}, {}, {}
    current = None
    with path.open() as f:
        for n, line in enumerate(f, 1):
            m = HEADER.match(line)
            if m:
                current = int(m.group(2), 16)
                if current in tables:
                    raise InteropError(f"{path}:{n}: switch guid {m.group(2)} dumped twice")
                tables[current] = {}
                switch_lid[current] = int(m.group(1))
                continue
            m = ENTRY.match(line)
            if m:
                if current is None:
                    raise InteropError(f"{path}:{n}: table entry before any switch header")
                lid, port = int(m.group(1), 16), int(m.group(2))
                tables[current][lid] = port
                g = PORTGUID.search(line)
                if g:
                    owner[int(g.group(1), 16)] = lid
    if not tables:
        raise InteropError(f"{path}: no switch table in it")
    for guid, lid in switch_lid.items():
        owner[guid] = lid
    return tables, switch_lid, owner


def plant_mismatch(dump: Path, tables, end_lids, to: Path):
    """A copy of dump with one entry of one switch moved to another port that
    the switch uses for some destination (so it is connected). The entry is
    an end node's that the management traffic does not need (the tables are
    read back over the fabric: a switch's LID or the reading CA's LID routed
    astray would cut that path)."""
    for guid in sorted(tables):
        ports = sorted({p for p in tables[guid].values() if p != 0})
        for lid, port in sorted(tables[guid].items()):
            others = [p for p in ports if p != port]
            if port != 0 and others and lid in end_lids:
                lines, current = [], None
                for line in dump.read_text().splitlines(keepends=True):
                    m = HEADER.match(line)
                    if m:
                        current = int(m.group(2), 16)
                    m = ENTRY.match(line)
                    if m and current == guid and int(m.group(1), 16) == lid:
                        line = f"0x{lid:04x} {others[0]:03d}" + line[len(m.group(0)) - 1:]
                    lines.append(line)
                to.write_text("".join(lines))
                return to, f"switch guid 0x{guid:016x} (lid "
    raise InteropError(f"{dump}: no entry that could be moved to another port")


def first_ca(net: Path):
    """The id of the first CA of fabric.net (OpenSM and ibroute run from its
    port) and its port GUIDs."""
    ca, guids = None, set()
    for line in net.read_text().splitlines():
        m = re.match(r'^(Ca|Hca|Switch)\s+\d+\s+"([^"]+)"', line)
        if m:
            if ca is not None:
                break
            if m.group(1) != "Switch":
                ca = m.group(2)
            continue
        m = re.match(r"^\[\d+\]\((?:0x)?([0-9a-fA-F]+)\)", line)
        if ca is not None and m:
            guids.add(int(m.group(1), 16))
    if ca is None:
        raise InteropError(f"{net}: no CA to run OpenSM from")
    return ca, guids


def run(cmd, env, timeout, what):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if r.returncode != 0:
        raise InteropError(f"{what} failed (exit {r.returncode}): {' '.join(map(str, cmd))}\n"
                           f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True, help="syncfab-route")
    ap.add_argument("--workdir", required=True, type=Path)
    ap.add_argument("--expect-mismatch", action="store_true",
                    help="self-check: hand OpenSM a dump with one entry moved to another "
                    "connected port and require that exactly that entry is reported")
    ap.add_argument("route_args", nargs="*", help="syncfab-route arguments (after --)")
    a = ap.parse_args()
    for exe in ("opensm", "ibsim", "ibroute"):
        if shutil.which(exe) is None:
            raise InteropError(f"{exe} is not installed (scripts/toolchain.txt; run `make deps`)")
    if not Path(UMAD2SIM).exists():
        raise InteropError(f"{UMAD2SIM} is missing (package ibsim-utils; run `make deps`)")

    work = a.workdir.resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    out = work / "route"
    run([a.tool, *a.route_args, "--out", str(out)], dict(os.environ), 600, "syncfab-route")
    tables, switch_lid, owner = read_lfts(out / "lfts.dump")
    loaded = out / "lfts.dump"
    planted = None
    sim_host, sim_guids = first_ca(out / "fabric.net")
    if a.expect_mismatch:
        end_lids = {lid for g, lid in owner.items() if g not in switch_lid and g not in sim_guids}
        loaded, planted = plant_mismatch(out / "lfts.dump", tables, end_lids,
                                         work / "lfts-planted.dump")

    cache = work / "cache"
    cache.mkdir()
    # OpenSM's guid2lid cache layout (osm_db): "guid min max", a blank line
    # after each record (without it only the first record is read).
    with (cache / "guid2lid").open("w") as f:
        for guid, lid in sorted(owner.items()):
            f.write(f"0x{guid:016x} 0x{lid:04x} 0x{lid:04x}\n\n")

    env = dict(os.environ)
    env.update(IBSIM_SOCKNAME=f"syncfab-ibsim-{os.getpid()}", OSM_CACHE_DIR=str(cache),
               OSM_TMP_DIR=str(work), SIM_HOST=sim_host)
    sim_log = (work / "ibsim.log").open("w")
    sim = subprocess.Popen(["ibsim", "-s", "-n", str(out / "fabric.net")], env=env,
                           stdout=sim_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while "ready" not in (work / "ibsim.log").read_text():
            if sim.poll() is not None or time.monotonic() > deadline:
                raise InteropError("ibsim did not start:\n" + (work / "ibsim.log").read_text()[-2000:])
            time.sleep(0.1)
        client = dict(env, LD_PRELOAD=UMAD2SIM)
        started = time.monotonic()
        run(["opensm", "--once", "--honor_guid2lid", "-R", "file", "-U", str(loaded),
             "-f", str(work / "opensm.log")], client, 600, "opensm")
        osm_s = time.monotonic() - started
        log = (work / "opensm.log").read_text()
        if "SUBNET UP" not in log:
            raise InteropError(f"OpenSM did not bring the subnet up; see {work / 'opensm.log'}")
        # Without this line OpenSM fell back to its default engine (a dump it
        # could not read), and equal tables would prove nothing.
        if "file tables configured on all switches" not in log:
            raise InteropError(f"OpenSM did not use its file engine; see {work / 'opensm.log'}")
        mismatches = []
        for guid, ours in tables.items():
            lid = switch_lid[guid]
            dump = run(["ibroute", str(lid)], client, 120, f"ibroute {lid}")
            got = {}
            for line in dump.splitlines():
                m = ENTRY.match(line)
                if m:
                    got[int(m.group(1), 16)] = int(m.group(2))
            for l in sorted(set(ours) | set(got)):
                if ours.get(l) != got.get(l):
                    mismatches.append(f"switch guid 0x{guid:016x} (lid {lid}) LID {l}: ours "
                                      f"{ours.get(l, 'unrouted')}, switch holds "
                                      f"{got.get(l, 'unrouted')}")
    finally:
        sim.terminate()
        sim.wait(timeout=10)
        sim_log.close()
    entries = sum(len(t) for t in tables.values())
    if planted is not None:
        if len(mismatches) == 1 and mismatches[0].startswith(planted):
            print(f"ok: the one entry planted in OpenSM's copy is the one reported: {mismatches[0]}")
            return 0
        print(f"FAIL: planted {planted}, reported {len(mismatches)}: {mismatches[:5]}")
        return 1
    if mismatches:
        print(f"FAIL: {len(mismatches)} of {entries} entries differ after OpenSM loaded lfts.dump:")
        for m in mismatches[:20]:
            print("  " + m)
        return 1
    print(f"ok: OpenSM 'file' engine loaded {entries} entries on {len(tables)} switches "
          f"({len(owner)} LIDs kept from guid2lid) in {osm_s:.1f} s; every switch read back "
          f"with ibroute equals lfts.dump")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (InteropError, subprocess.TimeoutExpired, OSError) as e:
        print(f"opensm_interop: {e}", file=sys.stderr)
        sys.exit(2)
