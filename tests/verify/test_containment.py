"""Untrusted candidates: a hostile corpus through the real command, and the
run-time sandbox on its own (defence in depth: code that got past screening)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import leftover_processes
from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.harness import include_dir
from supercoder_lsp.harness.plan import make_plan
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.source import parse_functions, remove_definition
from supercoder_lsp.verify.function_check import FunctionHarness
from supercoder_lsp.verify.program import find_tests, run_tests
from supercoder_lsp.verify.sandbox import sandbox_available

FIX = FIXTURES / "hostile"
PROG = FIXTURES / "verify"

EXPECTED = {
    "good-popcnt": {"accepted"},
    "loop-forever": {"timeout"},
    "wild-write": {"crash"},
    "stack-overflow": {"crash"},
    "smash-return": {"crash"},
    "skip-caller": {"crash", "abi-violation"},
    "patch-code": {"crash"},
    "jump-to-input": {"crash"},
}
UNSAFE = [
    "sys-unlink",
    "sys-fork",
    "sys-socket",
    "int80",
    "sysenter",
    "raw-bytes-syscall",
    "macro-syscall",
    "incbin",
    "call-exit",
    "harness-data",
    "init-array",
    "wx-section",
    "absolute-address",
    "rdtsc-cheat",
    "indirect-call",
    "control-register",
    # load-time code and what only the assembled object shows
    "ifunc-fill",
    "init-array-anyname",
    "ctors-section",
    "align-fill-syscall",
    "mid-instruction-syscall",
    "hidden-cache",
    "label-offset-reach",
    "global-offset-reach",
]
EXPECTED.update({name: {"unsafe"} for name in UNSAFE})
# a rewrite may allocate working memory: one that allocates without bound gets NULL past 16 MiB, and its loop
# runs out of time, contained
EXPECTED["call-malloc-loop"] = {"timeout"}


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def canary(tmp_path):
    d = tmp_path / "canary"
    d.mkdir()
    (d / "victim").write_text("must survive\n")
    return d


def test_sandbox_is_available_here():
    assert sandbox_available()


@pytest.mark.serial  # it looks for leftover harness processes anywhere on the machine
def test_hostile_corpus_is_rejected_and_nothing_escapes(tmp_path, canary):
    cands = tmp_path / "cands" / "popcount"
    cands.mkdir(parents=True)
    for f in (FIX / "popcount").glob("*.s"):
        (cands / f.name).write_text(f.read_text().replace("@CANARY@", str(canary / "victim")))
    before = tree_digest(canary)
    home_before = sorted(os.listdir(Path.home()))
    t0 = time.monotonic()
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "supercoder_lsp.cli",
            "optimize",
            "--json",
            "--no-cache",
            str(PROG / "popcount.c"),
            "-f",
            "popcount",
            "--candidates",
            str(tmp_path / "cands"),
            "--tests",
            str(PROG / "tests"),
            "-n",
            "100",
            "--inputs",
            "5000",
            "--rounds",
            "12",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    elapsed = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    [fn] = json.loads(p.stdout)["functions"]
    got = {c["label"]: (c["status"] if c["status"] == "accepted" else c["reason"]) for c in fn["candidates"]}
    assert set(got) == set(EXPECTED)
    wrong = {k: (got[k], sorted(EXPECTED[k])) for k in got if got[k] not in EXPECTED[k]}
    assert not wrong, wrong
    details = {c["label"]: c["detail"] for c in fn["candidates"]}
    assert "syscall" in details["sys-unlink"] and "line" in details["sys-unlink"]
    assert "'exit'" in details["call-exit"]
    assert fn["best"]["label"] == "good-popcnt"
    # nothing outside the scratch directories changed, nothing is left running
    assert tree_digest(canary) == before
    assert sorted(os.listdir(Path.home())) == home_before
    assert leftover_processes(str(tmp_path), "sc-scratch", ".harness", ".timing.off") == []
    assert elapsed < 300  # every candidate ended within its own timeout


# --- the run-time layer alone: code that screening would have stopped ----------------------


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("contain")
    src = PROG / "popcount.c"
    cfg = BuildConfig("gcc", ("-O3",), "t", str(PROG))
    cut = cut_function(build.compile_to_asm(src, cfg, tmp / "b.s"), "popcount")
    build.assemble(cut.text, tmp / "base.o")
    fn = next(f for f in parse_functions(src.read_text()) if f.name == "popcount")
    h = FunctionHarness(tmp / "h", "popcount", make_plan(fn.signature), n_random=2000, min_timeout=3)
    h.prepare(tmp / "base.o")
    return h, tmp, fn, cfg


def _obj(tmp: Path, name: str, body: str) -> Path:
    text = f"\t.text\n\t.globl popcount\n\t.type popcount, @function\npopcount:\n{body}\n\t.size popcount, .-popcount\n"
    obj = tmp / f"{name}.o"
    build.assemble(text, obj)
    return obj


@pytest.mark.serial  # it looks for leftover harness processes anywhere on the machine
@pytest.mark.parametrize(
    "name,body",
    [
        pytest.param(
            "unlink",
            '\tleaq .Lp(%rip), %rdi\n\tmovl $87, %eax\n\tsyscall\n\tret\n\t.section .rodata\n.Lp: .asciz "@CANARY@"\n\t.text',
            id="unlink",
        ),
        pytest.param("fork", "\tmovl $57, %eax\n\tsyscall\n\tret", id="fork"),
        pytest.param(
            "openat",
            "\tmovl $-100, %edi\n\tleaq .Lp(%rip), %rsi\n\tmovl $577, %edx\n\tmovl $438, %r10d\n"
            '\tmovl $257, %eax\n\tsyscall\n\tret\n\t.section .rodata\n.Lp: .asciz "@CANARY@-new"\n\t.text',
            id="create-file",
        ),
        pytest.param(
            "write-fd3",
            "\tmovl $3, %edi\n\tleaq popcount(%rip), %rsi\n\tmovl $8, %edx\n\tmovl $1, %eax\n\tsyscall\n\tret",
            id="write-other-fd",
        ),
        pytest.param(
            "mmap",
            "\txorl %edi, %edi\n\tmovl $1073741824, %esi\n\tmovl $3, %edx\n\tmovl $34, %r10d\n\tmovq $-1, %r8\n"
            "\txorl %r9d, %r9d\n\tmovl $9, %eax\n\tsyscall\n\tret",
            id="allocate",
        ),
    ],
)
def test_seccomp_stops_system_calls_in_the_function_harness(harness, canary, name, body):
    h, tmp, _, _ = harness
    before = tree_digest(canary)
    chk = h.check(_obj(tmp, name, body.replace("@CANARY@", str(canary / "victim"))), name)
    assert (chk.ok, chk.reason) == (False, "unsafe"), chk.detail
    assert "forbidden system call" in chk.detail
    assert tree_digest(canary) == before
    assert leftover_processes(str(tmp), "sc-scratch", ".harness", ".timing.off") == []


@pytest.mark.parametrize(
    "name,body",
    [
        # the page glibc maps for an abort message: if it were mapped, the write to it would not crash
        pytest.param(
            "map-page",
            "\txorl %edi, %edi\n\tmovl $4096, %esi\n\tmovl $3, %edx\n\tmovl $34, %r10d\n\tmovq $-1, %r8\n"
            "\txorl %r9d, %r9d\n\tmovl $9, %eax\n\tsyscall\n\tmovb $1, (%rax)\n\tmovl $1, %eax\n\tret",
            id="map-a-page",
        ),
        # every signal blocked (the interval timer's among them): that would outlast the call
        pytest.param(
            "block-signals",
            "\txorl %edi, %edi\n\tleaq .Lall(%rip), %rsi\n\txorl %edx, %edx\n\tmovl $8, %r10d\n"
            "\tmovl $14, %eax\n\tsyscall\n\tmovl $1, %eax\n\tret\n"
            "\t.section .rodata\n.Lall: .quad -1\n\t.text",
            id="block-signals",
        ),
    ],
)
def test_a_candidate_on_glibcs_abort_path_crashes_there_and_makes_no_system_call(harness, name, body):
    """The system calls of glibc's way to abort() are trapped like any other; the input's result is the
    crash (SIGABRT) they lead to, so a candidate that makes them where the original returns is rejected."""
    h, tmp, _, _ = harness
    chk = h.check(_obj(tmp, name, body), name)
    assert (chk.ok, chk.reason) == (False, "crash"), chk.detail
    assert chk.detail.startswith("signal 6 on input"), chk.detail


def test_seccomp_stops_system_calls_in_a_whole_program(harness, canary):
    """A program under test may read stdin and print, but not open, unlink or fork."""
    h, tmp, fn, cfg = harness
    rest = tmp / "rest.c"
    rest.write_text(remove_definition((PROG / "popcount.c").read_text(), fn))
    build.compile_object(rest, cfg, tmp / "rest.o")
    build.run_tool(
        [
            "gcc",
            "-c",
            "-I",
            str(include_dir()),
            str(include_dir() / "sc_program_sandbox.c"),
            "-o",
            str(tmp / "sandbox.o"),
        ],
        "sandbox",
    )
    tests = find_tests(PROG / "tests")
    good = _obj(tmp, "good", "\tpopcntq %rdi, %rax\n\tret")
    build.link([tmp / "rest.o", good, tmp / "sandbox.o"], tmp / "good-prog")
    assert run_tests(tmp / "good-prog", tests).ok  # stdio still works inside the filter
    bad = _obj(
        tmp,
        "bad",
        f"\tpushq %rdi\n\tleaq .Lp(%rip), %rdi\n\tmovl $87, %eax\n\tsyscall\n\tpopq %rdi\n"
        f'\tpopcntq %rdi, %rax\n\tret\n\t.section .rodata\n.Lp: .asciz "{canary / "victim"}"\n\t.text',
    )
    build.link([tmp / "rest.o", bad, tmp / "sandbox.o"], tmp / "bad-prog")
    before = tree_digest(canary)
    r = run_tests(tmp / "bad-prog", tests)
    assert (r.ok, r.reason) == (False, "unsafe"), r.detail
    assert tree_digest(canary) == before


def test_load_time_code_never_runs_in_the_harness(harness, canary):
    """An IFUNC resolver runs in the loader, before main and before any filter: the harness
    refuses the linked program before it starts, whatever the screens missed."""
    h, tmp, _, _ = harness
    obj = tmp / "ifunc.o"
    build.assemble(
        (FIX / "popcount" / "ifunc-fill.s").read_text().replace("@CANARY@", str(canary / "victim-ifunc")), obj
    )
    before = tree_digest(canary)
    chk = h.check(obj, "ifunc")
    assert (chk.ok, chk.reason) == (False, "unsafe"), chk.detail
    assert "IRELATIVE" in chk.detail
    assert tree_digest(canary) == before


def test_early_exit_is_a_rejection_not_a_pass(harness):
    """Exiting with status 0 half-way (here through the exit system call) never passes."""
    h, tmp, _, _ = harness
    # exit_group(0) is allowed by the filter (the harness itself needs it): the short record stream gives it away
    chk = h.check(_obj(tmp, "exit0", "\txorl %edi, %edi\n\tmovl $231, %eax\n\tsyscall"), "exit0")
    assert not chk.ok and chk.reason == "crash" and "exited early" in chk.detail


def test_refuses_to_run_without_a_sandbox_unless_told(tmp_path, monkeypatch):
    """Where seccomp cannot be installed (simulated: the harness is told it failed), the run stops with a clear error."""
    from supercoder_lsp.verify import sandbox

    monkeypatch.setattr(sandbox, "sandbox_available", lambda: False)
    with pytest.raises(sandbox.SandboxUnavailable, match="--allow-unsandboxed"):
        sandbox.require_sandbox()
    monkeypatch.setenv("SUPERCODER_ALLOW_UNSANDBOXED", "1")
    sandbox.require_sandbox()


def test_a_candidate_that_behaves_differently_when_timed_is_caught(harness):
    """Correct for the first 200,000 calls (more than verification makes), then it cheats."""
    from supercoder_lsp.measure.interleaved import InterleavedTimer, TimingMismatch, TimingSetup

    h, tmp, fn, cfg = harness
    base = cut_function(build.compile_to_asm(PROG / "popcount.c", cfg, tmp / "b2.s"), "popcount").text
    sneaky = (
        "\t.text\n\t.globl popcount\n\t.type popcount, @function\npopcount:\n"
        "\taddq $1, .Lcalls(%rip)\n\tcmpq $200000, .Lcalls(%rip)\n\tja .Lcheat\n\tpopcntq %rdi, %rax\n\tret\n"
        ".Lcheat:\n\txorl %eax, %eax\n\tret\n\t.size popcount, .-popcount\n\t.local .Lcalls\n\t.comm .Lcalls,8,8\n"
    )
    timer = InterleavedTimer(TimingSetup(tmp / "t", "popcount", make_plan(fn.signature), rounds=12))
    with pytest.raises(TimingMismatch, match="differ"):
        timer.time(base, sneaky, "sneaky")


@pytest.mark.serial  # it looks for leftover harness processes anywhere on the machine
def test_a_cancelled_job_takes_its_harnesses_with_it(tmp_path):
    """The editor cancels a job (a newer save, a closed file, the server going away) by killing its worker's
    process group. Each harness runs in a session of its own, for containment, and so outlived the worker:
    mulmod's, whose original loops on some inputs until each one's limit, burned both cores for 15 s more,
    beside the job that replaced it. Now a harness dies with the process that started it."""
    work = tmp_path / "work"
    marker = f"{work}/mulmod/verify/baseline.harness run"
    worker = subprocess.Popen(
        [sys.executable, "-m", "supercoder_lsp.cli", "optimize", str(PROG / "budget" / "hang.c"), "--no-cache"]
        + ["--proposer", "compilers", "--keep-work", str(work)],
        start_new_session=True,  # as the editor starts it (lsp/jobs.py), and kills it
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not leftover_processes(marker):
            assert worker.poll() is None and time.monotonic() < deadline, "no harness ran"
            time.sleep(0.01)
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    time.sleep(0.5)  # the kernel's signal to the orphans is immediate; their original runs for seconds more
    assert leftover_processes(marker) == []
