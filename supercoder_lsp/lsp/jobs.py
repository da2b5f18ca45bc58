"""Background optimization jobs, one per (document, function).

The heavy work runs in a worker process (`python -m supercoder_lsp.cli
optimize --json --progress-jsonl`), started with asyncio so the server's
event loop never blocks and the server never imports anything heavy. Jobs are
debounced per document; a newer save cancels an older job of the same
function (its whole process group is killed); a function whose text hash is
unchanged keeps its result and is not redone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import logging
import os
import signal
import sys
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..model import RUNNING, FunctionResult, ReplacementCheck
from ..options import REPLACE_OPTIONS, to_argv
from ..serialize import function_from_json, replacement_from_json
from ..tools import die_with_parent
from .present import speedup, text_hash
from .settings import Settings
from .slots import CHECK, EDITED, OPENED, Slots

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.15
LINE_LIMIT = 64 * 1024 * 1024  # one progress line carries a whole function's result (every candidate's assembly)
CLI = [sys.executable, "-m", "supercoder_lsp.cli"]  # a worker's command, as run in a fresh process


def _background(parent: int) -> None:
    """Workers run at a lower priority, so the editor's requests stay fast while they work; and die with the
    server, however it ends."""
    die_with_parent(parent)
    os.nice(10)


@dataclass
class FunctionJob:
    name: str
    hash: str
    result: FunctionResult | None = None  # decoded from the worker's report
    environment: dict | None = None  # compiler, flags, CPU of the run that produced it
    replacement: ReplacementCheck | None = None  # `supercoder replace --json` for the best candidate
    source_hash: str | None = None  # hash of the file text the replacement was computed from
    error: str | None = None
    task: asyncio.Task | None = None
    token: str | None = None
    proc: asyncio.subprocess.Process | None = None
    priority: int = OPENED  # EDITED: its function's text changed since its last job (slots.py)
    stage: str = ""  # what its worker does now ("harness", "compilers: clang_O3"): shown until a verdict comes


@dataclass
class DocumentJobs:
    path: Path
    uri: str = ""
    functions: dict[str, FunctionJob] = field(default_factory=dict)
    pending: asyncio.TimerHandle | None = None


class Jobs:
    def __init__(self, on_result: Callable[[str], None], progress: ProgressSink):
        self.docs: dict[str, DocumentJobs] = {}
        self.on_result = on_result
        self.progress = progress
        self.settings = Settings()
        self.root: Path | None = None
        self._slots = Slots(1)
        self.tasks: set[asyncio.Task] = set()
        self._spare: asyncio.subprocess.Process | None = None  # a worker waiting for its command (warm)
        self._warming = False

    def configure(self, settings: Settings, root: Path | None = None) -> None:
        self.settings = settings
        self.root = root  # where a workload command runs (its paths are the project's)
        self._slots = Slots(settings.parallel_jobs)
        self.warm()  # for the first job

    def results(self, uri: str) -> dict[str, FunctionJob]:
        doc = self.docs.get(uri)
        return doc.functions if doc else {}

    def pending(self, uri: str) -> dict[str, str]:
        """Functions whose job runs with no verdict yet: name -> what it does now."""
        return {
            name: job.stage or "starting"
            for name, job in self.results(uri).items()
            if job.result is None and job.error is None and job.task is not None and not job.task.done()
        }

    def schedule(
        self,
        uri: str,
        path: Path,
        functions: list[tuple[str, str]],
        *,
        force: bool = False,
        debounce: float = DEBOUNCE_SECONDS,
    ) -> None:
        """Queue jobs for (name, hash) pairs after a debounce; newer calls replace older pending ones."""
        doc = self.docs.setdefault(uri, DocumentJobs(path, uri))
        doc.path = path
        if doc.pending:
            doc.pending.cancel()
        loop = asyncio.get_running_loop()
        doc.pending = loop.call_later(debounce, self._start, uri, functions, force)

    def _start(self, uri: str, functions: list[tuple[str, str]], force: bool) -> None:
        doc = self.docs[uri]
        doc.pending = None
        for name, h in functions:
            old = doc.functions.get(name)
            kept = old is not None and old.result is not None and old.result.status != RUNNING  # not a job's progress
            if old and old.hash == h and not force and (kept or old.task and not old.task.done()):
                continue  # unchanged: keep the result (or the job already running for it)
            if old and old.task and not old.task.done():
                old.task.cancel()  # a newer save: the stale job goes
            job = FunctionJob(name, h, priority=EDITED if old is not None and old.hash != h else OPENED)
            doc.functions[name] = job
            job.task = asyncio.get_running_loop().create_task(self._run(uri, doc, job))
            self.tasks.add(job.task)
            job.task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception():
            log.error("job failed", exc_info=task.exception())

    def cancel_token(self, token: str) -> bool:
        for doc in self.docs.values():
            for job in doc.functions.values():
                if job.token == token and job.task and not job.task.done():
                    job.task.cancel()
                    return True
        return False

    def invalidate(self, uri: str, current: dict[str, str] | None = None) -> bool:
        """Drop results whose function text changed (all of them when `current`, name -> hash, is None)."""
        doc = self.docs.get(uri)
        if not doc:
            return False
        dropped = False
        for name, job in list(doc.functions.items()):
            if current is None or current.get(name) != job.hash:
                if job.task and not job.task.done():
                    job.task.cancel()
                del doc.functions[name]
                dropped = True
        return dropped

    def cancel_document(self, uri: str) -> None:
        doc = self.docs.get(uri)
        if not doc:
            return
        if doc.pending:
            doc.pending.cancel()
        for job in doc.functions.values():
            if job.task and not job.task.done():
                job.task.cancel()

    def command(self, path: Path, name: str) -> list[str]:
        """The worker's command line: run by the warm worker where one waits (warm), else started."""
        run = dataclasses.replace(self.settings.run, functions=(name,))
        return [*CLI, "optimize", "--json", "--progress-jsonl", str(path), *to_argv(run)]

    async def _spawn(self, *argv: str, cwd: str | None = None, warm: bool = False) -> asyncio.subprocess.Process:
        """A worker process, started as every worker is: its own session, a lower priority, dying with the
        server, stdout and stderr piped; `warm`: its stdin too, for its command (worker.py)."""
        return await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE if warm else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            cwd=cwd,
            preexec_fn=functools.partial(_background, os.getpid()),
            limit=LINE_LIMIT,
        )

    def warm(self) -> None:
        """Start a worker that imports what a job needs and waits for its command (worker.py), where none
        waits yet: the next job takes it and begins at its first stage, 0.3 s sooner (this machine)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # configured outside the server's loop: the first job starts one
            return
        if self._spare is not None or self._warming:
            return
        self._warming = True

        async def start() -> None:
            try:
                self._spare = await self._spawn(sys.executable, "-m", "supercoder_lsp.worker", warm=True)
            except OSError as e:
                log.warning("no warm worker: %s", e)
            finally:
                self._warming = False

        task = loop.create_task(start())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _take_spare(self, argv: list[str], cwd: str) -> asyncio.subprocess.Process | None:
        """The warm worker, given `argv` to run in `cwd`; None where there is none alive."""
        spare, self._spare = self._spare, None
        if spare is None or spare.returncode is not None or spare.stdin is None:
            return None
        try:
            spare.stdin.write(json.dumps({"argv": argv, "cwd": cwd}).encode() + b"\n")
            await spare.stdin.drain()
            spare.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            return None
        return spare

    def close(self) -> None:
        """Let the warm worker go (it exits on the end of its stdin)."""
        spare, self._spare = self._spare, None
        if spare is not None and spare.stdin is not None and spare.returncode is None:
            spare.stdin.close()

    async def _run(self, uri: str, doc: DocumentJobs, job: FunctionJob) -> None:
        job.token = f"supercoder-{uuid.uuid4().hex[:12]}"
        await self.progress.begin(job.token, f"supercoder: {job.name}")
        try:
            async with self._slots.take(job.priority):
                rc, out, errors = await asyncio.wait_for(self._work(doc, job), timeout=self.settings.time_budget)
            if rc != 0:
                job.error = "".join(errors).strip()[-2000:] or f"the worker exited with {rc}"
                log.warning("%s: %s", job.name, job.error)
                _settle(job)
            else:
                data = json.loads(out)
                # by the text's name, which a macro may have changed for the compiler (its source_name)
                found = next((f for f in data["functions"] if job.name in (f["name"], f.get("source_name"))), None)
                job.result = function_from_json(found) if found else None
                job.environment = data.get("environment")
            if job.result and job.result.best_result():
                self.on_result(uri)  # show the hint now; the replacement check follows
                await self.progress.report(job.token, "re-verifying the replacement in the edited file", None)
                async with self._slots.take(CHECK):
                    job.replacement = await asyncio.wait_for(
                        self._check_replacement(doc, job), timeout=self.settings.time_budget
                    )
            self.on_result(uri)
            why = (job.error or "").strip().splitlines()
            end = "done" if job.result else f"failed: {why[-1] if why else 'no result'}"
            await self.progress.end(job.token, end)  # the last status: not running
        except asyncio.CancelledError:
            self._kill(job)
            _settle(job)
            await self.progress.end(job.token, "cancelled")
            raise
        except TimeoutError:
            self._kill(job)
            _settle(job)
            job.error = f"over the time budget of {self.settings.time_budget:.0f}s"
            self.on_result(uri)
            await self.progress.end(job.token, job.error)
        except Exception as e:  # a bug of ours: the job ends visibly instead of spinning forever
            self._kill(job)
            _settle(job)
            job.error = f"internal error: {type(e).__name__}: {e}"
            log.exception("%s: the job failed", job.name)
            self.on_result(uri)
            await self.progress.end(job.token, job.error)

    async def _work(self, doc: DocumentJobs, job: FunctionJob) -> tuple[int, bytes, list[str]]:
        cwd = str(self.root if self.root is not None and self.settings.run.workload else doc.path.parent)
        cmd = self.command(doc.path, job.name)
        cli = cmd[: len(CLI)] == CLI
        job.proc = (await self._take_spare(cmd[len(CLI) :], cwd) if cli else None) or await self._spawn(*cmd, cwd=cwd)
        if cli:
            self.warm()  # for the next job
        assert job.proc.stdout is not None and job.proc.stderr is not None and job.token is not None
        stdout_task = asyncio.create_task(job.proc.stdout.read())
        errors: list[str] = []
        async for line in job.proc.stderr:
            try:
                ev = json.loads(line)
            except ValueError:
                errors.append(line.decode(errors="replace"))
                continue
            if ev.get("event") == "update":  # a candidate's verdict (status RUNNING): shown before the run ends
                job.result = function_from_json(ev["function"])
                self.on_result(doc.uri)
                continue
            pct = int(100 * (ev.get("step") or 0) / ev["steps"]) if ev.get("steps") else None
            await self.progress.report(job.token, ev.get("stage", ""), pct)
            if job.result is None and ev.get("stage") and ev["stage"] != job.stage:
                job.stage = ev["stage"]
                self.on_result(doc.uri)  # the line where the verdict will be says what is being done
        out = await stdout_task
        return await job.proc.wait(), out, errors

    async def _check_replacement(self, doc: DocumentJobs, job: FunctionJob) -> ReplacementCheck | None:
        """Rebuild the file with the verified assembly in place, with the project's flags, and re-verify it."""
        text = doc.path.read_text(errors="replace")
        job.source_hash = text_hash(text)
        asm_file = Path(tempfile.mkstemp(prefix="sc-best-", suffix=".s")[1])
        try:
            best = job.result.best_result() if job.result else None
            assert best is not None and job.result is not None
            asm_file.write_text(best.assembly)
            sp = speedup(job.result)  # the deciding speedup (results.deciding_timing)
            argv = [
                sys.executable,
                "-m",
                "supercoder_lsp.cli",
                "replace",
                str(doc.path),
                "-f",
                job.name,
                "--assembly",
                str(asm_file),
                "--json",
                "--note",
                f"verified {sp:.2f}x faster than gcc -O3 ({best.label})",
                *to_argv(self.settings.run, only=REPLACE_OPTIONS),
            ]
            job.proc = await asyncio.create_subprocess_exec(
                *argv,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                cwd=str(doc.path.parent),
                preexec_fn=functools.partial(_background, os.getpid()),
            )
            out, err = await job.proc.communicate()
            if job.proc.returncode not in (0, 5):
                return ReplacementCheck(False, False, err.decode(errors="replace").strip()[-500:])
            return replacement_from_json(json.loads(out))
        finally:
            asm_file.unlink(missing_ok=True)

    @staticmethod
    def _kill(job: FunctionJob) -> None:
        if job.proc and job.proc.returncode is None:
            try:
                os.killpg(job.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


class ProgressSink:
    """Work-done progress towards the client (no-op when it does not support it)."""

    async def begin(self, token: str, title: str) -> None: ...

    async def report(self, token: str, message: str, percentage: int | None) -> None: ...

    async def end(self, token: str, message: str) -> None: ...


def _settle(job: FunctionJob) -> None:
    """A job that ended without its result: a verified win it reported stays (it was verified and timed; tested
    only, where its proof never ended);
    "none faster yet" goes, since nothing is being tried any more (the job's error shows instead)."""
    if job.result is not None and job.result.status == RUNNING and job.result.best_result() is None:
        job.result = None
    best = job.result.best_result() if job.result is not None and job.result.status == RUNNING else None
    if best is not None and best.proving:  # its proof never ended: the claim rests on the tests, as when it
        best.proving = False  # runs out of its budget
        best.detail += "; not proven: the job ended before its proof did"
