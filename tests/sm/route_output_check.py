#!/usr/bin/env python3
"""Independent check of a syncfab-route output folder.

Runs syncfab-route, then reads only what it wrote, with parsers of its own:
fabric.net (nodes, GUIDs, links), groups.txt, mcfdbs (OpenSM layout) and
lfts.dump. With networkx it checks, per MLID, that the MFT entries form one
tree over exactly the group's members (entries at both ends of every switch
link, only members' end nodes served, no loop, all members reached) whose
height equals the minimal height over all roots (DESIGN.md 5b); recounts the
EFI of every directed switch port from the dump and compares max, mean and
histogram with stats.json; and resolves every GUID of mcfdbs and lfts.dump to
a node of fabric.net under the name the dump prints. Exit 0 when all hold.
"""
import argparse
import collections
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import networkx as nx

GUID_LINE = re.compile(r"^(switchguid|caguid)=0x([0-9a-fA-F]+)")
HEADER = re.compile(r'^(Switch|Ca)\s+(\d+)\s+"([^"]+)"\s*#\s*"([^"]*)"')
PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([^"]+)"\[(\d+)\]')
MC_SWITCH = re.compile(r"^Switch 0x([0-9a-f]{16})$")
MC_ENTRY = re.compile(r"^0x([0-9A-F]{4}) :((?: 0x[0-9A-F]{3} )+)$")
LFT_HEADER = re.compile(r"^Unicast lids \[0-\d+\] of switch Lid \d+ guid 0x([0-9a-f]{16}) \('(.*)'\):$")
LFT_ENTRY = re.compile(r"^0x[0-9a-f]{4} \d{3} # (Switch|Channel Adapter) portguid 0x([0-9a-f]{16}): '(.*)'$")

errors = []


def fail(msg):
    errors.append(msg)
    if len(errors) <= 20:
        print("FAIL:", msg, file=sys.stderr)


def parse_net(path):
    """kinds: name -> 'S'|'H'; links: (name, port) -> (name, port); guids: guid -> name."""
    kinds, guids, id_to_name, pending = {}, {}, {}, []
    current, guid = None, None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            m = GUID_LINE.match(line)
            if m:
                guid = int(m.group(2), 16)
                continue
            m = HEADER.match(line)
            if m:
                kind, _, node_id, name = m.groups()
                current = name
                id_to_name[node_id] = name
                kinds[name] = "S" if kind == "Switch" else "H"
                if guid is None or guid in guids:
                    fail(f"fabric.net: node {name} without a fresh GUID line")
                guids[guid] = name
                guid = None
                continue
            m = PORT.match(line)
            if m:
                port, port_guid, peer_id, peer_port = m.groups()
                if port_guid and kinds[current] == "H":
                    guids.setdefault(int(port_guid, 16), current)
                pending.append((current, int(port), peer_id, int(peer_port)))
    links = {(n, p): (id_to_name[i], q) for n, p, i, q in pending}
    for (a, p), (b, q) in links.items():
        if links.get((b, q)) != (a, p):
            fail(f"fabric.net: asymmetric link {a}[{p}] -> {b}[{q}]")
    return kinds, links, guids


def parse_groups(path):
    groups = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            tok = shlex.split(line, comments=True)
            if tok:
                groups[int(tok[0], 16)] = set(tok[1:])
    return groups


def parse_mcfdbs(path, guids):
    """(switch name, mlid) -> sorted ports."""
    mft, sw = {}, None
    with open(path, encoding="ascii") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        m = MC_SWITCH.match(line)
        if m:
            g = int(m.group(1), 16)
            sw = guids.get(g)
            if sw is None:
                fail(f"mcfdbs:{i + 1}: switch GUID {g:#x} not in fabric.net")
            if lines[i - 1] != "" or lines[i + 1] != "LID    : Out Port(s)":
                fail(f"mcfdbs:{i + 1}: not OpenSM's switch header layout")
            continue
        m = MC_ENTRY.match(line)
        if m:
            ports = [int(p, 16) for p in re.findall(r"0x([0-9A-F]{3})", m.group(2))]
            mft[(sw, int(m.group(1), 16))] = ports
        elif line not in ("", "LID    : Out Port(s)"):
            fail(f"mcfdbs:{i + 1}: unexpected line {line!r}")
    return mft


def check_lfts(path, guids):
    n = 0
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = LFT_HEADER.match(line) or LFT_ENTRY.match(line)
            if m:
                g, name = int(m.groups()[-2], 16), m.groups()[-1]
                if guids.get(g) != name:
                    fail(f"lfts.dump:{i}: GUID {g:#x} is {guids.get(g)!r} in fabric.net, dump says {name!r}")
                n += 1
            elif not line.endswith(" lids dumped"):
                fail(f"lfts.dump:{i}: unexpected line {line!r}")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", help="syncfab-route to run")
    ap.add_argument("--workdir", help="where the tool writes (WORKDIR/out)")
    ap.add_argument("--check-only", metavar="DIR", help="check an existing output folder instead")
    ap.add_argument("tool_args", nargs=argparse.REMAINDER, help="-- then syncfab-route's arguments")
    args = ap.parse_args()
    if args.check_only:
        out = args.check_only
    else:
        if not args.tool or not args.workdir:
            ap.error("--tool and --workdir are needed unless --check-only")
        tool_args = [a for a in args.tool_args if a != "--"]
        out = os.path.join(args.workdir, "out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(args.workdir, exist_ok=True)
        cmd = [args.tool, *tool_args, "--out", out, "--quiet"]
        subprocess.run(cmd, check=True)
        print("ran:", " ".join(shlex.quote(c) for c in cmd))

    kinds, links, guids = parse_net(os.path.join(out, "fabric.net"))
    groups = parse_groups(os.path.join(out, "groups.txt"))
    mft = parse_mcfdbs(os.path.join(out, "mcfdbs"), guids)
    stats = json.load(open(os.path.join(out, "stats.json"), encoding="utf-8"))

    switches = [n for n, k in kinds.items() if k == "S"]
    sw_graph = nx.Graph()
    sw_graph.add_nodes_from(switches)
    sw_graph.add_edges_from((a, b) for (a, _), (b, _) in links.items() if kinds[a] == kinds[b] == "S")
    dist = dict(nx.all_pairs_shortest_path_length(sw_graph))
    attach = {a: b for (a, _), (b, _) in links.items() if kinds[a] == "H" and kinds[b] == "S"}

    by_mlid = collections.defaultdict(dict)
    for (sw, mlid), ports in mft.items():
        by_mlid[mlid][sw] = ports
    if set(by_mlid) - set(groups):
        fail(f"mcfdbs has MLIDs without a group: {sorted(set(by_mlid) - set(groups))}")

    efi = collections.Counter()
    heights = []
    for mlid, members in groups.items():
        tree = nx.Graph()
        served = set()
        for sw, ports in by_mlid.get(mlid, {}).items():
            tree.add_node(sw)
            for p in ports:
                efi[(sw, p)] += 1
                peer = links.get((sw, p))
                if peer is None:
                    fail(f"MLID {mlid:#x}: {sw} port {p} is not connected")
                    continue
                b, q = peer
                if kinds[b] == "H":
                    served.add(b)
                    tree.add_edge(sw, b)
                elif q not in by_mlid[mlid].get(b, []):
                    fail(f"MLID {mlid:#x}: {sw}[{p}] -> {b}[{q}] has no entry at the far end")
                else:
                    tree.add_edge(sw, b)
        if served != members:
            fail(f"MLID {mlid:#x}: serves {sorted(served)} but the members are {sorted(members)}")
        member_sw = {attach[m] for m in members}
        if tree.number_of_nodes() == 0:
            tree.add_nodes_from(member_sw)  # all members on one switch with... no entries
        if not nx.is_tree(tree):
            fail(f"MLID {mlid:#x}: the entries do not form a tree")
            continue
        # Minimal height over all roots in the fabric; the tree's own best root.
        minimal = min(max(dist[r][s] for s in member_sw) for r in switches)
        tree_sw = [n for n in tree if kinds[n] == "S"]
        tree_dist = {r: nx.single_source_shortest_path_length(tree, r) for r in tree_sw}
        height = min(max(tree_dist[r][s] for s in member_sw) for r in tree_sw)
        if height != minimal:
            fail(f"MLID {mlid:#x}: height {height}, minimal {minimal}")
        heights.append(height)

    # EFI recounted from the dump against stats.json.
    got = stats["multicast"]["efi"]
    sw_efi = [v for (sw, p), v in efi.items() if kinds[links[(sw, p)][0]] == "S"]
    all_efi = list(efi.values())
    want = {
        "max_switch_links": max(sw_efi, default=0),
        "max_all_links": max(all_efi, default=0),
        "used_switch_links": len(sw_efi),
        "used_all_links": len(all_efi),
    }
    for k, v in want.items():
        if got[k] != v:
            fail(f"stats.json {k} = {got[k]}, recounted from mcfdbs: {v}")
    for k, vals in (("mean_switch_links", sw_efi), ("mean_all_links", all_efi)):
        mean = sum(vals) / len(vals) if vals else 0
        if abs(got[k] - mean) > 1e-9:
            fail(f"stats.json {k} = {got[k]}, recounted: {mean}")
    hist = collections.Counter(all_efi)
    for k in range(1, len(got["histogram_all_links"])):
        if got["histogram_all_links"][k] != hist.get(k, 0):
            fail(f"stats.json EFI histogram[{k}] = {got['histogram_all_links'][k]}, recounted {hist.get(k, 0)}")
    th = stats["multicast"]["tree_height"]
    if heights and (th["max"] != max(heights) or th["min"] != min(heights)):
        fail(f"stats.json tree heights {th['min']}..{th['max']}, recounted {min(heights)}..{max(heights)}")
    if stats["groups"]["count"] != len(groups):
        fail(f"stats.json groups {stats['groups']['count']}, groups.txt has {len(groups)}")

    lfts = os.path.join(out, "lfts.dump")
    resolved = check_lfts(lfts, guids) if os.path.exists(lfts) else 0
    print(f"{len(groups)} groups, {len(mft)} MFT rows, max EFI {want['max_switch_links']}/"
          f"{want['max_all_links']}, {resolved} lfts.dump GUIDs resolved: "
          f"{'OK' if not errors else f'{len(errors)} FAILURES'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
