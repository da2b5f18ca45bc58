"""What a plan is: for each parameter, what the harness feeds it (ParamPlan), a handle's private state
(OwnedPlan), and the limits every plan shares (array lengths, the long inputs, the registers of a call)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import CType

LENGTH_NAME = re.compile(
    r"^(n|len|length|size|count|num|cnt|sz|nelem|nmemb|nitems|elems|m|k)$|^(n|len|num)_|_(len|length|size|count|n|num)$",
    re.I,
)


# Calls whose effect is output. Through stdout and stderr it is captured per call and compared (sc_verify.h's
# sc_out_begin); to a descriptor by number (dprintf, writev, pwrite) it is not, and such a function is refused
# (write() is compared: harness/sc_files.h emulates descriptors).
UNCOMPARED_OUTPUT = frozenset({"dprintf", "__dprintf_chk", "writev", "pwrite", "pwrite64"})


DEFAULT_MAX_LEN = 4096  # arrays: well past every vector width and unroll factor


# A few random inputs are far longer (one in LONG_STRIDE: 16 of 100,000): a candidate whose 16-bit lane sums
# overflow only past a few thousand elements is wrong there, and so is one that counts in 21 bits or works in
# pieces of 1 MiB (inputs_buffers.py: its text and needles cross the pieces' ends). The first one is LONG_LEN
# elements long (or as long as its length parameter's type allows, or LONG_BYTES), the second a random length
# in the top half of that, the others double from DEFAULT_MAX_LEN up to it.
LONG_LEN = 1 << 22
LONG_BYTES = 1 << 25  # 32 MiB: an array of doubles LONG_LEN long


LONG_STRIDE = 6_250


# where a long input's text gets a character of two to four bytes across, and where a needle searched for in
# it lies across: every multiple of SEAM elements (the ends of the pieces a program cuts a buffer into)
SEAM = 1 << 12


# where a generated function pointer points (a struct's, or a parameter's): never mapped, so a call of it
# crashes, and that input is one the original crashes on (outside its domain) or a candidate's crash
TRAP = 0x1000


DEFAULT_MAX_STRING = 1024


PROBE_MAX = 4096  # elements of an array with no length parameter, until probing says how many it touches


MAX_INT_REGS = 6


MAX_SSE_REGS = 8


MAX_STACK_WORDS = 8  # the trampoline's (verify/tramp.S) slots for them


@dataclass(frozen=True)
class OwnedPlan:
    """A private struct generated behind a handle, with its pointers back to it (z_stream's state)."""

    offset: int  # of the handle's pointer to it
    size: int
    fields: tuple[tuple[int, str, int, bool], ...]  # every leaf: (offset, kind, bits, signed)
    back: tuple[int, ...]  # offsets of its pointers back to the handle
    # its pointers to plain data (zlib's window, pending_buf, sym_buf): (offset, element size, offset and
    # element count of its own array they may point into, or 0, 0); they point into one buffer of
    # OWNED_DATA bytes, so comparing two of them does not depend on where buffers lie
    data: tuple[tuple[int, int, int, int], ...] = ()
    arrays: tuple[tuple[int, int], ...] = ()  # CType.arrays: its big arrays' byte ranges


OWNED_DATA = 64 << 10  # bytes of the buffer an owned struct's data pointers point into (a 32 KiB window, twice)


@dataclass
class ParamPlan:
    name: str
    role: str  # "int", "bool", "float", "array", "cstring", "length"; a result also "pointer", "string"
    ctype: str  # the C type the harness declares: "uint32_t", "double", "const int32_t *", ...
    bits: int = 0
    signed: bool = False
    lo: int | float | None = None  # input bounds, inclusive
    hi: int | float | None = None
    elem: ParamPlan | None = None  # element plan of an array
    length_of: list[int] = field(default_factory=list)  # for role "length": the arrays it sizes
    length_param: int | None = None  # for role "array": index of its length param
    # a length passed by pointer (zlib's compress(dest, uLongf *destLen, ...): *destLen is dest's capacity
    # on entry): for that array, the index of the pointer; for the pointer, the index of the array
    capacity_param: int | None = None
    capacity_of: int | None = None
    max_len: int = DEFAULT_MAX_LEN
    long_len: int = 0  # for an array sized by a length parameter: the length of its few long inputs (0: none)
    restrict: bool = False  # a `restrict` pointer: never given memory that overlaps another parameter's
    record: str = ""  # for a pointer to one struct: its type; the "array" is its bytes, of fixed length
    null_offsets: tuple[int, ...] = ()  # the struct's pointer fields: NULL on entry, never compared on exit
    fields: tuple[tuple[int, str, int, bool], ...] = ()  # the struct's scalar fields, generated one by one
    arrays: tuple[tuple[int, int], ...] = ()  # ... but those in these byte ranges as one (CType.arrays)
    code_offsets: tuple[int, ...] = ()  # its function pointers: non-NULL in generated inputs, never callable
    code_kinds: tuple[str, ...] = ()  # ... but an allocator pair (zalloc, zfree): the harness's malloc and free
    owned: tuple[OwnedPlan, ...] = ()  # the private structs it owns, generated behind it (z_stream's state)
    data: tuple[tuple[int, int, int, int], ...] = ()  # its own data pointers, as OwnedPlan.data
    statics: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = ()  # CType.statics: pointed at the file's own
    # an array with no length parameter: a fixed length, to be probed (as much as the original touches)
    probe: bool = False
    probed: bool = False  # its fixed length came from probing the -O3 original on guard-paged buffers
    probe_from: int = 1  # the fewest elements a probe tries (a struct's own size)
    user_bounded: bool = False  # its bounds are the user's (never narrowed)
    shares_length: bool = False  # its length is another array's length parameter, for want of one of its own
    guessed_length: bool = False  # its length parameter is the next integer, not one named as a length
    callback: bool = False  # a function pointer (zlib's inflateBack(strm, in, in_desc, out, out_desc)): TRAP

    @property
    def element(self) -> ParamPlan:
        """The plan of an array's or string's elements."""
        assert self.elem is not None, f"'{self.name}' has no elements"
        return self.elem


@dataclass
class Plan:
    supported: bool
    why: str
    params: list[ParamPlan]
    ret: ParamPlan | None  # None for void
    # values the original compares with (asm.constants): a struct's fields are sometimes drawn from them
    constants: tuple[int, ...] = ()
    # byte offset -> the values compared with the word there (asm.constants.compared_fields): a struct
    # field at that offset is drawn from them one time in two
    field_constants: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # narrowed (an original that loops on a negative count in its struct: zlib's gz_read with a negative
    # skip): the signed integer fields of struct parameters and of the structs they own are non-negative
    nonneg_fields: bool = False
    # byte offset -> the values themselves compared with the word there (compared_fields(exact=True)); narrowed
    # (`enum_fields`: an original that loops on a state no caller makes, zlib's gz_fetch on a `how` that is
    # none of LOOK, COPY, GZIP), such a field is only ever one of them or 0
    field_enums: dict[int, tuple[int, ...]] = field(default_factory=dict)
    enum_fields: bool = False


def c_int_type(bits: int, signed: bool) -> str:
    return f"{'' if signed else 'u'}int{bits}_t"


def scalar_ctype(t: CType) -> str:
    """The <stdint.h> name of an integer or bool type: "uint32_t", "int64_t", "_Bool"."""
    return "_Bool" if t.kind == "bool" else c_int_type(t.bits, t.signed)
