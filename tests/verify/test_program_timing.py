"""Whole-program timing claims nothing from runs that did not run: the -O3 program and the candidate's run
under one containment, every timed run's status and output are checked, a workload's named input files
may be read (and nothing else opened), and a speedup the function's share cannot give is refused."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from support import FIXTURES, run_json

from supercoder_lsp.hotness import inclusive_shares
from supercoder_lsp.measure.hyperfine import Expected, RunsFailed, time_programs
from supercoder_lsp.model import CandidateResult, Timing
from supercoder_lsp.optimize.file_context import program_sandbox_object
from supercoder_lsp.optimize.judge import Judge, Rejected
from supercoder_lsp.optimize.program_timing import amdahl_bound
from supercoder_lsp.verify.program_policy import program_env

WORKLOAD = FIXTURES / "verify" / "workload_file"

OPENER = r"""
#include <stdio.h>
#include <string.h>
/* prints the size of the file it is given, opened as argv[2] says ("r" or "w") */
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], argc > 2 ? argv[2] : "r");
    if (!f) { printf("cannot open\n"); return 5; }
    fseek(f, 0, SEEK_END);
    printf("%ld\n", ftell(f));
    return 0;
}
"""


def _program(tmp: Path, name: str, src: str, contained: bool = True) -> Path:
    c = tmp / f"{name}.c"
    c.write_text(src)
    exe = tmp / name
    objs = [str(program_sandbox_object(tmp))] if contained else []
    subprocess.run(["gcc", "-O1", str(c), *objs, "-o", str(exe)], check=True)
    return exe


def _input(tmp: Path, size: int) -> Path:
    f = tmp / "input.bin"
    f.write_bytes(random.Random(3).randbytes(size))
    return f


def test_a_contained_program_may_read_the_files_its_workload_names_and_nothing_else(tmp_path):
    exe = _program(tmp_path, "opener", OPENER)
    named = _input(tmp_path, 1234)
    other = tmp_path / "other.bin"
    other.write_bytes(b"x" * 10)
    env = {**program_env(f"{{exe}} {named.name}", tmp_path)}

    def run(*args: str, with_env=True):
        return subprocess.run([str(exe), *args], capture_output=True, cwd=tmp_path, env=env if with_env else {})

    ok = run(str(named))
    assert ok.returncode == 0 and ok.stdout == b"1234\n"
    denied = run(str(other))  # Landlock: another file is not there for it
    assert denied.returncode == 5 and denied.stdout == b"cannot open\n"
    written = run(str(named), "w")  # the named file, for writing: the sandbox stops the call
    assert written.returncode == -31 and named.stat().st_size == 1234
    unnamed = run(str(named), with_env=False)  # no workload files: nothing opens
    assert unnamed.returncode == -31


def test_timed_runs_that_die_or_write_another_output_give_no_ratio(tmp_path):
    """hyperfine keeps timing with -i; every run's exit status and output is checked instead (in 3 to 5 runs of
    each: at hyperfine's least of 3 s, thousands of runs of a program that dies at once were a minute here)."""
    # tens of ms of work: a run of puts alone, and on a busy machine one of a few ms (1e6 steps), took no
    # measurable time once hyperfine took off its overhead
    good = _program(
        tmp_path,
        "good",
        "#include <stdio.h>\nint main(void){ volatile unsigned s = 0; for (unsigned i = 0; i < 20000000; i++) s += i;"
        ' puts("42"); return 0; }\n',
    )
    dies = _program(
        tmp_path, "dies", "#include <unistd.h>\n#include <sys/syscall.h>\nint main(void){ syscall(SYS_getppid); }\n"
    )
    lies = _program(tmp_path, "lies", '#include <stdio.h>\nint main(void){ puts("41"); return 0; }\n')
    want = Expected(0, b"42\n")
    with pytest.raises(RunsFailed) as e:
        time_programs(good, dies, workload="{exe}", workdir=tmp_path, expected=want, min_runs=3, max_runs=5, warmup=0)
    assert e.value.side == "candidate" and e.value.kind == "sandbox"
    assert "159 (killed by signal 31, SIGSYS: stopped by the program sandbox)" in str(e.value)
    with pytest.raises(RunsFailed) as e:
        time_programs(good, lies, workload="{exe}", workdir=tmp_path, expected=want, min_runs=3, max_runs=5, warmup=0)
    assert e.value.side == "candidate" and e.value.kind == "output"
    with pytest.raises(RunsFailed) as e:  # the baseline's runs decide first: nothing can be timed
        time_programs(dies, good, workload="{exe}", workdir=tmp_path, expected=want, min_runs=3, max_runs=5, warmup=0)
    assert e.value.side == "baseline"
    t = time_programs(good, good, workload="{exe}", workdir=tmp_path, expected=want, min_runs=3, max_runs=5, warmup=0)
    assert all(c == [0] * len(c) for c in t.samples["exit_codes"])


def test_a_workload_that_names_its_input_file_claims_what_stdin_would(tmp_path):
    """The 40-line program: its -O3 program used to run uncontained and every candidate's died at once in
    the sandbox (opening the named file), which read as 150-1800x. Now both are contained alike and may read
    the named file: what is claimed is what the same data on stdin gives."""
    _input(tmp_path, 200_000)
    args = [str(WORKLOAD / "digest.c"), "-f", "print_digest", "--tests", str(WORKLOAD / "tests")]
    # a function harness too (what it prints is compared): a few rounds, few inputs, the programs decide here
    args += ["--proposer", "compilers", "-n", "2", "--bound", "print_digest.rounds=0:3", "--inputs", "2000"]
    data = run_json(*args, "--workload", "{exe} 100 input.bin", cwd=tmp_path)
    [fn] = data["functions"]
    assert fn["candidates"]
    for c in fn["candidates"]:
        assert c["program_speedup"] is not None and c["program_speedup"] < 3, c["detail"]
    # the data through a name the workload does not show: the -O3 program itself is stopped, and says by what
    data = run_json(*args, "--workload", "{exe} 100 $(echo input.bin)", cwd=tmp_path)
    for c in data["functions"][0]["candidates"]:
        assert c["status"] == "rejected" and c["reason"] == "not-faster"
        assert "openat (257)" in c["detail"] and "read-only" in c["detail"], c["detail"]


def _t(x: float) -> Timing:
    return Timing("hyperfine", x, (x * 0.97, x * 1.03), (0.99, 1.01), True, [], {}, f"program {x:.2f}x faster")


def test_a_program_speedup_beyond_the_functions_share_is_a_measurement_error(tmp_path):
    """Amdahl: a function with 30% of the instructions (60% of the time at most) cannot make it 100x faster."""
    assert amdahl_bound(0.3) == pytest.approx(2.5) and amdahl_bound(0.6) == float("inf")
    judge = Judge(None, None, "", set(), None, None, None, tmp_path, workload="{exe}", program_share=lambda: 0.3)  # type: ignore[arg-type]
    judge.fn = type("F", (), {"name": "f"})()  # type: ignore[assignment]
    r = CandidateResult("c", "x", "rejected", None, "", "", program_timing=_t(100.0))
    with pytest.raises(Rejected) as e:
        judge._decide(r)
    assert e.value.reason == "not-faster" and "measurement error" in e.value.detail and "30.0%" in e.value.detail
    r = CandidateResult("c", "x", "rejected", None, "", "", program_timing=_t(1.5))
    judge._decide(r)
    assert r.status == "accepted"


def test_a_functions_share_counts_what_it_calls_and_a_function_never_run_has_none(tmp_path):
    exe = _program(
        tmp_path,
        "shares",
        "#include <stdio.h>\n"
        "__attribute__((noinline)) unsigned long inner(unsigned long n){ unsigned long s=0;"
        " for (unsigned long i=0;i<n;i++) s+=i*i^(s>>3); return s; }\n"
        "__attribute__((noinline)) unsigned long outer(unsigned long n){ return inner(n) + 1; }\n"
        "__attribute__((noinline)) unsigned long unused(unsigned long n){ return inner(n) * 3; }\n"
        'int main(int c, char **v){ printf("%lu\\n", outer(2000000 + c)); return v == 0 ? (int)unused(3) : 0; }\n',
        contained=False,
    )
    shares = inclusive_shares(str(exe))
    assert shares["outer"] > 0.9 and shares["inner"] > 0.9 and shares["outer"] >= shares["inner"]
    assert shares["unused"] == 0.0
