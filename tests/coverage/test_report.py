"""scripts/coverage/report.py: figures per top and module, waivers (with a
reason, used, applied only to uncovered points), functional points summed
over harness names and generate elements, and the exit status."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("cov_report", ROOT / "scripts/coverage/report.py")
rp = importlib.util.module_from_spec(_spec)
sys.modules["cov_report"] = rp
_spec.loader.exec_module(rp)


def point(page: str, hier: str, comment: str, count: int, line: int = 10) -> str:
    keys = {"f": "/src/rtl/m.sv", "l": str(line), "n": "3", "page": page, "o": comment, "h": hier}
    return "C '" + "".join(f"\x01{k}\x02{v}" for k, v in keys.items()) + f"' {count}\n"


DAT = "# SystemC::Coverage-3\n" + "".join([
    # Two harness names for one model: their counts add up.
    point("v_line/sub", "dut.top_a.u_sub", "block", 0, 10),
    point("v_line/sub", "nic0.top_a.u_sub", "block", 2, 10),
    point("v_line/sub", "dut.top_a.u_sub", "if", 0, 12),
    point("v_line/top_a", "dut.top_a", "block", 1, 20),
    point("v_toggle/sub", "dut.top_a.u_sub", "q[0]", 4),
    point("v_toggle/sub", "dut.top_a.u_sub", "q[1]", 0),
    point("v_toggle/sub", "dut.top_a.u_sub", "dbg[0]", 0),
    # A cover point in a generate loop: hit on one element only.
    point("v_user/sub", "dut.top_a.gen_p[0].u_sub", "c_hit", 0, 30),
    point("v_user/sub", "dut.top_a.gen_p[1].u_sub", "c_hit", 5, 30),
    point("v_user/sub", "dut.top_a.u_sub", "c_never", 0, 31),
    # The line point of a cover statement and the points of a bind module
    # of rtl/coverage/ measure the verification code: not counted.
    point("v_line/sub", "dut.top_a.u_sub", "block", 0, 31),
    point("v_toggle/sub_fcov__N4", "dut.top_a.u_sub.u_fcov", "x[0]", 0),
    point("v_toggle/other", "dut.top_b", "x[0]", 1),
])


def test_figures_and_functional_points():
    r = rp.build(rp.parse_dat(DAT), [], None, None)
    a = r.tops["top_a"]
    assert (a["line"].hit, a["line"].total) == (2, 3)
    assert (a["toggle"].hit, a["toggle"].total) == (1, 3)
    assert r.modules["top_a"]["sub"]["line"].pct(True) == pytest.approx(50.0)
    assert r.functional == {"top_a.gen_p[*].u_sub.c_hit": 5, "top_a.u_sub.c_never": 0}
    assert r.uncovered["user"] == ["top_a.u_sub.c_never"]
    assert r.uncovered["line"] == ["top_a.u_sub/m.sv:12/if"]
    assert set(r.tops) == {"top_a", "top_b"}
    assert set(rp.build(rp.parse_dat(DAT), [], None, ["top_b"]).tops) == {"top_b"}


def test_waivers_apply_to_uncovered_points_only():
    w = rp.parse_waivers("toggle top_a.u_sub/dbg* : debug-only bus, never driven by a test\n"
                         "user *.c_never : unreachable at these parameters  # why\n"
                         "line top_a.u_sub/m.sv:10/* : covered anyway\n", "w.txt")
    r = rp.build(rp.parse_dat(DAT), w, None, None)
    t = r.tops["top_a"]["toggle"]
    assert (t.hit, t.total, t.waived) == (1, 3, 1)
    assert t.pct(True) == pytest.approx(50.0)
    assert r.uncovered["user"] == []
    assert r.functional_waived == {"top_a.u_sub.c_never": "unreachable at these parameters"}
    # The third matches only a covered point: a stale waiver is an error.
    assert r.errors == ["w.txt:3: waiver line 'top_a.u_sub/m.sv:10/*' matches no uncovered point"]


def test_bad_waivers_are_refused():
    with pytest.raises(rp.ReportError, match="gives no reason"):
        rp.parse_waivers("toggle x/* :\n", "w")
    with pytest.raises(rp.ReportError, match="kind 'branch'"):
        rp.parse_waivers("branch x/* : r\n", "w")
    with pytest.raises(rp.ReportError, match="not `<kind> <pattern> : <reason>`"):
        rp.parse_waivers("toggle x/*\n", "w")


def test_enum_members_need_points():
    spec = {"enums": {e: {"values": [{"name": "A"}, {"name": "B_C"}]}
                      for e in rp.ENUM_POINTS}}
    dat = "".join(point("v_user/nic_cq_fcov", "dut.nic_top.cq.u_fcov", n, 1)
                  for n in ("c_cq_err_a", "c_cq_err_b_c", "c_cq_status_a"))
    r = rp.build(rp.parse_dat(dat), [], spec, None)
    # switch_top is not in the data: its enums are not asked for.
    assert r.errors == ["enum cq_status member B_C has no functional point c_cq_status_b_c "
                        "in nic_top"]


def test_exit_status_and_outputs(tmp_path):
    dat = tmp_path / "merged.dat"
    dat.write_text(DAT)
    args = [str(dat), "--no-spec", "--waivers", str(tmp_path / "none.txt"),
            "--md", str(tmp_path / "s.md"), "--json", str(tmp_path / "s.json")]
    assert rp.main(args) == 1  # c_never is never hit
    assert "Functional points: 1 of 2 hit, 0 waived" in (tmp_path / "s.md").read_text()
    assert json.loads((tmp_path / "s.json").read_text())["uncovered"]["user"] == \
        ["top_a.u_sub.c_never"]
    (tmp_path / "w.txt").write_text("user *.c_never : unreachable\n")
    args[3] = str(tmp_path / "w.txt")
    assert rp.main(args) == 0


def test_assertion_failure_arms_are_waived(tmp_path):
    src = tmp_path / "blk.sv"
    src.write_text("module blk;\n  `SF_ASSERT_IMM(a_rule,\n    x == y)\n  if (a) b = c;\nendmodule\n")
    pts = [rp.Point("line", "blk", "top.u", str(src), 3, "else"),   # the assertion's arm
           rp.Point("line", "blk", "top.u", str(src), 4, "else")]   # design code
    r = rp.build(pts, [], None, None)
    t = r.tops["top"]["line"]
    assert (t.total, t.hit, t.waived) == (2, 0, 1)
    assert r.uncovered["line"] == [f"top.u/blk.sv:4/else"]
