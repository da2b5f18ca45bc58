"""Measured hotness: exclusive instruction counts (Ir) from valgrind's callgrind.

`callgrind_profile` runs the program under `valgrind --tool=callgrind` and
parses the callgrind output file itself (the format is stable and documented;
parsing `callgrind_annotate` text output would depend on its layout).

Names: profile keys are source-level function names.  Callgrind's recursion
suffixes (`fib'2`) and GCC clone suffixes (`f.cold`, `f.part.0`, `f.isra.0`,
`f.constprop.0`, `f.lto_priv.0`, ...) are merged into the parent `f`, because
that is the C function a user would edit.  By default only functions in the
profiled executable itself are counted (not libc or the dynamic loader);
pass all_objects=True to keep every object (same-named functions are summed).
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from typing import Any

from ..tools import die_with_parent

INSTALL_HINT = "install it with `sudo apt-get install valgrind` (Debian/Ubuntu) or your package manager"


class ProfileError(RuntimeError):
    """Profiling failed; the message says why."""


class ValgrindNotFound(ProfileError):
    """valgrind is not installed or not on PATH."""


class ProfileTimeout(ProfileError):
    """The program did not finish under valgrind in time."""


class ProgramFailed(ProfileError):
    """The program (or valgrind) exited with a non-zero status."""

    def __init__(self, message: str, returncode: int, stderr: str):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


# --- the callgrind file format -------------------------------------------------------

_SPEC = re.compile(r"^([a-z]+)=(.*)$")
_HEADER = re.compile(r"^([a-z]+):\s*(.*)$")
_COMPRESSED = re.compile(r"^\((\d+)\)\s*(.*)$")
_TABLE = {
    "ob": "ob",
    "cob": "ob",
    "fl": "fl",
    "fi": "fl",
    "fe": "fl",
    "cfi": "fl",
    "cfl": "fl",
    "fn": "fn",
    "cfn": "fn",
}
_RECURSION = re.compile(r"'\d+$")
_CLONE = re.compile(r"^(.+?)(?:\.(?:cold|part|isra|constprop|lto_priv|localalias|clone|specialize)(?:\.\d+)?)+$")


def parse_callgrind_file(path: str, inclusive: bool = False) -> tuple[dict[tuple[str, str], int], int | None]:
    """Exclusive Ir per (object, raw function name) in one callgrind output file.

    Returns (costs, total) where total is the file's `summary:`/`totals:` Ir
    (None if absent).  Costs on the line after `calls=` are inclusive costs of
    the call and are not counted for the caller, unless `inclusive`: then each
    function's cost is its own and its calls' (a recursive one's counts its
    recursion again: an upper bound).
    """
    tables: dict[str, dict[str, str]] = {"ob": {}, "fl": {}, "fn": {}}
    costs: dict[tuple[str, str], int] = {}
    npos, ir_index = 1, 0
    sums: dict[str, int] = {}
    ob = fn = ""
    skip_next_cost = False

    def resolve(kind: str, value: str) -> str:
        m = _COMPRESSED.match(value)
        if not m:
            return value.strip()
        table = tables[_TABLE[kind]]
        if m.group(2):
            table[m.group(1)] = m.group(2).strip()
        return table.get(m.group(1), f"({m.group(1)})")

    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            if line[0].isdigit() or line[0] in "+-*":
                if skip_next_cost:
                    skip_next_cost = False
                    if not inclusive:
                        continue
                values = line.split()[npos:]
                if ir_index < len(values):
                    costs[(ob, fn)] = costs.get((ob, fn), 0) + int(values[ir_index] or 0)
                continue
            m = _SPEC.match(line)
            if m:
                key, value = m.groups()
                if key in _TABLE:
                    name = resolve(key, value)
                    if key == "ob":
                        ob = name
                    elif key == "fn":
                        fn = name
                elif key == "calls":
                    skip_next_cost = True
                continue
            m = _HEADER.match(line)
            if m:
                key, value = m.groups()
                if key == "positions":
                    npos = max(1, len(value.split()))
                elif key == "events":
                    events = value.split()
                    ir_index = events.index("Ir") if "Ir" in events else 0
                elif key in ("summary", "totals"):
                    parts = value.split()
                    if ir_index < len(parts):
                        sums[key] = sums.get(key, 0) + int(parts[ir_index])
    return costs, sums.get("summary", sums.get("totals"))


def source_name(raw: str) -> str:
    """`fib'2` -> `fib`, `f.cold` / `f.part.0` / `f.constprop.1` -> `f`."""
    name = _RECURSION.sub("", raw.strip())
    m = _CLONE.match(name)
    return m.group(1) if m else name


def merge_costs(costs: dict[tuple[str, str], int], exe: str | None = None, all_objects: bool = False) -> dict[str, int]:
    """Sum raw costs into source-level names, keeping only `exe`'s functions unless all_objects.

    When no object matches `exe` (e.g. an unexpected path), every object is kept.
    """
    keep = None
    if exe and not all_objects:
        real = os.path.realpath(exe)
        keep = {ob for ob, _ in costs if ob and os.path.realpath(ob) == real}
        keep = keep or None
    out: dict[str, int] = {}
    for (ob, fn), ir in costs.items():
        if keep is not None and ob not in keep:
            continue
        name = source_name(fn)
        out[name] = out.get(name, 0) + ir
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


# --- running --------------------------------------------------------------------------


def _tail(path: str, limit: int = 2000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - limit))
            return fh.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _resolve_exe(exe: str, cwd) -> str:
    if not os.path.isabs(exe) and cwd is not None and os.path.exists(os.path.join(cwd, exe)):
        exe = os.path.join(cwd, exe)
    exe = os.path.abspath(exe)
    if not os.path.isfile(exe):
        raise ProfileError(f"executable not found: {exe}")
    return exe


def callgrind_profile(
    exe: str,
    *,
    stdin_path: str | None = None,
    workload: str | None = None,
    cwd=None,
    timeout: float = 120,
    all_objects: bool = False,
) -> dict[str, int]:
    """Run `exe` under callgrind and return exclusive Ir per function name, hottest first.

    Without `workload` the program runs with no arguments.  `workload` is a
    shell command line in which `{exe}` is replaced by the valgrind-wrapped
    executable, e.g. "{exe} --size 1000 < input.txt"; it must contain `{exe}`.
    stdin comes from `stdin_path` (or /dev/null).  A relative `exe` is looked
    up in `cwd` first.  Raises ValgrindNotFound, ProfileTimeout, ProgramFailed
    (non-zero exit) or ProfileError (anything else).
    """
    exe = _resolve_exe(exe, cwd)
    costs, _ = _profiled(exe, stdin_path, workload, cwd, timeout, inclusive=False)
    return merge_costs(costs, exe, all_objects)


def inclusive_shares(exe: str, *, stdin_path: str | None = None, workload: str | None = None) -> dict[str, float]:
    """Each function's share (0-1) of all the instructions the program ran (the loader's and libraries'
    included), with what it calls: the most that making it free could save (Amdahl's bound)."""
    exe = _resolve_exe(exe, None)
    costs, total = _profiled(exe, stdin_path, workload, None, 300, inclusive=True)
    if total <= 0:
        raise ProfileError("callgrind counted no instructions")
    shares = {name: 0.0 for name in _functions(exe)}  # out of line and never run: none of the time
    shares.update({name: min(1.0, ir / total) for name, ir in merge_costs(costs, exe).items()})
    return shares


def _profiled(
    exe: str, stdin_path: str | None, workload: str | None, cwd, timeout: float, *, inclusive: bool
) -> tuple[dict[tuple[str, str], int], int]:
    """Ir per (object, raw function name) over every process of `exe` the workload ran, and the total."""
    if workload is not None and "{exe}" not in workload:
        raise ValueError(f"workload must contain the placeholder {{exe}} where the program goes: {workload!r}")
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise ValgrindNotFound(f"valgrind is needed to measure hotness but was not found on PATH; {INSTALL_HINT}")
    with tempfile.TemporaryDirectory(prefix="supercoder-callgrind-") as tmp:
        out = os.path.join(tmp, "callgrind.out.%p")
        argv = [valgrind, "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}", exe]
        cmd: list[str] | str = workload.replace("{exe}", shlex.join(argv)) if workload is not None else argv
        rc = _run(cmd, exe, stdin_path, cwd, tmp, timeout)
        stderr = _tail(os.path.join(tmp, "stderr"))
        if rc != 0:
            how = f"was killed by signal {-rc}" if rc < 0 else f"exited with status {rc}"
            raise ProgramFailed(f"{os.path.basename(exe)} {how} under callgrind:\n{stderr}", rc, stderr)
        files = sorted(glob.glob(os.path.join(tmp, "callgrind.out.*")))
        if not files:
            raise ProfileError(f"callgrind wrote no profile (did the workload run {{exe}}?):\n{stderr}")
        costs: dict[tuple[str, str], int] = {}
        total = 0
        for path in files:
            got, t = parse_callgrind_file(path, inclusive=inclusive)
            total += t or 0
            for key, ir in got.items():
                costs[key] = costs.get(key, 0) + ir
    return costs, total


def _functions(exe: str) -> list[str]:
    """The source names of the functions the program defines out of line."""
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    with open(exe, "rb") as fh:
        symtab = ELFFile(fh).get_section_by_name(".symtab")
        if not isinstance(symtab, SymbolTableSection):
            return []
        return [
            source_name(sym.name)
            for sym in symtab.iter_symbols()
            if sym["st_info"]["type"] == "STT_FUNC" and sym["st_shndx"] != "SHN_UNDEF" and sym.name
        ]


def _run(cmd: list[str] | str, exe: str, stdin_path: str | None, cwd, tmp: str, timeout: float) -> int:
    """Run the (valgrind-wrapped) command in its own session, output to files in `tmp`; its exit status."""
    out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
    stdin: Any = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                cmd,
                shell=isinstance(cmd, str),
                stdin=stdin,
                stdout=out,
                stderr=err,
                cwd=cwd,
                start_new_session=True,
                preexec_fn=functools.partial(die_with_parent, os.getpid()),
            )
            try:
                return proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
                raise ProfileTimeout(
                    f"{os.path.basename(exe)} did not finish within {timeout:g}s under callgrind "
                    "(programs run about 50x slower there); use a smaller workload or a larger timeout"
                ) from None
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
