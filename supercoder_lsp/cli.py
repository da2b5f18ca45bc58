"""The `supercoder` command.

Exit codes:
  0  the run finished (whether or not a faster verified candidate was found)
  1  an unexpected internal error
  2  bad usage or input (file missing, unknown function, bad option or config)
  3  a required tool is missing (gcc, hyperfine, valgrind): the message names the install command;
     or this machine cannot contain untrusted candidates (no seccomp) and --allow-unsandboxed was not given
  4  the input file does not compile with its flags, or its program does not link (--ldflags)
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

from . import __version__, build, options, project_cli, replaced_cli
from .model import Report
from .optimize.pipeline import Pipeline
from .options import InputError
from .results import headline, inputs_summary
from .serialize import function_to_json, report_to_json
from .tools import ToolMissing
from .verify.sandbox import SandboxUnavailable

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_TOOL, EXIT_BUILD, EXIT_NOT_VERIFIED = 0, 1, 2, 3, 4, 5


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
    options.add_arguments(o)
    o.add_argument(
        "--allow-unsandboxed",
        action="store_true",
        help="run candidates even where no seccomp filter can contain them (not recommended)",
    )
    o.add_argument("--json", action="store_true", help="print the JSON report to stdout")
    o.add_argument("--explain", action="store_true", help="after a claim, list what verification does not establish")
    o.add_argument("-o", "--output", type=Path, help="also write the JSON report to this file")
    o.add_argument("--progress-jsonl", action="store_true", help=argparse.SUPPRESS)  # for the language server's workers
    replaced_cli.add_parsers(sub)
    project_cli.add_parsers(sub)
    e = sub.add_parser(
        "eval",
        help="proposers best-of-N over a dataset: compile and correct rates, speedups (paper's and ours)",
        epilog="DATASET: a .parquet or .jsonl file of SuperCoder rows, or a folder of programs "
        "(<name>/prog.c, tests/*.in|*.out, bench.in, meta.json naming the function). "
        "Exit codes: 0 finished, 2 bad input, 3 missing tool.",
    )
    e.add_argument("dataset", type=Path)
    options.add_arguments(e, only=options.EVAL_OPTIONS)
    e.add_argument("--baseline", choices=("O3", "O0"), default="O3", help="time against -O3 (default) or -O0 (rows)")
    e.add_argument("--limit", type=int, help="only the first N problems")
    e.add_argument(
        "--state",
        type=Path,
        help="folder for per-sample results; a run goes on where an interrupted one stopped "
        "(default: .supercoder-eval/<dataset name>)",
    )
    e.add_argument("-j", "--jobs", type=int, default=2, help="problems prepared in parallel (never while timing)")
    e.add_argument("--no-timing", action="store_true", help="verify only (speedups are not measured)")
    e.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="spread the problems over a Ray cluster, one at a time per node (each node started with "
        "--resources='{\"supercoder_timing\": 1}'); 'local' starts a small local instance",
    )
    e.add_argument("--json", action="store_true", help="print the JSON report to stdout")
    e.add_argument("-o", "--output", type=Path, help="also write the JSON report to this file")
    sub.add_parser("limits", help="what verification does not establish (the same list as optimize --explain)")
    x = sub.add_parser(
        "export", help="verified eval or optimize results as training rows (SFT best-of-N, or RL prompts)"
    )
    x.add_argument(
        "reports",
        type=Path,
        nargs="+",
        help="eval reports (supercoder eval -o FILE), or optimize reports (supercoder optimize FILE.c --tests DIR "
        "-o FILE) of files that define main()",
    )
    x.add_argument("-o", "--output", type=Path, required=True, help="rows as JSON lines")
    x.add_argument("--format", choices=("sft", "rl"), default="sft")
    x.add_argument("--dataset", type=Path, help="the dataset the reports ran on (default: as each report names it)")
    return p


def _speed(c) -> str:
    t = c.timing or c.program_timing
    if t is None:
        return "-"
    return f"{t.speedup:.2f}x ({t.ci[0]:.2f}-{t.ci[1]:.2f})"


LIMITS_LINE = (
    "how far to trust a claim: tested on the inputs above (proven only where it says so); "
    "`supercoder limits` or --explain lists what testing does not establish"
)


def print_limits(limits, console: Console) -> None:
    """Each of `limits` (verify.LIMITS) as one item of a list."""
    console.print("[bold]what verification does not establish[/]")
    for item in limits:
        console.print(f"- {escape(item)}")


def print_table(rep: Report, console: Console, explain: bool = False) -> None:
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
        ran = inputs_summary(f)
        if ran:
            console.print(f"  [dim]{ran}[/]")
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
            if explain:
                print_limits(limits, console)
            else:
                console.print(f"[dim]{LIMITS_LINE}[/]")


def optimize(a: argparse.Namespace) -> int:
    err = Console(stderr=True)
    if a.allow_unsandboxed:
        os.environ["SUPERCODER_ALLOW_UNSANDBOXED"] = "1"
    opts = options.from_namespace(a)
    if a.progress_jsonl:  # machine-readable progress on stderr, one JSON object a line

        def progress_line(fn: str, stage: str, step: int | None = None, steps: int | None = None) -> None:
            sys.stderr.write(json.dumps({"function": fn, "stage": stage, "step": step, "steps": steps}) + "\n")
            sys.stderr.flush()

        def update(f) -> None:  # a better verified candidate: the editor may show it before the run ends
            sys.stderr.write(json.dumps({"event": "update", "function": function_to_json(f)}) + "\n")
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
    data = report_to_json(rep)
    if a.output:
        a.output.write_text(json.dumps(data, indent=2))
    if a.json:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        out = Console()
        # piped or logged: no 80-column squeeze
        print_table(rep, out if out.is_terminal else Console(width=160), explain=getattr(a, "explain", False))
    return EXIT_OK


def eval_cmd(a: argparse.Namespace) -> int:
    from .train.evaluate import Evaluator
    from .train.problems import load

    opts = options.from_namespace(a)
    problems = load(a.dataset, a.limit)
    if a.proposers is None and problems and problems[0].kind == "row":  # rows: whole-program answers
        opts.proposers = ("replay",) if opts.candidates_dir else ("compilers",)
    state = a.state or Path(".supercoder-eval") / a.dataset.stem
    err = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
        transient=True,
    ) as prog:  # fmt: skip
        task = prog.add_task("eval", total=len(problems))

        def progress(pid: str, done: int, total: int) -> None:
            prog.update(task, description=f"eval {pid}", completed=done, total=total)

        ev = Evaluator(
            opts, state, baseline=a.baseline, jobs=a.jobs, timing=not a.no_timing, progress=progress, ray=a.ray
        )
        rep = ev.run(problems, str(a.dataset))
    data = rep.to_json()
    if a.output:
        a.output.write_text(json.dumps(data, indent=2))
    if a.json:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        out = Console()
        print_eval(data, out if out.is_terminal else Console(width=160))
    return EXIT_OK


def _x(v, fmt: str = "{:.2f}x") -> str:
    return "-" if v is None else fmt.format(v)


def print_eval(data: dict, console: Console) -> None:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("problem", "samples", "compiled", "correct", "paper speedup", "speedup (ours)", "best", "level"):
        table.add_column(col, overflow="fold")
    for r in data["problems"]:
        ours = _x(r["speedup"]) + ("" if r["speedup"] is None or r["significant"] else " (n.s.)")
        table.add_row(
            r["problem"], str(r["samples"]), str(r["compiled"]), str(r["correct"]), _x(r["paper_speedup"]), ours,
            r["best"] or "-", r["level"] or "-",
        )  # fmt: skip
    console.print(table)
    s = data["summary"]
    console.print()
    console.print(
        f"{s['problems']} problems, {s['samples']} samples against {data['baseline']}: "
        f"compiled {_x(s['compile_rate'], '{:.1%}')}, correct {_x(s['correct_rate'], '{:.1%}')}"
    )
    for conv, label in (("paper", "paper (incorrect or slower = 1.0)"), ("ours", "ours (as measured)")):
        m = s[conv]
        console.print(
            f"  {label}: mean {_x(m['mean'])}, geomean {_x(m['geomean'])}, p25 {_x(m['p25'])}, "
            f"p50 {_x(m['p50'])}, p75 {_x(m['p75'])}, max {_x(m['max'])} over {m['n']} problems"
            + (f"; {m['significantly_faster']} significantly faster, {m['slower']} slower" if conv == "ours" else "")
        )
    for n in data["notes"]:
        console.print(f"[dim]note: {escape(n)}[/]")


def export_cmd(a: argparse.Namespace) -> int:
    from .train.export import export

    n, notes = export(a.reports, a.output, a.format, a.dataset)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"wrote {n} {a.format} rows to {a.output}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    err = Console(stderr=True)
    try:
        if a.command == "optimize":
            return optimize(a)
        if a.command in replaced_cli.COMMANDS:
            return replaced_cli.run(a)
        if a.command in project_cli.COMMANDS:
            return project_cli.run(a)
        if a.command == "eval":
            return eval_cmd(a)
        if a.command == "export":
            return export_cmd(a)
        if a.command == "limits":
            from .verify import LIMITS

            print_limits(LIMITS, Console(soft_wrap=True))
            return EXIT_OK
    except (ToolMissing, SandboxUnavailable) as e:
        err.print(f"[red]error:[/] {escape(str(e))}", soft_wrap=True)
        return EXIT_TOOL
    except (InputError, FileNotFoundError) as e:
        err.print(f"[red]error:[/] {escape(str(e))}", soft_wrap=True)
        return EXIT_USAGE
    except build.BuildError as e:
        where = getattr(a, "file", None) or getattr(a, "dataset", "the input")
        if e.what == "link":
            err.print(
                f"[red]error:[/] {where} compiles, but its program does not link (add libraries with "
                f"--ldflags or .supercoder.toml [build] ldflags):\n{escape(e.output)}"
            )
        else:
            err.print(f"[red]error:[/] {where} does not compile with its flags:\n{escape(e.output)}")
        return EXIT_BUILD
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
