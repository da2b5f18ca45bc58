"""The synthesizer's search: expressions over a scalar function's parameters enumerated by size until one
gives the original's results on every sample (edge values, random ones, earlier counterexamples), and
step functions of comparisons, asked of an oracle where no expression fits."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_SIZE = 5  # nodes of an expression


MAX_STEPS = 64  # comparisons in a step function


N_RANDOM = 400  # random samples besides the edge values


TIME_BUDGET = 4.0  # seconds of enumeration per round


@dataclass(frozen=True)
class Expr:
    """An expression over W-bit unsigned values; `c` is its C text over uint64_t/uint32_t."""

    c: str
    size: int
    needs: frozenset[str] = frozenset()  # CPU features its builtins use best: popcnt, lzcnt, bmi (tzcnt)
    width: int = 64  # the working width of its values (set once found)


class Samples:
    """Inputs (as W-bit unsigned values of each parameter) and the original's result on each."""

    def __init__(self, names: list[str], bits: list[int], signed: list[bool], ret_bits: int):
        self.names, self.bits, self.signed, self.ret_bits = names, bits, signed, ret_bits
        self.inputs: list[tuple[int, ...]] = []
        self.outputs: list[int] = []

    def width(self) -> int:
        return 64 if max([*self.bits, self.ret_bits]) > 32 else 32

    def promoted(self, k: int) -> list[int]:
        """Parameter k of every sample as C promotes it to the working width (sign- or zero-extended)."""
        w, b = self.width(), self.bits[k]
        out = []
        for inp in self.inputs:
            v = inp[k] & ((1 << b) - 1)
            if self.signed[k] and v >> (b - 1):
                v -= 1 << b
            out.append(v & ((1 << w) - 1))
        return out


def _edge_values(bits: int, signed: bool) -> list[int]:
    m = (1 << bits) - 1
    vals = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 255, m, m - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1}
    vals |= {(1 << e) + d for e in range(bits) for d in (-1, 0, 1)}
    return sorted(v & m for v in vals)


def _random_value(rng: random.Random, bits: int) -> int:
    b = rng.choice([bits, bits, rng.randint(1, bits)])
    return rng.getrandbits(b)


def _sample_inputs(bits: list[int], signed: list[bool], seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    edges = [_edge_values(b, s) for b, s in zip(bits, signed, strict=True)]
    base: list[tuple[int, ...]]
    if len(bits) == 1:
        base = [(v,) for v in edges[0]]
    else:
        base = [(a, b) for a in edges[0][:24] for b in edges[1][:24]]
    return base + [tuple(_random_value(rng, b) for b in bits) for _ in range(N_RANDOM)]


def _leaves(s: Samples) -> list[tuple[Expr, tuple[int, ...]]]:
    w = s.width()
    ut = f"uint{w}_t"
    out = []
    for k, name in enumerate(s.names):
        same = s.bits[k] == w and not s.signed[k]
        out.append((Expr(name if same else f"(({ut}){name})", 1), tuple(s.promoted(k))))
    suffix = "u" if w == 32 else "ull"
    for c in sorted({0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, (1 << w) - 1, w - 1, w}):
        out.append((Expr(f"{c}{suffix}", 1), tuple(c for _ in s.inputs)))
    return out


def _unary(w: int):
    m = (1 << w) - 1
    ll = "ll" if w == 64 else ""
    ut = f"uint{w}_t"
    return [
        ("popcount", lambda v: bin(v).count("1"), lambda a: f"(({ut})__builtin_popcount{ll}({a}))", {"popcnt"}),
        ("parity", lambda v: bin(v).count("1") & 1, lambda a: f"(({ut})__builtin_parity{ll}({a}))", {"popcnt"}),
        (
            "ctz",
            lambda v: (v & -v).bit_length() - 1 if v else w,
            lambda a: f"({{ {ut} t_ = {a}; t_ ? ({ut})__builtin_ctz{ll}(t_) : ({ut}){w}; }})",
            {"bmi"},
        ),
        (
            "clz",
            lambda v: w - v.bit_length(),
            lambda a: f"({{ {ut} t_ = {a}; t_ ? ({ut})__builtin_clz{ll}(t_) : ({ut}){w}; }})",
            {"lzcnt"},
        ),
        (
            "bswap",
            lambda v: int.from_bytes(v.to_bytes(w // 8, "little"), "big"),
            lambda a: f"(({ut})__builtin_bswap{w}({a}))",
            set(),
        ),
        ("not", lambda v: ~v & m, lambda a: f"(({ut})~{a})", set()),
        ("neg", lambda v: -v & m, lambda a: f"(({ut})-{a})", set()),
    ]


def _binary(w: int):
    m = (1 << w) - 1
    ut, st = f"uint{w}_t", f"int{w}_t"

    def sgn(v: int) -> int:
        return v - (1 << w) if v >> (w - 1) else v

    return [
        ("add", lambda a, b: (a + b) & m, lambda x, y: f"(({ut})({x} + {y}))", True),
        ("sub", lambda a, b: (a - b) & m, lambda x, y: f"(({ut})({x} - {y}))", False),
        ("mul", lambda a, b: (a * b) & m, lambda x, y: f"(({ut})({x} * {y}))", True),
        # the halving add (floor((a + b) / 2) without overflow), as SIMD sets and Hacker's Delight have it
        (
            "avg",
            lambda a, b: (a + b) >> 1,
            (lambda x, y: f"(({x} & {y}) + (({x} ^ {y}) >> 1))")
            if w == 64
            else (lambda x, y: f"(({ut})(((uint64_t){x} + {y}) >> 1))"),
            True,
        ),
        ("and", lambda a, b: a & b, lambda x, y: f"({x} & {y})", True),
        ("or", lambda a, b: a | b, lambda x, y: f"({x} | {y})", True),
        ("xor", lambda a, b: a ^ b, lambda x, y: f"({x} ^ {y})", True),
        ("shl", lambda a, b: (a << b) & m if b < w else None, lambda x, y: f"(({ut})({x} << {y}))", False),
        ("lshr", lambda a, b: a >> b if b < w else None, lambda x, y: f"({x} >> {y})", False),
        ("ashr", lambda a, b: (sgn(a) >> b) & m if b < w else None, lambda x, y: f"(({ut})(({st}){x} >> {y}))", False),
        ("umin", min, lambda x, y: f"({x} < {y} ? {x} : {y})", True),
        ("umax", max, lambda x, y: f"({x} > {y} ? {x} : {y})", True),
        (
            "smin",
            lambda a, b: a if sgn(a) < sgn(b) else b,
            lambda x, y: f"(({st}){x} < ({st}){y} ? {x} : {y})",
            True,
        ),
        (
            "smax",
            lambda a, b: a if sgn(a) > sgn(b) else b,
            lambda x, y: f"(({st}){x} > ({st}){y} ? {x} : {y})",
            True,
        ),
        ("eq", lambda a, b: int(a == b), lambda x, y: f"(({ut})({x} == {y}))", True),
        # rotates (gcc and clang turn the masked form into rol/ror)
        (
            "rotl",
            lambda a, b: ((a << (b % w)) | (a >> (-b % w))) & m,
            lambda x, y: f"(({ut})(({x} << ({y} & {w - 1})) | ({x} >> (-{y} & {w - 1}))))",
            False,
        ),
        (
            "rotr",
            lambda a, b: ((a >> (b % w)) | (a << (-b % w))) & m,
            lambda x, y: f"(({ut})(({x} >> ({y} & {w - 1})) | ({x} << (-{y} & {w - 1}))))",
            False,
        ),
        # the high half of the widening multiply
        ("mulhu", lambda a, b: (a * b) >> w, lambda x, y: f"(({ut})(((unsigned __int128){x} * {y}) >> {w}))", True),
        # saturating add and subtract, by the overflow builtins
        (
            "uaddsat",
            lambda a, b: min(a + b, m),
            lambda x, y: f"({{ {ut} r_; __builtin_add_overflow({x}, {y}, &r_) ? ({ut}){m}u : r_; }})",
            True,
        ),
        (
            "usubsat",
            lambda a, b: max(a - b, 0),
            lambda x, y: f"({{ {ut} r_; __builtin_sub_overflow({x}, {y}, &r_) ? ({ut})0 : r_; }})",
            False,
        ),
        ("ult", lambda a, b: int(a < b), lambda x, y: f"(({ut})({x} < {y}))", False),
        ("slt", lambda a, b: int(sgn(a) < sgn(b)), lambda x, y: f"(({ut})(({st}){x} < ({st}){y}))", False),
    ]


def enumerate_expr(s: Samples, budget: float = TIME_BUDGET) -> Expr | None:
    """The smallest expression whose low result bits equal the original's on every sample."""
    w = s.width()
    rmask = (1 << s.ret_bits) - 1
    target = tuple(s.outputs)
    by_size: dict[int, list[tuple[Expr, tuple[int, ...]]]] = {1: []}
    seen: set[tuple[int, ...]] = set()
    deadline = time.monotonic() + budget

    def add(e: Expr, vals: tuple[int, ...]) -> Expr | None:
        if vals in seen:
            return None
        seen.add(vals)
        by_size.setdefault(e.size, []).append((e, vals))
        if tuple(v & rmask for v in vals) == target:
            return e
        return None

    for e, vals in _leaves(s):
        if add(e, vals):
            return e
    unary, binary = _unary(w), _binary(w)
    for size in range(2, MAX_SIZE + 1):
        for _, f, c, needs in unary:
            for e, vals in by_size.get(size - 1, []):
                got = add(Expr(c(e.c), size, e.needs | frozenset(needs)), tuple(f(v) for v in vals))
                if got:
                    return got
        for ls in range(1, size - 1):
            rs = size - 1 - ls
            for _, f, c, commutative in binary:
                for le, lv in by_size.get(ls, []):
                    if time.monotonic() > deadline:
                        return None
                    for re_, rv in by_size.get(rs, []):
                        if commutative and ls > rs:
                            continue  # b op a was tried as a op b
                        vals = tuple(f(a, b) for a, b in zip(lv, rv, strict=True))
                        if None in vals:
                            continue
                        got = add(Expr(c(le.c, re_.c), size, le.needs | re_.needs), vals)
                        if got:
                            return got
    return None


def step_function(s: Samples, oracle: Callable[[list[tuple[int, ...]]], list[int] | None]) -> Expr | None:
    """For one unsigned parameter and a result that never falls as it grows (floor(log10 x), a bucket
    index): f(0) + (x >= t1) + (x >= t2) + ..., with every step t found by bisection on the original
    (`oracle` runs it on a batch of inputs), all steps in one batch per round. A sum of comparisons
    has no loop and no division; where the result is not such a function, the samples or the
    bisection say so (None), and verification checks the rest like every candidate's."""
    if len(s.bits) != 1 or s.signed[0]:
        return None
    bits, rmask = s.bits[0], (1 << s.ret_bits) - 1
    seen = sorted(set(zip((i[0] for i in s.inputs), s.outputs, strict=True)))
    if any(b[1] < a[1] for a, b in zip(seen, seen[1:])):
        return None  # falls somewhere: not a step function
    top = oracle([(0,), ((1 << bits) - 1,)])
    if top is None or top[1] < top[0] or top[1] - top[0] > MAX_STEPS:
        return None
    # intervals (lo, hi, f(lo), f(hi)) that still hold a step, narrowed together
    open_ = [(0, (1 << bits) - 1, top[0], top[1])] if top[1] > top[0] else []
    steps: list[int] = []
    while open_:
        mids = [(lo + hi) // 2 for lo, hi, _, _ in open_]
        got = oracle([(m,) for m in mids])
        if got is None:
            return None
        nxt = []
        for (lo, hi, flo, fhi), m, fm in zip(open_, mids, got, strict=True):
            if not flo <= fm <= fhi:
                return None
            for a, b, fa, fb in ((lo, m, flo, fm), (m, hi, fm, fhi)):
                if fb == fa:
                    continue
                if b - a == 1:
                    steps += [b] * (fb - fa)
                else:
                    nxt.append((a, b, fa, fb))
        open_ = nxt
    ut = "uint64_t" if bits > 32 else "uint32_t"
    suffix = "ull" if bits > 32 else "u"
    terms = [f"{top[0] & rmask}{suffix}", *(f"(x_ >= {t}{suffix})" for t in sorted(steps))]
    name = s.names[0]
    c = f"({{ {ut} x_ = {name}; ({ut})({' + '.join(terms)}); }})"
    return Expr(c, len(steps) + 1)
