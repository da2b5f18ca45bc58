"""The state the program really has when it calls the function.

A function that reads its file's globals behaves on the globals the program
gives it: a table that `main` fills, a mode flag it sets. Random and initial
contents miss those. Where program tests or a bench input or workload exist, the
-O3 program runs once on each with a recording stub in front of the function
(harness/sc_record.S, harness/sc_record.c): at its 1st, 100th and 10,000th call
it writes the file's writable globals to a descriptor of its own. The snapshots
are matched to the function harness's copy of the globals by symbol name and
size, and replayed as the starting state of some of the harness's inputs. The same runs
record the function's arguments and the memory they point to (harness/recorded.py), which
the harness replays as inputs of their own.

The recorded program is the user's own -O3 build (no candidate code runs), so it
runs with the usual limits but without the seccomp filter, which would stop it
from writing the snapshots.
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from .. import build
from ..harness import include_dir
from ..harness.plan import Plan
from ..harness.recorded import RecordedInputs, parse_records, render_recorder
from .program import command_for
from .sandbox import run_limited
from .test_suite import TestSuite

MAX_SNAPSHOTS = 12
MAX_BYTES = 1 << 20  # of globals per snapshot that are worth replaying
RECORD_MAGIC = 0x5C5A7E


@dataclass
class Snapshot:
    """The bytes of the program's writable globals at one call, by symbol name."""

    call: int
    values: dict[str, bytes]


@dataclass(frozen=True)
class Placement:
    section: int  # 0: sc_gdata, 1: sc_gbss (the harness's names for the file's .data and .bss)
    offset: int
    size: int


def data_symbols(obj: Path, sections: tuple[str, ...]) -> dict[str, tuple[int, int, int]]:
    """name -> (section index in `sections`, offset, size) for data symbols whose name is
    unique in the object and that hold no address (no relocation inside them)."""
    seen: dict[str, int] = {}
    out: dict[str, tuple[int, int, int]] = {}
    with open(obj, "rb") as fh:
        elf = ELFFile(fh)
        names = {i: s.name for i, s in enumerate(elf.iter_sections())}
        relocated: dict[str, list[int]] = {}
        for rsec in elf.iter_sections():
            if isinstance(rsec, RelocationSection):
                target = names.get(rsec["sh_info"], "")
                relocated.setdefault(target, []).extend(r["r_offset"] for r in rsec.iter_relocations())
        symtab = elf.get_section_by_name(".symtab")
        if not isinstance(symtab, SymbolTableSection):
            return {}
        for sym in symtab.iter_symbols():
            if sym["st_info"]["type"] != "STT_OBJECT" or not isinstance(sym["st_shndx"], int) or not sym.name:
                continue
            seen[sym.name] = seen.get(sym.name, 0) + 1
            where = names.get(sym["st_shndx"], "")
            if where not in sections or not sym["st_size"]:
                continue
            lo, size = sym["st_value"], sym["st_size"]
            if any(lo <= off < lo + size for off in relocated.get(where, [])):
                continue  # a pointer: its value means nothing in another process
            out[sym.name] = (sections.index(where), lo, size)
    return {k: v for k, v in out.items() if seen.get(k) == 1}


@dataclass
class Recording:
    """What the program's own runs showed of the function: its globals at some calls, its arguments at others."""

    states: list[Snapshot] = field(default_factory=list)
    inputs: RecordedInputs | None = None
    runs: int = 0
    failed: list[str] = field(default_factory=list)  # runs that ended badly, said in the report
    found: str = ""  # where the programs came from, where the user named none ("the project's own ...")


def _recorder(
    rest_obj: Path,
    base_obj: Path,
    function: str,
    workdir: Path,
    compiler: str,
    ldflags: tuple[str, ...],
    plan: Plan | None,
) -> tuple[Path, dict]:
    """The -O3 program with the recording stub in front of `function`."""
    objs, layout = recording_objects(rest_obj, base_obj, function, workdir, plan)
    exe = workdir / "program.rec"
    build.link(objs, exe, extra=ldflags, compiler=compiler)
    return exe, layout


def recording_objects(
    rest_obj: Path, base_obj: Path, function: str, workdir: Path, plan: Plan | None
) -> tuple[list[str | os.PathLike], dict]:
    """The file's objects with the recording stub in front of `function` (its calls' arguments to
    SC_ARGS_FD, or to a file of their own per process in SC_ARGS_DIR), and the layout of its globals."""
    rest = workdir / "rest.rec.o"
    shutil.copyfile(rest_obj, rest)
    build.objcopy(rest, "--rename-section", ".data=sc_rdata", "--rename-section", ".bss=sc_rbss,alloc")
    impl = workdir / "impl.rec.o"
    shutil.copyfile(base_obj, impl)
    build.objcopy(impl, f"--redefine-sym={function}=sc_impl_{function}")
    stub_src = (resources.files("supercoder_lsp.harness") / "sc_record.S").read_text().replace("@FN@", function)
    stub = workdir / "stub.rec.o"
    build.assemble(stub_src, stub)
    rec = workdir / "record.rec.o"
    build.run_tool(
        ["gcc", "-O1", "-fPIC", "-w", "-c", str(include_dir() / "sc_record.c"), "-o", str(rec)],
        "compile state recorder",
    )
    objs: list[str | os.PathLike] = [rest, impl, stub, rec]
    if plan is not None and plan.supported:
        src = workdir / "args.rec.c"
        src.write_text(render_recorder(plan))
        objs.append(workdir / "args.rec.o")
        build.run_tool(["gcc", "-O1", "-fPIC", "-w", "-c", str(src), "-o", str(objs[-1])], "compile argument recorder")
    return objs, data_symbols(rest, ("sc_rdata", "sc_rbss"))


def _parse(data: bytes, layout: dict[str, tuple[int, int, int]]) -> list[Snapshot]:
    out: list[Snapshot] = []
    pos = 0
    while pos + 32 <= len(data) and len(out) < MAX_SNAPSHOTS:
        magic, call, n_data, n_bss = struct.unpack_from("<4Q", data, pos)
        pos += 32
        if magic != RECORD_MAGIC or pos + n_data + n_bss > len(data):
            break
        regions = (data[pos : pos + n_data], data[pos + n_data : pos + n_data + n_bss])
        pos += n_data + n_bss
        values = {
            name: regions[sec][off : off + size]
            for name, (sec, off, size) in layout.items()
            if off + size <= len(regions[sec])
        }
        out.append(Snapshot(call, values))
    return out


def record_program(
    rest_obj: Path,
    base_obj: Path,
    function: str,
    workdir: Path,
    *,
    plan: Plan | None = None,
    compiler: str = "gcc",
    ldflags: tuple[str, ...] = (),
    stdin_files: list[Path] | tuple[Path, ...] = (),
    workload: str | None = None,
    programs: tuple[tuple[str, ...], ...] = (),
    suite: TestSuite | None = None,
) -> Recording:
    """The file's globals at the function's calls and (with a harness `plan`) its arguments, over
    the program's own inputs, and over the runs of the other `programs` (each its objects and
    libraries, run as the workload says or else with no arguments). Raises BuildError when the
    recording program does not build; another program that does not build is said in `failed`."""
    workdir.mkdir(parents=True, exist_ok=True)
    out = Recording(inputs=RecordedInputs() if plan is not None and plan.supported else None)
    # (argv, stdin, what, cwd): the user's workload runs where the user runs the tool (its paths are
    # relative to there); a program run with no arguments runs in a scratch folder (example.c writes foo.gz)
    runs: list[tuple[list[str], str | None, str, str | None]] = []
    layout: dict[str, tuple[int, int, int]] | None = None
    try:
        exe, layout = _recorder(rest_obj, base_obj, function, workdir, compiler, ldflags, plan)
        runs += [([str(exe)], str(f), Path(f).name, None) for f in stdin_files]
        if workload:
            runs.append((["/bin/sh", "-c", command_for(exe, None, workload)], None, "the workload", os.getcwd()))
    except build.BuildError as e:
        if not programs and suite is None:
            raise
        if stdin_files:  # a library file's calls come from the other programs; its tests had none to run
            out.failed.append(f"the tests' program: does not link ({e.what})")
    for k, objs in enumerate(programs):
        name = f"program {Path(objs[0]).name if objs else k + 1}"
        (workdir / f"p{k}").mkdir(exist_ok=True)
        try:
            other, layout = _recorder(rest_obj, base_obj, function, workdir / f"p{k}", compiler, objs, plan)
        except build.BuildError as e:
            lines = e.output.splitlines() or [e.what]
            why = next((x for x in lines if "undefined reference" in x or "cannot find" in x), lines[-1])
            out.failed.append(f"{name}: does not link ({why.strip()[:200]})")
            continue
        if workload:
            runs.append((["/bin/sh", "-c", command_for(other, None, workload)], None, name, os.getcwd()))
        else:
            runs.append(([str(other)], None, name, None))
    if suite is not None and out.inputs is not None and plan is not None:
        _record_suite(suite, rest_obj, base_obj, function, workdir / "suite", plan, out)
    if layout is None or (not layout and out.inputs is None):
        return out
    snaps: list[Snapshot] = []
    for argv, stdin, what, cwd in runs:
        snaps += _recorded_run(argv, stdin, what, cwd, workdir, layout, plan, out, len(snaps))
    unique: dict[tuple, Snapshot] = {}
    for s in snaps:
        unique.setdefault(tuple(sorted(s.values.items())), s)
    out.states = list(unique.values())[:MAX_SNAPSHOTS]
    return out


def _recorded_run(
    argv: list[str],
    stdin: str | None,
    what: str,
    cwd: str | None,
    workdir: Path,
    layout: dict[str, tuple[int, int, int]],
    plan: Plan | None,
    out: Recording,
    have: int,
) -> list[Snapshot]:
    """One run of a recording program: its calls' arguments added to `out.inputs`, its snapshots of the
    globals returned (none once `have` reach MAX_SNAPSHOTS)."""
    snaps: list[Snapshot] = []
    fds = [tempfile.mkstemp(prefix="sc-rec-", dir=workdir) for _ in range(2)]
    try:
        r = run_limited(
            argv,
            timeout=60,
            stdin_path=stdin,
            pass_fds=tuple(fd for fd, _ in fds),
            env={"SC_RECORD_FD": str(fds[0][0]), "SC_ARGS_FD": str(fds[1][0])},
            cwd=cwd,
            binary=True,
        )
        out.runs += 1
        if r.timed_out or r.returncode != 0:
            out.failed.append(f"{what}: {'timed out' if r.timed_out else f'exit code {r.returncode}'}")
        if layout and have < MAX_SNAPSHOTS:
            snaps = _parse(Path(fds[0][1]).read_bytes(), layout)
        if out.inputs is not None and plan is not None:
            out.inputs = parse_records(Path(fds[1][1]).read_bytes(), plan, out.inputs)
    finally:
        for fd, path in fds:
            os.close(fd)
            os.unlink(path)
    return snaps


def _record_suite(
    suite: TestSuite, rest_obj: Path, base_obj: Path, function: str, workdir: Path, plan: Plan, out: Recording
) -> None:
    """The calls of `function` over the project's test suite, added to `out.inputs`."""
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        objs, _ = recording_objects(rest_obj, base_obj, function, workdir, plan)
        merged = workdir / "recording.o"
        build.run_tool(["ld", "-r", "-o", str(merged), *map(str, objs)], "merge the recording object")
    except build.BuildError as e:
        out.failed.append(f"the test suite: its recording object could not be built ({e.what})")
        return
    run = suite.run(merged, function)
    out.runs += 1
    problem = run.problem(suite.file.name)
    if problem:
        out.failed.append(problem)
        return
    if run.returncode != 0:
        out.failed.append(f"the test suite ({run.command}): exit code {run.returncode}")
    for f in run.record_files:
        out.inputs = parse_records(f.read_bytes(), plan, out.inputs)
    out.found = out.found or f"the project's test suite ({suite.command})"


def render_snapshots(snaps: list[Snapshot], support_obj: Path | None) -> str:
    """C data for the harness: each snapshot as (section, offset, length, bytes) entries
    placed on the harness's copy of the globals (sc_gdata / sc_gbss)."""
    entries: list[list[tuple[int, int, bytes]]] = []
    if support_obj is not None and snaps:
        where = data_symbols(support_obj, ("sc_gdata", "sc_gbss"))
        for s in snaps:
            ents = [
                (where[n][0], where[n][1], b)
                for n, b in sorted(s.values.items())
                if n in where and where[n][2] == len(b)
            ]
            if ents and sum(len(b) for _, _, b in ents) <= MAX_BYTES:
                entries.append(ents)
    lines = [
        f"#define SC_NSNAP {len(entries)}",
        "typedef struct { int sec; unsigned off, len; const unsigned char *bytes; } sc_snap_entry;",
    ]
    for k, ents in enumerate(entries):
        for j, (_, _, b) in enumerate(ents):
            lines.append(f"static const unsigned char sc_snap{k}_{j}[] = {{{', '.join(str(x) for x in b)}}};")
        body = ", ".join(f"{{{sec}, {off}, {len(b)}, sc_snap{k}_{j}}}" for j, (sec, off, b) in enumerate(ents))
        lines.append(f"static const sc_snap_entry sc_snap{k}[] = {{{body}}};")
    lines.append(
        "static const sc_snap_entry *const sc_snaps[] = {"
        + ", ".join(f"sc_snap{k}" for k in range(len(entries)))
        + ("" if entries else "0")
        + "};"
    )
    lines.append(
        "static const unsigned sc_snap_len[] = {"
        + ", ".join(str(len(e)) for e in entries)
        + ("" if entries else "0")
        + "};"
    )
    return "\n".join(lines)
