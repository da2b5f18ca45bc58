"""The file's static arrays a pointer field may point into (zlib's static code tables): their
instances by type, for generated structs to take (CType.static_pointers)."""

from __future__ import annotations

from .dwarf import _QUALIFIERS, _attr, _byte_size, _count, _cu_cache, _name, _origin, _strip, _type_of

MAX_INSTANCES = 64  # a static array's elements a pointer may be given (the first ones)


def _static_instances(cu) -> dict[int, list[tuple[str, int]]]:
    """The compile unit's file-scope variables of struct type, or arrays of them, by the struct's DIE
    offset: (name, byte offset of one element). Variables the compiler left no storage for are not."""
    cache = _cu_cache(cu, "instances")
    if "by_struct" not in cache:
        cache["by_struct"] = _find_instances(cu)
    return cache["by_struct"]


def _find_instances(cu) -> dict[int, list[tuple[str, int]]]:
    found: dict[int, list[tuple[str, int]]] = {}
    for v in cu.get_top_DIE().iter_children():
        if v.tag != "DW_TAG_variable" or "DW_AT_location" not in v.attributes:
            continue
        name, t = _name(_origin(v)), _strip(_type_of(_origin(v)))
        if not name or t is None or not name.isidentifier():
            continue
        count, elem = (_count(t), _strip(_type_of(t))) if t.tag == "DW_TAG_array_type" else (1, t)
        size = _byte_size(elem) if elem is not None else None
        if elem is None or elem.tag != "DW_TAG_structure_type" or not size or not count:
            continue
        found.setdefault(elem.offset, []).extend((name, i * size) for i in range(min(count, MAX_INSTANCES)))
    return found


def _const_pointee(ptr) -> bool:
    t = _type_of(ptr)
    while t is not None and (t.tag in _QUALIFIERS or t.tag == "DW_TAG_typedef"):
        if t.tag == "DW_TAG_const_type":
            return True
        t = _type_of(t)
    return False


def _static_pointers(die, data: set[int]) -> tuple[tuple[int, tuple[tuple[str, int], ...]], ...]:
    """A struct's pointer members to a const struct the file has instances of (not plain data, which
    _data_pointers gives a buffer), its own and those of the structs embedded in it: trees.c's
    tree_desc.stat_desc, and deflate_state's l_desc.stat_desc. Only const ones: a write into a static
    would carry over from one input to the next."""
    instances = _static_instances(die.cu)
    out: list[tuple[int, tuple[tuple[str, int], ...]]] = []

    def walk(d, base: int, depth: int) -> None:
        for m in d.iter_children():
            t = _strip(_type_of(m)) if m.tag == "DW_TAG_member" else None
            loc = _attr(m, "DW_AT_data_member_location")
            if t is None or not isinstance(loc, int):
                continue
            if t.tag == "DW_TAG_structure_type" and depth < 4:
                walk(t, base + loc, depth + 1)
                continue
            target = _strip(_type_of(t)) if t.tag == "DW_TAG_pointer_type" else None
            if target is not None and target.offset in instances and base + loc not in data and _const_pointee(t):
                out.append((base + loc, tuple(instances[target.offset])))

    walk(die, 0, 0)
    return tuple(out)
