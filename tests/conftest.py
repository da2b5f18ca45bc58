"""Shared test set-up: print the toolchain and CPU in pytest's header."""

from __future__ import annotations

import os

from supercoder_lsp import tools
from supercoder_lsp.asm.features import cpu_flags, cpu_model


def pytest_report_header(config):
    feats = sorted(cpu_flags() & {"popcnt", "abm", "bmi1", "bmi2", "avx2", "avx512f"})
    return [
        f"gcc: {tools.version('gcc') or 'missing'}",
        f"clang: {tools.version('clang') or 'missing'}",
        f"hyperfine: {tools.version('hyperfine') or 'missing'}",
        f"valgrind: {tools.version('valgrind') or 'missing'}",
        f"cpu: {cpu_model()} ({' '.join(feats)}), {os.cpu_count()} cores",
    ]
