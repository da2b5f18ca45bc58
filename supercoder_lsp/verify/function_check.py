"""Differential testing of one function against its -O3 original.

The baseline and the candidate each live in their own object, linked into
their own copy of a generated harness (another translation unit, so gcc's
IPA-RA cannot make the caller depend on which registers the callee leaves
alone). Each harness process writes one record per input (return value and a
hash of every buffer); the records are compared here, outside the process that
ran the candidate, which never sees the expected outputs.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .. import build
from ..harness import include_dir
from .harness_c import render_verify
from ..harness.plan import Plan
from .sandbox import run_limited

RECORD = 16
BASELINE_SECONDS = 120
HARNESS_SYMBOL = "sc_fn"


@dataclass
class Check:
    ok: bool
    reason: str | None  # "link-error", "wrong-output", "crash", "timeout", "abi-violation"
    detail: str
    inputs: int


def _pkg_dir(pkg: str) -> Path:
    return Path(str(resources.files(pkg)))


def rename_symbol(obj_in: Path, obj_out: Path, name: str, new: str) -> None:
    shutil.copyfile(obj_in, obj_out)
    build.objcopy(obj_out, f"--redefine-sym={name}={new}")


class FunctionHarness:
    """Generated harness for one function: build once, check many candidates."""

    def __init__(self, workdir: Path, name: str, plan: Plan, *, n_random: int = 100_000, seed: int = 0x5C0DE,
                 support_objs: tuple[Path, ...] = (), min_timeout: float = 5.0):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.plan = plan
        self.n_random = n_random
        self.seed = seed
        self.support = list(support_objs)
        self.min_timeout = min_timeout
        self.n_inputs = 0
        self.base_seconds = 0.0
        self.base_records = b""

    # -- building -------------------------------------------------------------
    def _build_runtime(self) -> None:
        rt = include_dir()
        src = self.dir / "harness.c"
        src.write_text(render_verify(self.plan, self.seed, self.n_random))
        build.run_tool(["gcc", "-O1", "-g0", "-w", "-I", str(rt), "-c", str(src), "-o", str(self.dir / "harness.o")], "compile harness")
        build.run_tool(["gcc", "-c", str(_pkg_dir("supercoder_lsp.verify") / "tramp.S"), "-o", str(self.dir / "tramp.o")], "assemble trampoline")

    def link(self, impl_obj: Path, tag: str) -> Path:
        """Link the harness with an object defining the function; raises BuildError."""
        renamed = self.dir / f"{tag}.impl.o"
        rename_symbol(impl_obj, renamed, self.name, HARNESS_SYMBOL)
        exe = self.dir / f"{tag}.harness"
        build.link([self.dir / "harness.o", self.dir / "tramp.o", renamed, *self.support], exe)
        return exe

    def prepare(self, base_obj: Path) -> None:
        """Build the harness and record the baseline's outputs on every input."""
        self._build_runtime()
        exe = self.link(base_obj, "baseline")
        r = run_limited([str(exe), "run", str(10**9), str(BASELINE_SECONDS)], timeout=BASELINE_SECONDS + 10, binary=True)
        if r.timed_out or r.returncode == 5:
            raise RuntimeError(f"the -O3 baseline needs over {BASELINE_SECONDS}s for the generated inputs; "
                               "bound them (--bound FUNC.PARAM=LOW:HIGH or [bounds.FUNC] in .supercoder.toml)")
        if r.returncode != 0:
            raise RuntimeError(f"the -O3 baseline itself fails in the harness ({r.stderr.strip() or r.returncode}); "
                               "give input bounds for its parameters (--bound NAME=LOW:HIGH)")
        records = r.stdout
        self.base_exe = exe
        self.base_records = records
        self.n_inputs = len(self.base_records) // RECORD
        self.base_seconds = r.seconds

    # -- checking -------------------------------------------------------------
    def _show(self, exe: Path, i: int) -> tuple[str, str]:
        r = run_limited([str(exe), "show", str(i)], timeout=10)
        lines = r.stdout.strip().splitlines()
        inp = lines[0] if lines else "?"
        if r.returncode != 0:
            return inp, (r.stderr.strip() or f"exit code {r.returncode}")
        return inp, " / ".join(lines[1:]) or "?"

    def _input(self, i: int) -> str:
        return self._show(self.base_exe, i)[0].replace("f(", f"{self.name}(", 1)

    def check(self, cand_obj: Path, tag: str) -> Check:
        try:
            exe = self.link(cand_obj, tag)
        except build.BuildError as e:
            return Check(False, "link-error", e.output, 0)
        budget = max(self.min_timeout, 20 * self.base_seconds)
        r = run_limited([str(exe), "run", str(self.n_inputs), str(int(budget))], timeout=budget + 5, binary=True)
        m = re.search(r"at input (\d+)", r.stderr)
        idx = int(m.group(1)) if m else None
        where = f" on input {self._input(idx)}" if idx is not None else ""
        if r.returncode == 6 or r.killed_by_seccomp:
            sc = re.search(r"forbidden system call (\d+)", r.stderr)
            return Check(False, "unsafe", f"made a forbidden system call{' (number ' + sc.group(1) + ')' if sc else ''}{where}; "
                         "the seccomp filter stopped it", idx or 0)
        if r.timed_out or r.returncode == 5:
            return Check(False, "timeout", f"did not finish within {budget:.0f}s (the baseline took {self.base_seconds:.2f}s){where}", idx or 0)
        if r.returncode == 3:
            reg = r.stderr.strip().split(": ", 1)[-1]
            what = {"%rsp": "%rsp not restored", "direction flag": "direction flag left set",
                    "MXCSR": "MXCSR changed", "x87 control word": "x87 control word changed"}.get(reg, f"callee-saved {reg} not preserved")
            return Check(False, "abi-violation", f"{what}{where}", idx or 0)
        if r.returncode != 0:
            sig = re.search(r"signal (\d+)", r.stderr)
            desc = f"signal {sig.group(1)}" if sig else f"exit code {r.returncode}"
            return Check(False, "crash", f"{desc}{where}", idx or 0)
        got = r.stdout
        if got == self.base_records:
            return Check(True, None, f"same results on {self.n_inputs:,} inputs", self.n_inputs)
        if len(got) < len(self.base_records) and got == self.base_records[:len(got)]:
            return Check(False, "crash", f"exited early, after {len(got) // RECORD:,} of {self.n_inputs:,} inputs", len(got) // RECORD)
        n = min(len(got), len(self.base_records)) // RECORD
        first = next((i for i in range(n) if got[i * RECORD:(i + 1) * RECORD] != self.base_records[i * RECORD:(i + 1) * RECORD]), n)
        inp, expected = self._show(self.base_exe, first)
        _, actual = self._show(exe, first)
        inp = inp.replace("f(", f"{self.name}(", 1)
        return Check(False, "wrong-output", f"{inp}: expected {expected}, got {actual}", first)
