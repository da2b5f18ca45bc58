"""Small readers of DWARF entries (pyelftools DIEs): an attribute, a name, the type behind typedefs and
qualifiers, where an inlined or abstract entry comes from, a size, an array's count, a per-unit cache."""

from __future__ import annotations

_QUALIFIERS = {"DW_TAG_const_type", "DW_TAG_volatile_type", "DW_TAG_restrict_type", "DW_TAG_atomic_type"}


def _attr(die, name: str):
    a = die.attributes.get(name)
    return a.value if a is not None else None


def _name(die) -> str | None:
    v = _attr(die, "DW_AT_name")
    return v.decode(errors="replace") if isinstance(v, bytes) else v


def _type_of(die):
    return die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None


def _origin(die):
    """The DIE that carries a concrete instance's name and types (its abstract origin or specification)."""
    for attr in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if attr in die.attributes:
            return _origin(die.get_DIE_from_attribute(attr))
    return die


def _strip(die):
    while die is not None and (die.tag in _QUALIFIERS or die.tag == "DW_TAG_typedef"):
        die = _type_of(die)
    return die


def _byte_size(die) -> int | None:
    die = _strip(die)
    if die is None:
        return None
    size = _attr(die, "DW_AT_byte_size")
    if isinstance(size, int):
        return size
    if die.tag == "DW_TAG_array_type":
        count, elem = _count(die), _byte_size(_type_of(die))
        return count * elem if count is not None and elem is not None else None
    return None


def _count(array_die) -> int | None:
    """Elements of an array type (every dimension), or None when a dimension has no bound."""
    total = 1
    for sub in array_die.iter_children():
        if sub.tag != "DW_TAG_subrange_type":
            continue
        count = _attr(sub, "DW_AT_count")
        upper = _attr(sub, "DW_AT_upper_bound")
        if isinstance(count, int):
            total *= count
        elif isinstance(upper, int):
            total *= upper + 1
        else:
            return None
    return total


def _cu_cache(cu, what: str) -> dict:
    """A cache that lives as long as the compile unit it is about: one keyed by offsets alone, kept
    across files, gave a DIE of one file's types to another's (a struct seen extended, or not, by
    whichever file was read before)."""
    caches = cu.__dict__.setdefault("_supercoder_caches", {})
    return caches.setdefault(what, {})
