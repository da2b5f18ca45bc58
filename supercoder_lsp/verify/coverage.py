"""How much of the function its harness inputs run: line coverage measured with gcov.

Same results on 100,000 inputs say little when every one of them stops at the argument
check (random contents of a `z_stream` reach only zlib's error return). The original is
built once more from its C with the project's flags at -Og plus --coverage (line counts
at -O3 are blurred by scheduling; at -O0 code that can never run here counts, such as
zlib's big-endian branch behind a run-time test of a local), linked into the same
generated harness, and run on
the same inputs outside the seccomp filter (it is the user's own code, never a
candidate's), first on the generated inputs alone, then on the recorded calls of the
program too. gcov's JSON then says which of the function's lines ran.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from .. import build
from ..build.flags import clean_flags
from ..harness.contract import STATIC_ALIAS
from ..model import BuildConfig, Coverage
from .function_check import FunctionHarness

MODE_UNSANDBOXED = 8  # harness/sc_verify.h: the original's own code only
DEFAULT_MIN_COVERAGE = 70  # percent of the function's lines below which a harness cannot verify it


def coverage_json(h: FunctionHarness) -> dict | None:
    """The report's `coverage` of a function: its inputs by origin, and the lines they ran."""
    c = h.coverage
    if not isinstance(c, Coverage):
        return None
    return {
        "generated": h.n_inputs - h.n_recorded - h.not_run,  # not those past the baseline's budget
        "recorded": h.n_recorded,
        "lines": c.lines,
        "percent": c.percent,
        "generated_percent": c.generated_percent,
        "missed": c.missed,
        "narrowed": h.narrowing or None,  # "len in [0, 4095]": the generated inputs were narrowed to it
    }


def _coverage_flags(cfg: BuildConfig) -> list[str]:
    return [f for f in clean_flags(list(cfg.flags)) if not re.fullmatch(r"-O.*|-fprofile.*|--coverage", f)]


def _lines_of(gcov_json: str, function: str) -> dict[int, int]:
    counts: dict[int, int] = {}
    for doc in gcov_json.splitlines():
        doc = doc.strip()
        if not doc:
            continue
        for f in json.loads(doc).get("files", []):
            for ln in f.get("lines", []):
                if ln.get("function_name") == function:
                    n = ln["line_number"]
                    counts[n] = counts.get(n, 0) + int(ln.get("count", 0))
    return counts


def _gcov(gcda: Path, function: str) -> dict[int, int]:
    p = subprocess.run(
        ["gcov", "--json-format", "--stdout", gcda.name],
        cwd=gcda.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if p.returncode != 0:
        raise build.BuildError("gcov", p.stderr[-400:])
    return _lines_of(p.stdout, function)


def _undefined(obj: Path) -> list[str]:
    p = subprocess.run(["nm", "--undefined-only", str(obj)], capture_output=True, text=True, timeout=60)
    return [ln.split()[-1] for ln in p.stdout.splitlines() if ln.split()]


def by_gcov(cfg: BuildConfig) -> str | None:
    """Why coverage cannot be measured with this compiler (None: it can)."""
    if cfg.compiler not in ("gcc", "cc") and not Path(cfg.compiler).name.startswith(("gcc", "cc")):
        return f"coverage is measured with gcc's gcov; the project compiles with {cfg.compiler}"
    return None


def coverage_object(name: str, src: Path, cfg: BuildConfig, workdir: Path) -> Path:
    """The file built for gcov, the function renamed for the harness (`sc_fn`): the same for every harness of
    the function, so built beside the first one's compile (harness_setup.build_harness). Raises BuildError."""
    workdir.mkdir(parents=True, exist_ok=True)
    obj = workdir / "cov.o"
    build.run_tool(
        ["gcc", *_coverage_flags(cfg), "-Og", "--coverage", "-c", str(src.resolve()), "-o", str(obj)],
        "compile with --coverage",
        cwd=cfg.directory,
    )
    aliases = [f"--add-symbol={STATIC_ALIAS}{n}={at},global" for n, at in build.file_variables(obj)]
    build.objcopy(obj, f"--redefine-sym={name}=sc_fn", "--globalize-symbol=sc_fn", "--weaken-symbol=main", *aliases)
    return obj


def measure(
    h: FunctionHarness,
    src: Path,
    cfg: BuildConfig,
    workdir: Path,
    link_flags: tuple[str, ...] = (),
    built: Callable[[], Path] | None = None,
) -> Coverage | str:
    """The function's line coverage under its harness's inputs, or why it could not be measured; `built`:
    the coverage_object built already (or being built), else it is built here."""
    why = by_gcov(cfg)
    if why:
        return why
    try:
        obj = built() if built is not None else coverage_object(h.name, src, cfg, workdir)
        for old in obj.parent.glob("*.gcda"):
            old.unlink()
        try:
            exe = h.link_original(obj, "coverage", extra=("--coverage", *link_flags))
        except build.BuildError:
            # what the rest of the file calls in other files need not exist (the function itself links:
            # its harness did); gcov's own symbols must, from libgcov
            weak = [f"--weaken-symbol={s}" for s in _undefined(obj) if not s.startswith("__gcov")]
            build.objcopy(obj, *weak)
            exe = h.link_original(obj, "coverage", extra=("--coverage", *link_flags))
        gcda = obj.with_suffix(".gcda")
        generated = h.n_inputs - h.n_recorded
        h.run_original(exe, generated, MODE_UNSANDBOXED)
        first = _gcov(gcda, h.name)
        second = None
        if h.n_recorded:  # the counts so far and the recorded calls' (gcov adds a run's to the file's)
            h.run_original(exe, h.n_inputs, MODE_UNSANDBOXED, generated)
            second = _gcov(gcda, h.name)
    except (build.BuildError, RuntimeError) as e:
        return f"coverage could not be measured ({e})"
    if not first:
        return "coverage could not be measured (gcov reported no lines of the function)"
    last = second if second is not None else first
    return Coverage(
        lines=len(first),
        generated=sum(1 for c in first.values() if c > 0),
        recorded=None if second is None else sum(1 for c in second.values() if c > 0),
        missed=sorted(n for n, c in last.items() if c == 0),
    )
