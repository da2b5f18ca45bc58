"""The language server: every LSP method is registered here, once, and fans
out to small feature functions (present.py: what is shown; jobs.py: the
background work; commands.py: the commands). Handlers only translate between
LSP and plain results; the heavy work runs in worker processes.

    supercoder-lsp --stdio            (what editors start)
    supercoder-lsp --tcp 127.0.0.1:2087   (for debugging)
"""

from __future__ import annotations

import argparse
import logging
import sys

from lsprotocol import types

from .. import __version__
from . import present, stale
from .commands import COMMANDS
from .language_server import SupercoderServer, fs_path

server = SupercoderServer()
for _name, _handler in COMMANDS.items():
    server.command(_name)(_handler)


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
    ls.jobs.close()


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
    ls.forget_published(params.text_document.uri)
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
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.RefactorRewrite, types.CodeActionKind.QuickFix]),
)
def code_action(ls: SupercoderServer, params: types.CodeActionParams):
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    reps = {n: (j.replacement, j.source_hash) for n, j in ls.jobs.results(uri).items()}
    out = stale.code_actions(uri, doc.version, fs_path(uri), doc.source, params.range)  # replaced functions
    return out + present.code_actions(
        uri, doc.version, doc.source, ls.results_for(uri), ls.settings, params.range, reps
    )


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
