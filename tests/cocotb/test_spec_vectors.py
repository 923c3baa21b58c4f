"""The cocotb tests' packer (tb/cocotb/syncfab_spec.py, layouts from the
generated formats.json) against the golden vectors the C++ format tests
decode (tests/spec/vectors/formats.json): every vector decodes to exactly its
fields and, unless it sets reserved bits, encodes back to its bytes. So a
header or descriptor the cocotb tests build is the one the C++ accessors and
the SV structs read. No simulator: milliseconds."""

from __future__ import annotations

import json

import pytest

from syncfab_spec import GOLDEN_VECTORS, formats, golden_vectors

_RAW = {v["name"]: v for v in json.loads(GOLDEN_VECTORS.read_text(encoding="utf-8"))["vectors"]}


@pytest.mark.parametrize("name", sorted(_RAW))
def test_golden_vector(name: str) -> None:
    f = formats()
    v = golden_vectors()[name]
    assert len(v.data) == f.size_bytes(v.format), f"{name}: {len(v.data)} bytes"
    decoded = f.unpack(v.format, v.value)
    assert decoded == v.fields, f"{name}: decoded {decoded}"
    for field, want in _RAW[name].get("names", {}).items():
        enum = f.field_enum(v.format, field)
        assert f.enum_name(enum, decoded[field]) == want, f"{name}: {field}"
    if _RAW[name].get("reencode", True):
        assert f.pack(v.format, v.fields) == v.value, f"{name}: re-encoded bytes differ"
