"""The function harness's C for its inputs' buffers in a call: which are read-only for it, which are
watched for stores beside them, the one bit flipped between calls, and which may be moved to another
place (sc_plain.h's sc_move)."""

from __future__ import annotations

from ..harness.plan import Plan


def within(j: int, k: int) -> str:
    """C: whether parameter j's buffer lies in parameter k's guard region."""
    q = f"(const unsigned char *)in->pv[{j}]"
    return f"({q} >= sc_g[{k}].base && {q} < sc_g[{k}].base + sc_g[{k}].cap)"


def buffer_bytes(plan: Plan, k: int, nul: bool = True) -> str:
    """C: the bytes of parameter k's buffer (an array or a C string, with its NUL unless `nul` is false) in
    input `in`."""
    p = plan.params[k]
    if p.role == "array":
        return f"(size_t)in->len[{k}] * sizeof({p.element.ctype})"
    return f"((size_t)in->len[{k}] + {int(nul)})"


def _read_only(plan: Plan) -> str:
    """sc_ro_begin: on one input in four, each buffer behind a const pointer read-only for the call (the pages
    it lies on), where its guard region holds no other parameter's buffer (sc_rt.h's sc_ro_protect says why)."""
    bufs = [k for k, p in enumerate(plan.params) if p.role in ("array", "cstring")]
    const = [k for k in bufs if plan.params[k].ctype.startswith("const")]
    lines = ["static void sc_ro_begin(const sc_input *in) {"]
    if const:
        lines.append("    if (sc_mix(sc_cur ^ 0xc0517ULL) & 3) return;")
    for k in const:
        shared = " || ".join(within(j, k) for j in bufs if j != k) or "0"
        lines.append(
            f"    if ({within(k, k)} && !({shared})) sc_ro_span(&sc_g[{k}], in->pv[{k}], {buffer_bytes(plan, k)});"
        )
    lines.append("}")
    return "\n".join(lines)


def _watched(plan: Plan) -> str:
    """sc_watch_regions: on one short generated input in 64 (at most 256 bytes of buffers; 48 a process), and
    on one in 256 of up to SC_WATCH_BIG_BYTES (8 a process, more steps: a write-back past the end of a longer
    output that only longer ones take passed), the
    64 bytes before and after each output buffer (an array, a string or a struct behind a non-const pointer, in
    a guard region of its own) for sc_verify.h's single-stepped watch; the number of regions."""
    bufs = [k for k, p in enumerate(plan.params) if p.role in ("array", "cstring")]
    outs = [k for k in bufs if not plan.params[k].ctype.startswith("const")]

    def nbytes(k: int) -> str:
        return buffer_bytes(plan, k)

    lines = ["static unsigned sc_watch_regions(const sc_input *in) {"]
    if outs:
        lines.append("    static int probing = -1;")
        lines.append("    static unsigned watched, big; /* a step traps: each one costs microseconds */")
        lines.append('    if (probing < 0) probing = sc_getenv("SC_PROBE_LEN") != NULL;')
        lines.append("    sc_watch_most = SC_WATCH_STEPS;")
        lines.append("    if (probing || in->deep || (sc_mix(sc_cur ^ 0x57e9ULL) & 63)) return 0;")
        total = " + ".join(f"(in->pv[{k}] ? {nbytes(k)} : 0)" for k in bufs)
        lines.append(f"    size_t total = {total};")
        lines.append(
            "    if (total > SC_WATCH_BIG_BYTES || (total > 256 && (!sc_watch_big_for(sc_cur) || big >= SC_WATCH_BIG_MOST))"
            " || (total <= 256 && watched >= 48)) return 0;"
        )
        lines.append("    if (total > 256) sc_watch_most = SC_WATCH_STEPS_BIG;")
        for k in outs:
            shared = " || ".join(within(j, k) for j in bufs if j != k) or "0"
            lines += [
                f"    if (in->pv[{k}] && {within(k, k)} && !({shared})) {{",
                f"        unsigned char *p = in->pv[{k}], *b = sc_g[{k}].base, *e = b + sc_g[{k}].cap, *q = p + {nbytes(k)};",
                "        if (q <= e) {",
                "            sc_watch_add(p - b < 64 ? b : p - 64, p - b < 64 ? (size_t)(p - b) : 64);",
                "            sc_watch_add(q, e - q < 64 ? (size_t)(e - q) : 64);",
                "        }",
                "    }",
            ]
    else:
        lines.append("    (void)in;")
    if outs:
        lines.append("    if (total > 256) big += sc_watch_n > 0; else watched += sc_watch_n > 0;")
    lines.append("    return sc_watch_n;")
    lines.append("}")
    return "\n".join(lines)


def _perturb(plan: Plan) -> str:
    """sc_perturb: one bit of one byte of the input's buffers flipped, the byte and bit drawn from the input's
    index and `salt`; 0 where it has no buffer bytes (sc_verify.h's sc_one calls the function on it first, on a sample of
    inputs: what a call keeps for the next one must not change the next one's result)."""
    bufs = [k for k, p in enumerate(plan.params) if p.role in ("array", "cstring")]
    lines = [
        "static int sc_perturb(sc_input *in, uint64_t salt) {",
        "    sc_rng pr = { sc_mix(sc_cur ^ 0x9e77ULL ^ (salt << 32)) };",
        "    size_t total = 0;",
    ]
    if not bufs:
        lines += ["    (void)in; (void)pr; (void)total; (void)salt;", "    return 0;", "}"]
        return "\n".join(lines)

    def nbytes(k: int) -> str:
        return f"(in->pv[{k}] ? {buffer_bytes(plan, k, nul=False)} : 0)"

    lines.append(f"    total = {' + '.join(nbytes(k) for k in bufs)};")
    lines.append("    if (!total) return 0;")
    lines.append("    size_t at = (size_t)sc_below(&pr, total);")
    for k in bufs:
        lines.append(
            f"    if (at < {nbytes(k)}) {{ ((unsigned char *)in->pv[{k}])[at] ^= (unsigned char)(1u << sc_below(&pr, 8));"
            " return 1; }"
        )
        lines.append(f"    at -= {nbytes(k)};")
    lines += ["    return 0;", "}"]
    return "\n".join(lines)


def _movable(plan: Plan) -> str:
    """C: `sc_movable(in, pv, bytes, lo, hi)`, the buffers of input `in` that sc_plain.h's sc_move may move
    where a program's buffers lie, with their sizes and regions; 0 where the input's buffers must stay (a
    buffer of structs or pointers, whose words point at the island; two in one region; a recorded or deep
    input; an input watched or read-only for the call)."""
    bufs = []
    for k, p in enumerate(plan.params):
        if p.role == "cstring" or (
            p.role == "array" and not p.record and p.elem is not None and p.elem.role in ("int", "bool", "float")
        ):
            bufs.append((k, buffer_bytes(plan, k)))
        elif p.role == "array":
            return "static unsigned sc_movable(sc_input *in, void **pv[], size_t *bytes, unsigned char **lo, unsigned char **hi) { (void)in; (void)pv; (void)bytes; (void)lo; (void)hi; return 0; }"
    lines = [
        "static unsigned sc_movable(sc_input *in, void **pv[], size_t *bytes, unsigned char **lo, unsigned char **hi) {",
        "    (void)pv; (void)bytes; (void)lo; (void)hi;",
        "    if (!sc_loose || in->deep || in->nr || sc_watch_n || sc_ro_n) return 0;",
        "    unsigned n = 0;",
    ]
    for k, size in bufs:
        others = " || ".join(within(k, j) for j, _ in bufs if j != k) or "0"
        lines.append(
            f"    if (in->pv[{k}]) {{ if (!{within(k, k)} || {others}) return 0;"
            f" pv[n] = &in->pv[{k}]; bytes[n] = {size}; lo[n] = sc_g[{k}].base; hi[n] = sc_g[{k}].base + sc_g[{k}].cap; n++; }}"
        )
    lines += ["    return n;", "}"]
    return "\n".join(lines)
