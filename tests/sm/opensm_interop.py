#!/usr/bin/env python3
"""A real subnet manager loads syncfab-route's unicast tables.

syncfab-route writes a fabric (fabric.net, ibnetdiscover layout), its
tables (lfts.dump, OpenSM's opensm-lfts.dump layout) and their LIDs
(guid2lid, OpenSM's cache layout). This check starts ibsim on that fabric,
runs OpenSM on it with our guid2lid honoured and its file routing engine on
our lfts.dump (`-R file -U lfts.dump`), reads every switch's table back
from the simulated switches with ibroute, and requires them equal to ours,
entry by entry (a LID OpenSM left unrouted or routed elsewhere is a failure
naming the switch, the LID and both ports). --multicast then compares
multicast trees (opensm_mcast.py).

Usage: opensm_interop.py --tool syncfab-route --workdir DIR [--multicast]
       [--expect-mismatch] -- <syncfab-route args, without --out>
(the folder is DIR/route). Needs opensm, ibsim and ibroute
(scripts/toolchain.txt; `make deps` installs them).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import opensm_mcast as mc

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


class Daemon:
    """A background process (ibsim, OpenSM) that is up once `ready` shows in
    its log, and is stopped however the check ends."""

    def __init__(self, cmd, env, out: Path, ready: str, what: str, log: Path = None):
        self.cmd, self.env, self.out, self.ready, self.what = cmd, env, out, ready, what
        self.log = log or out
        self.proc, self.started_s = None, 0.0

    def __enter__(self):
        started = time.monotonic()
        with self.out.open("w") as f:
            self.proc = subprocess.Popen(self.cmd, env=self.env, stdout=f,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = started + 120
        while not (self.log.exists() and self.ready in self.log.read_text()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                text = self.log.read_text()[-2000:] if self.log.exists() else ""
                raise InteropError(f"{self.what} did not come up ({' '.join(self.cmd)}):\n{text}")
            time.sleep(0.1)
        self.started_s = time.monotonic() - started
        return self

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return False


def compare_lfts(tables, switch_lid, client):
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
    return mismatches


def compare_multicast(out: Path, switch_lid, env, sm_lid):
    """Members join our groups through OpenSM's SA; OpenSM's trees, read back
    from the switches, and ours are checked as trees and their EFI compared.
    Ours must not be worse (max EFI over switch links)."""
    fabric = mc.NetFabric(out / "fabric.net")
    groups = mc.read_groups(out / "groups.txt")
    by_node = {}
    for i, (_, members) in enumerate(groups):
        mgid = f"ff12601bffff0000000000{i + 1:010x}"
        for name in members:
            node, pguid, _, _ = fabric.member(name)
            by_node.setdefault((node, pguid), []).append(mgid)
    osm_mlid = {}
    join = Path(__file__).resolve().parents[2] / "scripts" / "sm" / "sa_join.py"
    started = time.monotonic()
    for (node, pguid), mgids in sorted(by_node.items()):
        answer = run([sys.executable, str(join), "--sm-lid", str(sm_lid), "--port-guid",
                      f"0x{pguid:x}", *mgids], dict(env, SIM_HOST=node, LD_PRELOAD=UMAD2SIM), 60,
                     f"the joins of {node}")
        for line in answer.split("\n"):
            if line.strip():
                mgid, mlid = line.split()
                if osm_mlid.setdefault(mgid, int(mlid, 16)) != int(mlid, 16):
                    raise InteropError(f"OpenSM gave MGID {mgid} two MLIDs")
    join_s = time.monotonic() - started
    client = dict(env, LD_PRELOAD=UMAD2SIM)
    # OpenSM routes a group after its joins; read until two reads agree.
    previous = None
    for _ in range(50):
        theirs = {}
        for guid, lid in switch_lid.items():
            g, entries = mc.read_ibroute_mft(run(["ibroute", "-M", "-n", str(lid)], client, 120,
                                                 f"ibroute -M {lid}"))
            theirs[g] = entries
        if theirs == previous:
            break
        previous = theirs
        time.sleep(0.5)
    ours = mc.read_mcfdbs(out / "mcfdbs")
    ours_mlids, theirs_mlids = [], []
    for i, (mlid, members) in enumerate(groups):
        mgid = f"ff12601bffff0000000000{i + 1:010x}"
        if mgid not in osm_mlid:
            raise InteropError(f"group {i} (MLID 0x{mlid:04x}) got no MLID from OpenSM")
        mc.check_tree(fabric, ours, mlid, members, "syncfab-route")
        mc.check_tree(fabric, theirs, osm_mlid[mgid], members, "OpenSM")
        ours_mlids.append(mlid)
        theirs_mlids.append(osm_mlid[mgid])
    o_max, o_mean, o_used = mc.efi(fabric, ours, ours_mlids)
    t_max, t_mean, t_used = mc.efi(fabric, theirs, theirs_mlids)
    stats = json.loads((out / "stats.json").read_text())
    algo = stats["multicast"]["algorithm"]
    if o_max != stats["multicast"]["efi"]["max_switch_links"]:
        raise InteropError(f"our max EFI recounted from mcfdbs is {o_max}, stats.json says "
                           f"{stats['multicast']['efi']['max_switch_links']}")
    report = (f"multicast: {len(groups)} groups, {sum(len(m) for _, m in groups)} joins through "
              f"OpenSM's SA in {join_s:.1f} s; every tree of both checked\n"
              f"  max EFI (switch links): {algo} {o_max}, OpenSM {t_max}\n"
              f"  mean EFI over used links: {algo} {o_mean:.2f} ({o_used} links), "
              f"OpenSM {t_mean:.2f} ({t_used} links)")
    if o_max > t_max:
        raise InteropError(f"{algo}'s trees are worse than OpenSM's: max EFI {o_max} > {t_max}\n"
                           + report)
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True, help="syncfab-route")
    ap.add_argument("--workdir", required=True, type=Path)
    ap.add_argument("--expect-mismatch", action="store_true",
                    help="self-check: hand OpenSM a dump with one entry moved to another "
                    "connected port and require that exactly that entry is reported")
    ap.add_argument("--multicast", action="store_true",
                    help="also join every group's members through OpenSM's SA and compare "
                    "OpenSM's trees with ours (EFI; ours must not be worse)")
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
    # syncfab-route's guid2lid is OpenSM's LID cache: with --honor_guid2lid
    # OpenSM gives every port the LID lfts.dump was computed for.
    shutil.copy(out / "guid2lid", cache / "guid2lid")

    env = dict(os.environ)
    env.update(IBSIM_SOCKNAME=f"syncfab-ibsim-{os.getpid()}", OSM_CACHE_DIR=str(cache),
               OSM_TMP_DIR=str(work), SIM_HOST=sim_host)
    client = dict(env, LD_PRELOAD=UMAD2SIM)
    mc_report = ""
    with Daemon(["ibsim", "-s", "-n", str(out / "fabric.net")], env, work / "ibsim.log",
                "ready", "ibsim"), \
         Daemon(["opensm", "--honor_guid2lid", "-R", "file", "-U", str(loaded), "-s", "0",
                 "-d2", "-f", str(work / "opensm.log")], client, work / "opensm.out",
                "SUBNET UP", "OpenSM", log=work / "opensm.log") as osm:
        osm_s = osm.started_s
        # Without this line OpenSM fell back to its default engine (a dump it
        # could not read), and equal tables would prove nothing.
        if "file tables configured on all switches" not in (work / "opensm.log").read_text():
            raise InteropError(f"OpenSM did not use its file engine; see {work / 'opensm.log'}")
        mismatches = compare_lfts(tables, switch_lid, client)
        if a.multicast and not mismatches:
            sm_lid = next(owner[g] for g in sorted(sim_guids) if g in owner)
            mc_report = compare_multicast(out, switch_lid, env, sm_lid)
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
          f"({len(owner)} LIDs kept from guid2lid), subnet up in {osm_s:.1f} s; every switch "
          f"read back with ibroute equals lfts.dump")
    if a.multicast:
        print(mc_report)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (InteropError, mc.McastError, subprocess.TimeoutExpired, OSError) as e:
        print(f"opensm_interop: {e}", file=sys.stderr)
        sys.exit(2)
