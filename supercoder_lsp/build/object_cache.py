"""Objects of a project's other files, kept between runs.

Every job (one per function, again on every save in the editor) built the project's other files
afresh before a harness could link them: zlib's 14 in 1.2 s, a project of MAX_FILES in minutes. An
object is kept under the key of its compiler, flags, directory and source path, with the size and
modification time of every file the compiler read for it (its -MD list: the source and each header),
and of the compiler itself; it is used again only where all of those are as they were, as ccache's
direct mode does, else built again. A file changed while it was being compiled (its time not before the
compile began) is not kept: the object may hold either version. Object and list are each written to a
temporary name and renamed into place, so a run that stops halfway leaves no half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from ..model import BuildConfig
from .compile import compile_object

VERSION = 1  # of the entries' layout and key
TICK_NS = 20_000_000  # a file changed this soon before the compile began is not kept either


def compile_kept(src: Path, cfg: BuildConfig, out: Path, cache: Path) -> bool:
    """`src` compiled with `cfg` into `out`: the object kept in `cache` where nothing it was built from
    changed (True), else compiled and kept (False). Raises BuildError as compile_object does."""
    key = hashlib.sha256(
        json.dumps([VERSION, cfg.compiler, list(cfg.flags), cfg.directory, str(src.resolve())]).encode()
    ).hexdigest()
    entry = cache / key[:2] / key
    kept, stamps = entry.with_suffix(".o"), entry.with_suffix(".stamps")
    if _unchanged(stamps) and kept.is_file():
        shutil.copyfile(kept, out)
        return True
    depfile = out.with_suffix(".d")
    began = time.time_ns()
    compile_object(src, cfg, out, ("-MD", "-MF", str(depfile.resolve())))
    try:
        read = _depfile_inputs(depfile.read_text(), Path(cfg.directory or "."))
    except OSError:
        return False
    compiler = shutil.which(cfg.compiler)
    files = {str(p): _stamp(p) for p in [*read, *([Path(compiler)] if compiler else [])]}
    # a file's time comes from a clock that may lag the one read before the compile by a tick
    if any(s is None or s[1] >= began - TICK_NS for s in files.values()):
        return False  # changed while it compiled (or just before), or gone: not kept
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(kept, out.read_bytes())
        _write_atomically(stamps, json.dumps(files).encode())
    except OSError:
        pass  # a full disk or a read-only cache: built, not kept
    return False


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _unchanged(stamps: Path) -> bool:
    try:
        files = json.loads(stamps.read_text())
        return (
            isinstance(files, dict)
            and bool(files)
            and all(isinstance(s, list) and _stamp(Path(p)) == tuple(s) for p, s in files.items())
        )
    except (OSError, ValueError):
        return False  # none yet, or unreadable: built again


def _depfile_inputs(text: str, directory: Path) -> list[Path]:
    """The files a make rule from `gcc -MD` names after its target (backslash-newlines joined, `\\ ` an
    escaped space), relative ones from the compiler's directory."""
    text = text.replace("\\\n", " ")
    _, _, deps = text.partition(": ")
    names = [n.replace("\\ ", " ") for n in re.findall(r"(?:\\ |[^\s])+", deps)]
    return [p if p.is_absolute() else directory / p for p in map(Path, names)]


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
