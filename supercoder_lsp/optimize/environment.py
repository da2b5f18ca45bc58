"""What a run ran on (compiler, flags, CPU, tools, verifier), as every report says it, and the
cache key of one function's result: everything that can change it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import __version__, tools
from ..asm.features import cpu_flags, cpu_model
from ..model import BuildConfig
from ..options import Options
from ..serialize import SCHEMA_VERSION
from ..verify import LIMITS as VERIFICATION_LIMITS
from ..verify import VERIFIER_VERSION


def environment(cfg: BuildConfig, opts: Options) -> dict:
    return {
        "compiler": cfg.compiler,
        "compiler_version": tools.version(cfg.compiler),
        "flags": list(cfg.flags),
        "flags_from": cfg.source,
        "ldflags": list(cfg.ldflags),
        "programs": [list(p) for p in cfg.programs],
        "cpu_model": cpu_model(),
        "cpu_features": sorted(
            cpu_flags()
            & {
                "popcnt",
                "abm",
                "bmi1",
                "bmi2",
                "avx",
                "avx2",
                "fma",
                "sse4_1",
                "sse4_2",
                "ssse3",
                "movbe",
                "avx512f",
                "avx512bw",
                "avx512vl",
                "adx",
                "sse4a",
                "tbm",
            }
        ),
        "proposers": list(opts.proposers),
        "samples": opts.samples,
        "supercoder_version": __version__,
        "verifier_version": VERIFIER_VERSION,
        "verification_limits": list(VERIFICATION_LIMITS),
        "hyperfine": tools.version("hyperfine") if tools.which("hyperfine") else None,
    }


def cache_key(
    opts: Options,
    text: str,
    tests_found: list | None,
    function: str,
    bounds: dict | None,
    env: dict,
    proposers: list[dict],
) -> str:
    h = hashlib.sha256()
    tests = []
    for name, i, o in tests_found or []:
        tests.append([name, hashlib.sha256(i.read_bytes() + b"\0" + o.read_bytes()).hexdigest()])
    bench = hashlib.sha256(Path(opts.bench_input).read_bytes()).hexdigest() if opts.bench_input else None
    key = {
        "schema": SCHEMA_VERSION,
        "version": __version__,
        "verifier": VERIFIER_VERSION,
        "function": function,
        # the whole file: the function's code depends on what it calls and what is inlined into it
        "source": hashlib.sha256(text.encode()).hexdigest(),
        "compiler": env["compiler"],
        "compiler_version": env["compiler_version"],
        "flags": env["flags"],
        "ldflags": env["ldflags"],
        "programs": env.get("programs", []),
        "cpu": [env["cpu_model"], sorted(cpu_flags())],
        "proposers": proposers,
        "samples": opts.samples,
        "bounds": bounds,
        "n_random": opts.n_random,
        "rounds": opts.rounds,
        "min_speedup": opts.min_speedup,
        "tests": tests,
        "bench": bench,
        "workload": opts.workload,
        "own_programs": opts.own_programs,
    }
    h.update(json.dumps(key, sort_keys=True).encode())
    return h.hexdigest()
