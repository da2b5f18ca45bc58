"""Builds kept between runs: the objects of a project's other files, and a file's own -O3 assembly with
its -g object.

Every job (one per function, again on every save in the editor) built the project's other files
afresh before a harness could link them: zlib's 14 in 1.2 s, a project of MAX_FILES in minutes. And the
editor built each file it opened twice before its first result: once to choose the functions (which the
flags compile, which hold inlined helpers' code), and again in the job of the first one. A build is
kept under the key of what it is, its compiler, flags, directory and source path, with the size and
modification time of every file the compiler read for it (its -MD list: the source and each header),
and of the compiler itself; it is used again only where all of those are as they were, as ccache's
direct mode does, else built again. A file changed while it was being compiled (its time not before the
compile began) is not kept: the build may hold either version. An entry (the list and every output) is
one file, written to a temporary name and renamed into place: a run that stops halfway leaves no
half-written entry, and two jobs that keep the same build at once leave one whole entry, never one's
list with the other's output.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

from ..model import BuildConfig
from .compile import BuildError, compile_object, compile_to_asm, read_depfile
from .debuginfo import compile_debug_object

VERSION = 2  # of the entries' layout and key (2: one file per entry)
TICK_NS = 20_000_000  # a file changed this soon before the compile began is not kept either


class Built(NamedTuple):
    reused: bool  # the kept build (True), or built now
    inputs: tuple[Path, ...]  # the files it was built from: the source and every header (its -MD list)
    settled: bool = True  # False: one of them changed while it was built, so it may hold either version


def compile_kept(src: Path, cfg: BuildConfig, out: Path, cache: Path) -> Built:
    """`src` compiled with `cfg` into `out`: the object kept in `cache` where nothing it was built from
    changed (reused), else compiled and kept. Raises BuildError as compile_object does."""
    return _kept(
        src,
        cfg,
        "object",
        (out,),
        lambda depfile: compile_object(src, cfg, out, ("-MD", "-MF", str(depfile.resolve()))),
        cache,
    )


def compile_file_kept(src: Path, cfg: BuildConfig, asm: Path, debug: Path, cache: Path | None) -> Built:
    """`src`'s -O3 assembly (compile_to_asm) into `asm` and its -g object (compile_debug_object) into
    `debug`, the second on a second core; both kept in `cache` as one, where there is one. Raises
    BuildError where the assembly does not build; where only the -g build fails, `debug` is not written
    (its reader builds it again and says why) and nothing is kept."""

    def both(depfile: Path) -> None:
        with ThreadPoolExecutor(1) as pool:
            side = pool.submit(compile_debug_object, src, cfg, debug)
            try:
                compile_to_asm(src, cfg, asm, depfile=depfile)
            finally:
                try:
                    side.result()
                except BuildError:
                    debug.unlink(missing_ok=True)

    if cache is None:
        depfile = asm.with_suffix(".d")
        both(depfile)
        return Built(False, tuple(read_depfile(depfile, cfg.directory)) or (src,))
    return _kept(src, cfg, "asm and -g object", (asm, debug), both, cache)


def _kept(
    src: Path, cfg: BuildConfig, what: str, outs: tuple[Path, ...], make: Callable[[Path], None], cache: Path
) -> Built:
    """`make(depfile)` writes `outs` and the list of the files it read; or the outputs kept under the same
    key are copied there, where every file of their list is as it was."""
    key = hashlib.sha256(
        json.dumps([VERSION, what, cfg.compiler, list(cfg.flags), cfg.directory, str(src.resolve())]).encode()
    ).hexdigest()
    entry = cache / key[:2] / f"{key}.kept"
    compiler = shutil.which(cfg.compiler)
    got = _unchanged(entry, len(outs))
    if got is not None:
        files, blobs = got
        for out, blob in zip(outs, blobs, strict=True):
            out.write_bytes(blob)
        return Built(True, tuple(Path(p) for p in files if p != compiler))
    depfile = outs[0].with_suffix(".d")
    began = time.time_ns()
    make(depfile)
    read = read_depfile(depfile, cfg.directory)
    if not read:
        return Built(False, (src,))
    stamps = {str(p): _stamp(p) for p in [*read, *([Path(compiler)] if compiler else [])]}
    # a file's time comes from a clock that may lag the one read before the compile by a tick
    if any(s is None or s[1] >= began - TICK_NS for s in stamps.values()):
        return Built(False, tuple(read), False)  # changed while it compiled (or just before), or gone: not kept
    if not all(o.is_file() for o in outs):
        return Built(False, tuple(read))  # an output not made (the -g build failed): not kept, nothing unsettled
    try:
        encoded = [base64.b64encode(o.read_bytes()).decode() for o in outs]
        entry.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(entry, json.dumps({"files": stamps, "outputs": encoded}).encode())
    except OSError:
        pass  # a full disk or a read-only cache: built, not kept
    return Built(False, tuple(read))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _unchanged(entry: Path, n: int) -> tuple[list[str], list[bytes]] | None:
    """A kept entry's list of files and its `n` outputs, where every file of the list is as it was; None
    where not, or where there is none."""
    try:
        data = json.loads(entry.read_text())
        files, outputs = data["files"], data["outputs"]
        if not isinstance(files, dict) or not files or not isinstance(outputs, list) or len(outputs) != n:
            return None
        if not all(isinstance(s, list) and _stamp(Path(p)) == tuple(s) for p, s in files.items()):
            return None
        return list(files), [base64.b64decode(o, validate=True) for o in outputs]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # unreadable or damaged: built again


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
