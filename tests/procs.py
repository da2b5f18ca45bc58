"""Processes still alive whose command line contains any of the given markers (for 'nothing is left behind')."""

from __future__ import annotations

import os
from pathlib import Path


def leftover_processes(*markers: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(m in cmd for m in markers):
            found.append(f"{pid}: {cmd}")
    return found
