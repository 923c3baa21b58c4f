"""Unit tests of scripts/gen_formats.py: bad specs are rejected with a message
that names the format and the field (and the spec line), nothing is written,
and the real spec generates deterministic, lint-clean output."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "scripts" / "gen_formats.py"
SPEC = ROOT / "rtl" / "spec" / "formats.toml"

GOOD = textwrap.dedent("""\
    [spec]
    version = 1
    doc = "test spec"

    [constants.K]
    value = 4
    doc = "slots"

    [enums.kind]
    width = 4
    sv_prefix = "KIND_"
    doc = "kinds"
    values = [
      { name = "A", value = 1, doc = "a" },
      { name = "B", value = 9, doc = "b" },
    ]

    [formats.rec]
    doc = "record"
    size_bytes = 4
    fields = [
      { name = "lo", width = 16, doc = "low half" },
      { name = "hi", width = 16, doc = "high half" },
    ]

    [formats.msg]
    doc = "message"
    size_bytes = "4 + K * 4"
    fields = [
      { name = "kind", enum = "kind", doc = "what" },
      { name = "flag", width = 1, doc = "a flag" },
      { name = "len", offset = 8, width = 8, doc = "length" },
      { name = "tag", offset = 16, width = 16, doc = "tag" },
      { name = "recs", offset = 32, type = "rec", count = "K", doc = "records" },
    ]
    """)


LEN_FIELD = '{ name = "len"'
HI_FIELD = '{ name = "hi"'


def run_gen(tmp_path: Path, spec_text: str, *extra: str) -> subprocess.CompletedProcess:
    spec = tmp_path / "formats.toml"
    spec.write_text(spec_text)
    return subprocess.run([sys.executable, str(GEN), "--spec", str(spec), "--out",
                           str(tmp_path / "out"), *extra],
                          capture_output=True, text=True, check=False)


def rejected(tmp_path: Path, spec_text: str) -> str:
    res = run_gen(tmp_path, spec_text)
    assert res.returncode == 1, f"expected rejection, got rc={res.returncode}\n{res.stdout}{res.stderr}"
    assert not (tmp_path / "out").exists(), "a rejected spec must not write any output"
    return res.stderr


def line_of(text: str, needle: str) -> int:
    return next(i + 1 for i, line in enumerate(text.splitlines()) if needle in line)


def test_spec_that_is_not_utf8_is_rejected_with_a_message(tmp_path):
    spec = tmp_path / "formats.toml"
    spec.write_bytes(GOOD.encode() + b'# caf\xe9\n')
    res = subprocess.run([sys.executable, str(GEN), "--spec", str(spec), "--out",
                          str(tmp_path / "out")], capture_output=True, text=True, check=False)
    assert res.returncode == 1, res.stderr
    assert "formats.toml: not UTF-8 text" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "out").exists()


def test_good_spec_generates_all_outputs(tmp_path):
    res = run_gen(tmp_path, GOOD)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "out"
    sv = (out / "syncfab_fmt_pkg.sv").read_text()
    hpp = (out / "include/syncfab/fmt/formats.hpp").read_text()
    md = (out / "formats.md").read_text()
    # kind [3:0], flag [4], reserved [7:5], len [15:8], tag [31:16], recs [159:32]
    assert re.search(r"logic \[2:0\] rsvd_5;", sv)
    members = re.findall(r"^\s+(\S+(?: \[\d+:0\])*) (\w+);", sv.split("} rec_t;")[1], re.M)
    assert [m[1] for m in members][:6] == ["recs", "tag", "len", "rsvd_5", "flag", "kind"]
    assert "class Msg" in hpp and "recs_lo(std::size_t i0)" in hpp
    # Every enum's count and value list come from the spec, never typed by a user.
    assert "inline constexpr unsigned kKindCount = 2;" in hpp
    assert re.search(r"std::array<Kind, kKindCount> kKindValues = \{\s*Kind::kA,\s*Kind::kB,\s*\};",
                     hpp)
    assert "| `len` | [15:8] | 8 |" in md


def test_overlapping_field_is_rejected_naming_both_fields(tmp_path):
    bad = GOOD.replace('{ name = "len", offset = 8,', '{ name = "len", offset = 4,')
    err = rejected(tmp_path, bad)
    assert "format 'msg' field 'len' (bits [11:4]) overlaps field 'flag' (bits [4])" in err
    assert f"formats.toml:{line_of(bad, LEN_FIELD)}:" in err


def test_overflowing_field_is_rejected_naming_the_field(tmp_path):
    bad = GOOD.replace('{ name = "hi", width = 16,', '{ name = "hi", width = 17,')
    err = rejected(tmp_path, bad)
    assert "format 'rec' field 'hi' (bits [32:16]) runs past the format's declared size " \
           "of 32 bits (4 bytes)" in err
    assert f"formats.toml:{line_of(bad, HI_FIELD)}:" in err


def test_array_past_the_end_is_rejected(tmp_path):
    bad = GOOD.replace('size_bytes = "4 + K * 4"', 'size_bytes = "4 + K * 4 - 1"')
    err = rejected(tmp_path, bad)
    assert "format 'msg' field 'recs' (bits [159:32]) runs past" in err


def test_zero_width_is_rejected(tmp_path):
    err = rejected(tmp_path, GOOD.replace('{ name = "flag", width = 1,', '{ name = "flag", width = 0,'))
    assert "format 'msg' field 'flag': width must be at least 1, got 0" in err


def test_enum_value_that_does_not_fit_the_field_is_rejected(tmp_path):
    bad = GOOD.replace('{ name = "kind", enum = "kind",', '{ name = "kind", enum = "kind", width = 3,')
    err = rejected(tmp_path, bad)
    assert "format 'msg' field 'kind': enum 'kind' value B=9 does not fit the field's 3 bits" in err


def test_enum_value_that_does_not_fit_the_enum_is_rejected(tmp_path):
    err = rejected(tmp_path, GOOD.replace('{ name = "B", value = 9,', '{ name = "B", value = 16,'))
    assert "enum 'kind' value 'B': value 16 does not fit the enum's 4 bits" in err


def test_duplicate_names_are_rejected(tmp_path):
    err = rejected(tmp_path, GOOD.replace('{ name = "tag", offset = 16,', '{ name = "len", offset = 16,'))
    assert "format 'msg': duplicate field name 'len'" in err
    err = rejected(tmp_path, GOOD.replace('{ name = "B", value = 9,', '{ name = "A", value = 9,'))
    assert "enum 'kind': duplicate value name 'A'" in err
    err = rejected(tmp_path, GOOD.replace('{ name = "B", value = 9,', '{ name = "B", value = 1,'))
    assert "value 1 already used by 'A'" in err


def test_unknown_references_are_rejected(tmp_path):
    err = rejected(tmp_path, GOOD.replace('enum = "kind", doc = "what"', 'enum = "kinds", doc = "what"'))
    assert "format 'msg' field 'kind': unknown enum 'kinds'" in err
    err = rejected(tmp_path, GOOD.replace('type = "rec"', 'type = "record"'))
    assert "format 'msg' field 'recs': type 'record' is not a format defined earlier" in err
    err = rejected(tmp_path, GOOD.replace('count = "K"', 'count = "KK"'))
    assert "format 'msg' field 'recs': count: expression 'KK': unknown constant 'KK'" in err


def test_field_typos_and_bad_names_are_rejected(tmp_path):
    err = rejected(tmp_path, GOOD.replace('{ name = "tag", offset = 16,', '{ name = "tag", ofset = 16,'))
    assert "format 'msg' field 'tag': unknown key 'ofset'" in err
    err = rejected(tmp_path, GOOD.replace('name = "tag"', 'name = "priority"'))
    assert "format 'msg' field 'priority': 'priority' is a keyword" in err
    err = rejected(tmp_path, GOOD.replace('{ name = "hi", width = 16,', '{ name = "hi", width = 65,'))
    assert "format 'rec' field 'hi': width 65 exceeds 64 bits" in err


def test_field_without_meaning_is_rejected(tmp_path):
    err = rejected(tmp_path, GOOD.replace('doc = "length"', 'doc = " "'))
    assert "format 'msg' field 'len': doc is empty" in err


def test_misaligned_nested_record_is_rejected(tmp_path):
    bad = GOOD.replace('size_bytes = "4 + K * 4"', 'size_bytes = "5 + K * 4"') \
              .replace('offset = 32, type = "rec"', 'offset = 33, type = "rec"')
    err = rejected(tmp_path, bad)
    assert "format 'msg' field 'recs': a nested 'rec' must start on a byte boundary" in err


def test_shared_fields_must_match(tmp_path):
    bad = GOOD + textwrap.dedent("""\

        [formats.other]
        doc = "shares kind with msg"
        size_bytes = 2
        shares = { format = "msg", fields = ["kind", "len"] }
        fields = [
          { name = "kind", enum = "kind", doc = "what" },
          { name = "len", offset = 4, width = 8, doc = "length, misplaced" },
        ]
        """)
    err = rejected(tmp_path, bad)
    assert "format 'other' field 'len' (bits [11:4]) must match format 'msg' field 'len' " \
           "(bits [15:8])" in err
    assert "field 'kind'" not in err


def test_every_problem_is_reported_at_once(tmp_path):
    bad = GOOD.replace('{ name = "hi", width = 16,', '{ name = "hi", width = 17,') \
              .replace('{ name = "flag", width = 1,', '{ name = "flag", width = 0,')
    err = rejected(tmp_path, bad)
    assert "field 'hi'" in err and "field 'flag'" in err
    assert len(err.strip().splitlines()) == 2


def test_invalid_toml_is_rejected(tmp_path):
    err = rejected(tmp_path, GOOD.replace("[formats.rec]", "[formats.rec"))
    assert "not valid TOML" in err


def test_real_spec_is_deterministic_and_rewrites_nothing(tmp_path):
    outs = []
    for name in ("a", "b"):
        res = subprocess.run([sys.executable, str(GEN), "--spec", str(SPEC), "--out",
                              str(tmp_path / name)], capture_output=True, text=True, check=True)
        assert "4 of 4 files updated" in res.stdout
        outs.append({p.relative_to(tmp_path / name): p.read_bytes()
                     for p in sorted((tmp_path / name).rglob("*")) if p.is_file()})
    assert outs[0] == outs[1]
    again = subprocess.run([sys.executable, str(GEN), "--spec", str(SPEC), "--out",
                            str(tmp_path / "a")], capture_output=True, text=True, check=True)
    assert "0 of 4 files updated" in again.stdout


def test_real_spec_package_lints_clean(tmp_path):
    verilator = shutil.which("verilator")
    assert verilator, "verilator is part of the toolchain (make deps)"
    subprocess.run([sys.executable, str(GEN), "--spec", str(SPEC), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    res = subprocess.run([verilator, "--lint-only", "-Wall", str(tmp_path / "syncfab_fmt_pkg.sv")],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr


def test_real_spec_has_the_contracts_limits():
    sys.path.insert(0, str(ROOT / "scripts"))
    from formats.spec import load  # noqa: PLC0415
    spec = load(SPEC)
    assert spec.constants["MAX_ROUNDS"].value == 20
    assert spec.constants["K_MAX"].value >= 4
    assert spec.constants["MLID_BASE"].value == 0xC000
    assert spec.constants["LID_WIDTH"].value == 16
    sizes = {name: f.size_bytes for name, f in spec.formats.items()}
    assert sizes == {"barrier_round": 16, "barrier_desc": 352, "cq_entry": 16, "pkt_hdr": 16,
                     "mgmt_msg": 32, "pfc_frame": 32}


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
