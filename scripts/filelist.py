#!/usr/bin/env python3
"""Reads a syncfab .f file list: the one parser of .f files and of the build's
Verilator flags.

CMake (scripts/cmake/SyncfabVerilator.cmake, at configure time), the cocotb
runner and scripts/lint.sh all read file lists through it, so they see
exactly the same sources for a top. The rules:

* one entry per line; `//` or `#` starts a comment (anywhere on the line);
  surrounding blanks are ignored;
* `${SYNCFAB_GEN}` stands for the build tree's generated/ folder;
* `+incdir+<dir>` adds an include folder;
* `-F <other.f>` (at least one blank after -F) reads another list in place;
* anything else is a source file;
* relative paths are relative to the folder of the .f that names them;
* a listed source must exist, unless it lies under the generated folder
  (generated sources may not be built yet);
* sources and include folders keep list order, first occurrence wins.

As a command:  filelist.py [--gen DIR] [--format verilator|sources|cmake] LIST.f
prints one argument per line: `+incdir+<dir>` lines then the sources
(verilator), or only the sources; `cmake` prints three CMake lists, one per
line: the sources, the include folders and every .f file read.
`filelist.py --flags [--format cmake]` prints the build's Verilator flags.
"""

from __future__ import annotations

import argparse
import shlex
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

GEN_VAR = "${SYNCFAB_GEN}"
_COMMENT = re.compile(r"(//|#).*$")
_INCDIR = re.compile(r"^\+incdir\+(.+)$")
_NESTED = re.compile(r"^-F[ \t]+(.+)$")


class FileListError(Exception):
    """A file list is missing, malformed or names a missing source."""


@dataclass
class FileList:
    sources: list[Path] = field(default_factory=list)
    incdirs: list[Path] = field(default_factory=list)
    lists: list[Path] = field(default_factory=list)  # every .f read, this one first

    def verilator_args(self) -> list[str]:
        return [f"+incdir+{d}" for d in self.incdirs] + [str(s) for s in self.sources]


def _absolute(entry: str, base: Path) -> Path:
    # Like CMake's get_filename_component(ABSOLUTE): joins and collapses `..`
    # without resolving symlinks.
    return Path(os.path.normpath(base / entry))


def _append_unique(items: list[Path], new: list[Path]) -> None:
    for item in new:
        if item not in items:
            items.append(item)


def _read(path: Path, gen_dir: Path | None, stack: tuple[Path, ...]) -> FileList:
    if path in stack:
        chain = " -> ".join(str(p) for p in (*stack, path))
        raise FileListError(f"file list cycle: {chain}")
    if not path.is_file():
        where = f" (named by {stack[-1]})" if stack else ""
        raise FileListError(f"file list {path} does not exist{where}")

    result = FileList(lists=[path])
    base = path.parent
    for lineno, raw in enumerate(path.read_text().splitlines(), start=1):
        line = _COMMENT.sub("", raw).strip()
        if GEN_VAR in line:
            if gen_dir is None:
                raise FileListError(
                    f"{path}:{lineno}: uses {GEN_VAR} but no generated folder was given "
                    "(pass gen_dir / --gen <build>/generated)")
            line = line.replace(GEN_VAR, str(gen_dir))
        if not line:
            continue
        if m := _INCDIR.match(line):
            _append_unique(result.incdirs, [_absolute(m.group(1), base)])
        elif m := _NESTED.match(line):
            sub = _read(_absolute(m.group(1).strip(), base), gen_dir, (*stack, path))
            _append_unique(result.sources, sub.sources)
            _append_unique(result.incdirs, sub.incdirs)
            _append_unique(result.lists, sub.lists)
        else:
            src = _absolute(line, base)
            generated = gen_dir is not None and src.is_relative_to(gen_dir)
            if not src.exists() and not generated:
                raise FileListError(f"{path}:{lineno}: lists {line}, which does not exist")
            _append_unique(result.sources, [src])
    return result


def read_filelist(path: str | os.PathLike[str], gen_dir: str | os.PathLike[str] | None = None) -> FileList:
    """Parses `path` (and the lists it includes) into absolute sources and include folders."""
    gen = Path(os.path.normpath(Path(gen_dir).absolute())) if gen_dir is not None else None
    return _read(Path(os.path.normpath(Path(path).absolute())), gen, ())


FLAGS_FILE = Path(__file__).resolve().parent.parent / "rtl" / "verilator_flags.f"


def verilator_flags() -> list[str]:
    """The build's Verilator flags (rtl/verilator_flags.f), as CMake reads them."""
    flags: list[str] = []
    for raw in FLAGS_FILE.read_text().splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-"):
            flags += shlex.split(line)
        else:
            flags.append(str(FLAGS_FILE.parent / line))
    if "-Wall" not in flags or "--assert" not in flags:
        raise FileListError(f"{FLAGS_FILE}: the build flags must include -Wall and --assert")
    return flags


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("filelist", nargs="?", help="the .f file")
    parser.add_argument("--flags", action="store_true",
                        help="print the build's Verilator flags (rtl/verilator_flags.f), one per line")
    parser.add_argument("--gen", help="the build tree's generated/ folder (for ${SYNCFAB_GEN})")
    parser.add_argument("--format", choices=("verilator", "sources", "cmake"), default="verilator")
    args = parser.parse_args(argv)
    if args.flags:
        try:
            flags = verilator_flags()
        except FileListError as err:
            print(f"filelist.py: {err}", file=sys.stderr)
            return 1
        print(_cmake_list(flags) if args.format == "cmake" else "\n".join(flags))
        return 0
    if not args.filelist:
        parser.error("a .f file (or --flags) is required")
    try:
        fl = read_filelist(args.filelist, args.gen)
        if args.format == "cmake":
            print("\n".join(_cmake_list(map(str, items)) for items in (fl.sources, fl.incdirs, fl.lists)))
            return 0
    except FileListError as err:
        print(f"filelist.py: {err}", file=sys.stderr)
        return 1
    lines = fl.verilator_args() if args.format == "verilator" else [str(s) for s in fl.sources]
    print("\n".join(lines))
    return 0


def _cmake_list(items) -> str:
    items = list(items)
    for item in items:
        if ";" in item or "\n" in item:
            raise FileListError(f"{item!r} cannot be passed to CMake (contains ';' or a newline)")
    return ";".join(items)


if __name__ == "__main__":
    sys.exit(main())
