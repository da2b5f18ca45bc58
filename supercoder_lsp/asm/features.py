"""Which notable instruction families an assembly text uses, and which CPU flags it needs.

Families are recognised by mnemonic (AT&T size suffixes such as `popcntq`,
`lzcntl`, `bswapq` are stripped; `cmovCC`/`setCC` match any condition code) and,
for vector code, by the registers used.  The tables below are the reference:

family          cpu flag (/proc/cpuinfo)   what
--------------  -------------------------  ------------------------------------------
popcnt          popcnt                     popcnt
lzcnt           abm                        lzcnt (Linux reports LZCNT as "abm")
tzcnt           bmi1                       tzcnt
bmi1            bmi1                       andn bextr blsi blsmsk blsr
bmi2            bmi2                       bzhi pdep pext rorx sarx shlx shrx mulx
tbm             tbm                        blcfill blci blcic blcmsk blcs blsfill blsic t1mskc tzmsk
movbe           movbe                      movbe
adx             adx                        adcx adox
ssse3           ssse3                      pshufb phadd* phsub* pmaddubsw pmulhrsw psign* palignr pabs*
sse4.1          sse4_1                     pmulld pmin/pmax(sb,sd,uw,ud) pblend* blend* dpp* insertps
                                           extractps pextr(b,d,q) pinsr(b,d,q) pmovsx* pmovzx* ptest
                                           round* pcmpeqq packusdw mpsadbw phminposuw movntdqa pmuldq
sse4.2          sse4_2                     crc32 pcmpgtq pcmpestri pcmpestrm pcmpistri pcmpistrm
sse4a           sse4a                      extrq insertq movntsd movntss
aes / pclmul    aes / pclmulqdq            aes* / pclmulqdq (legacy or VEX on xmm)
sha             sha_ni                     sha1* sha256*
f16c            f16c                       vcvtph2ps vcvtps2ph
avx             avx                        any VEX `v` instruction on xmm, and float/move ops on ymm
avx2            avx2                       VEX integer ops on ymm (vp*), vpbroadcast*, vbroadcasti128,
                                           vperm2i128 vpermq vpermd vpermps vpermpd, gathers, vpmaskmov,
                                           vpsllv/vpsrlv/vpsrav, vinserti128 vextracti128 vpblendd,
                                           vbroadcastss/sd from a register
fma             fma                        vfmadd* vfmsub* vfnmadd* vfnmsub* (FMA3)
avx512          avx512f (+ see below)      zmm registers, k mask registers/ops, xmm16-31/ymm16-31,
                                           {1toN} broadcasts, EVEX-only mnemonics
cmov bswap bsr bsf setcc                   baseline x86-64: no flag
sse2 vector     (none, baseline)           packed integer p* ops on xmm, packed ps/pd arithmetic
                                           (register moves and xor-zeroing idioms do not count)

AVX-512 subsets are reported only where clearly needed: avx512vl (EVEX
features on xmm/ymm), avx512bw (k*d/k*q mask ops, byte/word element ops on
zmm), avx512dq (kmovb and friends, vpmullq, qword<->fp conversions,
vfpclass/vrange/vreduce, 64x2/32x8 inserts/extracts, vpmov?2m/vpmovm2?),
avx512cd (vpconflict, vplzcnt), avx512_vpopcntdq, avx512_bitalg, avx512vbmi.

The bytes decide, not the text: a prefix can turn one instruction into another
(`rep bsr` is LZCNT on CPUs that have it and BSR on others; `rep bsf` is
TZCNT), and `.byte` can spell any instruction. So the text is also assembled
and its executable bytes decoded (capstone, which reads F3 0F BD as lzcnt), and
what both readings use is what the code uses and needs.

The running CPU comes from /proc/cpuinfo (cached); SUPERCODER_CPU_FLAGS
(space-separated flag names) overrides it, e.g. to simulate a CPU without bmi2.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from pathlib import Path

import capstone
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from .parse import parse

__all__ = ["instruction_features", "required_cpu_flags", "cpu_flags", "cpu_model", "missing_cpu_flags", "FAMILY_FLAGS"]


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


# family -> (cpu flag or None, mnemonics)
_TABLE: dict[str, tuple[str | None, frozenset[str]]] = {
    "popcnt": ("popcnt", _words("popcnt")),
    "lzcnt": ("abm", _words("lzcnt")),
    "tzcnt": ("bmi1", _words("tzcnt")),
    "bmi1": ("bmi1", _words("andn bextr blsi blsmsk blsr")),
    "bmi2": ("bmi2", _words("bzhi pdep pext rorx sarx shlx shrx mulx")),
    "tbm": ("tbm", _words("blcfill blci blcic blcmsk blcs blsfill blsic t1mskc tzmsk")),
    "movbe": ("movbe", _words("movbe")),
    "adx": ("adx", _words("adcx adox")),
    "bswap": (None, _words("bswap")),
    "bsr": (None, _words("bsr")),
    "bsf": (None, _words("bsf")),
    "ssse3": (
        "ssse3",
        _words(
            "pshufb phaddw phaddd phaddsw phsubw phsubd phsubsw pmaddubsw pmulhrsw "
            "psignb psignw psignd palignr pabsb pabsw pabsd"
        ),
    ),
    "sse4.1": (
        "sse4_1",
        _words(
            "pmulld pminsb pminsd pminuw pminud pmaxsb pmaxsd pmaxuw pmaxud pblendw "
            "pblendvb blendps blendpd blendvps blendvpd dpps dppd insertps extractps "
            "pextrb pextrd pextrq pinsrb pinsrd pinsrq pmovsxbw pmovsxbd pmovsxbq "
            "pmovsxwd pmovsxwq pmovsxdq pmovzxbw pmovzxbd pmovzxbq pmovzxwd pmovzxwq "
            "pmovzxdq ptest roundps roundpd roundss roundsd pcmpeqq packusdw mpsadbw "
            "phminposuw movntdqa pmuldq"
        ),
    ),
    "sse4.2": ("sse4_2", _words("crc32 pcmpgtq pcmpestri pcmpestrm pcmpistri pcmpistrm")),
    "sse4a": ("sse4a", _words("extrq insertq movntsd movntss")),
    "aes": ("aes", _words("aesenc aesenclast aesdec aesdeclast aesimc aeskeygenassist")),
    "pclmul": ("pclmulqdq", _words("pclmulqdq pclmullqlqdq pclmulhqlqdq pclmullqhqdq pclmulhqhqdq")),
    "sha": ("sha_ni", _words("sha1rnds4 sha1nexte sha1msg1 sha1msg2 sha256rnds2 sha256msg1 sha256msg2")),
    "gfni": ("gfni", _words("gf2p8affineqb gf2p8affineinvqb gf2p8mulb")),
    "rdrand": ("rdrand", _words("rdrand")),
    "rdseed": ("rdseed", _words("rdseed")),
}
_PREFIX_FAMILIES = {"cmov": None, "setcc": None}
_VECTOR_FAMILIES = {
    "avx": "avx",
    "avx2": "avx2",
    "fma": "fma",
    "f16c": "f16c",
    "avx512": "avx512f",
    "sse2 vector": None,
}

FAMILY_FLAGS: dict[str, str | None] = {f: flag for f, (flag, _) in _TABLE.items()} | _PREFIX_FAMILIES | _VECTOR_FAMILIES

_BY_MNEMONIC = {m: fam for fam, (_, ms) in _TABLE.items() for m in ms}
_CC = _words("o no b c nae nb nc ae e z ne nz be na nbe a s ns p pe np po l nge nl ge le ng nle g")
_PREFIXES = _words(
    "lock rep repe repz repne repnz notrack bnd data16 addr32 data32 addr16 rex rex64 rex.w "
    "xacquire xrelease {vex} {vex2} {vex3} {evex} {load} {store} {disp8} {disp32} cs ds es "
    "fs gs ss"
)

_AVX2_ONLY = re.compile(
    r"^v(pbroadcast|broadcasti128|perm2i128|permq|permd|permps|permpd|pgather|gather"
    r"|pmaskmov|psllv|psrlv|psrav|inserti128|extracti128|pblendd)"
)
_FMA = re.compile(r"^vf(n?madd|n?msub|maddsub|msubadd)\d{3}[ps][sd]$")
_EVEX_ONLY = re.compile(
    r"^(k(mov|and|andn|or|xor|xnor|not|ortest|test|shiftl|shiftr|unpck|add)[bwdq]"
    r"|vp?ternlog|vp?compress|vp?expand|vpermi2|vpermt2|vpro[lr]v?[dq]|vpconflict|vplzcnt|vpopcnt"
    r"|valign[dq]|vscalef|vrcp14|vrsqrt14|vfixupimm|vgetexp|vgetmant|vrndscale|vreduce|vrange|vfpclass"
    r"|vdbpsadbw|vpmullq|vcvtt?p[sd]2u?qq|vcvtu?qq2p[sd]|vcvtt?p[sd]2udq|vcvtudq2p[sd]|vpmov(?!mskb)[dqw]"
    r"[bwd]|vpmovu?s[dqw][bwd]|vpmov[bwdq]2m|vpmovm2|vpabsq|vp(max|min)[su]q|vpsraq|vpsravq"
    r"|vshuf[if](32x4|64x2)|vinsert[if](32x4|64x2|32x8|64x4)|vextract[if](32x4|64x2|32x8|64x4)"
    r"|vbroadcast[if](32x2|32x4|64x2|32x8|64x4)|vpbroadcastm|vpcmpu?[bwdq]$|vpblendm|vblendm|vpermb"
    r"|vpermw|vpmultishiftqb|vpshufbitqmb|vpshldv?|vpshrdv?|vpcmpq)"
)
_RE_ZMM = re.compile(r"(?<![\w])%?zmm\d+")
_RE_YMM = re.compile(r"(?<![\w])%?ymm(\d+)")
_RE_XMM = re.compile(r"(?<![\w])%?xmm(\d+)")
_RE_MASK = re.compile(r"%k[0-7]\b|\{%?k[1-7]\}")
_RE_EVEX_DECOR = re.compile(r"\{1to\d+\}|\{z\}|\{(rn|rd|ru|rz)-sae\}|\{sae\}|\{evex\}")

_BW_ZMM = re.compile(
    r"^vp(add|sub|cmp|min|max|avg|abs|shuf|mul|madd|sll|srl|sra|unpck|pack|broadcast|movzx"
    r"|movsx|blendm|alignr|sadbw|extr|insr|test|movm2|mov[bw]2m|movwb|movuswb|movswb"
    r"|sllvw|srlvw|sravw|permw|mov(?:zx|sx)bw)\w*?(b|w|bw|wb|ub|uw|sb|sw|usb|usw|bw)$|^vmovdqu(8|16)$"
    r"|^vpshufb$|^vpalignr$|^vpsadbw$|^vpmaddubsw$|^vpmaddwd$|^vpmulhrsw$|^vpack"
)
_DQ = re.compile(
    r"^(k(mov|and|andn|or|xor|xnor|not|test|add)b|kshift[lr]b|vpmullq|vcvtt?p[sd]2u?qq"
    r"|vcvtu?qq2p[sd]|vfpclass|vrange|vreduce|v(insert|extract)[if](64x2|32x8)"
    r"|vbroadcast[if](32x2|64x2|32x8)|vpmov[dq]2m|vpmovm2[dq])"
)
_SUBSETS = (
    (re.compile(r"^(vpconflict|vplzcnt)"), "avx512cd"),
    (re.compile(r"^vpopcnt[dq]"), "avx512_vpopcntdq"),
    (re.compile(r"^(vpopcnt[bw]|vpshufbitqmb)"), "avx512_bitalg"),
    (re.compile(r"^(vpermb|vpermi2b|vpermt2b|vpmultishiftqb)"), "avx512vbmi"),
)
_SSE2_MOVES = _words(
    "movdqa movdqu movaps movapd movups movupd movd movq movss movsd movhlps movlhps "
    "movlps movhps movlpd movhpd movmskps movmskpd movnti"
)
_ZERO_IDIOMS = _words("pxor xorps xorpd")


def _instructions(asm_text: str):
    """(mnemonic, operands) of every instruction, prefixes removed, lower case."""
    for s in parse(asm_text).stmts:
        if s.kind != "insn":
            continue
        op, args = s.op, s.args
        while op in _PREFIXES and args:
            parts = args.split(None, 1)
            op, args = parts[0].lower(), (parts[1] if len(parts) > 1 else "")
        yield op, args


@functools.lru_cache(maxsize=512)
def _decoded(asm_text: str) -> tuple[tuple[str, str], ...]:
    """(mnemonic, operands) of every instruction the CPU would read in the text's executable sections:
    the text assembled, its bytes decoded in AT&T syntax. Empty where it does not assemble (its
    verdict comes from the assembler)."""
    with tempfile.TemporaryDirectory(prefix="sc-features-") as d:
        obj = Path(d) / "code.o"
        p = subprocess.run(
            ["as", "--64", "-o", str(obj), "-"], input=asm_text + "\n", capture_output=True, text=True, timeout=60
        )
        if p.returncode != 0 or not obj.is_file():
            return ()
        md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        md.syntax = capstone.CS_OPT_SYNTAX_ATT
        md.skipdata = True
        out = []
        with open(obj, "rb") as fh:
            for sec in ELFFile(fh).iter_sections():
                if sec["sh_type"] == "SHT_PROGBITS" and sec["sh_flags"] & SH_FLAGS.SHF_EXECINSTR:
                    for insn in md.disasm(sec.data(), 0):
                        words = insn.mnemonic.lower().split()
                        while len(words) > 1 and words[0] in _PREFIXES:
                            words.pop(0)
                        args = insn.op_str.lower()
                        if _evex(bytes(insn.bytes)):  # on xmm0-15 too ({evex} vpaddq): AVX-512's encoding
                            args += " {evex}"
                        out.append((words[0] if words else "", args))
        return tuple(out)


_LEGACY_PREFIXES = frozenset(b"\x66\x67\xf0\xf2\xf3\x2e\x36\x3e\x26\x64\x65")


def _evex(code: bytes) -> bool:
    """Whether an instruction is EVEX-encoded: 0x62 after its legacy prefixes (in 64-bit mode always EVEX)."""
    i = 0
    while i < len(code) and code[i] in _LEGACY_PREFIXES:
        i += 1
    return i < len(code) and code[i] == 0x62


def _as_run(asm_text: str):
    """Every instruction as the CPU reads it (decoded from its bytes); as written where it does not assemble."""
    return _decoded(asm_text) or tuple(_instructions(asm_text))


def _base(op: str) -> str | None:
    """The table family of a mnemonic, trying once more without an AT&T size suffix."""
    if op in _BY_MNEMONIC:
        return _BY_MNEMONIC[op]
    if op[-1:] in "bwlq" and op[:-1] in _BY_MNEMONIC:
        return _BY_MNEMONIC[op[:-1]]
    return None


def _classify(op: str, args: str) -> tuple[set[str], set[str]]:
    """(families, cpu flags) of one instruction."""
    fam = _base(op)
    if fam:
        flag = _TABLE[fam][0]
        return {fam}, {flag} if flag else set()
    if op.startswith("cmov") and (op[4:] in _CC or op[4:-1] in _CC):
        return {"cmov"}, set()
    if op.startswith("set") and (op[3:] in _CC or op[3:-1] in _CC):
        return {"setcc"}, set()
    zmm = bool(_RE_ZMM.search(args))
    ymm = [int(n) for n in _RE_YMM.findall(args)]
    xmm = [int(n) for n in _RE_XMM.findall(args)]
    high = any(n >= 16 for n in ymm + xmm)
    evex = zmm or high or bool(_RE_MASK.search(args)) or bool(_RE_EVEX_DECOR.search(args)) or bool(_EVEX_ONLY.match(op))
    if evex and (op.startswith("v") or op.startswith("k")):
        flags = {"avx512f"}
        if not zmm and (ymm or xmm):
            flags.add("avx512vl")
        if re.match(r"^k\w+[dq]$", op) or (zmm and _BW_ZMM.match(op)):
            flags.add("avx512bw")
        if _DQ.match(op):
            flags.add("avx512dq")
        flags |= {flag for rx, flag in _SUBSETS if rx.match(op)}
        fams = {"avx512"}
        if _base(op[1:]) == "gfni":
            fams.add("gfni")
            flags.add("gfni")
        return fams, flags
    if op.startswith("v"):
        if _FMA.match(op):
            return {"fma"}, {"fma"}
        if op in ("vcvtph2ps", "vcvtps2ph"):
            return {"f16c"}, {"f16c"}
        fams, flags = {"avx"}, {"avx"}
        legacy = _base(op[1:])
        if legacy == "gfni":
            fams.add("gfni")
            flags.add("gfni")
        if legacy in ("aes", "pclmul"):  # VEX forms; on ymm/zmm they are VAES/VPCLMULQDQ
            fams.add(legacy)
            flags.add(str(_TABLE[legacy][0]) if not ymm else ("vaes" if legacy == "aes" else "vpclmulqdq"))
        int_ymm = bool(ymm) and op.startswith("vp") and not op.startswith(("vpermil", "vperm2f128", "vpclmul"))
        reg_broadcast = op in ("vbroadcastss", "vbroadcastsd") and _RE_XMM.fullmatch(_source(args)) is not None
        if _AVX2_ONLY.match(op) or int_ymm or reg_broadcast:
            return (fams - {"avx"}) | {"avx2"}, (flags - {"avx"}) | {"avx2"}
        return fams, flags
    if xmm and not ymm:
        regs = [a.strip() for a in args.split(",")]
        if op in _ZERO_IDIOMS and len(regs) == 2 and regs[0] == regs[1]:
            return set(), set()
        if (
            op not in _SSE2_MOVES
            and (op.startswith("p") or re.search(r"p[sd]$", op))
            and not op.startswith(("pop", "push", "prefetch", "pause"))
        ):
            return {"sse2 vector"}, set()
    return set(), set()


def _source(args: str) -> str:
    """The first source operand: first in AT&T (has `%`), last in Intel syntax."""
    ops = [a.strip() for a in args.split(",")]
    return ops[0] if "%" in args else ops[-1]


def instruction_features(asm_text: str) -> set[str]:
    """Notable instruction families used (see the module table)."""
    out: set[str] = set()
    for op, args in _as_run(asm_text):
        out |= _classify(op, args)[0]
    return out


def required_cpu_flags(asm_text: str) -> set[str]:
    """The /proc/cpuinfo flags the code needs (baseline x86-64 needs none)."""
    out: set[str] = set()
    for op, args in _as_run(asm_text):
        out |= _classify(op, args)[1]
    return out


@functools.lru_cache(maxsize=1)
def _cpuinfo() -> tuple[frozenset[str], str]:
    flags: frozenset[str] = frozenset()
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "flags" and not flags:
                    flags = frozenset(value.split())
                elif key == "model name" and model == "unknown":
                    model = value.strip()
                if flags and model != "unknown":
                    break
    except OSError:
        pass
    return flags, model


def cpu_flags() -> frozenset[str]:
    """CPU flags of this machine; SUPERCODER_CPU_FLAGS (space-separated) overrides them."""
    override = os.environ.get("SUPERCODER_CPU_FLAGS")
    if override is not None:
        return frozenset(override.split())
    return _cpuinfo()[0]


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or "unknown"."""
    return _cpuinfo()[1]


def missing_cpu_flags(asm_text: str, flags=None) -> set[str]:
    """Flags the code needs that `flags` (default: this CPU) lacks."""
    have = cpu_flags() if flags is None else frozenset(flags)
    return required_cpu_flags(asm_text) - have
