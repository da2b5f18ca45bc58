"""The edge values of generated inputs: integers at and around their limits, lengths, floats."""

from __future__ import annotations

from .plan import ParamPlan

EDGE_CAP = 50_000


# every length up to 17, multiples of 8 up to 128 and powers of two (and three times them) up to 4096, each +-1:
# past every vector width and unroll factor
LENGTH_EDGES = tuple(
    sorted(
        set(range(18))
        | {m * 8 + d for m in range(1, 17) for d in (-1, 0, 1)}
        | {k * 2**e + d for e in range(3, 13) for k in (1, 3) for d in (-1, 0, 1)}
    )
)


FLOAT_EDGES = (
    "0.0",
    "-0.0",
    "1.0",
    "-1.0",
    "0.5",
    "-0.5",
    "2.0",
    "3.0",
    "0.1",
    "-7.25",
    "1e10",
    "-1e10",
    "1e-300",
    "2.2250738585072014e-308",
    "4.9e-324",
    "1.7976931348623157e308",
    "-1.7976931348623157e308",
    "1.17549435e-38",
    "3.40282347e38",
    "1.4e-45",
    "3.141592653589793",
    "(1.0/0.0)",
    "(-1.0/0.0)",
    "(0.0/0.0)",
    "(-(0.0/0.0))",
)


def int_edges(bits: int, signed: bool, lo=None, hi=None) -> list[int]:
    mn = -(1 << (bits - 1)) if signed else 0
    mx = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    vals = {0, 1, 2, 3, mx, mx - 1, mn, mn + 1}
    for k in range(1, bits):
        for d in (-1, 0, 1):
            vals.add((1 << k) + d)
            if signed:
                vals.add(-(1 << k) + d)
    p = 1
    while p <= mx:
        vals.update({p - 1, p, p + 1} | ({-p + 1, -p, -p - 1} if signed else set()))
        p *= 10
    umask = (1 << bits) - 1
    for pat in (0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x0F0F0F0F0F0F0F0F, 0x8000000000000001, 0x00FF00FF00FF00FF):
        u = pat & umask
        vals.add(u - (1 << bits) if signed and u >> (bits - 1) else u)
    for k in (0, bits // 2, bits - 1):  # all ones with one bit clear
        u = umask ^ (1 << k)
        vals.add(u - (1 << bits) if signed and u >> (bits - 1) else u)
    if signed:
        vals.add(-1)
    lo = mn if lo is None else lo
    hi = mx if hi is None else hi
    vals |= {lo, hi, min(lo + 1, hi), max(hi - 1, lo)}
    return sorted(v for v in vals if lo <= v <= hi and mn <= v <= mx)


def _u64(v: int) -> str:
    return f"0x{v & ((1 << 64) - 1):x}ULL"


def _edges(p: ParamPlan) -> list[str]:
    """C literals of the parameter's edge values (for arrays and strings: lengths)."""
    if p.role == "bool":
        return ["0", "1"]
    if p.role == "int":
        return [_u64(v) for v in int_edges(p.bits, p.signed, p.lo, p.hi)]
    if p.role == "float":
        vals = list(FLOAT_EDGES)
        if p.lo is not None and p.hi is not None:
            vals = [repr(float(p.lo)), repr(float(p.hi)), repr((float(p.lo) + float(p.hi)) / 2)]
        return vals
    lo = p.lo or 0
    lens = sorted({n for n in LENGTH_EDGES if lo <= n <= p.max_len} | {lo, p.max_len})
    return [str(n) for n in lens]


def _elem_gen(e: ParamPlan, dst: str) -> str:
    if e.role == "float":
        return f"{dst} = ({e.ctype})sc_rand_double(&r);"
    if e.role == "bool":
        return f"{dst} = (_Bool)(sc_next(&r) & 1);"
    return f"{dst} = ({e.ctype})sc_rand_int(&r, {e.bits}, {int(e.signed)});"
