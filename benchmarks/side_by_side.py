"""bench_lsp.py on two checkouts in one session, alternating: the only comparison that means anything on a
shared, noisy machine. Each run is the checkout's own bench_lsp.py with its own package first on the path
(PYTHONPATH), in the same virtual environment; the medians of each side's figures are printed and, with
--record, kept in benchmarks/results/ with both commits.

    git worktree add /tmp/base HEAD~1
    .venv/bin/python benchmarks/side_by_side.py /tmp/base --runs 5 [--record] [-- --requests 50]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
FIGURES = {
    "first hint (s)": re.compile(r"didSave -> first hint, default settings .*: ([0-9.]+) s"),
    "first hint, 4 jobs (s)": re.compile(r"didSave -> first hint with \d+ parallel jobs: ([0-9.]+) s"),
    "hover p99 (ms)": re.compile(r"hover +p50 +[0-9.]+ ms +p99 +([0-9.]+) ms"),
}


def commit(tree: Path) -> str:
    got = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=tree, capture_output=True)
    return got.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def one_run(tree: Path, extra: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / "bench_lsp.py"), *extra],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    ).stdout
    got = {}
    for name, pattern in FIGURES.items():
        m = pattern.search(out)
        got[name] = float(m.group(1)) if m else float("nan")  # none within the benchmark's timeout
    return got


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", type=Path, help="the other checkout (a git worktree of the commit to compare with)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each side, alternating")
    ap.add_argument("--record", action="store_true", help="keep the medians in benchmarks/results/")
    ap.add_argument("extra", nargs="*", help="arguments for bench_lsp.py (after --)")
    a = ap.parse_args()
    sides = {"base": a.base.resolve(), "this": HERE}
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    for k in range(a.runs):
        for side, tree in sides.items() if k % 2 == 0 else reversed(sides.items()):
            got = one_run(tree, a.extra)
            runs[side].append(got)
            print(f"run {k + 1} {side:4} {commit(tree)}: " + ", ".join(f"{n} {v}" for n, v in got.items()), flush=True)
    figures: dict[str, float | int | str] = {"runs per side": a.runs}
    for side, tree in sides.items():
        figures[f"{side} commit"] = commit(tree)
        for name in FIGURES:
            xs = [r[name] for r in runs[side] if r[name] == r[name]]
            figures[f"{side}: {name}, median"] = round(statistics.median(xs), 2) if xs else "none"
            figures[f"{side}: {name}, all"] = " ".join(f"{r[name]:.2f}" for r in runs[side])
    for k, v in figures.items():
        print(f"  {k}: {v}")
    if a.record:
        sys.path.insert(0, str(HERE / "benchmarks"))
        from record import save

        save("bench_lsp_side_by_side", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
