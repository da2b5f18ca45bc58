"""Background jobs on their own: a worker's progress stream reaches the editor whatever its size."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from supercoder_lsp.lsp.jobs import Jobs, ProgressSink
from supercoder_lsp.lsp.settings import Settings
from supercoder_lsp.model import RUNNING, CandidateResult, FunctionResult
from supercoder_lsp.options import Options
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


# output to a descriptor by number: a quick "unsupported" (what a call prints through stdio is compared)
SHOW = '#include <stdio.h>\nvoid show(int x) { dprintf(2, "%d\\n", x); }\n'


def test_the_warm_worker_runs_the_command_it_is_given_in_its_folder(tmp_path: Path):
    """The worker that waits with the command line imported runs the job it is sent, where it is sent
    (a relative path), and one whose stdin ends runs nothing."""
    (tmp_path / "show.c").write_text(SHOW)
    job = {"argv": ["optimize", "--json", "--no-cache", "show.c", "-f", "show"], "cwd": str(tmp_path)}
    worker = [sys.executable, "-m", "supercoder_lsp.worker"]
    p = subprocess.run(worker, input=json.dumps(job) + "\n", capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    [f] = json.loads(p.stdout)["functions"]
    assert f["name"] == "show" and f["status"] == "unsupported" and "writes output (dprintf)" in f["detail"]
    idle = subprocess.run(worker, input="", capture_output=True, text=True, timeout=60)
    assert idle.returncode == 0 and idle.stdout == ""


async def test_a_job_runs_in_the_warm_worker_and_another_waits_for_the_next(tmp_path: Path):
    """The server's first job starts in the worker it started with its settings, and a new one waits."""
    shown: list = []
    jobs = Jobs(lambda uri: shown.append(uri), Recorder())
    jobs.configure(Settings(run=dataclasses.replace(Options(), use_cache=False)))
    for _ in range(600):
        if jobs._spare is not None:
            break
        await asyncio.sleep(0.05)
    spare = jobs._spare
    assert spare is not None
    src = tmp_path / "show.c"
    src.write_text(SHOW)
    jobs.schedule(src.as_uri(), src, [("show", "h")], debounce=0)
    await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*jobs.tasks), 120)
    job = jobs.results(src.as_uri())["show"]
    assert job.error is None and job.result is not None and job.result.status == "unsupported"
    assert "writes output (dprintf)" in job.result.detail and shown
    assert job.proc is spare  # the warm one ran it
    nxt = jobs._spare
    assert nxt is not None and nxt is not spare and nxt.returncode is None
    jobs.close()
    assert await asyncio.wait_for(nxt.wait(), 30) == 0  # let go: it exits having run nothing
