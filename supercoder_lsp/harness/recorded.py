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

A struct parameter with pointer fields (zlib's `z_stream *strm`, whose `state` points to a
private struct that points back to the stream and owns a window) is recorded deep: after
the parameters come every pointer parameter's address in the program, then the regions
its pointers reach, breadth first to depth 2: every aligned word of the struct, and of a
region at depth 1, that holds an address the program can read (outside its code) and not
inside memory already kept starts a region of up to 64 KiB, as far as the memory is
readable; per region its address, byte count and bytes. The replay places each region at
the program's alignment in a guarded buffer of its own, then relocates every aligned word
that held an address inside a kept buffer (one past its end included) to the same offset
in its copy: the struct's `state` points to the copied state, whose `strm` points back to
the copied stream. Outputs are compared with such words as (buffer, offset), so where the
function leaves its pointers is compared, never an address itself. A pointer argument that
the program passed into another argument's memory (zlib's send_tree(s, s->dyn_ltree, ...)) points
into that argument's copy, so writes through either are seen through both, as in the program.
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
MAX_RECORD = 1024 << 10  # bytes of one call's record (a deflate_state with its window, hash chains and tables)
MAX_RECORDED = 256  # unique records replayed
MAX_BLOB = 16 << 20  # bytes of all of them
REGION_CAP = 64 << 10  # bytes of one region a struct's pointers reach, at most
MAX_REGIONS = 32  # regions of one record
GPR = (22, 21, 20, 19, 18, 17)  # rdi, rsi, rdx, rcx, r8, r9 in the stub's saved block (harness/sc_record.S)
STACK_ARGS = 24  # the first argument on the stack: past the block (23 words) and the return address


@dataclass
class RecordedInputs:
    """Unique recorded calls, ready to replay: their bytes, where each starts, the largest buffer per parameter."""

    blob: bytes = b""
    offsets: list[int] = field(default_factory=list)
    max_bytes: dict[int, int] = field(default_factory=dict)
    region_bytes: list[int] = field(default_factory=list)  # deep records: the largest region j of any record
    calls: int = 0  # records read before de-duplication
    too_big: int = 0  # calls sampled but not recorded, and why
    unreadable: int = 0

    def __len__(self) -> int:
        return len(self.offsets)


def _slots(plan: Plan) -> list[str]:
    """For each parameter, the C expression of its raw 64-bit register in the saved block `g`, or of its
    stack slot: past the block and the return address, in the order of the parameters."""
    out, n_int, n_sse, n_stack = [], 0, 0, 0
    for p in plan.params:
        if p.role == "float" and n_sse < 8:
            out.append(f"g[{2 * n_sse}]")
            n_sse += 1
        elif p.role != "float" and n_int < len(GPR):
            out.append(f"g[{GPR[n_int]}]")
            n_int += 1
        else:
            out.append(f"g[{STACK_ARGS + n_stack}]")
            n_stack += 1
    return out


def _length_expr(q: ParamPlan, reg: str) -> str:
    """A length parameter's value as a count, from its register (negative: none)."""
    if q.signed:
        return f"(int64_t)(int{q.bits}_t){reg} < 0 ? 0 : (uint64_t)(int{q.bits}_t){reg}"
    return f"(uint64_t)(uint{q.bits}_t){reg}"


def _elem_size(p: ParamPlan) -> int:
    return max(p.element.bits // 8, 1) if p.role == "array" else 1


def is_deep(plan: Plan) -> bool:
    """Recorded with the memory its pointers reach: a struct parameter that has pointer fields."""
    return any(p.record and p.null_offsets for p in plan.params)


_DEEP_C = f"""
#define SC_REGION_CAP {REGION_CAP}ULL
#define SC_MAX_KEPT ({MAX_REGIONS} + 16)
extern char __executable_start[] __attribute__((weak)), etext[] __attribute__((weak));
static uint64_t kept_at[SC_MAX_KEPT], kept_len[SC_MAX_KEPT], kept_pos[SC_MAX_KEPT];
static int kept_scan[SC_MAX_KEPT], nkept;
static void sc_keep(uint64_t at, uint64_t len, uint64_t pos, int scan) {{
    if (nkept < SC_MAX_KEPT) {{ kept_at[nkept] = at; kept_len[nkept] = len; kept_pos[nkept] = pos; kept_scan[nkept++] = scan; }}
}}
/* as much of [at, at + cap) as is readable, page by page */
static uint64_t sc_read_upto(unsigned char *dst, uint64_t at, uint64_t cap) {{
    struct iovec l = {{ dst, cap }}, r[17];
    int n = 0;
    for (uint64_t a = at; a < at + cap && n < 17; n++) {{
        uint64_t end = (a | 4095) + 1; if (end > at + cap) end = at + cap;
        r[n].iov_base = (void *)a; r[n].iov_len = end - a; a = end;
    }}
    ssize_t got = process_vm_readv(getpid(), &l, 1, r, n, 0);
    return got > 0 ? (uint64_t)got : 0;
}}
/* the regions the kept structs point to: their count, then per region address, bytes, data */
static int sc_record_regions(uint64_t *pos) {{
    uint64_t count_at = *pos; *pos += 8;
    uint64_t n = 0, nparams = (uint64_t)nkept;
    for (int b = 0; b < nkept; b++) {{
        if (!kept_scan[b]) continue;
        uint64_t at = kept_at[b], len = kept_len[b];
        for (uint64_t off = (8 - (at & 7)) & 7; off + 8 <= len; off += 8) {{
            uint64_t w; memcpy(&w, sc_buf + kept_pos[b] + off, 8);
            if (w < 4096 || w >= (1ULL << 47)) continue;
            if (__executable_start && etext && w >= (uint64_t)(uintptr_t)__executable_start && w < (uint64_t)(uintptr_t)etext) continue;
            int inside = 0;
            for (int j = 0; j < nkept && !inside; j++) inside = w >= kept_at[j] && w <= kept_at[j] + kept_len[j];
            if (inside || n >= {MAX_REGIONS} || nkept >= SC_MAX_KEPT) continue;
            if (*pos + 16 + 4096 > SC_MAX_RECORD) continue; /* full: the regions kept so far */
            uint64_t cap = SC_MAX_RECORD - *pos - 16; if (cap > SC_REGION_CAP) cap = SC_REGION_CAP;
            uint64_t got = sc_read_upto(sc_buf + *pos + 16, w, cap);
            if (!got) continue;
            memcpy(sc_buf + *pos, &w, 8); memcpy(sc_buf + *pos + 8, &got, 8);
            sc_keep(w, got, *pos + 16, b < (int)nparams);  /* depth 1 is scanned, depth 2 is not */
            *pos += 16 + ((got + 7) & ~(uint64_t)7); n++;
        }}
    }}
    memcpy(sc_buf + count_at, &n, 8);
    return 1;
}}
"""


_HELPERS_C = """#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#define SC_MAX_RECORD @MAX_RECORD@ULL
static unsigned char sc_buf[SC_MAX_RECORD + 64];
/* memory of the program, read without faulting: a short read means the length is not the buffer's */
static int sc_read(void *dst, const void *src, uint64_t n) {
    if (!n) return 1;
    struct iovec l = { dst, n }, r = { (void *)src, n };
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)n;
}
static uint64_t sc_strlen(const unsigned char *p, uint64_t max) {
    unsigned char c;
    for (uint64_t i = 0; i <= max; i++) { if (!sc_read(&c, p + i, 1)) return (uint64_t)-1; if (!c) return i + 1; }
    return (uint64_t)-1;
}
static void put(uint64_t *pos, uint64_t v) { memcpy(sc_buf + *pos, &v, 8); *pos += 8; }
static void sc_skip(int fd, uint64_t why) { uint64_t h[2] = { why, 16 }; if (write(fd, h, 16) != 16) return; }
/* where the records go: the descriptor SC_ARGS_FD names, or a file of this process's own in SC_ARGS_DIR
 * (a test suite's processes, whose runner may close descriptors it did not open) */
static int sc_args_fd(void) {
    const char *s = getenv("SC_ARGS_FD"), *d = getenv("SC_ARGS_DIR");
    if (s) return atoi(s);
    if (!d) return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/args.%d", d, (int)getpid());
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}
""".replace("@MAX_RECORD@", str(MAX_RECORD))


def render_recorder(plan: Plan) -> str:
    """C for the recording program: `void sc_record_args(const uint64_t *g)`, called by the stub."""
    regs = _slots(plan)
    deep = is_deep(plan)
    body = ["    nkept = 0;"] if deep else []
    for k, p in enumerate(plan.params):
        if p.role in ("int", "bool", "length", "float"):
            body.append(f"    put(&pos, {regs[k]});")
            continue
        body.append(f"    {{ const unsigned char *p = (const unsigned char *)(uintptr_t){regs[k]}; uint64_t n;")
        if p.role == "cstring":
            body.append(
                f"      n = p ? sc_strlen(p, {p.max_len}) : 0; if (p && n == (uint64_t)-1) {{ sc_skip(fd, {TOO_BIG}); return; }}"
            )
        elif p.capacity_param is not None:  # its length is what the pointer beside it holds (*destLen)
            c = p.capacity_param
            body.append(
                f"      {{ uint64_t cap = 0; n = {regs[c]} && sc_read(&cap, (const void *)(uintptr_t){regs[c]},"
                f" {_elem_size(plan.params[c])}) ? cap * {_elem_size(p)}ULL : 0; }}"
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
            + (f" sc_keep((uint64_t)(uintptr_t)p, n, pos, {int(bool(p.record))});" if deep else "")
            + " pos += (n + 7) & ~(uint64_t)7; } }"
        )
    if deep:  # where each pointer parameter was, then the regions they reach
        for k, p in enumerate(plan.params):
            body.append(f"    put(&pos, {regs[k] if p.role in ('array', 'cstring') else '0'});")
        body.append(f"    if (!sc_record_regions(&pos)) {{ sc_skip(fd, {TOO_BIG}); return; }}")
    return f"""{_HELPERS_C}{_DEEP_C if deep else ""}
void sc_record_args(const uint64_t *g) {{
    static uint64_t calls, total;
    static int fd = -2;
    calls++;
    if (!(calls <= 64 || (calls & (calls - 1)) == 0 || calls % 4099 == 0)) return;
    if (fd == -2) fd = sc_args_fd();
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
        parsed = _buffer_sizes(rec, plan)
        if parsed is None or rec in known or len(out.offsets) >= MAX_RECORDED or len(blob) + size > MAX_BLOB:
            continue
        sizes, regions = parsed
        known.add(rec)
        out.offsets.append(len(blob))
        blob += rec
        for k, n in sizes.items():
            out.max_bytes[k] = max(out.max_bytes.get(k, 0), n)
        for j, n in enumerate(regions):
            if j == len(out.region_bytes):
                out.region_bytes.append(0)
            out.region_bytes[j] = max(out.region_bytes[j], n)
    out.blob = bytes(blob)
    return out


def _size(blob: bytes, at: int) -> int:
    return struct.unpack_from("<Q", blob, at + 8)[0]


def _buffer_sizes(rec: bytes, plan: Plan) -> tuple[dict[int, int], list[int]] | None:
    """Byte count of every non-NULL pointer argument in one record, and of every region of a deep
    record; None when it does not parse."""
    pos, sizes = 16, {}
    for k, p in enumerate(plan.params):
        if pos + 8 > len(rec):
            return None
        (v,) = struct.unpack_from("<Q", rec, pos)
        pos += 8
        if p.role in ("array", "cstring") and v != NULL:
            sizes[k] = v
            pos += (v + 7) & ~7
    regions: list[int] = []
    if is_deep(plan):
        pos += 8 * len(plan.params)  # where each pointer parameter was
        if pos + 8 > len(rec):
            return None
        (n,) = struct.unpack_from("<Q", rec, pos)
        pos += 8
        for _ in range(min(n, MAX_REGIONS + 1)):
            if pos + 16 > len(rec):
                return None
            _, m = struct.unpack_from("<2Q", rec, pos)
            regions.append(m)
            pos += 16 + ((m + 7) & ~7)
        if n > MAX_REGIONS:
            return None
    return (sizes, regions) if pos == len(rec) else None


def render_replay(plan: Plan, recorded: RecordedInputs | None, blob_path: Path | None) -> str:
    """C: SC_NREC, and `sc_replay(r, in, at_start)` that sets input `in` from recorded call r."""
    n = len(recorded) if recorded else 0
    out = [f"#define SC_NREC {n}ULL"]
    if not n or recorded is None or blob_path is None:
        out.append(
            "static void sc_replay(uint64_t r, sc_input *in, int at_start) { (void)r; (void)in; (void)at_start; }"
        )
        return "\n".join(out)
    deep = is_deep(plan)
    out.append(f'__asm__(".section .rodata\\n.balign 16\\nsc_rec_blob:\\n.incbin \\"{blob_path}\\"\\n.previous");')
    out.append('extern const unsigned char sc_rec_blob[] __asm__("sc_rec_blob");')
    out.append(f"static const uint64_t sc_rec_at[] = {{{', '.join(map(str, recorded.offsets))}}};")
    out.append("static void sc_replay(uint64_t r, sc_input *in, int at_start) {")
    out.append("    const unsigned char *q = sc_rec_blob + sc_rec_at[r] + 16; uint64_t v; (void)at_start;")
    for k, p in enumerate(plan.params):
        out.append("    memcpy(&v, q, 8); q += 8;")
        if p.callback:  # the program's own function: an address in another process
            out.append(f"    in->iv[{k}] = {p.lo}ULL;")
        elif p.role in ("int", "bool", "length"):
            out.append(f"    in->iv[{k}] = v;")
        elif p.role == "float" and p.bits == 32:
            out.append(f"    {{ float f; memcpy(&f, &v, 4); in->fv[{k}] = f; }}")
        elif p.role == "float":
            out.append(f"    memcpy(&in->fv[{k}], &v, 8);")
        else:
            count = f"v / {_elem_size(p)}" if p.role == "array" else "v - 1"
            clear = f" sc_nullptrs{k}(a);" if p.null_offsets and not deep else ""
            out.append(
                f"    if (v == (uint64_t)-1) {{ in->pv[{k}] = 0; in->len[{k}] = 0; }} else {{"
                f" unsigned char *a = sc_guard_place(&sc_g[{k}], v, at_start); memcpy(a, q, v);{clear}"
                f" q += (v + 7) & ~(uint64_t)7; in->pv[{k}] = a; in->len[{k}] = {count}; in->pbytes[{k}] = v; }}"
            )
    if deep:  # the regions the struct's pointers reach, at the program's alignment, then every pointer relocated
        out.append(
            "    for (int k = 0; k < SC_NP; k++) { memcpy(&in->pa[k], q, 8); q += 8; if (!in->pv[k]) in->pa[k] = 0; }"
        )
        out.append("    memcpy(&v, q, 8); q += 8; in->nr = (uint32_t)v;")
        out.append(
            "    for (uint32_t j = 0; j < in->nr; j++) { uint64_t a, l; memcpy(&a, q, 8); memcpy(&l, q + 8, 8); q += 16;"
            " unsigned char *d = sc_guard_place_as(&sc_rg[j], l, a, at_start); memcpy(d, q, l); q += (l + 7) & ~(uint64_t)7;"
            " in->rp[j] = d; in->rlen[j] = l; in->ra[j] = a; }"
        )
        # a pointer argument the program passed into another one's memory (send_tree(s, s->dyn_ltree, ...))
        # points into that one's copy: what the function writes through either, the other sees
        out.append(
            "    for (int k = 0; k < SC_NP; k++) for (int j = 0; in->pv[k] && j < SC_NP; j++)"
            " if (j != k && in->pv[j] && in->pbytes[j] > in->pbytes[k] && in->pa[k] >= in->pa[j]"
            " && in->pa[k] + in->pbytes[k] <= in->pa[j] + in->pbytes[j]) {"
            " in->pv[k] = (unsigned char *)in->pv[j] + (in->pa[k] - in->pa[j]); break; }"
        )
        out.append("    in->deep = 1;")
        out.append(
            "    { uint64_t from[SC_NP + SC_NR] = {0}; for (int k = 0; k < SC_NP; k++) from[k] = in->pa[k];"
            " for (uint32_t j = 0; j < in->nr; j++) from[SC_NP + j] = in->ra[j]; sc_relocate(in, from); }"
        )
    out.append("}")
    return "\n".join(out)
