#!/usr/bin/env python3
"""Independent check of the subnet manager's min-hop data.

Generates a fabric with sm_fabric_tool, parses the net file here (own parser),
builds the graph with networkx and compares, for every switch, the switch
distance row and the hops to every destination through every port (OpenSM's
min-hop table: via port p = 1 + hops from the peer; column 0 = best port)
with what sm_fabric_tool reports. Exit 0 when all agree.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import networkx as nx

HEADER = re.compile(r'^(Switch|Ca|Hca)\s+(\d+)\s+"([^"]+)"\s*(?:#\s*"([^"]*)")?')
PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([^"]+)"\[(\d+)\]')


def parse_net(path):
    """Return (kinds: name -> 'S'|'H', links: {(name, port): (name, port)})."""
    kinds, links, id_to_name, pending = {}, {}, {}, []
    current = None
    with open(path, encoding="ascii") as f:
        for line in f:
            line = line.strip()
            m = HEADER.match(line)
            if m:
                kind, _, node_id, desc = m.groups()
                current = desc or node_id
                id_to_name[node_id] = current
                kinds[current] = "S" if kind == "Switch" else "H"
                continue
            m = PORT.match(line)
            if m:
                pending.append((current, int(m.group(1)), m.group(2), int(m.group(3))))
    for name, port, peer_id, peer_port in pending:
        links[(name, port)] = (id_to_name[peer_id], peer_port)
    for (a, p), (b, q) in links.items():
        assert links[(b, q)] == (a, p), f"asymmetric link {a}[{p}] {b}[{q}]"
    return kinds, links


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    net = os.path.join(args.workdir, re.sub(r"[^A-Za-z0-9]", "_", args.spec) + ".net")
    subprocess.run([args.tool, "generate", args.spec, net], check=True)
    got = json.loads(subprocess.run([args.tool, "minhop", net], check=True,
                                    capture_output=True, text=True).stdout)

    kinds, links = parse_net(net)
    full = nx.Graph()
    full.add_nodes_from(kinds)
    full.add_edges_from((a, b) for (a, _), (b, _) in links.items())
    switches = [n for n, k in kinds.items() if k == "S"]
    # End nodes do not forward: distances between switches use switches only.
    sw_graph = full.subgraph(switches)
    sw_dist = dict(nx.all_pairs_shortest_path_length(sw_graph))
    # Hops from a switch to an end node: to the node's switch, plus one.
    def hops_from(u, dest):
        if u == dest:
            return 0
        if kinds[u] == "H":
            return None
        if kinds[dest] == "S":
            return sw_dist[u].get(dest)
        best = None
        for (a, _), (b, _) in links.items():
            if a == dest and kinds[b] == "S" and dest in full[b]:
                d = sw_dist[u].get(b)
                if d is not None and (best is None or d + 1 < best):
                    best = d + 1
        return best

    errors = 0
    if got["switches"] != switches:
        print("switch order differs", file=sys.stderr)
        return 1
    for i, a in enumerate(switches):
        for j, b in enumerate(switches):
            want = sw_dist[a].get(b, 255)
            if got["dist"][i][j] != want:
                errors += 1
                if errors < 10:
                    print(f"dist {a} -> {b}: got {got['dist'][i][j]}, want {want}", file=sys.stderr)
    dests = list(kinds)
    cache = {}
    checked = 0
    for s in switches:
        ports = sorted(p for (n, p) in links if n == s)
        table = got["hops"].get(s, {})
        for d in dests:
            want0 = hops_from(s, d)
            per_port = {}
            for p in ports:
                peer, _ = links[(s, p)]
                if (peer, d) not in cache:
                    cache[(peer, d)] = hops_from(peer, d)
                h = cache[(peer, d)]
                per_port[p] = None if h is None else h + 1
            for p, want in [(0, want0)] + list(per_port.items()):
                have = table.get(str(p), {}).get(d)
                checked += 1
                if have != want:
                    errors += 1
                    if errors < 10:
                        print(f"hops {s} port {p} -> {d}: got {have}, want {want}", file=sys.stderr)
    print(f"{args.spec}: {len(switches)} switches, {len(dests)} destinations, "
          f"{checked} table entries, {errors} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
