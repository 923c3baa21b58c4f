"""scripts/plot_ecmp.py on two small runs: it writes a PNG, and refuses a run
without rows or without the columns its JSON names. Run with Debian's python3
(its matplotlib): python3 -m unittest test_plot_ecmp.py
"""
import csv
import json
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import plot_ecmp  # noqa: E402

SENDERS = ["h1", "h2"]
QUEUES = ["leaf0 from spines"]
PAUSES = ["leaf0", "spines"]
HEADER = (["end", "length"] + [f"flits_{s}" for s in SENDERS] + ["queue_0", "queue_max_0",
          "pause_tx"] + [f"pause_tx_{p}" for p in PAUSES]
          + ["host_pauses", "barrier_pause_tx", "barriers_done"])


def write(path: pathlib.Path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def write_run(stem: pathlib.Path, rows: list[list]) -> None:
    write(stem.with_suffix(".csv"), HEADER, rows)
    write(stem.parent / f"{stem.name}-barriers.csv", ["posted", "latency"],
          [[500, 150], [1500, 170]])
    stem.with_suffix(".json").write_text(json.dumps({
        "series": {"senders": SENDERS, "queues": QUEUES, "pauses": PAUSES},
        "figures": {"jain": 0.9, "pause_frames": 12,
                    "barrier_latency": {"median": 150, "p99": 170, "max": 170}}}))


class PlotEcmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        rows = [[1000 * (i + 1), 1000, 450, 500, 10 * i, 12 * i, 2 * i, i, i, i, 0, 1]
                for i in range(4)]
        for stem in ("off", "on"):
            write_run(self.dir / stem, rows)
        write(self.dir / "idle-barriers.csv", ["posted", "latency"], [[500, 108], [1500, 108]])

    def tearDown(self):
        self.tmp.cleanup()

    def run_main(self):
        return plot_ecmp.main(["--off", str(self.dir / "off"), "--on", str(self.dir / "on"),
                               "--idle", str(self.dir / "idle"), "--title", "t",
                               "--out", str(self.dir / "o.png")])

    def test_writes_a_png(self):
        self.assertEqual(self.run_main(), 0)
        self.assertEqual((self.dir / "o.png").read_bytes()[:8], b"\x89PNG\r\n\x1a\n")

    def test_refuses_an_empty_run(self):
        write(self.dir / "on.csv", HEADER, [])
        self.assertEqual(self.run_main(), 1)
        self.assertFalse((self.dir / "o.png").exists())

    def test_refuses_missing_columns(self):
        write(self.dir / "off.csv", ["end", "length"], [[1000, 1000]])
        self.assertEqual(self.run_main(), 1)
        self.assertFalse((self.dir / "o.png").exists())


if __name__ == "__main__":
    unittest.main()
