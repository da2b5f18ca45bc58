"""The attribute that lets a function use CPU features the project's flags do not enable, and
still run on every x86-64 CPU.

A bare `target("popcnt")` makes the function die with SIGILL on a CPU without popcnt. A
`target_clones("...", "default")` builds the function twice and picks one when the program
loads (an ifunc), from what the CPU has. The clone names both compilers accept there are not
the `target` names: gcc 12 refuses `lzcnt` ("use arch= syntax") and clang 14 `arch=` names it
does not know, so features are grouped by the x86-64 microarchitecture levels, which both
accept and which the resolver tests by feature (AMD and Intel alike), not by CPU model.

clang 14 builds the clones but names the dispatcher `f.ifunc`, not `f`, and emits it only in
a file that calls `f`: another file that calls `f` fails to link. For a clang project there is
no such attribute to offer (clones_attribute gives None).
"""

from __future__ import annotations

# gcc/clang target names in each level (x86-64 psABI), each level including the ones before it
LEVELS = (
    ("x86-64-v2", frozenset({"popcnt", "sse4.1", "sse4.2", "ssse3"})),
    ("x86-64-v3", frozenset({"lzcnt", "bmi", "bmi2", "avx", "avx2", "fma", "movbe"})),
    ("x86-64-v4", frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq"})),
)


def clone_target(targets: list[str] | set[str] | frozenset[str]) -> str | None:
    """The one `target_clones` name that gives every target: "popcnt" alone, else the lowest
    microarchitecture level holding them all; None when no level does (e.g. adx)."""
    need = set(targets)
    if not need:
        return None
    if need == {"popcnt"}:
        return "popcnt"  # every CPU with popcnt, not only the ones with all of x86-64-v2
    have: set[str] = set()
    for name, feats in LEVELS:
        have |= feats
        if need <= have:
            return f"arch={name}"
    return None


def clones_attribute(targets: list[str] | set[str] | frozenset[str], compiler: str = "gcc") -> str | None:
    """`target_clones("<clone>", "default")` for these targets, or None: no clone name holds them
    all (see clone_target), or the project's compiler is clang."""
    if "clang" in compiler:
        return None
    clone = clone_target(targets)
    return f'target_clones("{clone}", "default")' if clone else None
