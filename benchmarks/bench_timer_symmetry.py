"""Benchmark: is the interleaved timer symmetric? Each function's own -O3 code is
timed against itself (the candidate is an identical copy), so every ratio should
read 1.00x: the A/A pair inside the run (baseline vs baseline copy) and the
identical candidate alike. Prints, per function, the median ratio and 95% interval
of both, pooled over the alignments, and the noise floor that a real win must clear.

    .venv/bin/python benchmarks/bench_timer_symmetry.py [--bench DIR] [--rounds N] [--repeat K]

Not a test: figures vary from run to run on a shared machine; quote them with the
command that made them, and compare two versions of the timer side by side in one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from supercoder_lsp import build  # noqa: E402
from supercoder_lsp.asm.cut import cut_function  # noqa: E402
from supercoder_lsp.harness.plan import make_plan  # noqa: E402
from supercoder_lsp.measure.interleaved import InterleavedTimer, TimingSetup  # noqa: E402
from supercoder_lsp.model import BuildConfig  # noqa: E402
from supercoder_lsp.source import parse_functions  # noqa: E402


def targets(bench: Path) -> list[tuple[Path, str]]:
    out = [
        (bench / "functions" / f["file"], f["name"])
        for f in json.loads((bench / "functions" / "meta.json").read_text())["functions"]
    ]
    for meta in sorted((bench / "programs").glob("*/meta.json")):
        m = json.loads(meta.read_text())
        out.append((meta.parent / "prog.c", m["function"]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=str(ROOT.parent / "shared" / "bench"))
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=2, help="runs per function")
    a = ap.parse_args()
    bench = Path(a.bench)
    if not bench.is_dir():
        print(f"no benchmark set at {bench}; pass --bench DIR")
        return 0
    print(f"{'function':16} {'run':>3} {'A/A median (CI)':>22} {'identical (CI)':>22} {'floor':>6}")
    aa_all, same_all = [], []
    for src, name in targets(bench):
        fn = next((f for f in parse_functions(src.read_text()) if f.name == name), None)
        plan = make_plan(fn.signature if fn else None)
        if not plan.supported:
            print(f"{name:16}   - no harness: {plan.why}")
            continue
        with tempfile.TemporaryDirectory() as d:
            cut = cut_function(
                build.compile_to_asm(src, BuildConfig("gcc", ("-O3",), "bench", str(src.parent)), Path(d) / "b.s"), name
            )
            timer = InterleavedTimer(TimingSetup(Path(d) / "t", name, plan, rounds=a.rounds))
            for k in range(a.repeat):
                t = timer.time(cut.text, cut.text, f"same{k}")
                aa = [x["aa"] for x in t.per_alignment]
                floor = max(x["noise_floor"] for x in t.per_alignment)
                aa_ci = t.noise
                aa_all += aa
                same_all.append(t.speedup)
                print(
                    f"{name:16} {k:>3} {statistics.median(aa):>8.2f} ({aa_ci[0]:.2f}-{aa_ci[1]:.2f})"
                    f" {t.speedup:>8.2f} ({t.ci[0]:.2f}-{t.ci[1]:.2f}) {floor:>6.2f}"
                    + ("  FASTER?!" if t.significant else "")
                )
    if same_all:
        print(
            f"\nall: A/A per alignment {min(aa_all):.2f}-{max(aa_all):.2f} (median {statistics.median(aa_all):.2f}); "
            f"identical copy {min(same_all):.2f}-{max(same_all):.2f} (median {statistics.median(same_all):.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
