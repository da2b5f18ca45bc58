"""The `supercoder` commands on a whole project: `apply` (every verified win of a set of reports applied,
the project rebuilt with its own build, its tests run, and its workload timed end to end against the
-O3 build, `-march=native` and PGO, side by side) and `report` (one static HTML page and a Markdown
summary of reports and an apply run). cli.py adds their parsers and calls run()."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .options import InputError

EXIT_OK, EXIT_USAGE, EXIT_BROKEN = 0, 2, 5
COMMANDS = ("apply", "report")
APPLY_SCHEMA = "supercoder-apply/1"


def add_parsers(sub) -> None:
    a = sub.add_parser(
        "apply",
        help="apply a project's verified wins, rebuild it, run its tests, and time its workload against "
        "-O3, -march=native and PGO",
        epilog="Exit codes: 0 done, 5 with the wins applied the build, its tests or a workload run fail (nothing "
        "written), 2 bad input.",
    )
    a.add_argument("reports", nargs="+", type=Path, help="JSON reports of `supercoder optimize -o`")
    a.add_argument(
        "--build",
        required=True,
        help="the project's build command, run in a copy of the project; "
        "the flags come in CFLAGS and where it says {cflags}, e.g. 'make' or "
        "\"cmake -S . -B b -DCMAKE_C_FLAGS='{cflags}' && cmake --build b\"",
    )
    a.add_argument(
        "--workload",
        required=True,
        help="the command timed end to end, run in the built copy (e.g. './bench 200000' or 'b/example')",
    )
    a.add_argument("--test", help="the project's test command, run in each built copy (e.g. 'make check')")
    a.add_argument(
        "--project", type=Path, help="the project's root (default: the git work tree of the first report's file)"
    )
    a.add_argument("--cflags", default="-O3", help="the reference build's flags (default -O3)")
    a.add_argument(
        "--assembly",
        action="store_true",
        help="also insert verified assembly where a win has no source-level change (C kept under #else)",
    )
    a.add_argument("--runs", type=int, default=10, help="timed runs of the workload per build (default 10)")
    a.add_argument("--no-native", action="store_true", help="leave out the -march=native build")
    a.add_argument("--no-pgo", action="store_true", help="leave out the PGO build")
    a.add_argument("--patch", type=Path, help="write the changes as a patch here (default: supercoder-apply.patch)")
    a.add_argument("--branch", help="commit the changes on this new git branch (the work tree is not touched)")
    a.add_argument("--keep-work", type=Path, help="build the copies here and keep them")
    a.add_argument("--json", action="store_true")
    a.add_argument("-o", "--output", type=Path, help="also write the JSON result here (for `supercoder report`)")
    r = sub.add_parser("report", help="one static HTML page (and Markdown) of optimize reports and an apply run")
    r.add_argument("inputs", nargs="+", type=Path, help="JSON of `supercoder optimize -o` and of `supercoder apply -o`")
    r.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("supercoder-report"),
        help="folder for index.html, report.md and the assembly (default supercoder-report)",
    )
    r.add_argument("--markdown", action="store_true", help="print the Markdown (a CI job's summary) to stdout")


def run(a: argparse.Namespace) -> int:
    return {"apply": apply_cmd, "report": report_cmd}[a.command](a)


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read '{path}' as a JSON report: {e}") from None
    if not isinstance(data, dict) or not ("functions" in data or data.get("schema") == APPLY_SCHEMA):
        raise InputError(f"'{path}' is not a report of `supercoder optimize -o` or `supercoder apply -o`")
    return data


def _git_root(path: Path) -> Path | None:
    p = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    return Path(p.stdout.strip()) if p.returncode == 0 else None


def _applied_runs_on(wins) -> str:
    clones = sorted({f for w in wins if w.kind == "attribute" and "target_clones" in w.text for f in w.features})
    asm = sorted({f for w in wins if w.kind == "assembly" for f in w.features})
    parts = ["every x86-64 CPU"]
    if clones:
        parts.append(f"the copies that use {', '.join(clones)} picked at load time where the CPU has them")
    if asm:
        parts.append(f"the inserted assembly where built with {', '.join(asm)} enabled (its #if), else the C")
    return "; ".join(parts)


def _builds(a, edits, root: Path):
    from .optimize.whole_program import Build, native_features

    rel = {str(p.resolve().relative_to(root.resolve())): after for p, (_, after) in edits.files.items()}
    out = [
        Build(f"{a.cflags} (reference)", a.cflags, "every x86-64 CPU"),
        Build("wins applied", a.cflags, _applied_runs_on(edits.wins), rel),
    ]
    if not a.no_native:
        feats = native_features(os.environ.get("CC") or "cc")  # the compiler the project's build picks
        out.append(
            Build(
                f"{a.cflags} -march=native",
                f"{a.cflags} -march=native",
                f"only CPUs with this one's extensions ({', '.join(feats) or 'none beyond x86-64'})",
            )
        )
    if not a.no_pgo:
        out.append(Build("PGO", a.cflags, "every x86-64 CPU", pgo=True))
    return out


def _commit_branch(root: Path, branch: str, edits, message: str) -> None:
    for path, (before, _) in edits.files.items():
        rel = path.resolve().relative_to(root.resolve()).as_posix()
        head = subprocess.run(["git", "-C", str(root), "show", f"HEAD:{rel}"], capture_output=True)
        if head.returncode != 0 or head.stdout != before.encode("utf-8", "surrogateescape"):
            raise InputError(f"'{rel}' differs from the last commit: commit it first, or use --patch")
    with tempfile.TemporaryDirectory(prefix="supercoder-branch-") as t:
        wt = Path(t) / "wt"
        subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "-q", "-b", branch, str(wt), "HEAD"],
            check=True,
            capture_output=True,
        )
        try:
            for path, (_, after) in edits.files.items():
                rel = path.resolve().relative_to(root.resolve())
                (wt / rel).write_bytes(after.encode("utf-8", "surrogateescape"))
                subprocess.run(["git", "-C", str(wt), "add", str(rel)], check=True)
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(wt),
                    "-c",
                    "user.name=supercoder",
                    "-c",
                    "user.email=supercoder@localhost",
                    "commit",
                    "-q",
                    "-m",
                    message,
                ],
                check=True,
            )
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(wt)], capture_output=True)


def _table(outs) -> str:
    rows = [("build", "tests", "workload median (95% CI)", "speedup (95% CI)", "runs on")]
    for o in outs:
        med = f"{o.median:.3f} s ({o.median_ci[0]:.3f}-{o.median_ci[1]:.3f})" if o.median and o.median_ci else "-"
        sp = (
            f"{o.speedup:.2f}x ({o.speedup_ci[0]:.2f}-{o.speedup_ci[1]:.2f}) {o.verdict}"
            if o.speedup and o.speedup_ci
            else o.verdict.split(":")[0]  # "no figure": why, below the table
        )
        rows.append((o.name, o.tests.split(":")[0], med, sp, o.runs_on))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    table = "\n".join("  ".join(r[i].ljust(w[i]) for i in range(4)) + "  " + r[4] for r in rows)
    why = [f"{o.name}: {o.error or o.tests}" for o in outs if o.error or o.tests.startswith("failed")]
    return table + "".join(f"\n  {x}" for x in why)


def apply_cmd(a: argparse.Namespace) -> int:
    import dataclasses

    from .optimize.apply_wins import patch, plan_edits
    from .optimize.whole_program import WholeProgram

    reports = [_load(p) for p in a.reports]
    reports = [r for r in reports if "functions" in r]
    if not reports:
        raise InputError("give at least one report of `supercoder optimize -o`")
    edits = plan_edits(reports, assembly=a.assembly)
    first = Path((reports[0].get("source") or {}).get("path") or reports[0]["file"]).resolve()
    root = (a.project or _git_root(first.parent) or first.parent).resolve()
    for p in edits.files:
        if root not in p.resolve().parents:
            raise InputError(f"'{p}' is not inside the project '{root}': give --project")
    _print_plan(edits)
    with tempfile.TemporaryDirectory(prefix="supercoder-apply-") as t:
        work = a.keep_work or Path(t)
        work.mkdir(parents=True, exist_ok=True)
        wp = WholeProgram(root, a.build, a.workload, work, test_cmd=a.test)
        outs = wp.run(_builds(a, edits, root), runs=a.runs)
    print()
    print(_table(outs))
    result = {
        "schema": APPLY_SCHEMA,
        "project": str(root),
        "build": a.build,
        "test": a.test,
        "workload": a.workload,
        "runs": a.runs,
        "wins": [dataclasses.asdict(w) for w in edits.wins],
        "left": [dataclasses.asdict(x) for x in edits.left],
        "builds": [dataclasses.asdict(o) for o in outs],
    }
    applied = outs[1]
    bad = _broken(applied, bool(a.test))
    if bad:
        print(f"\nnot written: with the wins applied, {bad}", file=sys.stderr)
    elif edits.files:
        if a.branch:
            _commit_branch(root, a.branch, edits, _message(edits))
            result["branch"] = a.branch
            print(f"\ncommitted on branch {a.branch} (your work tree is as it was)")
        else:
            out = a.patch or Path("supercoder-apply.patch")
            out.write_text(patch(edits, root))
            result["patch"] = str(out)
            print(f"\npatch: {out} (apply with: git -C {root} apply {out.resolve()})")
    if a.output:
        a.output.write_text(json.dumps(result, indent=1))
    if a.json:
        print(json.dumps(result, indent=1))
    return EXIT_BROKEN if bad else EXIT_OK


def _broken(applied, tested: bool) -> str:
    """Why the build with the wins applied must not be written ('' when it may)."""
    if not applied.built:
        return applied.error
    if tested and applied.tests != "passed":
        return f"the tests {applied.tests}"
    if applied.failed_runs:
        return f"{applied.failed_runs} workload run(s) failed: {applied.error}"
    return ""


def _print_plan(edits) -> None:
    for w in edits.wins:
        print(f"apply  {Path(w.file).name}:{w.function}  {w.kind}: {w.text[:90]}  ({w.speedup:.2f}x alone)")
        if w.kept_c:
            print(
                f"       its assembly needs {w.kept_c}, which the file's flags do not enable: built so, its #if "
                "keeps the C; it runs where the build enables them (e.g. -march=native)"
            )
    for left in edits.left:
        print(f"leave  {Path(left.file).name}:{left.function}  {left.why}")


def _message(edits) -> str:
    lines = [f"{Path(w.file).name}:{w.function}: {w.kind} ({w.speedup:.2f}x alone, verified)" for w in edits.wins]
    return "Apply SuperCoder's verified wins\n\n" + "\n".join(lines) + "\n"


def report_cmd(a: argparse.Namespace) -> int:
    from .report_page import write_report

    data = [_load(p) for p in a.inputs]
    page, md = write_report(
        [d for d in data if "functions" in d], [d for d in data if d.get("schema") == APPLY_SCHEMA], a.output
    )
    print(md.read_text() if a.markdown else f"report: {page}")
    return EXIT_OK
