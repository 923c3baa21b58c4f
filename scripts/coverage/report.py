#!/usr/bin/env python3
"""The coverage report of `make coverage` (docs/coverage.md).

Reads a Verilator coverage database (the merged.dat that
`verilator_coverage --write` made from every test run's file), applies the
waivers of rtl/coverage/waivers.txt and writes:

* line % and toggle % per top (nic_top, switch_top, ...) and per module of
  each top, before and after waivers;
* every functional point (SV cover property, SF_COVER) with its hit count,
  and the ones never hit;

as Markdown (--md) and JSON (--json), and prints the Markdown. The exit
status is 1 when a functional point is never hit (and not waived), when a
member of an enum that must have a point (ENUM_POINTS) has none, or when a
waiver is malformed, has no reason or matches nothing; 0 otherwise. The line
and toggle targets are reported, not enforced.

How points are counted. Verilator's line coverage has one point per
statement block and per branch arm (page v_line / v_branch, the lines it
spans in key S); toggle coverage one point per signal bit (v_toggle); user
coverage one point per cover property (v_user). A point is covered when its
count is above 0. Points are grouped by the instance path without the
harness's name for the model (`dut.nic_top.se` is `nic_top.se`, the same
for every test that makes a nic_top), so a model's runs add up whatever the
tests call it; the top is the first element of that path. Functional points
also sum the elements of generate loops (`gen_port[3]` is `gen_port[*]`):
a cover point of the egress is hit when any port hits it, while two
instances of one module under different names (SE's and TE's DAMQ) stay two
points.

    report.py MERGED.dat [--waivers FILE] [--spec formats.toml] [--md OUT.md]
              [--json OUT.json] [--tops nic_top,switch_top]
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import re
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Enums of rtl/spec/formats.toml whose every member must have a functional
# point of this name (member lower-cased) in that top: a member added to the
# spec without its cover point (rtl/coverage/) fails the report.
# Checked for a top only when the data holds that top.
ENUM_POINTS = {
    "err_code": ("nic_top", "c_cq_err_{}"),
    "cq_status": ("nic_top", "c_cq_status_{}"),
    "sw_counter": ("switch_top", "c_cnt_{}"),
    "wd_state": ("switch_top", "c_wd_state_{}"),
}

KINDS = ("line", "toggle", "user")
_PAGE_KIND = {"v_line": "line", "v_branch": "line", "v_toggle": "toggle", "v_user": "user"}
_INDEX = re.compile(r"\[\d+\]")


class ReportError(Exception):
    pass


@dataclass
class Point:
    kind: str  # line, toggle, user
    module: str  # the module the point is in (page v_*/<module>)
    hier: str  # instance path without the harness's model name
    file: str
    line: int
    comment: str
    count: int = 0

    @property
    def top(self) -> str:
        return self.hier.split(".", 1)[0]

    @property
    def label_path(self) -> str:
        """A cover point's instance path and label (Verilator's path of a
        labelled cover property already ends in its label)."""
        if self.hier == self.comment or self.hier.endswith("." + self.comment):
            return self.hier
        return f"{self.hier}.{self.comment}"

    @property
    def ident(self) -> str:
        """What a waiver's pattern is matched against."""
        if self.kind == "line":
            return f"{self.hier}/{Path(self.file).name}:{self.line}/{self.comment}"
        if self.kind == "user":
            return self.label_path
        return f"{self.hier}/{self.comment}"


@dataclass
class Waiver:
    kind: str
    pattern: str
    reason: str
    where: str
    used: int = 0  # uncovered points it waived
    seen: int = 0  # points it matches, covered or not

    def __post_init__(self) -> None:
        self._re = re.compile(fnmatch.translate(self.pattern))

    def matches(self, p: Point) -> bool:
        return self.kind == p.kind and self._re.match(p.ident) is not None


@dataclass
class Tally:
    total: int = 0
    hit: int = 0
    waived: int = 0

    def add(self, covered: bool, waived: bool) -> None:
        self.total += 1
        if covered:
            self.hit += 1
        elif waived:
            self.waived += 1

    def pct(self, with_waivers: bool) -> float | None:
        total = self.total - (self.waived if with_waivers else 0)
        return None if total == 0 else 100.0 * self.hit / total


@dataclass
class Report:
    tops: dict[str, dict[str, Tally]] = field(default_factory=dict)
    modules: dict[str, dict[str, dict[str, Tally]]] = field(default_factory=dict)
    functional: dict[str, int] = field(default_factory=dict)  # name -> count
    functional_waived: dict[str, str] = field(default_factory=dict)  # name -> reason
    uncovered: dict[str, list[str]] = field(default_factory=dict)  # kind -> idents
    errors: list[str] = field(default_factory=list)


def _wild_match(pattern: str, text: str) -> bool:
    """Verilator's merged hierarchy: `*` stands for anything, the rest is
    literal (brackets included)."""
    rx = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(rx, text) is not None


def parse_dat(text: str) -> list[Point]:
    """The points of a coverage.dat ("# SystemC::Coverage-3"), their
    counts summed over the harness's model names.

    Verilator writes one point per place in the code per test run, the
    instances summed; the hierarchy (key h) is then the instances' common
    prefix and suffix around a `*`. A test of one model gives a path
    `<model name>.<top>...`; a test of several (dut, dut1, ...) one like
    `dut*].u_ingress`, whose top is not in it: such a point joins the point
    of the same place whose full path it matches."""
    raw: list[tuple[tuple, dict, int]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("C '"):
            continue
        end = line.rfind("' ")
        if end < 0:
            raise ReportError(f"coverage line {n}: no count: {line[:80]!r}")
        keys = {}
        for item in line[3:end].split("\x01"):
            if item:
                k, _, v = item.partition("\x02")
                keys[k] = v
        page = keys.get("page", "")
        kind = _PAGE_KIND.get(page.split("/", 1)[0])
        if kind is None:
            continue
        place = (kind, page, keys.get("f", ""), keys.get("l", "0") or "0", keys.get("n", ""),
                 keys.get("o", ""))
        raw.append((place, keys, int(line[end + 2:].strip())))

    def full(h: str) -> bool:
        return "." in h and "*" not in h.split(".", 1)[0]

    # Full paths of each place, by path without the model name.
    paths: dict[tuple, set[str]] = defaultdict(set)
    for place, keys, _ in raw:
        h = keys.get("h", "")
        if full(h):
            paths[place].add(h)
    merged: dict[tuple, Point] = {}
    for place, keys, count in raw:
        h = keys.get("h", "")
        if not full(h):
            found = sorted(c for c in paths.get(place, ()) if _wild_match(h, c))
            h = found[0] if found else "?." + h
        hier = h.split(".", 1)[1]
        kind, page, file, line_no, _, comment = place
        key = place + (hier,)
        if key not in merged:
            merged[key] = Point(kind=kind, module=page.split("/", 1)[-1], hier=hier, file=file,
                                line=int(line_no), comment=comment)
        merged[key].count += count
    return list(merged.values())


def parse_waivers(text: str, where: str) -> list[Waiver]:
    """Waiver lines: `<kind> <pattern> : <reason>`; # starts a comment."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"(\S+)\s+(\S+)\s*:\s*(.*)", line)
        if not m:
            raise ReportError(f"{where}:{n}: not `<kind> <pattern> : <reason>`: {raw!r}")
        kind, pattern, reason = m[1], m[2], m[3].strip()
        if kind not in KINDS:
            raise ReportError(f"{where}:{n}: kind '{kind}' is not one of {', '.join(KINDS)}")
        if not reason:
            raise ReportError(f"{where}:{n}: waiver '{pattern}' gives no reason")
        out.append(Waiver(kind, pattern, reason, f"{where}:{n}"))
    return out


def functional_name(p: Point) -> str:
    return _INDEX.sub("[*]", p.label_path)


_ASSERT_CALL = re.compile(r"`\w*ASSERT\w*\s*\(")
# How many lines above its point an assertion macro call may start.
_ASSERT_SPAN = 6


class Sources:
    """The RTL lines the points name (read once, missing files read empty)."""

    def __init__(self) -> None:
        self._files: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._files:
            try:
                self._files[path] = Path(path).read_text(errors="replace").splitlines()
            except OSError:
                self._files[path] = []
        return self._files[path]

    def assertion_arm(self, p: Point) -> bool:
        """An immediate assertion's failure arm (its `else $error`): a line
        point "else" on or just below an assertion macro call."""
        if p.kind != "line" or p.comment != "else":
            return False
        text = self.lines(p.file)
        for start in range(p.line - 1, max(-1, p.line - 1 - _ASSERT_SPAN), -1):
            if start >= len(text):
                continue
            m = _ASSERT_CALL.search(text[start])
            if not m:
                continue
            # The call must still be open where the point's line starts.
            depth = 0
            for t in [text[start][m.end() - 1:]] + text[start + 1:p.line - 1]:
                depth += t.count("(") - t.count(")")
            return start == p.line - 1 or depth > 0
        return False


def not_design(p: Point, cover_lines: set[tuple[str, int]]) -> bool:
    """Points that measure the verification code, not the design: every
    point of a bind module of rtl/coverage/ (module <x>_fcov), and the line
    point of a cover statement (its functional point counts it)."""
    return p.module.split("__", 1)[0].endswith("_fcov") or \
        (p.kind == "line" and (p.file, p.line) in cover_lines)


ASSERT_ARM = Waiver("line", "(built in)", "an assertion's failure arm: never taken in a passing run",
                    "report.py")


def build(points: list[Point], waivers: list[Waiver], spec: dict | None,
          tops: list[str] | None, sources: Sources | None = None) -> Report:
    r = Report()
    r.uncovered = {k: [] for k in KINDS}
    sources = sources or Sources()
    cover_lines = {(p.file, p.line) for p in points if p.kind == "user"}
    for p in points:
        if tops and p.top not in tops:
            continue
        if p.kind != "user" and not_design(p, cover_lines):
            continue
        waiver = None
        if p.count == 0 and sources.assertion_arm(p):
            waiver = ASSERT_ARM
        for w in waivers:
            if w.matches(p):
                w.seen += 1
                if p.count == 0 and waiver is None:
                    waiver = w
                    w.used += 1
        if p.kind == "user":
            name = functional_name(p)
            r.functional[name] = r.functional.get(name, 0) + p.count
            if waiver is not None:
                r.functional_waived[name] = waiver.reason
            continue
        r.tops.setdefault(p.top, {k: Tally() for k in ("line", "toggle")})[p.kind].add(
            p.count > 0, waiver is not None)
        mods = r.modules.setdefault(p.top, {})
        mods.setdefault(p.module, {k: Tally() for k in ("line", "toggle")})[p.kind].add(
            p.count > 0, waiver is not None)
        if p.count == 0 and waiver is None:
            r.uncovered[p.kind].append(p.ident)
    # A generate element that hit clears the waiver's need for the others.
    for name in list(r.functional_waived):
        if r.functional[name] > 0:
            del r.functional_waived[name]
    r.uncovered["user"] = sorted(n for n, c in r.functional.items()
                                 if c == 0 and n not in r.functional_waived)
    for k in r.uncovered:
        r.uncovered[k].sort()
    # A waiver whose points are all covered now is stale; one that matches
    # no point at all is for a top (or shape) this data does not hold.
    for w in waivers:
        if w.seen and not w.used:
            r.errors.append(f"{w.where}: waiver {w.kind} '{w.pattern}' matches no uncovered point")
    if spec is not None:
        for enum, (top, fmt) in ENUM_POINTS.items():
            labels = {n.rsplit(".", 1)[-1] for n in r.functional if n.split(".", 1)[0] == top}
            if top not in r.tops and not labels:
                continue
            for member in spec["enums"][enum]["values"]:
                want = fmt.format(member["name"].lower())
                if want not in labels:
                    r.errors.append(f"enum {enum} member {member['name']} has no functional "
                                    f"point {want} in {top}")
    return r


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1f} %"


def markdown(r: Report) -> str:
    out = ["| top | line | line (waived) | toggle | toggle (waived) | functional (waived) |",
           "|---|---|---|---|---|---|"]
    for top in sorted(r.tops):
        t = r.tops[top]
        fn = [c for n, c in r.functional.items()
              if n.split(".", 1)[0] == top and n not in r.functional_waived]
        hit = sum(1 for c in fn if c > 0)
        out.append(f"| {top} | {_fmt(t['line'].pct(False))} | {_fmt(t['line'].pct(True))} "
                   f"({t['line'].hit}/{t['line'].total - t['line'].waived}) | "
                   f"{_fmt(t['toggle'].pct(False))} | {_fmt(t['toggle'].pct(True))} "
                   f"({t['toggle'].hit}/{t['toggle'].total - t['toggle'].waived}) | "
                   f"{hit}/{len(fn)} |")
    out += ["", "Per module (after waivers):", "",
            "| top | module | line | toggle |", "|---|---|---|---|"]
    for top in sorted(r.modules):
        for mod in sorted(r.modules[top]):
            m = r.modules[top][mod]
            out.append(f"| {top} | {mod} | {_fmt(m['line'].pct(True))} | "
                       f"{_fmt(m['toggle'].pct(True))} |")
    out += ["", f"Functional points: {sum(1 for c in r.functional.values() if c > 0)} of "
            f"{len(r.functional)} hit, {len(r.functional_waived)} waived", "",
            "| point | hits |", "|---|---|"]
    for name in sorted(r.functional):
        note = f" (waived: {r.functional_waived[name]})" if name in r.functional_waived else ""
        out.append(f"| {name} | {r.functional[name]}{note} |")
    out += ["", f"Functional points never hit: {len(r.uncovered['user'])}"]
    out += [f"- {n}" for n in r.uncovered["user"]]
    for k in ("line", "toggle"):
        out += ["", f"Uncovered {k} points (not waived): {len(r.uncovered[k])}"]
    if r.errors:
        out += ["", "Errors:"] + [f"- {e}" for e in r.errors]
    return "\n".join(out) + "\n"


def to_json(r: Report) -> dict:
    return {
        "tops": {t: {k: {"total": v.total, "hit": v.hit, "waived": v.waived,
                         "pct": v.pct(False), "pct_waived": v.pct(True)}
                     for k, v in kinds.items()} for t, kinds in r.tops.items()},
        "modules": {t: {m: {k: v.pct(True) for k, v in kinds.items()}
                        for m, kinds in mods.items()} for t, mods in r.modules.items()},
        "functional": r.functional,
        "functional_waived": r.functional_waived,
        "uncovered": r.uncovered,
        "errors": r.errors,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dat", type=Path)
    ap.add_argument("--waivers", type=Path, default=ROOT / "rtl/coverage/waivers.txt")
    ap.add_argument("--spec", type=Path, default=ROOT / "rtl/spec/formats.toml")
    ap.add_argument("--no-spec", action="store_true", help="skip the enum completeness check")
    ap.add_argument("--tops", default="", help="comma-separated tops to report (default: all)")
    ap.add_argument("--md", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--uncovered", type=Path,
                    help="write every uncovered line and toggle point here, one a line")
    args = ap.parse_args(argv)
    try:
        points = parse_dat(args.dat.read_text(errors="replace"))
        waivers = (parse_waivers(args.waivers.read_text(), str(args.waivers))
                   if args.waivers and args.waivers.exists() else [])
        spec = None if args.no_spec else tomllib.loads(args.spec.read_text())
        tops = [t for t in args.tops.split(",") if t] or None
        r = build(points, waivers, spec, tops)
    except (OSError, ReportError, KeyError, ValueError) as e:
        print(f"coverage report: {e}", file=sys.stderr)
        return 2
    md = markdown(r)
    print(md, end="")
    if args.md:
        args.md.write_text(md)
    if args.json:
        args.json.write_text(json.dumps(to_json(r), indent=1, sort_keys=True) + "\n")
    if args.uncovered:
        args.uncovered.write_text("".join(f"{k} {i}\n" for k in ("line", "toggle")
                                          for i in r.uncovered[k]))
    return 1 if r.uncovered["user"] or r.errors else 0


if __name__ == "__main__":
    sys.exit(main())
