#!/usr/bin/env python3
"""Checks that the golden model stands on its own.

The model is an independent reading of the spec: if it linked the driver or
included a driver header, a driver bug could hide in both. Run as a ctest (see
scripts/cmake/SyncfabModelDeps.cmake), on two files CMake writes:

  targets.txt       target<TAB>name<TAB>type<TAB>source dir
                    link<TAB>name<TAB>link item as written (may be a genex)
  include_dirs.txt  include<TAB>name<TAB>dir;dir;...   (compile include path)
                    offers<TAB>name<TAB>dir;dir;...    (interface include dirs)

Rules, for every target whose source folder is under a --check-dir:
  1. every project target in its link closure is a checked target or --allow;
  2. every #include of every C/C++ file under the check dirs (and of the
     generated headers they reach) resolves to a file under a check dir, the
     build tree or outside the project, never to another source folder such
     as sw-driver/barrier; an include that is not on the path at all but
     names a header another project target offers is reported too.
Exit status 1 with one line per violation, naming the chain or the file.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
from pathlib import Path

CXX_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".ipp", ".inc"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
# A target name inside a link item: "name", "$<LINK_ONLY:name>",
# "name::@(0x1234)" (CMake's marker for a link made from another folder).
NAME_RE = re.compile(r"[A-Za-z0-9_.+\-]+(?:::[A-Za-z0-9_.+\-]+)*")


class Target:
    def __init__(self, name: str, kind: str, source_dir: Path):
        self.name = name
        self.kind = kind
        self.source_dir = source_dir
        self.links: list[str] = []
        self.include_dirs: list[Path] = []
        self.offers: list[Path] = []


def read_targets(path: Path) -> dict[str, Target]:
    targets: dict[str, Target] = {}
    links: list[tuple[str, str]] = []
    for line in path.read_text().splitlines():
        if not line:
            continue
        tag, name, *rest = line.split("\t")
        if tag == "target":
            targets[name] = Target(name, rest[0], Path(rest[1]))
        elif tag == "link":
            links.append((name, rest[0]))
    for name, item in links:
        item = re.sub(r"::@(\([^)]*\))?", "", item)
        for token in NAME_RE.findall(item):
            if token in targets and token != name:
                targets[name].links.append(token)
    return targets


def read_include_dirs(path: Path, targets: dict[str, Target]) -> None:
    for line in path.read_text().splitlines():
        if not line:
            continue
        tag, name, dirs = (line.split("\t") + [""])[:3]
        paths = [Path(d) for d in dirs.split(";") if d]
        if name not in targets:
            continue
        if tag == "include":
            targets[name].include_dirs = paths
        elif tag == "offers":
            targets[name].offers = paths


def under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def rel(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def link_violations(
    targets: dict[str, Target], checked: set[str], allowed: set[str], src: Path
) -> list[str]:
    out = []
    for name in sorted(checked):
        # Breadth first, so the chain reported is a shortest one.
        parent: dict[str, str | None] = {name: None}
        queue = collections.deque([name])
        while queue:
            cur = queue.popleft()
            for dep in targets[cur].links:
                if dep in parent:
                    continue
                parent[dep] = cur
                if dep in checked or dep in allowed:
                    queue.append(dep)
                    continue
                chain = [dep]
                while parent[chain[-1]] is not None:
                    chain.append(parent[chain[-1]])
                out.append(
                    f"{name} ({rel(targets[name].source_dir, src)}) links {dep} "
                    f"({rel(targets[dep].source_dir, src)}): "
                    + " -> ".join(reversed(chain))
                )
    return out


def include_violations(
    targets: dict[str, Target],
    checked: set[str],
    allowed: set[str],
    check_dirs: list[Path],
    src: Path,
    build: Path,
) -> tuple[list[str], int]:
    search: list[Path] = []
    for name in sorted(checked):
        for d in targets[name].include_dirs:
            if d not in search:
                search.append(d)
    # Headers of targets the model may not use, for includes that are not on
    # its path (the compiler would fail too, but this names the culprit).
    foreign: list[Path] = []
    for t in targets.values():
        if t.name not in checked and t.name not in allowed:
            foreign += [d for d in t.offers if d not in foreign]

    def allowed_file(path: Path) -> bool:
        if any(under(path, d) for d in check_dirs):
            return True
        if under(path, build):
            return True  # generated formats and register headers
        return not under(path, src)  # system and third-party headers

    out = []
    todo = [
        Path(root) / f
        for d in check_dirs
        for root, _, files in os.walk(d)
        for f in sorted(files)
        if Path(f).suffix in CXX_SUFFIXES
    ]
    seen = set(todo)
    scanned = 0
    while todo:
        path = todo.pop()
        scanned += 1
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for kind, inc in INCLUDE_RE.findall(text):
            dirs = ([path.parent] if kind == '"' else []) + search
            hit = next((d / inc for d in dirs if (d / inc).is_file()), None)
            where = rel(path, src)
            if hit is None:
                other = next((d / inc for d in foreign if (d / inc).is_file()), None)
                if other is not None and not allowed_file(other):
                    out.append(f"{where} includes {inc} = {rel(other, src)} (not on its path)")
                continue
            if not allowed_file(hit):
                out.append(f"{where} includes {inc} = {rel(hit, src)}")
            elif hit not in seen and under(hit, build):
                seen.add(hit)
                todo.append(hit)
    return out, scanned


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=Path, required=True)
    ap.add_argument("--include-dirs", type=Path, required=True)
    ap.add_argument("--source-dir", type=Path, required=True)
    ap.add_argument("--binary-dir", type=Path, required=True)
    ap.add_argument("--check-dir", action="append", default=[], required=True)
    ap.add_argument("--allow", action="append", default=[])
    a = ap.parse_args(argv)

    for f in (a.targets, a.include_dirs):
        if not f.is_file():
            print(f"check_model_deps: {f} is missing (re-run CMake)", file=sys.stderr)
            return 2
    src = a.source_dir.resolve()
    check_dirs = [src / d for d in a.check_dir]
    targets = read_targets(a.targets)
    read_include_dirs(a.include_dirs, targets)
    checked = {
        n for n, t in targets.items() if any(under(t.source_dir, d) for d in check_dirs)
    }
    allowed = set(a.allow)
    unknown = sorted(allowed - targets.keys())
    if unknown:
        print(f"check_model_deps: --allow names no target: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if not checked:
        print("check_model_deps: no target under " + ", ".join(a.check_dir), file=sys.stderr)
        return 2

    bad = link_violations(targets, checked, allowed, src)
    inc_bad, scanned = include_violations(
        targets, checked, allowed, check_dirs, src, a.binary_dir.resolve()
    )
    bad += inc_bad
    dirs = ", ".join(d + "/" for d in a.check_dir)
    if bad:
        print(
            f"The golden model must link only itself and {', '.join(sorted(allowed))}, "
            f"and include only headers from {dirs} and generated ones:",
            file=sys.stderr,
        )
        for line in bad:
            print("  " + line, file=sys.stderr)
        return 1
    print(
        f"{len(checked)} targets under {dirs} ({', '.join(sorted(checked))}) link only "
        f"each other and {', '.join(sorted(allowed))}; {scanned} files include nothing else"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
