"""The server's state: open documents' jobs, settings, and what it tells the client.
server.py registers the LSP methods on one instance of it; commands.py its commands."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, build
from ..hotness import rank
from ..model import FunctionResult
from ..source import parse_functions
from ..source.replaced import replaced_functions
from . import present, stale
from .jobs import DEBOUNCE_SECONDS, Jobs, ProgressSink, text_hash
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
        self._choices: dict[str, int] = {}  # per document: the latest choice of functions (a newer save wins)
        # per document whose choice is running: the latest save's (path, functions, force) waiting for it, or None
        self._choosing: dict[str, tuple[Path, list, bool] | None] = {}
        self.jobs = Jobs(self.results_changed, ClientProgress(self))
        self.watcher = None
        self.last_result: str | None = None  # "popcount: 6.70x faster ..." for status lines
        self._published: dict[str, tuple] = {}  # uri -> (version, diagnostics) last sent

    def forget_published(self, uri: str) -> None:
        """The next diagnostics of `uri` are sent even if unchanged (the editor opened it anew)."""
        self._published.pop(uri, None)

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
    def results_for(self, uri: str) -> dict[str, FunctionResult]:
        return {name: job.result for name, job in self.jobs.results(uri).items() if job.result is not None}

    def results_changed(self, uri: str) -> None:
        doc = self.workspace.text_documents.get(uri)
        try:
            text = doc.source if doc else fs_path(uri).read_text(errors="replace")
        except OSError:
            text = ""
        errors = {name: job.error for name, job in self.jobs.results(uri).items() if job.error}
        diags = present.diagnostics(text, self.results_for(uri), self.settings, errors, self.jobs.pending(uri))
        diags += stale.diagnostics(uri, fs_path(uri), text)  # replaced functions whose C or build changed
        version = doc.version if doc else None
        if self._published.get(uri) != (version, diags):  # unchanged diagnostics are not sent again
            self._published[uri] = (version, diags)
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version)
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
        elif done:  # whether each replaced function still stands for its C
            self.results_changed(uri)
        if self.results_for(uri):  # cached results show at once
            self.results_changed(uri)
        if only:
            chosen = [f for f in functions if f.name == only]
            self.jobs.schedule(uri, Path(path), [(f.name, text_hash(f.text)) for f in chosen], force=force)
            return
        self._choices[uri] = self._choices.get(uri, 0) + 1
        if uri in self._choosing:  # a build chooses for an older text: this save waits for it (a newer one wins)
            earlier = self._choosing[uri]
            self._choosing[uri] = (Path(path), functions, force or (earlier is not None and earlier[2]))
            return
        self._choose(uri, Path(path), functions, force)

    def _choose(self, uri: str, path: Path, functions: list, force: bool) -> None:
        """One build at a time per document: at ten saves a second, a build each (in threads) took the
        CPU from the requests (hover p99 465 ms)."""
        self._choosing[uri] = None
        task = asyncio.get_running_loop().create_task(
            self._choose_and_schedule(uri, path, functions, force, self._choices[uri])
        )
        self.jobs.tasks.add(task)

        def chosen(t: asyncio.Task) -> None:
            self.jobs.tasks.discard(t)
            waiting = self._choosing.pop(uri, None)
            if waiting is not None:
                self._choose(uri, *waiting)

        task.add_done_callback(chosen)

    async def _choose_and_schedule(self, uri: str, path: Path, functions: list, force: bool, generation: int) -> None:
        """The top functions as the command line chooses them (what the flags compile, the caller that
        holds an inlined helper's code), from a build off the event loop; the text's ranking if the
        file does not build now."""
        from ..optimize.cache import Cache
        from ..optimize.selection import choose  # the build stage: loaded with the first file, not at start-up

        ranked = rank(functions, profile=None)
        run = self.settings.run
        cache = Cache(run.cache_dir) if run.use_cache else None
        kept = cache.objects_dir() if cache and not cache.problem else None  # the builds, for the first job
        try:
            chosen = await asyncio.to_thread(choose, path, ranked, run.top, run.compiler, run.flags, kept)
        except (build.BuildError, build.ConfigError, OSError) as e:
            log.info("choosing from the text alone: %s", e)
            chosen = ranked[: run.top]
        if self._choices.get(uri) != generation:
            return  # a newer save chose again
        # by the text's name: the results show where the text defines it, a macro's renaming or not; a
        # document's first jobs at once (its choice took a build: a save meanwhile chose again)
        first = not self.jobs.results(uri)
        self.jobs.schedule(
            uri,
            path,
            [(f.source_name or f.name, text_hash(f.text)) for f, _ in chosen],
            force=force,
            debounce=0.0 if first else DEBOUNCE_SECONDS,
        )

    def assembly_dir(self) -> Path:
        from ..optimize.cache import default_dir

        return (Path(self.settings.run.cache_dir) if self.settings.run.cache_dir else default_dir().parent) / "assembly"

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
        self.jobs.configure(self.settings, self.root)
        for p in problems:
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=f"supercoder: {p}")
            )
