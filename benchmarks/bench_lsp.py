"""Benchmark the language server as an editor uses it.

Reports p50/p99 latency of hover, codeAction and inlayHint requests while
background jobs run, the time from didSave to the first hint on a ~200-line
file with the offline (compilers) proposer, and the server's RSS when idle.

    .venv/bin/python benchmarks/bench_lsp.py [--requests 200] [--jobs 4]
    .venv/bin/python benchmarks/bench_lsp.py --real PROJECT/FILE.c   # first result on a real file
    .venv/bin/python benchmarks/bench_lsp.py --stress 60   # saves, broken C, killed workers; then the hint

With --real, a fresh server with default settings opens a file of a real project (its flags
from the project's compile_commands.json) and reports the seconds from didOpen to the first
result shown for each function (a speedup hint, the verdicts so far while more candidates are
tried, or the diagnostic that says why not) and to its final one.

Targets (issue 4): p99 <= 50 ms, first hint <= 3 s, idle RSS <= 100 MB.
Not a test: quote the figures with the command that made them.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

POPCOUNT = """__attribute__((noinline)) int popcount(unsigned long x) {
    int c = 0;
    while (x) {
        x &= x - 1;
        c++;
    }
    return c;
}
"""


def make_file(n_funcs: int = 16) -> str:
    parts = ["#include <stdint.h>\n#include <stdio.h>\n", POPCOUNT]
    for i in range(n_funcs):
        parts.append(f"""
__attribute__((noinline)) uint32_t mix{i}(uint32_t x, uint32_t k) {{
    uint32_t h = x ^ {i * 2654435761 % 4294967296}u;
    for (int r = 0; r < {i % 5 + 2}; r++) {{
        h ^= h >> {i % 7 + 9};
        h *= k | 1u;
    }}
    return h + {i}u;
}}
""")
    parts.append(
        'int main(void) {\n    unsigned long x, t = 0;\n    while (scanf("%lu", &x) == 1) {\n'
        + "".join(f"        t += mix{i}((uint32_t)x, {i + 3}u);\n" for i in range(n_funcs))
        + '        t += popcount(x);\n    }\n    printf("%lu\\n", t);\n    return 0;\n}\n'
    )
    return "".join(parts)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def first_hint(src: Path, work: Path) -> float | None:
    """A fresh server with default settings: seconds from didSave to the first hint."""
    client = LanguageClient("bench", "1")
    got = asyncio.Event()
    t = [0.0, 0.0]

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params: types.PublishDiagnosticsParams):
        if any(d.code == "speedup" for d in params.diagnostics) and not got.is_set():
            t[1] = time.perf_counter() - t[0]
            got.set()

    await _start_default(client, work, work / "cache-first")
    uri = src.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="c", version=1, text=src.read_text())
        )
    )
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    t[0] = time.perf_counter()
    try:
        await asyncio.wait_for(got.wait(), 120)
    except TimeoutError:
        return None
    finally:
        await _stop(client)
    return t[1]


@dataclass
class Shown:
    """One function's results in the editor: seconds after didOpen of the first (a speedup, the verdicts so
    far while candidates are tried, no-win or job-failed) and of the final one (nan if none came)."""

    first: float
    final: float = float("nan")
    message: str = "(none)"
    name: str = "?"


async def first_results(src: Path, root: Path, work: Path, timeout: float = 600) -> list[Shown]:
    """A fresh server with default settings opens `src`: what it showed on each function, in the order
    of the first results; until three functions have a final one."""
    client = LanguageClient("bench", "1")
    shown: dict[int, Shown] = {}
    lines = src.read_text(errors="replace").splitlines()
    t0 = [0.0]
    done = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params: types.PublishDiagnosticsParams):
        now = time.perf_counter() - t0[0]
        for d in params.diagnostics:
            if d.code not in ("speedup", "no-win", "job-failed"):
                continue
            at = d.range.start
            here = lines[at.line][at.character : d.range.end.character] if at.line < len(lines) else "?"
            got = shown.setdefault(at.line, Shown(now, name=here or "?"))
            if got.message == "(none)" and (d.code != "no-win" or (d.data or {}).get("final", True)):
                got.final, got.message = now, f"{d.code} {d.message}"
        if sum(s.message != "(none)" for s in shown.values()) >= 3:
            done.set()

    await _start_default(client, root, work / "cache-real")
    t0[0] = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=src.as_uri(), language_id="c", version=1, text=src.read_text())
        )
    )
    try:
        await asyncio.wait_for(done.wait(), timeout)
    except TimeoutError:
        pass
    finally:
        await _stop(client)
    return sorted(shown.values(), key=lambda s: s.first)


async def _start_default(client: LanguageClient, root: Path, cache: Path) -> None:
    """A fresh server with default settings (only its own cache), on the workspace `root`."""
    _quiet(client)
    await client.start_io(sys.executable, "-m", "supercoder_lsp", "--stdio")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
            initialization_options={"cacheDir": str(cache)},
        )
    )
    client.initialized(types.InitializedParams())


async def _stop(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def _quiet(client: LanguageClient) -> None:
    for method in (
        types.WORKSPACE_CODE_LENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
        types.WINDOW_WORK_DONE_PROGRESS_CREATE,
        types.PROGRESS,
        types.WINDOW_SHOW_MESSAGE,
    ):
        client.feature(method)(lambda *args: None)
    client.feature(types.WORKSPACE_CONFIGURATION)(lambda params: [None for _ in params.items])
    client.feature("supercoder/status")(lambda *args: None)


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--real", type=Path, help="a .c file of a real project: time to its first results")
    ap.add_argument("--timeout", type=float, default=600, help="with --real: seconds to wait for three final results")
    ap.add_argument(
        "--record", action="store_true", help="keep the figures in benchmarks/results/ (docs/benchmarks.md)"
    )
    ap.add_argument("--stress", type=float, metavar="SECONDS", help="the storm of lsp_stress.py for SECONDS (60)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sc-bench-lsp-"))
    if a.stress:
        from lsp_stress import stress

        src = work / "big.c"
        src.write_text(make_file())
        got = await stress(lambda c: _start_default(c, work, work / "cache-stress"), src, a.stress)
        print(
            f"stress, {a.stress:.0f} s (10 edits and saves a second, broken C a tenth of it, workers killed every 10 s):"
        )
        for k, v in got.items():
            print(f"  {k}: {v}")
        if a.record:
            from record import save

            save("bench_lsp_stress", got)
        return 0
    if a.real:
        src = a.real.resolve()
        got = await first_results(src, src.parent, work, a.timeout)
        print(f"{src}: seconds after didOpen to each function's first and final result (default settings, a fresh")
        print("server and cache; the first is the final one or the verdicts so far while candidates are tried)")
        for s in got:
            print(f"  first {s.first:6.1f} s  final {s.final:6.1f} s  {s.name}: {s.message[:110]}")
        if not got:
            print("  none within the timeout")
        return 0
    src = work / "big.c"
    src.write_text(make_file())
    print(f"file: {src} ({len(src.read_text().splitlines())} lines)")
    fh = await first_hint(src, work)
    print(
        "didSave -> first hint, default settings (1 job, offline compilers proposer): "
        + (f"{fh:.2f} s" if fh is not None else "none within 120 s")
    )

    client = LanguageClient("bench", "1")
    hints: list[float] = []
    t_save = [0.0]
    got_hint = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params: types.PublishDiagnosticsParams):
        if any(d.code == "speedup" for d in params.diagnostics) and not got_hint.is_set():
            hints.append(time.perf_counter() - t_save[0])
            got_hint.set()

    _quiet(client)

    await client.start_io(sys.executable, "-m", "supercoder_lsp", "--stdio")
    pid = client._server.pid
    caps = types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=True),
        workspace=types.WorkspaceClientCapabilities(configuration=True),
    )
    await client.initialize_async(
        types.InitializeParams(
            capabilities=caps,
            workspace_folders=[types.WorkspaceFolder(uri=work.as_uri(), name="w")],
            initialization_options={"parallelJobs": a.jobs, "topFunctions": a.jobs, "cacheDir": str(work / "cache")},
        )
    )
    client.initialized(types.InitializedParams())
    await asyncio.sleep(1.0)
    idle_before = rss_mb(pid)

    uri = src.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="c", version=1, text=src.read_text())
        )
    )
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    t_save[0] = time.perf_counter()

    # requests while the background jobs run
    lat = {"hover": [], "codeAction": [], "inlayHint": []}
    doc = types.TextDocumentIdentifier(uri=uri)
    whole = types.Range(types.Position(0, 0), types.Position(300, 0))
    for i in range(a.requests):
        line = (i * 7) % 200
        t = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(doc, types.Position(line, 30)))
        lat["hover"].append(time.perf_counter() - t)
        t = time.perf_counter()
        await client.text_document_code_action_async(
            types.CodeActionParams(
                doc,
                types.Range(types.Position(line, 0), types.Position(line, 0)),
                types.CodeActionContext(diagnostics=[]),
            )
        )
        lat["codeAction"].append(time.perf_counter() - t)
        t = time.perf_counter()
        await client.text_document_inlay_hint_async(types.InlayHintParams(doc, whole))
        lat["inlayHint"].append(time.perf_counter() - t)
        await asyncio.sleep(0.01)
    busy_rss = rss_mb(pid)
    try:
        await asyncio.wait_for(got_hint.wait(), 120)
    except TimeoutError:
        pass
    for name, xs in lat.items():
        print(
            f"{name:11} p50 {1000 * statistics.median(xs):6.1f} ms   p99 {1000 * pct(xs, 0.99):6.1f} ms   "
            f"(n={len(xs)}, while {a.jobs} background jobs ran)"
        )
    print(f"didSave -> first hint with {a.jobs} parallel jobs: {hints[0]:.2f} s" if hints else "no hint within 120 s")
    await asyncio.sleep(3.0)
    idle_after = rss_mb(pid)
    print(
        f"server RSS: idle before work {idle_before:.1f} MB, during jobs {busy_rss:.1f} MB, idle after {idle_after:.1f} MB"
    )
    if a.record:
        from record import save

        figures: dict[str, float | int | str] = {
            f"{name} p99 (ms)": round(1000 * pct(xs, 0.99), 1) for name, xs in lat.items()
        }
        figures["first hint (s)"] = round(fh, 2) if fh is not None else "none in 120 s"
        figures[f"first hint, {a.jobs} jobs (s)"] = round(hints[0], 2) if hints else "none in 120 s"
        figures["idle RSS (MB)"] = round(max(idle_before, idle_after), 1)
        save("bench_lsp", figures)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
