"""Background jobs on their own: a worker's progress stream reaches the editor whatever its size."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from supercoder_lsp.lsp.jobs import Jobs, ProgressSink
from supercoder_lsp.model import RUNNING, CandidateResult, FunctionResult
from supercoder_lsp.serialize import function_to_json


class Recorder(ProgressSink):
    def __init__(self):
        self.reports: list[str] = []

    async def report(self, token, message, percentage):
        self.reports.append(message)


async def test_a_large_update_line_from_the_worker_is_shown(tmp_path: Path):
    """With 8 samples a function's result is hundreds of KiB on one line: it must not kill the job."""
    cands = [CandidateResult(f"c{i}", "x", "rejected", "not-faster", "", "x" * 40_000) for i in range(8)]
    big = function_to_json(FunctionResult("f", None, "int (int)", "done", "", 1.0, candidates=cands))
    last = function_to_json(FunctionResult("f", None, "int (int)", "done", "", 1.0))
    shown: list = []
    progress = Recorder()
    job = await _job_of_worker(
        tmp_path,
        "import json, sys\n"
        "sys.stderr.write(json.dumps({'function': 'f', 'stage': 'compilers: gcc', 'step': 1, 'steps': 2}) + '\\n')\n"
        f"sys.stderr.write(json.dumps({{'event': 'update', 'function': {big!r}}}) + '\\n')\n"
        f"print(json.dumps({{'functions': [{last!r}]}}))\n",
        shown,
        progress,
    )
    assert job.error is None
    assert any(r and sum(len(c.assembly) for c in r.candidates) == 320_000 for r in shown)  # arrived whole
    assert progress.reports[0] == "compilers: gcc"


async def _job_of_worker(tmp_path: Path, script: str, shown: list, progress: ProgressSink | None = None):
    """The job of function f run by a worker script: what the editor was shown (`shown`), the job."""
    worker = tmp_path / "worker.py"
    worker.write_text(script)
    jobs = Jobs(lambda uri: shown.append(jobs.results(uri)["f"].result), progress or Recorder())
    jobs.command = lambda path, name: [sys.executable, str(worker)]
    src = tmp_path / "f.c"
    src.write_text("int f(int x) { return x; }\n")
    jobs.schedule(src.as_uri(), src, [("f", "h")], debounce=0)
    await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*jobs.tasks), 30)
    return jobs.results(src.as_uri())["f"]


async def test_none_faster_yet_is_shown_while_the_job_runs_and_dropped_when_it_fails(tmp_path: Path):
    """A "running" update shows at once; a job that then fails shows its error, not "trying more"."""
    tried = [CandidateResult("c0", "x", "rejected", "not-faster", "1.00x", "")]
    running = function_to_json(FunctionResult("f", None, "int (int)", RUNNING, "", 1.0, candidates=tried))
    shown: list = []
    job = await _job_of_worker(
        tmp_path,
        f"import json, sys\nsys.stderr.write(json.dumps({{'event': 'update', 'function': {running!r}}}) + '\\n')\n"
        "sys.stderr.write('the compiler crashed\\n')\nsys.exit(3)\n",
        shown,
    )
    assert shown[0] is not None and shown[0].status == RUNNING  # shown before the job ended
    assert job.result is None and "the compiler crashed" in job.error
