"""Benchmark: how much of a real C project the tool can verify.

    .venv/bin/python benchmarks/bench_real_project.py PROJECT_DIR [--build DIR] [--verdicts] [--only FILE.c]
        [--coverage [--ldflags 'OBJS LIBS' --workload CMD]]

PROJECT_DIR is a C project with a compile_commands.json (in it, in its build/ folder, or
in --build DIR). For zlib at a fixed commit:

    git clone https://github.com/madler/zlib && git -C zlib checkout d201f04
    cmake -S zlib -B zlib/build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Release

Survey (the default, a few seconds a file): every function definition of every compiled
`.c` file, with what the compiler made of it (out of line, inlined into whom, not compiled
with these flags) and whether the generated harness can take it, or why not. --coverage
builds every function harness (2,000 random inputs) and adds where its inputs came from and
the percent of the function's lines they run (gcov); with --ldflags (the rest of a program,
e.g. zlib's test/example.c.o and libz.a) and --workload (e.g. '{exe}'), the program's own
calls are recorded and replayed too, and in each --program (e.g. zlib's test/infcover.c built
with `gcc -O3 -I. -Ibuild -c test/infcover.c -o build/infcover.o`: 'build/infcover.o build/libz.a').
--verdicts
also runs `supercoder optimize` with default settings on each file (its top 3) and prints
the verdicts: slow (minutes a file). Without PROJECT_DIR it says what to give and exits 0,
as in CI. Not a test: quote the figures with the command that made them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from supercoder_lsp import build  # noqa: E402
from supercoder_lsp.asm.cut import FunctionMissing, cut_function  # noqa: E402
from supercoder_lsp.build.debuginfo import compile_debug_object, compiled_functions  # noqa: E402
from supercoder_lsp.harness.plan import make_plan  # noqa: E402
from supercoder_lsp.optimize.selection import compiled_as  # noqa: E402
from supercoder_lsp.source import parse_functions, preprocessor_conditions  # noqa: E402


def compiled_files(project: Path, build_dir: Path | None) -> list[Path]:
    for d in [build_dir, project, project / "build"]:
        if d is not None and (d / "compile_commands.json").is_file():
            entries = json.loads((d / "compile_commands.json").read_text())
            files = {Path(e["directory"], e["file"]).resolve() for e in entries}
            return sorted(f for f in files if f.suffix == ".c" and project.resolve() in f.parents)
    raise SystemExit(
        f"no compile_commands.json in {project}, {project / 'build'} or --build; see this file's docstring"
    )


def survey(path: Path, work: Path) -> list[dict]:
    """One row per function definition of `path`."""
    text = path.read_text(errors="replace")
    cfg = build.resolve(path)
    asm = build.compile_to_asm(path, cfg, work / "file.s")
    compile_debug_object(path, cfg, work / "debug.o")
    compiled = compiled_functions(work / "debug.o")
    rows = []
    for fn in parse_functions(text):
        row = {"file": path.name, "function": fn.name}
        cf = compiled_as(compiled, fn)
        if cf is None:
            conds = preprocessor_conditions(text, fn)
            row.update(code="not compiled", harness="-", why=" / ".join(conds) or "no code in this build")
        else:
            try:  # the assembly decides whether it has code of its own; DWARF says where it went if not
                cut_function(asm, fn.name)
            except FunctionMissing as e:
                where = "into " + ", ".join(cf.inlined_into[:3]) if cf.inlined_into else str(e)[:80]
                row.update(code="inlined" if e.kind == "inlined" else e.kind, harness="-", why=where)
            else:
                plan = make_plan(cf.signature)
                row.update(code="out of line", harness="yes" if plan.supported else "no", why=plan.why)
        rows.append(row)
    return rows


def harness_runs(
    path: Path, names: list[str], ldflags: str | None, workload: str | None, programs: list[str]
) -> dict[str, dict]:
    """name -> the function's report (harness, coverage), from `supercoder optimize` with no candidates."""
    if not names:
        return {}
    with tempfile.TemporaryDirectory(prefix="sc-nocands-") as empty:
        argv = [sys.executable, "-m", "supercoder_lsp.cli", "optimize", "--json", "--no-cache", str(path)]
        argv += ["--proposer", "replay", "--candidates", empty, "--inputs", "2000"]
        for n in names:
            argv += ["-f", n]
        if ldflags:
            argv += ["--ldflags", ldflags]
        if workload:
            argv += ["--workload", workload]
        for prog in programs:
            argv += ["--program", prog]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=3600, cwd=path.parent)
    if p.returncode != 0:
        return {n: {"harness": f"exit {p.returncode}: {p.stderr.strip()[-200:]}", "coverage": None} for n in names}
    return {f["name"]: f for f in json.loads(p.stdout)["functions"]}


def add_coverage(rows: list[dict], path: Path, ldflags: str | None, workload: str | None, programs: list[str]) -> None:
    mine = [r for r in rows if r["file"] == path.name and r["harness"] == "yes"]
    got = harness_runs(path, [r["function"] for r in mine], ldflags, workload, programs)
    for r in mine:
        f = got.get(r["function"], {})
        c = f.get("coverage")
        if c:
            r.update(inputs=f"{c['generated']}+{c['recorded']}", cov=c["percent"], cov_gen=c["generated_percent"])
        else:
            r.update(inputs="-", cov=None, why=(f.get("harness") or f.get("detail") or "?")[:200])


def verdicts(path: Path) -> list[dict]:
    p = subprocess.run(  # measured afresh: not what an earlier run left in the cache
        [sys.executable, "-m", "supercoder_lsp.cli", "optimize", "--json", "--no-cache", str(path)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if p.returncode != 0:
        return [{"file": path.name, "function": "-", "verdict": f"exit {p.returncode}: {p.stderr.strip()[-200:]}"}]
    out = []
    for f in json.loads(p.stdout)["functions"]:
        best = f["best"]
        verdict = best["headline"] if best else f"{f['status']}: {f['detail'][:100]}"
        out.append({"file": path.name, "function": f["name"], "verdict": verdict})
    return out


def reason_class(why: str) -> str:
    """Group harness reasons for the summary: the type that stopped it, not the parameter's name."""
    if "of type" in why:
        t = why.split("of type '", 1)[1].split("'", 1)[0]
        return f"parameter of type {'struct pointer' if '*' in t else t}"
    return why.split(";")[0][:60]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("project", nargs="?", type=Path)
    ap.add_argument("--build", type=Path, help="the folder with compile_commands.json")
    ap.add_argument("--verdicts", action="store_true", help="also run supercoder optimize on each file (slow)")
    ap.add_argument("--only", help=".c files of the project, by name, comma-separated")
    ap.add_argument("--coverage", action="store_true", help="build every harness and measure its line coverage (slow)")
    ap.add_argument("--ldflags", help="with --coverage: the rest of the program, to record its calls")
    ap.add_argument("--workload", help="with --coverage: the program's run, '{exe}' is the program")
    ap.add_argument(
        "--program",
        action="append",
        default=[],
        help="with --coverage: another program's objects and libraries to record calls in (repeatable)",
    )
    a = ap.parse_args()
    if a.project is None:
        print("bench_real_project: give a C project with a compile_commands.json (see --help); skipped")
        return 0
    files = [f for f in compiled_files(a.project, a.build) if not a.only or f.name in a.only.split(",")]
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="sc-bench-real-") as tmp:
        for k, f in enumerate(files):
            work = Path(tmp) / f"{k:04d}-{f.stem}"  # a project may have two files of one name in two folders
            work.mkdir()
            try:
                rows += survey(f, work)
                if a.coverage:
                    add_coverage(rows, f, a.ldflags, a.workload, a.program)
            except build.BuildError as e:
                rows.append({"file": f.name, "function": "-", "code": "build failed", "harness": "-", "why": e.what})
            except Exception as e:  # noqa: BLE001 - one file's failure must not lose the others' results
                why = f"{type(e).__name__}: {e}"
                rows.append({"file": f.name, "function": "-", "code": "failed", "harness": "-", "why": why})
    print(f"{'file':14} {'function':24} {'code':13} {'harness':7} {'inputs':10} {'cov%':9} why")
    for r in rows:
        cov = "-" if r.get("cov") is None else f"{r['cov']}({r['cov_gen']})"
        print(
            f"{r['file']:14} {r['function']:24} {r['code']:13} {r['harness']:7} {r.get('inputs', '-'):10} "
            f"{cov:9} {r['why'][:90]}"
        )
    out_of_line = [r for r in rows if r["code"] == "out of line"]
    harnessed = [r for r in out_of_line if r["harness"] == "yes"]
    print()
    print(
        f"{len(files)} files, {len(rows)} definitions: "
        + ", ".join(f"{n} {k}" for k, n in Counter(r["code"] for r in rows).items())
    )
    print(f"out of line: {len(out_of_line)}; with a generated harness: {len(harnessed)}")
    for why, n in Counter(reason_class(r["why"]) for r in out_of_line if r["harness"] == "no").most_common():
        print(f"  {n:4}  no harness: {why}")
    if a.coverage:
        measured = [r for r in harnessed if r.get("cov") is not None]
        past = [r for r in measured if r["cov"] >= 70]
        print(
            f"coverage measured for {len(measured)} of {len(harnessed)} harnesses; inputs run >= 70% of the "
            f"lines (the default --min-coverage) in {len(past)}, of {len(out_of_line)} out-of-line functions "
            f"({100 * len(past) / max(len(out_of_line), 1):.0f}%); generated inputs alone: "
            f"{sum(1 for r in measured if r['cov_gen'] >= 70)}"
        )
        for why, n in Counter(reason_class(r["why"]) for r in harnessed if r.get("cov") is None).most_common():
            print(f"  {n:4}  harness failed: {why}")
    if a.verdicts:
        print()
        for f in files:
            for v in verdicts(f):
                print(f"{v['file']:14} {v['function']:24} {v['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
