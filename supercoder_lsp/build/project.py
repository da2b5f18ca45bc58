"""The rest of a project, for a harness that calls functions of other files (zlib's inflate calls
adler32, crc32 and inflate_fast): every other translation unit of compile_commands.json built with
its own flags into one static archive. The linker takes from an archive only the members a harness
needs, so linking it costs nothing where nothing is missing; a file that defines main (a program of
the project) is left out, as is one that does not compile."""

from __future__ import annotations

import json
import os
import shlex
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .compile import BuildError, compile_object, defines_main, included_files, preprocessed_defines_main, run_tool
from .flags import from_compile_commands
from .object_cache import compile_kept


@dataclass
class ProjectLibrary:
    archive: Path | None  # None: no other file built
    members: int  # files in it
    left_out: list[str]  # other files, each with why ("defines main", "does not compile")
    # the files that define main (its programs): source name -> object
    mains: dict[str, Path] = field(default_factory=dict)
    # every file it was built from (each member's source and headers; a file that did not compile, its
    # source): a result that linked it holds only while these are unchanged
    inputs: tuple[Path, ...] = ()
    settled: bool = True  # False: a file changed while it was built (object_cache.Built)


def _sources(db: Path) -> list[Path]:
    out = []
    for entry in json.loads(db.read_text()):
        if not isinstance(entry, dict) or "file" not in entry:
            continue
        f = Path(entry["file"])
        if not f.is_absolute():
            f = Path(entry.get("directory", db.parent)) / f
        argv = entry.get("arguments") or shlex.split(entry.get("command", ""))
        if argv and f.suffix == ".c" and f.resolve() not in out:
            out.append(f.resolve())
    return out


def project_files(db: Path) -> list[Path]:
    """The sources `db` compiles, and the headers in their folders."""
    sources = _sources(db)
    headers = {h.resolve() for d in {s.parent for s in sources} for h in d.glob("*.h")}
    return [*sources, *sorted(headers)]


INCLUDES_IT = "includes it"
MAX_FILES = 300  # more, and building them all on first need would hold a job for minutes: --ldflags instead


def project_library(db: Path, exclude: Path, workdir: Path, kept: Path | None = None) -> ProjectLibrary:
    """Every file of `db` but `exclude` and those that include it, compiled into workdir/libproject.a; with
    `kept`, each object built there before is used again where nothing it was built from changed
    (object_cache.py)."""
    workdir.mkdir(parents=True, exist_ok=True)
    objs: list[str] = []
    left_out: list[str] = []
    mains: dict[str, Path] = {}
    others = [s for s in _sources(db) if s != exclude.resolve()]
    if len(others) > MAX_FILES:
        return ProjectLibrary(None, 0, [f"{len(others)} files, over {MAX_FILES}"])
    read: set[Path] = set()
    unsettled: list[Path] = []

    def build(i: int, src: Path) -> Path | str | None:
        """The object, or "" where it does not compile, INCLUDES_IT where it includes `exclude`, or None where
        the database has no flags for it."""
        cfg = from_compile_commands(db, src)
        if cfg is None:
            return None
        obj = workdir / f"{i}-{src.stem}.o"
        read.add(src)
        try:
            # a program that includes the file optimized (cJSON's 20 test programs, through tests/common.h) has
            # its own copy of every function there: its calls never reach this build's, and each cost 0.6 s to
            # build. A file without main that includes it (lz4hc.c: lz4.c's definitions only) is built as any
            if exclude.resolve() in included_files(src, cfg, workdir) and preprocessed_defines_main(src, cfg, workdir):
                return INCLUDES_IT
        except BuildError:
            pass  # its compile says why
        try:
            if kept is None:
                compile_object(src, cfg, obj)
            else:
                built = compile_kept(src, cfg, obj, kept)
                read.update(built.inputs)
                if not built.settled:
                    unsettled.append(src)
        except BuildError:
            return ""
        return obj

    with ThreadPoolExecutor(len(os.sched_getaffinity(0))) as pool:  # one file per core (zlib: 2.3 -> 1.2 s)
        built = list(pool.map(build, range(len(others)), others))
    for src, obj in zip(others, built, strict=True):
        if obj is None:
            continue
        if obj == INCLUDES_IT:
            left_out.append(f"{src.name} (a program that includes {exclude.name} itself)")
            continue
        if not isinstance(obj, Path):
            left_out.append(f"{src.name} (does not compile)")
            continue
        if defines_main(obj):
            left_out.append(f"{src.name} (defines main)")
            mains[src.name] = obj
            continue
        objs.append(str(obj))
    inputs = tuple(sorted(read))
    if not objs:
        return ProjectLibrary(None, 0, left_out, mains, inputs, not unsettled)
    archive = workdir / "libproject.a"
    archive.unlink(missing_ok=True)
    run_tool(["ar", "rcs", str(archive), *objs], "ar")
    return ProjectLibrary(archive, len(objs), left_out, mains, inputs, not unsettled)
