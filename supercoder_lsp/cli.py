"""The `supercoder` command.

Exit codes:
  0  the run finished (whether or not a faster verified candidate was found)
  1  an unexpected internal error
  2  bad usage or input (file missing, unknown function, bad option or config)
  3  a required tool is missing (gcc, hyperfine, valgrind): the message names the install command;
     or this machine cannot contain untrusted candidates (no seccomp) and --allow-unsandboxed was not given
  4  the input file does not compile with its flags
  5  (replace) the edited file did not verify, or was not faster
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__, build
from .pipeline import PROPOSERS, SCHEMA_VERSION, InputError, Options, Pipeline, Report
from .results import headline
from .serialize import to_json
from .tools import ToolMissing
from .verify.sandbox import SandboxUnavailable

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_TOOL, EXIT_BUILD, EXIT_NOT_VERIFIED = 0, 1, 2, 3, 4, 5


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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="supercoder",
        description="Find hot C functions, propose faster assembly, keep only what is verified and measured.",
    )
    p.add_argument("--version", action="version", version=f"supercoder {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    o = sub.add_parser(
        "optimize",
        help="optimize the hot functions of a C file",
        epilog="Exit codes: 0 finished, 1 internal error, 2 bad input, 3 missing tool, 4 file does not compile.",
    )
    o.add_argument("file", type=Path)
    o.add_argument(
        "-f",
        "--function",
        action="append",
        default=[],
        help="optimize this function (repeatable); default: the top-k hot ones",
    )
    o.add_argument("-k", "--top", type=int, default=3, help="how many hot functions to optimize (default 3)")
    o.add_argument(
        "-p",
        "--proposer",
        default=None,
        help=f"comma-separated proposers: {', '.join(PROPOSERS)} "
        "(default: compilers, or replay when --candidates is given)",
    )
    o.add_argument("--candidates", type=Path, help="replay proposer: DIR/<function>/*.s")
    o.add_argument("--base-url", help="openai proposer: an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    o.add_argument("--model", help="openai proposer: the model name the server serves")
    o.add_argument("--temperature", type=float, default=0.7, help="model sampling temperature (default 0.7)")
    o.add_argument("--refine", type=int, default=2, help="refinement rounds for model proposers (default 2)")
    o.add_argument("--hf-model", type=Path, help="hf and vllm proposers: the model (a directory with local weights)")
    o.add_argument("--max-new-tokens", type=int, default=2048, help="longest model reply, in tokens (default 2048)")
    o.add_argument(
        "--model-timeout",
        type=float,
        default=120.0,
        help="openai proposer: seconds per request before it counts as failed (default 120; 2 retries)",
    )
    o.add_argument("--template", type=Path, help="prompt template file ({c_code}, {assembly}, {function})")
    o.add_argument(
        "-n", "--samples", type=int, default=8, help="candidates per proposer per function (best-of-N, default 8)"
    )
    o.add_argument("--tests", type=Path, help="program tests: DIR of NAME.in / NAME.out pairs (exact stdout match)")
    o.add_argument("--bench-input", type=Path, help="stdin for whole-program timing and profiling")
    o.add_argument("--workload", help="command for whole-program timing and profiling; {exe} stands for the program")
    o.add_argument(
        "--inputs", type=int, default=100_000, help="random inputs for the function harness (default 100000)"
    )
    o.add_argument(
        "--bound",
        type=_bound,
        action="append",
        default=[],
        metavar="FUNC.PARAM=LO:HI",
        help="input bounds for a parameter (for an array or string: its length)",
    )
    o.add_argument("--rounds", type=int, default=100, help="interleaved timing rounds per alignment (default 100)")
    o.add_argument("--min-speedup", type=float, default=1.02, help="smallest speedup ever claimed (default 1.02)")
    o.add_argument("--cc", help="compiler (overrides compile_commands.json and .supercoder.toml)")
    o.add_argument(
        "--cflags",
        help="compiler flags as one string, e.g. --cflags='-O2 -march=x86-64-v3' (overrides compile_commands.json and .supercoder.toml)",
    )
    o.add_argument(
        "--compile-timeout",
        type=float,
        default=120.0,
        help="seconds before a compiler run counts as hung (default 120)",
    )
    o.add_argument("--no-cache", action="store_true", help="do not read or write the results cache")
    o.add_argument("--cache-dir", type=Path, help="results cache directory (default: the user cache dir)")
    o.add_argument("--keep-work", type=Path, help="keep every intermediate file in this directory")
    o.add_argument(
        "--allow-unsandboxed",
        action="store_true",
        help="run candidates even where no seccomp filter can contain them (not recommended)",
    )
    o.add_argument("--json", action="store_true", help="print the JSON report to stdout")
    o.add_argument("-o", "--output", type=Path, help="also write the JSON report to this file")
    o.add_argument("--progress-jsonl", action="store_true", help=argparse.SUPPRESS)  # for the language server's workers
    r = sub.add_parser(
        "replace",
        help="replace a function's C with verified assembly (C kept under #else)",
        epilog="Exit codes: 0 verified (and written with --write), 5 not verified or not faster, "
        "2 bad input, 3 missing tool, 4 the file does not compile.",
    )
    r.add_argument("file", type=Path)
    r.add_argument("-f", "--function", required=True)
    r.add_argument("--assembly", type=Path, required=True, help="the verified assembly of the function (a .s file)")
    r.add_argument("--note", default="verified replacement", help="text for the comment above the block")
    r.add_argument("--inputs", type=int, default=100_000)
    r.add_argument("--cc")
    r.add_argument("--cflags")
    r.add_argument(
        "--write", action="store_true", help="write the edited file (atomically) when it verifies and is faster"
    )
    r.add_argument("--json", action="store_true")
    return p


def replace_cmd(a: argparse.Namespace) -> int:
    import tempfile

    from . import replace
    from .source import parse_functions

    text = a.file.read_text(errors="replace") if a.file.is_file() else None
    if text is None:
        raise InputError(f"'{a.file}' does not exist or is not a file")
    fn = next((f for f in parse_functions(text) if f.name == a.function), None)
    if fn is None:
        raise InputError(f"no function named {a.function} in {a.file}")
    asm = a.assembly.read_text()
    try:
        edited = replace.render(text, fn, asm, a.note)
    except replace.ReplaceError as e:
        raise InputError(str(e)) from e
    cfg = build.resolve(a.file, compiler=a.cc, flags=a.cflags)
    with tempfile.TemporaryDirectory(prefix="supercoder-replace-") as work:
        res = replace.check(a.file, fn, edited, cfg, Path(work), n_random=a.inputs)
    wrote = False
    if a.write and res.ok and res.faster:
        tmp = a.file.with_name(f".{a.file.name}.supercoder-tmp")
        tmp.write_text(edited)
        os.replace(tmp, a.file)  # never a half-written source file
        wrote = True
    if a.json:
        sys.stdout.write(
            json.dumps(
                {
                    "ok": res.ok,
                    "faster": res.faster,
                    "detail": res.detail,
                    "speedup": res.speedup,
                    "speedup_ci": list(res.ci) if res.ci else None,
                    "inputs_checked": res.inputs,
                    "written": wrote,
                    "edited": edited,
                }
            )
            + "\n"
        )
    else:
        head = "verified" if res.ok and res.faster else "verified but not faster" if res.ok else "not verified"
        print(f"{head}: {res.detail}" + (f"; wrote {a.file}" if wrote else ""))
    return EXIT_OK if res.ok and res.faster else EXIT_NOT_VERIFIED


def options_from(a: argparse.Namespace) -> Options:
    proposers = (
        tuple(x.strip() for x in a.proposer.split(",") if x.strip())
        if a.proposer
        else (("replay",) if a.candidates else ("compilers",))
    )
    bounds: dict[str, dict[str, list]] = {}
    for fn, param, b in a.bound:
        fns = [fn] if fn else (a.function or ["*"])
        for f in fns:
            bounds.setdefault(f, {})[param] = b
    if "*" in bounds:
        raise InputError("--bound without a function name needs --function; write FUNC.PARAM=LO:HI")
    if a.samples < 1 or a.top < 1 or a.inputs < 0 or a.rounds < 6:
        raise InputError("--samples and --top must be >= 1, --inputs >= 0 and --rounds >= 6")
    return Options(
        proposers=proposers,
        samples=a.samples,
        candidates_dir=a.candidates,
        tests_dir=a.tests,
        bench_input=a.bench_input,
        workload=a.workload,
        functions=tuple(a.function),
        top=a.top,
        bounds=bounds,
        n_random=a.inputs,
        rounds=a.rounds,
        min_speedup=a.min_speedup,
        compiler=a.cc,
        flags=a.cflags,
        compile_timeout=a.compile_timeout,
        refine=a.refine,
        openai_base_url=a.base_url,
        openai_model=a.model,
        temperature=a.temperature,
        template=a.template.read_text() if a.template else None,
        hf_model=a.hf_model,
        max_new_tokens=a.max_new_tokens,
        model_timeout=a.model_timeout,
        use_cache=not a.no_cache,
        cache_dir=a.cache_dir,
        keep_dir=a.keep_work,
    )


def function_json(f) -> dict:
    cands = []
    for c in f.candidates:
        d = to_json(c)
        d["speedup"] = c.timing.speedup if c.timing else None  # the function's own timing
        d["speedup_ci"] = list(c.timing.ci) if c.timing else None
        d["program_speedup"] = c.program_timing.speedup if c.program_timing else None
        d["program_speedup_ci"] = list(c.program_timing.ci) if c.program_timing else None
        cands.append(d)
    best = f.best_result()
    return {
        "name": f.name,
        "range": to_json(f.range),
        "signature": f.signature,
        "status": f.status,
        "detail": f.detail,
        "hotness": f.hotness,
        "harness": f.harness,
        "cached": f.cached,
        "stage_seconds": f.stage_seconds,
        "baseline": {"assembly": f.baseline_assembly},
        "candidates": cands,
        "best": None
        if best is None
        else {
            "label": best.label,
            "origin": best.origin,
            "headline": headline(best),  # what the claim says, as the CLI and the editor show it
            "decided_by": "function" if best.timing else "program",
            "speedup": best.timing.speedup if best.timing else None,
            "speedup_ci": list(best.timing.ci) if best.timing else None,
            "program_speedup": best.program_timing.speedup if best.program_timing else None,
            "program_speedup_ci": list(best.program_timing.ci) if best.program_timing else None,
            "features": best.features,
            "cpu_features": best.cpu_features,
            "source_change": to_json(best.source_change),
            "assembly": best.assembly,
        },
    }


def report_json(rep: Report) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": f"supercoder {__version__}",
        "file": rep.path,
        "environment": rep.environment,
        "notes": rep.notes,
        "seconds": rep.seconds,
        "functions": [function_json(f) for f in rep.functions],
    }


def _speed(c) -> str:
    t = c.timing or c.program_timing
    if t is None:
        return "-"
    return f"{t.speedup:.2f}x ({t.ci[0]:.2f}-{t.ci[1]:.2f})"


def print_table(rep: Report, console: Console) -> None:
    env = rep.environment
    console.print(
        f"[bold]{rep.path}[/]  {env['compiler']} {' '.join(env['flags'])}  ({env['flags_from']})  on {env['cpu_model']}"
    )
    for note in rep.notes:
        console.print(f"[dim]note: {note}[/]")
    for f in rep.functions:
        best = f.best_result()
        console.print()
        head = f"[bold]{f.name}[/] {f.signature}" + ("  [dim](cached)[/]" if f.cached else "")
        console.print(head)
        claim = headline(best)
        if best is not None and claim is not None:
            console.print(f"  [green]{claim}[/]  ({escape(best.label)})")
            if best.program_timing and best.timing:
                console.print(f"  whole program: {best.program_timing.detail}")
            if best.source_change:
                console.print(
                    f"  source-level change: [cyan]{best.source_change.text}[/] ({best.source_change.description})"
                )
        else:
            console.print(f"  [yellow]{f.detail}[/]" if f.status == "done" else f"  [red]{f.status}:[/] {f.detail}")
        if not f.candidates:
            continue
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for col in ("candidate", "verdict", "speedup (95% CI)", "features", "detail"):
            table.add_column(col, overflow="fold")
        for c in f.candidates:
            verdict = "[green]accepted[/]" if c.status == "accepted" else f"[red]{c.reason}[/]"
            table.add_row(
                c.label, verdict, _speed(c), ", ".join(c.features), c.detail.splitlines()[0][:160] if c.detail else ""
            )
        console.print(table)
    if any(f.best_result() is not None for f in rep.functions):
        limits = rep.environment.get("verification_limits") or []
        if limits:
            console.print()
            console.print("[dim]what verification does not establish: " + "; ".join(limits) + "[/]")


def optimize(a: argparse.Namespace) -> int:
    err = Console(stderr=True)
    if a.allow_unsandboxed:
        os.environ["SUPERCODER_ALLOW_UNSANDBOXED"] = "1"
    opts = options_from(a)
    if a.progress_jsonl:  # machine-readable progress on stderr, one JSON object a line

        def progress_line(fn: str, stage: str, step: int | None = None, steps: int | None = None) -> None:
            sys.stderr.write(json.dumps({"function": fn, "stage": stage, "step": step, "steps": steps}) + "\n")
            sys.stderr.flush()

        def update(f) -> None:  # a better verified candidate: the editor may show it before the run ends
            sys.stderr.write(json.dumps({"event": "update", "function": function_json(f)}) + "\n")
            sys.stderr.flush()

        rep = Pipeline(opts, progress_line, on_update=update).run(a.file)
        return _emit(a, rep)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as prog:
        task = prog.add_task("starting", total=None)

        def progress(fn: str, stage: str, step: int | None = None, steps: int | None = None) -> None:
            prog.update(task, description=f"{fn + ': ' if fn else ''}{stage}", completed=step or 0, total=steps)

        rep = Pipeline(opts, progress).run(a.file)
    return _emit(a, rep)


def _emit(a: argparse.Namespace, rep: Report) -> int:
    data = report_json(rep)
    if a.output:
        a.output.write_text(json.dumps(data, indent=2))
    if a.json:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        out = Console()
        print_table(rep, out if out.is_terminal else Console(width=160))  # piped or logged: no 80-column squeeze
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    err = Console(stderr=True)
    try:
        if a.command == "optimize":
            return optimize(a)
        if a.command == "replace":
            return replace_cmd(a)
    except (ToolMissing, SandboxUnavailable) as e:
        err.print(f"[red]error:[/] {escape(str(e))}", soft_wrap=True)
        return EXIT_TOOL
    except (InputError, FileNotFoundError) as e:
        err.print(f"[red]error:[/] {escape(str(e))}", soft_wrap=True)
        return EXIT_USAGE
    except build.BuildError as e:
        err.print(f"[red]error:[/] {a.file} does not compile with its flags:\n{e.output}")
        return EXIT_BUILD
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
