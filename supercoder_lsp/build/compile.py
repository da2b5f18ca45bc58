"""Run the compiler, the assembler and the linker.

Every call has a timeout and turns failure into BuildError with the tool's
own message, so one bad candidate or function never stops the others.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import threading
from pathlib import Path

from .. import tools
from ..asm.elfcheck import inspect_object
from ..model import BuildConfig

NOTE_GNU_STACK = '\n\t.section\t.note.GNU-stack,"",@progbits\n'


class BuildError(RuntimeError):
    def __init__(self, what: str, output: str, timed_out: bool = False):
        self.what = what
        self.output = output.strip()
        self.timed_out = timed_out
        super().__init__(f"{what}: {self.output[:2000]}")


# A build run in the background at the lowest priority: on cores the checks leave idle, not beside them.
# Each tool runs in a session of its own, which Linux schedules as a group of its own (autogroup): the
# group's priority is what counts beside the checks' sessions, and nice alone inside it changes nothing
LOW_PRIORITY = ["sh", "-c", '{ echo 19 > /proc/self/autogroup; } 2>/dev/null; exec nice -n 19 "$@"', "sh"]


def run_tool(argv: list[str], what: str, cwd: str | None = None, timeout: float = 120, low: bool = False) -> None:
    """Run a build tool; a crash, a failure or a timeout (the whole process
    group is killed: no stray cc1 left behind) raises BuildError. `low`: at the lowest priority
    (LOW_PRIORITY)."""
    tools.require(argv[0])
    p = subprocess.Popen(
        [*LOW_PRIORITY, *argv] if low else argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=functools.partial(tools.die_with_parent, os.getpid()),
    )
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise BuildError(what, f"timed out after {timeout:.0f}s: {' '.join(argv)}", timed_out=True) from None
    if p.returncode < 0:
        raise BuildError(what, f"{argv[0]} was killed by signal {-p.returncode} (a compiler crash)\n{err}")
    if p.returncode != 0:
        raise BuildError(what, err or out or f"exit code {p.returncode}")


def asm_flags(flags: tuple[str, ...] | list[str]) -> list[str]:
    """The project's flags made fit for assembly that will be cut: no debug info, no LTO."""
    return [f for f in flags if not f.startswith("-g") and not f.startswith("-flto")] + ["-g0"]


def compile_to_asm(
    src: str | os.PathLike,
    cfg: BuildConfig,
    out: str | os.PathLike,
    extra: tuple[str, ...] = (),
    compiler: str | None = None,
    timeout: float = 120,
    depfile: Path | None = None,
) -> str:
    """`cc FLAGS -S -g0 src -o out`; returns the assembly text. With `depfile`, the compiler also writes
    there the files it read (-MD: the source and every header), as `read_depfile` reads them."""
    argv = [
        compiler or cfg.compiler,
        *asm_flags([*cfg.flags, *extra]),
        *(("-MD", "-MF", str(depfile.resolve())) if depfile is not None else ()),
        "-S",
        str(Path(src).resolve()),
        "-o",
        str(Path(out).resolve()),
    ]
    run_tool(argv, "compile", cwd=cfg.directory, timeout=timeout)
    return Path(out).read_text()


def read_depfile(path: Path, directory: str | None) -> list[Path]:
    """The files a make rule from `cc -MD` names after its target (backslash-newlines joined, `\\ ` an
    escaped space), relative ones from the compiler's directory; [] where there is no such file."""
    try:
        text = path.read_text().replace("\\\n", " ")
    except OSError:
        return []
    _, _, deps = text.partition(": ")
    names = [n.replace("\\ ", " ") for n in re.findall(r"(?:\\ |[^\s])+", deps)]
    return [p if p.is_absolute() else Path(directory or ".") / p for p in map(Path, names)]


def included_files(src: str | os.PathLike, cfg: BuildConfig, workdir: Path) -> list[Path]:
    """The project files `src` reads when compiled with `cfg` (`cc -MM`: itself and its headers, not the
    system's), resolved; a preprocessor run, some 20 ms. Raises BuildError where it does not preprocess."""
    dep = workdir / f"{Path(src).stem}.{os.getpid()}.{threading.get_ident()}.mm"
    argv = [cfg.compiler, *cfg.flags, "-MM", "-MF", str(dep.resolve()), str(Path(src).resolve())]
    try:
        run_tool(argv, "preprocess", cwd=cfg.directory)
        return [p.resolve() for p in read_depfile(dep, cfg.directory)]
    finally:
        dep.unlink(missing_ok=True)


def preprocessed_defines_main(src: str | os.PathLike, cfg: BuildConfig, workdir: Path) -> bool:
    """Whether `src`, preprocessed with `cfg`, holds a definition of main (its text: `main(...) {`), told
    without compiling it. Raises BuildError where it does not preprocess."""
    out = workdir / f"{Path(src).stem}.{os.getpid()}.{threading.get_ident()}.i"
    try:
        run_tool(
            [cfg.compiler, *cfg.flags, "-E", "-P", str(Path(src).resolve()), "-o", str(out.resolve())],
            "preprocess",
            cwd=cfg.directory,
        )
        return re.search(r"\bmain\s*\([^()]*\)\s*\{", out.read_text(errors="replace")) is not None
    finally:
        out.unlink(missing_ok=True)


def compile_object(
    src: str | os.PathLike, cfg: BuildConfig, out: str | os.PathLike, extra: tuple[str, ...] = (), timeout: float = 120
) -> None:
    argv = [cfg.compiler, *cfg.flags, *extra, "-c", str(Path(src).resolve()), "-o", str(Path(out).resolve())]
    run_tool(argv, "compile", cwd=cfg.directory, timeout=timeout)


def assemble(asm_text: str, out_obj: str | os.PathLike, timeout: float = 60) -> None:
    """Assemble one self-contained .s text into an object (non-executable stack)."""
    out_obj = Path(out_obj)
    src = out_obj.with_suffix(".s")
    src.write_text(asm_text.rstrip("\n") + "\n" + NOTE_GNU_STACK)
    run_tool(["gcc", "-c", "-x", "assembler", str(src), "-o", str(out_obj)], "assemble", timeout=timeout)


def link(
    objs: list[str | os.PathLike],
    out_exe: str | os.PathLike,
    extra: tuple[str, ...] = (),
    compiler: str = "gcc",
    timeout: float = 60,
) -> None:
    argv = [compiler, *map(str, objs), "-o", str(out_exe), *extra, "-lm"]
    run_tool(argv, "link", timeout=timeout)


def objcopy(obj: str | os.PathLike, *args: str) -> None:
    run_tool(["objcopy", *args, str(obj)], "objcopy")


def library_flags(ldflags: tuple[str, ...], workdir: str | os.PathLike) -> tuple[str, ...]:
    """The project's link flags for a harness, which has a main of its own: an object among them
    that defines main (the program's, e.g. zlib's example.o) is left out, libraries stay."""
    return tuple(a for a in ldflags if not (a.endswith(".o") and Path(a).is_file() and defines_main(Path(a))))


def defined_globals(obj: Path) -> list[str]:
    """The global symbols `obj` defines (not those it only refers to)."""
    return list(inspect_object(obj).globals)


def file_variables(obj: Path) -> list[tuple[str, str]]:
    """The data objects `obj` defines, static ones too, each as (name, "section:offset")."""
    r = inspect_object(obj)
    return [
        (s.name, f"{s.section}:{s.value}")
        for s in (*r.globals.values(), *r.locals.values())
        if s.type == "OBJECT" and s.section not in ("COMMON", "ABS") and s.name.isidentifier()
    ]


def defines_main(obj: Path) -> bool:
    r = inspect_object(obj)
    return "main" in r.globals or "main" in r.locals
