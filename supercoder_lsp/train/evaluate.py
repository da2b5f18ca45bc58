"""`supercoder eval`: proposers best-of-N over a dataset, every answer verified and timed, the paper's
metrics in both conventions.

Rows (whole-program answers): answers come from `replay` (DIR/<problem>/*.s, a whole program's .s or a
model's reply), `compilers` (the program built by the other compilers and flags) or `openai` (the row's
own prompt sent to an OpenAI-compatible server, such as the vLLM one in server/). Each is checked by
ProgramVerifier against the row's own -O3 assembly (or its unoptimized one, `--baseline O0`); a row whose
`extra_info.function` names a function takes that function's assembly, placed in the program it will
live in (function_answer).
Programs (function-level answers): each program goes through the ordinary pipeline with its tests and
bench input, so an answer is verified as it will live.

Every sample's result is kept in the state folder as soon as it is known, so an interrupted run goes on
where it stopped. Answers for the next problems are prepared (compiled, asked of a model) in parallel,
but never while something is being timed: timing holds the machine alone.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import build, tools
from ..asm.cut import FunctionMissing, cut_function
from ..model import ACCEPTED
from ..options import InputError, Options
from ..propose.compilers import VARIANTS
from ..propose.prompt import extract_assembly
from ..results import claim_basis, deciding_timing
from . import program_answer
from .function_answer import NotPlaced, as_program
from .metrics import Sample, per_problem, summarize
from .problems import Problem
from .program_answer import compile_program

MODEL_PROPOSERS = ("openai", "hf", "vllm")
ROW_PROPOSERS = ("replay", "compilers", *MODEL_PROPOSERS)
_NOT_COMPILED = {"assemble-error", "unusable", "link-error"}


@dataclass
class EvalReport:
    dataset: str
    kind: str
    baseline: str
    proposers: tuple[str, ...]
    samples: dict[str, list[Sample]]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "schema_version": 1,
            "dataset": self.dataset,
            "kind": self.kind,
            "baseline": self.baseline,
            "proposers": list(self.proposers),
            "summary": summarize(self.samples),
            "problems": per_problem(self.samples),
            "samples": [s.to_json() for ss in self.samples.values() for s in ss],
            "notes": self.notes,
        }


class Quiet:
    """Preparation shares the machine; timing has it alone (a readers-writer lock that prefers the writer:
    once timing waits, no new preparation starts)."""

    def __init__(self) -> None:
        self._c = threading.Condition()
        self._sharing = 0
        self._alone = False
        self._waiting = 0  # timers waiting for the machine

    @contextmanager
    def share(self) -> Iterator[None]:
        with self._c:
            self._c.wait_for(lambda: not self._alone and not self._waiting)
            self._sharing += 1
        try:
            yield
        finally:
            with self._c:
                self._sharing -= 1
                self._c.notify_all()

    @contextmanager
    def alone(self) -> Iterator[None]:
        with self._c:
            self._waiting += 1
            self._c.wait_for(lambda: not self._alone and self._sharing == 0)
            self._waiting -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._c:
                self._alone = False
                self._c.notify_all()


Progress = Callable[[str, int, int], None]  # (problem, done, total)


class Evaluator:
    def __init__(
        self,
        opts: Options,
        state: Path,
        *,
        baseline: str = "O3",
        jobs: int = 2,
        timing: bool = True,
        progress: Progress | None = None,
        ray: str | None = None,
    ):
        """`ray`: a Ray cluster's address ("local": a small local instance) to spread the problems over."""
        if baseline not in ("O3", "O0"):
            raise InputError(f"--baseline must be O3 or O0, not {baseline}")
        self.opts, self.state, self.baseline, self.jobs, self.timing = opts, state, baseline, jobs, timing
        self.ray = ray
        self._models: dict[str, object] = {}
        self.differs: list[str] = []  # rows whose -O3 assembly this machine's gcc does not reproduce
        self._model_lock = threading.RLock()  # one generation at a time per run
        self.progress = progress or (lambda p, i, n: None)
        self.quiet = Quiet()
        self.notes: list[str] = []
        state.mkdir(parents=True, exist_ok=True)

    def run(self, problems: list[Problem], dataset: str) -> EvalReport:
        kinds = {p.kind for p in problems}
        if len(kinds) != 1:
            raise InputError("a dataset holds rows or programs, not both")
        kind = kinds.pop()
        if kind == "row":
            bad = [p for p in self.opts.proposers if p not in ROW_PROPOSERS]
            if bad:
                raise InputError(
                    f"proposer {', '.join(bad)} cannot answer whole-program rows; use {', '.join(ROW_PROPOSERS)}"
                )
        else:
            if self.baseline != "O3":
                raise InputError(
                    "--baseline O0 applies to rows (their unoptimized assembly); programs time against -O3"
                )
        if self.ray:
            from .cluster import spread

            samples = spread(self, problems, self.ray, run_problem)
        else:
            samples = self._rows(problems) if kind == "row" else self._programs(problems)
        if self.differs:
            from .. import tools

            self.notes.insert(
                0,
                f"{len(self.differs)} of {len(problems)} rows: the row's -O3 assembly differs from this machine's "
                f"gcc -O3 ({tools.version('gcc')}); answers are timed against the row's own, assembled here "
                f"({', '.join(self.differs[:5])}{', ...' if len(self.differs) > 5 else ''})",
            )
        return EvalReport(dataset, kind, self.baseline, tuple(self.opts.proposers), samples, self.notes)

    def solve(self, p: Problem) -> list[Sample]:
        """One problem's samples, here (a cluster worker's task)."""
        return (self._rows([p]) if p.kind == "row" else self._programs([p]))[p.id]

    def problem_file(self, p: Problem) -> Path:
        """Where a problem's finished samples are kept."""
        return self.state / _safe(p.id) / "samples.json"

    def keep(self, p: Problem, samples: list[dict]) -> None:
        _write(self.problem_file(p), samples)

    # -- rows: whole-program answers ---------------------------------------------------
    def _rows(self, problems: list[Problem]) -> dict[str, list[Sample]]:
        out: dict[str, list[Sample]] = {}
        with ThreadPoolExecutor(max_workers=max(1, self.jobs)) as pool:
            prepared = [pool.submit(self._prepare, p) for p in problems]  # answers, in parallel
            for i, (p, fut) in enumerate(zip(problems, prepared)):
                self.progress(p.id, i, len(problems))
                out[p.id] = self._judge_row(p, fut.result())
        self.progress("", len(problems), len(problems))
        return out

    def _sample_file(self, p: Problem, label: str) -> Path:
        return self.state / _safe(p.id) / f"{_safe(label)}.json"

    def _prepare(self, p: Problem) -> list[tuple[str, str, str | None]]:
        """(label, origin, answer assembly or None) for every sample of every proposer."""
        answers: list[tuple[str, str, str | None]] = []
        for name in self.opts.proposers:
            with self.quiet.share():
                answers += list(self._answers(name, p))
        return answers

    def _answers(self, name: str, p: Problem) -> Iterator[tuple[str, str, str | None]]:
        n = self.opts.samples
        if name == "replay":
            if self.opts.candidates_dir is None:
                raise InputError("the replay proposer needs --candidates DIR (DIR/<problem>/*.s)")
            for f in sorted((self.opts.candidates_dir / _safe(p.id)).glob("*.s"))[:n]:
                text = f.read_text(errors="replace")
                yield f"replay-{f.stem}", f"replay:{f}", extract_assembly(text)
        elif name == "compilers":
            for i, (cc, flags) in enumerate(v for v in VARIANTS if tools.which(v[0])):
                if i >= n:
                    break
                label = f"compilers-{cc}{''.join(flags).replace('-', '_')}"
                if self._sample_file(p, label).is_file():
                    yield label, "", None  # known: not rebuilt
                    continue
                asm = compile_program(p.c_code, cc, flags)
                if asm is not None and p.function:  # a function-level row: that function's code
                    try:
                        asm = cut_function(asm, p.function).text
                    except FunctionMissing:
                        asm = None  # inlined everywhere by this compiler: no answer of its own
                yield label, f"compilers:{cc} -O3 {' '.join(flags)}", asm
        elif name in MODEL_PROPOSERS:
            labels = [f"{name}-{i}" for i in range(n)]
            if all(self._sample_file(p, lb).is_file() for lb in labels):
                yield from ((lb, "", None) for lb in labels)
                return
            prop = self._model(name)
            msgs = p.prompt or [{"role": "user", "content": p.c_code}]
            with self._model_lock:
                replies = prop.complete(msgs, n)
            if len(replies) < n:
                self.notes.append(
                    f"{p.id}: {name} gave {len(replies)} of {n} replies ({prop.note or 'no reason given'})"
                )
            for lb, (text, _) in zip(labels, replies):
                yield lb, f"{name}:{prop.settings().get('model')}", extract_assembly(text)

    def _model(self, name: str):
        """The model proposer, made once per run (the hf one loads its weights)."""
        from ..propose.base import ProposerUnavailable
        from ..propose.registry import make_proposer

        with self._model_lock:
            if name not in self._models:
                try:
                    self._models[name] = make_proposer(name, self.opts)
                except ProposerUnavailable as e:
                    raise InputError(str(e)) from e
            return self._models[name]

    def _judge_row(self, p: Problem, answers: list[tuple[str, str, str | None]]) -> list[Sample]:
        if p.baseline_asm is not None and self.baseline == "O3":
            local = compile_program(p.c_code, "gcc", ())
            if local is None or program_answer.answer_digest(local) != program_answer.answer_digest(p.baseline_asm):
                self.differs.append(p.id)
        base_asm = p.baseline_asm if self.baseline == "O3" else p.unoptimized_asm
        if not base_asm:
            base_asm = compile_program(p.c_code, "gcc", ("-O0",))
            self.notes.append(f"{p.id}: the row has no unoptimized assembly; the baseline is gcc -O0 built here")
        verifier = program_answer.ProgramVerifier(
            p.tests,
            base_asm or "",
            self.state / _safe(p.id) / "work",
            timing=self.timing,
            time_lock=self.quiet.alone,
            also_trusted=tuple(a for a in (p.baseline_asm, p.unoptimized_asm) if a and a != base_asm),
        )
        samples = []
        for label, origin, asm in answers:
            f = self._sample_file(p, label)
            if f.is_file():  # measured before this run was interrupted
                samples.append(Sample(**json.loads(f.read_text())))
                continue
            try:
                o = self._check_row_answer(verifier, p, asm, re.sub(r"\W", "_", label))
            except build.BuildError:
                self.notes.append(f"{p.id}: {verifier.baseline_problem}")
                return []
            s = Sample(
                p.id, label, origin, o.compiled, o.correct, o.speedup, o.significant, o.reason, o.detail,
                identical=o.identical, level=f"tested on {o.total} tests" if o.correct else "", answer=asm or "",
            )  # fmt: skip
            _write(f, s.to_json())
            samples.append(s)
        if verifier.baseline_problem:
            self.notes.append(f"{p.id}: {verifier.baseline_problem}")
        return samples

    @staticmethod
    def _check_row_answer(verifier, p: Problem, asm: str | None, label: str):
        if asm is not None and p.function:  # a function-level row: checked in the program it will live in
            try:
                asm = as_program(p.c_code, p.function, asm)
            except NotPlaced as e:
                return program_answer.Outcome(False, False, 0, len(p.tests), "unusable", str(e))
        return verifier.check(asm, label)

    # -- programs: function-level answers through the pipeline ------------------------
    def _programs(self, problems: list[Problem]) -> dict[str, list[Sample]]:
        from ..optimize.pipeline import Pipeline

        out: dict[str, list[Sample]] = {}
        for i, p in enumerate(problems):
            self.progress(p.id, i, len(problems))
            f = self.problem_file(p)
            if f.is_file():
                out[p.id] = [Sample(**d) for d in json.loads(f.read_text())]
                continue
            assert p.path is not None and p.function is not None
            bench = p.path / "bench.in"
            opts = replace(
                self.opts,
                functions=(p.function,),
                tests_dir=p.path / "tests",
                bench_input=bench if bench.is_file() and self.timing else None,
                candidates_dir=self._replay_layout(p),
            )
            rep = Pipeline(opts).run(p.path / "prog.c")
            samples = [sample_from_candidate(p.id, c, fr.candidates) for fr in rep.functions for c in fr.candidates]
            self.notes += [f"{p.id}: {n}" for n in rep.notes]
            for fr in rep.functions:
                if fr.status != "done":
                    self.notes.append(f"{p.id}: {fr.name}: {fr.status}: {fr.detail}")
            _write(f, [s.to_json() for s in samples])
            out[p.id] = samples
        self.progress("", len(problems), len(problems))
        return out

    def _replay_layout(self, p: Problem) -> Path | None:
        """The replay proposer's layout (<dir>/<function>/*.s) for this problem's DIR/<problem>/*.s."""
        if self.opts.candidates_dir is None:
            return None
        src = (self.opts.candidates_dir / _safe(p.id)).resolve()
        d = self.state / _safe(p.id) / "replay"
        link = d / str(p.function)
        d.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(src if src.is_dir() else d / "none", target_is_directory=True)
        return d


def sample_from_candidate(pid: str, c, all_candidates) -> Sample:
    verdict = c
    m = re.match(r"same assembly as candidate (\S+)", c.detail or "") if c.reason == "duplicate" else None
    if m:  # a duplicate of another candidate has that one's verdict
        verdict = next((o for o in all_candidates if o.label == m.group(1)), c)
    identical = c.reason == "duplicate" and m is None
    correct = identical or verdict.status == ACCEPTED or verdict.reason == "not-faster"
    t = deciding_timing(verdict)
    return Sample(
        pid,
        c.label,
        c.origin,
        compiled=(verdict.reason or "") not in _NOT_COMPILED,
        correct=correct,
        speedup=1.0 if identical else (t.speedup if t else None),
        significant=verdict.status == ACCEPTED,
        reason=None if correct else verdict.reason,
        detail=c.detail.splitlines()[0][:300] if c.detail else "",
        identical=identical,
        level=claim_basis(verdict) if correct and not identical else "",
        answer=c.assembly,
    )


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name)[:120] or "_"


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)  # an interrupted run leaves whole results or none


def run_problem(opts, p: Problem, baseline: str, timing: bool) -> tuple[list[dict], list[str]]:
    """One problem on a worker, in a scratch state folder of its own."""
    with tempfile.TemporaryDirectory(prefix="sc-eval-") as d:
        ev = Evaluator(opts, Path(d), baseline=baseline, jobs=1, timing=timing)
        got = ev.solve(p)
        return [s.to_json() for s in got], ev.notes
