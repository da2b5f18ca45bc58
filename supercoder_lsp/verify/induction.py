"""Proof by induction over the original's loop: equal on every input without unrolling it.

Unrolled, a Kernighan bit loop (`while (x) { x &= x - 1; c++; }`) has 65 paths, and z3 needs
minutes to show that their If chain equals `popcnt`. Over one step of the loop the same fact
is a small query: if `c + popcount(x) == popcount(x0)` holds at the loop's head, it holds
after one more step, and when the loop ends `c` is the answer.

The candidate's result T (an expression over the arguments, from its own paths) is the
specification. The invariant is searched among templates `acc + g(var) == T` and
`acc + g(var) == T and var != 0`, where `acc` and `var` are registers at the loop's head and
g is T with one argument replaced by `var` and the others by 0; a template is tried only when
it holds at the head on a few concrete inputs. The proof is sound whatever template is found,
because every step is checked for all values:

1. every path from the entry either returns T or reaches the head with the invariant true;
2. from any register state at the head where the invariant holds (every general register
   fresh and unconstrained but for it; the memory, the stack pointer and the facts about the
   arguments as on arrival), every path either comes back to the head with the invariant
   true, the same stack pointer and a smaller value in one register (so the loop ends), or
   returns T;
3. the loop stores nothing (so the memory at the head is the memory on arrival), and the
   flags are written at the head before they are read (so they need not be generalized).

The function must have exactly one loop, with no loop inside, and read no register but the
general ones, the stack pointer, the flags and rip. Anything else, a failed check or a
template that does not fit, is inconclusive, never a counterexample: the unrolling proof
(verify/symbolic.py) is then tried as before.
"""

from __future__ import annotations

import random
import time

GPRS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
FLAGS = ("cc_op", "cc_dep1", "cc_dep2", "cc_ndep")
MAX_BLOCKS = 256  # blocks on one path between the entry, the head and the return
SAMPLES = 8  # concrete inputs a template must fit before the solver sees it


class NotInductive(Exception):
    """The loop is not one this proof handles, or no template fits: inconclusive."""


def prove(
    angr,
    claripy,
    obj: str,
    name: str,
    syms: list,
    regs: list,
    spec_result,
    ret_bits: int,
    ret_addr: int,
    deadline: float,
) -> str:
    """Proves that `name` in `obj` returns `spec_result` (over `syms`) for every input, or raises
    NotInductive. Returns a description of the invariant."""
    proj = angr.Project(obj, auto_load_libs=False, use_sim_procedures=False)
    sym = proj.loader.find_symbol(name)
    if sym is None:
        raise NotInductive(f"no symbol {name}")
    cfg = proj.analyses.CFGFast(normalize=True, function_starts=[sym.rebased_addr])
    func = cfg.kb.functions.get(sym.rebased_addr)
    if func is None:
        raise NotInductive("no function at its symbol")
    loops = proj.analyses.LoopFinder(functions=[func]).loops
    if len(loops) != 1 or loops[0].subloops:
        raise NotInductive(f"{len(loops)} loops (the induction handles one)")
    head = loops[0].entry.addr
    sizes = {b.addr: b.size for b in func.blocks}
    body = {n.addr for n in loops[0].body_nodes}
    consts, written = _check_blocks(proj, sizes, head, body)
    facts: list[tuple[str, int] | None] = [("ne", 0)]
    facts += [("uge", k) for c in sorted(consts) for k in (c, c + 1) if 0 < k < 1 << 64]
    t = _Prover(angr, claripy, proj, sizes, head, syms, spec_result, ret_bits, ret_addr, deadline, [*facts, None])
    t.written, t.body = [r for r in GPRS if r in written], body
    return t.run(
        proj.factory.call_state(
            sym.rebased_addr,
            *regs,
            ret_addr=ret_addr,
            add_options={
                angr.options.SYMBOL_FILL_UNCONSTRAINED_MEMORY,
                angr.options.SYMBOL_FILL_UNCONSTRAINED_REGISTERS,
                angr.options.STRICT_PAGE_ACCESS,
            },
            remove_options={angr.options.UNICORN},
        )
    )


def _check_blocks(proj, sizes: dict, head: int, body: set) -> tuple[set[int], set[str]]:
    """Registers read are general ones, rsp, rip and flags; the head writes the flags before it
    reads them; the loop's body stores nothing. Returns the constants the function compares with
    (the facts about the loop's variable that the invariant may need: `x >= 10` in a division
    loop) and the general registers its loop writes (the others keep their values on arrival)."""
    arch = proj.arch
    consts: set[int] = set()
    written: set[str] = set()
    gpr_at = {}
    for r in GPRS:
        off, size = arch.registers[r]
        gpr_at.update({o: r for o in range(off, off + size)})
    allowed: set[int] = set()
    for r in (*GPRS, "rsp", "rip", *FLAGS):
        off, size = arch.registers[r]
        allowed.update(range(off, off + size))
    flag_off = {arch.registers[f][0]: f for f in FLAGS}
    for addr, size in sizes.items():
        irsb = proj.factory.block(addr, size=size).vex
        first: dict[str, str] = {}
        for st in irsb.statements:
            tag = st.tag
            if addr in body and tag in ("Ist_Store", "Ist_StoreG", "Ist_CAS", "Ist_LLSC", "Ist_Dirty"):
                raise NotInductive("its loop writes memory")
            if tag == "Ist_Put" and st.offset in flag_off:
                first.setdefault(flag_off[st.offset], "put")
            if tag == "Ist_Put" and addr in body and st.offset in gpr_at:
                written.add(gpr_at[st.offset])
            for e in st.expressions:
                if e.tag == "Iex_Binop" and "Cmp" in e.op:
                    consts.update(a.con.value for a in e.args if a.tag == "Iex_Const")
                if e.tag == "Iex_Get":
                    if e.offset not in allowed:
                        raise NotInductive(f"it reads register {arch.translate_register_name(e.offset)}")
                    if e.offset in flag_off:
                        first.setdefault(flag_off[e.offset], "get")
                elif e.tag == "Iex_GetI":
                    raise NotInductive("it reads registers by index")
        if addr == head:
            if any(first.get(f) != "put" for f in FLAGS[:3]) or first.get("cc_ndep") == "get":
                raise NotInductive("the flags are live at the head of its loop")
    return consts, written


class _Prover:
    def __init__(self, angr, claripy, proj, sizes, head, syms, spec, ret_bits, ret_addr, deadline, facts):
        self.written: list[str] = list(GPRS)  # registers the loop writes: fresh at the head
        self.body: set[int] = set()  # its blocks: where those registers and no memory are written
        self.facts = facts  # a fact about var the invariant may add: ("ne", c) or ("uge", c), or None
        self.angr, self.claripy, self.proj = angr, claripy, proj
        self.sizes, self.head, self.syms, self.spec = sizes, head, syms, spec
        self.ret_bits, self.ret_addr, self.deadline = ret_bits, ret_addr, deadline
        self.names = {x.args[0] for x in syms}

    # -- exploration ------------------------------------------------------------------

    def _explore(self, state) -> tuple[list, list]:
        """States that reach the head and states that return, from `state` (the head itself only
        after a first step)."""
        active, at_head, returned, blocks = [state], [], [], 0
        while active:
            self._clock()
            nxt = []
            for s in active:
                blocks += 1
                if blocks > MAX_BLOCKS:
                    raise NotInductive("too many blocks between the head and the return")
                succ = self.proj.factory.successors(s, size=self.sizes[s.addr])
                if succ.unconstrained_successors:
                    raise NotInductive("a jump to a symbolic address")
                for n in succ.flat_successors:
                    if n.addr == self.ret_addr:
                        if n.history.jumpkind != "Ijk_Ret":
                            raise NotInductive("a path ended other than by returning")
                        returned.append(n)
                    elif n.addr == self.head:
                        at_head.append(n)
                    elif n.addr in self.sizes:
                        nxt.append(n)
                    else:
                        raise NotInductive(f"it leaves its code (to {n.addr:#x})")
            active = nxt
        return at_head, returned

    def _clock(self) -> None:
        if time.monotonic() > self.deadline:
            raise NotInductive("out of time")

    def _valid(self, constraints, cond) -> bool:
        self._clock()
        s = self.claripy.Solver(timeout=max(1, int((self.deadline - time.monotonic()) * 1000)))
        s.add(list(constraints))
        s.add(self.claripy.Not(cond))
        return not s.satisfiable()

    def _covers(self, base, states) -> None:
        """The paths found stand for every state they started from (none narrowed away)."""
        conds = [
            self.claripy.And(*s.solver.constraints) if s.solver.constraints else self.claripy.true() for s in states
        ]
        if not conds or not self._valid(base, self.claripy.Or(*conds)):
            raise NotInductive("its paths do not cover every input")

    def _result(self, s):
        return s.regs.rax[self.ret_bits - 1 : 0]

    # -- templates --------------------------------------------------------------------

    def _g(self, i: int, v):
        c = self.claripy
        rep = {x.hash(): (v[x.size() - 1 : 0] if k == i else c.BVV(0, x.size())) for k, x in enumerate(self.syms)}
        return c.replace_dict(self.spec, rep)

    def _inv(self, state, acc: str, var: str, i: int, fact):
        c = self.claripy
        v = getattr(state.regs, var)
        main = getattr(state.regs, acc)[self.ret_bits - 1 : 0] + self._g(i, v) == self.spec
        if fact is None:
            return main
        op, k = fact
        return c.And(main, v != k if op == "ne" else c.UGE(v, k))

    def _samples(self, arrival) -> list[tuple[dict, int]]:
        """Concrete register values at the head and the expected result, on a few inputs."""
        c = self.claripy
        whole = c.Concat(*self.syms) if len(self.syms) > 1 else self.syms[0]
        rng = random.Random(0)
        vals = [
            r
            for r in (rng.getrandbits(whole.size()) for _ in range(SAMPLES))
            if arrival.solver.satisfiable(extra_constraints=[whole == r])
        ]
        vals += arrival.solver.eval_upto(whole, 3)
        out = []
        for v in vals:
            args, shift = [], whole.size()
            for x in self.syms:
                shift -= x.size()
                args.append((v >> shift) & ((1 << x.size()) - 1))
            fix = [x == a for x, a in zip(self.syms, args, strict=True)]
            solver = c.Solver()
            regs = {r: solver.eval(getattr(arrival.regs, r), 1, extra_constraints=fix)[0] for r in GPRS}
            out.append((regs, self._spec_at(tuple(args))))
        return out

    def _spec_at(self, args: tuple) -> int:
        c = self.claripy
        return c.Solver().eval(self.spec, 1, extra_constraints=[x == a for x, a in zip(self.syms, args, strict=True)])[
            0
        ]

    def _fits(self, samples, acc, var, i, fact) -> bool:
        mask = (1 << self.ret_bits) - 1
        for regs, want in samples:
            v = regs[var]
            args = tuple((v & ((1 << x.size()) - 1)) if k == i else 0 for k, x in enumerate(self.syms))
            if (regs[acc] + self._spec_at(args)) & mask != want & mask:
                return False
            if fact is not None and not (v != fact[1] if fact[0] == "ne" else v >= fact[1]):
                return False
        return True

    # -- the proof --------------------------------------------------------------------

    def run(self, entry) -> str:
        arrivals, direct = self._explore(entry)
        self._covers([], arrivals + direct)
        for d in direct:
            if not self._valid(d.solver.constraints, self._result(d) == self.spec):
                raise NotInductive("a path that skips the loop returns another result")
        if not arrivals:
            raise NotInductive("no path reaches the loop")
        # registers at the head that hold values of the arguments alone
        usable = [r for r in GPRS if all(getattr(a.regs, r).variables <= self.names for a in arrivals)]
        samples = [self._samples(a) for a in arrivals]
        for acc in usable:
            for var in usable:
                for i in range(len(self.syms)):
                    for fact in self.facts:
                        if var == acc or not all(self._fits(s, acc, var, i, fact) for s in samples):
                            continue
                        if self._inductive(arrivals, acc, var, i, fact):
                            form = f"{acc} + f({var}) == f(args)"
                            if fact is not None:
                                form += f" and {var} {'!=' if fact[0] == 'ne' else '>='} {fact[1]}"
                            return form
        raise NotInductive("no invariant of the form acc + f(var) fits its loop")

    def _inductive(self, arrivals, acc, var, i, fact) -> bool:
        c = self.claripy
        if not all(self._valid(a.solver.constraints, self._inv(a, acc, var, i, fact)) for a in arrivals):
            return False
        for a in arrivals:
            h = a.copy()
            for r in self.written:
                setattr(h.regs, r, c.BVS(f"head_{r}", 64))
            before = {r: getattr(h.regs, r) for r in self.written}
            h.add_constraints(self._inv(h, acc, var, i, fact))
            rsp = h.regs.rsp
            start = len(h.history.bbl_addrs)
            back, out = self._explore(h)
            self._covers(h.solver.constraints, back + out)
            for b in back:
                if not set(list(b.history.bbl_addrs)[start:]) <= self.body:
                    raise NotInductive("a step of its loop runs blocks outside the loop's body")
                if b.regs.rsp is not rsp and not self._valid(b.solver.constraints, b.regs.rsp == rsp):
                    return False
            # the exits first: a fact too weak for the invariant fails there in a quick query
            for o in out:
                if not self._valid(o.solver.constraints, self._result(o) == self.spec):
                    return False
            for b in back:
                if not self._valid(b.solver.constraints, self._inv(b, acc, var, i, fact)):
                    return False
            # the loop ends: one register falls (unsigned) on every path back to the head
            order = [var, *(r for r in self.written if r != var)]
            if back and not any(
                all(self._valid(b.solver.constraints, c.ULT(getattr(b.regs, r), before[r])) for b in back)
                for r in order
            ):
                raise NotInductive("no register falls on every step of its loop, so it may not end")
        return True
