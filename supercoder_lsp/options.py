"""The run's options, each declared once.

A field of `Options` carries everything about its option: type (the annotation),
default, bounds, help, command-line flags and the editor's setting key. From these
declarations come the `supercoder optimize` arguments (`add_arguments`,
`from_namespace`), the validation of editor settings (`check`), the argument list the
language server gives its workers (`to_argv`) and the VS Code schema test. Adding an
option is one field here plus its use.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .propose.registry import NAMES as PROPOSER_NAMES

# offline, on every machine: other compilers and flags, and builtin expressions for scalar bit loops
DEFAULT_PROPOSERS = ("compilers", "synth")


class InputError(ValueError):
    """Bad input from the user: the message says what to do."""


@dataclass(frozen=True)
class Spec:
    help: str
    flags: tuple[str, ...] = ()  # on the command line; () = not there
    setting: str | None = None  # the editor's key (camelCase); None = not an editor setting
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] | None = None
    pattern: str | None = None  # a regular expression a string must match
    what: str | None = None  # how a value is described in an error, when the type does not say it
    metavar: str | None = None
    item: str = "value"  # what one element of a list is called
    negate: bool = False  # a bool shown as --no-X that turns the option off
    repeat: bool = False  # given once per value (-f a -f b)


def option(default, *flags: str, help: str, **spec) -> typing.Any:
    """A dataclass field that declares an option (see `Spec`)."""
    meta = {"spec": Spec(help=help, flags=flags, **spec)}
    if isinstance(default, (list, dict, tuple)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def _bound(text: str) -> tuple[str, str, list]:
    """FUNCTION.PARAM=LOW:HIGH or PARAM=LOW:HIGH"""
    try:
        lhs, rhs = text.split("=", 1)
        lo, hi = rhs.split(":", 1)
        fn, _, param = lhs.rpartition(".")
        if any(c in lo + hi for c in ".eE") and not lo.lower().startswith("0x"):
            return fn, param, [float(lo), float(hi)]
        return fn, param, [int(lo, 0), int(hi, 0)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not FUNCTION.PARAM=LOW:HIGH (e.g. arrmax.n=0:1000)") from None


@dataclass
class Options:
    """What one run does. Defaults are the command line's and the editor's."""

    proposers: tuple[str, ...] = option(
        (),
        "-p",
        "--proposer",
        setting="proposers",
        choices=PROPOSER_NAMES,
        item="proposer",
        help="comma-separated proposers (default: compilers,synth, or replay when --candidates is given)",
    )
    samples: int = option(
        8, "-n", "--samples", setting="samples", lo=1, hi=1024, help="candidates per proposer per function (best-of-N)"
    )
    functions: tuple[str, ...] = option(
        (), "-f", "--function", repeat=True, help="optimize this function (repeatable); default: the top-k hot ones"
    )
    top: int = option(3, "-k", "--top", setting="topFunctions", lo=1, hi=50, help="how many hot functions to optimize")
    candidates_dir: Path | None = option(
        None, "--candidates", setting="candidatesDir", help="replay proposer: DIR/<function>/*.s"
    )
    tests_dir: Path | None = option(
        None,
        "--tests",
        setting="tests",
        help="program tests: DIR of NAME.in / NAME.out pairs (exact stdout match)",
    )
    bench_input: Path | None = option(
        None, "--bench-input", setting="benchInput", help="stdin for whole-program timing and profiling"
    )
    workload: str | None = option(
        None,
        "--workload",
        setting="workload",
        help="command for whole-program timing and profiling; {exe} stands for the program",
    )
    bounds: dict[str, dict[str, list]] = option(
        {},
        "--bound",
        repeat=True,
        metavar="FUNC.PARAM=LO:HI",
        help="input bounds for a parameter (for an array or string: its length)",
    )  # function -> param -> [lo, hi]
    n_random: int = option(
        100_000, "--inputs", setting="inputs", lo=0, hi=10_000_000, help="random inputs for the function harness"
    )
    min_coverage: int = option(
        70,
        "--min-coverage",
        setting="minCoverage",
        lo=0,
        hi=100,
        help="percent of a function's lines its harness inputs must run before a result counts (measured with gcov)",
    )
    proof_budget: float = option(
        30.0,
        "--proof-budget",
        setting="proofBudget",
        lo=0,
        hi=3600,
        help="seconds for proving a scalar candidate equal on every input (exhaustive, up to 32 bits of input)",
    )
    synth_budget: float = option(
        4.0,
        "--synth-budget",
        setting="synthBudget",
        lo=0.1,
        hi=600,
        help="seconds of enumeration per function and round for the synth proposer",
    )
    rounds: int = option(100, "--rounds", lo=6, hi=100_000, help="interleaved timing rounds per alignment")
    min_speedup: float = option(
        1.02, "--min-speedup", lo=1.0, hi=100, help="smallest speedup ever claimed (a significance threshold)"
    )
    compiler: str | None = option(None, "--cc", help="compiler (overrides compile_commands.json and .supercoder.toml)")
    flags: str | None = option(
        None,
        "--cflags",
        setting="flags",
        what="a string of compiler flags",
        help="compiler flags as one string, e.g. --cflags='-O2 -march=x86-64-v3' "
        "(overrides compile_commands.json and .supercoder.toml)",
    )
    ldflags: str | None = option(
        None,
        "--ldflags",
        help="libraries and linker flags of the whole program, e.g. --ldflags='-lz -lpthread' "
        "(overrides .supercoder.toml [build] ldflags)",
    )
    programs: tuple[str, ...] = option(
        (),
        "--program",
        repeat=True,
        metavar="'OBJS LIBS'",
        help="another program that calls the file's functions, as its objects and libraries, e.g. "
        "--program='test/infcover.o libz.a' (repeatable; the file's own code is linked in): the function's calls "
        "are recorded in it too, run as --workload says or else with no arguments (overrides .supercoder.toml "
        "[build] programs)",
    )
    test_command: str | None = option(
        None,
        "--test-command",
        metavar="CMD",
        help="the project's test command, or 'auto' (CTest, meson test, make check or make test, as the project "
        "has them): the project is built and tested in a copy, with a compiler that puts a recording object in "
        "place of the file's, and each function's calls in the tests become inputs (overrides .supercoder.toml "
        "[build] test-command)",
    )
    compile_timeout: float = option(
        120.0, "--compile-timeout", lo=1, hi=3600, help="seconds before a compiler run counts as hung"
    )
    baseline_seconds: float = option(
        20.0,
        "--baseline-seconds",
        lo=1,
        hi=120,
        help="seconds the -O3 original may spend on the generated inputs; those it has not reached by then are "
        "not run, for it or any candidate (the report says how many)",
    )
    own_programs: bool = option(
        True,
        "--no-own-programs",
        negate=True,
        help="never run the project's own programs (compile_commands.json's files with main) to record a "
        "function's calls where generated inputs give it no harness (or it takes a handle to a private state, as "
        "z_stream) and no tests, workload or program is given",
    )
    use_cache: bool = option(True, "--no-cache", negate=True, help="do not read or write the results cache")
    cache_dir: Path | None = option(
        None, "--cache-dir", setting="cacheDir", help="results cache directory (default: the user cache dir)"
    )
    keep_dir: Path | None = option(None, "--keep-work", help="keep every intermediate file in this directory")
    seed: int = option(0x5C0DE, help="seed of the generated inputs and timing layouts")
    refine: int = option(2, "--refine", setting="refine", lo=0, hi=10, help="refinement rounds for model proposers")
    openai_base_url: str | None = option(
        None,
        "--base-url",
        setting="baseUrl",
        pattern=r"^https?://",
        what="an http(s) URL such as http://127.0.0.1:8000/v1",
        help="openai proposer: an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)",
    )
    openai_model: str | None = option(
        None,
        "--model",
        setting="model",
        help="openai proposer: the model name the server serves (default: ask the server, when it serves one)",
    )
    temperature: float = option(
        0.7, "--temperature", setting="temperature", lo=0, hi=2, help="model sampling temperature"
    )
    template: Path | None = option(
        None, "--template", help="prompt template file ({c_code}, {assembly}, {function}); default: SuperCoder's"
    )
    hf_model: Path | None = option(
        None, "--hf-model", setting="hfModel", help="hf and vllm proposers: the model (a directory with local weights)"
    )
    max_new_tokens: int = option(2048, "--max-new-tokens", lo=16, hi=131_072, help="longest model reply, in tokens")
    model_timeout: float = option(
        120.0,
        "--model-timeout",
        lo=1,
        hi=3600,
        help="openai proposer: seconds per request before it counts as failed (2 retries)",
    )

    def __post_init__(self) -> None:
        if not self.proposers:
            self.proposers = ("replay",) if self.candidates_dir else DEFAULT_PROPOSERS


# -- the declarations, read back ------------------------------------------------


@dataclass(frozen=True)
class Declared:
    name: str  # the attribute
    kind: type  # int, float, str, bool, Path, tuple (of str), dict (bounds)
    optional: bool  # None is a value
    default: typing.Any
    spec: Spec

    @property
    def long_flag(self) -> str:
        return next(f for f in reversed(self.spec.flags) if f.startswith("--"))


def declared(cls: type = Options) -> Iterator[Declared]:
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("spec")
        if spec is None:
            continue
        hint = hints[f.name]
        args = typing.get_args(hint)
        optional = type(None) in args
        base = next((a for a in args if a is not type(None)), hint) if optional else hint
        kind = typing.get_origin(base) or base
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        yield Declared(f.name, kind, optional, default, spec)


def describe(d: Declared) -> str:
    """How a valid value is described in an error message."""
    s = d.spec
    if s.what:
        return s.what
    if d.kind is tuple and s.choices:
        return f"a non-empty list of {', '.join(s.choices)}"
    if d.kind is bool:
        return "true or false"
    noun = {int: "an integer", float: "a number", Path: "a path", str: "a string"}.get(d.kind, d.kind.__name__)
    if s.lo is not None and s.hi is not None:
        return f"{noun} from {s.lo:g} to {s.hi:g}"
    return noun


def check(d: Declared, value) -> typing.Any:
    """`value` as the option's type, or ValueError saying what it must be. Editor settings
    and command-line arguments are both checked here."""
    bad = ValueError(f"must be {describe(d)}")
    if value is None:
        if d.optional:
            return None
        raise bad
    if d.kind is bool:
        if not isinstance(value, bool):
            raise bad
        return value
    if d.kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float) if d.kind is float else int):
            raise bad
        if (d.spec.lo is not None and value < d.spec.lo) or (d.spec.hi is not None and value > d.spec.hi):
            raise bad
        return value
    if d.kind is tuple:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)):
            raise bad
        items = tuple(str(x).strip() for x in items if str(x).strip())
        unknown = [x for x in items if d.spec.choices and x not in d.spec.choices]
        if unknown:
            raise ValueError(f"must be {describe(d)}: unknown {d.spec.item} {', '.join(map(repr, unknown))}")
        if not items:
            raise bad
        return items
    if not isinstance(value, (str, Path)):
        raise bad
    if d.spec.pattern and not re.match(d.spec.pattern, str(value)):
        raise bad
    return Path(value) if d.kind is Path else str(value)


# -- the command line -------------------------------------------------------------


def _arg_type(d: Declared):
    def convert(text: str):
        try:
            value = d.kind(text) if d.kind in (int, float) else text
            return check(d, value)
        except ValueError as e:
            raise argparse.ArgumentTypeError(f"{text!r}: {e}") from None

    return convert


REPLACE_OPTIONS = frozenset({"n_random", "compiler", "flags"})  # what `supercoder replace` takes
EVAL_OPTIONS = frozenset(  # what `supercoder eval` takes (each problem's build and tests come from the dataset)
    {
        "proposers", "samples", "candidates_dir", "n_random", "min_coverage", "proof_budget", "rounds", "min_speedup",
        "use_cache", "cache_dir", "seed", "openai_base_url", "openai_model", "temperature", "template", "hf_model",
        "max_new_tokens", "model_timeout", "compile_timeout", "baseline_seconds",
    }
)  # fmt: skip


def add_arguments(p: argparse.ArgumentParser, only: frozenset[str] | None = None) -> None:
    """One argument per declared option that has flags; every default is None ("not given")."""
    for d in declared():
        s = d.spec
        if not s.flags or (only is not None and d.name not in only):
            continue
        default = "" if d.default in (None, (), {}) or d.kind is bool else f" (default {d.default})"
        kw: dict = {"dest": d.name, "default": None, "help": s.help + default}
        if d.kind is bool:
            kw["action"] = "store_const"
            kw["const"] = not s.negate
        elif s.repeat:
            kw["action"] = "append"
            kw["type"] = _bound if d.kind is dict else str
        else:
            kw["type"] = _arg_type(d)
        kw["metavar"] = s.metavar or d.long_flag[2:].upper().replace("-", "_")
        p.add_argument(*s.flags, **kw)


def from_namespace(a: argparse.Namespace) -> Options:
    """The Options a parsed command line asks for: what was given, defaults for the rest."""
    given = {d.name: getattr(a, d.name) for d in declared() if getattr(a, d.name, None) is not None}
    if "functions" in given:
        given["functions"] = tuple(given["functions"])
    if "bounds" in given:
        bounds: dict[str, dict[str, list]] = {}
        for fn, param, b in given["bounds"]:
            for f in [fn] if fn else (given.get("functions") or ["*"]):
                bounds.setdefault(f, {})[param] = b
        if "*" in bounds:
            raise InputError("--bound without a function name needs --function; write FUNC.PARAM=LO:HI")
        given["bounds"] = bounds
    return Options(**given)


def to_argv(opts: Options, only: frozenset[str] | None = None) -> list[str]:
    """The command-line arguments that give `opts` (only what differs from the defaults)."""
    base = Options()
    argv: list[str] = []
    for d in declared():
        value = getattr(opts, d.name)
        if only is not None and d.name not in only:
            continue
        if not d.spec.flags or (value == getattr(base, d.name) and d.name != "proposers"):
            continue  # proposers always: their default depends on --candidates
        if d.kind is bool:
            argv += [d.long_flag] if value == (not d.spec.negate) else []
        elif d.name == "bounds":
            argv += [f"--bound={fn}.{p}={lo}:{hi}" for fn, ps in value.items() for p, (lo, hi) in ps.items()]
        elif d.spec.repeat:
            argv += [f"{d.long_flag}={v}" for v in value]
        elif value is not None:
            argv.append(f"{d.long_flag}={','.join(value) if d.kind is tuple else value}")
    return argv
