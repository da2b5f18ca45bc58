"""Types from the compiler: what a `-g` build of the file with the project's flags says
about each function (DWARF, read with pyelftools).

The raw text of a C file says `ZEXPORT adler32(uLong adler, const Bytef *buf, uInt len)`;
the compiler, after the preprocessor and every typedef, says `unsigned long (unsigned long,
const unsigned char *, unsigned int)`. DWARF also says whether a function was emitted out
of line at all, which callers it was inlined into, and which functions the preprocessor
removed (they have no entry). Tree-sitter still gives positions in the editor.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from elftools.elf.elffile import ELFFile

from ..model import BuildConfig, CType, Owned, Param, Signature
from .compile import run_tool
from .debuginfo_pointers import (
    MAX_FIELDS,
    _callback_kind,
    _direct_pointers,
    _extended_by,
    _pointers_in,
    _pointing_back,
    _storage_struct,
)
from .debuginfo_static import _static_pointers
from .dwarf import _QUALIFIERS, _attr, _byte_size, _count, _name, _origin, _strip, _type_of
from .flags import clean_flags

# DW_ATE_* base type encodings
_BOOLEAN, _FLOAT, _SIGNED, _SIGNED_CHAR, _UNSIGNED, _UNSIGNED_CHAR, _UTF = 0x2, 0x4, 0x5, 0x6, 0x7, 0x8, 0x10


@dataclass
class CompiledFunction:
    """One function as the compiler saw it."""

    name: str
    signature: Signature
    out_of_line: bool  # emitted as code of its own (it has an address)
    external: bool  # not static
    inlined_into: list[str] = field(default_factory=list)  # functions whose code holds an inlined copy
    decl_line: int | None = None  # the definition's line (1-based): which of several #if alternatives
    decl_file: str | None = None  # the file of that line, as the line table names it


def compile_debug_object(src: str | os.PathLike, cfg: BuildConfig, out: str | os.PathLike) -> None:
    """`cc FLAGS -g -c src`: the project's flags (without its own -g/-flto) plus full debug info."""
    argv = [cfg.compiler, *clean_flags(list(cfg.flags)), "-g", "-c", str(Path(src).resolve()), "-o", str(out)]
    run_tool(argv, "compile with debug info", cwd=cfg.directory)


def ctype_of(die, depth: int = 0) -> CType:
    """A DWARF type as the harness classifies types (see source/ctype.py for the rules)."""
    text, const = "", False
    while die is not None and (die.tag in _QUALIFIERS or die.tag == "DW_TAG_typedef"):
        if die.tag == "DW_TAG_const_type":
            const = True
        if die.tag == "DW_TAG_typedef" and not text:
            text = _name(die) or ""
        die = _type_of(die)
    prefix = "const " if const else ""
    if die is None:
        return CType(prefix + (text or "void"), "void")
    tag = die.tag
    if tag == "DW_TAG_base_type":
        enc, size = _attr(die, "DW_AT_encoding"), (_attr(die, "DW_AT_byte_size") or 0) * 8
        shown = prefix + (text or _name(die) or "?")
        if enc == _BOOLEAN:
            return CType(shown, "bool", 8)
        if enc == _FLOAT and size in (32, 64):
            return CType(shown, "float", size, True)
        if enc in (_SIGNED, _SIGNED_CHAR, _UNSIGNED, _UNSIGNED_CHAR, _UTF) and size in (8, 16, 32, 64):
            return CType(shown, "int", size, enc in (_SIGNED, _SIGNED_CHAR))
        return CType(shown, "other")
    if tag == "DW_TAG_enumeration_type":
        under = _type_of(die)
        signed = under is not None and ctype_of(under).signed
        size = (_attr(die, "DW_AT_byte_size") or 4) * 8
        return CType(prefix + (text or f"enum {_name(die) or ''}".strip()), "int", size, signed)
    if tag == "DW_TAG_pointer_type":
        pointee = ctype_of(_type_of(die), depth + 1) if depth < 8 else CType("?", "other")
        shown = text or f"{pointee.text} *"
        known = pointee.kind in ("int", "bool", "float", "void", "pointer", "struct")
        return CType(
            prefix + shown if text else shown,
            "pointer" if known else "other",
            64,
            False,
            pointee,
            pointee.text.startswith("const "),
        )
    if tag == "DW_TAG_subroutine_type":  # what a function pointer points to
        return CType(prefix + (text or "function"), "function")
    kind = {"DW_TAG_structure_type": "struct", "DW_TAG_union_type": "union"}.get(tag)
    shown = text or (f"{kind} {_name(die) or '(anonymous)'}" if kind else tag.removeprefix("DW_TAG_"))
    union_size = None
    if depth == 1 and kind == "union":
        inner = _storage_struct(die)
        if inner is not None:  # lz4's LZ4_stream_t: char minStateSize[16416] beside the struct it is used as
            union_size, die, kind = _attr(die, "DW_AT_byte_size"), inner, "struct"
            shown = f"{shown} (read as its {_struct_name(inner)})"
    if depth == 1 and kind == "struct":
        wider = _extended_by(die)
        if wider is not None:  # zlib's gzFile: a struct gzFile_s * that the library casts to its gz_state
            die, shown = wider, f"{shown} (a {_struct_name(wider)} that begins with one)"
    size = union_size or _attr(die, "DW_AT_byte_size")
    if kind and isinstance(size, int) and size > 0 and "DW_AT_declaration" not in die.attributes:
        runs: list[tuple[int, int]] = []
        fields = _fields(die, 0, 0, runs=runs)
        if fields is None:  # more leaves than a table of fields holds: its big arrays of scalars as random bytes
            runs = []
            fields = _fields(die, 0, 0, runs=runs, sparse=True)
        if fields is not None:
            code, kinds, owned = _members_behind(die) if depth == 1 and kind == "struct" else ((), (), ())
            data = _data_pointers(die) if depth == 1 and kind == "struct" else ()
            statics = _static_pointers(die, {o for o, *_ in data}) if depth == 1 and kind == "struct" else ()
            return CType(
                prefix + shown,
                "struct",
                0,
                False,
                None,
                const,
                size,
                tuple(fields),
                code,
                owned,
                kinds,
                data,
                statics,
                tuple(runs),
            )
    return CType(prefix + shown, "other")


MAX_OWNED = 64 << 10  # bytes of a private struct generated behind a handle
MAX_OWNED_FIELDS = 16384  # its leaves (zlib's inflate_state: 4,300, most in its code tables)


def _struct_name(die) -> str:
    """A struct's tag, or the typedef that names an anonymous one (zlib's gz_state)."""
    if _name(die):
        return f"struct {_name(die)}"
    for d in die.cu.iter_DIEs():
        if d.tag == "DW_TAG_typedef" and "DW_AT_type" in d.attributes and _type_of(d).offset == die.offset:
            return _name(d) or "larger struct"
    return "larger struct"


def _members_behind(die) -> tuple[tuple[int, ...], tuple[str, ...], tuple[Owned, ...]]:
    """A handle's function-pointer members (and what each is: _callback_kind), and the private structs it
    owns: a pointer member to a complete struct that has a pointer back to the handle's own type (zlib's
    z_stream and its state)."""
    code: list[int] = []
    kinds: list[str] = []
    owned: list[Owned] = []
    for off, target in _direct_pointers(die):
        if target is None:
            continue
        if target.tag == "DW_TAG_subroutine_type":
            code.append(off)
            kinds.append(_callback_kind(target))
            continue
        if target.tag != "DW_TAG_structure_type":
            continue
        if "DW_AT_declaration" in target.attributes:  # opaque here (zlib.h's struct internal_state): the
            # one complete struct of the file that points back to the handle is what the library casts it to
            found = [d for d in _pointing_back(die) if d.offset != die.offset]
            if len(found) != 1:
                continue
            target = found[0]
        size = _attr(target, "DW_AT_byte_size")
        if not isinstance(size, int) or not 0 < size <= MAX_OWNED:
            continue
        back = tuple(o for o, t in _direct_pointers(target) if t is not None and t.offset == die.offset)
        runs: list[tuple[int, int]] = []
        fields = _fields(target, 0, 0, MAX_OWNED_FIELDS, runs)
        if back and fields is not None:
            child = CType(
                f"struct {_name(target) or '(anonymous)'}",
                "struct",
                0,
                False,
                None,
                False,
                size,
                tuple(fields),
                arrays=tuple(runs),
            )
            owned.append((off, child, back, _data_pointers(target)))
    return tuple(code), tuple(kinds), tuple(owned)


_DATA = ("DW_TAG_base_type", "DW_TAG_enumeration_type", "DW_TAG_structure_type", "DW_TAG_union_type")


def _data_pointers(die) -> tuple[tuple[int, int, int, int], ...]:
    """A private struct's pointer members to plain data (scalars, or structs with no pointers in them),
    its own and those of the structs embedded in it: zlib's window, pending_buf and sym_buf, inflate's
    `code *next`, the `next_in` of the z_stream inside a gz_state. Each as (its offset, the size of what it
    points to, and an array of structs of that type of the struct's own that it points into: its offset
    and element count, or 0, 0): inflate_state's next points into its own codes[]."""
    arrays: dict[int, tuple[int, int]] = {}
    for m in die.iter_children():
        t = _strip(_type_of(m)) if m.tag == "DW_TAG_member" else None
        loc = _attr(m, "DW_AT_data_member_location")
        if t is not None and t.tag == "DW_TAG_array_type" and isinstance(loc, int):
            elem, count = _strip(_type_of(t)), _count(t)
            if elem is not None and count:
                arrays.setdefault(elem.offset, (loc, count))
    out: list[tuple[int, int, int, int]] = []
    _collect_data(die, 0, arrays, out, 0)
    return tuple(out)


def _collect_data(die, base: int, arrays: dict, out: list, depth: int) -> None:
    for m in die.iter_children():
        t = _strip(_type_of(m)) if m.tag == "DW_TAG_member" else None
        loc = _attr(m, "DW_AT_data_member_location")
        if t is None or not isinstance(loc, int):
            continue
        if t.tag == "DW_TAG_structure_type" and depth < 4:  # embedded, not pointed to (gz_state's strm)
            _collect_data(t, base + loc, arrays, out, depth + 1)
            continue
        target = _strip(_type_of(t)) if t.tag == "DW_TAG_pointer_type" else None
        if target is None or target.tag not in _DATA:
            continue
        size, fields = _byte_size(target), _fields(target, 0, 0)
        if not size or fields is None or any(kind == "pointer" for _, kind, _, _ in fields):
            continue
        # into an array of its own only for structs (inflate's code *next and codes[], deflate_state's
        # l_desc.dyn_tree and dyn_ltree[]): a byte or short pointer is a buffer of its own (deflate_state's
        # window is not its depth[573])
        own = arrays.get(target.offset, (0, 0)) if target.tag == "DW_TAG_structure_type" else (0, 0)
        out.append((base + loc, size, *own))


Field = tuple[int, str, int, bool]  # (byte offset, "int" | "bool" | "float" | "pointer", bits, signed)


ARRAY_RUN = 16  # elements of an array member from which generated inputs draw it as one (CType.arrays)


def _fields(
    die, base: int, depth: int, most: int = MAX_FIELDS, runs: list | None = None, sparse: bool = False
) -> list[Field] | None:
    """The scalar leaves of a type at `base`, or None when its layout is not fully known (or has more
    than `most` of them). Into `runs`, where given: the byte ranges of its arrays of ARRAY_RUN or more
    elements (the outermost ones: inflate_state's codes[1444]). `sparse`: such an array of scalars gives
    no leaves, its bytes are random (lz4's LZ4_stream_t_internal: a hashTable[4096] beside five fields)."""
    die = _strip(die)
    if die is None or depth > 8:
        return None
    if die.tag in ("DW_TAG_base_type", "DW_TAG_enumeration_type"):
        t = ctype_of(die)
        if t.kind == "bool":
            return [(base, "bool", 8, False)]  # 0 or 1: any other byte is not a _Bool
        if t.kind == "int":
            return [(base, "int", t.bits, t.signed)]
        return [(base, "float", t.bits, True)] if t.kind == "float" else None
    if die.tag == "DW_TAG_pointer_type":
        return [(base, "pointer", 64, False)]
    if die.tag == "DW_TAG_structure_type":
        out: list[Field] = []
        for m in die.iter_children():
            if m.tag != "DW_TAG_member":
                continue
            loc = _attr(m, "DW_AT_data_member_location") or 0
            if not isinstance(loc, int) or "DW_AT_bit_size" in m.attributes:
                return None  # a bit-field: its bits are not a field of their own
            inner = _fields(_type_of(m), base + loc, depth + 1, most, runs, sparse)
            if inner is None:
                return None
            out += inner
        return out if len(out) <= most else None
    if die.tag == "DW_TAG_union_type":  # the bytes of every member: pointers NULL, the rest random bytes
        ptrs = _pointers_in(die, base, depth, most)
        return None if ptrs is None else [(o, "pointer", 64, False) for o in ptrs]
    if die.tag == "DW_TAG_array_type":
        elem, count = _type_of(die), _count(die)
        inner, size = _fields(elem, 0, depth + 1, most), _byte_size(elem)
        if sparse and inner is not None and count is not None and size is not None and count >= ARRAY_RUN:
            if all(k in ("int", "float") for _, k, _, _ in inner):
                return []
        if inner is None or count is None or size is None or count * len(inner) > most:
            return None
        if runs is not None and count >= ARRAY_RUN and inner:
            runs.append((base, base + count * size))
        return [(base + i * size + o, k, b, sg) for i in range(count) for o, k, b, sg in inner]
    return None


def _signature(die) -> Signature:
    d = _origin(die)
    params: list[Param] = []
    variadic = False
    for c in d.iter_children():
        if c.tag == "DW_TAG_formal_parameter":
            params.append(Param(_name(c) or f"arg{len(params)}", ctype_of(_type_of(c))))
        elif c.tag == "DW_TAG_unspecified_parameters":
            variadic = True
    return Signature(ctype_of(_type_of(d)), tuple(params), variadic)


def _inlined_copies(die, into: str, found: dict[int, list[str]]) -> None:
    for c in die.iter_children():
        if c.tag == "DW_TAG_inlined_subroutine" and "DW_AT_abstract_origin" in c.attributes:
            origin = _origin(c).offset
            if into not in found.setdefault(origin, []):
                found[origin].append(into)
        _inlined_copies(c, into, found)


def _file_names(dwarf, cu) -> dict[int, str]:
    """DW_AT_decl_file's numbers -> the file names of the compile unit's line table (from 0 in DWARF 5,
    from 1 before)."""
    lp = dwarf.line_program_for_CU(cu)
    if lp is None:
        return {}
    first = 0 if cu.header["version"] >= 5 else 1
    out = {}
    for k, fe in enumerate(lp["file_entry"]):
        name = fe.name.decode(errors="replace") if isinstance(fe.name, bytes) else str(fe.name)
        out[k + first] = name
    return out


def compiled_functions(obj: str | os.PathLike) -> dict[str, CompiledFunction]:
    """Every function the compile unit defines, by name."""
    out: dict[str, CompiledFunction] = {}
    by_offset: dict[int, str] = {}
    inlined: dict[int, list[str]] = {}
    with open(obj, "rb") as f:
        elf = ELFFile(f)
        if not elf.has_dwarf_info():
            return out
        dwarf = elf.get_dwarf_info()
        for cu in dwarf.iter_CUs():
            files = _file_names(dwarf, cu)
            for die in cu.get_top_DIE().iter_children():
                if die.tag != "DW_TAG_subprogram" or "DW_AT_declaration" in die.attributes:
                    continue
                origin = _origin(die)
                name = _name(origin)
                if not name:
                    continue
                concrete = "DW_AT_low_pc" in die.attributes or "DW_AT_ranges" in die.attributes
                fn = out.get(name)
                if fn is None:
                    fn = out[name] = CompiledFunction(
                        name,
                        _signature(die),
                        False,
                        "DW_AT_external" in origin.attributes,
                        decl_line=_attr(origin, "DW_AT_decl_line"),
                        decl_file=files.get(_attr(origin, "DW_AT_decl_file")),
                    )
                fn.out_of_line = fn.out_of_line or concrete
                by_offset[origin.offset] = name
                if concrete:
                    _inlined_copies(die, name, inlined)
    for offset, callers in inlined.items():
        if offset in by_offset:
            fn = out[by_offset[offset]]
            fn.inlined_into += [c for c in callers if c != fn.name and c not in fn.inlined_into]
    return out
