"""Benchmark: run the optimizer over ../shared/bench and print, per program,
function and candidate set, the verdict counts, the best speedup and the wall
time of each stage.

    .venv/bin/python benchmarks/bench_optimizer.py [--bench DIR] [--whole-program] [--only NAME]

--whole-program also times each accepted candidate's program on bench.in with
hyperfine (slow: about 20 s per candidate). Not a test: figures vary from run
to run on a shared machine; quote them with the command that made them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from supercoder_lsp.optimize.pipeline import Options, Pipeline  # noqa: E402
from supercoder_lsp.results import deciding_timing  # noqa: E402

STAGES = ("asm", "harness", "propose", "assemble", "verify", "measure")


def stage_totals(fn) -> dict[str, float]:
    t = dict(fn.stage_seconds)
    for c in fn.candidates:
        for k, v in c.stage_seconds.items():
            t[k] = t.get(k, 0.0) + v
    return t


def row(kind: str, name: str, fn, wall: float, extra: str = "") -> str:
    if fn is None:
        return f"{kind:9} {name:16} {'-':>32} {'-':>22}  wall {wall:6.1f}s  {extra}"
    counts = Counter("accepted" if c.status == "accepted" else c.reason for c in fn.candidates)
    verdicts = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
    best = fn.best_result()
    sp = "-"
    if best is not None:
        t = best.timing or best.program_timing
        sp = f"{t.speedup:.2f}x ({t.ci[0]:.2f}-{t.ci[1]:.2f})"
        if best.program_timing and best.timing:
            sp += f" prog {best.program_timing.speedup:.2f}x"
    st = stage_totals(fn)
    stages = " ".join(f"{k}={st.get(k, 0):.1f}" for k in STAGES)
    verified = [c.stage_seconds["verify"] for c in fn.candidates if "verify" in c.stage_seconds]
    if verified:  # the function harness and program tests, per candidate that reached them
        stages += f" verify/cand={sum(verified) / len(verified):.2f}"
    status = "" if fn.status == "done" else f" [{fn.status}: {fn.detail[:60]}]"
    return f"{kind:9} {name:16} {verdicts[:32]:>32} {sp:>22}  wall {wall:6.1f}s  {stages}{status} {extra}"


def run_one(path: Path, opts: Options):
    t = time.perf_counter()
    rep = Pipeline(opts).run(path)
    return rep.functions[0] if rep.functions else None, time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "bench")
    ap.add_argument("--whole-program", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument(
        "--record", action="store_true", help="keep the figures in benchmarks/results/ (docs/benchmarks.md)"
    )
    a = ap.parse_args()
    bench = a.bench
    if not bench.is_dir():
        print(f"no benchmark set at {bench}; nothing to do")
        return 0
    print(f"{'kind':9} {'name':16} {'verdicts':>32} {'best speedup (95% CI)':>22}  stage seconds")
    t_all = time.perf_counter()
    agreed = judged = 0
    speedups: list[float] = []
    for prog in sorted((bench / "programs").iterdir()):
        if a.only and a.only != prog.name:
            continue
        meta = json.loads((prog / "meta.json").read_text())
        opts = Options(
            functions=(meta["function"],),
            tests_dir=prog / "tests",
            use_cache=False,
            n_random=a.inputs,
            bench_input=(prog / "bench.in") if a.whole_program else None,
        )
        fn, wall = run_one(prog / "prog.c", opts)
        speedups += _best(fn)
        print(row("program", prog.name, fn, wall), flush=True)
    for meta in json.loads((bench / "functions" / "meta.json").read_text())["functions"]:
        if a.only and a.only != meta["name"]:
            continue
        opts = Options(functions=(meta["name"],), use_cache=False, n_random=a.inputs)
        fn, wall = run_one(bench / "functions" / meta["file"], opts)
        speedups += _best(fn)
        print(row("function", meta["name"], fn, wall), flush=True)
    expected = json.loads((bench / "candidates" / "expected.json").read_text())
    for target in sorted(p for p in (bench / "candidates").iterdir() if p.is_dir()):
        if a.only and a.only != target.name:
            continue
        t = json.loads((target / "target.json").read_text())
        import shutil
        import tempfile

        tmp = Path(tempfile.mkdtemp())
        shutil.copytree(target, tmp / t["function"])
        prog = bench / t["program"] if t.get("program") else None
        opts = Options(
            proposers=("replay",),
            candidates_dir=tmp,
            functions=(t["function"],),
            samples=100,
            tests_dir=(prog / "tests") if prog else None,
            use_cache=False,
            n_random=a.inputs,
        )
        fn, wall = run_one(bench / t["source"], opts)
        want = {e["candidate"][:-2]: e["expected"] for e in expected if e["target"] == target.name}
        agree = [c.label for c in fn.candidates if (c.status == "accepted") == (want.get(c.label) == "accept")]
        differ = [f"{c.label}:{c.reason or 'accepted'}" for c in fn.candidates if c.label not in agree]
        agreed, judged = agreed + len(agree), judged + len(fn.candidates)
        print(
            row(
                "replay",
                target.name,
                fn,
                wall,
                f"agrees with expected.json on {len(agree)}/{len(fn.candidates)}"
                + (f"; differs: {', '.join(differ)}" if differ else ""),
            ),
            flush=True,
        )
        shutil.rmtree(tmp, ignore_errors=True)
    wall = time.perf_counter() - t_all
    print(f"total wall {wall:.1f}s")
    if a.record:
        from record import save

        save(
            "bench_optimizer",
            {
                "replayed candidates whose verdict agrees with expected.json": f"{agreed}/{judged}",
                "functions with a verified speedup": len(speedups),
                "geometric mean of their speedups": round(math.exp(sum(map(math.log, speedups)) / len(speedups)), 2)
                if speedups
                else "-",
                "total wall (s)": round(wall, 1),
            },
        )
    return 0


def _best(fn) -> list[float]:
    """The best accepted candidate's speedup, where the function has one."""
    best = fn.best_result() if fn else None
    timing = deciding_timing(best) if best is not None else None
    return [timing.speedup] if timing is not None else []


if __name__ == "__main__":
    sys.exit(main())
