"""Turn verified results into what the editor shows: diagnostics, inlay hints,
code lenses, code actions, and the side-by-side assembly file.

Everything here is a pure function of the current document text and the
typed result of each function (decoded from the worker by serialize.function_from_json); ranges always come from the current
text, so a result stays attached to its function while the file is edited.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from pathlib import Path

from lsprotocol import types

from .. import results
from ..model import RUNNING, CFunction, FunctionResult, ReplacementCheck, SourceChange
from ..source import LineIndex, parse_functions
from ..source.edit import apply_body_change
from ..source.replaced import replaced_functions
from .settings import Settings

SOURCE = "supercoder"


def text_hash(text: str) -> str:
    """What a function's or a file's text is known by: a verdict holds for this text only."""
    return hashlib.sha256(text.encode()).hexdigest()


def headline(result: FunctionResult | None) -> str | None:
    """The claim of the best candidate (results.headline)."""
    return results.headline(result.best_result()) if result else None


def speedup(result: FunctionResult | None) -> float:
    """The deciding speedup of the best candidate (results.deciding_timing)."""
    return results.best_speedup(result) if result else 0.0


def no_win_summary(result: FunctionResult) -> str:
    """Why there is no claim: the verdicts of what was tried, or why nothing could be tried."""
    if result.status == RUNNING and result.candidates:
        return results.no_win_summary(result.candidates, so_far=True)
    if result.status == RUNNING and result.detail:  # why none can be claimed, before any candidate's verdict
        return result.detail
    if result.status != "done" or not result.candidates:
        return (
            f"not optimized ({result.status}): {result.detail}" if result.detail else f"not optimized ({result.status})"
        )
    return results.no_win_summary(result.candidates)


@functools.lru_cache(maxsize=16)
def _parsed(text: str) -> tuple[CFunction, ...]:
    # once per document text, not once per request; a function already replaced by verified assembly is
    # left out, so nothing (hint, lens, action) is ever offered on its C fallback
    done = replaced_functions(text)
    return tuple(f for f in parse_functions(text) if f.name not in done)


def functions_by_name(text: str) -> dict[str, CFunction]:
    return {f.name: f for f in _parsed(text)}


def _lsp_range(r) -> types.Range:
    return types.Range(types.Position(r.start.line, r.start.character), types.Position(r.end.line, r.end.character))


def _diagnostic(fn: CFunction, message: str, severity: types.DiagnosticSeverity, code: str, data: dict):
    return types.Diagnostic(
        range=_lsp_range(fn.name_range), message=message, source=SOURCE, severity=severity, code=code, data=data
    )


def diagnostics(
    text: str,
    found: dict[str, FunctionResult],
    s: Settings,
    errors: dict[str, str] | None = None,
    pending: dict[str, str] | None = None,
) -> list[types.Diagnostic]:
    """On each function's name: its claim (Hint); why there is none (Information, with hints.explainNoWin),
    or what its job does while no verdict has come; a job that failed (Warning)."""
    if not s.hints.diagnostics:
        return []
    fns = functions_by_name(text)
    info, errors = types.DiagnosticSeverity.Information, errors or {}
    out = []
    for name, result in found.items():
        fn = fns.get(name)
        if fn is None or result is None:
            continue
        line = headline(result)
        if line and speedup(result) >= s.hint_min_speedup:
            hint = types.DiagnosticSeverity.Hint
            out.append(_diagnostic(fn, line, hint, "speedup", {"function": name, "label": result.best}))
        elif s.hints.explain_no_win and result.best_result() is None:
            final = {"function": name, "final": result.status != RUNNING}
            out.append(_diagnostic(fn, no_win_summary(result), info, "no-win", final))
    for name, stage in (pending or {}).items() if s.hints.explain_no_win else ():  # no verdict yet: what is done
        fn = fns.get(name)
        if fn is not None and name not in found and name not in errors:
            message = f"supercoder: optimizing {name}: {stage}..."
            out.append(_diagnostic(fn, message, info, "pending", {"function": name, "final": False}))
    for name, error in errors.items():  # a job that failed says so where the function is
        fn = fns.get(name)
        if fn is not None and name not in found:
            message = f"supercoder could not optimize {name}: {error.splitlines()[-1] if error else 'failed'}"
            out.append(_diagnostic(fn, message, types.DiagnosticSeverity.Warning, "job-failed", {"function": name}))
    return out


def inlay_hints(text: str, found: dict[str, FunctionResult], s: Settings, rng: types.Range) -> list[types.InlayHint]:
    if not s.hints.inlay_hints:
        return []
    fns = functions_by_name(text)
    data = text.encode("utf-8", "surrogatepass")
    idx = LineIndex(data)
    out = []
    for name, result in found.items():
        fn = fns.get(name)
        if fn is None or speedup(result) < s.hint_min_speedup:
            continue
        end = fn.body_start_byte  # the body's opening brace; the hint goes right after the signature,
        while end > 0 and data[end - 1 : end].isspace():  # on its line even when the brace has its own line
            end -= 1
        pos = idx.position(end)
        if not rng.start.line <= pos.line <= rng.end.line:
            continue
        best = result.best_result()
        uses = f", uses {', '.join(best.features)}" if best and best.features else ""
        out.append(
            types.InlayHint(
                position=types.Position(pos.line, pos.character),
                label=f"{speedup(result):.2f}x faster{uses}",
                kind=types.InlayHintKind.Type,
                padding_left=True,
                padding_right=True,
                tooltip=headline(result),
            )
        )
    return out


def hover(text: str, found: dict[str, FunctionResult], pos: types.Position) -> types.Hover | None:
    """On a function's name: the verdict of every candidate, as a table."""
    for fn in _parsed(text):
        r = fn.name_range
        if r.start.line == pos.line and r.start.character <= pos.character <= r.end.character:
            result = found.get(fn.name)
            if not result:
                return None
            rows = ["| candidate | verdict | speedup (95% CI) |", "|---|---|---|"]
            for c in result.candidates:
                t = results.deciding_timing(c)
                sp = f"{t.speedup:.2f}x ({t.ci[0]:.2f}-{t.ci[1]:.2f})" if t else "-"
                rows.append(f"| {c.label} | {'accepted' if c.status == 'accepted' else c.reason} | {sp} |")
            head = headline(result) or no_win_summary(result)
            ran = results.inputs_summary(result)
            return types.Hover(
                contents=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value=f"**supercoder**: {head}\n\n" + "\n".join(rows) + (f"\n\n_{ran}_" if ran else ""),
                ),
                range=_lsp_range(r),
            )
    return None


def code_lenses(uri: str, text: str, found: dict[str, FunctionResult], s: Settings) -> list[types.CodeLens]:
    if not s.hints.code_lens:
        return []
    fns = functions_by_name(text)
    out = []
    for name, result in found.items():
        fn = fns.get(name)
        if fn is None or speedup(result) < s.hint_min_speedup:
            continue
        r = _lsp_range(fn.name_range)
        out.append(
            types.CodeLens(
                range=r,
                command=types.Command(
                    title=f"{speedup(result):.2f}x faster", command="supercoder.showAssembly", arguments=[uri, name]
                ),
            )
        )
        out.append(
            types.CodeLens(
                range=r,
                command=types.Command(title="Show assembly", command="supercoder.showAssembly", arguments=[uri, name]),
            )
        )
        out.append(
            types.CodeLens(
                range=r,
                command=types.Command(title="Re-run", command="supercoder.optimizeFunction", arguments=[uri, name]),
            )
        )
    return out


def _disabled(title: str, reason: str) -> types.CodeAction:
    """An action that cannot be applied, with its reason. A client that shows disabled actions greys it
    out with the reason; one that lists it as enabled runs its command, which tells the user the reason,
    so choosing it never does nothing."""
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.RefactorRewrite,
        disabled=types.CodeActionDisabled(reason=reason),
        command=types.Command(title=title, command="supercoder.explain", arguments=[f"{title}: {reason}"]),
    )


def replace_action(
    uri: str,
    version: int | None,
    text: str,
    name: str,
    result: FunctionResult,
    replacement: ReplacementCheck | None,
    source_hash: str | None,
) -> types.CodeAction | None:
    """'Replace with verified assembly (1.62x)': offered only when the rebuilt, edited file verified and was
    faster, and only for the text it was computed from."""
    if replacement is None:
        return None
    title = f"Replace {name} with verified assembly ({speedup(result):.2f}x)"
    if not (replacement.ok and replacement.faster):
        return _disabled(title, f"not a verified win in the rebuilt file: {replacement.detail}")
    if source_hash is not None and text_hash(text) != source_hash:
        return _disabled(title, "the file changed since it was verified; save to re-run")
    lines = text.split("\n")
    end = types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
    edit = types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=[types.TextEdit(range=types.Range(types.Position(0, 0), end), new_text=replacement.edited)],
            )
        ]
    )
    title = f"Replace {name} with verified assembly ({replacement.speedup or 0:.2f}x in the rebuilt file)"
    return types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite, edit=edit)


def _edit(uri: str, version: int | None, rng: types.Range, new_text: str) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=[types.TextEdit(range=rng, new_text=new_text)],
            )
        ]
    )


def _source_change_actions(
    uri: str, version: int | None, text: str, fn: CFunction, result: FunctionResult, change: SourceChange | None
) -> list[types.CodeAction]:
    """The best candidate's win as a change to the C: an attribute before the function, or a new body."""
    if change and change.kind == "attribute":
        at = types.Position(fn.range.start.line, fn.range.start.character)
        title = f"Use {change.text} ({speedup(result):.2f}x)"
        edit = _edit(uri, version, types.Range(at, at), change.text + "\n")
        return [types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite, edit=edit, is_preferred=True)]
    if change and change.kind == "body":
        whole = types.Range(types.Position(0, 0), types.Position(len(text.splitlines()) + 1, 0))
        target = change.function or fn.name
        expr = change.text.split("return", 1)[-1].split(";", 1)[0].strip()
        of = f" of {target}" if target != fn.name else ""
        title = f"Replace the body{of} with `return {expr[:60]};` ({speedup(result):.2f}x)"
        edit = _edit(uri, version, whole, apply_body_change(text, target, change.text))
        return [types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite, edit=edit, is_preferred=True)]
    return []


def code_actions(
    uri: str,
    version: int | None,
    text: str,
    found: dict[str, FunctionResult],
    s: Settings,
    rng: types.Range,
    replacements: dict[str, tuple[ReplacementCheck | None, str | None]] | None = None,
) -> list[types.CodeAction]:
    fns = functions_by_name(text)
    out: list[types.CodeAction] = []
    replacements = replacements or {}
    for fn in fns.values():
        r = fn.range
        if not (r.start.line <= rng.start.line <= r.end.line):
            continue
        result = found.get(fn.name)
        best = result.best_result() if result else None
        if result and best and speedup(result) >= s.hint_min_speedup:
            first = len(out)
            out += _source_change_actions(uri, version, text, fn, result, best.source_change)
            rep = replace_action(uri, version, text, fn.name, result, *replacements.get(fn.name, (None, None)))
            if rep is not None:
                out.append(rep)
            if best.proving:  # tested, and a proof that may refute it runs: nothing edits the code before it ends
                out[first:] = [
                    _disabled(a.title, "waiting for the proof that it is equal on every input") for a in out[first:]
                ]
            out.append(
                types.CodeAction(
                    title=f"Show side-by-side assembly ({speedup(result):.2f}x)",
                    kind=types.CodeActionKind.Empty,
                    command=types.Command(
                        title="Show side-by-side assembly", command="supercoder.showAssembly", arguments=[uri, fn.name]
                    ),
                )
            )
        out.append(
            types.CodeAction(
                title=f"Optimize {fn.name} now",
                kind=types.CodeActionKind.Empty,
                command=types.Command(
                    title=f"Optimize {fn.name} now", command="supercoder.optimizeFunction", arguments=[uri, fn.name]
                ),
            )
        )
    return out


def side_by_side(path: Path, result: FunctionResult, environment: dict | None = None) -> Path:
    """Write <file>.supercoder.s: the -O3 assembly beside the best candidate, under the measured figures."""
    best = result.best_result()
    left = result.baseline_assembly.splitlines()
    right = (best.assembly if best else "").splitlines()
    width = max([len(x.expandtabs(8)) for x in left] + [24]) + 2
    env = environment or {}
    head = [
        f"# supercoder: {result.name} in {path.name}",
        f"# {headline(result) or no_win_summary(result)}",
        f"# candidate: {best.label} from {best.origin}" if best else "# no verified faster candidate",
        f"# CPU: {env.get('cpu_model', '?')}; compiler: {env.get('compiler_version', env.get('compiler', '?'))}",
        f"# {'-O3 (baseline)'.ljust(width - 2)}| candidate",
        "#",
    ]
    body = [
        f"# {a.expandtabs(8).ljust(width - 2)}| {b.expandtabs(8)}"
        for a, b in itertools.zip_longest(left, right, fillvalue="")
    ]
    out = path.with_name(path.name + ".supercoder.s")
    out.write_text("\n".join(head + body) + "\n")
    return out


def assembly_pair(path: Path, result: FunctionResult, outdir: Path) -> dict:
    """Write the -O3 assembly and the best candidate's as two files, for an editor's own diff view.

    Returns {"baseline": path, "candidate": path, "title": "..."}; without a verified candidate the
    candidate file says so, so the diff still opens and explains."""
    best = result.best_result()
    import hashlib

    where = outdir / hashlib.sha256(str(path).encode()).hexdigest()[:16]
    where.mkdir(parents=True, exist_ok=True)
    name = result.name
    left = where / f"{name}.O3.s"
    left.write_text(f"# {name} in {path.name}: gcc -O3 (baseline)\n" + result.baseline_assembly.rstrip() + "\n")
    label = best.label if best else "none"
    right = where / f"{name}.{label}.s"
    head = f"# {name} in {path.name}: {label} - {headline(result) or no_win_summary(result)}\n"
    right.write_text(head + ((best.assembly.rstrip() + "\n") if best else ""))
    title = f"{name}: -O3 \u2194 {label}" + (f" ({speedup(result):.2f}x)" if best else "")
    return {"baseline": str(left), "candidate": str(right), "title": title}
