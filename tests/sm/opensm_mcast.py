"""Multicast trees side by side: ours (syncfab-route's mcfdbs) and the ones
OpenSM computes for the same groups once their members joined through its
SA, both read as port masks per switch and MLID, both recounted with the
same EFI code (directed switch-to-switch links; EFI of a link = the groups
whose tree uses it)."""

import re
from collections import defaultdict
from pathlib import Path

SWITCH = re.compile(r"^Switch\s+0x([0-9a-fA-F]+)")
MCF_ENTRY = re.compile(r"^0x([0-9a-fA-F]{4})\s*:\s*(.*)$")
IBROUTE_HDR = re.compile(r"^Multicast mlids .* of switch Lid \d+ guid 0x([0-9a-fA-F]+)")
IBROUTE_ENTRY = re.compile(r"^0x([0-9a-fA-F]{4})\s+((?:[0-9a-fA-F]{4}\s*)+)$")
NODE = re.compile(r'^(Switch|Ca|Hca)\s+(\d+)\s+"([^"]+)"\s*(?:#\s*"([^"]*)")?')
PORT = re.compile(r'^\[(\d+)\](?:\((?:0x)?([0-9a-fA-F]+)\))?\s+"([^"]+)"\[(\d+)\]')


class McastError(Exception):
    pass


class NetFabric:
    """What the comparison needs from fabric.net: switch GUIDs, which switch
    ports face switches, and each CA's names, port GUIDs and attachment."""

    def __init__(self, net: Path):
        self.switch_guid = {}     # node id -> guid
        self.switch_links = {}    # (guid, port) -> (peer guid, peer port)
        self.ca_ports = {}        # name (id or description) -> [(id, port guid, sw guid, sw port)]
        node, kind, desc = None, None, None
        pending = []
        for line in net.read_text().splitlines():
            m = NODE.match(line)
            if m:
                kind, node, desc = m.group(1), m.group(3), m.group(4)
                if kind == "Switch":
                    self.switch_guid[node] = int(node.split("-", 1)[1], 16)
                continue
            m = PORT.match(line)
            if m and node is not None:
                pending.append((kind, node, desc, int(m.group(1)), m.group(2), m.group(3),
                                int(m.group(4))))
        for kind, node, desc, port, pguid, peer, peer_port in pending:
            if kind == "Switch":
                if peer in self.switch_guid:
                    self.switch_links[(self.switch_guid[node], port)] = (self.switch_guid[peer],
                                                                         peer_port)
                continue
            if pguid is None or peer not in self.switch_guid:
                continue
            entry = (node, int(pguid, 16), self.switch_guid[peer], peer_port)
            for name in {node, desc} - {None}:
                self.ca_ports.setdefault(name, []).append(entry)

    def member(self, name: str):
        ports = self.ca_ports.get(name)
        if not ports:
            raise McastError(f"group member {name!r} is not a CA of fabric.net")
        return ports[0]


def read_groups(path: Path):
    """[(mlid, [member names])] in file order (groups.txt: MLID then names)."""
    groups = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        try:
            mlid = int(words[0], 16)
        except ValueError as e:
            raise McastError(f"{path}:{n}: first word {words[0]!r} is not an MLID") from e
        groups.append((mlid, [w.strip('"') for w in words[1:]]))
    return groups


def read_mcfdbs(path: Path):
    """{switch guid: {mlid: set(ports)}} from an opensm.mcfdbs-layout file."""
    mft, guid = defaultdict(dict), None
    for line in path.read_text().splitlines():
        m = SWITCH.match(line)
        if m:
            guid = int(m.group(1), 16)
            continue
        m = MCF_ENTRY.match(line.strip())
        if m and guid is not None:
            mft[guid][int(m.group(1), 16)] = {int(p, 16) for p in m.group(2).split()}
    return mft


def read_ibroute_mft(text: str):
    """(switch guid, {mlid: set(ports)}) from `ibroute -M -n LID` output: the
    mask words are 16 ports each, position block 0 first."""
    guid, entries = None, {}
    for line in text.splitlines():
        m = IBROUTE_HDR.match(line)
        if m:
            guid = int(m.group(1), 16)
            continue
        m = IBROUTE_ENTRY.match(line.strip())
        if m:
            ports = set()
            for block, word in enumerate(m.group(2).split()):
                mask = int(word, 16)
                ports |= {16 * block + b for b in range(16) if mask >> b & 1}
            entries[int(m.group(1), 16)] = ports
    if guid is None:
        raise McastError("ibroute -M printed no switch header:\n" + text[:500])
    return guid, entries


def check_tree(fabric: NetFabric, mft, mlid: int, members, who: str):
    """The MFT entries of mlid form one tree: every member's attachment port
    is in its switch's entry, every switch port towards a switch is matched
    by the peer's port back, and the switches are connected, acyclic."""
    nodes = {g for g, e in mft.items() if mlid in e}
    edges = set()
    for g in nodes:
        for p in mft[g][mlid]:
            peer = fabric.switch_links.get((g, p))
            if peer is None:
                continue
            pg, pp = peer
            if pp not in mft.get(pg, {}).get(mlid, set()):
                raise McastError(f"{who}: MLID 0x{mlid:04x} uses switch 0x{g:x} port {p} but not "
                                 f"the way back (switch 0x{pg:x} port {pp})")
            edges.add(frozenset((g, pg)))
    for name in members:
        _, _, sw, port = fabric.member(name)
        if port not in mft.get(sw, {}).get(mlid, set()):
            raise McastError(f"{who}: MLID 0x{mlid:04x} does not reach member {name} (switch "
                             f"0x{sw:x} port {port})")
    if nodes and len(edges) != len(nodes) - 1:
        raise McastError(f"{who}: MLID 0x{mlid:04x} has {len(nodes)} switches and {len(edges)} "
                         "switch links: not a tree")
    seen, todo = set(), [next(iter(nodes))] if nodes else []
    adj = defaultdict(set)
    for e in edges:
        a, b = tuple(e)
        adj[a].add(b)
        adj[b].add(a)
    while todo:
        g = todo.pop()
        if g not in seen:
            seen.add(g)
            todo.extend(adj[g] - seen)
    if seen != nodes:
        raise McastError(f"{who}: MLID 0x{mlid:04x} is not connected")


def efi(fabric: NetFabric, mft, mlids):
    """(max, mean over used links, used links) of the directed switch-to-switch
    links' EFI over the given MLIDs."""
    count = defaultdict(int)
    for g, entries in mft.items():
        for mlid in mlids:
            for p in entries.get(mlid, ()):
                if (g, p) in fabric.switch_links:
                    count[(g, p)] += 1
    if not count:
        return 0, 0.0, 0
    return max(count.values()), sum(count.values()) / len(count), len(count)
