"""Compilers proposer (offline default): the same function built by the other
compilers, flags and targets available on this machine.

Each variant compiles the whole file with the project's flags plus the
variant's, and the function is cut out of the result. When the win of a
variant comes from a flag or a target feature, the candidate carries the
source-level change that reproduces it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

from .. import build, tools
from ..asm.cut import FunctionMissing, cut_function
from ..asm.features import required_cpu_flags
from ..model import Candidate, SourceChange
from .base import ProposalRequest
from .portable import clones_attribute

# (compiler, extra flags), most promising first.
VARIANTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("gcc", ("-march=native",)),
    ("clang", ("-O3",)),
    ("clang", ("-O3", "-march=native")),
    ("gcc", ("-mpopcnt", "-mlzcnt", "-mbmi", "-mbmi2")),
    ("gcc", ("-funroll-loops",)),
    ("gcc", ("-march=native", "-funroll-loops")),
    ("clang", ("-O3", "-march=native", "-funroll-loops")),
    ("gcc", ("-mavx2",)),
    ("gcc", ("-O2",)),
    ("clang", ("-O2",)),
)

# /proc/cpuinfo flag -> gcc/clang target("...") name
TARGET_NAMES = {
    "popcnt": "popcnt",
    "abm": "lzcnt",
    "bmi1": "bmi",
    "bmi2": "bmi2",
    "avx": "avx",
    "avx2": "avx2",
    "fma": "fma",
    "sse4_1": "sse4.1",
    "sse4_2": "sse4.2",
    "ssse3": "ssse3",
    "movbe": "movbe",
    "avx512f": "avx512f",
    "avx512bw": "avx512bw",
    "avx512vl": "avx512vl",
    "avx512dq": "avx512dq",
    "adx": "adx",
}


def _normalized(asm: str) -> str:
    """Assembly with comments, label names and blank space removed, for duplicate detection."""
    out = []
    for line in asm.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith((".cfi", ".file", ".ident", ".p2align", ".align")):
            continue
        out.append(re.sub(r"\.L\w+", ".L", re.sub(r"\s+", " ", line)))
    return "\n".join(out)


def source_change_for(compiler: str, flags: tuple[str, ...], project_compiler: str, asm: str) -> SourceChange | None:
    targets = sorted(TARGET_NAMES[f] for f in required_cpu_flags(asm) if f in TARGET_NAMES)
    parts, desc = [], []
    unroll = "-funroll-loops" in flags
    if targets:
        clones = clones_attribute(targets, project_compiler)
        if clones is None:  # no clone the project's compiler builds: the flags, for the user to decide
            return SourceChange(
                "flag",
                " ".join(f"-m{t}" for t in targets),
                f"the code needs {', '.join(targets)}: compile this file with these flags only where every "
                "CPU that runs it has them",
            )
        parts.append(clones)
        desc.append(
            f"builds it also with {', '.join(targets)} and picks that copy at load time on CPUs that have "
            f"{'it' if len(targets) == 1 else 'them'} (other CPUs run the original)"
        )
    if unroll and "clang" not in compiler:
        parts.append('optimize("unroll-loops")')
        desc.append("unrolls its loops")
    is_clang = "clang" in compiler and "clang" not in project_compiler
    if is_clang:
        extra = " ".join(f for f in flags if f not in ("-O3",))
        return SourceChange(
            "compiler",
            f"clang -O3 {extra}".strip(),
            "build this file with clang"
            + (f" ({extra})" if extra else "")
            + (f"; the code needs {', '.join(targets)}" if targets else ""),
        )
    if parts:
        return SourceChange(
            "attribute",
            f"__attribute__(({', '.join(parts)}))",
            "add to the function's definition: " + " and ".join(desc),
        )
    other = [f for f in flags if f not in ("-O3",)]
    if other:
        return SourceChange("flag", " ".join(other), f"compile this file with {' '.join(other)}")
    return None


class CompilersProposer:
    name = "compilers"
    refinable = False
    note: str | None = None

    def __init__(self, variants=VARIANTS, timeout: float = 120):
        self.timeout = timeout
        # each variant's assembly of a file (or why it did not build), for every function of it that the run
        # optimizes: the whole file is compiled for each, and lz4.c takes 2.5 s a variant. By the file's
        # contents as read before the compile: a save in between compiles it again
        self._built: dict[tuple[str, str, str, str, tuple[str, ...]], str | build.BuildError] = {}
        self.variants = tuple(v for v in variants if tools.which(v[0]))
        missing = sorted({c for c, _ in variants if not tools.which(c)})
        self.note = (
            (
                f"{', '.join(missing)} not installed: its variants were skipped "
                f"(sudo apt-get install {' '.join(missing)})"
            )
            if missing
            else None
        )

    def settings(self) -> dict:
        return {"name": self.name, "variants": [[c, tools.version(c), *f] for c, f in self.variants]}

    def _variant(self, request: ProposalRequest, compiler: str, flags: tuple[str, ...], out: Path) -> str:
        """The file's assembly with the variant's compiler and flags, compiled once per contents of the file
        (raises its BuildError each time)."""
        src = Path(request.source_path).resolve()
        key = (str(src), hashlib.sha256(src.read_bytes()).hexdigest(), repr(request.build), compiler, flags)
        got = self._built.get(key)
        if got is None:
            try:
                # -w: the project's warning flags under -Werror (cJSON's) stop clang at a gcc-only option
                # (-Wformat-overflow), and a variant's own flags may warn where -O3 did not; no warning
                # changes the code
                got = build.compile_to_asm(
                    src, request.build, out, extra=(*flags, "-w"), compiler=compiler, timeout=self.timeout
                )
            except build.BuildError as e:
                got = e
            for old in [k for k in self._built if k[0] == key[0] and k[1] != key[1]]:
                del self._built[old]  # an earlier version of the file: never asked for again
            self._built[key] = got
        if isinstance(got, build.BuildError):
            raise got
        return got

    def propose(self, request: ProposalRequest, n: int) -> Iterator[Candidate]:
        name = request.function.name
        seen = {_normalized(request.baseline_asm)}
        made = 0
        for i, (compiler, flags) in enumerate(self.variants):
            if made >= n:
                return
            label = f"{compiler}{''.join(flags).replace('-', '_').replace('=', '_')}"
            if compiler == "gcc" and "clang" not in request.build.compiler:
                compiler = request.build.compiler  # the project's own gcc (gcc-12, cc, a cross wrapper, ...)
            origin = f"compilers:{compiler} {' '.join([*request.build.flags, *flags])}"
            out = request.workdir / f"variant{i}.s"
            try:
                asm = self._variant(request, compiler, flags, out)
                cut = cut_function(asm, name)
            except build.BuildError as e:
                what = "timed out" if e.timed_out else "failed"
                yield Candidate(
                    name, "", origin, label, problem=f"the compiler {what} on this variant: {e.output[:500]}"
                )
                made += 1
                continue
            except FunctionMissing:
                # e.g. clang inlined or cloned it: not a candidate for this symbol
                continue
            key = _normalized(cut.text)
            if key in seen:
                continue  # identical to the baseline or to an earlier variant: nothing new to test
            seen.add(key)
            made += 1
            yield Candidate(
                name,
                cut.text,
                origin,
                label,
                source_change=source_change_for(compiler, flags, request.build.compiler, cut.text),
            )
