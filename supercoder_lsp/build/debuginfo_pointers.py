"""The pointers of a struct, from its DWARF type: the ones it holds directly, the ones in its members,
the struct that extends it (a public handle's private state), a union's storage struct, the fields
that point back to the handle, a callback's kind."""

from __future__ import annotations

from .dwarf import _attr, _byte_size, _count, _cu_cache, _strip, _type_of

MAX_FIELDS = 4096


def _direct_pointers(die):
    """(offset, pointee DIE with typedefs and qualifiers stripped, or None for void) of each direct
    pointer member of a struct."""
    for m in die.iter_children():
        t = _strip(_type_of(m)) if m.tag == "DW_TAG_member" else None
        loc = _attr(m, "DW_AT_data_member_location")
        if t is not None and t.tag == "DW_TAG_pointer_type" and isinstance(loc, int):
            yield loc, _strip(_type_of(t))


def _extended_by(die):
    """The one complete struct of die's compilation unit that is larger and begins with a die (zlib's
    gz_state, whose first member is the public struct gzFile_s that gzFile points to), or None."""
    cache = _cu_cache(die.cu, "extended")
    if die.offset not in cache:
        cache[die.offset] = _find_extended(die)
    return cache[die.offset]


def _find_extended(die):
    found = []
    for d in die.cu.iter_DIEs():
        if d.tag != "DW_TAG_structure_type" or "DW_AT_declaration" in d.attributes or d.offset == die.offset:
            continue
        first = next((m for m in d.iter_children() if m.tag == "DW_TAG_member"), None)
        if first is None or _attr(first, "DW_AT_data_member_location") not in (0, None):
            continue
        t = _strip(_type_of(first))
        if t is not None and t.offset == die.offset:
            found.append(d)
    return found[0] if len(found) == 1 else None


def _storage_struct(union) -> object | None:
    """The one struct member of a union whose other members are storage (arrays of scalars, scalars: its size
    and alignment for users who may not see the struct), as lz4's LZ4_stream_t, LZ4_streamDecode_t and
    LZ4_streamHC_t are; None for any other union (its bytes are drawn as before)."""
    structs, others = [], 0
    for m in union.iter_children():
        if m.tag != "DW_TAG_member":
            continue
        t = _strip(_type_of(m))
        if t is not None and t.tag == "DW_TAG_structure_type" and "DW_AT_declaration" not in t.attributes:
            structs.append(t)
        elif _pointers_in(t, 0, 1) == []:
            others += 1
        else:
            return None
    return structs[0] if len(structs) == 1 and others else None


def _pointing_back(die) -> list:
    """The complete structs of die's compilation unit with a direct pointer member to die's type."""
    out = []
    for d in die.cu.iter_DIEs():
        if d.tag == "DW_TAG_structure_type" and "DW_AT_declaration" not in d.attributes:
            if any(t is not None and t.offset == die.offset for _, t in _direct_pointers(d)):
                out.append(d)
    return out


def _callback_kind(sub) -> str:
    """What a function-pointer member's type says it is: "alloc" for `void *(*)(void *, unsigned, unsigned)`
    (zlib's zalloc: opaque, items, size), "free" for `void (*)(void *, void *)` (zfree), else ""."""
    params = [_strip(_type_of(c)) for c in sub.iter_children() if c.tag == "DW_TAG_formal_parameter"]
    ret = _strip(_type_of(sub))
    ptr = [t is not None and t.tag == "DW_TAG_pointer_type" for t in params]
    ints = [t is not None and t.tag == "DW_TAG_base_type" and _attr(t, "DW_AT_byte_size") == 4 for t in params]
    if ret is not None and ret.tag == "DW_TAG_pointer_type" and len(params) == 3 and ptr[0] and ints[1] and ints[2]:
        return "alloc"
    if ret is None and "DW_AT_type" not in sub.attributes and len(params) == 2 and all(ptr):
        return "free"
    return ""


def _pointers_in(die, base: int, depth: int, most: int = MAX_FIELDS) -> list[int] | None:
    """The offsets of the pointers a type holds at `base`, in order, without listing its other leaves: lz4's
    LZ4_stream_t is a union of a char[16416] and a struct with a hashTable[4096], whose fields are more than
    `most` but whose pointers are two. None where its layout is not known (or it holds over `most`)."""
    die = _strip(die)
    if die is None or depth > 8:
        return None
    if die.tag == "DW_TAG_pointer_type":
        return [base]
    if die.tag in ("DW_TAG_base_type", "DW_TAG_enumeration_type"):
        return []
    if die.tag in ("DW_TAG_structure_type", "DW_TAG_union_type"):
        found: set[int] = set()
        for m in die.iter_children():
            if m.tag != "DW_TAG_member":
                continue
            loc = 0 if die.tag == "DW_TAG_union_type" else _attr(m, "DW_AT_data_member_location") or 0
            if "DW_AT_bit_size" in m.attributes:
                continue  # a bit-field is no pointer
            inner = _pointers_in(_type_of(m), base + loc, depth + 1, most) if isinstance(loc, int) else None
            if inner is None:
                return None
            found.update(inner)
        return sorted(found) if len(found) <= most else None
    if die.tag == "DW_TAG_array_type":
        elem, count = _type_of(die), _count(die)
        inner, size = _pointers_in(elem, 0, depth + 1, most), _byte_size(elem)
        if inner is None or count is None or size is None or count * len(inner) > most:
            return None
        # none in an element, none in the array: not a loop over lz4hc's 65,536 chain entries (0.6 s a job)
        return [base + i * size + o for i in range(count) for o in inner] if inner else []
    return None
