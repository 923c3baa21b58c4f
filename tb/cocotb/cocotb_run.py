"""Builds an RTL top from its .f file list and runs cocotb tests on it.

The pytest side of every cocotb test in tests/cocotb: it reads the same .f that
CMake and lint read (scripts/filelist.py), verilates with the project's
Verilator flags through cocotb's runner, runs the cocotb test module in the
simulator and turns a failing cocotb test into a failing pytest test.

Knobs (environment, so they also work through ctest and make):
  SYNCFAB_BUILD_DIR   CMake build tree (default: <repo>/build); the simulator is
                      built in <build>/cocotb/<top>[-<params>][-waves] and
                      ${SYNCFAB_GEN} in .f files is <build>/generated.
  RANDOM_SEED         cocotb's seed (default 1, so `make test` is repeatable).
  WAVES=1             build with --trace-fst; the FST lands next to the model.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from filelist import read_filelist, verilator_flags  # noqa: E402  (needs the path above)

with warnings.catch_warnings():
    # cocotb 1.8 flags its runner as experimental on import; we pin 1.8.1.
    warnings.filterwarnings("ignore", message="Python runners", category=UserWarning)
    from cocotb.runner import get_runner  # noqa: E402

DEFAULT_SEED = 1

# make variables of Verilator's generated makefile (verilated.mk).
MODEL_OPT = "OPT_FAST=-O0 OPT_GLOBAL=-O0"

# The build's flags (rtl/verilator_flags.f, read by CMake and lint too): the
# cocotb model is the same RTL under the same rules, assertions on.
VERILATOR_FLAGS = verilator_flags()


def build_root() -> Path:
    return Path(os.environ.get("SYNCFAB_BUILD_DIR", ROOT / "build")).resolve()


def waves_enabled() -> bool:
    return os.environ.get("WAVES", "0") not in ("", "0")


def seed() -> int:
    raw = os.environ.get("RANDOM_SEED", str(DEFAULT_SEED))
    try:
        return int(raw, 0)
    except ValueError:
        raise ValueError(f"RANDOM_SEED must be an integer, got {raw!r}") from None


@contextlib.contextmanager
def _build_env() -> Iterator[None]:
    # cocotb's runner builds with a plain `make`, which inherits the
    # environment: ccache keeps rebuilds of an unchanged model near-instant and
    # -j2 matches the machine (2 cores). The model's C++ is compiled at -O0
    # (Verilator's default is -Os): a cocotb run spends its time in Python,
    # not in the model, and -O0 cuts the CPU time of a cold build of nic_top
    # and switch_top from 145 s to 99 s (tests/cocotb/README.md "Cost").
    extra = {"MAKEFLAGS": os.environ.get("MAKEFLAGS", "-j2") + " " + MODEL_OPT}
    if shutil.which("ccache"):
        extra["OBJCACHE"] = "ccache"
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run(top: str, filelist: str, test_module: str,
        parameters: Mapping[str, int] | None = None,
        test_env: Mapping[str, str] | None = None) -> Path:
    """Verilates `top` from `filelist` (relative to the repo root) and runs
    the cocotb tests in `test_module`. Raises (fails the pytest test) when the
    build fails, the simulation dies (e.g. an SVA fires) or a cocotb test fails.
    Returns the cocotb results file."""
    params = dict(parameters or {})
    build = build_root()
    fl = read_filelist(ROOT / filelist, gen_dir=build / "generated")

    name = top + "".join(f"-{k}{v}" for k, v in sorted(params.items()))
    flags = list(VERILATOR_FLAGS)
    if waves_enabled():
        name += "-waves"
        flags += ["--trace-fst", "--trace-structs"]
    sim_dir = build / "cocotb" / name

    the_seed = seed()
    print(f"cocotb: {top} seed {the_seed}; replay: RANDOM_SEED={the_seed} "
          f"{ROOT / '.venv/bin/python'} -m pytest {ROOT / 'tests/cocotb'} -q -k {test_module}")

    runner = get_runner("verilator")
    with _build_env():
        runner.build(
            verilog_sources=fl.sources,
            includes=fl.incdirs,
            hdl_toplevel=top,
            parameters=params,
            build_args=flags,
            build_dir=sim_dir,
        )
    results = runner.test(
        hdl_toplevel=top,
        test_module=test_module,
        seed=the_seed,
        build_dir=sim_dir,
        # The tests read the generated maps and layouts from the same tree.
        extra_env={"SYNCFAB_BUILD_DIR": str(build), **(test_env or {})},
    )
    if waves_enabled():
        print(f"cocotb: waves in {sim_dir / 'dump.fst'}")
    return results
