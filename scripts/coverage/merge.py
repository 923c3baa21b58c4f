#!/usr/bin/env python3
"""Merges the coverage files of test runs into one report (docs/coverage.md).

Every test run of the coverage tree writes its own <binary>.<test>.seed<N>.dat
(tb's TestContext::write_coverage). This merges them, the same way for
`make coverage` (scripts/coverage/run.py) and for the Slurm regression
(scripts/slurm/regress.py --coverage):

    OUT/merged.dat       verilator_coverage --write, every file's counts summed
    OUT/merged.info      verilator_coverage --write-info (lcov format)
    OUT/html/            genhtml of merged.info (Debian's lcov)
    OUT/annotated/       verilator_coverage --annotate: the RTL sources, every
                         line whose count is below 1 marked with '%'
    OUT/uncovered_lines.txt   those lines, file:line: text
    OUT/summary.md, OUT/summary.json   scripts/coverage/report.py

    merge.py --out OUT DAT_OR_DIR... [--waivers FILE]

Exit status: report.py's (1: a functional point never hit), 2 if a tool
failed or there is nothing to merge.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import report  # noqa: E402  (this folder's report.py)

# verilator_coverage reads its inputs at once; a few hundred files of a few
# MB each, so batches keep the command line short.
BATCH = 200


class MergeError(Exception):
    pass


def dat_files(inputs: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in inputs:
        out += sorted(p.glob("*.dat")) if p.is_dir() else [p]
    return out


def _run(cmd: list[str]) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise MergeError(f"{' '.join(cmd[:3])} ... failed ({r.returncode}):\n{r.stderr.strip()}")


def merge_dat(files: list[Path], out: Path) -> None:
    """verilator_coverage --write of every file, in batches (each batch's
    result is the next batch's first input)."""
    vc = shutil.which("verilator_coverage")
    if vc is None:
        raise MergeError("verilator_coverage not found (make deps installs verilator)")
    if not files:
        raise MergeError("no coverage files to merge")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".partial.dat")
    first = True
    for i in range(0, len(files), BATCH):
        batch = [str(f) for f in files[i:i + BATCH]]
        _run([vc, "--write", str(tmp)] + ([] if first else [str(out)]) + batch)
        tmp.replace(out)
        first = False


def uncovered_lines(annotated: Path) -> list[str]:
    """The lines verilator_coverage --annotate marked ('%' + count below the
    minimum), as file:line: text. Every source line is `<count>\t<text>`;
    the annotation adds a header line, and for every further point of a
    source line a "verilator_coverage: (next point on previous line)" line
    and an empty one: the line numbers are the source's."""
    out = []
    for f in sorted(annotated.rglob("*")):
        if not f.is_file():
            continue
        n = 0
        source = ""
        for i, line in enumerate(f.read_text(errors="replace").splitlines()):
            count, tab, text = line.partition("\t")
            if i == 0 and "verilator_coverage annotation" in text:
                continue
            extra = not tab or text.lstrip().startswith("verilator_coverage:")
            if not extra:
                n += 1
                source = text.strip()
            if count.startswith("%"):
                note = " (a further point of the line)" if extra else ""
                out.append(f"{f.relative_to(annotated)}:{n}: {count[1:]}{note}: {source}")
    return out


def merge(inputs: list[Path], out: Path, waivers: Path | None = None,
          html: bool = True) -> int:
    files = dat_files(inputs)
    merged = out / "merged.dat"
    merge_dat(files, merged)
    vc = shutil.which("verilator_coverage") or "verilator_coverage"
    _run([vc, "--write-info", str(out / "merged.info"), str(merged)])
    annotated = out / "annotated"
    shutil.rmtree(annotated, ignore_errors=True)
    _run([vc, "--annotate", str(annotated), "--annotate-min", "1", str(merged)])
    (out / "uncovered_lines.txt").write_text("".join(l + "\n" for l in uncovered_lines(annotated)))
    if html:
        genhtml = shutil.which("genhtml")
        if genhtml is None:
            raise MergeError("genhtml not found: make deps installs Debian's lcov")
        shutil.rmtree(out / "html", ignore_errors=True)
        _run([genhtml, "--quiet", "--output-directory", str(out / "html"),
              "--title", "syncfab RTL coverage", str(out / "merged.info")])
    print(f"coverage: {len(files)} files merged into {merged}")
    args = [str(merged), "--md", str(out / "summary.md"), "--json", str(out / "summary.json"),
            "--uncovered", str(out / "uncovered_points.txt")]
    if waivers is not None:
        args += ["--waivers", str(waivers)]
    return report.main(args)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path, help=".dat files or folders of them")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--waivers", type=Path)
    ap.add_argument("--no-html", action="store_true")
    args = ap.parse_args(argv)
    try:
        return merge(args.inputs, args.out, args.waivers, html=not args.no_html)
    except MergeError as e:
        print(f"coverage merge: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
