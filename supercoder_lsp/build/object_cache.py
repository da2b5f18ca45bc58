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
import shutil
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from ..model import BuildConfig
from .compile import compile_object, read_depfile

VERSION = 1  # of the entries' layout and key
TICK_NS = 20_000_000  # a file changed this soon before the compile began is not kept either


class Built(NamedTuple):
    reused: bool  # the kept object (True), or compiled now
    inputs: tuple[Path, ...]  # the files it was built from: the source and every header (its -MD list)


def compile_kept(src: Path, cfg: BuildConfig, out: Path, cache: Path) -> Built:
    """`src` compiled with `cfg` into `out`: the object kept in `cache` where nothing it was built from
    changed (reused), else compiled and kept. Raises BuildError as compile_object does."""
    key = hashlib.sha256(
        json.dumps([VERSION, cfg.compiler, list(cfg.flags), cfg.directory, str(src.resolve())]).encode()
    ).hexdigest()
    entry = cache / key[:2] / key
    kept, stamps = entry.with_suffix(".o"), entry.with_suffix(".stamps")
    compiler = shutil.which(cfg.compiler)
    same = _unchanged(stamps)
    if same and kept.is_file():
        shutil.copyfile(kept, out)
        return Built(True, tuple(Path(p) for p in same if p != compiler))
    depfile = out.with_suffix(".d")
    began = time.time_ns()
    compile_object(src, cfg, out, ("-MD", "-MF", str(depfile.resolve())))
    read = read_depfile(depfile, cfg.directory)
    if not read:
        return Built(False, (src,))
    files = {str(p): _stamp(p) for p in [*read, *([Path(compiler)] if compiler else [])]}
    # a file's time comes from a clock that may lag the one read before the compile by a tick
    if any(s is None or s[1] >= began - TICK_NS for s in files.values()):
        return Built(False, tuple(read))  # changed while it compiled (or just before), or gone: not kept
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(kept, out.read_bytes())
        _write_atomically(stamps, json.dumps(files).encode())
    except OSError:
        pass  # a full disk or a read-only cache: built, not kept
    return Built(False, tuple(read))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _unchanged(stamps: Path) -> list[str]:
    """The files of a kept object's list, where every one is as it was; [] where not, or none is kept."""
    try:
        files = json.loads(stamps.read_text())
        if (
            isinstance(files, dict)
            and bool(files)
            and all(isinstance(s, list) and _stamp(Path(p)) == tuple(s) for p, s in files.items())
        ):
            return list(files)
    except (OSError, ValueError):
        pass  # none yet, or unreadable: built again
    return []


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
