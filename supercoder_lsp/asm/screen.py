"""Screen candidate assembly before anything runs it.

A candidate is rejected as `unsafe`, with the offending line, when it holds
what an optimized function has no business doing:

- system calls and privileged or system instructions (syscall, int, in/out,
  hlt, rdmsr, mov to control registers, ...), and instructions whose result
  differs from run to run (rdtsc, rdrand, cpuid) that could tell a test from a
  timing run;
- directives that pull in outside data or hide code from this screen
  (.incbin, .include, macros, raw bytes in an executable section);
- sections the original did not use, other than read-only data; executable or
  writable+executable sections; constructors (.init_array, ...);
- calls, jumps and references to symbols that the original function did not
  use (an allowlist taken from the original, plus a few pure libc routines a
  compiler may call and libgcc's bit helpers such as __popcountdi2), indirect calls when the original had none (indirect
  jumps stay allowed: jump tables), and
  %fs/%gs segment accesses when the original had none;
- absolute addresses (a numeric memory operand or branch target).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .parse import code_segments

# bcmp: what clang makes of memcmp(...) == 0
PURE_LIBC = frozenset({"memcpy", "memmove", "memset", "memcmp", "bcmp", "strlen", "strcmp", "__stack_chk_fail"})
# working memory a rewrite allocates and frees (a merge sort's buffer where the original counted in place): the
# harness tracks every block a call allocates, and one left allocated or freed amiss differs from the original's
HEAP_LIBC = frozenset({"malloc", "calloc", "realloc", "free"})
# what gcc's bit builtins turn into where the flags do not enable the instruction (libgcc, pure)
LIBGCC_BITS = frozenset(
    f"__{op}{mode}2" for op in ("popcount", "parity", "clz", "ctz", "ffs", "bswap") for mode in ("si", "di")
)

FORBIDDEN = {
    "system call": "syscall sysenter sysexit sysret int int1 int3 into iret iretd iretq iretw",
    "privileged or system instruction": (
        "hlt in inb inw inl out outb outw outl ins insb insw insd outs outsb outsw outsd cli sti "
        "lgdt lidt lldt ltr lmsw clts invd wbinvd invlpg invpcid rdmsr wrmsr rdpmc swapgs wrfsbase wrgsbase "
        "xsetbv xrstors xsaves vmcall vmlaunch vmresume vmxon vmxoff vmread vmwrite vmptrld vmptrst vmclear "
        "vmfunc monitor mwait umonitor umwait tpause enclu encls enclv getsec sysexitq sysretq sgdt sidt sldt str smsw "
        "fxrstor xrstor ptwrite"
    ),
    "nondeterministic instruction": "rdtsc rdtscp rdrand rdseed rdpid cpuid xgetbv rdfsbase rdgsbase",
    # the verifier single-steps a call to watch the bytes around its buffers (sc_verify.h): the trap flag is its
    "writes the flags register's trap flag": "popf popfw popfd popfq",
    "reads the flags register's trap flag (the verifier's single-stepping)": "pushf pushfw pushfd pushfq",
}
FORBIDDEN_MNEMONICS = {m: why for why, ms in FORBIDDEN.items() for m in ms.split()}  # mnemonic -> why
_PREFIXES = {
    "lock",
    "rep",
    "repe",
    "repz",
    "repne",
    "repnz",
    "notrack",
    "bnd",
    "data16",
    "data32",
    "addr32",
    "rex",
    "rex.w",
    "{vex}",
    "{vex3}",
    "{evex}",
    "xacquire",
    "xrelease",
    "cs",
    "ds",
    "es",
    "ss",
}
_BAD_DIRECTIVES = {
    ".incbin": "pulls in an outside file",
    ".include": "pulls in an outside file",
    ".macro": "defines a macro",
    ".irp": "expands a macro",
    ".irpc": "expands a macro",
    ".rept": "repeats hidden code",
    ".altmacro": "enables macros",
    ".purgem": "macros",
    ".exitm": "macros",
    ".reloc": "adds a raw relocation",
    ".symver": "changes symbol versions",
    ".cfi_escape": "emits raw unwind bytes",
    ".err": "",
    ".error": "",
    ".print": "",
}
_RAW_DATA = {
    ".byte",
    ".short",
    ".word",
    ".hword",
    ".value",
    ".int",
    ".long",
    ".quad",
    ".octa",
    ".2byte",
    ".4byte",
    ".8byte",
    ".fill",
    ".string",
    ".ascii",
    ".asciz",
    ".dc",
    ".dc.b",
    ".dc.w",
    ".dc.l",
    ".dc.a",
    ".base64",
    ".float",
    ".double",
    ".single",
    ".inst",
    ".uleb128",
    ".sleb128",
}
_CTOR_SECTIONS = (".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors", ".init", ".fini")
_BRANCH = re.compile(r"^(call|jmp|j[a-z]{1,4}|loop\w*|xbegin)[a-z]?$")
_SYMBOL = re.compile(r"(?<![\w.%@])([A-Za-z_.][\w.$]*)(@[A-Za-z]+)?")
# AVX-512 operand decorators (a mask, zeroing, an embedded broadcast or rounding): `%zmm1{%k1}{z}` names no
# symbol `z`; only these exact forms are taken out, anything else in braces is read as symbols
_AVX512_DECORATOR = re.compile(r"\{(%?k[0-7]|z|1to\d+|r[nduz]-sae|sae)\}", re.I)
_REG = re.compile(
    r"^(r\d+[dwb]?|[re]?(ax|bx|cx|dx|si|di|sp|bp|ip)|[abcd][lh]|sil|dil|spl|bpl|[xyz]?mm\d+|k[0-7]|st|"
    r"cr\d+|dr\d+|[c-gs]s|byte|word|dword|qword|tbyte|oword|xmmword|ymmword|zmmword|ptr|offset|"
    r"rip|flat|short|near|far|bcst)$",
    re.I,
)


# DWARF call-frame opcodes that only say where the frame and saved registers are (DW_CFA_def_cfa_expression,
# DW_CFA_expression, DW_CFA_val_expression, DW_CFA_GNU_args_size): gcc emits them with .cfi_escape for a
# function that realigns its stack (AVX code); they are read by an unwinder, never executed
_UNWIND_ONLY = {0x0F, 0x10, 0x16, 0x2E}


def _describes_unwinding(args: str) -> bool:
    try:
        first = int(args.split(",")[0].strip(), 0)
    except ValueError:
        return False
    return first in _UNWIND_ONLY


@dataclass
class Profile:
    """What a piece of assembly does, for comparing a candidate with its original."""

    sections: set[str] = field(default_factory=set)
    symbols: set[str] = field(default_factory=set)  # referenced, not defined here
    where: dict[str, str] = field(default_factory=dict)  # symbol -> first line that references it
    defined: set[str] = field(default_factory=set)
    indirect_call: bool = False
    indirect_jump: bool = False
    segment: bool = False
    findings: list[str] = field(default_factory=list)  # problems regardless of the original


def _section_of(op: str, args: str, current: str, stack: list[str], previous: list[str]) -> str:
    if op in (".text", ".data", ".bss"):
        return op
    if op in (".section", ".pushsection"):
        name = args.split(",")[0].strip().strip('"') or current
        flags = args.split(",")[1].strip().strip('"') if "," in args else ""
        if op == ".pushsection":
            stack.append(current)
        return name + ("\0" + flags if flags else "")
    if op == ".popsection":
        return stack.pop() if stack else current
    if op == ".previous":
        return previous[-1] if previous else current
    return current


def _executable(section: str) -> bool:
    name, _, flags = section.partition("\0")
    return name.startswith(".text") or "x" in flags


def _code(line: str) -> str:
    return "".join(p if k != "comment" else " " for k, p in code_segments(line))


class _Scan:
    """The state of one pass over the text: the profile so far and the current section."""

    def __init__(self) -> None:
        self.prof = Profile()
        self.stack: list[str] = []
        self.section, self.previous = ".text", [".text"]

    def directive(self, where: str, op_l: str, args: str) -> None:
        prof = self.prof
        if op_l == ".cfi_escape" and _describes_unwinding(args):
            pass  # gcc's own for a realigned stack: how a debugger or unwinder finds the frame, never run
        elif op_l in _BAD_DIRECTIVES:
            prof.findings.append(f"{where}: directive {op_l} {_BAD_DIRECTIVES[op_l]}".rstrip())
        elif op_l in (".text", ".data", ".bss", ".section", ".pushsection", ".popsection", ".previous"):
            new = _section_of(op_l, args, self.section, self.stack, self.previous)
            if new != self.section:
                self.previous.append(self.section)
            self.section = new
            name, _, flags = new.partition("\0")
            if name.startswith(_CTOR_SECTIONS):
                prof.findings.append(f"{where}: section {name} runs code before the harness")
            elif "x" in flags and "w" in flags:
                prof.findings.append(f"{where}: section {name} is writable and executable")
            prof.sections.add(name)
        elif op_l in (".set", ".equ", ".equiv", ".comm", ".lcomm"):
            prof.defined.add(args.split(",")[0].strip())
        elif op_l in _RAW_DATA and _executable(self.section):
            prof.findings.append(f"{where}: raw bytes in an executable section")

    def instruction(self, where: str, stmt: str) -> None:
        prof = self.prof
        words = [w for w in re.split(r"\s+", stmt) if w]
        while words and words[0].lower() in _PREFIXES:
            words.pop(0)
        if not words:
            return
        mnem = words[0].lower()
        operands = " ".join(words[1:])
        base = re.sub(r"[bwlq]$", "", mnem) if mnem not in FORBIDDEN_MNEMONICS else mnem
        why = FORBIDDEN_MNEMONICS.get(mnem) or FORBIDDEN_MNEMONICS.get(base)
        if why:
            prof.findings.append(f"{where}: {why} '{mnem}'")
            return
        if re.search(r"%?\b(cr|dr)\d+\b", operands, re.I):
            prof.findings.append(f"{where}: accesses a control or debug register")
        if re.search(r"%?\b[fg]s\s*:", operands, re.I):
            prof.segment = True
        branch = bool(_BRANCH.match(mnem))
        self._addresses(where, mnem, operands, branch)
        for m in _SYMBOL.finditer(re.sub(r"%\w+", " ", _AVX512_DECORATOR.sub(" ", operands))):
            sym = m.group(1)
            if _REG.match(sym) or re.fullmatch(r"\d+[fb]", sym):
                continue
            prof.symbols.add(sym)
            prof.where.setdefault(sym, where)

    def _addresses(self, where: str, mnem: str, operands: str, branch: bool) -> None:
        """Indirect branches, and absolute addresses as branch targets or memory operands."""
        prof = self.prof
        if (
            branch
            and "*" in operands
            or branch
            and re.match(
                r"^(qword|dword)?\s*(ptr)?\s*\[|^%?(r\d+[dwb]?|[re](ax|bx|cx|dx|si|di|sp|bp))$", operands.strip(), re.I
            )
        ):
            if mnem.startswith("call"):
                prof.indirect_call = True
            else:
                prof.indirect_jump = True
        if (
            branch
            and re.fullmatch(r"\$?-?(0x[0-9a-f]+|\d+)", operands.strip(), re.I)
            and not re.fullmatch(r"\d+[fb]", operands.strip())
        ):
            prof.findings.append(f"{where}: branches to an absolute address")
        elif not branch and not mnem.startswith("lea"):  # lea computes an address, never touches it
            for opnd in _split_operands(operands):
                if _absolute_memory(opnd):
                    prof.findings.append(f"{where}: uses an absolute address ({opnd})")
                    break


def profile(text: str) -> Profile:
    scan = _Scan()
    prof = scan.prof
    for lineno, raw in enumerate(text.splitlines(), 1):
        for stmt in _code(raw).split(";"):
            stmt = stmt.strip()
            while True:  # labels
                m = re.match(r"^([A-Za-z_.$][\w.$]*|\d+)\s*:(?!:)\s*", stmt)
                if not m:
                    break
                prof.defined.add(m.group(1))
                stmt = stmt[m.end() :]
            if not stmt:
                continue
            where = f"line {lineno}: {raw.strip()[:80]!r}"
            m = re.match(r"^([A-Za-z_.$][\w.$]*)\s*=", stmt)
            if m:
                prof.defined.add(m.group(1))
                continue
            parts = stmt.split(None, 1)
            if parts[0].startswith("."):
                scan.directive(where, parts[0].lower(), (parts[1] if len(parts) > 1 else "").strip())
            else:
                scan.instruction(where, stmt)
    prof.symbols -= prof.defined
    return prof


def _split_operands(operands: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in operands:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur).strip())
    return [o for o in out if o]


def _absolute_memory(opnd: str) -> bool:
    if re.match(r"^%?[fg]s\s*:", opnd.strip(), re.I):
        return False  # thread-local: judged by the segment rule
    o = re.sub(r"^%?[c-gs]s\s*:\s*", "", opnd.strip(), flags=re.I)
    if o.startswith("$") or o.startswith("%") or not o:
        return False
    num = r"-?(0x[0-9a-fA-F]+|\d+)"
    if re.fullmatch(num, o):  # AT&T: a bare number is a memory operand
        return True
    if re.fullmatch(num + r"?\(\s*,.*\)", o):  # disp(,%index,scale): no base register
        return True
    m = re.search(r"\[([^\]]*)\]", o)  # Intel: [0x1000] with no register
    if m and re.fullmatch(r"\s*" + num + r"\s*", m.group(1)):
        return True
    return False


def screen(candidate: str, original: str, *, extra_symbols: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Reasons the candidate is unsafe (empty when it passes), each naming its line."""
    cand, orig = profile(candidate), profile(original)
    problems = list(cand.findings)
    allowed = orig.symbols | orig.defined | PURE_LIBC | HEAP_LIBC | LIBGCC_BITS | set(extra_symbols)
    for sym in sorted(cand.symbols - allowed):
        if sym.startswith(".L"):
            continue  # an undefined local label fails to assemble on its own
        problems.append(f"{cand.where.get(sym, '')}: references '{sym}', which the original function does not use")
    writable = {s for s in cand.sections - orig.sections if not s.startswith((".text", ".rodata", ".note.GNU-stack"))}
    for s in sorted(writable):
        problems.append(f"switches to section {s}, which the original function does not use")
    extra_text = {
        s for s in cand.sections - orig.sections if s.startswith(".text") and s not in (".text", ".text.unlikely")
    }
    for s in sorted(extra_text):
        problems.append(f"switches to executable section {s}, which the original function does not use")
    if cand.indirect_call and not orig.indirect_call:
        problems.append("makes an indirect call, which the original function does not")
    if cand.segment and not orig.segment:
        problems.append("uses an %fs/%gs segment, which the original function does not")
    return problems
