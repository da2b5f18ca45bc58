"""Proof by exhaustion: a candidate equal to the original on every input there is.

Same results on 100,000 random inputs miss a candidate that is wrong on one value in four
billion. Where a function's integer parameters span at most 32 bits together and its result
is an integer computed from them alone (no memory, no calls: what the synth proposer handles),
the original and the candidate both run on every input, in contained processes (the seccomp
filter of the harnesses) that split the range between the CPUs, and the first input on which
they differ is reported. The time is estimated on a first chunk; a range the budget does not
cover is said to be only tested. The calling convention is still the harness's to check.
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .. import build
from ..harness import include_dir
from ..harness.plan import scalar_ctype as _ctype
from ..model import Signature
from .sandbox import run_limited

MAX_BITS = 32
FIRST_CHUNK = 1 << 20


@dataclass
class Proof:
    status: str  # "proven", "refuted", "over-budget", "failed"
    detail: str
    counterexample: tuple[int, ...] | None = None


def domain_bits(sig: Signature | None) -> int | None:
    """Total bits of the parameters when the function can be proven by exhaustion, else None."""
    if sig is None or sig.variadic or not 1 <= len(sig.params) <= 2:
        return None
    if not all(p.type.kind in ("int", "bool") for p in sig.params) or sig.ret.kind not in ("int", "bool"):
        return None
    total = sum(1 if p.type.kind == "bool" else p.type.bits for p in sig.params)
    return total if total <= MAX_BITS else None


def _driver(sig: Signature) -> str:
    ps = sig.params
    widths = [1 if p.type.kind == "bool" else p.type.bits for p in ps]
    args, shift = [], 0
    for p, w in zip(ps, widths, strict=True):
        args.append(f"({_ctype(p.type)})((v >> {shift}) & {(1 << w) - 1}ULL)")
        shift += w
    proto = ", ".join(_ctype(p.type) for p in ps)
    ret = _ctype(sig.ret)
    call = ", ".join(args)
    return f"""#include <stdint.h>
#include "sc_sandbox.h"
extern {ret} sc_orig({proto});
extern {ret} sc_cand({proto});
int main(int argc, char **argv) {{
    if (argc != 4) return 2;
    uint64_t lo = strtoull(argv[1], 0, 10), hi = strtoull(argv[2], 0, 10);
    int fd = atoi(argv[3]);
    sc_sandbox_enter(SC_STRICT, fd);
    for (uint64_t v = lo; v < hi; v++) {{
        {ret} x = sc_orig({call}), y = sc_cand({call});
        if (x != y) {{
            uint64_t rec[3] = {{ v, (uint64_t)x, (uint64_t)y }};
            if (write(fd, rec, sizeof rec) != sizeof rec) _exit(3);
            _exit(1);
        }}
    }}
    _exit(0);
}}
"""


def _inputs(sig: Signature, v: int) -> tuple[int, ...]:
    out, shift = [], 0
    for p in sig.params:
        w = 1 if p.type.kind == "bool" else p.type.bits
        x = (v >> shift) & ((1 << w) - 1)
        if p.type.signed and p.type.kind == "int" and x >> (w - 1):
            x -= 1 << w
        out.append(x)
        shift += w
    return tuple(out)


def _signed(t, x: int) -> int:
    x &= (1 << t.bits) - 1
    return x - (1 << t.bits) if t.kind == "int" and t.signed and x >> (t.bits - 1) else x


def exhaustive(
    name: str, sig: Signature, base_obj: Path, cand_obj: Path, workdir: Path, budget: float, jobs: int = 0
) -> Proof:
    """Compare the candidate with the original on every input, within `budget` seconds."""
    bits = domain_bits(sig)
    assert bits is not None, "not a function this proof handles"
    n = 1 << bits
    workdir.mkdir(parents=True, exist_ok=True)
    src = workdir / "prove.c"
    src.write_text(_driver(sig))
    objs = []
    for tag, obj in (("orig", base_obj), ("cand", cand_obj)):
        out = workdir / f"{tag}.o"
        shutil.copyfile(obj, out)
        build.objcopy(out, f"--redefine-sym={name}=sc_{tag}")
        objs.append(out)
    exe = workdir / "prove"
    try:
        build.run_tool(
            ["gcc", "-O2", "-w", "-I", str(include_dir()), "-c", str(src), "-o", str(workdir / "prove.o")],
            "compile the proof driver",
        )
        build.link([workdir / "prove.o", *objs], exe)
    except build.BuildError as e:
        return Proof("failed", f"the proof driver did not build ({e.what})")
    jobs = jobs or max(1, min(os.cpu_count() or 1, 8))
    t0 = time.perf_counter()
    # two first chunks, small and 16 times as large: their difference is the time per input without
    # the start-up of a process
    chunks = (min(n, FIRST_CHUNK // 16), min(n, FIRST_CHUNK))
    took = []
    for lo, hi in ((0, chunks[0]), (chunks[0], chunks[0] + chunks[1])):
        if lo >= hi:
            took.append(0.0)
            continue
        t = time.perf_counter()
        first = _run(exe, lo, min(hi, n), workdir, max(budget, 10))
        if first is not None:
            return first
        took.append(time.perf_counter() - t)
    done = min(n, chunks[0] + chunks[1])
    per = max(took[1] - took[0], 1e-3 * took[1]) / max(chunks[1] - chunks[0], 1)
    rest = n - done
    need = per * rest / jobs
    if need > budget:
        return Proof(
            "over-budget",
            f"not proven: all 2^{bits} inputs would take about {need:.0f}s, "
            f"over the proof budget of {budget:.0f}s (--proof-budget)",
        )
    step = -(-rest // jobs) if rest else 0
    ranges = [(done + k * step, min(n, done + (k + 1) * step)) for k in range(jobs) if rest]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        got = list(
            pool.map(lambda r: _run(exe, r[0], r[1], workdir, max(3 * need, 10)), [r for r in ranges if r[0] < r[1]])
        )
    for g in got:
        if g is not None:
            return g
    return Proof("proven", f"proven equal on all 2^{bits} inputs (exhaustive, {time.perf_counter() - t0:.1f}s)")


def _run(exe: Path, lo: int, hi: int, workdir: Path, timeout: float) -> Proof | None:
    """None when the range agrees; a Proof when it does not or the run fails."""
    fd, path = tempfile.mkstemp(prefix="sc-proof-", dir=workdir)
    try:
        r = run_limited([str(exe), str(lo), str(hi), str(fd)], timeout=timeout, pass_fds=(fd,), binary=True)
        data = Path(path).read_bytes()
    finally:
        os.close(fd)
        os.unlink(path)
    if r.returncode == 0:
        return None
    if r.returncode == 1 and len(data) >= 24:
        v, x, y = struct.unpack_from("<3Q", data)
        return Proof("refuted", "", (v, x, y))
    why = "timed out" if r.timed_out else f"ended with {r.returncode}"
    return Proof("failed", f"the exhaustive run {why} on inputs {lo}..{hi}")


def describe_counterexample(name: str, sig: Signature, p: Proof) -> str:
    assert p.counterexample is not None
    v, x, y = p.counterexample
    args = ", ".join(f"{q.name}={a}" for q, a in zip(sig.params, _inputs(sig, v), strict=True))
    return (
        f"{name}({args}): expected {_signed(sig.ret, x)}, got {_signed(sig.ret, y)} "
        f"(found by the exhaustive proof over all 2^{domain_bits(sig)} inputs)"
    )
