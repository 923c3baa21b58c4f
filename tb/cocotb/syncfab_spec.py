"""The project's single sources, read by the cocotb tests: format layouts
(<build>/generated/formats.json, from rtl/spec/formats.toml by
scripts/gen_formats.py), register maps (<build>/generated/regs/<ip>.json,
from the SystemRDL by scripts/rdl_json.py) and the golden format vectors
(tests/spec/vectors/formats.json, the file the C++ format tests decode).

Nothing here knows an offset, a width or an enum value: a format is packed
and unpacked from its generated layout, a register addressed by its name.
Packed values are integers whose bit b is the format's bit b, i.e. the SV
packed struct's value and the little-endian image of the bytes.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_VECTORS = ROOT / "tests" / "spec" / "vectors" / "formats.json"


def build_root() -> Path:
    return Path(os.environ.get("SYNCFAB_BUILD_DIR", ROOT / "build")).resolve()


def _load_generated(rel: str) -> dict:
    path = build_root() / "generated" / rel
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: configure the build tree first "
                                f"(cmake -S . -B {build_root()}), SYNCFAB_BUILD_DIR names it")
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------

class Formats:
    """Layouts of rtl/spec/formats.toml: constants, enums, pack/unpack."""

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.const: dict[str, int] = dict(doc["constants"])
        self._enums: dict[str, dict] = doc["enums"]
        self._formats: dict[str, dict] = doc["formats"]

    def enum(self, enum: str, name: str) -> int:
        try:
            return self._enums[enum]["values"][name]
        except KeyError:
            raise KeyError(f"enum {enum!r} has no value {name!r}") from None

    def enum_name(self, enum: str, value: int) -> str:
        """The name of `value` in `enum`, "" when the spec does not define it."""
        return next((n for n, v in self._enums[enum]["values"].items() if v == value), "")

    def size_bytes(self, fmt: str) -> int:
        return self._format(fmt)["size_bytes"]

    def size_bits(self, fmt: str) -> int:
        return 8 * self.size_bytes(fmt)

    def _format(self, fmt: str) -> dict:
        try:
            return self._formats[fmt]
        except KeyError:
            raise KeyError(f"no format {fmt!r} in formats.json") from None

    def field_enum(self, fmt: str, field: str) -> str:
        """The enum a field takes its values from."""
        f = next((x for x in self._format(fmt)["fields"] if x["name"] == field), None)
        if f is None or f["enum"] is None:
            raise KeyError(f"{fmt}.{field} is not an enum field")
        return f["enum"]

    def _width(self, f: dict) -> int:
        return self.size_bits(f["format"]) if f["format"] else f["width"]

    def pack(self, fmt: str, fields: Mapping[str, Any]) -> int:
        """The packed value of `fmt` with `fields` (missing fields are 0).
        Arrays are lists; nested records are mappings. Enum fields take a
        value or an enum name."""
        layout = {f["name"]: f for f in self._format(fmt)["fields"]}
        value = 0
        for name, v in fields.items():
            if name not in layout:
                raise KeyError(f"format {fmt!r} has no field {name!r}")
            f = layout[name]
            width = self._width(f)
            elems = list(v) if f["count"] is not None else [v]
            if len(elems) > (f["count"] or 1):
                raise ValueError(f"{fmt}.{name}: {len(elems)} elements, "
                                 f"the format has {f['count']}")
            for i, e in enumerate(elems):
                if f["format"]:
                    e = self.pack(f["format"], e)
                elif isinstance(e, str):
                    e = self.enum(f["enum"], e)
                e = int(e)
                if e < 0 or e >> width:
                    raise ValueError(f"{fmt}.{name}[{i}] = {e:#x} does not fit in {width} bits")
                value |= e << (f["offset"] + i * width)
        return value

    def unpack(self, fmt: str, value: int) -> dict[str, Any]:
        """Every field of `fmt` decoded from the packed `value`."""
        out: dict[str, Any] = {}
        for f in self._format(fmt)["fields"]:
            width = self._width(f)
            elems = []
            for i in range(f["count"] or 1):
                e = (value >> (f["offset"] + i * width)) & ((1 << width) - 1)
                elems.append(self.unpack(f["format"], e) if f["format"] else e)
            out[f["name"]] = elems if f["count"] is not None else elems[0]
        return out

    def to_bytes(self, fmt: str, value: int) -> bytes:
        return value.to_bytes(self.size_bytes(fmt), "little")

    def from_bytes(self, fmt: str, data: bytes) -> int:
        if len(data) != self.size_bytes(fmt):
            raise ValueError(f"{fmt} is {self.size_bytes(fmt)} bytes, got {len(data)}")
        return int.from_bytes(data, "little")


@functools.cache
def formats() -> Formats:
    return Formats(_load_generated("formats.json"))


# ---------------------------------------------------------------------------
# Register maps
# ---------------------------------------------------------------------------

class RegMap:
    """One block's register map: offsets and field positions by name."""

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.name: str = doc["name"]
        self._regs: dict[str, dict] = doc["registers"]
        self._mems: dict[str, dict] = doc["memories"]

    def addr(self, reg: str) -> int:
        try:
            return self._regs[reg]["offset"]
        except KeyError:
            raise KeyError(f"{self.name} has no register {reg!r}") from None

    def mem(self, mem: str) -> dict:
        try:
            return self._mems[mem]
        except KeyError:
            raise KeyError(f"{self.name} has no memory {mem!r}") from None

    def _field(self, reg: str, field: str) -> dict:
        self.addr(reg)
        try:
            return self._regs[reg]["fields"][field]
        except KeyError:
            raise KeyError(f"{self.name}.{reg} has no field {field!r}") from None

    def reset(self, reg: str, field: str) -> int:
        return self._field(reg, field)["reset"]

    def width(self, reg: str, field: str) -> int:
        return self._field(reg, field)["width"]

    def all_fields(self, reg: str) -> int:
        """The register word with every field's bits set."""
        self.addr(reg)
        return sum(((1 << f["width"]) - 1) << f["lsb"] for f in self._regs[reg]["fields"].values())

    def value(self, reg: str, **fields: int) -> int:
        """The register word with `fields` set (the others 0)."""
        word = 0
        for name, v in fields.items():
            f = self._field(reg, name)
            if v < 0 or v >> f["width"]:
                raise ValueError(f"{self.name}.{reg}.{name} = {v:#x} does not fit in "
                                 f"{f['width']} bits")
            word |= v << f["lsb"]
        return word

    def get(self, reg: str, field: str, word: int) -> int:
        """Field `field` of a word read from `reg`."""
        f = self._field(reg, field)
        return (word >> f["lsb"]) & ((1 << f["width"]) - 1)

    def registers(self) -> Iterator[tuple[str, int]]:
        for name, r in self._regs.items():
            yield name, r["offset"]

    def is_mapped(self, offset: int) -> bool:
        if any(r["offset"] == offset for r in self._regs.values()):
            return True
        return any(m["offset"] <= offset < m["offset"] + m["entries"] * m["width"] // 8
                   for m in self._mems.values())


@functools.cache
def regmap(ip: str) -> RegMap:
    return RegMap(_load_generated(f"regs/{ip}.json"))


# ---------------------------------------------------------------------------
# Golden vectors (the C++ format tests' file, read with the same rules as
# tests/spec/golden_vectors.cpp)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class GoldenVector:
    name: str
    format: str
    data: bytes
    fields: dict[str, Any]

    @property
    def value(self) -> int:
        return int.from_bytes(self.data, "little")


def _plain(v: Any) -> Any:
    """A vector's field value as the packer takes it: "0x.." strings and
    booleans become integers, lists and records recursively."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, str):
        return int(v, 16)
    return v


@functools.cache
def golden_vectors() -> dict[str, GoldenVector]:
    doc = json.loads(GOLDEN_VECTORS.read_text(encoding="utf-8"))
    out: dict[str, GoldenVector] = {}
    for v in doc["vectors"]:
        lines = v["hex"] if isinstance(v["hex"], list) else [v["hex"]]
        data = bytes.fromhex("".join("".join(lines).split()))
        out[v["name"]] = GoldenVector(v["name"], v["format"], data, _plain(v["fields"]))
    return out


def golden(name: str) -> GoldenVector:
    try:
        return golden_vectors()[name]
    except KeyError:
        raise KeyError(f"{GOLDEN_VECTORS}: no vector named {name!r}") from None
