"""The language server: every LSP method is registered here, once, and fans
out to small feature functions (present.py: what is shown; jobs.py: the
background work). Handlers only translate between LSP and plain results; the
heavy work runs in worker processes.

    supercoder-lsp --stdio            (what editors start)
    supercoder-lsp --tcp 127.0.0.1:2087   (for debugging)
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from ..hotness import rank
from ..source import parse_functions
from ..source.replaced import replaced_functions
from . import present
from .jobs import Jobs, ProgressSink, text_hash
from .settings import Settings, resolve

log = logging.getLogger("supercoder_lsp")

STATUS = "supercoder/status"  # server -> client notification: {running, message, last}


def fs_path(uri: str) -> Path:
    """The file a file:// URI names."""
    path = to_fs_path(uri)
    if path is None:
        raise ValueError(f"not a file URI: {uri}")
    return Path(path)


class ClientProgress(ProgressSink):
    def __init__(self, server: SupercoderServer):
        self.server = server

    def _supported(self) -> bool:
        caps = self.server.client_capabilities
        return bool(caps and caps.window and caps.window.work_done_progress)

    async def begin(self, token, title):
        self.server.publish_status(title)
        if not self._supported():
            return
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception:  # the client refused the token: go on without progress
            return
        self.server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))

    async def report(self, token, message, percentage):
        if self._supported() and token in self.server.work_done_progress.tokens:
            self.server.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    async def end(self, token, message):
        self.server.publish_status(message, finishing=asyncio.current_task())
        if self._supported() and token in self.server.work_done_progress.tokens:
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))


class SupercoderServer(LanguageServer):
    def __init__(self):
        super().__init__("supercoder-lsp", __version__)
        self.settings = Settings()
        self.init_options: dict | None = None
        self.root: Path | None = None
        self.jobs = Jobs(self.results_changed, ClientProgress(self))
        self.watcher = None
        self.last_result: str | None = None  # "popcount: 6.70x faster ..." for status lines

    def publish_status(self, message: str = "", finishing: asyncio.Task | None = None) -> None:
        """`supercoder/status`: how many jobs run and the last result, for status bars and statuslines."""
        running = sum(1 for t in self.jobs.tasks if not t.done() and t is not finishing)
        self.protocol.notify(STATUS, {"running": running, "message": message, "last": self.last_result})

    # -- changes outside the editor -----------------------------------------------------
    def source_changed_on_disk(self, path: Path) -> None:
        uri = path.as_uri()
        if uri not in self.jobs.docs:
            return
        try:
            text = path.read_text(errors="replace")
        except OSError:  # deleted
            self.jobs.invalidate(uri)
            self.results_changed(uri)
            return
        doc = self.workspace.text_documents.get(uri)
        if doc is not None and doc.source == text:
            return  # the editor's own save: didSave handles it
        current = {f.name: text_hash(f.text) for f in parse_functions(text)}
        if self.jobs.invalidate(uri, current):
            log.info("%s changed outside the editor: stale results dropped", path)
            self.results_changed(uri)

    async def config_changed(self, path: Path) -> None:
        log.info("%s changed: reloading flags and settings", path)
        await self.load_settings()
        for uri in list(self.jobs.docs):
            self.jobs.invalidate(uri)
            self.results_changed(uri)
            if uri in self.workspace.text_documents:
                self.analyze(uri, force=True)

    def start_watching(self) -> None:
        if self.root is None or not self.root.is_dir():
            return
        from ..watch import Watcher

        self.watcher = Watcher(
            self.root,
            self.source_changed_on_disk,
            lambda p: asyncio.get_running_loop().create_task(self.config_changed(p)),
        )
        self.watcher.start()

    # -- results to the editor --------------------------------------------------------
    def results_for(self, uri: str) -> dict[str, dict]:
        return {name: job.result for name, job in self.jobs.results(uri).items() if job.result is not None}

    def results_changed(self, uri: str) -> None:
        doc = self.workspace.text_documents.get(uri)
        try:
            text = doc.source if doc else fs_path(uri).read_text(errors="replace")
        except OSError:
            text = ""
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                diagnostics=present.diagnostics(text, self.results_for(uri), self.settings),
                version=doc.version if doc else None,
            )
        )
        for name, result in self.results_for(uri).items():
            line = present.headline(result)
            if line:
                self.last_result = f"{name}: {line}"
        self.publish_status()
        ws = self.client_capabilities.workspace if self.client_capabilities else None
        if ws and ws.inlay_hint and ws.inlay_hint.refresh_support:
            self.workspace_inlay_hint_refresh(None)
        if ws and ws.code_lens and ws.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    # -- work ---------------------------------------------------------------------------
    def analyze(self, uri: str, *, only: str | None = None, force: bool = False) -> None:
        path = to_fs_path(uri)
        if not path or not path.endswith((".c", ".h")):
            return
        text = self.workspace.get_text_document(uri).source
        done = replaced_functions(text)  # already verified assembly: its C fallback is left alone
        functions = [f for f in parse_functions(text) if f.name not in done]
        if done and self.jobs.invalidate(uri, {f.name: text_hash(f.text) for f in functions}):
            self.results_changed(uri)
        if only:
            chosen = [f for f in functions if f.name == only]
        else:
            chosen = [f for f, _ in rank(functions, profile=None)[: self.settings.top_functions]]
        if self.results_for(uri):  # cached results show at once
            self.results_changed(uri)
        self.jobs.schedule(uri, Path(path), [(f.name, text_hash(f.text)) for f in chosen], force=force)

    def assembly_dir(self) -> Path:
        from ..cache import default_dir

        return (Path(self.settings.cache_dir) if self.settings.cache_dir else default_dir().parent) / "assembly"

    async def load_settings(self) -> None:
        ws = None
        caps = self.client_capabilities
        if caps and caps.workspace and caps.workspace.configuration:
            try:
                got = await self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="supercoder")])
                )
                ws = got[0] if got else None
            except Exception as e:  # a client that fails the request: defaults
                log.warning("workspace/configuration failed: %s", e)
        self.settings, problems = resolve(self.init_options, ws, self.root)
        self.jobs.configure(self.settings)
        for p in problems:
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=f"supercoder: {p}")
            )


server = SupercoderServer()


@server.feature(types.INITIALIZE)
def initialize(ls: SupercoderServer, params: types.InitializeParams):
    ls.init_options = params.initialization_options if isinstance(params.initialization_options, dict) else None
    folder = params.workspace_folders[0] if params.workspace_folders else None
    root = folder.uri if folder else params.root_uri
    ls.root = fs_path(root) if root else None


@server.feature(types.INITIALIZED)
async def initialized(ls: SupercoderServer, params: types.InitializedParams):
    await ls.load_settings()
    ls.start_watching()


@server.feature(types.SHUTDOWN)
def shutdown(ls: SupercoderServer, params: None):
    if ls.watcher:
        ls.watcher.stop()
    for uri in list(ls.jobs.docs):
        ls.jobs.cancel_document(uri)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: SupercoderServer, params: types.HoverParams):
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    return present.hover(text, ls.results_for(uri), params.position)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: SupercoderServer, params: types.DidChangeConfigurationParams):
    await ls.load_settings()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: SupercoderServer, params: types.DidOpenTextDocumentParams):
    ls.analyze(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: SupercoderServer, params: types.DidSaveTextDocumentParams):
    ls.analyze(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SupercoderServer, params: types.DidCloseTextDocumentParams):
    ls.jobs.cancel_document(params.text_document.uri)


@server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def progress_cancel(ls: SupercoderServer, params: types.WorkDoneProgressCancelParams):
    ls.jobs.cancel_token(str(params.token))


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
def inlay_hint(ls: SupercoderServer, params: types.InlayHintParams):
    uri = params.text_document.uri
    return present.inlay_hints(
        ls.workspace.get_text_document(uri).source, ls.results_for(uri), ls.settings, params.range
    )


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: SupercoderServer, params: types.CodeLensParams):
    uri = params.text_document.uri
    return present.code_lenses(uri, ls.workspace.get_text_document(uri).source, ls.results_for(uri), ls.settings)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.RefactorRewrite])
)
def code_action(ls: SupercoderServer, params: types.CodeActionParams):
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    reps = {n: (j.replacement, j.source_hash) for n, j in ls.jobs.results(uri).items()}
    return present.code_actions(uri, doc.version, doc.source, ls.results_for(uri), ls.settings, params.range, reps)


@server.command("supercoder.optimizeFunction")
def optimize_function(ls: SupercoderServer, uri: str, name: str):
    """Optimize this function now, hot or not."""
    ls.analyze(uri, only=name, force=True)


async def _apply_action(ls: SupercoderServer, uri: str, name: str, prefix: str) -> bool:
    doc = ls.workspace.get_text_document(uri)
    fn = next((f for f in parse_functions(doc.source) if f.name == name), None)
    if fn is None:
        return False
    reps = {n: (j.replacement, j.source_hash) for n, j in ls.jobs.results(uri).items()}
    at = types.Range(types.Position(fn.range.start.line, 0), types.Position(fn.range.start.line, 0))
    actions = present.code_actions(uri, doc.version, doc.source, ls.results_for(uri), ls.settings, at, reps)
    action = next((a for a in actions if a.title.startswith(prefix) and a.edit is not None), None)
    if action is None:
        reason = next(
            (a.disabled.reason for a in actions if a.title.startswith(prefix) and a.disabled), "no verified result yet"
        )
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=f"supercoder: {name}: {reason}")
        )
        return False
    if action.edit is None:
        return False
    res = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=action.edit, label=action.title))
    return bool(res and res.applied)


@server.command("supercoder.replace")
async def replace_command(ls: SupercoderServer, uri: str, name: str):
    """Replace the function with its verified assembly (the C kept under #else)."""
    return await _apply_action(ls, uri, name, f"Replace {name} with verified assembly")


@server.command("supercoder.useSourceChange")
async def source_change_command(ls: SupercoderServer, uri: str, name: str):
    """Apply the source-level change (e.g. __attribute__((target("popcnt")))) that measured as fast."""
    return await _apply_action(ls, uri, name, "Use ")


@server.command("supercoder.showAssembly")
async def show_assembly(ls: SupercoderServer, uri: str, name: str):
    job = ls.jobs.results(uri).get(name)
    if job is None or job.result is None:
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=f"supercoder: no result for {name} yet")
        )
        return None
    out = present.side_by_side(fs_path(uri), job.result, job.environment)
    caps = ls.client_capabilities
    if caps and caps.window and caps.window.show_document and caps.window.show_document.support:
        await ls.window_show_document_async(types.ShowDocumentParams(uri=out.as_uri(), take_focus=True))
    else:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info, message=f"supercoder: side-by-side assembly written to {out}"
            )
        )
    return str(out)


@server.command("supercoder.assemblyFiles")
def assembly_files(ls: SupercoderServer, uri: str, name: str):
    """The -O3 and the best candidate's assembly as two files, for the editor's own diff view."""
    job = ls.jobs.results(uri).get(name)
    if job is None or job.result is None:
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=f"supercoder: no result for {name} yet")
        )
        return None
    return present.assembly_pair(fs_path(uri), job.result, ls.assembly_dir())


@server.command("supercoder.rerun")
def rerun(ls: SupercoderServer, uri: str):
    """Run the file's hot functions again, ignoring results kept in memory."""
    if uri in ls.workspace.text_documents:
        ls.jobs.invalidate(uri)
        ls.analyze(uri, force=True)


@server.command("supercoder.clearCache")
def clear_cache(ls: SupercoderServer):
    """Empty the results cache and drop the results shown; open files are analyzed again."""
    from ..cache import Cache

    cache = Cache(ls.settings.cache_dir)
    removed = cache.clear()
    for uri in list(ls.jobs.docs):
        ls.jobs.invalidate(uri)
        ls.results_changed(uri)
    ls.last_result = None
    ls.publish_status("cache cleared")
    msg = f"supercoder: {removed} cached results removed from {cache.dir}" + (
        f" ({cache.problem})" if cache.problem else ""
    )
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=msg))
    for uri in list(ls.workspace.text_documents):
        ls.analyze(uri, force=True)
    return {"removed": removed, "directory": str(cache.dir)}


@server.command("supercoder.info")
def info(ls: SupercoderServer):
    """Version, settings and jobs: what :SupercoderInfo and health checks show."""
    from ..cache import default_dir  # imported on use: the server starts without it

    jobs = [
        {
            "uri": uri,
            "function": name,
            "running": bool(j.task and not j.task.done()),
            "result": present.headline(j.result) if j.result else None,
            "error": j.error,
        }
        for uri, doc in ls.jobs.docs.items()
        for name, j in doc.functions.items()
    ]
    return {
        "version": __version__,
        "python": sys.executable,
        "root": str(ls.root) if ls.root else None,
        "settings": dataclasses.asdict(ls.settings),
        "cacheDir": str(ls.settings.cache_dir or default_dir()),
        "jobs": jobs,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="supercoder-lsp", description="SuperCoder language server")
    p.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead (for debugging)")
    p.add_argument("--log-file", help="write the server's log here (never to stdout)")
    p.add_argument("--version", action="version", version=f"supercoder-lsp {__version__}")
    a = p.parse_args(argv)
    fmt = "%(asctime)s %(name)s %(levelname)s %(message)s"
    if a.log_file:
        logging.basicConfig(filename=a.log_file, level=logging.INFO, format=fmt)
    else:
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format=fmt)  # never stdout: that is the protocol
    logging.getLogger("pygls").setLevel(logging.WARNING)  # not every message of the protocol
    if a.tcp:
        host, _, port = a.tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0


if __name__ == "__main__":
    sys.exit(main())
