"""Loads and validates rtl/spec/formats.toml (the one source of syncfab's formats).

Every problem is reported as one line that names the spec file (and line, when
it can be found), the format and the field, so that a broken spec fails the
CMake configure step with a message a person can act on.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

MAX_SCALAR_BITS = 64  # the C++ accessors return at most a std::uint64_t

_IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
_UPPER_IDENT = re.compile(r"^[A-Z][A-Z0-9_]*$")

# Names that would not compile as an SV struct member / C++ accessor, or that
# the generated code already uses.
_RESERVED_NAMES = {
    # SystemVerilog keywords likely to be picked as field names
    "alias", "always", "and", "assert", "assign", "begin", "bit", "break", "byte", "case",
    "class", "const", "continue", "default", "do", "edge", "else", "end", "enum", "event",
    "extends", "final", "for", "force", "function", "generate", "if", "initial", "input",
    "int", "integer", "interface", "local", "logic", "longint", "module", "new", "null",
    "output", "package", "packed", "parameter", "priority", "protected", "rand", "real",
    "reg", "return", "shortint", "signed", "static", "string", "struct", "super", "task",
    "this", "time", "type", "typedef", "union", "unique", "unsigned", "virtual", "void",
    "wait", "while", "wire", "with", "xor", "or", "not", "ref", "inside", "dist",
    # C++ keywords not in the list above
    "auto", "bool", "catch", "char", "delete", "double", "explicit", "export", "extern",
    "false", "float", "friend", "goto", "inline", "long", "mutable", "namespace", "operator",
    "private", "public", "register", "short", "sizeof", "switch", "template", "throw", "true",
    "try", "typename", "using", "volatile", "concept", "requires", "co_await", "co_return",
    "co_yield", "constexpr", "consteval", "constinit", "decltype", "noexcept", "nullptr",
    "union", "static_assert", "thread_local",
    # members of the generated C++ classes
    "bytes", "encode", "decode", "for_each_field",
}


class SpecError(Exception):
    """One or more problems in the spec; str() lists each on its own line."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Constant:
    name: str
    value: int
    doc: str
    width: int | None  # None: a plain integer (int unsigned / std::uint32_t)


@dataclass
class EnumValue:
    name: str
    value: int
    doc: str


@dataclass
class Enum:
    name: str
    width: int
    sv_prefix: str
    doc: str
    values: list[EnumValue]

    def sv_value(self, v: EnumValue) -> str:
        """The SV enumerator: prefix and name in UpperCamelCase (CNT_ + DROP_WD ->
        CntDropWd), the same words as the C++ enumerator (kDropWd)."""
        return "".join(p[:1].upper() + p[1:].lower() for p in (self.sv_prefix + v.name).split("_") if p)


@dataclass
class Field:
    name: str
    doc: str
    offset: int  # bit offset of element 0
    width: int  # bits of one element
    count: int | None  # None: scalar; else number of elements
    enum: Enum | None = None
    sub: "Format | None" = None  # nested record type

    @property
    def elements(self) -> int:
        return 1 if self.count is None else self.count

    @property
    def total_width(self) -> int:
        return self.width * self.elements

    @property
    def end(self) -> int:  # one past the last bit
        return self.offset + self.total_width


@dataclass
class Format:
    name: str
    doc: str
    size_bytes: int
    fields: list[Field] = field(default_factory=list)

    @property
    def size_bits(self) -> int:
        return self.size_bytes * 8


@dataclass
class Spec:
    path: Path
    version: int
    doc: str
    constants: dict[str, Constant]
    enums: dict[str, Enum]
    formats: dict[str, Format]


def bits(lo: int, width: int) -> str:
    """[hi:lo] in the spec's LSB-first numbering."""
    return f"[{lo + width - 1}:{lo}]" if width > 1 else f"[{lo}]"


class _Loader:
    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()
        self.problems: list[str] = []

    # -- locating things in the source, so messages can name the line ----------

    def _line_of(self, pattern: str, after: int = 0) -> int | None:
        rx = re.compile(pattern)
        for i in range(after, len(self.lines)):
            if rx.search(self.lines[i]):
                return i
        return None

    def where(self, table: str | None = None, name: str | None = None) -> str:
        line = None
        if table is not None:
            parts = table.split(".")
            header = r"^\s*\[\s*" + r"\s*\.\s*".join(re.escape(p) for p in parts) + r"\s*\]"
            line = self._line_of(header)
            if line is not None and name is not None:
                hit = self._line_of(r"\bname\s*=\s*\"" + re.escape(name) + r"\"", line + 1)
                line = hit if hit is not None else line
        return f"{self.path.name}:{line + 1}" if line is not None else self.path.name

    def problem(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    # -- integer expressions over constants ------------------------------------

    def evaluate(self, raw, constants: dict[str, Constant], what: str, where: str) -> int | None:
        if isinstance(raw, bool) or not isinstance(raw, (int, str)):
            self.problem(where, f"{what}: expected an integer or an expression, got {raw!r}")
            return None
        if isinstance(raw, int):
            return raw
        try:
            tree = ast.parse(raw, mode="eval")
        except SyntaxError:
            self.problem(where, f"{what}: cannot parse expression {raw!r}")
            return None

        def ev(node) -> int:
            if isinstance(node, ast.Expression):
                return ev(node.body)
            if isinstance(node, ast.Constant) and type(node.value) is int:
                return node.value
            if isinstance(node, ast.Name):
                if node.id not in constants:
                    raise ValueError(f"unknown constant '{node.id}'")
                return constants[node.id].value
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                return -ev(node.operand)
            if isinstance(node, ast.BinOp):
                a, b = ev(node.left), ev(node.right)
                if isinstance(node.op, ast.Add):
                    return a + b
                if isinstance(node.op, ast.Sub):
                    return a - b
                if isinstance(node.op, ast.Mult):
                    return a * b
                if isinstance(node.op, (ast.Div, ast.FloorDiv)):
                    if b == 0 or a % b:
                        raise ValueError(f"{a} / {b} is not an exact integer division")
                    return a // b
            raise ValueError("only integers, constants, + - * / and parentheses are allowed")

        try:
            return ev(tree)
        except ValueError as exc:
            self.problem(where, f"{what}: expression {raw!r}: {exc}")
            return None

    # -- sections ---------------------------------------------------------------

    def check_keys(self, table: dict, allowed: set[str], required: set[str], where: str,
                   what: str) -> bool:
        ok = True
        for key in sorted(set(table) - allowed):
            self.problem(where, f"{what}: unknown key '{key}' (allowed: {', '.join(sorted(allowed))})")
            ok = False
        for key in sorted(required - set(table)):
            self.problem(where, f"{what}: missing key '{key}'")
            ok = False
        return ok

    def load_constants(self, raw: dict) -> dict[str, Constant]:
        out: dict[str, Constant] = {}
        for name, body in raw.items():
            where = self.where(f"constants.{name}")
            what = f"constant '{name}'"
            if not _UPPER_IDENT.match(name):
                self.problem(where, f"{what}: name must be UPPER_SNAKE_CASE")
                continue
            if not isinstance(body, dict):
                self.problem(where, f"{what}: expected a table with value and doc")
                continue
            if not self.check_keys(body, {"value", "doc", "width"}, {"value", "doc"}, where, what):
                continue
            value = body["value"]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                self.problem(where, f"{what}: value must be a non-negative integer")
                continue
            width = body.get("width")
            if width is not None:
                if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= 64:
                    self.problem(where, f"{what}: width must be an integer 1 .. 64")
                    continue
                if value >> width:
                    self.problem(where, f"{what}: value {value:#x} does not fit in {width} bits")
                    continue
            elif value >> 32:
                self.problem(where, f"{what}: value {value:#x} needs a width (it exceeds 32 bits)")
                continue
            out[name] = Constant(name, value, _doc(body["doc"]), width)
        return out

    def load_enums(self, raw: dict) -> dict[str, Enum]:
        out: dict[str, Enum] = {}
        for name, body in raw.items():
            where = self.where(f"enums.{name}")
            what = f"enum '{name}'"
            if not _IDENT.match(name) or name in _RESERVED_NAMES:
                self.problem(where, f"{what}: name must be lower_snake_case and not a keyword")
                continue
            if not isinstance(body, dict) or not self.check_keys(
                    body, {"width", "sv_prefix", "doc", "values"},
                    {"width", "sv_prefix", "doc", "values"}, where, what):
                continue
            width = body["width"]
            if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= 64:
                self.problem(where, f"{what}: width must be an integer 1 .. 64, got {width!r}")
                continue
            prefix = body["sv_prefix"]
            if not isinstance(prefix, str) or (prefix and not _UPPER_IDENT.match(prefix)):
                self.problem(where, f"{what}: sv_prefix must be UPPER_SNAKE_CASE")
                continue
            values: list[EnumValue] = []
            names: set[str] = set()
            numbers: dict[int, str] = {}
            if not isinstance(body["values"], list) or not body["values"]:
                self.problem(where, f"{what}: values must be a non-empty list")
                continue
            for item in body["values"]:
                if not isinstance(item, dict) or not self.check_keys(
                        item, {"name", "value", "doc"}, {"name", "value", "doc"}, where, what):
                    continue
                vname, value = item["name"], item["value"]
                vwhere = self.where(f"enums.{name}", vname)
                vwhat = f"{what} value '{vname}'"
                if not isinstance(vname, str) or not _UPPER_IDENT.match(vname):
                    self.problem(vwhere, f"{vwhat}: name must be UPPER_SNAKE_CASE")
                    continue
                if vname in names:
                    self.problem(vwhere, f"{what}: duplicate value name '{vname}'")
                    continue
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    self.problem(vwhere, f"{vwhat}: value must be a non-negative integer")
                    continue
                if value >> width:
                    self.problem(vwhere, f"{vwhat}: value {value} does not fit the enum's {width} bits")
                    continue
                if value in numbers:
                    self.problem(vwhere, f"{vwhat}: value {value} already used by '{numbers[value]}'")
                    continue
                names.add(vname)
                numbers[value] = vname
                values.append(EnumValue(vname, value, _doc(item["doc"])))
            out[name] = Enum(name, width, prefix, _doc(body["doc"]), values)
        return out

    def load_formats(self, raw: dict, constants: dict[str, Constant],
                     enums: dict[str, Enum]) -> dict[str, Format]:
        out: dict[str, Format] = {}
        shares: list[tuple[Format, dict, str]] = []
        for name, body in raw.items():
            where = self.where(f"formats.{name}")
            what = f"format '{name}'"
            if not _IDENT.match(name) or name in _RESERVED_NAMES:
                self.problem(where, f"{what}: name must be lower_snake_case and not a keyword")
                continue
            if not isinstance(body, dict) or not self.check_keys(
                    body, {"doc", "size_bytes", "fields", "shares"},
                    {"doc", "size_bytes", "fields"}, where, what):
                continue
            size = self.evaluate(body["size_bytes"], constants, f"{what}: size_bytes", where)
            if size is None:
                continue
            if size <= 0:
                self.problem(where, f"{what}: size_bytes must be positive, got {size}")
                continue
            fmt = Format(name, _doc(body["doc"]), size)
            if not isinstance(body["fields"], list) or not body["fields"]:
                self.problem(where, f"{what}: fields must be a non-empty list")
                continue
            self.load_fields(fmt, body["fields"], constants, enums, out)
            self.check_layout(fmt)
            out[name] = fmt
            if "shares" in body:
                shares.append((fmt, body["shares"], where))
        for fmt, share, where in shares:
            self.check_shares(fmt, share, out, where)
        return out

    def load_fields(self, fmt: Format, raw: list, constants: dict[str, Constant],
                    enums: dict[str, Enum], earlier: dict[str, Format]) -> None:
        seen: set[str] = set()
        cursor = 0
        for item in raw:
            if not isinstance(item, dict):
                self.problem(self.where(f"formats.{fmt.name}"),
                             f"format '{fmt.name}': each field must be an inline table")
                continue
            fname = item.get("name")
            where = self.where(f"formats.{fmt.name}", fname if isinstance(fname, str) else None)
            what = f"format '{fmt.name}' field '{fname}'"
            if not self.check_keys(item, {"name", "doc", "offset", "width", "count", "enum", "type"},
                                   {"name", "doc"}, where, what):
                continue
            if not isinstance(fname, str) or not _IDENT.match(fname):
                self.problem(where, f"{what}: name must be lower_snake_case")
                continue
            if fname in _RESERVED_NAMES:
                self.problem(where, f"{what}: '{fname}' is a keyword or a name the generated code uses")
                continue
            if fname.startswith("rsvd"):
                self.problem(where, f"{what}: names starting with 'rsvd' are kept for reserved gaps")
                continue
            if fname in seen:
                self.problem(where, f"format '{fmt.name}': duplicate field name '{fname}'")
                continue
            seen.add(fname)
            if not _doc(item["doc"]):
                self.problem(where, f"{what}: doc is empty; say what the field means")
                continue
            if "enum" in item and "type" in item:
                self.problem(where, f"{what}: give either enum or type, not both")
                continue

            enum = sub = None
            width = None
            if "width" in item:
                width = self.evaluate(item["width"], constants, f"{what}: width", where)
                if width is None:
                    continue
            if "enum" in item:
                enum = enums.get(item["enum"])
                if enum is None:
                    self.problem(where, f"{what}: unknown enum '{item['enum']}'")
                    continue
                fit_width = enum.width if width is None else width
                bad = [v for v in enum.values if fit_width <= 0 or v.value >> fit_width]
                if bad:
                    for v in bad:
                        self.problem(where, f"{what}: enum '{enum.name}' value {v.name}={v.value} "
                                            f"does not fit the field's {fit_width} bits")
                    continue
                if width is not None and width != enum.width:
                    self.problem(where, f"{what}: width {width} differs from enum '{enum.name}' "
                                        f"width {enum.width}")
                    continue
                width = enum.width
            elif "type" in item:
                sub = earlier.get(item["type"])
                if sub is None:
                    self.problem(where, f"{what}: type '{item['type']}' is not a format defined "
                                        "earlier in the spec")
                    continue
                if width is not None and width != sub.size_bits:
                    self.problem(where, f"{what}: width {width} differs from the size of "
                                        f"'{sub.name}' ({sub.size_bits} bits)")
                    continue
                width = sub.size_bits
            if width is None:
                self.problem(where, f"{what}: missing width")
                continue
            if width <= 0:
                self.problem(where, f"{what}: width must be at least 1, got {width}")
                continue
            if sub is None and width > MAX_SCALAR_BITS:
                self.problem(where, f"{what}: width {width} exceeds {MAX_SCALAR_BITS} bits; "
                                    "split it or make it an array")
                continue

            count = None
            if "count" in item:
                count = self.evaluate(item["count"], constants, f"{what}: count", where)
                if count is None:
                    continue
                if count <= 0:
                    self.problem(where, f"{what}: count must be at least 1, got {count}")
                    continue

            if "offset" in item:
                offset = self.evaluate(item["offset"], constants, f"{what}: offset", where)
                if offset is None:
                    continue
                if offset < 0:
                    self.problem(where, f"{what}: offset must not be negative, got {offset}")
                    continue
            else:
                offset = cursor
            if sub is not None and offset % 8:
                self.problem(where, f"{what}: a nested '{sub.name}' must start on a byte "
                                    f"boundary, offset {offset} is not")
                continue
            fld = Field(fname, _doc(item["doc"]), offset, width, count, enum, sub)
            fmt.fields.append(fld)
            cursor = fld.end

    def check_layout(self, fmt: Format) -> None:
        where_fmt = f"format '{fmt.name}'"
        for f in fmt.fields:
            if f.end > fmt.size_bits:
                self.problem(self.where(f"formats.{fmt.name}", f.name),
                             f"{where_fmt} field '{f.name}' (bits {bits(f.offset, f.total_width)}) "
                             f"runs past the format's declared size of {fmt.size_bits} bits "
                             f"({fmt.size_bytes} bytes)")
        ordered = sorted(fmt.fields, key=lambda f: (f.offset, fmt.fields.index(f)))
        for i, f in enumerate(ordered):
            for g in ordered[:i]:
                if g.end > f.offset:
                    self.problem(self.where(f"formats.{fmt.name}", f.name),
                                 f"{where_fmt} field '{f.name}' (bits {bits(f.offset, f.total_width)}) "
                                 f"overlaps field '{g.name}' (bits {bits(g.offset, g.total_width)})")

    def check_shares(self, fmt: Format, share, formats: dict[str, Format], where: str) -> None:
        what = f"format '{fmt.name}': shares"
        if not isinstance(share, dict) or not self.check_keys(
                share, {"format", "fields"}, {"format", "fields"}, where, what):
            return
        other = formats.get(share["format"])
        if other is None:
            self.problem(where, f"{what}: unknown format '{share['format']}'")
            return
        mine = {f.name: f for f in fmt.fields}
        theirs = {f.name: f for f in other.fields}
        for name in share["fields"]:
            a, b = mine.get(name), theirs.get(name)
            if a is None or b is None:
                owner = fmt.name if a is None else other.name
                self.problem(where, f"{what}: field '{name}' does not exist in format '{owner}'")
                continue
            same = (a.offset, a.width, a.count, a.enum and a.enum.name) == \
                   (b.offset, b.width, b.count, b.enum and b.enum.name)
            if not same:
                self.problem(self.where(f"formats.{fmt.name}", name),
                             f"format '{fmt.name}' field '{name}' (bits {bits(a.offset, a.total_width)}) "
                             f"must match format '{other.name}' field '{name}' "
                             f"(bits {bits(b.offset, b.total_width)}) in position, width and enum")

    def check_global_names(self, constants: dict[str, Constant], enums: dict[str, Enum],
                           formats: dict[str, Format]) -> None:
        # The SV package puts constants, enum values and size localparams in one scope.
        owners: dict[str, str] = {}

        def claim(name: str, owner: str) -> None:
            if name in owners:
                self.problem(self.path.name, f"SV name '{name}' of {owner} clashes with {owners[name]}")
            else:
                owners[name] = owner

        for c in constants.values():
            claim(c.name, f"constant '{c.name}'")
        for e in enums.values():
            for v in e.values:
                claim(e.sv_value(v), f"enum '{e.name}' value '{v.name}'")
        for f in formats.values():
            claim(f.name.upper() + "_BITS", f"format '{f.name}' size")
            claim(f.name.upper() + "_BYTES", f"format '{f.name}' size")
        types: dict[str, str] = {}
        for kind, names in (("enum", [e + "_e" for e in enums]), ("format", [f + "_t" for f in formats])):
            for n in names:
                if n in types:
                    self.problem(self.path.name, f"SV type name '{n}' is used twice")
                types[n] = kind


def _doc(raw) -> str:
    text = " ".join(str(raw).split())
    return text


def load(path: Path) -> Spec:
    """Parses and validates the spec; raises SpecError listing every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError([f"{path}: cannot read the spec: {exc.strerror}"]) from exc
    except UnicodeDecodeError as exc:
        raise SpecError([f"{path.name}: not UTF-8 text: byte {exc.start}: {exc.reason}"]) from exc
    return loads(text, path)


def loads(text: str, path: Path) -> Spec:
    """As load(), for spec text already read; `path` names it in messages."""
    path = Path(path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError([f"{path.name}: not valid TOML: {exc}"]) from exc

    loader = _Loader(path, text)
    loader.check_keys(raw, {"spec", "constants", "enums", "formats"},
                      {"spec", "constants", "enums", "formats"}, path.name, "top level")
    head = raw.get("spec", {})
    version = head.get("version", 0) if isinstance(head, dict) else 0
    doc = _doc(head.get("doc", "")) if isinstance(head, dict) else ""
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        loader.problem(loader.where("spec"), "spec: version must be a positive integer")
    if not doc:
        loader.problem(loader.where("spec"), "spec: doc is missing")
    constants = loader.load_constants(raw.get("constants", {}))
    enums = loader.load_enums(raw.get("enums", {}))
    formats = loader.load_formats(raw.get("formats", {}), constants, enums)
    loader.check_global_names(constants, enums, formats)
    if loader.problems:
        raise SpecError(loader.problems)
    return Spec(path, version, doc, constants, enums, formats)
