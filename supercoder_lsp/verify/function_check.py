"""Differential testing of one function against its -O3 original.

The baseline and the candidate each live in their own object, linked into
their own copy of a generated harness (another translation unit, so gcc's
IPA-RA cannot make the caller depend on which registers the callee leaves
alone). Each harness process writes one record per input (status, return value and a
hash of every buffer and writable global) to a descriptor of its own; the
records and what the function printed are compared here, outside the process
that ran the candidate, which never sees the expected outputs. Inputs on which
the -O3 original crashes or runs out of time are skipped and counted; a
candidate must not crash where the original does not.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import shutil
import struct
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from .. import build
from ..asm.elfcheck import check_linked
from ..asm.immediates import object_constants
from ..harness import include_dir
from ..harness.contract import (
    ABI_BROKEN,
    ABI_FINDINGS,
    ALLOCATED,
    CRASHED,
    DIRTY_UPPER,
    EXIT_ALLOCATES,
    EXIT_CRASH,
    EXIT_OK,
    EXIT_SLOW,
    EXIT_SYSCALL,
    HEAP_LEFT,
    NOT_RUN,
    SHORT_MS,
    STORED_AROUND,
    TIMED_OUT,
    TRAILER_ABI,
    TRAILER_SYSCALL,
)
from ..harness.plan import Plan, long_inputs
from ..harness.recorded import RecordedInputs
from .harness_c import render_verify
from .layout import caller_draw, layout_env
from .program_state import render_snapshots
from .sandbox import RunResult, run_limited

if TYPE_CHECKING:
    from .coverage import Coverage

T = TypeVar("T")
RECORD = 24  # status, result bits, hash of outputs (see harness/sc_verify.h)
BASELINE_SECONDS = 120
MAX_PARTS = 4  # a run over the inputs is split over up to this many cores (FunctionHarness._run_parts) ...
MIN_SPLIT = 1000  # ... where it has at least this many
MAX_LATE = 4  # of the inputs out of time in a part run where the original finished them, this many tried alone
FIRST_LOOK = 20_000  # inputs of the editor's first verdicts (FunctionHarness._first_look) ...
FIRST_LOOK_SECONDS = 2.5  # ... where its three runs over all inputs would take this (inflateBack 3.4, gz_comp 5.5)
TIMED_FIRST = 2048  # ... and as many random inputs past the edge ones: the timing driver's first ones among them
EARLY = (
    2_000  # the first inputs on which the self-check's refusal is tried first (FunctionHarness._reads_past_early) ...
)
EARLY_MS = 1_500  # ... in up to this many ms of the original's run on them
EARLY_MARGIN = 1.25  # ... refused there only where a private state's moved inputs are this many times the whole's limit
EARLY_RANDOM_MARGIN = 1.5  # ... or, with as many random ones weighted in, this many times (_moved_later)
TASTE_MS = 500  # the original's run on a tenth of them tells whether a first look pays (_slow_to_prepare) ...
SAMPLE = 10_000  # inputs on which a second state of the globals is tried before a whole run (_better_on_sample)
HARNESS_SYMBOL = "sc_fn"
CONSTANT_INPUTS = 2048  # generated inputs of a candidate's own pass, drawn from its constants (_own_constants)
_COMPILING: dict[str, threading.Lock] = {}  # FunctionHarness._object: one compile of an object at a time
_COMPILING_LOCK = threading.Lock()
MODE_RANDOM_GLOBALS = 1
MODE_PROGRAM_STATE = 2
MODE_FLIP_SIDES = 4
INPUT_MS = 1000  # an input runs out of time after one to two of these, where most inputs need over SHORT_INPUT_MS
SHORT_INPUT_MS = SHORT_MS  # ... or else of these (FunctionHarness._first_run)
FLOOR_MS = (
    4  # with the short limit, the original's first run allows 50 times its slowest input, at least this (sc_verify.h)
)
LONG_FLOOR_MS = (
    200  # ... and with the long limit, this: an input that loops costs 0.2 s, not 1-2 (lz4's LZ4F_decompress)
)
LATER_FACTOR = 5  # runs after the original's first (self-check, coverage, candidates) allow this many times its limit
MODE_STOP_SLOW = 16  # the baseline's first run: stop when most inputs run out of time (EXIT_SLOW)
MODE_ORIGINAL = 32  # a run of the original: where it breaks the calling convention, that input is ABI_BROKEN


def _cores() -> int:
    """The parts a run over the inputs is split into: one per core this process may use, up to MAX_PARTS."""
    return min(len(os.sched_getaffinity(0)), MAX_PARTS)


READS_PAST = "depends on where its buffers lie"  # the self-check's verdict (pipeline: probe struct sizes)


def _reads_past(i: int) -> str:
    """The self-check's refusal, on generated input i."""
    return (
        f"the -O3 original's result on generated input {i} {READS_PAST}: it reads or writes memory outside the "
        "inputs the harness gives it (a struct that is really an array, a pointer field the harness sets to "
        "NULL); give program tests with --tests DIR"
    )


@dataclass
class Check:
    ok: bool
    reason: str | None  # "link-error", "wrong-output", "crash", "timeout", "abi-violation", "unsafe"
    detail: str
    inputs: int
    program_agrees: bool = False  # wrong, but only on inputs the program never produced


@dataclass
class Records:
    """One harness run: a record per input, what the function printed, how the process ended."""

    status: list[int]
    values: list[tuple[int, int]]
    stdout: bytes
    run: RunResult
    raw: bytes = b""
    trailer: tuple[int, int, int] | None = None  # (kind, input, finding or system call) of a run that ended on one

    @classmethod
    def parse(cls, data: bytes, run) -> Records:
        n = len(data) // RECORD
        words = struct.unpack(f"<{3 * n}Q", data[: n * RECORD])
        trailer = None
        if n and words[-3] & (TRAILER_ABI | TRAILER_SYSCALL):
            trailer, words, n = tuple(words[-3:]), words[:-3], n - 1
        return cls(list(words[0::3]), list(zip(words[1::3], words[2::3])), run.stdout, run, data[: n * RECORD], trailer)

    def failed(self, i: int) -> bool:
        return bool(self.status[i] & (CRASHED | TIMED_OUT | NOT_RUN))

    @classmethod
    def joined(cls, parts: list[Records]) -> Records:
        """The records of runs over consecutive ranges of inputs, all but the last ended cleanly, as one
        run's that ended as the last did."""
        out, last = b"".join(p.stdout for p in parts), parts[-1]
        run = RunResult(
            last.run.returncode,
            out,
            "".join(p.run.stderr for p in parts),
            last.run.timed_out,
            max(p.run.seconds for p in parts),
        )
        return cls(
            [s for p in parts for s in p.status],
            [v for p in parts for v in p.values],
            out,
            run,
            b"".join(p.raw for p in parts),
            last.trailer,
        )


def _pkg_dir(pkg: str) -> Path:
    return Path(str(resources.files(pkg)))


def rename_symbol(obj_in: Path, obj_out: Path, name: str, new: str) -> None:
    shutil.copyfile(obj_in, obj_out)
    build.objcopy(
        obj_out,
        f"--redefine-sym={name}={new}",
        "--rename-section",
        ".data=sc_fdata",
        "--rename-section",
        ".bss=sc_fbss,alloc",
    )


class FunctionHarness:
    """Generated harness for one function: build once, check many candidates."""

    def __init__(
        self,
        workdir: Path,
        name: str,
        plan: Plan,
        *,
        n_random: int = 100_000,
        seed: int = 0x5C0DE,
        support_objs: tuple[Path, ...] = (),
        min_timeout: float = 5.0,
        states: list | None = None,
        recorded: RecordedInputs | None = None,
        link_flags: tuple[str, ...] = (),
        budget_seconds: float = BASELINE_SECONDS,
    ):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.plan = plan
        self.n_random = n_random
        self.seed = seed
        self.support_objs = tuple(Path(o) for o in support_objs)  # as given: the rest of the file, the project's
        self.support = [self._globals_visible(Path(o), i) for i, o in enumerate(support_objs)]
        self.min_timeout = min_timeout
        self.n_inputs = 0
        self.total = 0  # SC_NINPUTS, once the harness is built
        self.n_edge = 0  # SC_NEDGE: the edge inputs, first
        self.parts = 0  # how many parts each run over the inputs is split into (_cuts), once chosen
        self.base_seconds = 0.0
        self.mode = MODE_RANDOM_GLOBALS
        self.skipped = 0  # inputs on which the -O3 original itself crashes or runs out of time
        self.outside_recorded = 0  # of them: recorded calls that reach memory the recording did not keep
        self.outside_generated = 0  # and generated inputs the original reads past, where recorded calls run whole
        self.base: Records | None = None
        self.input_ms = SHORT_INPUT_MS  # the original's limit per input (_first_run)
        self.skip_file: Path | None = None  # the inputs the original ran out of time on (not run again)
        self.only_recorded = ""  # why the generated inputs are not run: they break the original's harness
        self.narrowing = ""  # "len2 in [0, 4095]" where its integer inputs were narrowed (harness_setup)
        self.states = list(states or [])  # recorded program states (verify/program_state.Snapshot)
        self.n_states = 0
        self.recorded = recorded if recorded else None  # the program's own calls, replayed after the generated inputs
        self.n_recorded = len(recorded) if recorded else 0
        self.coverage: Coverage | None = None  # verify/coverage.Coverage, once measured (harness_setup.py)
        self.budget_seconds = min(budget_seconds, BASELINE_SECONDS)  # the original's time for the generated inputs
        self.not_run = 0  # generated inputs past that budget: not run, not compared
        self.obj: Path | None = None  # the harness's compiled object (in the folder's objects), once built
        self.link_flags = link_flags  # what the function needs from the rest of the project (libraries)
        self.base_constants: frozenset[int] = frozenset()  # the original's immediates (asm/immediates.py)
        self.constant_bases: dict[str, Records] = {}  # the original's records of a pass of constants, by them
        self.show_from = 0  # _show: the input of record 0 (a pass from a later input) ...
        self.show_env: dict[str, str] = {}  # ... and its environment

    def _globals_visible(self, obj: Path, i: int) -> Path:
        """A copy of a support object (the rest of the file) whose writable data the harness
        can find (__start_sc_gdata...), to randomize it before and compare it after each call."""
        out = self.dir / f"support{i}.o"
        shutil.copyfile(obj, out)
        build.objcopy(out, "--rename-section", ".data=sc_gdata", "--rename-section", ".bss=sc_gbss,alloc")
        return out

    # -- building -------------------------------------------------------------
    def _render(self, blob: Path | None) -> tuple[str, str]:
        """The harness's C text, and its stamp: the text and the recorded calls' bytes it includes."""
        snaps = render_snapshots(self.states, self.support[0] if self.support else None)
        self.n_states = int(snaps.split("\n", 1)[0].split()[-1])
        text = render_verify(self.plan, self.seed, self.n_random, snaps, self.recorded, blob, caller_draw(self.name))
        # the recorded calls' bytes are in the object too (.incbin), not in the text
        stamp = text + (f"\n/* {hashlib.sha256(self.recorded.blob).hexdigest()} */\n" if self.recorded else "")
        return text, stamp

    def _build_runtime(self) -> None:
        rt = include_dir()
        src = self.dir / "harness.c"
        blob = None
        if self.recorded:
            blob = self.dir / "recorded.bin"
            blob.write_bytes(self.recorded.blob)
        text, stamp = self._render(blob)
        src.write_text(text)
        edges = re.search(r"^#define SC_NEDGE (\d+)ULL$", text, re.M)
        assert edges is not None, "render_verify defines SC_NEDGE"
        self.n_edge = int(edges[1])
        self.total = self.n_edge + self.n_random + self.n_recorded  # SC_NINPUTS: every input a run can have
        # the folder's object of this text (compiled once: the file's objects tried after the function's alone,
        # then the project's, build the same harness again: gz_comp's 1.1 s), linked where this harness is
        self.obj = self._object(text, stamp, rt)
        tramp = self.dir / "tramp.o"
        if not tramp.is_file():  # the same for every harness of the folder
            tmp = self.dir / f"tramp.{threading.get_ident()}.o"
            build.run_tool(
                ["gcc", "-c", str(_pkg_dir("supercoder_lsp.verify") / "tramp.S"), "-o", str(tmp)], "assemble trampoline"
            )
            os.replace(tmp, tramp)

    def compile_ahead(self) -> None:
        """Compile this harness's object at the lowest priority into its folder's objects, which its own build
        then takes (_object), touching nothing another harness in the folder uses: a narrowed plan's, while
        the plan before it is tried, on the core that harness's compile leaves idle (harness_setup._prepare:
        LZ4F_decompress's two narrowings, 0.5 s each). Not where recorded calls are included (their bytes
        are a file of the folder's). A harness that does not compile says so when it is built."""
        if self.recorded:
            return
        try:
            text, stamp = self._render(None)
            self._object(text, stamp, include_dir(), low=True)
        except Exception:  # noqa: BLE001 - its own build says why; or the job ended and its folder is gone
            pass

    def _object(self, text: str, stamp: str, rt: Path, low: bool = False) -> Path:
        """The compiled object of harness text `text` (its stamp: `stamp`), from the folder's objects when
        compiled there before (compile_ahead), else compiled now; one compile at a time for each."""
        key = hashlib.sha256(stamp.encode()).hexdigest()[:24]
        objects = self.dir / "objects"
        objects.mkdir(exist_ok=True)
        obj = objects / f"{key}.o"
        with _COMPILING_LOCK:
            lock = _COMPILING.setdefault(str(obj), threading.Lock())
        with lock:
            if not obj.is_file():
                src = objects / f"{key}.c"
                src.write_text(text)
                tmp = objects / f"{key}.tmp.o"
                build.run_tool(
                    ["gcc", "-O1", "-g0", "-w", "-I", str(rt), "-c", str(src), "-o", str(tmp)],
                    "compile harness",
                    low=low,
                )
                os.replace(tmp, obj)
        return obj

    def _built(self) -> Path:
        assert self.obj is not None, "the harness is built (_build_runtime) before it links"
        return self.obj

    def link(self, impl_obj: Path, tag: str) -> Path:
        """Link the harness with an object defining the function; raises BuildError."""
        renamed = self.dir / f"{tag}.impl.o"
        rename_symbol(impl_obj, renamed, self.name, HARNESS_SYMBOL)
        exe = self.dir / f"{tag}.harness"
        build.link([self._built(), self.dir / "tramp.o", renamed, *self.support], exe, extra=self.link_flags)
        return exe

    def link_original(self, obj: Path, tag: str, extra: tuple[str, ...] = ()) -> Path:
        """Link the harness with another build of the original, whose function is already named
        `sc_fn` (verify/coverage.py); raises BuildError."""
        exe = self.dir / f"{tag}.harness"
        build.link([self._built(), self.dir / "tramp.o", obj], exe, extra=extra)
        return exe

    def run_original(self, exe: Path, n: int, mode: int, start: int = 0) -> None:
        """Run another build of the original (the coverage build) on inputs `start` to `n`; raises
        RuntimeError when it fails. An input on which that build breaks the harness itself (at -Og a
        generated state can send it writing outside its frame where -O3 did not) is skipped, up to 32; so
        is every input the -O3 original crashed on (never compared: zlib's inflateSync writes past a local
        array of 4 bytes on a generated state's bit count, and at -Og over the harness's own frame)."""
        skip = bytearray(self.skip_file.read_bytes() if self.skip_file is not None else b"")
        env: dict[str, str] = {}
        if self.base is not None:
            failed = [i for i in range(min(n, len(self.base.status))) if self.base.failed(i)]
            if failed:
                skip.extend(b"\0" * (n - len(skip)))
                for i in failed:
                    skip[i] = 1
                path = self.dir / "skip.other.bin"
                path.write_bytes(bytes(skip))
                env = {"SC_SKIP": str(path)}
        for _ in range(33):
            limit = max(30.0, 10 * self.base_seconds)
            r = self._run(exe, n, mode, limit, env, True, start) if start else self._run_parts(exe, n, mode, limit, env)
            if not r.run.timed_out and r.run.returncode == 0:
                return
            m = re.search(r"at input (\d+)", r.run.stderr)
            if r.run.timed_out or m is None or len(env) and int(m[1]) < len(skip) and skip[int(m[1])]:
                break
            i = int(m[1])
            skip.extend(b"\0" * (i + 1 - len(skip)))
            skip[i] = 1
            path = self.dir / "skip.other.bin"
            path.write_bytes(bytes(skip))
            env = {"SC_SKIP": str(path)}
        raise RuntimeError(
            "its run on the inputs " + ("timed out" if r.run.timed_out else f"ended with {r.run.returncode}")
        )

    def _run(
        self,
        exe: Path,
        n: int,
        mode: int,
        timeout: float,
        env: dict[str, str] | None = None,
        original: bool = True,
        start: int = 0,
    ) -> Records:
        # malloc without its per-thread cache: a freed block is free again at once, so the memory a call
        # leaves allocated shows (sc_heap_held)
        env = {**(env or {}), "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0", **layout_env(self.name)}
        if start:
            env["SC_FROM"] = str(start)
        # the original's first runs with its limit; every later run gives the inputs it finished within it
        # LATER_FACTOR times as much (a run beside another must not call an input out of time that is not),
        # and those it crashed on its limit (skip.bin: sc_on_alarm)
        if self.input_ms != INPUT_MS:
            env = {**env, "SC_INPUT_MS": str(self.input_ms)}
        if mode & MODE_STOP_SLOW:  # 50 times its slowest finished input, at least the floor
            env["SC_INPUT_FLOOR_MS"] = str(FLOOR_MS if self.input_ms == SHORT_INPUT_MS else LONG_FLOOR_MS)
        if not mode & MODE_STOP_SLOW and self.later_ms != self.input_ms and "SC_LATER_TICKS" not in env:
            env["SC_LATER_TICKS"] = str(self.later_ms // self.input_ms)
        if self.skip_file is not None and "SC_SKIP" not in env:
            env = {**env, "SC_SKIP": str(self.skip_file)}
        if self.only_recorded:
            env = {**env, "SC_ONLY_RECORDED": "1"}
        fd, path = tempfile.mkstemp(prefix="sc-records-", dir=self.dir)
        try:
            argv = [str(exe), "run", str(n), str(fd), str(mode | (MODE_ORIGINAL if original else 0))]
            r = run_limited(argv, timeout=timeout, binary=True, pass_fds=(fd,), env=env)
            os.lseek(fd, 0, os.SEEK_SET)
            data = Path(path).read_bytes()
        finally:
            os.close(fd)
            os.unlink(path)
        return Records.parse(data, r)

    def _run_parts(
        self,
        exe: Path,
        n: int,
        mode: int,
        timeout: float,
        env: dict[str, str] | None = None,
        original: bool = True,
        rerun: bool = True,
        late_ok: int = 0,
    ) -> Records:
        """`_run` over inputs 0..n-1 as one run per part of the harness's partition (_cuts), the parts at
        once, one per core, their records joined. Every run whose records are compared is split the same
        way: a call's result can depend on the calls before it in its process (a random word that falls
        on the heap, which earlier calls grew: 12 of send_tree's 102,151 inputs), and so the original and
        a candidate see the same history. A part that does not end cleanly (an exit code, a finding, the
        process out of time, an input out of time where the original was not and that is not so alone:
        _late_hold) is run again alone, with no other part beside it (`rerun`; the original's first runs,
        which stop early by design, are not); the records then end with the first part that stopped, as
        one run's that stopped there. Inputs before `late_ok` that run out of time are taken as they are,
        with no rerun (the self-check's generated inputs beside recorded calls: at worst one is left out)."""
        at = self._cuts(n)
        if len(at) == 2:
            return self._run(exe, n, mode, timeout, env, original)
        with ThreadPoolExecutor(len(at) - 1) as pool:
            got = list(
                pool.map(lambda k: self._run(exe, at[k + 1], mode, timeout, env, original, at[k]), range(len(at) - 1))
            )
        for k, r in enumerate(got):
            if rerun and not (
                self._ended(r, at[k], at[k + 1])
                and self._late_hold(exe, r, at[k], mode, timeout, env, original, late_ok)
            ):
                got[k] = self._run(exe, at[k + 1], mode, timeout, env, original, at[k])
            if not self._ended(got[k], at[k], at[k + 1]):
                return Records.joined(got[: k + 1])
        return Records.joined(got)

    def _cuts(self, n: int) -> list[int]:
        """Where runs over the first `n` inputs start and end: one part per core (up to MAX_PARTS) of all
        SC_NINPUTS inputs, fixed once per harness, whatever `n` is."""
        if self.parts == 0:
            self.parts = _cores() if self.total >= MIN_SPLIT else 1
        inner = [self.total * k // self.parts for k in range(1, self.parts)]
        return [0, *(c for c in inner if 0 < c < n), n]

    @staticmethod
    def _ended(r: Records, lo: int, hi: int) -> bool:
        return r.run.returncode == 0 and not r.run.timed_out and r.trailer is None and len(r.status) == hi - lo

    def _late_hold(
        self,
        exe: Path,
        r: Records,
        lo: int,
        mode: int,
        timeout: float,
        env: dict[str, str] | None,
        original: bool,
        late_ok: int = 0,
    ) -> bool:
        """Whether the inputs of part run `r` (from input `lo`) that ran out of time where the original finished
        them (on a busy machine, a part beside another may) run out of time again, each alone: the first
        MAX_LATE of them, tried one by one; else the whole part runs again alone. A call that loops loops
        again (the self-check's, where the result depends on where the buffers lie: inflate's input 91,639
        cost a rerun of 4.4 s, inflate_fast's 36 s)."""
        base = self.base
        late = [
            lo + i
            for i, s in enumerate(r.status)
            if s & TIMED_OUT and lo + i >= late_ok and not (base and lo + i < len(base.status) and base.failed(lo + i))
        ]
        for i in late[:MAX_LATE]:
            alone = self._run(exe, i + 1, mode, timeout, env, original, i)
            if not (len(alone.status) == 1 and alone.status[0] & TIMED_OUT):
                return False
        return True

    def prepare(
        self,
        base_obj: Path,
        after: Callable[[], T] | None = None,
        first_look: Callable[[FunctionHarness], None] | None = None,
    ) -> T | None:
        """Build the harness and record the baseline's outputs on every input; then `after()` (coverage,
        which runs the original over the inputs compared), whose result is returned. Every run is split
        over the cores (_run_parts), one after another: coverage run beside the self-check, as it was, had
        to run again wherever the self-check left inputs out (trees.c's send_tree: 3 s of its 11). Before
        all that, where the original is slow on them, `first_look` gets a harness of the first FIRST_LOOK
        inputs (_first_look)."""
        self._build_runtime()
        exe = self.link(base_obj, "baseline")
        self.base_exe = exe
        self.base_constants = frozenset(object_constants(base_obj))
        state = MODE_PROGRAM_STATE if self.n_states else 0
        modes = (MODE_RANDOM_GLOBALS | state, state) if self.support else (0,)
        self._reads_past_early(exe, modes)
        if first_look is not None:
            early = self._recorded_look(exe, modes) if self.n_recorded else self._first_look(exe)
            if early is not None:
                first_look(early)
        rec = None
        budget = {"SC_BUDGET_MS": str(int(self.budget_seconds * 1000))}
        for mode in modes:
            if rec is not None and not self._better_on_sample(exe, mode, rec[0], budget):
                break  # the globals' initial state does no better than their random state where both ran
            r = self._first_run(exe, mode, budget)
            if r.run.returncode == EXIT_ALLOCATES:
                raise RuntimeError(
                    f"a call of the -O3 original changes the heap in a way the function harness cannot compare "
                    f"(input {len(r.status) - 1:,}: it frees memory it was given, allocates with memalign, or "
                    "keeps over 1,024 blocks); give program tests with --tests DIR"
                )
            if r.run.returncode == EXIT_SLOW:
                slow = sum(1 for i in range(len(r.status)) if r.status[i] & TIMED_OUT)
                raise OutsideDomain(
                    f"the -O3 original runs out of time on most generated inputs ({slow} of the first "
                    f"{len(r.status)}); bound them (--bound FUNC.PARAM=LOW:HIGH or [bounds.FUNC] in .supercoder.toml)"
                )
            if r.run.timed_out:
                raise OutsideDomain(
                    f"the -O3 baseline needs over {BASELINE_SECONDS}s for the generated inputs; "
                    "bound them (--bound FUNC.PARAM=LOW:HIGH or [bounds.FUNC] in .supercoder.toml)"
                )
            if r.run.returncode != 0 and self.n_recorded and not _forbidden_call(r):
                # out of its domain the original broke the harness itself (a write past its own stack frame,
                # indexed by a random count): the program's own calls are its domain, checked alone
                rc = r.run.returncode
                self.only_recorded = (
                    r.run.stderr.strip().splitlines()[-1]
                    if r.run.stderr.strip()
                    else f"signal {-rc}"
                    if rc < 0
                    else f"exit code {rc}"
                )
                r = self._run_parts(exe, self.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
            if r.run.returncode != 0:
                raise RuntimeError(_baseline_failure(r))
            not_run = sum(1 for s in r.status if s & NOT_RUN)
            skipped = sum(1 for i in range(len(r.status)) if r.failed(i)) - not_run
            if rec is None or skipped < rec[1]:
                rec = (r, skipped, mode)
            if skipped * 2 <= len(r.status) - not_run or not_run:
                break  # random global state that crashes the original on most inputs is not its domain
        assert rec is not None
        r, skipped, self.mode = rec
        self._adopt(r, skipped)
        if any(p.role in ("array", "cstring") for p in self.plan.params):
            self._self_check_or_recorded(exe, budget)
        if self.only_recorded:
            self.outside_generated = self.n_inputs - self.n_recorded
        # after the self-check, which may leave inputs out: coverage goes over the ones compared
        return after() if after else None

    def _first_inputs(self, n: int, mode: int, parts: int = 0) -> FunctionHarness:
        """This harness over its first `n` generated inputs alone, in `mode` (the same binary: an input is
        generated from its index), split over `parts` processes (0: as many as the cores). It shares this
        one's folder; its own first run, adoption and self-check are the caller's."""
        q = copy.copy(self)
        q.total, q.parts, q.n_recorded, q.recorded, q.skip_file, q.mode = n, parts, 0, None, None, mode
        return q

    def _reads_past_early(self, exe: Path, modes: tuple[int, ...]) -> None:
        """Raise the self-check's refusal (READS_PAST) where the first EARLY inputs already show it, in each
        state of the globals the first run may take: inflate_fast's came after 67 s of runs over every input
        (0.7 ms each), where its first inputs tell it in 3 s (send_tree's first ones do not: their edge
        inputs move less often than the rest, so its whole run still decides). They are run as
        the first part of a whole run is (one process from input 0: the same history), with the same limits
        and self-check; where a private state's inputs are left out rather than refused unless too many
        move (_self_check), the first ones must show EARLY_MARGIN times too many. Only where the program's
        calls are not among the inputs: with them, generated inputs that move are left out, not refused."""
        if (
            self.n_recorded
            or self.total < 2 * EARLY
            or not any(p.role in ("array", "cstring") for p in self.plan.params)
        ):
            return
        seen: str | None = None
        for mode in modes:
            q = self._first_inputs(EARLY, mode, parts=1)
            r = q._run(exe, EARLY, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, {"SC_BUDGET_MS": str(EARLY_MS)})
            if r.run.returncode != 0 or len(r.status) != EARLY:
                return
            good = sum(1 for i in range(EARLY) if not r.failed(i))
            try:
                q._adopt(r, sum(1 for i in range(EARLY) if r.failed(i) and not r.status[i] & NOT_RUN))
                q._self_check(exe, EARLY_MARGIN)
            except OutsideDomain:
                return
            except RuntimeError as e:
                if READS_PAST not in str(e):
                    return
                seen = seen or f"{e} (seen on the first {EARLY:,} generated inputs)"
                continue
            # a private state's inputs left out there: the first ones are edge inputs, which move less often
            # than the random ones (inflate_table: 8 of the 126 it finished, against 81 of 148 from its
            # 62,500th): the random ones from the start of a part of the whole run (the same history) too,
            # each sample weighted as the whole harness holds such inputs
            late = self._moved_later(exe, mode, q.outside_generated, good, r.run.seconds)
            if late is None:
                return
            seen = seen or late
        if seen is not None:
            raise RuntimeError(seen)

    def _moved_later(self, exe: Path, mode: int, moved_first: int, good_first: int, seconds: float) -> str | None:
        """The self-check's refusal where EARLY random inputs from the start of a part of the whole run show
        one that moves (a plain harness), or, with the first EARLY inputs (`moved_first` of their `good_first`
        finished ones moved, in `seconds`) and each weighted as the whole holds inputs like them,
        EARLY_RANDOM_MARGIN times too many of a private state's; else None. Tried where something moved
        there, or their run was quick (under TASTE_MS)."""
        if not moved_first and seconds * 1000 > TASTE_MS:
            return None
        cuts = self._cuts(self.total)
        lo = next((c for c in cuts[1:-1] if c >= max(self.n_edge, EARLY)), max(self.n_edge, EARLY))
        first_like = max(self.n_edge, EARLY)  # the inputs the first EARLY stand for
        rest = self.n_edge + self.n_random - first_like
        if rest < EARLY or lo + EARLY > self.n_edge + self.n_random:
            return None
        env, q = {"SC_BUDGET_MS": str(EARLY_MS)}, self._first_inputs(self.total, mode)  # no skip file: a first run
        with ThreadPoolExecutor(2) as pool:
            a, b = pool.map(
                lambda m: q._run(exe, lo + EARLY, m | MODE_STOP_SLOW, BASELINE_SECONDS + 10, env, True, lo),
                (mode, mode | MODE_FLIP_SIDES),
            )
        if not (self._ended(a, lo, lo + EARLY) and self._ended(b, lo, lo + EARLY)):
            return None
        unknown = TIMED_OUT | NOT_RUN
        ran = [i for i in range(EARLY) if not (a.status[i] | b.status[i]) & unknown]
        moved = [i for i in ran if a.failed(i) != b.failed(i) or (not a.failed(i) and a.values[i] != b.values[i])]
        good = sum(1 for i in ran if not a.failed(i))
        est_moved = moved_first * first_like + len(moved) * rest
        est_good = good_first * first_like + good * rest
        if not moved or (self._owned_data() and 4 * est_moved <= EARLY_RANDOM_MARGIN * est_good):
            return None
        return (
            f"{_reads_past(lo + moved[0])} (seen on the first {EARLY:,} generated inputs and {EARLY:,} from input "
            f"{lo:,}: {len(moved)} of {good:,} moved there)"
        )

    def _owned_data(self) -> bool:
        """Whether a private state's data pointers point into one generated buffer (its inputs that run past
        it are left out, as long as most are not: _self_check)."""
        return any(p.data or any(o.data for o in p.owned) for p in self.plan.params)

    def _first_look(self, exe: Path) -> FunctionHarness | None:
        """A harness of the first FIRST_LOOK inputs (and TIMED_FIRST random ones past the edge inputs, where
        those are more: inflateBack's 25,000), in the same binary (an input is generated from its index):
        the original's run and self-check on them, with the globals' first state. A candidate it finds wrong,
        crashing, out of time or breaking the calling convention is so on an input of the whole harness: a
        verdict the editor shows before the original has run on every input (deflate_fast's 30 s); one it
        passes has none yet, but for the first pass of its timing (first_look.py). None where the original's
        run, self-check and coverage over every input would take under FIRST_LOOK_SECONDS (_slow_to_prepare),
        or its run or self-check on them did not end cleanly (prepare decides those), or the program's
        recorded calls are among the inputs: generated ones alone are then refused where they move, which the
        whole harness leaves out (inflate_fast: 30 s for none); _recorded_look is for those."""
        n = max(FIRST_LOOK, self.n_edge + TIMED_FIRST)
        if self.total < 2 * n or self.n_states or self.n_recorded:
            return None
        mode = MODE_RANDOM_GLOBALS if self.support else 0
        if not self._slow_to_prepare(exe, mode):
            return None
        q = self._first_inputs(n, mode)
        r = q._run_parts(exe, n, q.mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, rerun=False)
        if r.run.returncode != 0 or len(r.status) != n:
            return None
        try:
            q._adopt(r, sum(1 for i in range(n) if r.failed(i)))
            q._self_check(exe)
        except RuntimeError:
            return None
        return q

    def _slow_to_prepare(self, exe: Path, mode: int) -> bool:
        """Whether the original's run, self-check and coverage over every input would take over
        FIRST_LOOK_SECONDS, told from its run on a tenth of the first FIRST_LOOK inputs, in one process
        (where the original is fast, that is all it costs: adler32_z), for up to TASTE_MS: one that does not
        finish them by then is slow (inflate_fast: 1,723 of its first 2,000 inputs crash, 60 loop)."""
        taste = self._run(
            exe, FIRST_LOOK // 10, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, {"SC_BUDGET_MS": str(TASTE_MS)}
        )
        if taste.run.returncode not in (0, EXIT_SLOW):
            return False
        return (
            taste.run.returncode == EXIT_SLOW
            or any(s & NOT_RUN for s in taste.status)
            or (self._three_runs(taste) >= FIRST_LOOK_SECONDS)
        )

    def _recorded_look(self, exe: Path, modes: tuple[int, ...]) -> FunctionHarness | None:
        """A harness of the program's recorded calls alone (the generated inputs are not run), for the
        editor's first verdicts where the original's runs over the generated inputs beside them are slow
        (_slow_to_prepare; inflate_fast: 38 s of its first run and self-check, where its 11 recorded calls
        take a tenth of a second; inflate: 7.5 s, for a look that costs the first candidate's compile and
        the first pass of its timing, which the round then keeps where the whole harness agrees): the
        original's run and self-check on them, in the globals' first state where the original finishes one
        of them in it. None where they would not take long, or its runs on the calls do not end cleanly
        (prepare decides those). Its verdicts are the first look's (first_look.py): the round judges the
        candidates again with the whole harness."""
        if self.total - self.n_recorded < 2 * FIRST_LOOK or not self._slow_to_prepare(exe, modes[0]):
            return None
        for mode in modes:
            q = copy.copy(self)
            q.only_recorded, q.skip_file, q.mode = "the editor's first look", None, mode
            r = q._run_parts(exe, q.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, rerun=False)
            if r.run.returncode != 0 or len(r.status) != q.total:
                return None
            try:
                q._adopt(r, sum(1 for i in range(q.total) if r.failed(i)))
                q._self_check(exe)
            except OutsideDomain:
                continue  # the original fails on every recorded call in this state of the globals
            except RuntimeError:
                return None
            return q
        return None

    def _three_runs(self, taste: Records) -> float:
        """Seconds the original's three runs over all inputs (first run, self-check, coverage) would take,
        told from `taste`, its first run on the first inputs. An input out of time there was given the
        floor of the first run's limit (FLOOR_MS), in the whole first run up to SHORT_INPUT_MS (the slowest
        input it returned from grows), and no time in the two runs after (they pass over it): deflate_fast,
        one input in sixty looping, took 13 s over its first run where the taste's 0.18 s told 4.5."""
        n = len(taste.status)
        if not n:
            return 0.0
        late = sum(1 for s in taste.status if s & TIMED_OUT)
        rest = max(0.0, taste.run.seconds - late * FLOOR_MS / 1000)
        first = rest + late * SHORT_INPUT_MS / 1000
        return (first + 2 * rest) * self.total / n / _cores()

    def finished_random(self) -> int:
        """Of its random inputs (past the edge ones), how many the original finished: the timing driver
        times the first ones it finished (measure/interleaved.py), so a first look's timing is of the same
        inputs as the whole harness's where it holds enough of them (first_look.py)."""
        assert self.base is not None
        hi = min(self.n_inputs, self.n_edge + self.n_random)
        return sum(1 for i in range(self.n_edge, hi) if not self.base.failed(i))

    def fails_alike(self, early: FunctionHarness) -> bool:
        """Whether the original failed on the same of `early`'s random inputs here as there (and in the same
        state of the globals): where both hold the inputs a timing would take, it takes the same ones."""
        a, b = self.base, early.base
        if a is None or b is None or early.mode != self.mode:
            return False
        hi = min(early.n_inputs, self.n_inputs, self.n_edge + self.n_random)
        return all(a.failed(i) == b.failed(i) for i in range(self.n_edge, hi))

    def same_inputs(self, early: FunctionHarness) -> bool:
        """Whether a verdict of `early` (_first_look) holds for this harness, once prepared: its inputs are
        the same (neither narrowed, nor only the program's calls) with the same globals (linked with the same
        objects: a first look with the function alone, its whole harness with the file's) in the same state."""
        return (
            early.mode == self.mode
            and early.plan == self.plan
            and early.support_objs == self.support_objs
            and (early.seed, early.n_random) == (self.seed, self.n_random)
            and not self.only_recorded
            and not early.only_recorded
        )

    @property
    def later_ms(self) -> int:
        """The limit per input of the runs after the original's first, on inputs it finished."""
        return min(INPUT_MS, LATER_FACTOR * self.input_ms)

    def _first_run(self, exe: Path, mode: int, budget: dict[str, str]) -> Records:
        """The original's first run over the inputs, each with the short time limit; where most inputs run
        out of time with it, again with the long one (a function that takes 20 ms to a second on each).
        Short first: where a few inputs loop for ever (deflate_fast on a generated state: one in sixty), the
        long limit cost a second or two for each of the four it took to give up on it (9 s of 40)."""
        r = self._run_parts(exe, self.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
        if r.run.returncode != EXIT_SLOW or self.input_ms >= INPUT_MS:
            return r
        self.input_ms = INPUT_MS
        slow = self._run_parts(exe, self.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
        if slow.run.returncode == EXIT_SLOW:  # they loop: the short run's counts say how many
            self.input_ms = SHORT_INPUT_MS
            return r
        return slow

    def _better_on_sample(self, exe: Path, mode: int, first: Records, budget: dict[str, str]) -> bool:
        """Whether `mode` fails the original on fewer of the first SAMPLE inputs, or of the program's recorded
        calls, than the run `first` did: only then is it worth a whole run (trees.c's send_tree fails as often
        with either state of the file's globals: 1.5 s of its first result)."""
        if self._fewer_fail(exe, mode, first, 0, min(SAMPLE, self.total, len(first.status)), budget):
            return True
        if not self.n_recorded:
            return False
        # and the program's recorded calls (after the generated inputs), where they are few: the sample
        # does not hold them (send_tree's four: a whole run of the second state, 0.8 s, where they did as well)
        if self.n_recorded > SAMPLE or len(first.status) < self.total:
            return True
        return self._fewer_fail(exe, mode, first, self.total - self.n_recorded, self.total, budget)

    def _fewer_fail(self, exe: Path, mode: int, first: Records, lo: int, hi: int, budget: dict[str, str]) -> bool:
        """Whether `mode` fails the original on fewer of inputs `lo` to `hi` than the run `first` did (True
        where its run says nothing: the whole run will)."""
        r = self._run(exe, hi, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, True, lo)
        if r.run.returncode != 0 or len(r.status) != hi - lo:
            return True
        return sum(map(r.failed, range(hi - lo))) < sum(first.failed(i) for i in range(lo, hi))

    def _self_check_or_recorded(self, exe: Path, budget: dict[str, str]) -> None:
        """The self-check; where it fails on generated inputs but the program's recorded calls run whole,
        those calls are the harness's inputs, checked alone."""
        try:
            self._self_check(exe)
        except OutsideDomain:
            if not self.n_recorded or self.only_recorded:
                raise
            # the generated inputs broke the harness itself in the self-check (deflate.c's fill_window:
            # a generated state's fields as far offsets): the program's own calls are checked alone
            self.only_recorded = "the self-check was killed"
            r = self._run_parts(exe, self.total, self.mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
            if r.run.returncode != 0:
                raise RuntimeError(_baseline_failure(r)) from None
            self._adopt(r, sum(1 for i in range(len(r.status)) if r.failed(i) and not r.status[i] & NOT_RUN))
            self._self_check(exe)

    def timing_skip_file(self) -> Path | None:
        """The inputs a timing run passes over: those the original failed on (crashed, ran out of time, or
        never reached), as SC_SKIP reads them; None when it failed on none. A crash is the input's result in
        the verifier, but the timing driver has no way to go on past one."""
        if self.base is None or not any(self.base.failed(i) for i in range(len(self.base.status))):
            return self.skip_file
        path = self.dir / "skip.timing.bin"
        path.write_bytes(bytes(1 if self.base.failed(i) else 0 for i in range(len(self.base.status))))
        return path

    def _adopt(self, r: Records, skipped: int) -> None:
        """Take baseline run `r` (`skipped` inputs failed on it) as the one candidates are compared with."""
        self.not_run = sum(1 for s in r.status if s & NOT_RUN)
        skipped += self.not_run
        # candidates are not run where the original ran out of time, or broke the calling convention itself;
        # where it crashed, they run with the original's own limit (sc_on_alarm)
        timed_out = bytes(1 if s & (TIMED_OUT | NOT_RUN | ABI_BROKEN) else 2 if s & CRASHED else 0 for s in r.status)
        if any(timed_out):
            self.skip_file = self.dir / "skip.bin"
            self.skip_file.write_bytes(timed_out)
        self.base = r
        self.n_inputs = len(r.status)
        self.skipped = skipped
        self.base_dirty_upper = any(s & DIRTY_UPPER for s in r.status)
        self.base_seconds = r.run.seconds
        if skipped == self.n_inputs:
            raise OutsideDomain(
                "the -O3 original crashes or runs out of time on every generated input; "
                "give input bounds for its parameters (--bound NAME=LOW:HIGH)"
            )

    def _self_check(self, exe: Path, margin: float = 1.0) -> None:
        """The baseline once more, every buffer against the guard on its other side. An original that
        reads or writes outside its inputs (past a struct that is really an array, through a NULL
        pointer field plus an offset) gives results that depend on where memory lies: such a harness
        would call good candidates wrong, so it is refused, unless the program's own recorded calls run
        whole: they are then the domain, and the generated inputs it reads past are left out and counted.
        `margin`: how many times the moved inputs of a private state must pass their limit to refuse."""
        assert self.base is not None
        # beside recorded calls, a generated input that runs out of time here is left out, whether it would
        # alone or not: no part runs again for it (inflate_fast: two reruns of 15 s each, for inputs that
        # loop only after the calls before them in their process, not alone)
        first_recorded = self.n_inputs - self.n_recorded
        late_ok = first_recorded if self.n_recorded else 0
        again = self._run_parts(exe, self.n_inputs, self.mode | MODE_FLIP_SIDES, BASELINE_SECONDS + 10, late_ok=late_ok)
        if len(again.status) < self.n_inputs:
            # killed outright: on a generated input the original wrote far outside its inputs (trees.c's
            # _tr_tally: dyn_ltree[lc] with a random lc) and broke the harness itself; narrower inputs may do
            raise OutsideDomain(
                "the -O3 original breaks the harness itself on generated inputs (it writes far outside them, "
                f"as with an index far out of range){': ' + again.run.stderr.strip()[-200:] if again.run.stderr.strip() else ''}; "
                "give input bounds for its parameters (--bound NAME=LOW:HIGH)"
            )
        a, b = self.base, again
        moved = [
            i
            for i in range(self.n_inputs)
            if a.failed(i) != b.failed(i) or (not a.failed(i) and a.values[i] != b.values[i])
        ]
        # a generated input that ran out of time here alone (taken as it is, not run again: late_ok) says
        # nothing about where its buffers lie: on a busy machine it is left out as one out of time (one in
        # 28,000 of a compressor's inputs was said to read past its buffers, in one full test run in two)
        late = {i for i in moved if i < late_ok and not a.failed(i) and b.status[i] & TIMED_OUT}
        for i in late:
            self.skipped += 1
            a.status[i] |= TIMED_OUT
        moved = [i for i in moved if i not in late]
        # a recorded call that reaches memory the recording did not keep (past a region's 64 KiB, a
        # pointer it did not follow) is an incomplete input: left out, not the harness
        self.outside_recorded = sum(1 for i in moved if i >= first_recorded)
        generated = [i for i in moved if i < first_recorded]
        good_recorded = sum(1 for i in range(first_recorded, self.n_inputs) if not a.failed(i)) - sum(
            1 for i in moved if i >= first_recorded and not a.failed(i)
        )
        # a private state's data pointers all point into one generated buffer; where the original runs past
        # its end (pending_buf[pending] near the end), the input is left out, as long as most are not
        # a loose input moves too: the self-check has its buffers tight, against the guard after them (sc_rt.h)
        good_generated = sum(1 for i in range(first_recorded) if not a.failed(i))
        if (
            generated
            and not good_recorded
            and not (self._owned_data() and 4 * len(generated) <= margin * good_generated)
        ):
            raise RuntimeError(_reads_past(generated[0]))
        # where the program's own calls run whole, they are the function's domain: a generated input it
        # reads past (a NULL pointer field plus an offset) is left out and counted, as a crash is; so is
        # one that runs past the buffer a generated private state's data pointers point into
        self.outside_generated = len(generated)
        for i in moved:
            self.skipped += not a.failed(i)
            a.status[i] |= CRASHED

    def build_original(self, base_obj: Path) -> Path:
        """The harness linked with the original, for probing (verify/probe.py). Raises BuildError."""
        self._build_runtime()
        return self.link(base_obj, "probe")

    def stays_inside(self, exe: Path, env: dict[str, str], skip: Path | None = None) -> tuple[bool, int, int]:
        """Run the original on every input twice, each buffer against one guard page and then the
        other: whether every result (crash or value) is the same both times, so it touches nothing
        outside its buffers; how many inputs ran, and on how many it crashed or ran out of time in either
        run. An input that ran out of time in either run, or that one of them did not reach within its
        SC_BUDGET_MS, says nothing about where its buffers lie (a busy machine) and is not compared. The
        two runs go side by side (a probe's search takes some 16 pairs: inflate_table's 5 s, halved).
        With `skip`, the inputs it failed on in either run are written there as SC_SKIP reads them (not
        run): a probe's later runs pass over them (inflate_table crashes on 24,152 of its 25,600 inputs
        with the most elements, a signal each, 0.2 s a pair)."""
        with ThreadPoolExecutor(2) as pool:
            a, b = pool.map(lambda mode: self._run(exe, 10**9, mode, BASELINE_SECONDS, env), (0, MODE_FLIP_SIDES))
        n, m = len(a.status), min(len(a.status), len(b.status))
        failing, late = CRASHED | TIMED_OUT | NOT_RUN, TIMED_OUT | NOT_RUN
        if skip is not None:
            skip.write_bytes(bytes(1 if (a.status[i] | b.status[i]) & failing else 0 for i in range(m)))
        # the same records byte for byte (where it stays inside, nearly always): no comparison one by one.
        # Where no input finished in both runs nothing was compared, and nothing is known: not inside (a
        # busy machine once had slow_key.c's 6 ms calls all out of time at one element, and probed 1, not 16)
        compared = [i for i in range(m) if not (a.status[i] | b.status[i]) & late]
        same = bool(compared) and (
            a.raw == b.raw
            or (
                n == len(b.status)
                and all(a.failed(i) == b.failed(i) and (a.failed(i) or a.values[i] == b.values[i]) for i in compared)
            )
        )
        # failed: where it crashed, or ran out of time in either run. An input that finished on one side
        # only was not compared either: where one run finished its inputs and the run beside it none (a busy
        # machine, whose ticks came late), nothing was compared, and the probe runs again with the whole
        # limit instead of taking it for a read outside (CI once probed slow_key.c's key so)
        return same, n, sum(1 for i in range(n) if a.status[i] & failing or (i < m and b.status[i] & late))

    @property
    def checked(self) -> int:
        return self.n_inputs - self.skipped

    def describe_inputs(self) -> str:
        crashes = self.skipped - self.outside_recorded - self.outside_generated - self.not_run
        limit = (
            f" (over {FLOOR_MS}-{self.input_ms} ms each, 50 times its slowest other input)"
            if self.input_ms != INPUT_MS
            else ""
        )
        skipped = (
            (
                f", {self.not_run:,} generated inputs not run: the -O3 original used its {self.budget_seconds:g}s "
                "budget on the others (--baseline-seconds)"
                if self.not_run
                else ""
            )
            + (f", {crashes:,} skipped: the -O3 original crashes or runs out of time on them{limit}" if crashes else "")
            + (
                f", {self.outside_recorded:,} recorded calls left out: they reach memory the recording did not keep"
                if self.outside_recorded
                else ""
            )
            + (
                f", {self.outside_generated:,} generated inputs left out: the -O3 original breaks the harness itself "
                f"on them ({self.only_recorded}: it writes outside its inputs and its own frame), so only the "
                "program's calls are checked"
                if self.only_recorded
                else f", {self.outside_generated:,} generated inputs left out: the -O3 original's result on them "
                "depends on where its buffers lie (it reads past them, e.g. through a NULL pointer field)"
                if self.outside_generated
                else ""
            )
        )
        starts = (
            ["initial"]
            + (["random"] if self.mode & MODE_RANDOM_GLOBALS else [])
            + (
                [f"{self.n_states} recorded program state{'s' if self.n_states > 1 else ''}"]
                if self.mode & MODE_PROGRAM_STATE
                else []
            )
        )
        state = (
            f", globals from their {', '.join(starts[:-1])} and {starts[-1]} state"
            if self.support and len(starts) > 1
            else ""
        )
        state += self._longest()
        if self.n_recorded:
            made = self.n_inputs - self.n_recorded
            return (
                f"{self.n_inputs:,} inputs: {made:,} generated, {self.n_recorded:,} recorded from the program's own "
                f"calls{skipped}{state}"
            )
        return f"{self.n_inputs:,} generated inputs{skipped}{state}"

    def _longest(self) -> str:
        """The longest generated array the original finished on (its few long inputs, plan.LONG_LEN)."""
        longs = long_inputs(self.plan, self.n_edge, self.n_random)
        base = self.base
        done = [n for i, n in longs.items() if base is not None and i < len(base.status) and not base.failed(i)]
        if not longs:
            return ""
        return f", the longest array {max(done):,} elements" if done else ", none of its long inputs finished"

    def _program_agrees(self, got: Records) -> bool:
        """Whether a candidate gives the original's results on every recorded call of the program."""
        base = self.base
        assert base is not None
        first = self.n_inputs - self.n_recorded
        return (
            self.n_recorded > 0
            and len(got.status) >= self.n_inputs
            and all(
                base.failed(i) or (not got.failed(i) and got.values[i] == base.values[i])
                for i in range(first, self.n_inputs)
            )
        )

    # -- checking -------------------------------------------------------------
    def _show(self, exe: Path, i: int) -> tuple[str, str]:
        r = run_limited(
            [str(exe), "show", str(i + self.show_from), str(self.mode)],
            timeout=10,
            env={**layout_env(self.name), **self.show_env},
        )
        lines = r.stdout.strip().splitlines()
        inp = lines[0] if lines else "?"
        if r.returncode != 0:
            return inp, (r.stderr.strip() or f"exit code {r.returncode}")
        return inp, " / ".join(lines[1:]) or "?"

    def _input(self, i: int) -> str:
        return self._show(self.base_exe, i)[0].replace("f(", f"{self.name}(", 1)

    def check(self, cand_obj: Path, tag: str) -> Check:
        try:
            exe = self.link(cand_obj, tag)
        except build.BuildError as e:
            return Check(False, "link-error", e.output, 0)
        load_time = check_linked(exe, self.base_exe)
        if load_time:
            return Check(False, "unsafe", "; ".join(load_time), 0)
        budget = max(self.min_timeout, 20 * self.base_seconds)
        got = self._run_parts(exe, self.n_inputs, self.mode, budget, original=False)
        r = got.run
        kind, idx, what = got.trailer or (0, None, None)
        where = f" on input {self._input(idx)}" if idx is not None else ""
        if kind == TRAILER_SYSCALL or r.returncode == EXIT_SYSCALL or r.killed_by_seccomp:
            num = f" (number {what})" if what is not None else ""
            return Check(
                False, "unsafe", f"made a forbidden system call{num}{where}; the seccomp filter stopped it", idx or 0
            )
        if r.timed_out:
            return Check(
                False, "timeout", f"did not finish within {budget:.0f}s (the baseline took {self.base_seconds:.2f}s)", 0
            )
        if kind == TRAILER_ABI and what is not None and idx is not None:
            finding = ABI_FINDINGS[what] if what < len(ABI_FINDINGS) else f"finding {what}"
            return Check(False, "abi-violation", f"{finding}{where}", idx)
        verdict = self._compare(exe, got)
        if not verdict.ok:
            return verdict
        return self._own_constants(exe, cand_obj, budget) or verdict

    def _own_constants(self, exe: Path, cand_obj: Path, timeout: float) -> Check | None:
        """A pass of CONSTANT_INPUTS generated inputs drawn from the constants the candidate's code holds and
        the original's does not (asm/immediates.py, harness/sc_cdict.h), run by the original and by the
        candidate: a candidate wrong on one value alone (a hash's seed == 5381) holds that value, and no
        random draw meets it. None where it has no such constants or gives the original's results there."""
        if self.only_recorded or self.n_random < 2:
            return None
        own = [c for c in object_constants(cand_obj) if c not in self.base_constants]
        if not own:
            return None
        none = self.dir / "skip.none.bin"
        none.touch()
        env = {"SC_CAND_DICT": ",".join(f"{c:x}" for c in own), "SC_SKIP": str(none)}
        start = self.n_edge + 1  # past the edge inputs and the one called many times (SC_REPEATED)
        end = start + min(CONSTANT_INPUTS, self.n_random - 1)
        key = env["SC_CAND_DICT"]
        base = self.constant_bases.get(key)
        if base is None:
            # the original with its first limit, the candidate with the later one: as in the whole run, an input
            # the original is slow on is left out, and a candidate gets LATER_FACTOR times its time
            base = self._run(
                self.base_exe, end, self.mode, max(timeout, 30.0), {**env, "SC_LATER_TICKS": "1"}, True, start
            )
            if base.run.returncode != 0 or base.run.timed_out:
                return None  # the original itself breaks the harness on them: nothing to compare with
            self.constant_bases[key] = base
        got = self._run(exe, end, self.mode, max(timeout, 30.0), env, False, start)
        n = len(base.status)
        if got.run.timed_out:  # slow on many of them (a run is no measure of time): its records so far are compared
            n = min(n, len(got.status))
            got = Records(got.status[:n], got.values[:n], base.stdout, RunResult(0, base.stdout, "", False, 0.0))
        q = copy.copy(self)
        q.base, q.n_inputs, q.skipped, q.n_edge, q.n_recorded = base, n, 0, -1, 0
        q.show_from, q.show_env = start, env
        verdict = q._compare(exe, got)
        if verdict.ok:
            return None
        shown = ", ".join(f"{c:#x}" for c in own[:4]) + (", ..." if len(own) > 4 else "")
        return Check(
            False,
            verdict.reason,
            f"{verdict.detail} (an input drawn from the constants its code holds and the original's does not: {shown})",
            verdict.inputs + start,
        )

    def _compare(self, exe: Path, got: Records) -> Check:
        base = self.base
        assert base is not None, "prepare() first"
        if got.raw == base.raw and got.stdout == base.stdout and got.run.returncode == 0:
            return Check(True, None, f"same results on {self.checked:,} inputs", self.checked)
        n = min(len(got.status), self.n_inputs)
        for i in range(n):
            if base.failed(i):
                continue
            st = got.status[i]
            if st & ALLOCATED and not base.status[i] & ALLOCATED:
                return Check(
                    False,
                    "wrong-output",
                    f"changes the heap where the original does not (frees memory it was given) on input "
                    f"{self._input(i)}",
                    i,
                )
            if st & STORED_AROUND and not base.status[i] & STORED_AROUND and not st & (CRASHED | TIMED_OUT):
                return Check(
                    False,
                    "wrong-output",
                    f"stores into the bytes beside a buffer (past its end or before its start) on input "
                    f"{self._input(i)}, even where it writes back what was there: memory that is not its "
                    "object (beside another thread, a lost update); the original does not",
                    i,
                )
            if (st ^ base.status[i]) & HEAP_LEFT and not st & (CRASHED | TIMED_OUT):
                return Check(
                    False,
                    "wrong-output",
                    f"leaves memory allocated on input {self._input(i)}; the original frees all it allocates"
                    if st & HEAP_LEFT
                    else f"frees the memory the original leaves allocated (its result) on input {self._input(i)}",
                    i,
                )
            if st & (CRASHED | TIMED_OUT) or got.values[i] != base.values[i]:
                inp, expected = self._show(self.base_exe, i)
                _, actual = self._show(exe, i)
                inp = inp.replace("f(", f"{self.name}(", 1)
                if st & TIMED_OUT:
                    return Check(
                        False,
                        "timeout",
                        f"no result within {self.later_ms}-{self.later_ms + self.input_ms} ms on input {inp}, where the original "
                        f"returns {expected}",
                        i,
                    )
                if st & CRASHED:
                    return Check(
                        False, "crash", f"signal {st & 0xFF} on input {inp}, where the original returns {expected}", i
                    )
                agrees = self._program_agrees(got)
                only = (
                    f"; it differs only on inputs the program never produced: on all {self.n_recorded:,} calls "
                    "recorded from the program's runs it gives the original's results"
                    if agrees
                    else ""
                )
                if expected == actual:  # the same result shown, other memory written (where a pointer points)
                    what = (
                        f"{inp}: returns {expected} as the original does, but what it leaves in memory differs "
                        "(a buffer it writes, a struct behind a pointer, or where a pointer it moves points)"
                    )
                else:
                    what = f"{inp}: expected {expected}, got {actual}"
                if i == self.n_edge and self.n_random:  # sc_verify.h's SC_REPEATED
                    what += (
                        " (on its last of many calls in a row, 1,000,000 or as many as a second allows, the second half"
                        " on a neighbour of this input with a few bits flipped: a result that changes after many calls,"
                        " or one kept from a call on other data)"
                    )
                return Check(False, "wrong-output", f"{what}{only}", i, agrees)
            if st & DIRTY_UPPER and not self.base_dirty_upper:
                return Check(
                    False,
                    "abi-violation",
                    f"upper halves of the YMM registers left dirty on return (no vzeroupper) "
                    f"on input {self._input(i)}; the original leaves them clean",
                    i,
                )
        if got.run.returncode != EXIT_OK:
            rc = got.run.returncode
            desc = f"signal {-rc}" if rc < 0 else "a signal outside any call" if rc == EXIT_CRASH else f"exit code {rc}"
            return Check(
                False,
                "crash",
                f"the harness itself failed after input {n} ({desc}): "
                "the candidate corrupted memory outside its own frame and buffers",
                n,
            )
        if len(got.status) < self.n_inputs:
            return Check(
                False, "crash", f"exited early, after {len(got.status):,} of {self.n_inputs:,} inputs", len(got.status)
            )
        if got.stdout != base.stdout:
            return Check(
                False,
                "wrong-output",
                f"printed different output than the original: {_first_byte_difference(base.stdout, got.stdout)}",
                0,
            )
        return Check(True, None, f"same results on {self.checked:,} inputs", self.checked)


class OutsideDomain(RuntimeError):
    """The generated inputs are not the function's: the -O3 original fails or runs out of time on (nearly)
    all of them. Narrower inputs may do (harness.plan.narrowed)."""


SYSCALL_NAMES = {0: "read", 1: "write", 2: "open", 9: "mmap", 12: "brk", 39: "getpid", 257: "openat", 318: "getrandom"}


def _forbidden_call(r: Records) -> bool:
    return re.search(r"forbidden system call (\d+)", r.run.stderr) is not None


def _baseline_failure(r: Records) -> str:
    """Why the -O3 original cannot run in the function harness, and what to do."""
    err = r.run.stderr.strip()
    m = re.search(r"forbidden system call (\d+)", err)
    if m:
        n = int(m.group(1))
        name = SYSCALL_NAMES.get(n, f"number {n}")
        return (
            f"the -O3 original makes a system call the function harness does not allow ({name}: it allocates "
            "memory or does I/O, whose effects the harness does not compare); give program tests with --tests DIR"
        )
    return (
        f"the -O3 baseline itself fails in the harness ({err or r.run.returncode}); "
        "give input bounds for its parameters (--bound NAME=LOW:HIGH)"
    )


def _first_byte_difference(expected: bytes, actual: bytes) -> str:
    i = next(
        (k for k in range(min(len(expected), len(actual))) if expected[k] != actual[k]), min(len(expected), len(actual))
    )
    return f"at byte {i}: expected {expected[i : i + 40]!r}, got {actual[i : i + 40]!r}"
