"""pytest setup of the cocotb tests: the runner they share
(tb/cocotb/cocotb_run.py) is harness infrastructure and stays in tb/, so its
folder goes on the import path (and, through cocotb's runner, on the
simulator's PYTHONPATH too)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tb" / "cocotb"))
