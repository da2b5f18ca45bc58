"""What all functions of one C file share while they are optimized: its text,
build configuration and -O3 assembly, and the objects built from it on first
use (the file's own object, the original program, the program with one
function's definition removed, the sandbox constructor)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .. import build
from ..build.debuginfo import CompiledFunction, compile_debug_object, compiled_functions
from ..build.project import ProjectLibrary, project_files, project_library
from ..harness import include_dir
from ..harness.contract import STATIC_ALIAS
from ..hotness import ProfileError, inclusive_shares
from ..model import BuildConfig, CFunction
from ..source import remove_definition
from ..source.references import first_use
from ..verify.test_suite import TestSuite, find_test_command, project_root
from .cache import content_hashes

T = TypeVar("T")


class FileContext:
    """What all functions of one file share; objects are built on first use."""

    def __init__(
        self,
        path: Path,
        text: str,
        cfg: BuildConfig,
        asm: str,
        work: Path,
        tests,
        objects: Path | None = None,
        read: tuple[Path, ...] = (),
        settled: bool = True,
    ):
        self.path, self.text, self.cfg, self.asm, self.work, self.tests = path, text, cfg, asm, work, tests
        self.objects = objects  # where the project's other files' objects are kept between runs, if anywhere
        # the files its results come from, each with its contents' hash, taken as they are read (Cache.put):
        # the file and its headers (its -O3 build's), the objects and libraries its link flags and programs
        # name, and, once a harness links them, the project's other files and theirs (link_project)
        named = (a for a in (*cfg.ldflags, *(a for program in cfg.programs for a in program)) if not a.startswith("-"))
        self.settled = settled  # False: a file changed while it was built; its results are not kept (Cache.put)
        self._inputs = content_hashes([*(read or (path,)), *(Path(a) for a in named if Path(a).is_file())])
        self._support: Path | None = None
        self._library_flags: tuple[str, ...] | None = None
        self._project_note: str | None = None  # link_project's
        self._project: ProjectLibrary | None = None  # what link_project built
        self._shares: dict[str, float] | None = None
        self._rest: dict[str, Path] = {}
        self._suite: TestSuite | str | None = None
        self._compiled: dict[str, CompiledFunction] | None = None
        self.compiled_problem: str | None = None  # why there are no types from the compiler

    def compiled(self) -> dict[str, CompiledFunction] | None:
        """Every function as the compiler saw it (a -g build with the project's flags), or None when
        that build fails (then `compiled_problem` says why, and the text's own types are used)."""
        if self._compiled is None and self.compiled_problem is None:
            obj = self.work / "debug.o"
            try:
                if not obj.is_file():  # else built beside the -O3 assembly (compile_file_kept)
                    compile_debug_object(self.path, self.cfg, obj)
                self._compiled = compiled_functions(obj)
            except build.BuildError as e:
                self.compiled_problem = f"no types from the compiler ({e.what}: {e.output.strip()[:200]})"
        return self._compiled

    def library_flags(self) -> tuple[str, ...]:
        """The project's link flags as a harness can use them (build.library_flags)."""
        if self._library_flags is None:
            self._library_flags = build.library_flags(self.cfg.ldflags, self.work / "libs")
        return self._library_flags

    def _database(self) -> Path | None:
        """The compile_commands.json the flags came from, where they came from one that is there."""
        db = self.cfg.source.removeprefix("compile_commands.json:") if self.cfg.source else ""
        return Path(db) if db and db != self.cfg.source and Path(db).is_file() else None

    def link_project(self) -> str:
        """From now on, harnesses link the project's other files (build/project.py), where the flags
        came from a compile_commands.json: a note that says so, or "" where there is nothing to link."""
        if self._project_note is None:
            self._project_note = ""
            db = self._database()
            if db is not None:
                lib = self._project = project_library(db, self.path, self.work / "project", self.objects)
                self._inputs.update(content_hashes(lib.inputs))
                self.settled = self.settled and lib.settled
                if lib.archive is not None:
                    self._library_flags = (*self.library_flags(), str(lib.archive))
                    left = f"; left out: {', '.join(lib.left_out)}" if lib.left_out else ""
                    self._project_note = (
                        f"; linked with the project's other {lib.members} file(s) from compile_commands.json{left}"
                    )
        return self._project_note

    def support_object(self, weak_refs: bool = False) -> Path:
        """The file's own object with its definitions (its function and main among them) made weak, so
        a harness can link a function that uses the file's globals or helpers; its file-scope variables
        also have global names (STATIC_ALIAS), for inputs that point at them. Its references to other
        files stay strong: a link that misses them fails, and says which (compress calls compress2,
        which calls deflateInit_ in deflate.c), instead of calling address 0. With `weak_refs` they are
        weak too: the last resort, where the function itself never reaches them."""
        if self._support is None:
            obj = self.work / "file.o"
            build.assemble(self.asm, obj)  # the file's -O3 assembly, as the function's own object is
            build.objcopy(obj, *(f"--weaken-symbol={s}" for s in build.defined_globals(obj)))
            build.objcopy(obj, *(f"--add-symbol={STATIC_ALIAS}{n}={at},global" for n, at in build.file_variables(obj)))
            self._support = obj
        if not weak_refs:
            return self._support
        weak = self.work / "file-weak.o"
        if not weak.exists():
            shutil.copyfile(self._support, weak)
            build.objcopy(weak, "--weaken")
        return weak

    def linked(self, attempt: Callable[[tuple[Path, ...]], T], needs: list[str] | tuple[str, ...] = ()) -> T:
        """`attempt(support)` with the first way of linking that works: alone; with the rest of the file;
        with the project's other files too (link_project), where symbols of other files are missing;
        last, with the rest of the file's references to other files weak. Raises the last BuildError.
        Where a symbol the harness `needs` (harness_setup.needed_symbols) is one the file defines, alone is
        not tried (a harness compiled and linked in vain: 0.5 s before trees.c's first result)."""
        err: build.BuildError | None = None
        for step in ("alone", "file", "project", "weak"):
            if step == "alone" and self._defines_any(needs):
                continue
            missing = err is not None and "undefined reference" in err.output
            if step == "project" and (not missing or self._project_note is not None or not self.link_project()):
                continue
            if step == "weak" and not missing:
                continue
            support = () if step == "alone" else (self.support_object(weak_refs=step == "weak"),)
            try:
                return attempt(support)
            except build.BuildError as e:
                err = e
        assert err is not None
        raise err

    def _defines_any(self, names: list[str] | tuple[str, ...]) -> bool:
        return any(re.search(rf"^{re.escape(n)}:", self.asm, re.M) for n in names)

    def named_elsewhere(self, fn: CFunction) -> str | None:
        """Where the project's sources use `fn`'s name outside its definition ("file:line"), or None where
        none does, so that none of its programs can call it (source/references.py). Only where the flags came
        from a compile_commands.json; elsewhere "" (unknown: it may be called)."""
        db = self._database()
        if db is None:
            return ""
        files = [self.path.resolve(), *(f for f in project_files(db) if f != self.path.resolve())]
        return first_use((fn.name, fn.source_name), files, self.path, (fn.start_byte, fn.end_byte))

    def test_suite(self, command: str | None) -> TestSuite | str | None:
        """The project's test suite, run with `command` ('auto': the one the project's build has): None
        where no command is given, else the suite, or why there is none (kept for the file's functions)."""
        command = command or build.flags.test_command_from_config(self.path)
        if not command:
            return None
        if self._suite is None:
            root = project_root(self.path.resolve())
            found = find_test_command(root) if command == "auto" else command
            self._suite = (
                TestSuite(root, self.path, found, self.cfg.compiler, self.work / "test-suite")
                if found
                else f"no test command found in {root} (no CMakeLists.txt, meson.build, or Makefile with a check "
                "or test target): give it with --test-command CMD"
            )
        return self._suite

    def own_programs(self) -> dict[str, tuple[str, ...]]:
        """The project's own programs, where its flags came from a compile_commands.json: each file of it
        that defines main (zlib's example.c and minigzip.c) by name, linked with the project's other files,
        as --program takes them; {} where there is none."""
        self.link_project()
        lib = self._project
        if lib is None:
            return {}
        archive = (str(lib.archive),) if lib.archive is not None else ()
        return {name: (str(obj), *archive, *self.cfg.ldflags) for name, obj in lib.mains.items()}

    def inputs(self) -> dict[str, str | None]:
        """Every file the results of the file's functions came from so far, with its contents' hash as it
        was read (Cache.put)."""
        return dict(self._inputs)

    def project_note(self) -> str:
        """What link_project said, where it linked the project's other files ("" where not)."""
        return self._project_note or ""

    def data_sizes(self) -> dict[str, int]:
        """Sizes of the file's data symbols, to bound a candidate's `sym+N` references."""
        from ..asm.elfcheck import inspect_object

        r = inspect_object(self.support_object())
        return {s.name: s.size for s in (*r.globals.values(), *r.locals.values()) if s.type in ("OBJECT", "NOTYPE")}

    def program_sandbox(self) -> Path:
        """The object whose constructor contains a whole program under test."""
        return program_sandbox_object(self.work)

    def baseline_program(self, contained: bool = False) -> Path:
        """The file's program as the user builds it (-O3, its functions inlined where the compiler chose);
        `contained`: with the program sandbox linked in, as every candidate program is, so that both are
        timed under one policy (without it: for the profiler, which cannot run a seccomp filter)."""
        exe = self.work / ("baseline-program-contained" if contained else "baseline-program")
        obj = self.work / "baseline-program.o"
        if not obj.exists():
            build.compile_object(self.path, self.cfg, obj)
        if not exe.exists():
            objs: list[str | os.PathLike] = [obj, self.program_sandbox()] if contained else [obj]
            build.link(objs, exe, extra=self.cfg.ldflags, compiler=self.cfg.compiler)
        return exe

    def instruction_share(self, name: str, workload: str | None, bench_input: Path | None) -> float | None:
        """The share of the program's instructions spent in `name` and what it calls, under callgrind on the
        workload (once per file); None where it cannot be measured."""
        if self._shares is None:
            try:
                self._shares = inclusive_shares(
                    str(self.baseline_program()),
                    workload=workload,
                    stdin_path=str(bench_input) if bench_input else None,
                )
            except (ProfileError, build.BuildError):
                self._shares = {}
        return self._shares.get(name)

    def rest_object(self, fn: CFunction) -> Path:
        """The file with `fn`'s definition replaced by a declaration, built with
        the project's flags: the candidate is linked in as it will live."""
        if fn.name not in self._rest:
            src = self.work / f"rest-{fn.name}.c"
            src.write_text(remove_definition(self.text, fn, make_extern=True))
            obj = self.work / f"rest-{fn.name}.o"
            build.compile_object(
                src,
                BuildConfig(
                    self.cfg.compiler,
                    # -w: the static helpers only the removed definition called are unused, and a project
                    # that makes warnings errors (cJSON: -Werror) failed there; no warning changes the code
                    (*self.cfg.flags, f"-I{self.path.resolve().parent}", "-w"),
                    self.cfg.source,
                    self.cfg.directory,
                ),
                obj,
            )
            self._rest[fn.name] = obj
        return self._rest[fn.name]


def program_sandbox_object(work: Path) -> Path:
    """The object whose constructor contains a whole program under test (built once into `work`)."""
    obj = work / "sc_program_sandbox.o"
    if not obj.exists():
        build.run_tool(
            [
                "gcc",
                "-O1",
                "-I",
                str(include_dir()),
                "-c",
                str(include_dir() / "sc_program_sandbox.c"),
                "-o",
                str(obj),
            ],
            "compile program sandbox",
        )
    return obj
