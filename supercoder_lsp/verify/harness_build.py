"""The function harness's state and its build: the generated C rendered and compiled once per folder, then
linked with each build of the function (the original, a candidate, the coverage build)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import threading
from importlib import resources
from pathlib import Path

from .. import build
from ..harness import include_dir
from ..harness.plan import Plan
from ..harness.recorded import RecordedInputs
from ..model import Coverage
from .harness_c import render_verify
from .layout import caller_draw
from .program_state import render_snapshots
from .records import BASELINE_SECONDS, MODE_RANDOM_GLOBALS, SHORT_INPUT_MS, Records
from .statics_table import table_object, write_codemap

HARNESS_SYMBOL = "sc_fn"
_COMPILING: dict[str, threading.Lock] = {}  # FunctionHarness._object: one compile of an object at a time
_COMPILING_LOCK = threading.Lock()
_COMPILING_LOW: set[str] = set()  # of them, those compiled at the lowest priority (compile_ahead)


def _pkg_dir(pkg: str) -> Path:
    return Path(str(resources.files(pkg)))


def rename_symbol(obj_in: Path, obj_out: Path, name: str, new: str) -> None:
    shutil.copyfile(obj_in, obj_out)
    build.objcopy(
        obj_out,
        f"--redefine-sym={name}={new}",
        "--rename-section",
        ".data=sc_fdata",
        "--rename-section",
        ".bss=sc_fbss,alloc",
    )


class HarnessBase:
    """Generated harness for one function: what it holds, and its build."""

    base_exe: Path  # the harness linked with the -O3 original (FunctionHarness.prepare)

    def __init__(
        self,
        workdir: Path,
        name: str,
        plan: Plan,
        *,
        n_random: int = 100_000,
        seed: int = 0x5C0DE,
        support_objs: tuple[Path, ...] = (),
        min_timeout: float = 5.0,
        states: list | None = None,
        recorded: RecordedInputs | None = None,
        link_flags: tuple[str, ...] = (),
        budget_seconds: float = BASELINE_SECONDS,
    ):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.plan = plan
        self.n_random = n_random
        self.seed = seed
        self.support_objs = tuple(Path(o) for o in support_objs)  # as given: the rest of the file, the project's
        self.support = [self._globals_visible(Path(o), i) for i, o in enumerate(support_objs)]
        self.min_timeout = min_timeout
        self.n_inputs = 0
        self.total = 0  # SC_NINPUTS, once the harness is built
        self.n_edge = 0  # SC_NEDGE: the edge inputs, first
        self.parts = 0  # how many parts each run over the inputs is split into (_cuts), once chosen
        self.base_seconds = 0.0
        self.mode = MODE_RANDOM_GLOBALS
        self.skipped = 0  # inputs on which the -O3 original itself crashes or runs out of time
        self.outside_recorded = 0  # of them: recorded calls that reach memory the recording did not keep
        self.outside_generated = 0  # and generated inputs the original reads past, where recorded calls run whole
        self.base: Records | None = None
        self.probe_run: Records | None = None  # stays_inside's last run, for the probe's reason
        self.input_ms = SHORT_INPUT_MS  # the original's limit per input (_first_run)
        self.skip_file: Path | None = None  # the inputs the original ran out of time on (not run again)
        self.only_recorded = ""  # why the generated inputs are not run: they break the original's harness
        self.narrowing = ""  # "len2 in [0, 4095]" where its integer inputs were narrowed (harness_setup)
        self.states = list(states or [])  # recorded program states (verify/program_state.Snapshot)
        self.n_states = 0
        self.recorded = recorded if recorded else None  # the program's own calls, replayed after the generated inputs
        self.n_recorded = len(recorded) if recorded else 0
        self.coverage: Coverage | None = None  # verify/coverage.Coverage, once measured (harness_setup.py)
        self.budget_seconds = min(budget_seconds, BASELINE_SECONDS)  # the original's time for the generated inputs
        self.not_run = 0  # generated inputs past that budget: not run, not compared
        self.obj: Path | None = None  # the harness's compiled object (in the folder's objects), once built
        self.link_flags = link_flags  # what the function needs from the rest of the project (libraries)
        self.base_constants: tuple[int, ...] = ()  # the original's immediates (asm/immediates.py), in order
        self.constant_bases: dict[str, Records] = {}  # the original's records of a pass of constants, by them
        self.show_from = 0  # _show: the input of record 0 (a pass from a later input) ...
        self.show_env: dict[str, str] = {}  # ... and its environment

    def _globals_visible(self, obj: Path, i: int) -> Path:
        """A copy of a support object (the rest of the file) whose writable data the harness
        can find (__start_sc_gdata...), to randomize it before and compare it after each call."""
        out = self.dir / f"support{i}.o"
        shutil.copyfile(obj, out)
        build.objcopy(out, "--rename-section", ".data=sc_gdata", "--rename-section", ".bss=sc_gbss,alloc")
        return out

    # -- building -------------------------------------------------------------
    def _render(self, blob: Path | None) -> tuple[str, str]:
        """The harness's C text, and its stamp: the text and the recorded calls' bytes it includes."""
        snaps = render_snapshots(self.states, self.support[0] if self.support else None)
        self.n_states = int(snaps.split("\n", 1)[0].split()[-1])
        text = render_verify(self.plan, self.seed, self.n_random, snaps, self.recorded, blob, caller_draw(self.name))
        # the recorded calls' bytes are in the object too (.incbin), not in the text
        stamp = text + (f"\n/* {hashlib.sha256(self.recorded.blob).hexdigest()} */\n" if self.recorded else "")
        return text, stamp

    def _build_runtime(self) -> None:
        rt = include_dir()
        src = self.dir / "harness.c"
        blob = None
        if self.recorded:
            blob = self.dir / "recorded.bin"
            blob.write_bytes(self.recorded.blob)
        text, stamp = self._render(blob)
        src.write_text(text)
        edges = re.search(r"^#define SC_NEDGE (\d+)ULL$", text, re.M)
        assert edges is not None, "render_verify defines SC_NEDGE"
        self.n_edge = int(edges[1])
        self.total = self.n_edge + self.n_random + self.n_recorded  # SC_NINPUTS: every input a run can have
        # the folder's object of this text (compiled once: the file's objects tried after the function's alone,
        # then the project's, build the same harness again: gz_comp's 1.1 s), linked where this harness is
        self.obj = self._object(text, stamp, rt)
        tramp = self.dir / "tramp.o"
        if not tramp.is_file():  # the same for every harness of the folder
            tmp = self.dir / f"tramp.{threading.get_ident()}.o"
            build.run_tool(
                ["gcc", "-c", str(_pkg_dir("supercoder_lsp.verify") / "tramp.S"), "-o", str(tmp)], "assemble trampoline"
            )
            os.replace(tmp, tramp)

    def compile_ahead(self) -> None:
        """Compile this harness's object at the lowest priority into its folder's objects, which its own build
        then takes (_object), touching nothing another harness in the folder uses: a narrowed plan's, while
        the plan before it is tried, on the core that harness's compile leaves idle (harness_setup._prepare:
        LZ4F_decompress's two narrowings, 0.5 s each). Not where recorded calls are included (their bytes
        are a file of the folder's). A harness that does not compile says so when it is built."""
        if self.recorded:
            return
        try:
            text, stamp = self._render(None)
            self._object(text, stamp, include_dir(), low=True)
        except Exception:  # noqa: BLE001 - its own build says why; or the job ended and its folder is gone
            pass

    def _object(self, text: str, stamp: str, rt: Path, low: bool = False) -> Path:
        """The compiled object of harness text `text` (its stamp: `stamp`), from the folder's objects when
        compiled there before (compile_ahead), else compiled now; one compile at a time for each, but where the one
        under way runs at the lowest priority."""
        key = hashlib.sha256(stamp.encode()).hexdigest()[:24]
        objects = self.dir / "objects"
        objects.mkdir(exist_ok=True)
        obj = objects / f"{key}.o"
        with _COMPILING_LOCK:
            lock = _COMPILING.setdefault(str(obj), threading.Lock())
            behind_low = not low and str(obj) in _COMPILING_LOW
            if low:
                _COMPILING_LOW.add(str(obj))
        if behind_low:  # compiled at the lowest priority now, which on a busy machine may wait minutes for a core:
            if not obj.is_file():  # compiled here too, beside it, at the usual priority
                self._compile_object(text, objects, key, rt, low=False)
            return obj
        try:
            with lock:
                if not obj.is_file():
                    self._compile_object(text, objects, key, rt, low=low)
        finally:
            if low:
                with _COMPILING_LOCK:
                    _COMPILING_LOW.discard(str(obj))
        return obj

    @staticmethod
    def _compile_object(text: str, objects: Path, key: str, rt: Path, low: bool) -> None:
        """One compile of harness text `text` into objects/KEY.o, from a source and into an object of its own,
        put in its place at once: two compiles of it may run at a time (_object)."""
        own = f"{key}.{threading.get_ident()}.{'low' if low else 'now'}"
        src, tmp = objects / f"{own}.c", objects / f"{own}.tmp.o"
        src.write_text(text)
        build.run_tool(
            ["gcc", "-O1", "-g0", "-w", "-I", str(rt), "-c", str(src), "-o", str(tmp)], "compile harness", low=low
        )
        os.replace(src, objects / f"{key}.c")
        os.replace(tmp, objects / f"{key}.o")

    def _built(self) -> Path:
        assert self.obj is not None, "the harness is built (_build_runtime) before it links"
        return self.obj

    def link(self, impl_obj: Path, tag: str) -> Path:
        """Link the harness with an object defining the function; raises BuildError."""
        renamed = self.dir / f"{tag}.impl.o"
        rename_symbol(impl_obj, renamed, self.name, HARNESS_SYMBOL)
        table = table_object(renamed, self.name, self.dir / f"{tag}.statics.o")
        exe = self.dir / f"{tag}.harness"
        # the rest of the file before the function: its code and tables lie at the same addresses in every
        # build, so a pointer the call leaves to one of its functions (an object's method) is the same word
        objs: list[str | os.PathLike] = [
            self._built(),
            self.dir / "tramp.o",
            *self.support,
            renamed,
            *([table] if table else []),
        ]
        build.link(objs, exe, extra=self.link_flags)
        write_codemap(exe)
        return exe

    def link_original(self, obj: Path, tag: str, extra: tuple[str, ...] = ()) -> Path:
        """Link the harness with another build of the original, whose function is already named
        `sc_fn` (verify/coverage.py); raises BuildError."""
        exe = self.dir / f"{tag}.harness"
        build.link([self._built(), self.dir / "tramp.o", obj], exe, extra=extra)
        write_codemap(exe)
        return exe

    def build_original(self, base_obj: Path) -> Path:
        """The harness linked with the original, for probing (verify/probe.py). Raises BuildError."""
        self._build_runtime()
        return self.link(base_obj, "probe")
