"""The `supercoder` commands on replaced functions: `replace` (verified assembly in, the C kept under
`#else`), `check` (does each replaced function's assembly still stand for its C: ok, stale, wrong) and
`revert` (back to the C, byte for byte). cli.py adds their parsers and calls run()."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from . import build, options
from .options import InputError
from .serialize import replacement_to_json

EXIT_OK, EXIT_USAGE, EXIT_NOT_VERIFIED = 0, 2, 5
COMMANDS = ("replace", "check", "revert")
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__"}


def add_parsers(sub) -> None:
    r = sub.add_parser(
        "replace",
        help="replace a function's C with verified assembly (C kept under #else)",
        epilog="Exit codes: 0 verified (and written with --write), 5 not verified or not faster, "
        "2 bad input, 3 missing tool, 4 the file does not compile.",
    )
    r.add_argument("file", type=Path)
    r.add_argument("-f", "--function", required=True)
    r.add_argument("--assembly", type=Path, required=True, help="the verified assembly of the function (a .s file)")
    r.add_argument("--note", default="verified replacement", help="text for the comment above the block")
    options.add_arguments(r, only=options.REPLACE_OPTIONS)
    r.add_argument(
        "--write", action="store_true", help="write the edited file (atomically) when it verifies and is faster"
    )
    r.add_argument("--json", action="store_true")
    c = sub.add_parser(
        "check",
        help="does each replaced function's assembly still stand for its C? ok, stale or wrong",
        epilog="Exit codes: 0 every replaced function ok (or fixed), 1 one is stale or wrong, 2 bad input.",
    )
    c.add_argument("paths", nargs="*", type=Path, default=[Path(".")], help="files, folders or compile_commands.json")
    c.add_argument("--verify", action="store_true", help="re-verify the stale ones: still right, or wrong")
    c.add_argument(
        "--fix", action="store_true", help="re-verify the stale ones and renew their evidence where they pass"
    )
    c.add_argument("--json", action="store_true")
    c.add_argument("--markdown", action="store_true", help="a Markdown table (a CI job's summary)")
    options.add_arguments(c, only=options.REPLACE_OPTIONS)
    v = sub.add_parser("revert", help="put a replaced function's C back, exactly as it was before `replace`")
    v.add_argument("file", type=Path)
    v.add_argument("-f", "--function", action="append", help="this function (repeatable); default: every one")


def run(a: argparse.Namespace) -> int:
    return {"replace": replace_cmd, "check": check_cmd, "revert": revert_cmd}[a.command](a)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.supercoder-tmp")
    tmp.write_bytes(text.encode("utf-8", "surrogateescape"))
    os.replace(tmp, path)  # never a half-written source file


def _read(path: Path) -> str:
    """The file's text as it is on disk (line ends and bytes that are not UTF-8 kept: written back, the
    rest of the file is the same bytes)."""
    if not path.is_file():
        raise InputError(f"'{path}' does not exist or is not a file")
    return path.read_bytes().decode("utf-8", "surrogateescape")


def replace_cmd(a: argparse.Namespace) -> int:
    from .optimize import replace
    from .source import parse_functions

    if not a.file.is_file():
        raise InputError(f"'{a.file}' does not exist or is not a file")
    text = a.file.read_text(errors="replace")
    asm = a.assembly.read_text()
    opts = options.from_namespace(a)
    cfg = build.resolve(a.file, compiler=opts.compiler, flags=opts.flags)
    with tempfile.TemporaryDirectory(prefix="supercoder-replace-") as work:
        fn = _with_compiled_types(a.file, parse_functions(text), a.function, cfg, Path(work))
        if fn is None:
            raise InputError(f"no function named {a.function} in {a.file}")
        try:
            edited = replace.render(text, fn, asm, a.note)
        except replace.ReplaceError as e:
            raise InputError(str(e)) from e
        res = replace.check(a.file, fn, edited, cfg, Path(work), n_random=opts.n_random)
        original = text.encode("utf-8", "surrogatepass")[fn.start_byte : fn.end_byte].decode("utf-8", "surrogatepass")
        proof = replace.evidence(original, asm, cfg, replace.claim_of(res), f"tested on {res.inputs:,} inputs")
        edited = replace.render(text, fn, asm, a.note, proof)
    res.edited = edited
    if a.write and res.ok and res.faster:
        _write(a.file, edited)
        res.written = True
    if a.json:
        sys.stdout.write(json.dumps(replacement_to_json(res)) + "\n")
    else:
        head = "verified" if res.ok and res.faster else "verified but not faster" if res.ok else "not verified"
        print(f"{head}: {res.detail}" + (f"; wrote {a.file}" if res.written else ""))
    return EXIT_OK if res.ok and res.faster else EXIT_NOT_VERIFIED


def _with_compiled_types(path: Path, functions: list, name: str, cfg, work: Path):
    """The function named `name` (in the text, or as the compiler names it where a macro renames it) with
    the compiler's name and the signature it saw (as `optimize` plans it); as parsed when the -g build
    fails; None where the file defines no such function."""
    import dataclasses

    from .build.debuginfo import compile_debug_object, compiled_functions
    from .optimize.selection import compiled_names

    try:
        compile_debug_object(path, cfg, work / "debug.o")
    except build.BuildError:
        return next((f for f in functions if f.name == name), None)
    compiled = compiled_functions(work / "debug.o")
    fn = next((f for f in compiled_names(functions, compiled, path) if name in (f.name, f.source_name)), None)
    cf = compiled.get(fn.name) if fn else None
    return dataclasses.replace(fn, signature=cf.signature) if fn and cf else fn


def c_files(paths: list[Path]) -> list[Path]:
    """The .c files that `paths` name: files, folders (searched), compile_commands.json (its files)."""
    out: list[Path] = []
    for p in paths:
        if p.name == "compile_commands.json" and p.is_file():
            entries = json.loads(p.read_text())
            out += [Path(e["directory"], e["file"]) for e in entries if e["file"].endswith(".c")]
        elif p.is_dir():
            out += [f for f in sorted(p.rglob("*.c")) if not SKIP_DIRS & set(f.relative_to(p).parts[:-1])]
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(f"'{p}' does not exist: give files, folders or a compile_commands.json")
    return list(dict.fromkeys(f.resolve() for f in out))


def check_cmd(a: argparse.Namespace) -> int:
    from .optimize.staleness import examine, refreshed, reverify

    opts = options.from_namespace(a)
    rows = []
    for path in c_files(a.paths):
        text = _read(path)
        if "supercoder:" not in text:
            continue
        cfg = build.resolve(path, compiler=opts.compiler, flags=opts.flags)
        for st in examine(text, cfg):
            if st.status == "stale" and (a.verify or a.fix):
                res = reverify(path, text, st.block, cfg, opts.n_random)
                st.status, st.detail = ("verified" if res.ok else "wrong"), res.detail
                if res.ok and a.fix:
                    text = _read(path)
                    block = next(b for b in examine(text, cfg) if b.block.name == st.block.name).block
                    _write(path, refreshed(text, block, cfg, res))
                    st.status = "fixed"
            rows.append((path, st))
    _report(a, rows)
    return 0 if all(st.status in ("ok", "fixed") for _, st in rows) else 1


def _report(a: argparse.Namespace, rows) -> None:
    if a.json:
        out = [
            {"file": str(p), "function": st.block.name, "status": st.status, "reasons": st.reasons, "detail": st.detail}
            for p, st in rows
        ]
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
        return
    if a.markdown:
        print("| file | function | status | why |\n|---|---|---|---|")
        for p, st in rows:
            why = "; ".join(st.reasons + ([st.detail] if st.detail else [])).replace("|", "\\|")
            print(f"| {p.name} | `{st.block.name}` | {st.status} | {why} |")
        return
    for p, st in rows:
        print(f"{p}: {st.block.name}: {st.status}" + "".join(f"\n  - {r}" for r in st.reasons))
        if st.detail:
            print(f"  re-verified: {st.detail}")
    if not rows:
        print("no replaced functions found")
    elif any(st.status == "stale" for _, st in rows):
        print("stale: re-verify with `supercoder check --fix`, or put the C back with `supercoder revert FILE -f NAME`")


def revert_cmd(a: argparse.Namespace) -> int:
    from .source.replaced import blocks, revert

    text = _read(a.file)
    found = blocks(text)
    want = a.function or [b.name for b in found]
    missing = [n for n in want if n not in {b.name for b in found}]
    if missing:
        have = ", ".join(b.name for b in found) or "none"
        raise InputError(f"{a.file} has no replaced function {', '.join(missing)} (replaced here: {have})")
    for b in reversed(found):  # from the end, so that the earlier blocks' offsets hold
        if b.name in want:
            text = revert(text, b)
    _write(a.file, text)
    print(f"reverted {', '.join(want)} in {a.file} to the C")
    return EXIT_OK
