"""Whole-program timing with hyperfine.

The baseline runs twice (before and after the candidate, in one hyperfine
invocation) so that the same run measures its own A/A noise. Runs take input
from --bench-input (a shell redirection: hyperfine 1.15 has no --input) or a
--workload command in which {exe} stands for the program.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import shlex
import signal
import subprocess
from pathlib import Path

from .. import tools
from ..model import Timing
from ..tools import die_with_parent
from ..verify.sandbox import FILE_SIZE
from .stats import noise_floor, ratio_of_medians_ci


def command_for(exe: Path, bench_input: Path | None, workload: str | None) -> str:
    if workload:
        if "{exe}" not in workload:
            raise ValueError("--workload must contain {exe} where the program goes, e.g. --workload '{exe} < big.txt'")
        return workload.replace("{exe}", shlex.quote(str(exe)))
    if bench_input:
        return f"{shlex.quote(str(exe))} < {shlex.quote(str(bench_input))}"
    raise ValueError("program timing needs --bench-input FILE or --workload CMD")


def time_programs(
    base_exe: Path,
    cand_exe: Path,
    *,
    bench_input: Path | None = None,
    workload: str | None = None,
    workdir: Path,
    warmup: int = 2,
    min_runs: int = 10,
    min_speedup: float = 1.02,
    timeout: float = 900,
    stdout_dir: Path | None = None,
) -> Timing:
    """`stdout_dir` (with `bench_input`): every timed run writes its output to `baseline.out` or
    `candidate.out` there instead of /dev/null, for the caller to compare: a program that notices
    it is being timed cannot skip the work unseen."""
    hf = tools.require("hyperfine", "whole-program timing")
    base_cmd = command_for(base_exe, bench_input, workload)
    cand_cmd = command_for(cand_exe, bench_input, workload)
    if stdout_dir is not None and bench_input and not workload:
        base_cmd += f" > {shlex.quote(str(stdout_dir / 'baseline.out'))}"
        cand_cmd += f" > {shlex.quote(str(stdout_dir / 'candidate.out'))}"
    out = (workdir / f"hyperfine-{cand_exe.name}.json").resolve()
    # -i: a program's exit status is its own business here (it is compared with the original's before timing)
    argv = [
        hf,
        "--style",
        "none",
        "-i",
        "--warmup",
        str(warmup),
        "--min-runs",
        str(min_runs),
        "--export-json",
        str(out),
        "-n",
        "baseline",
        base_cmd,
        "-n",
        "candidate",
        cand_cmd,
        "-n",
        "baseline-again",
        base_cmd,
    ]
    _run(argv, Path.cwd(), timeout)  # where the user ran it: relative --bench-input and --workload paths hold
    return _timing(json.loads(out.read_text())["results"], min_speedup)


def _file_limits(parent: int) -> None:
    die_with_parent(parent)
    # no file a timed run writes (its output, now kept for comparison) grows past 64 MiB; no core dumps
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _run(argv: list[str], cwd: Path, timeout: float) -> None:
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


def _timing(res: list[dict], min_speedup: float) -> Timing:
    """The candidate's run times against both baseline runs (before and after it): the ratio of
    medians with its CI, and the baseline's A/A spread as the noise floor."""
    b1, c, b2 = res[0]["times"], res[1]["times"], res[2]["times"]
    if min(b1 + c + b2, default=0.0) <= 0.0:  # below the clock's resolution: no ratio can be taken
        raise RuntimeError("a run took no measurable time; use a bigger --bench-input")
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
