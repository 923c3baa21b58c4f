"""Checks the waveform flow end to end: `make waves`' script re-runs a test
with tracing, the FST it writes opens in GTKWave itself (headless, under
Xvfb) and in its fst2vcd reader, it holds the DUT's signals, packed
struct fields appear by name, and bad requests are refused with exit 2."""
import argparse
import pathlib
import re
import subprocess
import sys


def fst_vars(path: pathlib.Path) -> str:
    out = subprocess.run(["fst2vcd", "-f", str(path)], check=True, capture_output=True, text=True)
    header = out.stdout.split("$enddefinitions", 1)[0]
    if "$var" not in header:
        sys.exit(f"check_waves: {path} has no signals")
    return header


GTKWAVE_TCL = """
set n [gtkwave::getNumFacs]
puts "GTKWAVE_FACS $n"
for {set i 0} {$i < $n} {incr i} { puts "GTKWAVE_FAC [gtkwave::getFacName $i]" }
gtkwave::/File/Quit
"""


def gtkwave_facs(path: pathlib.Path, tmp: pathlib.Path) -> list[str]:
    """Opens the FST in GTKWave itself (headless, under Xvfb) and lists its signals."""
    script = tmp / "list_facs.tcl"
    script.write_text(GTKWAVE_TCL)
    r = subprocess.run(["xvfb-run", "-a", "gtkwave", f"--script={script}", str(path)],
                       capture_output=True, text=True, timeout=120)
    facs = re.findall(r"^GTKWAVE_FAC (\S+)", r.stdout, re.M)
    if not facs:
        sys.exit(f"check_waves: GTKWave could not open {path}:\n{r.stdout}{r.stderr}")
    return facs


def run_waves(py: str, build: str, test: str, seed: str) -> subprocess.CompletedProcess:
    return subprocess.run([py, "scripts/waves.py", "--build", build, "--test", test, "--seed", seed],
                          capture_output=True, text=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--struct-binary", required=True)
    args = ap.parse_args()
    py = sys.executable

    r = run_waves(py, args.build, "damq.directed", "3")
    if r.returncode != 0:
        sys.exit(f"check_waves: waves.py failed:\n{r.stdout}{r.stderr}")
    m = re.search(r"^waves: (\S+\.fst)$", r.stdout, re.M)
    if not m:
        sys.exit(f"check_waves: waves.py printed no FST path:\n{r.stdout}")
    header = fst_vars(pathlib.Path(m.group(1)))
    for sig in ("enq_valid_i", "deq_data_o", "free_count_o", "almost_full_o"):
        if f" {sig} " not in header:
            sys.exit(f"check_waves: signal {sig} missing from {m.group(1)}")
    tmp = pathlib.Path(args.build) / "waves" / "gtkwave-check"
    tmp.mkdir(parents=True, exist_ok=True)
    if not any(f.startswith("dut.damq.deq_data_o") for f in gtkwave_facs(pathlib.Path(m.group(1)), tmp)):
        sys.exit("check_waves: GTKWave does not show dut.damq.deq_data_o")

    for test, seed, why in (("damq.no_such_test", "1", "unknown test"),
                            ("damq.directed", "-4", "is not a non-negative integer"),
                            ("damq.directed", "12abc", "is not a non-negative integer")):
        r = run_waves(py, args.build, test, seed)
        if r.returncode != 2 or why not in (r.stdout + r.stderr):
            sys.exit(f"check_waves: waves.py accepted TEST={test} SEED={seed} "
                     f"(rc {r.returncode}): {r.stdout}{r.stderr}")

    wdir = pathlib.Path(args.build) / "waves" / "struct-check"
    r = subprocess.run([args.struct_binary, "--seed", "1", "+trace", "--waves-dir", str(wdir)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"check_waves: struct probe failed:\n{r.stdout}{r.stderr}")
    header = fst_vars(wdir / "waves.pkt_hdr_struct-seed1.fst")
    # --trace-structs: the struct is a scope whose members are named fields.
    scope = re.search(r"\$scope \w+ hdr \$end(.*?)\$upscope", header, re.S)
    if not scope:
        sys.exit("check_waves: packed struct 'hdr' is not a scope in the FST (--trace-structs?)")
    for field in ("pkt_type", "dst_lid", "src_lid", "prio", "ecn", "epoch", "round"):
        if f" {field} " not in scope.group(1):
            sys.exit(f"check_waves: struct field hdr.{field} missing from the FST")
    facs = gtkwave_facs(wdir / "waves.pkt_hdr_struct-seed1.fst", tmp)
    if not any(f.startswith("dut.fmt_pkt_hdr_probe.hdr.dst_lid") for f in facs):
        sys.exit("check_waves: GTKWave does not show the struct field hdr.dst_lid by name")
    print("check_waves: FSTs open in GTKWave, signals and struct fields by name, bad requests refused")


if __name__ == "__main__":
    main()
