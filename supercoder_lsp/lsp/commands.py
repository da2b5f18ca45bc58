"""The server's commands (workspace/executeCommand), as editors and code lenses call them.

A command about one function takes the document's URI and either the function's name or
a position inside it ({line, character}, the editor's cursor): the server resolves it,
so editors need no C parser of their own.
"""

from __future__ import annotations

import asyncio
import sys

from lsprotocol import types

from .. import __version__, build
from ..optimize.staleness import refreshed, reverify
from ..source import function_at, parse_functions
from ..source.replaced import blocks
from . import present, stale
from .jobs import FunctionJob
from .language_server import SupercoderServer, fs_path
from .settings import as_dict

COMMANDS: dict = {}  # command name -> handler, registered on the server by server.py


def command(name: str):
    def register(f):
        COMMANDS[name] = f
        return f

    return register


def target(ls: SupercoderServer, uri: str, where) -> str | None:
    """The function a command is about: `where` is its name, or a position {line, character} inside it
    (the editor's cursor); the server resolves it, so editors need no C parser of their own. When there is
    none, the user is told why and None is returned."""
    if isinstance(where, str):
        return where
    try:
        line, character = int(where["line"]), int(where["character"])
    except (TypeError, KeyError, ValueError):
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Error,
                message=f"supercoder: expected a function name or a position {{line, character}}, got {where!r}",
            )
        )
        return None
    fn = function_at(parse_functions(ls.workspace.get_text_document(uri).source), line, character)
    if fn is None:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"supercoder: line {line + 1} is not inside a function definition",
            )
        )
    return fn.name if fn else None


@command("supercoder.functionAt")
def function_at_command(ls: SupercoderServer, uri: str, position: dict):
    """The name of the function around a position, or null."""
    fn = function_at(
        parse_functions(ls.workspace.get_text_document(uri).source), position["line"], position["character"]
    )
    return fn.name if fn else None


@command("supercoder.optimizeFunction")
def optimize_function(ls: SupercoderServer, uri: str, where):
    """Optimize this function (a name, or a position inside it) now, hot or not; answers its name."""
    name = target(ls, uri, where)
    if name is not None:
        ls.analyze(uri, only=name, force=True)
    return name


async def _apply_action(ls: SupercoderServer, uri: str, where, prefix: str) -> bool:
    doc = ls.workspace.get_text_document(uri)
    name = target(ls, uri, where)
    fn = next((f for f in parse_functions(doc.source) if f.name == name), None)
    if fn is None:
        return False
    prefix = prefix.format(name=name)
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


@command("supercoder.replace")
async def replace_command(ls: SupercoderServer, uri: str, where):
    """Replace the function with its verified assembly (the C kept under #else)."""
    return await _apply_action(ls, uri, where, "Replace {name} with verified assembly")


@command("supercoder.useSourceChange")
async def source_change_command(ls: SupercoderServer, uri: str, where):
    """Apply the source-level change (e.g. __attribute__((target("popcnt")))) that measured as fast."""
    return await _apply_action(ls, uri, where, "Use ")


def _result_job(ls: SupercoderServer, uri: str, where) -> FunctionJob | None:
    """The job of the function `where` names, when it has a result; else the user is told why not."""
    name = target(ls, uri, where)
    if name is None:
        return None
    job = ls.jobs.results(uri).get(name)
    if job is None or job.result is None:
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=f"supercoder: no result for {name} yet")
        )
        return None
    return job


@command("supercoder.showAssembly")
async def show_assembly(ls: SupercoderServer, uri: str, where):
    job = _result_job(ls, uri, where)
    if job is None or job.result is None:
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


@command("supercoder.assemblyFiles")
def assembly_files(ls: SupercoderServer, uri: str, where):
    """The -O3 and the best candidate's assembly as two files, for the editor's own diff view."""
    job = _result_job(ls, uri, where)
    if job is None or job.result is None:
        return None
    return present.assembly_pair(fs_path(uri), job.result, ls.assembly_dir())


@command("supercoder.explain")
def explain(ls: SupercoderServer, message: str):
    """Say why an action cannot be applied (the command of a disabled code action)."""
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=f"supercoder: {message}"))


@command("supercoder.rerun")
def rerun(ls: SupercoderServer, uri: str):
    """Run the file's hot functions again, ignoring results kept in memory."""
    if uri in ls.workspace.text_documents:
        ls.jobs.invalidate(uri)
        ls.analyze(uri, force=True)


@command("supercoder.clearCache")
def clear_cache(ls: SupercoderServer):
    """Empty the results cache and drop the results shown; open files are analyzed again."""
    from ..optimize.cache import Cache

    cache = Cache(ls.settings.run.cache_dir)
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


@command("supercoder.info")
def info(ls: SupercoderServer):
    """Version, settings and jobs: what :SupercoderInfo and health checks show."""
    from ..optimize.cache import default_dir  # imported on use: the server starts without it

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
        "settings": as_dict(ls.settings),
        "cacheDir": str(ls.settings.run.cache_dir or default_dir()),
        "jobs": jobs,
    }


@command("supercoder.reverify")
async def reverify_command(ls: SupercoderServer, uri: str, name: str):
    """Re-verify a replaced function's assembly against the C under its #else, as `supercoder check --fix`
    does: where it passes, its evidence line is renewed (an edit of the document); else the user is told
    the input it is wrong on."""
    doc = ls.workspace.get_text_document(uri)
    text, path = doc.source, fs_path(uri)
    block = next((b for b in blocks(text) if b.name == name), None)
    if block is None:
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=f"supercoder: {name} is not replaced here")
        )
        return False
    cfg = build.resolve(path)
    res = await asyncio.to_thread(reverify, path, text, block, cfg, ls.settings.run.n_random)
    if not res.ok:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"supercoder: {name}'s assembly is wrong for the C below it: {res.detail}. Revert it to C.",
            )
        )
        return False
    new = refreshed(text, block, cfg, res)
    edit = types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=doc.version),
                edits=[
                    types.TextEdit(
                        range=stale.block_range(text, block),
                        new_text=new[block.start : block.end + len(new) - len(text)],
                    )
                ],
            )
        ]
    )
    applied = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=f"Re-verify {name}"))
    ls.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Info, message=f"supercoder: {name} re-verified ({res.detail}); evidence renewed"
        )
    )
    return bool(applied and applied.applied)
