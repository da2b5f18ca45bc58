"""The harness contract, read from harness/sc_contract.h: the C side and this side
use the same names for exit codes, record status bits and calling-convention findings."""

from __future__ import annotations

import re
from importlib import resources

_TEXT = (resources.files(__package__) / "sc_contract.h").read_text()
_DEFINES = {
    m.group(1): int(m.group(2), 0)
    for m in re.finditer(r"^#define (SC_\w+) (0x[0-9A-Fa-f]+|\d+)(?:ULL)?\b", _TEXT, re.M)
}

EXIT_OK = _DEFINES["SC_EXIT_OK"]
EXIT_ABI = _DEFINES["SC_EXIT_ABI"]
EXIT_CRASH = _DEFINES["SC_EXIT_CRASH"]
EXIT_SYSCALL = _DEFINES["SC_EXIT_SYSCALL"]
EXIT_SLOW = _DEFINES["SC_EXIT_SLOW"]
EXIT_ALLOCATES = _DEFINES["SC_EXIT_ALLOCATES"]
EXIT_NO_SANDBOX = _DEFINES["SC_EXIT_NO_SANDBOX"]
EXIT_THUNK_ABI = _DEFINES["SC_EXIT_THUNK_ABI"]
CRASHED = _DEFINES["SC_CRASHED"]
TIMED_OUT = _DEFINES["SC_TIMED_OUT"]
TRAILER_ABI = _DEFINES["SC_TRAILER_ABI"]
TRAILER_SYSCALL = _DEFINES["SC_TRAILER_SYSCALL"]
DIRTY_UPPER = _DEFINES["SC_DIRTY_UPPER"]
ALLOCATED = _DEFINES["SC_ALLOCATED"]
NOT_RUN = _DEFINES["SC_NOT_RUN"]
SHORT_MS = _DEFINES["SC_SHORT_MS"]
ABI_BROKEN = _DEFINES["SC_ABI_BROKEN"]
HEAP_LEFT = _DEFINES["SC_HEAP_LEFT"]
STORED_AROUND = _DEFINES["SC_STORED_AROUND"]
FP_FLAGS_SHIFT = _DEFINES["SC_FP_FLAGS_SHIFT"]
# code -> what a calling-convention finding means, in the order of SC_ABI_FINDINGS
ABI_FINDINGS = [text for _, text in re.findall(r'X\((\w+), "([^"]*)"\)', _TEXT)]
# the prefix of the global names the file's own object gives its file-scope variables (FileContext.support_object),
# by which a generated input points at one of them (CType.statics)
STATIC_ALIAS = "sc_static_"


_EXIT_WORDS = {
    int(m.group(2)): re.sub(r"^\(MODE[^)]*\) |\s*\([^)]*$", "", " ".join(m.group(3).split()))
    for m in re.finditer(r"^#define SC_EXIT_(\w+) (\d+)\s*/\* (.*?)(?:\*/|$)", _TEXT, re.M)
}


def exit_words(code: int) -> str:
    """A harness process's exit status in words: a signal by its name, the harness's own codes as
    sc_contract.h says, any other as an exit of the code under test itself."""
    import signal

    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        what = {
            "SIGSEGV": "a memory access it may not make",
            "SIGBUS": "a misaligned or unmapped access",
            "SIGKILL": "the memory or time limit",
            "SIGSYS": "a forbidden system call",
            "SIGFPE": "a division by zero or an overflowing division",
            "SIGILL": "an instruction this CPU lacks",
            "SIGABRT": "abort(), e.g. a failed assert",
        }.get(name, "")
        return f"killed by {name}" + (f": {what}" if what else "")
    if code in _EXIT_WORDS:
        return f"exit status {code}: {_EXIT_WORDS[code]}"
    return f"exit status {code}: the code under test ended the process itself (exit() on an error path?)"
