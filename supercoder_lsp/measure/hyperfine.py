"""Whole-program timing with hyperfine.

The baseline runs twice (before and after the candidate, in one hyperfine
invocation) so that the same run measures its own A/A noise. Runs take input
from --bench-input (a shell redirection: hyperfine 1.15 has no --input) or a
--workload command in which {exe} stands for the program.

A run that did not finish is not a time: hyperfine keeps timing programs that
exit non-zero (-i), so every timed run's exit status must be the expected one,
and every run's output is compared with the expected output as it ends (a
file per command, `cmp` after each run; a differing one is kept): otherwise no
ratio is taken (`RunsFailed`).
"""

from __future__ import annotations

import functools
import json
import os
import resource
import shlex
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .. import tools
from ..model import Timing
from ..tools import die_with_parent
from ..verify.program import command_for, first_difference
from ..verify.program_policy import describe_status
from ..verify.sandbox import FILE_SIZE
from .stats import noise_floor, ratio_of_medians_ci

NAMES = ("baseline", "candidate", "baseline-again")


@dataclass(frozen=True)
class Expected:
    """What every timed run must end with: the -O3 program's exit status and its stdout on the same command."""

    status: int
    stdout: bytes


class TooShort(RuntimeError):
    """The runs all ended as expected, but one took no measurable time: no ratio can be taken (what they
    wrote can still be compared)."""


class RunsFailed(RuntimeError):
    """Timed runs that did not end as expected: `side` is "baseline" or "candidate"; `kind` is "sandbox"
    (killed by the program sandbox), "crash" (another signal), "status" or "output"."""

    def __init__(self, side: str, kind: str, message: str):
        super().__init__(message)
        self.side, self.kind = side, kind


def time_programs(
    base_exe: Path,
    cand_exe: Path,
    *,
    bench_input: Path | None = None,
    workload: str | None = None,
    workdir: Path,
    expected: Expected | None = None,
    env: dict[str, str] | None = None,
    warmup: int = 2,
    min_runs: int = 10,
    min_speedup: float = 1.02,
    timeout: float = 900,
    max_runs: int | None = None,
) -> Timing:
    """Both programs timed side by side; `env` adds to both programs' environment (the same containment).
    With `expected`, every run's status and stdout must be it; without, every run's status must be the
    first baseline run's. Raises RunsFailed where a run did not end so (no ratio is taken from it).
    `max_runs`: at most so many runs of each (else hyperfine's least, 3 s of them: hundreds of runs of a
    program of a few ms)."""
    hf = tools.require("hyperfine", "whole-program timing")
    workdir = workdir.resolve()
    tag = cand_exe.name
    want = workdir / f"expected-{tag}.out"
    if expected is not None:
        want.write_bytes(expected.stdout)
    cmds = []
    for name, exe in zip(NAMES, (base_exe, cand_exe, base_exe)):
        cmds.append(_checked(command_for(exe, bench_input, workload), name, workdir, tag, want if expected else None))
    out = workdir / f"hyperfine-{tag}.json"
    for name in NAMES:
        _bad(workdir, tag, name).unlink(missing_ok=True)
    # -i: every run's exit status is checked here instead (a program killed by the sandbox exits fast)
    argv = [
        hf,
        "--style",
        "none",
        "-i",
        "--warmup",
        str(warmup),
        "--min-runs",
        str(min_runs),
        *(("--max-runs", str(max_runs)) if max_runs is not None else ()),
        "--export-json",
        str(out),
    ]
    for name, cmd in zip(NAMES, cmds):
        argv += ["-n", name, cmd]
    _run(argv, Path.cwd(), timeout, env)  # where the user ran it: relative --bench-input and --workload paths hold
    res = json.loads(out.read_text())["results"]
    _check_runs(res, expected, workdir, tag)
    return _timing(res, min_speedup)


def _bad(workdir: Path, tag: str, name: str) -> Path:
    return workdir / f"differs-{tag}-{name}.out"


def _checked(cmd: str, name: str, workdir: Path, tag: str, want: Path | None) -> str:
    """The command with its stdout to a file, compared after the run with `want` (a differing output is
    copied aside), the command's own exit status kept."""
    got = shlex.quote(str(workdir / f"timed-{tag}-{name}.out"))
    check = ""
    if want is not None:
        check = f"cmp -s {got} {shlex.quote(str(want))} || cp {got} {shlex.quote(str(_bad(workdir, tag, name)))}; "
    return f"( {cmd} ) > {got}; s=$?; {check}exit $s"


def _check_runs(res: list[dict], expected: Expected | None, workdir: Path, tag: str) -> None:
    """Every timed run ended with the expected status and output, the baseline's first (they decide
    whether anything can be timed), then the candidate's."""
    status = expected.status if expected is not None else _first_status(res)
    for name, r in sorted(zip(NAMES, res), key=lambda nr: nr[0] == "candidate"):
        side = "candidate" if name == "candidate" else "baseline"
        who = "the candidate program" if side == "candidate" else "the -O3 program"
        codes = [-1 if c is None else int(c) for c in (r.get("exit_codes") or [])]
        wrong = [c for c in codes if c != status]
        if wrong:
            worst = max(set(wrong), key=wrong.count)
            kind = "sandbox" if worst == 128 + signal.SIGSYS else "crash" if 128 < worst < 128 + 65 else "status"
            raise RunsFailed(
                side,
                kind,
                f"{len(wrong):,} of {who}'s {len(codes):,} timed runs exited {describe_status(worst)}, not "
                f"{describe_status(status)} as the -O3 program does on the same command: no time is taken from "
                "runs that did not finish",
            )
        bad = _bad(workdir, tag, name)
        if bad.exists():
            got = bad.read_bytes()
            how = first_difference(expected.stdout, got) if expected is not None else "another output"
            raise RunsFailed(side, "output", f"a timed run of {who} differs from the -O3 program: {how}")


def _first_status(res: list[dict]) -> int:
    codes = res[0].get("exit_codes") or [0]
    return int(codes[0])


def _file_limits(parent: int) -> None:
    die_with_parent(parent)
    # no file a timed run writes (its output, now kept for comparison) grows past 64 MiB; no core dumps
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _run(argv: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> None:
    # Candidate programs contain themselves (a seccomp constructor); hyperfine and
    # everything it starts run in their own session, killed whole on timeout.
    p = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        start_new_session=True,
        close_fds=True,
        preexec_fn=functools.partial(_file_limits, os.getpid()),
        env={**os.environ, **(env or {})},
    )
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise RuntimeError(f"hyperfine did not finish within {timeout:.0f}s; use a smaller --bench-input") from None
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if p.returncode != 0:
        raise RuntimeError(f"hyperfine failed: {err.strip()[:1000]}")


def _measurable(times: list[float]) -> list[float]:
    """One command's run times, where hyperfine's subtraction of the shell's own start-up (itself measured,
    noisy) left some at 0: those count as the fastest run that was measured. Where half or more are at 0,
    the runs are below what can be measured and no ratio is taken (`true` reads 0 about one time in two
    on a loaded 2-core machine; an honest program of a millisecond, now and then)."""
    positive = [t for t in times if t > 0.0]
    if len(positive) * 2 <= len(times):
        raise TooShort("the runs took no measurable time; use a bigger --bench-input")
    return [t if t > 0.0 else min(positive) for t in times]


def _timing(res: list[dict], min_speedup: float) -> Timing:
    """The candidate's run times against both baseline runs (before and after it): the ratio of
    medians with its CI, and the baseline's A/A spread as the noise floor."""
    b1, c, b2 = (_measurable(r["times"]) for r in res[:3])
    base = b1 + b2
    med, lo, hi = ratio_of_medians_ci(base, c)
    _, aa_lo, aa_hi = ratio_of_medians_ci(b1, b2)
    floor = noise_floor(aa_lo, aa_hi, min_speedup)
    significant = lo > floor
    mean = res[0]["mean"]
    note = " (runs under 100 ms: too short to time reliably; use a bigger input)" if mean < 0.1 else ""
    if significant:
        detail = f"program {med:.2f}x faster (95% CI {lo:.2f}-{hi:.2f})"
    elif hi < 1 / floor:
        detail = f"program slower: {med:.2f}x (95% CI {lo:.2f}-{hi:.2f})"
    else:
        detail = (
            f"program: no significant difference, {med:.2f}x (95% CI {lo:.2f}-{hi:.2f}; A/A {aa_lo:.2f}-{aa_hi:.2f})"
        )
    return Timing(
        "hyperfine",
        med,
        (lo, hi),
        (aa_lo, aa_hi),
        significant,
        [],
        {
            "unit": "seconds per run",
            "baseline": b1,
            "candidate": c,
            "baseline_again": b2,
            "exit_codes": [r.get("exit_codes") for r in res],
        },
        detail + note,
    )
