"""Shared test set-up: print the toolchain and CPU in pytest's header."""

from __future__ import annotations

import os

from supercoder_lsp import tools
from supercoder_lsp.asm.features import cpu_flags, cpu_model


def _nvim_version() -> str:
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "nvim"
    exe = str(exe) if exe.exists() else shutil.which("nvim")
    if not exe:
        return "missing"
    try:
        return subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20).stdout.splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return f"{exe} (not runnable)"


def pytest_report_header(config):
    feats = sorted(cpu_flags() & {"popcnt", "abm", "bmi1", "bmi2", "avx2", "avx512f"})
    return [
        f"gcc: {tools.version('gcc') or 'missing'}",
        f"clang: {tools.version('clang') or 'missing'}",
        f"hyperfine: {tools.version('hyperfine') or 'missing'}",
        f"valgrind: {tools.version('valgrind') or 'missing'}",
        f"nvim: {_nvim_version()}",
        f"node: {tools.version('node') or 'missing'}",
        f"cpu: {cpu_model()} ({' '.join(feats)}), {os.cpu_count()} cores",
    ]


# The fast tier (`make test-fast`, under a minute on two cores): each stage on its own, with real gcc,
# but no editors, no language server, no whole command runs and no hyperfine; the verifier's attacks,
# recorded calls, probes, synthesis and timing are the whole run's (they took 4 of its 5 minutes).
FAST = {
    "test_asm",
    "test_screen",
    "test_statics",
    "test_portable",
    "test_objscreen",
    "test_source",
    "test_source_replaced",
    "test_build",
    "test_debuginfo",
    "test_present",
    "test_slots",
    "test_verify",
    "test_cache",
    "test_hotness",
    "test_layout",
    "test_docs_site",
}


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if item.module.__name__.rsplit(".", 1)[-1] in FAST:
            item.add_marker(pytest.mark.fast)


# An editor or language-server test that does not run hides the product's main path: it may skip only for a
# tool this machine lacks (its reason starts "missing tool:"). Any other skip there (a noisy machine, a flaky
# wait) fails the run, after pytest's summary (`-rs`) has listed every skip and why.
EDITOR_TESTS = ("tests/editors/", "tests/lsp/")
_BAD_SKIPS: list[str] = []


def pytest_runtest_logreport(report):
    if not report.skipped or not report.nodeid.startswith(EDITOR_TESTS):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if not reason.removeprefix("Skipped: ").startswith("missing tool:"):
        _BAD_SKIPS.append(f"{report.nodeid}: {reason}")


def pytest_sessionfinish(session, exitstatus):
    if _BAD_SKIPS and not hasattr(session.config, "workerinput"):  # the run's own process, not an xdist worker
        print("\nEditor tests skipped for something other than a missing tool (a failure of the test's design):")
        for line in _BAD_SKIPS:
            print(f"  {line}")
        session.exitstatus = 1
