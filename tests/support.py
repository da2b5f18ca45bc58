"""What tests share: where the fixtures and the repository are, the command as a user runs it,
and a function harness over real gcc output."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.build.debuginfo import compile_debug_object, compiled_functions
from supercoder_lsp.harness.plan import make_plan
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.source import parse_functions
from supercoder_lsp.verify.function_check import FunctionHarness

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def supercoder(
    *args: str, cache: Path | None = None, cwd: Path | None = None, prove: bool = False
) -> subprocess.CompletedProcess:
    """The command line, as a user runs it. `optimize` and `eval` run without the symbolic proof unless
    `prove` or the test gives --proof-budget: proofs are tests/verify/test_symbolic.py's and test_synth.py's,
    and the proof alone took 94 of the 100 s of one test here."""
    if args and args[0] in ("optimize", "eval") and not prove and "--proof-budget" not in args:
        args = (*args, "--proof-budget", "0")
    env = dict(os.environ)
    if cache is not None:
        env["SUPERCODER_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-m", "supercoder_lsp.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=cwd or ROOT,
    )


def run_json(*args: str, cache: Path | None = None, cwd: Path | None = None, prove: bool = False) -> dict:
    p = supercoder("optimize", "--json", *args, *([] if cache else ["--no-cache"]), cache=cache, cwd=cwd, prove=prove)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def by_label(fn: dict) -> dict:
    return {c["label"]: c for c in fn["candidates"]}


def asm_fn(name: str, body: str) -> str:
    return f"\t.text\n\t.globl\t{name}\n\t.type\t{name}, @function\n{name}:\n{body}\n\t.size\t{name}, .-{name}\n"


def make_harness(
    tmp: Path, c_file: Path, name: str, *, bounds=None, n_random=20_000, flags=("-O3",), compiled_types=False
):
    cfg = BuildConfig("gcc", flags, "test", str(c_file.parent))
    asm = build.compile_to_asm(c_file, cfg, tmp / "base.s")
    cut = cut_function(asm, name)
    base = tmp / "base.o"
    build.assemble(cut.text, base)
    fn = next(f for f in parse_functions(c_file.read_text()) if f.name == name)
    sig = fn.signature
    if compiled_types:  # the signature as the compiler saw it (macros, typedefs, struct layouts)
        compile_debug_object(c_file, cfg, tmp / "debug.o")
        sig = compiled_functions(tmp / "debug.o")[name].signature
    plan = make_plan(sig, bounds)
    assert plan.supported, plan.why
    support = ()
    if cut.external_refs:
        obj = tmp / "file.o"
        build.compile_object(c_file, cfg, obj)
        build.objcopy(obj, "--weaken")
        support = (obj,)
    h = FunctionHarness(tmp / "h", name, plan, n_random=n_random, support_objs=support, min_timeout=2)
    h.prepare(base)
    return h, cut


_SHARED: dict[tuple, tuple] = {}


def shared_harness(c_file: Path, name: str, **kw):
    """make_harness's harness of `name` in `c_file` (and its cut), built once in this test process and checked
    once against its own original, which must pass: a harness is built once to check many candidates, and a
    check leaves it as it was (it keeps only the original's runs on a candidate's constants, by those
    constants), so the tests that attack one original share its harness (test_verify_attacks.py's sum_ints.c,
    twenty of them: its harness and self-check were 7 of each one's 11 s)."""
    key = (str(c_file), name, tuple(sorted((k, repr(v)) for k, v in kw.items())))
    if key not in _SHARED:
        tmp = Path(tempfile.mkdtemp(prefix=f"sc-shared-{name}-"))
        atexit.register(shutil.rmtree, tmp, True)
        h, cut = make_harness(tmp, c_file, name, **kw)
        self_check = check_asm(h, tmp, cut.text, "self")
        assert self_check.ok, self_check.detail  # the original against itself passes
        _SHARED[key] = (h, cut)
    return _SHARED[key]


def check_asm(h: FunctionHarness, tmp: Path, text: str, tag: str):
    obj = tmp / f"{tag}.o"
    build.assemble(text, obj)
    return h.check(obj, tag)


def pipeline_on_rewrites(tmp: Path, src: Path, fn: str, *rewrites: Path, **options):
    """The pipeline on `fn` of `src`, its candidates the given C rewrites (each built at gcc -O3 and cut),
    as the replay proposer gives them; `options` override the Options (3,000 random inputs, 4 rounds)."""
    from supercoder_lsp.optimize.pipeline import Options, Pipeline

    d = tmp / "cands" / fn
    d.mkdir(parents=True)
    cfg = BuildConfig("gcc", ("-O3",), "test", str(src.parent))
    for c in rewrites:
        (d / f"{c.stem}.s").write_text(cut_function(build.compile_to_asm(c, cfg, tmp / f"{c.stem}.s"), fn).text)
    opts = dict(proposers=("replay",), candidates_dir=tmp / "cands", functions=(fn,), n_random=3000, rounds=4)
    opts.update(use_cache=False, **options)
    [res] = Pipeline(Options(**opts)).run(src).functions
    return res


def noise_hid(c) -> bool:
    """Whether the run's own A/A control (the same -O3 code at two addresses, timed beside the candidate) put the
    noise floor at 2x or more: a modest gain then rightly gets no claim. The tests whose point is a claim use a
    win no noise hides (tests/fixtures/lsp/popcount.c's 64-step loop against SWAR); this is for those whose point
    is elsewhere (a proposer's verdicts, a synthesized change) and that also check a modest gain where it shows."""
    t = c.timing
    return t is not None and max((a["noise_floor"] for a in t.per_alignment), default=0.0) >= 2.0
