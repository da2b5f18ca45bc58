"""A project built several ways with its own build, its test suite run on each, and its own workload
timed end to end, side by side, for `supercoder apply`.

Each build is a fresh copy of the project's sources (git's tracked and untracked-but-not-ignored files;
without git, the tree less build outputs), so nothing a previous build left is reused. The build command
gets the flags in `CFLAGS` (and `{cflags}` where the command names it). The workload's runs are
interleaved (each round runs every build once, in a shuffled order); a run counts only when it exits 0
and prints what the -O3 build's first run printed, so a build that dies or answers differently gets no
figure. PGO builds with `-fprofile-generate`, runs the workload once to train, and builds a second copy
with `-fprofile-use` (profiles matched across the copies by `-fprofile-prefix-path`; gcc only).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..build.project_copy import copy_project, run_in_group
from ..measure.stats import median_ci, ratio_of_medians_ci
from ..options import InputError


@dataclass
class Build:
    name: str
    cflags: str
    runs_on: str  # which CPUs run it
    edits: dict[str, str] = field(default_factory=dict)  # path relative to the project -> new text
    pgo: bool = False


@dataclass
class Outcome:
    name: str
    cflags: str
    runs_on: str
    built: bool = False
    error: str = ""
    tests: str = "not run"  # "passed", "failed (exit N)", "not run"
    times: list[float] = field(default_factory=list)
    failed_runs: int = 0
    median: float | None = None
    median_ci: tuple[float, float] | None = None
    speedup: float | None = None
    speedup_ci: tuple[float, float] | None = None
    verdict: str = ""


def _sh(cmd: str, cwd: Path, cflags: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "CFLAGS": cflags}
    cmd = cmd.replace("{cflags}", cflags)  # as written: the command quotes it ("-DCMAKE_C_FLAGS='{cflags}'")
    try:
        return run_in_group(cmd, cwd, env, timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, b"", f"timed out after {timeout:.0f} s".encode())


def _tail(p: subprocess.CompletedProcess) -> str:
    return " ".join((p.stdout + p.stderr).decode(errors="replace").split())[-600:]


class WholeProgram:
    def __init__(
        self,
        project: Path,
        build_cmd: str,
        workload: str,
        work: Path,
        *,
        test_cmd: str | None = None,
        timeout: float = 900.0,
    ):
        if not build_cmd.strip() or not workload.strip():
            raise InputError("give the project's build command (--build) and its workload (--workload)")
        self.project, self.build_cmd, self.workload, self.test_cmd = project, build_cmd, workload, test_cmd
        self.work, self.timeout = work, timeout

    def _build(self, b: Build, out: Outcome) -> Path | None:
        where = self.work / b.name.replace(" ", "_").replace("/", "_")
        copy_project(self.project, where, b.edits)
        flags = b.cflags
        if b.pgo:
            trained = self._trained(b, where, out)
            if trained is None:
                return None
            flags = trained
            out.cflags = f"{b.cflags} -fprofile-use (trained on the workload)"
        p = _sh(self.build_cmd, where, flags, self.timeout)
        if p.returncode != 0:
            out.error = f"the build failed (exit {p.returncode}): {_tail(p)}"
            return None
        out.built = True
        if self.test_cmd:
            t = _sh(self.test_cmd, where, flags, self.timeout)
            out.tests = "passed" if t.returncode == 0 else f"failed (exit {t.returncode}): {_tail(t)[-300:]}"
        return where

    def _trained(self, b: Build, where: Path, out: Outcome) -> str | None:
        """PGO: `where` built with -fprofile-generate and the workload run there once, then emptied and
        copied again (the same paths: gcc's profiles check each function's file and lines); the flags
        that use the profile, or None (and out.error) where a step failed."""
        prof = self.work / "pgo-profile"
        gen = f"{b.cflags} -fprofile-generate={prof} -fprofile-prefix-path={where}"
        g = _sh(self.build_cmd, where, gen, self.timeout)
        if g.returncode != 0:
            out.error = f"the profiling build failed (exit {g.returncode}): {_tail(g)}"
            return None
        t = _sh(self.workload, where, b.cflags, self.timeout)
        if t.returncode != 0:
            out.error = f"the training run of the workload failed (exit {t.returncode}): {_tail(t)}"
            return None
        if not any(prof.rglob("*.gcda")):
            out.error = (
                "the training run wrote no profile (PGO here uses gcc's -fprofile-generate; with clang, "
                "leave it out with --no-pgo)"
            )
            return None
        shutil.rmtree(where)
        copy_project(self.project, where, b.edits)
        return (
            f"{b.cflags} -fprofile-use={prof} -fprofile-prefix-path={where} -fprofile-correction -Wno-missing-profile"
        )

    def run(self, builds: list[Build], runs: int = 10, seed: int = 0) -> list[Outcome]:
        """Build each (the first is the reference), test, and time the workload `runs` rounds, interleaved."""
        outs = [Outcome(b.name, b.cflags, b.runs_on) for b in builds]
        dirs: list[Path | None] = [self._build(b, o) for b, o in zip(builds, outs, strict=True)]
        if dirs[0] is None:
            raise InputError(f"the reference build ({builds[0].name}) failed: {outs[0].error}")
        want: dict[str, str] | None = None
        rng = random.Random(seed)
        live = [i for i, d in enumerate(dirs) if d is not None]
        for rnd in range(runs + 1):  # round 0 warms the caches and is not counted
            order = live[:]
            rng.shuffle(order)
            if rnd == 0:
                order.remove(0)
                order.insert(0, 0)
            for i in order:
                d = dirs[i]
                assert d is not None
                code, dt, got, tail = self._one_run(d)
                if i == 0:
                    if code != 0:
                        raise InputError(f"the workload fails on the reference build (exit {code}): {tail}")
                    want = want or got
                    if got != want:
                        raise InputError(
                            f"the workload's output varies from run to run on the reference build ({_differs(want, got)}): "
                            "make it deterministic, or have it print a checksum of what it must get right"
                        )
                assert want is not None
                if code != 0 or got != want:
                    outs[i].failed_runs += 1
                    outs[i].error = outs[i].error or (
                        f"a workload run exited {code}" if code else f"a workload run {_differs(want, got)}"
                    )
                elif rnd > 0:
                    outs[i].times.append(dt)
        _figures(outs)
        return outs

    def _one_run(self, d: Path) -> tuple[int, float, dict[str, str], str]:
        """One run of the workload in build folder `d`: exit status, seconds, and what it produced: its
        stdout and every file in `d` it wrote (by hash)."""
        start = time.time_ns()
        t0 = time.perf_counter()
        p = _sh(self.workload, d, "", self.timeout)
        dt = time.perf_counter() - t0
        got = {"": hashlib.sha256(p.stdout).hexdigest()}
        for f in d.rglob("*"):
            if f.is_file() and not f.is_symlink() and f.stat().st_mtime_ns >= start:
                got[f.relative_to(d).as_posix()] = hashlib.sha256(f.read_bytes()).hexdigest()
        return p.returncode, dt, got, _tail(p)


def _differs(want: dict[str, str], got: dict[str, str]) -> str:
    """How a run's output differs from the reference's, in words."""
    if want.get("") != got.get(""):
        return "printed other output"
    for name in sorted(set(want) | set(got)):
        if name not in got:
            return f"did not write {name}"
        if name not in want:
            return f"wrote {name}, which the reference build does not"
        if want[name] != got[name]:
            return f"wrote other bytes to {name}"
    return "differs"


def _figures(outs: list[Outcome]) -> None:
    base = outs[0].times
    for o in outs:
        if o.failed_runs or len(o.times) < 3:
            o.verdict = "no figure: " + (o.error or "not built")
            continue
        med, lo, hi = median_ci(o.times)
        o.median, o.median_ci = med, (lo, hi)
        if o is outs[0]:
            o.speedup, o.speedup_ci, o.verdict = 1.0, (1.0, 1.0), "reference"
            continue
        s, slo, shi = ratio_of_medians_ci(base, o.times)
        o.speedup, o.speedup_ci = s, (slo, shi)
        o.verdict = "faster" if slo > 1.0 else "slower" if shi < 1.0 else "no clear difference"


def native_features(cc: str = "cc") -> list[str]:
    """The instruction-set extensions `-march=native` enables here beyond the default target, as compiler `cc`
    (the project's: $CC, else cc) sees them."""

    def macros(flags: list[str]) -> set[str]:
        p = subprocess.run([cc, *flags, "-dM", "-E", "-x", "c", "/dev/null"], capture_output=True, text=True)
        return {ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("#define __")}

    extra = macros(["-march=native"]) - macros([])
    feats = {m.strip("_").lower() for m in extra}
    return sorted(f for f in feats if f.startswith(ISA_PREFIXES))


ISA_PREFIXES = (
    "avx",
    "sse",
    "bmi",
    "popcnt",
    "lzcnt",
    "fma",
    "f16c",
    "movbe",
    "adx",
    "sha",
    "aes",
    "pclmul",
    "vpclmul",
    "gfni",
    "vaes",
    "rdrnd",
    "rdseed",
)
