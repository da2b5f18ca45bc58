"""Background jobs on their own: a worker's progress stream reaches the editor whatever its size."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from supercoder_lsp.lsp.jobs import Jobs, ProgressSink
from supercoder_lsp.model import CandidateResult, FunctionResult
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
    worker = tmp_path / "worker.py"
    worker.write_text(
        "import json, sys\n"
        "sys.stderr.write(json.dumps({'function': 'f', 'stage': 'compilers: gcc', 'step': 1, 'steps': 2}) + '\\n')\n"
        f"sys.stderr.write(json.dumps({{'event': 'update', 'function': {big!r}}}) + '\\n')\n"
        f"print(json.dumps({{'functions': [{last!r}]}}))\n"
    )
    shown: list = []
    progress = Recorder()
    jobs = Jobs(lambda uri: shown.append(jobs.results(uri)["f"].result), progress)
    jobs.command = lambda path, name: [sys.executable, str(worker)]
    src = tmp_path / "f.c"
    src.write_text("int f(int x) { return x; }\n")
    jobs.schedule(src.as_uri(), src, [("f", "h")], debounce=0)
    await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*jobs.tasks), 30)
    job = jobs.results(src.as_uri())["f"]
    assert job.error is None
    assert any(r and sum(len(c.assembly) for c in r.candidates) == 320_000 for r in shown)  # arrived whole
    assert progress.reports[0] == "compilers: gcc"
