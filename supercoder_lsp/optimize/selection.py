"""What the compiler made of each function, for choosing what to optimize: the signature it
saw, whether the flags compiled it at all, and which callers hold the code of a helper it
inlined everywhere."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from .. import build
from ..asm.cut import FunctionMissing, list_functions
from ..build.debuginfo import CompiledFunction, compiled_functions
from ..build.object_cache import compile_file_kept
from ..model import CFunction
from ..source import preprocessor_conditions
from .file_context import FileContext


def compiled_as(compiled: dict[str, CompiledFunction], fn: CFunction) -> CompiledFunction | None:
    """What the build made of this definition; None when the build has none, or when it compiled another
    definition of the same name (one `#if` alternative of several)."""
    cf = compiled.get(fn.name)
    if cf is not None and cf.decl_line is not None:
        if not fn.range.start.line + 1 <= cf.decl_line <= fn.range.end.line + 1:
            return None
    return cf


def compiled_names(functions: list[CFunction], compiled: dict[str, CompiledFunction], path: Path) -> list[CFunction]:
    """The definitions, each one a macro renames under the name the compiler gave it (lz4 builds xxhash.c
    with XXH_NAMESPACE=LZ4_: the text's XXH32 is LZ4_XXH32 to the compiler, the assembly and the linker),
    found by the line and file its debug info puts the definition on; `source_name` keeps the text's.
    Before, such a function was "not compiled with these flags", and its helpers "inlined into
    LZ4_XXH32", a function the tool then never chose."""
    texts = {f.name for f in functions}
    found: dict[str, list[CompiledFunction]] = {}
    for cf in compiled.values():
        if cf.name in texts or cf.decl_line is None or Path(cf.decl_file or "").name != path.name:
            continue
        for f in functions:
            if f.range.start.line + 1 <= cf.decl_line <= f.range.end.line + 1:
                found.setdefault(f.name, []).append(cf)
    out = []
    for f in functions:
        got = found.get(f.name, [])
        if len(got) == 1 and compiled_as(compiled, f) is None:
            f = dataclasses.replace(f, name=got[0].name, source_name=f.name)
        out.append(f)
    return out


def as_compiled(ctx: FileContext, fn: CFunction) -> tuple[CFunction, str | None]:
    """The function with the signature the compiler saw (macros expanded, typedefs resolved), and
    why there is nothing to optimize when the flags leave it out of the build."""
    compiled = ctx.compiled()
    if compiled is None:
        return fn, None
    cf = compiled_as(compiled, fn)
    if cf is None:
        conds = preprocessor_conditions(ctx.text, fn)
        where = f" (it is inside {' / '.join(conds)})" if conds else ""
        return fn, (
            f"not compiled with these flags{where}: the build has no {fn.name}. "
            "Optimize it under the flags that define it (--cflags, compile_commands.json)."
        )
    return dataclasses.replace(fn, signature=cf.signature), None


def missing_detail(e: FunctionMissing, ctx: FileContext, name: str) -> str:
    """Why the function has no code of its own, naming the callers that hold it when the compiler says."""
    cf = (ctx.compiled() or {}).get(name)
    if e.kind != "inlined" or cf is None or not cf.inlined_into:
        return str(e)
    callers = cf.inlined_into
    shown = ", ".join(callers[:4]) + (f" and {len(callers) - 4} more" if len(callers) > 4 else "")
    return (
        f"inlined into {shown}: -O3 gave `{name}` no code of its own. Optimize "
        f"{'the caller' if len(callers) == 1 else 'a caller'} that holds its hot loop ({callers[0]}), "
        f"or mark `{name}` __attribute__((noinline)) to optimize it alone."
    )


def holders(ranked: list, compiled: dict, has_code: set[str], top: int, notes: list[str]) -> list:
    """The top functions that have code of their own: a helper the compiler inlined everywhere gives
    its place to the caller that holds its code (once), so the hot loop still gets a harness; what the
    flags leave out of the build is skipped with a note."""
    by_name = {f.name: (f, score) for f, score in ranked}
    chosen: list = []
    for f, score in ranked:
        if len(chosen) == top:
            break
        cf = compiled_as(compiled, f)
        if compiled and cf is None:
            notes.append(f"{f.name} is not compiled with these flags (the preprocessor removed it): not optimized")
            continue
        if cf is not None and f.name not in has_code and not cf.out_of_line and not cf.inlined_into:
            notes.append(  # zlib's tr_static_init: its whole body is inside an #if the flags leave out
                f"{f.name} compiles to no code with these flags (its body is empty, or it is never called): "
                "not optimized"
            )
            continue
        if cf is not None and f.name not in has_code:  # the assembly decides; DWARF says where it went
            holder = next((c for c in cf.inlined_into if c in by_name and c in has_code), None)
            if holder is None:
                chosen.append((f, score))  # reported as inlined, with its callers
                continue
            if all(g.name != holder for g, _ in chosen):
                notes.append(f"{f.name} is inlined into {holder}: optimizing {holder}, which holds its code")
                chosen.append((by_name[holder][0], score))
            continue
        if all(g.name != f.name for g, _ in chosen):
            chosen.append((f, score))
    return chosen


def choose(
    path: Path,
    ranked: list,
    top: int,
    compiler: str | None = None,
    flags: str | None = None,
    kept: Path | None = None,
) -> list:
    """The top functions of a file as `supercoder optimize` chooses them (holders), each under the name the
    compiler gave it (compiled_names; `source_name` the text's): for the editor, which ranks from the text.
    Raises BuildError or ConfigError when the file does not build. With `kept` (the results cache's
    objects_dir), the builds are kept there for the job that follows."""
    cfg = build.resolve(path, compiler=compiler, flags=flags)
    with tempfile.TemporaryDirectory(prefix="sc-choose-") as d:
        compile_file_kept(path, cfg, Path(d) / "file.s", Path(d) / "debug.o", kept)
        asm = (Path(d) / "file.s").read_text()
        compiled = compiled_functions(Path(d) / "debug.o")
    named = compiled_names([f for f, _ in ranked], compiled, path)
    return holders([(f, score) for f, (_, score) in zip(named, ranked)], compiled, set(list_functions(asm)), top, [])
