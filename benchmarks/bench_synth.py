"""Benchmark: the synth proposer against the compilers proposer, side by side in one run, over
the functions and programs of ../shared/bench.

    .venv/bin/python benchmarks/bench_synth.py [--bench DIR] [--only NAME] [--proof-budget S]

Per function: what synth found (the expression of its best candidate), the seconds its
proposer took (sampling the original and enumerating), the claim's level (proven on all
2^k inputs, or tested on N), its speedup, and the compilers proposer's best speedup on the
same function, then the geometric means over all functions (a function without a verified
win counts 1.0). Not a test: quote the figures with the command that made them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from supercoder_lsp.optimize.pipeline import Options, Pipeline  # noqa: E402
from supercoder_lsp.results import deciding_timing  # noqa: E402


def targets(bench: Path) -> list[tuple[str, Path, str, Path | None]]:
    out = []
    for prog in sorted((bench / "programs").iterdir()):
        meta = json.loads((prog / "meta.json").read_text())
        out.append((prog.name, prog / "prog.c", meta["function"], prog / "tests"))
    for meta in json.loads((bench / "functions" / "meta.json").read_text())["functions"]:
        out.append((meta["name"], bench / "functions" / meta["file"], meta["name"], None))
    return out


def best_of(path: Path, fn: str, tests: Path | None, proposer: str, budget: float):
    opts = Options(
        proposers=(proposer,), functions=(fn,), tests_dir=tests, use_cache=False, proof_budget=budget, samples=8
    )
    t = time.perf_counter()
    [res] = Pipeline(opts).run(path).functions
    return res, time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "bench")
    ap.add_argument("--only", default=None)
    ap.add_argument("--proof-budget", type=float, default=30.0)
    a = ap.parse_args()
    if not a.bench.is_dir():
        print(f"no benchmark set at {a.bench}; nothing to do")
        return 0
    print(f"{'name':18} {'synth found':44} {'find s':>6} {'claim':34} {'synth':>7} {'compilers':>9}")
    logs: dict[str, list[float]] = {"synth": [], "compilers": [], "both": []}
    for name, path, fn, tests in targets(a.bench):
        if a.only and a.only != name:
            continue
        got = {}
        for proposer in ("synth", "compilers"):
            res, _ = best_of(path, fn, tests, proposer, a.proof_budget)
            best = res.best_result()
            t = deciding_timing(best) if best else None
            got[proposer] = (res, best, t.speedup if t else 1.0)
        res, best, sp = got["synth"]
        cand = res.candidates[0] if res.candidates else None
        found = "-"
        if cand is not None and cand.source_change is not None:
            found = cand.source_change.text.split("return", 1)[-1].split(";", 1)[0].strip()
        elif res.candidates == []:
            found = "(nothing: not a scalar function, or no expression)"
        claim = "-"
        if best is not None:
            claim = best.proof or f"tested on {best.inputs_checked:,} inputs"
        elif cand is not None:
            claim = f"{cand.reason}"
        find_s = res.stage_seconds.get("propose", 0.0)
        print(
            f"{name:18} {found[:44]:44} {find_s:6.1f} {claim[:34]:34} {sp:6.2f}x {got['compilers'][2]:8.2f}x",
            flush=True,
        )
        logs["synth"].append(math.log(sp))
        logs["compilers"].append(math.log(got["compilers"][2]))
        logs["both"].append(math.log(max(sp, got["compilers"][2])))
    for k, v in logs.items():
        if v:
            print(f"geometric mean over {len(v)} functions, {k}: {math.exp(sum(v) / len(v)):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
