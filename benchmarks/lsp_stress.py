"""bench_lsp.py --stress: the server under an editor that never stops.

For SECONDS (60) a fresh server with default settings gets 10 edits and saves a second to popcount's body
(a comment that changes each time, so each save is a new text to verify), broken C (a missing brace) for a
tenth of the run in the middle, and every worker process it runs killed with SIGKILL every 10 s. Hovers are
sent throughout. Then one last, valid save: the seconds from it to the first speedup hint on that text, the
hover latency during the storm, and whether the server is still up.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

BODY = "    int c = 0;\n"


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (the server's job workers and what they run)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def edited(text: str, n: int, broken: bool) -> str:
    """popcount's body with a comment that names edit n; broken: its closing brace gone."""
    new = text.replace(BODY, f"    int c = 0; /* edit {n} */\n", 1)
    if broken:
        new = new.replace("    return c;\n}\n", "    return c;\n", 1)
    return new


def edit(client: LanguageClient, src: Path, version: int, text: str) -> None:
    """The file on disk and in the editor becomes `text` (its `version`), as a save writes it."""
    src.write_text(text)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=src.as_uri(), version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def stress(
    start: Callable[[LanguageClient], Awaitable[None]], src: Path, seconds: float
) -> dict[str, float | int | str]:
    """A fresh client, started by `start` (a server with default settings), through the storm; the figures."""
    client = LanguageClient("bench-stress", "1")
    uri = src.as_uri()
    base = src.read_text()
    doc = types.TextDocumentIdentifier(uri=uri)
    last_save = [0.0]
    final_version = [-1]
    hint_after = asyncio.Event()
    took = [float("nan")]

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params: types.PublishDiagnosticsParams):
        if final_version[0] < 0 or hint_after.is_set():
            return
        if params.version in (None, final_version[0]) and any(d.code == "speedup" for d in params.diagnostics):
            took[0] = time.perf_counter() - last_save[0]
            hint_after.set()

    await start(client)
    pid = client._server.pid  # type: ignore[union-attr]
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="c", version=1, text=base))
    )
    hovers: list[float] = []
    failed_hovers = 0
    killed = 0
    t0 = time.perf_counter()
    next_kill = t0 + 10
    version = 1
    while time.perf_counter() - t0 < seconds:
        elapsed = time.perf_counter() - t0
        version += 1
        broken = 0.45 * seconds <= elapsed < 0.55 * seconds
        edit(client, src, version, edited(base, version, broken))
        client.text_document_did_save(types.DidSaveTextDocumentParams(doc))
        t = time.perf_counter()
        try:
            await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(doc, types.Position(11, 8))), 5)
            hovers.append(time.perf_counter() - t)
        except Exception:  # noqa: BLE001 - a failed or timed-out hover is what is counted
            failed_hovers += 1
        if time.perf_counter() >= next_kill:
            for p in descendants(pid):
                try:
                    os.kill(p, signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
            next_kill += 10
        await asyncio.sleep(max(0.0, 0.1 - (time.perf_counter() - t)))
    # the last save: a new, valid text
    version += 1
    edit(client, src, version, edited(base, version, False))
    last_save[0] = time.perf_counter()
    final_version[0] = version
    client.text_document_did_save(types.DidSaveTextDocumentParams(doc))
    try:
        await asyncio.wait_for(hint_after.wait(), 120)
    except TimeoutError:
        pass
    alive = True
    try:
        await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(doc, types.Position(11, 8))), 10)
    except Exception:  # noqa: BLE001
        alive = False
    hovers.sort()
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "saves": version - 1,
        "workers killed": killed,
        "hover p50 (ms)": round(1000 * statistics.median(hovers), 1) if hovers else "none",
        "hover p99 (ms)": round(1000 * hovers[min(len(hovers) - 1, int(0.99 * len(hovers)))], 1) if hovers else "none",
        "hovers failed": failed_hovers,
        "hint after the last save (s)": round(took[0], 2) if took[0] == took[0] else "none in 120 s",
        "server up after": "yes" if alive else "no",
    }
