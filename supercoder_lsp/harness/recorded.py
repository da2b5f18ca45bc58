"""Inputs recorded from the program's own runs, and their replay in the function harness.

Where program tests, a bench input or a workload exist, the -O3 program runs with a
recording stub in front of the function (verify/program_state.py). The stub hands the
argument registers to `sc_record_args` (rendered here from the function's plan), which
writes, for a sample of the calls (the first 64, every power of two, every 4099th), one
record: every scalar argument's register, and the memory every pointer argument points
to, as much of it as the plan says the function may touch (an array's length parameter
times its element size, a string up to its NUL, a struct's size). Memory is read with
process_vm_readv, so a length that does not describe its buffer skips the record
instead of crashing the program.

A record, in 8-byte words: magic, total bytes, then per parameter its value, or for a
pointer its byte count (all ones for NULL) and the bytes, padded to 8. The harness
replays each unique record as one more input: the same scalars, the bytes in guarded
buffers of their own (a struct's pointer fields NULL, as for generated inputs).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

from .plan import ParamPlan, Plan

RECORD_MAGIC = 0x5CA65
TOO_BIG = 0x5CA66  # a call not recorded: its buffers exceed MAX_RECORD
UNREADABLE = 0x5CA67  # a call not recorded: a buffer shorter than its length parameter says
NULL = (1 << 64) - 1
MAX_RECORD = 256 << 10  # bytes of one call's record
MAX_RECORDED = 256  # unique records replayed
MAX_BLOB = 4 << 20  # bytes of all of them
GPR = (22, 21, 20, 19, 18, 17)  # rdi, rsi, rdx, rcx, r8, r9 in the stub's saved block (harness/sc_record.S)


@dataclass
class RecordedInputs:
    """Unique recorded calls, ready to replay: their bytes, where each starts, the largest buffer per parameter."""

    blob: bytes = b""
    offsets: list[int] = field(default_factory=list)
    max_bytes: dict[int, int] = field(default_factory=dict)
    calls: int = 0  # records read before de-duplication
    too_big: int = 0  # calls sampled but not recorded, and why
    unreadable: int = 0

    def __len__(self) -> int:
        return len(self.offsets)


def _slots(plan: Plan) -> list[str]:
    """For each parameter, the C expression of its raw 64-bit register in the saved block `g`."""
    out, n_int, n_sse = [], 0, 0
    for p in plan.params:
        if p.role == "float":
            out.append(f"g[{2 * n_sse}]")
            n_sse += 1
        else:
            out.append(f"g[{GPR[n_int]}]")
            n_int += 1
    return out


def _length_expr(q: ParamPlan, reg: str) -> str:
    """A length parameter's value as a count, from its register (negative: none)."""
    if q.signed:
        return f"(int64_t)(int{q.bits}_t){reg} < 0 ? 0 : (uint64_t)(int{q.bits}_t){reg}"
    return f"(uint64_t)(uint{q.bits}_t){reg}"


def _elem_size(p: ParamPlan) -> int:
    return max(p.element.bits // 8, 1) if p.role == "array" else 1


def render_recorder(plan: Plan) -> str:
    """C for the recording program: `void sc_record_args(const uint64_t *g)`, called by the stub."""
    regs = _slots(plan)
    body = []
    for k, p in enumerate(plan.params):
        if p.role in ("int", "bool", "length", "float"):
            body.append(f"    put(&pos, {regs[k]});")
            continue
        body.append(f"    {{ const unsigned char *p = (const unsigned char *)(uintptr_t){regs[k]}; uint64_t n;")
        if p.role == "cstring":
            body.append(
                f"      n = p ? sc_strlen(p, {p.max_len}) : 0; if (p && n == (uint64_t)-1) {{ sc_skip(fd, {TOO_BIG}); return; }}"
            )
        elif p.length_param is None:  # one struct, or an array of fixed length
            body.append(f"      n = {p.max_len * _elem_size(p)}ULL;")
        else:
            j = p.length_param
            assert j is not None
            body.append(f"      n = ({_length_expr(plan.params[j], regs[j])}) * {_elem_size(p)}ULL;")
        body.append(
            "      if (!p) { put(&pos, (uint64_t)-1); } else {"
            f" if (n > SC_MAX_RECORD || pos + 8 + n + 8 > SC_MAX_RECORD) {{ sc_skip(fd, {TOO_BIG}); return; }}"
            f" put(&pos, n); if (!sc_read(sc_buf + pos, p, n)) {{ sc_skip(fd, {UNREADABLE}); return; }}"
            " pos += (n + 7) & ~(uint64_t)7; } }"
        )
    return f"""#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#define SC_MAX_RECORD {MAX_RECORD}ULL
static unsigned char sc_buf[SC_MAX_RECORD + 64];
/* memory of the program, read without faulting: a short read means the length is not the buffer's */
static int sc_read(void *dst, const void *src, uint64_t n) {{
    if (!n) return 1;
    struct iovec l = {{ dst, n }}, r = {{ (void *)src, n }};
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)n;
}}
static uint64_t sc_strlen(const unsigned char *p, uint64_t max) {{
    unsigned char c;
    for (uint64_t i = 0; i <= max; i++) {{ if (!sc_read(&c, p + i, 1)) return (uint64_t)-1; if (!c) return i + 1; }}
    return (uint64_t)-1;
}}
static void put(uint64_t *pos, uint64_t v) {{ memcpy(sc_buf + *pos, &v, 8); *pos += 8; }}
static void sc_skip(int fd, uint64_t why) {{ uint64_t h[2] = {{ why, 16 }}; if (write(fd, h, 16) != 16) return; }}
void sc_record_args(const uint64_t *g) {{
    static uint64_t calls, total;
    static int fd = -2;
    calls++;
    if (!(calls <= 64 || (calls & (calls - 1)) == 0 || calls % 4099 == 0)) return;
    if (fd == -2) {{ const char *s = getenv("SC_ARGS_FD"); fd = s ? atoi(s) : -1; }}
    if (fd < 0 || total > (64ULL << 20)) return;
    uint64_t pos = 16;
{chr(10).join(body)}
    uint64_t head[2] = {{ {RECORD_MAGIC}ULL, pos }};
    memcpy(sc_buf, head, 16);
    for (uint64_t done = 0; done < pos;) {{ ssize_t w = write(fd, sc_buf + done, pos - done); if (w <= 0) return; done += (uint64_t)w; }}
    total += pos;
}}
"""


def parse_records(data: bytes, plan: Plan, seen: RecordedInputs | None = None) -> RecordedInputs:
    """The unique records in `data` (the recorder's output), added to `seen`."""
    out = seen or RecordedInputs()
    known = {out.blob[a : a + _size(out.blob, a)] for a in out.offsets}
    blob = bytearray(out.blob)
    pos = 0
    while pos + 16 <= len(data):
        magic, size = struct.unpack_from("<2Q", data, pos)
        if magic not in (RECORD_MAGIC, TOO_BIG, UNREADABLE) or size < 16 or pos + size > len(data):
            break
        rec = data[pos : pos + size]
        pos += size
        if magic in (TOO_BIG, UNREADABLE):
            out.too_big += magic == TOO_BIG
            out.unreadable += magic == UNREADABLE
            continue
        out.calls += 1
        sizes = _buffer_sizes(rec, plan)
        if sizes is None or rec in known or len(out.offsets) >= MAX_RECORDED or len(blob) + size > MAX_BLOB:
            continue
        known.add(rec)
        out.offsets.append(len(blob))
        blob += rec
        for k, n in sizes.items():
            out.max_bytes[k] = max(out.max_bytes.get(k, 0), n)
    out.blob = bytes(blob)
    return out


def _size(blob: bytes, at: int) -> int:
    return struct.unpack_from("<Q", blob, at + 8)[0]


def _buffer_sizes(rec: bytes, plan: Plan) -> dict[int, int] | None:
    """Byte count of every non-NULL pointer argument in one record; None when it does not parse."""
    pos, sizes = 16, {}
    for k, p in enumerate(plan.params):
        if pos + 8 > len(rec):
            return None
        (v,) = struct.unpack_from("<Q", rec, pos)
        pos += 8
        if p.role in ("array", "cstring") and v != NULL:
            sizes[k] = v
            pos += (v + 7) & ~7
    return sizes if pos == len(rec) else None


def render_replay(plan: Plan, recorded: RecordedInputs | None, blob_path: Path | None) -> str:
    """C: SC_NREC, and `sc_replay(r, in, at_start)` that sets input `in` from recorded call r."""
    n = len(recorded) if recorded else 0
    out = [f"#define SC_NREC {n}ULL"]
    if not n or recorded is None or blob_path is None:
        out.append(
            "static void sc_replay(uint64_t r, sc_input *in, int at_start) { (void)r; (void)in; (void)at_start; }"
        )
        return "\n".join(out)
    out.append(f'__asm__(".section .rodata\\n.balign 16\\nsc_rec_blob:\\n.incbin \\"{blob_path}\\"\\n.previous");')
    out.append('extern const unsigned char sc_rec_blob[] __asm__("sc_rec_blob");')
    out.append(f"static const uint64_t sc_rec_at[] = {{{', '.join(map(str, recorded.offsets))}}};")
    out.append("static void sc_replay(uint64_t r, sc_input *in, int at_start) {")
    out.append("    const unsigned char *q = sc_rec_blob + sc_rec_at[r] + 16; uint64_t v; (void)at_start;")
    for k, p in enumerate(plan.params):
        out.append("    memcpy(&v, q, 8); q += 8;")
        if p.role in ("int", "bool", "length"):
            out.append(f"    in->iv[{k}] = v;")
        elif p.role == "float" and p.bits == 32:
            out.append(f"    {{ float f; memcpy(&f, &v, 4); in->fv[{k}] = f; }}")
        elif p.role == "float":
            out.append(f"    memcpy(&in->fv[{k}], &v, 8);")
        else:
            count = f"v / {_elem_size(p)}" if p.role == "array" else "v - 1"
            clear = f" sc_nullptrs{k}(a);" if p.null_offsets else ""
            out.append(
                f"    if (v == (uint64_t)-1) {{ in->pv[{k}] = 0; in->len[{k}] = 0; }} else {{"
                f" unsigned char *a = sc_guard_place(&sc_g[{k}], v, at_start); memcpy(a, q, v);{clear}"
                f" q += (v + 7) & ~(uint64_t)7; in->pv[{k}] = a; in->len[{k}] = {count}; }}"
            )
    out.append("}")
    return "\n".join(out)
