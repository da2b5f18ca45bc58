"""Function-level timing: baseline, a copy of the baseline and the candidate,
interleaved in one process, over several code alignments.

Plain hyperfine cannot see small differences on these machines, and code
alignment alone can move identical code by 2x. So each alignment gets its
own executable holding three copies placed at the same offset from a page
boundary, each with its own batch loop: the baseline (t0), the baseline again
(t1, the A/A control that measures the noise floor in that very layout) and
the candidate (t2). Each round runs the three in a random order; each batch
times calls over inputs drawn like the verifier's. The ratio per round is the
geometric mean of the two baseline copies' times over the candidate's time.
The driver's own state is read-only while any copy runs, and every round's
three results are compared here, outside the timed process
(harness/sc_timing.h).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import build
from ..asm.elfcheck import check_linked
from ..harness import include_dir
from ..harness.inputs_c import owned_sizes
from ..harness.plan import Plan
from ..harness.recorded import RecordedInputs
from ..model import Timing
from ..verify.layout import layout_env
from ..verify.sandbox import run_limited
from .passes import clear_win, hopeless, ratios, verdict
from .stats import median_ci, noise_floor
from .timing_driver import OFFSETS, _fresh, _padded, render_timing


@dataclass
class TimingSetup:
    workdir: Path
    name: str
    plan: Plan
    seed: int = 0x5C0DE
    rounds: int = 100  # per alignment, over all passes
    passes: int = 5
    batch_ns: int = 1_000_000
    offsets: tuple[int, ...] = OFFSETS
    min_speedup: float = 1.02
    budget_s: float = 6.0  # per alignment; past it, the run stops after 6 rounds
    recorded: RecordedInputs | None = None  # the program's own calls: timed instead of random inputs
    link_flags: tuple[str, ...] = ()  # what the function needs from the rest of the project (libraries)
    # the verifier's skip list: generated inputs the original runs out of time on, or did not reach within
    # its budget, are not timed either (a 40 ms call among 1 us ones would be most of every batch)
    skip_file: Path | None = None


class TimingError(RuntimeError):
    """The candidate could not be timed (not a verdict on its speed)."""


class TimingMismatch(TimingError):
    """The timing run contradicts itself: a candidate that tampers with its measurement."""


class NotReproducible(TimingError):
    """The original's own copies disagree, or it fails itself, while being timed: nothing to compare with."""


class InterleavedTimer:
    """Compile the timing driver once per function, then time candidates."""

    def __init__(self, setup: TimingSetup, support_objs: tuple[Path, ...] = (), lazy: bool = False):
        """`lazy`: the driver is compiled at the first candidate timed (none may get that far), and a
        driver that does not compile is then that candidate's TimingError; else here (a BuildError)."""
        self.s = setup
        self.dir = Path(setup.workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.support = list(support_objs)
        self._runs = 0
        self._recorded_timed = 0  # how many distinct recorded calls a timing run's inputs hold
        self._reference: dict[int, Path] = {}
        self._alike: dict[int, bool] = {}  # alignment -> the original's own three copies agree (_reproducible)
        self._base: dict[tuple[int, str], Path] = {}  # the original's copies: the same for every candidate
        self._base_asm = ""
        self._blob: Path | None = None
        if setup.recorded:
            self._blob = self.dir / "recorded.bin"
            self._blob.write_bytes(setup.recorded.blob)
        self.fresh = False  # every call from its input as drawn (_go_fresh)
        self._compiled: set[bool] = set()  # the drivers compiled: fresh or not
        self._compiling = {False: threading.Lock(), True: threading.Lock()}
        self._preparing: threading.Thread | None = None  # the original's copies and links, built beside the checks
        self._low: set[bool] = set()  # the drivers being compiled at the lowest priority (_compile)
        # rendered now: one that cannot be rendered fails here, as before; the fresh one where it is compiled
        self._render(False)
        if not lazy:
            self._compile()

    def _render(self, fresh: bool) -> None:
        self._driver(fresh)[0].write_text(self._text(fresh))

    def _text(self, fresh: bool) -> str:
        """The driver's C; a function that writes its buffers has each pass start from the inputs as drawn
        (sc_timing.h SC_FRESH_PASS)."""
        writes = any(p.role in ("array", "cstring") and not p.ctype.startswith("const") for p in self.s.plan.params)
        pass_fresh = writes or bool(owned_sizes(self.s.plan))
        return render_timing(self.s.plan, self.s.seed, self.s.recorded, self._blob, fresh=fresh, pass_fresh=pass_fresh)

    def _driver(self, fresh: bool) -> tuple[Path, Path]:
        """The source and object of the driver, fresh or not."""
        name = "timing-fresh" if fresh else "timing"
        return self.dir / f"{name}.c", self.dir / f"{name}.o"

    def _can_go_fresh(self) -> bool:
        """Whether the inputs have buffers a call could change that are not restored yet (a deep recorded call
        is restored already: sc_timing.h SC_FRESH)."""
        has_buffers = any(p.role in ("array", "cstring") for p in self.s.plan.params) or bool(owned_sizes(self.s.plan))
        return has_buffers and not self.fresh and not _fresh(self.s.recorded)

    def _go_fresh(self) -> None:
        """From now on, every timed call starts from its input as the verifier drew it (SC_FRESH_ALL), and only
        the call is timed: the other driver, and the links with it."""
        self.fresh = True
        self._reference, self._alike = {}, {}

    def _compile(self, fresh: bool | None = None, background: bool = False) -> None:
        """Compile the driver (fresh or not) once; `background`: at the lowest priority (build.run_tool).
        Needed while a compile at the lowest priority is under way, it is compiled again here, beside that one,
        at the usual priority: on a busy machine the other may wait minutes for a core (a stream's fresh
        driver: 115 s of one test's 144, beside two other tests on two cores)."""
        fresh = self.fresh if fresh is None else fresh
        if not background and fresh in self._low and fresh not in self._compiled:
            self._compile_now(fresh, low=False)
            return
        if background:
            self._low.add(fresh)
        try:
            with self._compiling[fresh]:
                if fresh not in self._compiled:
                    self._compile_now(fresh, low=background)
        finally:
            self._low.discard(fresh)

    def _compile_now(self, fresh: bool, low: bool) -> None:
        """One compile of the driver, from a source and into an object of its own, the object then put in its
        place at once: two compiles of it may run at a time (_compile)."""
        src, obj = self._driver(fresh)
        own = f"{threading.get_ident()}.{'low' if low else 'now'}"
        own_src, own_obj = src.with_suffix(f".{own}.c"), obj.with_suffix(f".{own}.o")
        own_src.write_text(self._text(fresh))
        build.run_tool(
            ["gcc", "-O2", "-g0", "-w", "-I", str(include_dir()), "-c", str(own_src), "-o", str(own_obj)],
            "compile timing harness",
            low=low,
        )
        os.replace(own_src, src)
        os.replace(own_obj, obj)
        self._compiled.add(fresh)

    def compile_in_background(self, base_asm: str | None = None) -> None:
        """Compile the driver now, beside the first candidate's checks, where one will be timed next (trees.c's
        send_tree: 0.4 s of its first result); a driver that does not compile says so when it is needed. Where
        the inputs own private states, the fresh one too, on a thread of its own: such a state is what a call
        changes (_go_fresh: LZ4F_decompress, 0.7 s of its first result). That one at the lowest priority: it is
        needed only where a timing goes fresh, and beside the checks it took them from 0.7 to 1.0 s (the first
        result of LZ4F_decompress, whose first candidate is refused). The first is needed as soon as a
        candidate passes, and overlaps the checks: at the lowest priority it compiled after them, and
        send_tree's final result came 1.5 s later. With `base_asm`, that thread then builds what every
        candidate's timing links with the original (_reference_at), which the first candidate's timing waited for."""

        def compile_quietly(fresh: bool) -> None:
            try:
                self._compile(fresh, background=fresh != self.fresh)
                if base_asm is not None and fresh == self.fresh:
                    self._use_original(base_asm)
                    for off in self.s.offsets:
                        self._reference_at(base_asm, off)
            except Exception:  # noqa: BLE001 - time() builds them again and reports why
                pass

        wanted = [self.fresh] + ([True] if self._can_go_fresh() and owned_sizes(self.s.plan) else [])
        for fresh in wanted:
            if fresh not in self._compiled or (base_asm is not None and fresh == self.fresh):
                thread = threading.Thread(target=compile_quietly, args=(fresh,), daemon=True)
                thread.start()
                if fresh == self.fresh:
                    self._preparing = thread

    def _objects(self, asm: str, tag: str, offset: int, sym: str) -> Path:
        obj = self.dir / f"{tag}.{sym}.off{offset}.o"
        build.assemble(_padded(asm, self.s.name, offset), obj)
        build.objcopy(obj, f"--redefine-sym={self.s.name}={sym}")
        return obj

    def _use_original(self, base_asm: str) -> None:
        if base_asm != self._base_asm:  # another original: its copies and reference links are built anew
            self._base_asm, self._base, self._reference, self._alike = base_asm, {}, {}, {}

    def _original(self, base_asm: str, offset: int, sym: str) -> Path:
        if (offset, sym) not in self._base:
            self._base[offset, sym] = self._objects(base_asm, "base", offset, sym)
        return self._base[offset, sym]

    def _run(self, exe: Path, off: int, rounds: int) -> list[tuple[float, float, float]]:
        """One timing process: `rounds` interleaved rounds, in ns per call (baseline, copy, candidate)."""
        limit = self.s.budget_s * 4 + 30
        self._runs += 1
        r = run_limited(
            [
                str(exe),
                str(rounds),
                str(self.s.batch_ns),
                str(int(self.s.budget_s / self.s.passes * 1e9)),
                str(self.s.seed + self._runs),
            ],
            timeout=limit,
            # laid out as the verifier's runs of this function are (its island where they had it)
            env={
                **layout_env(self.s.name),
                **({"SC_SKIP": str(self.s.skip_file)} if self.s.skip_file is not None else {}),
            },
        )
        if r.timed_out:
            raise TimingError(
                f"a timing run took over {limit:.0f}s: single calls are too slow "
                f"to time; bound the inputs (--bound {self.s.name}.PARAM=LOW:HIGH)"
            )
        if r.killed_by_seccomp or r.returncode == 128 + signal.SIGSYS:  # the filter's kill, or sc_timing.h's
            raise TimingError("made a forbidden system call while being timed")
        if r.returncode != 0:
            rc = r.returncode
            what = f"timing run failed at offset {off}: {r.stderr.strip() or (f'signal {-rc}' if rc < 0 else f'exit code {rc}')}"
            if exe != self._reference.get(off) and not self._reproducible(off, rounds):
                raise NotReproducible(f"the original itself fails while being timed ({what})")
            raise TimingError(what)
        lines = [ln.split() for ln in r.stdout.split("\n") if ln.strip()]
        try:
            calls = int(lines[0][1])
            if len(lines[0]) > 2:  # how many of the program's recorded calls the inputs timed hold
                self._recorded_timed = max(self._recorded_timed, int(lines[0][2]))
            rows = [ln for ln in lines[1:] if ln[0] != "buffers"]
            buffers = lines[-1]
            ok = buffers[0] == "buffers" and all(len(ln) == 6 for ln in rows)
        except (IndexError, ValueError):
            ok = False
        if not ok:
            raise TimingMismatch(
                f"the timing run's output is malformed (the candidate wrote to it?): {r.stdout[:200]!r}"
            )
        # the three results of every round, compared here: outside the process that ran the candidate
        same = all(ln[3] == ln[4] == ln[5] for ln in rows) and buffers[1] == buffers[2] == buffers[3]
        if not same and exe != self._reference.get(off) and not self._reproducible(off, rounds):
            raise NotReproducible(
                "what the calls leave differs between two copies of the original itself while being timed, so the "
                "candidate's cannot be compared"
            )
        if not same:
            raise TimingMismatch(
                "while being timed the candidate computed results that differ from the baseline's "
                "(it behaves differently outside the verification harness)"
            )
        times = [tuple(int(x) / calls for x in ln[:3]) for ln in rows]
        reported = sum(sum(t) for t in times) * calls / 1e9
        if reported > r.seconds * 1.05 + 0.01:
            raise TimingMismatch(
                f"the timing run reported {reported:.3f}s of calls in a process that ran {r.seconds:.3f}s"
            )
        return [(a, b, c) for a, b, c in times]

    def _link(self, base_asm: str, cand_asm: str, tag: str) -> dict[int, Path]:
        """One timing executable per alignment, each checked against the same link of the original; the
        alignments built side by side (their own files each)."""
        if self._preparing is not None:  # what compile_in_background builds of the original: taken, not redone
            self._preparing.join()
            self._preparing = None
        self._use_original(base_asm)
        with ThreadPoolExecutor(len(self.s.offsets)) as pool:
            built = pool.map(lambda off: self._link_at(base_asm, cand_asm, tag, off), self.s.offsets)
            return dict(zip(self.s.offsets, built, strict=True))

    def _link_at(self, base_asm: str, cand_asm: str, tag: str, off: int) -> Path:
        exe = self.dir / f"{tag}.timing.off{off}"
        objs = [*self._reference_at(base_asm, off), self._objects(cand_asm, tag, off, "sc_t2")]
        build.link([self._driver(self.fresh)[1], *objs, *self.support], exe, extra=self.s.link_flags)
        load_time = check_linked(exe, self._reference[off])
        if load_time:
            raise TimingMismatch("; ".join(load_time))
        return exe

    def _reference_at(self, base_asm: str, off: int) -> list[Path]:
        """The original's two copies at alignment `off`, and the link with it in the candidate's place too
        (the same for every candidate)."""
        objs = [self._original(base_asm, off, "sc_t0"), self._original(base_asm, off, "sc_t1")]
        if off not in self._reference:
            ref = self.dir / f"reference.timing.off{off}"
            driver = self._driver(self.fresh)[1]
            build.link(
                [driver, *objs, self._original(base_asm, off, "sc_t2"), *self.support], ref, extra=self.s.link_flags
            )
            self._reference[off] = ref
        return objs

    def _reproducible(self, off: int, rounds: int) -> bool:
        """Whether the link with the original in all three places (no candidate code in the process) gives
        three alike results: where it does not, a difference says nothing about the candidate. Asked once
        per alignment, and only where a candidate's results differed."""
        if off not in self._alike:
            try:
                self._run(self._reference[off], off, rounds)
                self._alike[off] = True
            except TimingError:  # its results differ between the copies, or it fails itself
                self._alike[off] = False
        return self._alike[off]

    def _alignment(self, off: int, rows: list[tuple[float, float, float]]) -> tuple[dict[str, Any], list[float]]:
        """One alignment's speedup with its CI, its A/A noise floor, and its per-round ratios."""
        t0 = [a for a, _, _ in rows]
        t1 = [b for _, b, _ in rows]
        t2 = [c for _, _, c in rows]
        ratio = ratios(rows)
        aa = [a / b for a, b in zip(t0, t1)]
        med, lo, hi = median_ci(ratio)
        aa_med, aa_lo, aa_hi = median_ci(aa)
        stats = {
            "offset": off,
            "speedup": med,
            "ci": [lo, hi],
            "aa": aa_med,
            "aa_ci": [aa_lo, aa_hi],
            "noise_floor": noise_floor(aa_lo, aa_hi, self.s.min_speedup),
            "baseline_ns": median_ci(t0)[0],
            "candidate_ns": median_ci(t2)[0],
        }
        return stats, ratio

    def time(self, base_asm: str, cand_asm: str, tag: str, on_early: Callable[[Timing], None] | None = None) -> Timing:
        """The timing over every pass; `on_early` gets it once before its last pass where the passes so far
        already show the candidate faster beyond doubt (passes.clear_win): the editor's first hint, marked as such
        (Timing.interim). The returned timing, from every pass, decides."""
        return self._timed(base_asm, cand_asm, tag, self.s.passes, on_early)[0]

    def first_pass(self, base_asm: str, cand_asm: str, tag: str) -> Timing | None:
        """The timing after the first pass where it already shows that the candidate cannot be faster
        (passes.hopeless: the whole timing stops there too), else None: only all passes can say faster. The
        editor's first look on the program's calls (first_look.py): a verdict before the generated inputs'
        runs (inflate_fast's 38 s)."""
        t, stopped = self._timed(base_asm, cand_asm, tag, 1)
        return t if stopped else None

    def _timed(
        self, base_asm: str, cand_asm: str, tag: str, passes: int, on_early: Callable[[Timing], None] | None = None
    ) -> tuple[Timing, bool]:
        """The timing over up to `passes` passes, and whether it stopped early because more could not make
        the candidate faster; never significant unless it ran all the setup's passes. Where the original's
        own copies cannot be timed on what the last call left, it is timed again with every call from its
        input as drawn (and so every timing after)."""
        try:
            return self._timed_once(base_asm, cand_asm, tag, passes, on_early)
        except NotReproducible as e:
            if not self._can_go_fresh():
                raise TimingError(f"{e}; {self._why_not_fresh()}") from e
            self._go_fresh()
        try:
            return self._timed_once(base_asm, cand_asm, tag, passes, on_early)
        except NotReproducible as e:
            raise TimingError(f"{e}, even with every call from its input as drawn") from e

    def _why_not_fresh(self) -> str:
        if _fresh(self.s.recorded):
            return "each call started from the program's recorded state, which it then runs past"
        if self.fresh:
            return "even with every call from its input as drawn"
        return "its inputs hold no buffer to restore between calls (a global state the calls change?)"

    def _timed_once(
        self, base_asm: str, cand_asm: str, tag: str, passes: int, on_early: Callable[[Timing], None] | None = None
    ) -> tuple[Timing, bool]:
        try:
            self._compile()
        except build.BuildError as e:
            raise TimingError(f"the timing driver does not compile: {e.output.strip()[-300:]}") from e
        exes = self._link(base_asm, cand_asm, tag)
        # Several passes over the alignments, so that every alignment is
        # sampled across the whole window: the machine's state (a busy SMT
        # sibling, frequency) drifts over seconds and moves ratios with it.
        rows_by: dict[int, list[tuple[float, float, float]]] = {off: [] for off in self.s.offsets}
        per_pass = max(6, -(-self.s.rounds // self.s.passes))
        stopped = ""
        for n in range(1, min(passes, self.s.passes) + 1):
            for off, exe in exes.items():
                rows_by[off] += self._run(exe, off, per_pass)
            stopped = hopeless(rows_by, self.s.min_speedup) if n < self.s.passes else ""
            if stopped:
                stopped = f"; timing stopped after {n} of {self.s.passes} passes: {stopped}"
                break
            if on_early is not None and n < self.s.passes and clear_win(rows_by, n, self.s.min_speedup):
                so_far = f"{n} of {self.s.passes} timing passes so far"
                early = self._timing_of(rows_by, f"; {so_far}, the rest running")
                early.interim = so_far
                on_early(early)
                on_early = None
        t = self._timing_of(rows_by, stopped)
        if stopped or passes < self.s.passes:  # never a claim from part of the passes
            t.significant = False
        return t, bool(stopped)

    def _timing_of(self, rows_by: dict[int, list[tuple[float, float, float]]], more: str = "") -> Timing:
        per_alignment: list[dict[str, Any]] = []
        pooled: list[float] = []
        samples: dict = {"unit": "ns per call", "alignments": {}}
        for off, rows in rows_by.items():
            stats, ratio = self._alignment(off, rows)
            per_alignment.append(stats)
            samples["alignments"][str(off)] = {
                "baseline": [a for a, _, _ in rows],
                "baseline_copy": [b for _, b, _ in rows],
                "candidate": [c for _, _, c in rows],
            }
            pooled += ratio
        t = verdict(per_alignment, pooled, samples)
        t.detail += more
        if self.s.recorded:
            n, used = len(self.s.recorded), self._recorded_timed
            some = f"{used} of the {n}" if 0 < used < n else f"the {n}"
            t.detail += f", timed on {some} calls recorded from the program"
        return t
