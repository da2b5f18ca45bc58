"""A function-level answer as the whole program it will live in, so a row whose `extra_info.function`
names a function is verified and timed like every whole-program row.

The function's C definition is replaced by the answer in a top-level assembly block (as
`supercoder replace` inserts it, without the CPU guard: the answer's instructions are checked against
this machine instead), and the program is compiled at -O3. The compiler cannot see into the block, so no
caller relies on what the answer's registers hold beyond the calling convention (no IPA-RA), and a
caller that used to inline the function now calls it: the whole program is timed as the user would get
it.
"""

from __future__ import annotations

import re

from ..asm.cut import normalize_candidate
from ..optimize.replace import asm_block
from ..options import InputError
from ..source import declaration_of, find_function, parse_functions
from .program_answer import compile_program


class NotPlaced(ValueError):
    """The answer cannot stand for the function (it does not define it); the message says why."""


def as_program(c_code: str, function: str, answer: str) -> str:
    """The whole program's -O3 assembly with `function` defined by `answer` (its assembly)."""
    fn = find_function(parse_functions(c_code), function)
    if fn is None:
        raise InputError(f"the row's c_code defines no function '{function}' (extra_info.function)")
    try:
        cut = normalize_candidate(answer, function).text
    except ValueError as e:
        raise NotPlaced(f"the answer does not define {function}: {e}") from e
    if fn.is_static:  # keep its linkage: the block's symbol stays local to the file
        cut = re.sub(rf"^\s*\.globl\s+{re.escape(function)}\s*$", "", cut, flags=re.M)
    data = c_code.encode("utf-8", "surrogatepass")
    proto = declaration_of(fn, data).strip()
    text = (
        data[: fn.start_byte].decode("utf-8", "surrogatepass")
        + f"{proto}\n{asm_block(function, cut)}\n"
        + data[fn.end_byte :].decode("utf-8", "surrogatepass")
    )
    out = compile_program(text, "gcc", ())
    if out is None:
        raise NotPlaced(f"the program with this {function} does not compile with gcc -O3")
    return out
