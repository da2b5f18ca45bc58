"""Proof by exhaustion: a candidate equal to the original on every input there is.

Same results on 100,000 random inputs miss a candidate that is wrong on one value in four
billion. Where a function's integer parameters span at most 32 bits together and its result
is an integer computed from them alone (no memory, no calls: what the synth proposer handles),
the original and the candidate both run on every input, in contained processes (the seccomp
filter of the harnesses) that split the range between the CPUs, and the first input on which
they differ is reported. The time is estimated on a first chunk; a range the budget does not
cover is said to be only tested. The calling convention is still the harness's to check.

Wider integer inputs (up to six parameters of 64 bits) get a symbolic proof instead
(verify/symbolic.py: angr and z3 in a process of their own), whose counterexample is run on
both objects before it counts.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
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
        {ret} x = sc_orig({call});
        {ret} y = sc_cand({call});
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


def _renamed(name: str, base_obj: Path, cand_obj: Path, workdir: Path, prefix: str) -> list[Path]:
    """Copies of both objects whose function is sc_orig and sc_cand, to link into one driver."""
    objs = []
    for tag, obj in (("orig", base_obj), ("cand", cand_obj)):
        out = workdir / f"{prefix}{tag}.o"
        shutil.copyfile(obj, out)
        build.objcopy(out, f"--redefine-sym={name}=sc_{tag}")
        objs.append(out)
    return objs


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
    objs = _renamed(name, base_obj, cand_obj, workdir, "")
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
    if p.detail == "symbolic":
        *vals, x, y = p.counterexample
        args = ", ".join(f"{q.name}={a}" for q, a in zip(sig.params, vals, strict=True))
        return (
            f"{name}({args}): expected {_signed(sig.ret, x)}, got {_signed(sig.ret, y)} "
            "(found by the symbolic proof, angr + z3, and confirmed by running both)"
        )
    v, x, y = p.counterexample
    args = ", ".join(f"{q.name}={a}" for q, a in zip(sig.params, _inputs(sig, v), strict=True))
    return (
        f"{name}({args}): expected {_signed(sig.ret, x)}, got {_signed(sig.ret, y)} "
        f"(found by the exhaustive proof over all 2^{domain_bits(sig)} inputs)"
    )


# -- symbolic: past 32 bits of input (verify/symbolic.py) --------------------------------

MAX_SYMBOLIC_PARAMS = 6  # integer argument registers


def symbolic_applies(sig: Signature | None) -> bool:
    """Integer and bool parameters in registers and an integer or bool result: what the symbolic
    proof handles (whether it gets through the function's paths in time is another matter)."""
    if sig is None or sig.variadic or not 1 <= len(sig.params) <= MAX_SYMBOLIC_PARAMS:
        return False
    ok = ("int", "bool")
    return all(p.type.kind in ok for p in sig.params) and sig.ret.kind in ok


def _width(t) -> int:
    return 8 if t.kind == "bool" else t.bits


def symbolic(
    name: str,
    sig: Signature,
    base_obj: Path,
    cand_obj: Path,
    workdir: Path,
    budget: float,
    reference: tuple[Path, str] | None = None,
) -> Proof:
    """Equal on every input by symbolic execution of both objects and z3 (verify/symbolic.py), in a
    process of its own; a counterexample is run for real, on the original, before it counts.

    `reference` is (object, label) of another candidate already proven equal to the original: the
    candidate is then compared with it instead (equal to it is equal to the original). Where the
    original is a loop that only induction gets through, two straight-line candidates are a quick
    query, and a wrong one is refuted with an input."""
    workdir.mkdir(parents=True, exist_ok=True)
    spec = {
        "name": name,
        "original": str(reference[0] if reference else base_obj),
        "candidate": str(cand_obj),
        "params": [{"bits": _width(p.type), "signed": bool(p.type.signed)} for p in sig.params],
        "ret_bits": _width(sig.ret),
        "budget": budget,
    }
    path = workdir / "symbolic.json"
    path.write_text(json.dumps(spec))
    t0 = time.perf_counter()
    try:
        r = subprocess.run(
            [sys.executable, "-m", "supercoder_lsp.verify.symbolic", str(path)],
            capture_output=True,
            text=True,
            timeout=budget + 30,  # angr's start-up, and a solver that overruns its timeout
        )
        got = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else {}
    except subprocess.TimeoutExpired:
        got = {"status": "inconclusive", "why": "out of time"}
    except json.JSONDecodeError:
        got = {}
    bits = sum(_width(p.type) for p in sig.params)
    status = got.get("status")
    if status == "proven":
        took = f"{time.perf_counter() - t0:.1f}s"
        if "induction" in got:
            how = f"by induction over the original's loop, invariant {got['induction']}, f the candidate"
        else:
            how = "{} and {} paths".format(*got["paths"])
        if reference:
            how = f"equal to {reference[1]}, which is proven equal to the original; {how}"
        return Proof("proven", f"proven equal on all 2^{bits} inputs (symbolic: angr + z3, {how}, {took})")
    if status == "refuted":
        return _confirmed(name, sig, base_obj, cand_obj, workdir, tuple(got["args"]))
    why = got.get("why") or f"the prover failed: {(r.stderr or '').strip()[-200:]}"
    if status == "inconclusive" and "out of time" in why:
        return Proof("over-budget", f"not proven: the symbolic proof ran out of its {budget:.0f}s (--proof-budget)")
    return Proof("failed", f"not proven: {why}")


def _confirm_driver(sig: Signature) -> str:
    proto = ", ".join(_ctype(p.type) for p in sig.params)
    args = ", ".join(f"({_ctype(p.type)})strtoull(argv[{k + 1}], 0, 10)" for k, p in enumerate(sig.params))
    ret = _ctype(sig.ret)
    return f"""#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
extern {ret} sc_orig({proto});
extern {ret} sc_cand({proto});
int main(int argc, char **argv) {{
    if (argc != {len(sig.params) + 1}) return 2;
    {ret} x = sc_orig({args});
    {ret} y = sc_cand({args});
    printf("%llu %llu\\n", (unsigned long long)x, (unsigned long long)y);
    return 0;
}}
"""


def _confirmed(name: str, sig: Signature, base_obj: Path, cand_obj: Path, workdir: Path, args: tuple) -> Proof:
    """The solver's counterexample, run for real on both objects (contained): a refutation only if
    they really differ there."""
    src = workdir / "confirm.c"
    src.write_text(_confirm_driver(sig))
    objs = _renamed(name, base_obj, cand_obj, workdir, "confirm-")
    exe = workdir / "confirm"
    try:
        build.run_tool(["gcc", "-O1", "-w", "-c", str(src), "-o", str(workdir / "confirm.o")], "compile")
        build.link([workdir / "confirm.o", *objs], exe)
    except build.BuildError as e:
        return Proof("failed", f"not proven: the counterexample could not be run ({e.what})")
    vals = [_signed(p.type, a) if p.type.kind == "int" else a & 1 for p, a in zip(sig.params, args, strict=True)]
    r = run_limited([str(exe), *(str(a & ((1 << 64) - 1)) for a in vals)], timeout=10)
    out = r.stdout.split()
    if r.returncode != 0 or len(out) != 2:
        return Proof("failed", f"not proven: the counterexample run ended with {r.returncode}")
    x, y = int(out[0]), int(out[1])
    if x == y:
        return Proof("failed", "not proven: the solver's counterexample gives the same result when run")
    return Proof("refuted", "symbolic", (*vals, x, y))
