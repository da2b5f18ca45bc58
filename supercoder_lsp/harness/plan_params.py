"""One parameter's plan from its type: a scalar and its bounds, a struct and its fields, a callback, a
pointer to pointer, a returned pointer; which integer is which pointer's length, and a buffer's capacity."""

from __future__ import annotations

import re

from ..model import CType
from .plan_model import TRAP, OwnedPlan, ParamPlan, c_int_type


def _scalar(name: str, t: CType) -> ParamPlan | None:
    if t.kind == "bool":
        return ParamPlan(name, "bool", "_Bool", 8, False)
    if t.kind == "int" and t.bits in (8, 16, 32, 64):
        return ParamPlan(name, "int", c_int_type(t.bits, t.signed), t.bits, t.signed)
    if t.kind == "float" and t.bits in (32, 64):
        return ParamPlan(name, "float", "float" if t.bits == 32 else "double", t.bits, True)
    return None


def _plain_char(t: CType) -> bool:
    """`char`: text, a C string without a length. Bytes (`unsigned char`, `uint8_t`, `Bytef`) are a buffer."""
    words = [w for w in t.text.replace("*", " ").split() if w not in ("const", "volatile", "restrict")]
    return t.kind == "int" and t.bits == 8 and words == ["char"]


def _bounds(p: ParamPlan, b) -> str | None:
    if b is None:
        return None
    try:
        lo, hi = b
    except (TypeError, ValueError):
        return f"bound for '{p.name}' must be [low, high]"
    if lo > hi:
        return f"bound for '{p.name}': low {lo} > high {hi}"
    if p.role == "array" or p.role == "cstring":
        if lo < 0 or hi > 1 << 20:
            return f"length bound for '{p.name}' must lie in [0, 1048576]"
        p.max_len = int(hi)
        p.lo, p.hi = int(lo), int(hi)
        return None
    if p.role in ("int", "bool"):
        mn = -(1 << (p.bits - 1)) if p.signed else 0
        mx = (1 << (p.bits - 1)) - 1 if p.signed else (1 << p.bits) - 1
        if p.role == "bool":
            mn, mx = 0, 1
        if lo < mn or hi > mx:
            return f"bound for '{p.name}' [{lo}, {hi}] does not fit {p.ctype} [{mn}, {mx}]"
    p.lo, p.hi = lo, hi
    return None


def _record(name: str, t: CType) -> ParamPlan:
    """A pointer to one struct: its bytes, every scalar field random, its pointer fields NULL."""
    rec = t.pointee
    assert rec is not None
    const = "const " if t.const else ""
    n = rec.size
    return ParamPlan(
        name,
        "array",
        f"{const}void *",
        64,
        False,
        lo=n,
        hi=n,
        elem=ParamPlan("", "int", "uint8_t", 8, False),
        max_len=n,
        record=rec.text,
        null_offsets=rec.pointer_offsets,
        fields=tuple(f for f in rec.fields if f[1] in ("int", "bool")),
        code_offsets=rec.code_offsets,
        code_kinds=rec.code_kinds,
        owned=tuple(
            OwnedPlan(off, child.size, child.fields, back, data, child.arrays) for off, child, back, data in rec.owned
        ),
        data=rec.data,
        arrays=rec.arrays,
        statics=rec.statics,
    )


def _callback(name: str, t: CType) -> ParamPlan:
    """A function pointer the caller gives (inflateBack's `in` and `out`): no function the harness has
    would do what the caller's does, so it is TRAP, the same on every input, recorded ones too: a call of
    it crashes that input. What runs before the first call (the argument checks) is verified; coverage
    says how much that is."""
    return ParamPlan(name, "int", "uint64_t", 64, False, lo=TRAP, hi=TRAP, callback=True, user_bounded=True)


def _pointer_to_pointer(name: str, t: CType) -> ParamPlan:
    """`code **table`: where the caller keeps a pointer the function reads and moves, as a struct of one
    pointer field: NULL in generated inputs; the program's recorded calls bring the memory it points to,
    and where the function leaves it is compared as (buffer, offset)."""
    assert t.pointee is not None
    return ParamPlan(
        name,
        "array",
        f"{'const ' if t.const else ''}void *",
        64,
        False,
        lo=8,
        hi=8,
        elem=ParamPlan("", "int", "uint8_t", 8, False),
        max_len=8,
        record=t.pointee.text,
        null_offsets=(0,),
        data=_plain_data(t.pointee.pointee),
    )


def _plain_data(t: CType | None) -> tuple[tuple[int, int, int, int], ...]:
    """For a pointer to pointer: where the inner pointer points to plain data (scalars, or a struct with no
    pointers: zlib's inflate_table(..., code **table, ...)), the one data pointer at offset 0, pointed into
    a generated buffer as a struct's data pointers are (OwnedPlan.data); else none."""
    if t is None:
        return ()
    if t.kind in ("int", "float") and t.bits:
        return ((0, t.bits // 8, 0, 0),)
    if t.kind == "struct" and t.size and not t.pointer_offsets:
        return ((0, t.size, 0, 0),)
    return ()


def _pointer_return(t: CType) -> ParamPlan | None:
    """A returned pointer to scalars (a string, a table entry) or to one struct. The harness compares it
    as NULL, as (argument buffer, offset) where it points into the inputs, and else by what it points
    to: a `char *` the string up to its NUL, any other one element (a struct all its bytes)."""
    pt = t.pointee
    if t.kind != "pointer" or pt is None:
        return None
    if pt.kind == "struct" and pt.size > 0:
        elem, n = ParamPlan("", "int", "uint8_t", 8, False), pt.size
    elif pt.kind == "void":  # zcalloc's block: mostly a place (a block the call allocated), else its first byte
        elem, n = ParamPlan("", "int", "uint8_t", 8, False), 1
    else:
        e = _scalar("", pt)
        if e is None:
            return None
        elem, n = e, max(e.bits // 8, 1)
    role = "string" if _plain_char(pt) else "pointer"
    return ParamPlan("return", role, "const void *", 64, False, elem=elem, max_len=n)


def _whose_length(length: str) -> str | None:
    """Whose length a name says it is: "src" for src_len, "dest" for destLen; None for plain `n`."""
    m = re.match(r"^(.+?)_?(len|length|size|count|num|sz|cap|capacity)$", length, re.I)
    return m[1].lower().rstrip("_") if m else None


def _length_of_another(length: str, pointer: str) -> bool:
    """Whether a length's name says whose length it is, and that is not `pointer`: stream_size is not
    the length of version; src_len is the length of src (or of srcbuf)."""
    whose, ptr = _whose_length(length), pointer.lower()
    return whose is not None and not (ptr.startswith(whose) or whose.startswith(ptr))


def _capacities(plans: list[ParamPlan], pointers: list[int]) -> None:
    """Pair each buffer with a length passed by pointer that names it (dest and uLongf *destLen): the
    harness sets *destLen to dest's generated length, as a caller gives its capacity."""
    for j in pointers:
        q = plans[j]
        if q.role != "array" or q.element.role != "int" or q.record:
            continue
        whose = _whose_length(q.name)
        for i in pointers:
            p = plans[i]
            if i != j and whose and p.name.lower() == whose and p.capacity_param is None and p.role == "array":
                p.capacity_param, q.capacity_of = j, i
                q.probe, q.lo, q.hi, q.max_len = False, 1, 1, 1
                break
