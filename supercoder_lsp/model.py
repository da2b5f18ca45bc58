"""Plain typed values that flow between the stages.

Every stage takes and returns these dataclasses; only the CLI and the language
server know about terminals and editors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

# --- source -----------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """An LSP position: 0-based line, column in UTF-16 code units."""

    line: int
    character: int


@dataclass(frozen=True)
class Range:
    start: Position
    end: Position


# A private struct behind a handle (CType.owned): the offset of the handle's pointer to it, the struct, the
# offsets of its pointers back to the handle, and its pointers to plain data: (offset, element size, the
# offset and count of its own array of that element, or 0, 0), from build/debuginfo.py _data_pointers
Owned = tuple[int, "CType", tuple[int, ...], tuple[tuple[int, int, int, int], ...]]


@dataclass(frozen=True)
class CType:
    """A C type reduced to what the harness needs.

    kind is one of "int", "bool", "float", "pointer", "void", "struct", "other"; a function pointer is
    "other" whose pointee is "function" (types from the compiler only).
    bits is the width of ints and floats (8/16/32/64), 64 for pointers, 0 otherwise.
    For pointers, pointee is the pointed-to type and const says whether it is const.
    A "struct" (or union) has a known layout (types from the compiler): its size in bytes and
    its scalar leaves, nested records and arrays included: (byte offset, kind, bits, signed),
    kind "int", "bool", "float" or "pointer".
    """

    text: str
    kind: str
    bits: int = 0
    signed: bool = False
    pointee: CType | None = None
    const: bool = False
    size: int = 0
    fields: tuple[tuple[int, str, int, bool], ...] = ()
    # a parameter's struct only: its direct pointer members that hold code (function pointers), and those
    # that point to a private struct pointing back to it (z_stream's `state`, whose `strm` is the stream):
    # (Owned, above)
    code_offsets: tuple[int, ...] = ()
    owned: tuple[Owned, ...] = ()
    code_kinds: tuple[str, ...] = ()  # per function pointer: "alloc" (zalloc), "free" (zfree) or ""
    # a parameter's struct only: its own pointers to plain data, as Owned's (deflate_state *s in trees.c)
    data: tuple[tuple[int, int, int, int], ...] = ()
    # a parameter's struct only: its pointers to a const struct of which the file defines instances (trees.c's
    # tree_desc.stat_desc and static_l_desc, static_d_desc, static_bl_desc): (offset, ((symbol, byte offset
    # in it), ...)); generated inputs point there
    statics: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = ()
    # the byte ranges [start, end) of its array members of debuginfo.ARRAY_RUN or more elements, whose
    # elements generated inputs draw as one (harness/inputs_c.py): inflate_state's codes[1444]
    arrays: tuple[tuple[int, int], ...] = ()

    @property
    def pointer_offsets(self) -> tuple[int, ...]:
        return tuple(o for o, kind, _, _ in self.fields if kind == "pointer")

    @property
    def is_scalar(self) -> bool:
        return self.kind in ("int", "bool", "float")


@dataclass(frozen=True)
class Param:
    name: str
    type: CType


@dataclass(frozen=True)
class Signature:
    ret: CType
    params: tuple[Param, ...]
    variadic: bool = False

    def __str__(self) -> str:
        ps = ", ".join(f"{p.type.text} {p.name}".strip() for p in self.params) or "void"
        if self.variadic:
            ps += ", ..."
        return f"{self.ret.text} ({ps})"


@dataclass(frozen=True)
class CFunction:
    """One function definition found in a C file."""

    name: str
    range: Range  # the whole definition
    name_range: Range  # the identifier
    signature: Signature | None  # None when the declarator could not be understood
    text: str  # source text of the definition
    start_byte: int
    end_byte: int
    body_start_byte: int  # offset of the opening brace of the body
    has_loops: bool
    loop_depth: int  # deepest loop nesting
    calls_in_loops: int
    is_static: bool
    is_inline: bool
    source_name: str = ""  # where a macro renames it (lz4's XXH_NAMESPACE), `name` is the compiler's, this the text's


# --- build ------------------------------------------------------------------


@dataclass(frozen=True)
class BuildConfig:
    """How the project compiles a file: compiler, flags, and where that came from."""

    compiler: str  # "gcc", "clang", "/usr/bin/cc", ...
    flags: tuple[str, ...]  # without -c/-S/-o and without the source file
    source: str  # "compile_commands.json:/path", "config:/path/.supercoder.toml", "command line", "default"
    directory: str  # working directory for the compile
    ldflags: tuple[str, ...] = ()  # libraries and linker flags a whole program of the file needs
    dropped: tuple[str, ...] = ()  # the project's flags left out (debug info, LTO): the report says so
    # other programs that call the file's functions (each its objects and libraries, the file's own code
    # linked in): the function's calls are recorded in them too, run as the workload says
    programs: tuple[tuple[str, ...], ...] = ()


# --- proposers ---------------------------------------------------------------


@dataclass(frozen=True)
class SourceChange:
    """A source-level change that reproduces a candidate's win."""

    kind: str  # "attribute", "flag", "compiler", "body"
    text: str  # e.g. '__attribute__((target("popcnt")))' or '-march=native'
    description: str
    function: str | None = None  # for "body": the function whose body it replaces, when not this one


@dataclass
class Candidate:
    """One proposed replacement assembly for one function."""

    function: str
    assembly: str  # self-contained: assembles alone into an object defining `function`
    origin: str  # "compilers:clang -O3 -march=native", "replay:DIR/f/good.s", ...
    label: str  # short unique name within the function, used for files
    source_change: SourceChange | None = None
    problem: str | None = (
        None  # set when the proposer already knows it cannot assemble (e.g. no such function in the file)
    )


# --- verdicts and measurements ------------------------------------------------


class Status(StrEnum):
    """A candidate's verdict. A StrEnum: it is its own JSON value ("accepted")."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"


class Reason(StrEnum):
    """Why a candidate was rejected: correctness and safety first, then speed."""

    ASSEMBLE_ERROR = "assemble-error"
    UNUSABLE = "unusable"  # a reply or file that holds no assembly of the function (no code block, another function)
    LINK_ERROR = "link-error"
    UNSAFE = "unsafe"
    WRONG_OUTPUT = "wrong-output"
    CRASH = "crash"
    TIMEOUT = "timeout"
    ABI_VIOLATION = "abi-violation"
    UNDER_TESTED = "under-tested"  # right on every input, but the inputs run too little of the function
    UNSUPPORTED_CPU = "unsupported-cpu"
    NOT_FASTER = "not-faster"
    DUPLICATE = "duplicate"


ACCEPTED = Status.ACCEPTED
REJECTED = Status.REJECTED
REASONS = tuple(r.value for r in Reason)
RUNNING = "running"  # a FunctionResult's status while candidates are still being tried (progress updates)


@dataclass
class Timing:
    """A speedup measured side by side: t(baseline)/t(candidate), > 1 is faster."""

    method: str  # "interleaved" or "hyperfine"
    speedup: float  # median ratio
    ci: tuple[float, float]  # 95% interval of the ratio
    noise: tuple[float, float] | None = None  # A/A interval measured in the same run
    significant: bool = False  # faster beyond the noise floor (in every alignment)
    per_alignment: list[dict] = field(default_factory=list)
    samples: dict = field(default_factory=dict)  # raw samples (ns per call or seconds per run)
    detail: str = ""
    interim: str = ""  # "1 of 5 timing passes so far": a win the editor shows before its timing ends


@dataclass
class CandidateResult:
    label: str
    origin: str
    status: str  # ACCEPTED or REJECTED
    reason: str | None  # a Reason when rejected
    detail: str  # human-readable: the failing input, the clobbered register, ...
    assembly: str
    features: list[str] = field(default_factory=list)  # notable instructions the baseline lacks
    cpu_features: list[str] = field(default_factory=list)  # CPU flags the candidate needs
    inputs_checked: int = 0
    tests_passed: int = 0
    timing: Timing | None = None
    program_timing: Timing | None = None
    source_change: SourceChange | None = None
    stage_seconds: dict[str, float] = field(default_factory=dict)
    proof: str | None = None  # "proven equal on all 2^32 inputs (exhaustive, 31.0s)", when proven
    inputs_domain: str | None = None  # "len2 in [0, 4095]": the harness's inputs were narrowed to it
    proving: bool = False  # shown while a proof that may refute it runs (progress only): tested, not yet proven

    @property
    def speedup(self) -> float | None:
        """The deciding speedup: the function's own timing, else the whole program's (results.deciding_timing)."""
        t = self.timing or self.program_timing
        return t.speedup if t else None


@dataclass
class FunctionResult:
    name: str
    range: Range | None
    signature: str
    status: str  # "done", "unsupported", "error", or RUNNING
    detail: str
    hotness: float
    baseline_assembly: str = ""
    harness: str = ""  # what the function-level harness could do, or why not
    candidates: list[CandidateResult] = field(default_factory=list)
    best: str | None = None  # label of the best accepted candidate
    cached: bool = False
    stage_seconds: dict[str, float] = field(default_factory=dict)
    # what its inputs ran: {"generated", "recorded" (inputs), "lines", "percent", "generated_percent", "missed"}
    coverage: dict | None = None
    source_name: str = ""  # its name in the text, where a macro gives it another (`name`, the compiler's)

    def best_result(self) -> CandidateResult | None:
        for c in self.candidates:
            if c.label == self.best:
                return c
        return None


@dataclass
class Coverage:
    """Lines of the function (that hold code) that its inputs ran."""

    lines: int
    generated: int  # ran on the generated inputs
    recorded: int | None = None  # ran on the generated and the program's recorded calls; None: none recorded
    missed: list[int] = field(default_factory=list)  # line numbers no input ran

    @property
    def percent(self) -> int:
        """Of all inputs the harness runs."""
        reached = self.recorded if self.recorded is not None else self.generated
        return round(100 * reached / self.lines) if self.lines else 100

    @property
    def generated_percent(self) -> int:
        return round(100 * self.generated / self.lines) if self.lines else 100

    def describe(self) -> str:
        s = f"generated inputs reach {self.generated_percent}% of its {self.lines} lines"
        if self.recorded is not None:
            s += f", with the program's recorded calls {self.percent}%"
        if self.missed:
            s += f" (never run: {self.never()})"
        return s

    def never(self) -> str:
        """'lines 21-24, 26'"""
        return f"line{'s' if len(self.missed) > 1 else ''} {_spans(self.missed)}"


def _spans(lines: list[int]) -> str:
    out: list[str] = []
    for n in sorted(lines):
        if out and re.fullmatch(rf"(\d+-)?{n - 1}", out[-1]):
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out[:8]) + (", ..." if len(out) > 8 else "")


@dataclass
class Report:
    """One C file's run (`Pipeline.run`): its environment and every function's result."""

    path: str
    environment: dict
    functions: list[FunctionResult]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    program: dict = field(default_factory=dict)  # what a training row of this run needs (export)
    fingerprints: dict[str, str] = field(default_factory=dict)  # the C verified, by function (apply)


@dataclass
class ReplacementCheck:
    """The edited file (the function replaced by its verified assembly), rebuilt and checked."""

    ok: bool  # builds, verified, and not slower
    faster: bool
    detail: str
    speedup: float | None = None
    ci: tuple[float, float] | None = None
    inputs: int = 0
    edited: str = ""  # the edited file's text
    written: bool = False  # `replace --write` wrote it
