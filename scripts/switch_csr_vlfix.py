#!/usr/bin/env python3
"""Makes a PeakRDL-regblock block with register arrays buildable by Verilator 5.006.

Verilator 5.006 stops with an internal error (V3Unknown: "No VarRef or Const
under ArraySel") on regblock's register arrays, which are unpacked arrays
inside unpacked structs (decoded_reg_strb.REMAP[i0], hwif_out.PORT[i0], ...),
even with constant indices. Packing them hits further internal errors (V3DfgDfgToAst with DFG on,
V3Delayed on a non-blocking write to field_storage.REMAP[0].NEW_PRIO.value).
What builds, with the same semantics:
- the package (`--pkg`): every struct becomes `struct packed` and every array
  member `T name[N]` the packed `T [N-1:0] name` (element i is still
  name[i]), so the hwif ports are packed and indexable by a genvar;
- the register block: every `for(int|genvar <v>=0; <v><N>; <v>++) begin ...
  end` (nested ones too) becomes N copies of its body with <v> replaced by
  the literal; then the block's own structs (decoded_reg_strb, field_combo,
  field_storage) lose their arrays: member `X[N]` becomes members X_0 ..
  X_<N-1>, and every `field_storage.PORT[3].PFC_THR[2]...` reference becomes
  `field_storage.PORT_3.PFC_THR_2...`.
Used by rtl/switch/CMakeLists.txt on the generated switch_csr_reg_pkg.sv and
switch_csr_reg_top.sv (the generated files are never edited; the rewritten
copies sit next to them in <gen>/switch_csr_vl/).
"""
import re
import sys

FOR_RE = re.compile(r"^(\s*)for\s*\(\s*(?:int|genvar)\s+(\w+)\s*=\s*0\s*;\s*\2\s*<\s*(\d+)\s*;\s*\2\s*\+\+\s*\)\s*begin\s*$")
TOK_RE = re.compile(r"\b(begin|end)\b")


def block_end(lines, start):
    """Index of the line holding the `end` that closes the `begin` on lines[start]."""
    depth = 0
    for k in range(start, len(lines)):
        for tok in TOK_RE.findall(lines[k]):
            depth += 1 if tok == "begin" else -1
            if depth == 0:
                if lines[k].strip() != "end":
                    raise SystemExit(f"switch_csr_vlfix: loop closed on an unexpected line {k + 1}: {lines[k]!r}")
                return k
    raise SystemExit(f"switch_csr_vlfix: loop at line {start + 1} is never closed")


def unroll(lines):
    out = []
    k = 0
    while k < len(lines):
        m = FOR_RE.match(lines[k])
        if not m:
            out.append(lines[k])
            k += 1
            continue
        indent, var, count = m.group(1), m.group(2), int(m.group(3))
        stop = block_end(lines, k)
        body = lines[k + 1:stop]
        var_re = re.compile(r"\b" + re.escape(var) + r"\b")
        for n in range(count):
            out.append(f"{indent}begin // {var} = {n}")
            out.extend(unroll([var_re.sub(str(n), line) for line in body]))
            out.append(f"{indent}end")
        k = stop + 1
    return out


STRUCT_OPEN_RE = re.compile(r"\bstruct\s*\{")
MEMBER_ARRAY_RE = re.compile(r"^(\s*)(\w+(?:::\w+)?)((?:\s*\[[^\]]+\])*)\s+(\w+)\s*\[(\d+)\]\s*;(.*)$")


def pack_structs(lines):
    out = []
    depth = 0
    for line in lines:
        if STRUCT_OPEN_RE.search(line):
            out.append(STRUCT_OPEN_RE.sub("struct packed {", line))
            depth += 1
            continue
        if depth > 0 and line.strip().startswith("}"):
            depth -= 1
            out.append(line)
            continue
        m = MEMBER_ARRAY_RE.match(line) if depth > 0 else None
        if m:
            indent, base, dims, name, count, rest = m.groups()
            out.append(f"{indent}{base} [{int(count) - 1}:0]{dims.strip()} {name};{rest}")
        else:
            out.append(line)
    return out


CLOSE_ARRAY_RE = re.compile(r"^(\s*)\}\s*(\w+)\s*\[(\d+)\]\s*;(.*)$")
LOCAL_REF_RE = re.compile(r"\b(?:decoded_reg_strb|field_combo|field_storage)(?:\.\w+(?:\[\d+\])?)+")


def struct_close(lines, start):
    depth = 0
    for k in range(start, len(lines)):
        depth += lines[k].count("{") - lines[k].count("}")
        if depth == 0:
            return k
    raise SystemExit(f"switch_csr_vlfix: struct at line {start + 1} is never closed")


def flatten_structs(lines, inside=False):
    """Struct member arrays -> numbered members (X[N] -> X_0 .. X_<N-1>)."""
    out = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if STRUCT_OPEN_RE.search(line):
            stop = struct_close(lines, k)
            body = flatten_structs(lines[k + 1:stop], inside=True)
            m = CLOSE_ARRAY_RE.match(lines[stop])
            if m:
                indent, name, count, rest = m.groups()
                for n in range(int(count)):
                    out.append(line)
                    out.extend(body)
                    out.append(f"{indent}}} {name}_{n};{rest}")
            else:
                out.append(line)
                out.extend(body)
                out.append(lines[stop])
            k = stop + 1
            continue
        m = MEMBER_ARRAY_RE.match(line) if inside else None
        if m:
            indent, base, dims, name, count, rest = m.groups()
            for n in range(int(count)):
                out.append(f"{indent}{base}{dims} {name}_{n};{rest}")
        else:
            out.append(line)
        k += 1
    return out


def flatten_refs(lines):
    def one(m):
        return re.sub(r"\[(\d+)\]", r"_\1", m.group(0))
    return [LOCAL_REF_RE.sub(one, line) for line in lines]


def main():
    args = sys.argv[1:]
    pkg = bool(args) and args[0] == "--pkg"
    if pkg:
        args = args[1:]
    if len(args) != 2:
        raise SystemExit("usage: switch_csr_vlfix.py [--pkg] <in.sv> <out.sv>")
    sys.argv = [sys.argv[0]] + args
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    if pkg:
        text = "\n".join(pack_structs(lines))
    else:
        text = "\n".join(flatten_refs(flatten_structs(unroll(lines))))
    try:
        with open(sys.argv[2], encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
