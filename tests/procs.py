"""Processes still alive whose command line contains any of the given markers (for 'nothing is left behind'),
of this test process's own: it is made their subreaper, so a process that escaped its parent (an orphan)
is reparented to it and still counted, while another user's runs on the same machine (a second test suite,
an audit) are not."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state; the name may hold spaces


def _ours(pid: int) -> bool:
    me, seen = os.getpid(), 0
    while pid > 1 and seen < 64:
        pid, seen = _parent(pid), seen + 1
        if pid == me:
            return True
    return False


def leftover_processes(*markers: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(m in cmd for m in markers) and _ours(int(pid)):
            found.append(f"{pid}: {cmd}")
    return found
