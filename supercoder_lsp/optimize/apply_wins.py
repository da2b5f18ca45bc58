"""The verified wins of `supercoder optimize` reports as edits of their files, for `supercoder apply`.

Source-level changes first (an attribute before the definition, such as target_clones; a body proven
equal); with `assembly`, a win that has none becomes the verified assembly under `#if` with the C kept
under `#else`, as `supercoder replace` writes it. A win is taken only where the function's C is the C
it was verified on (its tokens' fingerprint, which the report records); every other function is
listed with the reason it was left.
"""

from __future__ import annotations

import difflib
import functools
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import build
from ..asm.features import required_cpu_flags
from ..model import BuildConfig
from ..options import InputError
from ..source import find_function, parse_functions
from ..source.edit import apply_body_change
from ..source.replaced import fingerprints
from . import replace


@dataclass
class Win:
    file: str
    function: str
    kind: str  # "attribute", "body" or "assembly"
    text: str  # what was inserted: the attribute, the body, or the assembly's first lines
    speedup: float
    ci: tuple[float, float]
    features: list[str]
    headline: str
    kept_c: str = ""  # for assembly: the features the build's flags do not enable, so its #if keeps the C


@dataclass
class Left:
    file: str
    function: str
    why: str


@dataclass
class Edits:
    files: dict[Path, tuple[str, str]] = field(default_factory=dict)  # path -> (before, after)
    wins: list[Win] = field(default_factory=list)
    left: list[Left] = field(default_factory=list)


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


def _fingerprint(text: str, name: str) -> str | None:
    """As the pipeline took it: the file read with bytes that are not UTF-8 replaced."""
    return fingerprints(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")).get(name)


def _attribute(text: str, name: str, attribute: str) -> str:
    data = text.encode("utf-8", "surrogateescape")
    fn = find_function(parse_functions(data), name)
    assert fn is not None
    line_start = data.rfind(b"\n", 0, fn.start_byte) + 1
    indent = data[line_start : fn.start_byte]
    head = data[:line_start] + indent + attribute.encode() + b"\n" + data[line_start:]
    return head.decode("utf-8", "surrogateescape")


@functools.cache
def _file_facts(path: Path) -> tuple[BuildConfig, frozenset[str], frozenset[str]]:
    """What the project's build makes of a file, once per file and run: its flags, the global symbols of its
    object (a function static by a macro, zlib's `local`, is not one) and the macros its flags define."""
    cfg = build.resolve(path)
    with tempfile.TemporaryDirectory(prefix="supercoder-link-") as t:
        build.compile_object(path, cfg, Path(t) / "f.o")
        globals_ = frozenset(build.defined_globals(Path(t) / "f.o"))
    p = subprocess.run(
        [cfg.compiler, *cfg.flags, "-dM", "-E", "-x", "c", "/dev/null"], capture_output=True, text=True, check=False
    )
    macros = frozenset(ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("#define "))
    return cfg, globals_, macros


def _assembly(path: Path, text: str, name: str, best: dict, verified_flags: list[str] | None) -> str:
    data = text.encode("utf-8", "surrogateescape")
    fn = find_function(parse_functions(data), name)
    assert fn is not None
    original = data[fn.start_byte : fn.end_byte].decode("utf-8", "surrogateescape")
    cfg, globals_, _ = _file_facts(path)
    if name not in globals_:  # static by a macro (zlib's `local`)
        raise replace.ReplaceError(
            f"'{name}' is not a global symbol of the compiled file (static, by a macro or otherwise): "
            "assembly in its place would change its linkage; use the source-level change"
        )
    if verified_flags is not None and list(cfg.flags) != list(verified_flags):
        raise replace.ReplaceError(
            f"verified against {' '.join(verified_flags)}, but the project builds the file with "
            f"{' '.join(cfg.flags)}: run `supercoder optimize` with the project's flags"
        )
    # the evidence level as the headline says it: "verified on N inputs", "proven equal on all 2^64 inputs"
    level = (best.get("headline") or "").partition(" - ")[2].split(" (")[0] or "tested"
    lo, hi = best["speedup_ci"]
    claim = f"{best['speedup']:.2f}x (95% CI {lo:.2f}-{hi:.2f})"
    proof = replace.evidence(original, best["assembly"], cfg, claim, level)
    return replace.render(text, fn, best["assembly"], f"{best['label']}, applied by supercoder apply", proof)


def _guard_false(path: Path, asm: str) -> str:
    """The features the assembly needs that the file's flags do not enable ('' where its #if holds)."""
    defined = _file_facts(path)[2]
    need = sorted(required_cpu_flags(asm))
    return ", ".join(f for f in need if replace.ISA_MACROS.get(f) not in defined)


def _one(path: Path, text: str, f: dict, rep: dict, assembly: bool) -> tuple[str, Win | str]:
    """The file's text with function `f`'s win applied, and the win; or the text and why it was left."""
    name, best = f["name"], f.get("best")
    fps = (rep.get("source") or {}).get("fingerprints") or {}
    if not best or not best.get("speedup_ci") or best["speedup_ci"][0] <= 1.0:
        return text, f"no verified, significant win ({f.get('detail') or f.get('status')})"
    if name not in fps:
        return text, "the report does not record which C was verified: run `supercoder optimize` again"
    now = _fingerprint(text, name)
    if now is None:
        return text, "the function is no longer in the file"
    if now != fps[name]:
        return text, "its C changed since the report: run `supercoder optimize` on the file again"
    change = best.get("source_change") or {}
    kind, new = change.get("kind"), text
    win = Win(
        str(path),
        name,
        "",
        "",
        best["speedup"],
        tuple(best["speedup_ci"]),
        best.get("features") or [],
        best.get("headline") or "",
    )
    if kind == "attribute":
        new, win.kind, win.text = _attribute(text, name, change["text"]), "attribute", change["text"]
    elif kind == "body":
        new = apply_body_change(text, change.get("function") or name, change["text"])
        win.kind, win.text = "body", change["text"]
    elif assembly and best.get("assembly"):
        try:
            new = _assembly(path, text, name, best, (rep.get("environment") or {}).get("flags"))
        except replace.ReplaceError as e:
            return text, str(e)
        win.kind, win.text = "assembly", best["label"]
        win.kept_c = _guard_false(path, best["assembly"])
    elif kind in ("flag", "compiler"):
        return text, (
            f"its change is to the build ({change['text']}: {change.get('description', '')}); apply does not "
            "edit build files: make that change yourself, or give --assembly to insert the verified assembly"
        )
    else:
        return text, "no source-level change; give --assembly to insert the verified assembly (C kept under #else)"
    return new, win


def plan_edits(reports: list[dict], *, assembly: bool = False) -> Edits:
    """Every function's win of every report as an edit of its file (files in the order given)."""
    out = Edits()
    _file_facts.cache_clear()  # the files as they are now
    for rep in reports:
        src = rep.get("source") or {}
        path = Path(src.get("path") or rep.get("file", ""))
        if not path.is_file():
            raise InputError(f"the report's file '{path}' does not exist: run `supercoder optimize` where it is")
        before = out.files[path][0] if path in out.files else _read(path)
        text = out.files[path][1] if path in out.files else before
        for f in rep.get("functions", []):
            text, got = _one(path, text, f, rep, assembly)
            if isinstance(got, Win):
                out.wins.append(got)
            else:
                out.left.append(Left(str(path), f["name"], got))
        if text != before:
            out.files[path] = (before, text)
    return out


def patch(edits: Edits, root: Path) -> str:
    """The edits as a unified diff with paths relative to `root` (for `git apply` or `patch -p1`)."""
    parts: list[str] = []
    for path, (before, after) in edits.files.items():
        rel = path.resolve().relative_to(root.resolve()).as_posix()
        parts.extend(
            difflib.unified_diff(
                before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{rel}", f"b/{rel}"
            )
        )
    return "".join(parts)
