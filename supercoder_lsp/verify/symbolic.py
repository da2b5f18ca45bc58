"""Symbolic proof: a scalar candidate equal to the original on all 2^64 inputs.

Exhaustion stops at 32 bits of input (verify/proof.py). Past that, both objects' machine code
is executed symbolically with angr (VEX lifting, claripy over z3), from the function's entry
to its return, with the same symbolic arguments for both: every path of each is followed (a
loop as far as its inputs can take it), and the result on each path is an expression over the
arguments with the path's condition. z3 then looks for arguments on which the two results
differ. None: proven for every input. One: a counterexample, which the caller runs for real
before it says "wrong". Anything the engine cannot follow soundly (a call, an instruction
VEX does not know, a memory access through a symbolic address, more paths or time than the
budget) makes the proof inconclusive, never "proven".

The arguments are what a C caller passes: a parameter narrower than 32 bits extended to 32
(sign or zero, as its type says) and every 32-bit value zero-extended to 64 (writing a
32-bit register clears the upper half). Junk in the upper bits and in unused registers is
the ABI harness's to check (the trampoline), as are stack and callee-saved registers: this
proof covers the result.

It runs in a process of its own (`python -m supercoder_lsp.verify.symbolic SPEC.json`) under a
time limit: angr is a large optional dependency (the `prove` extra) and z3 cannot be
interrupted reliably from the same thread. It prints one JSON object.
"""

from __future__ import annotations

import json
import logging
import sys
import time

from . import induction

RET = 0x5C0DE000  # where the function returns to: no code there
MAX_ACTIVE = 4096  # paths alive at once before the proof gives up


class Inconclusive(Exception):
    pass


def _args(claripy, params: list[dict]):
    """One symbolic value per parameter, and the register value a C caller passes for it."""
    syms, regs = [], []
    for k, p in enumerate(params):
        bits = p["bits"]
        v = claripy.BVS(f"a{k}", bits, explicit_name=True)
        syms.append(v)
        r = v
        if bits < 32:
            r = r.sign_extend(32 - bits) if p["signed"] else r.zero_extend(32 - bits)
        if r.size() < 64:
            r = r.zero_extend(64 - r.size())
        regs.append(r)
    return syms, regs


def _bit_helper(claripy, op: str, bits: int):
    """The value of libgcc's __<op><si|di>2 (what gcc's bit builtins call where the flags do not
    enable the instruction) on its argument, as its documentation defines it; None where it is
    undefined (clz and ctz of 0), which the proof then leaves unconstrained."""

    def value(x):
        x = x[bits - 1 : 0]
        # the count by halves, as VEX writes popcnt (z3 reasons about it far better than a sum of bits)
        count = x.zero_extend(64 - bits)
        for k, mask in enumerate(
            (
                0x5555555555555555,
                0x3333333333333333,
                0x0F0F0F0F0F0F0F0F,
                0x00FF00FF00FF00FF,
                0x0000FFFF0000FFFF,
                0x00000000FFFFFFFF,
            )
        ):
            count = (count & mask) + ((count >> (1 << k)) & mask)
        if op == "popcount":
            return count, None
        if op == "parity":
            return count & 1, None
        if op == "bswap":
            return claripy.Concat(*[x[8 * k + 7 : 8 * k] for k in range(bits // 8)]).zero_extend(64 - bits), None
        # clz, ctz and ffs as a chain of tests, bit by bit
        order = range(bits - 1, -1, -1) if op == "clz" else range(bits)
        out = claripy.BVV(bits if op != "ffs" else 0, 64)
        for k, i in reversed(list(enumerate(order))):
            out = claripy.If(x[i] == 1, claripy.BVV(k + 1 if op == "ffs" else k, 64), out)
        return out, (x == 0 if op in ("clz", "ctz") else None)

    return value


def _hook_bit_helpers(angr, claripy, proj) -> set[int]:
    """libgcc's bit helpers the object calls, hooked with their documented values: addresses."""
    hooked = set()
    for op in ("popcount", "parity", "clz", "ctz", "ffs", "bswap"):
        for mode, bits in (("si", 32), ("di", 64)):
            name = f"__{op}{mode}2"
            if proj.loader.find_symbol(name) is None:
                continue
            value = _bit_helper(claripy, op, bits)

            class Helper(angr.SimProcedure):
                def run(self, x, value=value):  # noqa: B008
                    got, undefined = value(x)
                    if undefined is not None:
                        got = claripy.If(undefined, claripy.BVS("undefined", 64), got)
                    return got

            proj.hook_symbol(name, Helper())
            hooked.add(proj.loader.find_symbol(name).rebased_addr)
    return hooked


def _paths(angr, claripy, obj: str, name: str, regs: list, ret_bits: int, deadline: float) -> list:
    """(path condition, result) for every path from the entry of `name` in `obj` to its return."""
    proj = angr.Project(obj, auto_load_libs=False, use_sim_procedures=False)
    helpers = _hook_bit_helpers(angr, claripy, proj)
    sym = proj.loader.find_symbol(name)
    if sym is None:
        raise Inconclusive(f"no symbol {name} in the object")
    opts = {
        angr.options.SYMBOL_FILL_UNCONSTRAINED_MEMORY,
        angr.options.SYMBOL_FILL_UNCONSTRAINED_REGISTERS,
        angr.options.STRICT_PAGE_ACCESS,
    }
    state = proj.factory.call_state(
        sym.rebased_addr,
        *regs,
        ret_addr=RET,
        add_options=opts,
        remove_options={angr.options.UNICORN},
    )
    simgr = proj.factory.simulation_manager(state)
    done = []
    while simgr.active:
        if time.monotonic() > deadline:
            raise Inconclusive("out of time following its paths")
        if len(simgr.active) > MAX_ACTIVE:
            raise Inconclusive(f"over {MAX_ACTIVE} paths at once")
        for s in simgr.active:
            if s.addr == RET:
                done.append(s)
            elif s.addr in helpers:
                continue
            elif proj.is_hooked(s.addr) or not proj.loader.main_object.contains_addr(s.addr):
                raise Inconclusive(f"it leaves its code (to {s.addr:#x}: a call the proof cannot follow)")
        simgr.stashes["active"] = [s for s in simgr.active if s.addr != RET]
        if not simgr.active:
            break
        simgr.step()
        # a path that returned fails to fetch code at RET: it is done
        done += [e.state for e in simgr.errored if e.state.addr == RET]
        errors = [e for e in simgr.errored if e.state.addr != RET]
        simgr.errored.clear()
        if errors:
            raise Inconclusive(f"the engine could not follow a path: {errors[0].error}")
        if getattr(simgr, "unconstrained", None):
            raise Inconclusive("the engine could not follow a path: a jump to a symbolic address")
    out: list = []
    for s in done:
        if s.history.jumpkind != "Ijk_Ret":
            raise Inconclusive("a path ended other than by returning")
        out.append(
            (
                claripy.And(*s.solver.constraints) if s.solver.constraints else claripy.BoolV(True),
                s.regs.rax[ret_bits - 1 : 0],
            )
        )
    return out


def _result(paths: list, claripy):
    """The result as one expression: the paths are disjoint and cover every input."""
    expr = paths[-1][1]
    for cond, val in reversed(paths[:-1]):
        expr = claripy.If(cond, val, expr)
    return expr


def _solver(claripy, deadline: float):
    left = deadline - time.monotonic()
    if left <= 0:
        raise Inconclusive("out of time before the solver")
    return claripy.Solver(timeout=int(left * 1000))


def _satisfiable(claripy, cond, deadline: float) -> bool:
    solver = _solver(claripy, deadline)
    solver.add(cond)
    return solver.satisfiable()


def _covering(claripy, side: str, paths: list, deadline: float) -> list:
    """The paths, once they are known to cover every input: a path narrowed by the engine (a symbolic
    address it fixed to one value) leaves inputs no path stands for, and the If chain would be wrong."""
    if not paths or _satisfiable(claripy, claripy.Not(claripy.Or(*[c for c, _ in paths])), deadline):
        raise Inconclusive(f"the paths of {side} do not cover every input")
    return paths


def prove(spec: dict) -> dict:
    logging.disable(logging.WARNING)  # angr's warnings about filled memory are expected here
    t0 = time.monotonic()
    deadline = t0 + spec["budget"]
    try:
        import angr
        import claripy
    except ImportError as e:
        return {"status": "unavailable", "why": f"angr is not installed ({e}): pip install -e '.[prove]'"}
    syms, regs = _args(claripy, spec["params"])
    try:
        pc = _covering(
            claripy,
            "the candidate",
            _paths(angr, claripy, spec["candidate"], spec["name"], regs, spec["ret_bits"], deadline),
            deadline,
        )
        # a loop in the original: first by induction over one step of it (a loop it does not fit
        # fails in a second or two; the unrolling proof gets what is left of the budget)
        try:
            form = induction.prove(
                angr,
                claripy,
                spec["original"],
                spec["name"],
                syms,
                regs,
                _result(pc, claripy),
                spec["ret_bits"],
                RET,
                deadline,
            )
            return {"status": "proven", "induction": form, "seconds": round(time.monotonic() - t0, 1)}
        except induction.NotInductive:
            pass
        po = _covering(
            claripy,
            "the original",
            _paths(angr, claripy, spec["original"], spec["name"], regs, spec["ret_bits"], deadline),
            deadline,
        )
        # one query over both whole results (faster in z3 here than one query per path)
        solver = _solver(claripy, deadline)
        solver.add(_result(po, claripy) != _result(pc, claripy))
        if solver.satisfiable():
            args = [solver.eval(v, 1)[0] for v in syms]
            return {"status": "refuted", "args": args, "paths": [len(po), len(pc)]}
        return {"status": "proven", "paths": [len(po), len(pc)], "seconds": round(time.monotonic() - t0, 1)}
    except Inconclusive as e:
        return {"status": "inconclusive", "why": str(e)}
    except Exception as e:  # the engine or the solver gave up: never a proof
        return {"status": "inconclusive", "why": f"{type(e).__name__}: {e}"[:300]}


def main() -> None:
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    print(json.dumps(prove(spec)))


if __name__ == "__main__":
    main()
