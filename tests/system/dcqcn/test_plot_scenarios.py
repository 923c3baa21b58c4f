"""scripts/plot_scenarios.py on a small series: it writes a PNG, and refuses a
series without rows or without the columns it plots. Run with Debian's
python3 (its matplotlib): python3 -m unittest test_plot_scenarios.py
"""
import csv
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
import plot_scenarios  # noqa: E402

HEADER = ["end", "length", "queue_cells", "queue_max", "pause_tx", "pause_rx", "paused_cycles",
          "barrier_pause_tx", "ecn_marks", "cnps", "barriers_done", "flits_0", "flits_1",
          "rate_0", "rate_1"]


def write(path: pathlib.Path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


class PlotScenarios(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        rows = [[1000 * (i + 1), 1000, 10 * i, 12 * i, i, i, 3 * i, 0, 2 * i, i, 1, 450, 500,
                 0.5 + 0.05 * i, 0.5] for i in range(6)]
        write(self.dir / "s.csv", HEADER, rows)
        write(self.dir / "b.csv", ["posted", "latency"], [[1000, 150], [3000, 170], [5000, 160]])
        write(self.dir / "i.csv", ["posted", "latency"], [[1000, 108], [3000, 108]])

    def tearDown(self):
        self.tmp.cleanup()

    def run_main(self, *extra):
        return plot_scenarios.main(["--series", str(self.dir / "s.csv"), "--barriers",
                                    str(self.dir / "b.csv"), "--out", str(self.dir / "o.png"),
                                    *extra])

    def test_writes_a_png(self):
        self.assertEqual(self.run_main("--idle-barriers", str(self.dir / "i.csv"), "--title", "t"),
                         0)
        self.assertEqual((self.dir / "o.png").read_bytes()[:8], b"\x89PNG\r\n\x1a\n")

    def test_refuses_an_empty_series(self):
        write(self.dir / "s.csv", HEADER, [])
        self.assertEqual(self.run_main(), 1)
        self.assertFalse((self.dir / "o.png").exists())

    def test_refuses_missing_columns(self):
        write(self.dir / "s.csv", ["end", "length"], [[1000, 1000]])
        self.assertEqual(self.run_main(), 1)
        self.assertFalse((self.dir / "o.png").exists())


if __name__ == "__main__":
    unittest.main()
