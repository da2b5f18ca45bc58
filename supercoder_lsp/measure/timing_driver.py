"""The timing driver's C (harness/sc_timing.h does the timing): the inputs, drawn as the verifier draws
them, or the program's recorded calls, with their copies for each of the three timed copies of the function,
and each copy's assembly padded to its alignment."""

from __future__ import annotations

import re
from pathlib import Path

from ..harness.inputs_c import call_args, owned_sizes, render_inputs, ret_ctype
from ..harness.plan import Plan
from ..harness.recorded import RecordedInputs

OFFSETS = (0, 16, 32, 48)
N_TIMING_INPUTS = 512


SLACK_C = """#define SC_SLACK_MAX 16384
static void *sc_slack_p[SC_SLACK_MAX];
static size_t sc_slack_n[SC_SLACK_MAX];
static unsigned sc_nslack;
/* Between passes (sc_timing.h), the spare bytes of malloc's rounding past each copy zeroed: a memo kept there,
 * past a const buffer's end, where only the timing driver's buffers are malloc'd ones, paid off in timing
 * alone (88x where the honest rewrite was 46x) */
static void sc_slack_note(void *c, size_t n) {
    if (sc_nslack < SC_SLACK_MAX) sc_slack_p[sc_nslack] = c, sc_slack_n[sc_nslack++] = n;
}
static void sc_slack_wipe(void) {
    for (unsigned k = 0; k < sc_nslack; k++) {
        size_t u = malloc_usable_size(sc_slack_p[k]);
        if (u > sc_slack_n[k]) memset((unsigned char *)sc_slack_p[k] + sc_slack_n[k], 0, u - sc_slack_n[k]);
    }
}"""


def _call_body(plan: Plan, ret: str) -> str:
    """SC_CALL's body: the call, its result folded into `acc`."""
    _, vals = call_args(plan, poison=False)
    call = f"(fn)({', '.join(vals)})"
    if plan.ret and plan.ret.role in ("pointer", "string"):  # addresses differ between the copies
        return f"{{ acc = acc * 31 + ({call} != 0); }}"
    if plan.ret and plan.ret.role == "float":  # bit for bit, every NaN as one (which NaN two give is not
        # IEEE 754's to say; the verifier compares them exactly where no two NaNs meet: inputs_c.sc_nans_meet)
        return (
            f'{{ {ret} v_ = {call}; if (v_ != v_) v_ = __builtin_nan(""); uint64_t b_ = 0;'
            " memcpy(&b_, &v_, sizeof v_); acc = acc * 31 + b_; }"
        )
    if plan.ret:  # results folded bit for bit
        return f"{{ {ret} v_ = {call}; uint64_t b_ = 0; memcpy(&b_, &v_, sizeof v_); acc = acc * 31 + b_; }}"
    return f"{{ {call}; acc++; }}"


def render_timing(
    plan: Plan,
    seed: int,
    recorded: RecordedInputs | None = None,
    blob: Path | None = None,
    fresh: bool = False,
    pass_fresh: bool = False,
) -> str:
    """The timing driver for one function: the generated hooks of harness/sc_timing.h. With the
    program's recorded calls (`recorded`, their bytes in the file `blob`), those are the inputs timed.
    `fresh`: every call starts from its input as drawn, not from what the last call left (SC_FRESH), the
    generated inputs' buffers too. `pass_fresh`: the same, restored after each pass over the inputs (each
    input once in a pass) rather than before each call, so a pass is timed whole (SC_FRESH_PASS)."""
    fresh_pass = pass_fresh and not fresh and not _fresh(recorded)
    fresh = fresh or fresh_pass
    ret = ret_ctype(plan)
    types, _ = call_args(plan, poison=False)
    proto = ", ".join(types)
    body = _call_body(plan, ret)
    hashes, copies = [], []
    for k, p in enumerate(plan.params):
        if p.role in ("array", "cstring"):
            size = f"T[j].len[{k}] * sizeof({p.element.ctype})" if p.role == "array" else f"T[j].len[{k}] + 1"
            clear = f"sc_nullptrs{k}((void *)T[j].pv[{k}]); " if p.null_offsets else ""
            fold = f"sc_fnv(h, T[j].pv[{k}], {size})"
            if p.role == "array" and p.element.role == "float" and not p.record:
                fold = f"sc_fnv_fp(h, T[j].pv[{k}], T[j].len[{k}], sizeof({p.element.ctype}), 1)"
            hashes.append(f"for (int j = 0; j < m; j++) {{ if (T[j].deep) continue; {clear}h = {fold}; }}")
            nb = size.replace("T[j].", "src->")
            # its bytes, for SC_FRESH's snapshot of an input that is not deep (a deep one has them already)
            keep = f" if (!src->deep) dst->pbytes[{k}] = nb;" if fresh else ""
            copies.append(
                f"{{ size_t nb = {nb}; void *c = sc_copy_mem(nb ? nb : 1, 0); memcpy(c, src->pv[{k}], nb);"
                f" dst->pv[{k}] = c;{keep} }}"
            )
    return f"""#include "sc_rt.h"
#include "sc_sandbox.h"
#include "sc_heap.h"
#include "sc_files.h"
{render_inputs(plan, seed, N_TIMING_INPUTS * 4, recorded, blob)}
#define SC_M {_slots(plan, recorded, fresh)}
{"#define SC_FRESH 1" if fresh or _fresh(recorded) else ""}
{"#define SC_FRESH_ALL 1" if fresh else ""}
{"#define SC_FRESH_PASS 1" if fresh_pass else ""}
extern {ret} sc_t0({proto}); /* one declaration each: `T *a(), b()` makes b return T, not a pointer */
extern {ret} sc_t1({proto});
extern {ret} sc_t2({proto});
#define RET_T {ret}
#define PROTO_T {proto}
#define SC_CALL(fn, in, acc) {body}
/* Memory for the timed inputs' copies, from glibc's heap as before; where it lies is noted, so that a call
 * that frees a pointer its input holds (zlib's gz_comp, through gz_error's free(state->msg)) has free() pass
 * it over as memory malloc never gave (sc_heap.h), as in the verifier: glibc's free aborted the timing run
 * ("could not be timed: signal 11"). Still the heap: a recorded call that reads past what was recorded reads
 * the heap beyond it, as it did. */ {SLACK_C}
static void *sc_copy_mem(size_t n, int zero) {{
    void *c = zero ? calloc(1, n) : malloc(n);
    if (!c) exit(70);
    sc_slack_note(c, n); /* its spare bytes zeroed between passes */ uint64_t a = (uint64_t)(uintptr_t)c;
    if (!sc_inputs_lo || a < sc_inputs_lo) sc_inputs_lo = a;
    if (a + n > sc_inputs_hi) sc_inputs_hi = a + n;
    return c;
}}
static void sc_copy_input(const sc_input *src, sc_input *dst) {{
    *dst = *src; {" ".join(copies)}
    /* a parameter that points into another one's buffer (zlib's send_tree(s, s->dyn_ltree, ...)) points into
     * that buffer's copy too: a separate copy of it ends where its recorded bytes end, and a read past them
     * (send_tree's guard entry tree[max_code + 1]) would find whatever the heap holds next to it */
    for (int k = 0; src->deep && k < SC_NP; k++)
        for (int j = 0; src->pv[k] && j < SC_NP; j++) {{
            uintptr_t a = (uintptr_t)src->pv[k], b = (uintptr_t)src->pv[j];
            if (j == k || !src->pv[j] || dst->pv[j] == src->pv[j] || dst->pv[k] == src->pv[k]) continue; /* both copied */
            if (src->pbytes[j] <= src->pbytes[k] || a < b || a + src->pbytes[k] > b + src->pbytes[j]) continue;
            dst->pv[k] = (unsigned char *)dst->pv[j] + (a - b);
            break;
        }}
    if (src->deep) {{ /* the regions too, at the program's alignment, their pointers into this copy */
        uint64_t from[SC_NP + SC_NR] = {{0}};
        for (unsigned b = 0; b < SC_NP + src->nr; b++) {{ size_t l; from[b] = (uint64_t)(uintptr_t)sc_deep_buf(src, b, &l); }}
        for (uint32_t j = 0; j < src->nr; j++) {{
            /* zeros past the end, alike in the three copies: a read past what was recorded gives the same */
            unsigned char *c = sc_copy_mem(src->rlen[j] + 64 + 4096, 1);
            c += src->ra[j] & 63; memcpy(c, src->rp[j], src->rlen[j]); dst->rp[j] = c;
        }}
        sc_relocate(dst, from);
    }}
}}
static uint64_t sc_hash_buffers(const sc_input *T, int m) {{
    uint64_t h = 0xcbf29ce484222325ULL; (void)T; (void)m;
    {" ".join(hashes)}
    for (int j = 0; j < m; j++) if (T[j].deep) {{ sc_clear_loose((sc_input *)&T[j]); h = sc_hash_deep(h, &T[j]); }}
    return h;
}}
#include "sc_timing.h"
"""


DEEP_COPIES_BYTES = 192 << 20  # memory for the three copies of every timed input, where calls bring regions


def _fresh(recorded: RecordedInputs | None) -> bool:
    """Whether each timed call starts from the program's recorded state (sc_timing.h SC_FRESH): where the
    recorded calls bring the memory their struct's pointers reach, a state the function changes. Generated
    inputs are called on over and over, unless the original's own copies cannot be timed so
    (InterleavedTimer._go_fresh): restored from the start, compress_block's original once crashed on its first
    call in the timing layout, a random `pending` writing 128 MiB past pending_buf."""
    return bool(recorded and recorded.region_bytes)


def _slots(plan: Plan, recorded: RecordedInputs | None, fresh: bool = False) -> int:
    """Inputs per timed copy: 512, or the power of two that keeps three copies of deep recorded calls
    (each with the memory its pointers reach), and their snapshots (SC_FRESH), within DEEP_COPIES_BYTES;
    of generated inputs timed fresh, the same with their buffers and what their structs own."""
    n = N_TIMING_INPUTS
    per = 0
    if recorded and recorded.region_bytes:
        per = sum(recorded.region_bytes) + sum(recorded.max_bytes.values()) + 4096 * len(recorded.region_bytes)
    elif fresh and not recorded:
        owned = owned_sizes(plan)
        per = sum(owned) + 4096 * len(owned)
        per += sum(p.max_len * max(p.element.bits // 8, 1) for p in plan.params if p.role == "array")
        per += sum(p.max_len + 1 for p in plan.params if p.role == "cstring")
    while n > 1 and 6 * n * per > DEEP_COPIES_BYTES:
        n //= 2
    return n


def _padded(asm: str, name: str, offset: int) -> str:
    """Place the function `offset` bytes past a page boundary: all three copies alike."""
    pad = f"\t.p2align 12\n\t.skip {offset}, 0x90\n" if offset else "\t.p2align 12\n"
    out, n = re.subn(rf"^({re.escape(name)}:)", pad + r"\1", asm, count=1, flags=re.M)
    if not n:
        raise ValueError(f"label '{name}:' not found in the assembly")
    return out
