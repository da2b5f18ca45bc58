"""Every byte of an executable section, decoded with capstone and screened like written
instructions: bytes that do not decode, forbidden mnemonics, absolute operands, direct jumps
into the middle of an instruction, and relocations that patch anything but an operand."""

from __future__ import annotations

import capstone

from .screen import FORBIDDEN_MNEMONICS


def decode_problems(code: bytes, name: str, relocs: list[tuple[int, int, str]]) -> list[str]:
    """Linear decode of every byte of one executable section (fill and padding included)."""
    problems = []
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    operand_bytes: set[int] = set()
    starts: set[int] = set()
    targets: list[tuple[int, int, str]] = []
    reloc_at = {r[0] for r in relocs}
    pos = 0
    while pos < len(code):
        insn = next(md.disasm(code[pos : pos + 16], pos, 1), None)
        if insn is None:
            problems.append(f"{name}+{pos:#x}: bytes {code[pos : pos + 4].hex(' ')} do not decode as an instruction")
            pos += 1
            continue
        starts.add(pos)
        text = f"{insn.mnemonic} {insn.op_str}".strip()
        mnem = insn.mnemonic.split()[-1]
        why = FORBIDDEN_MNEMONICS.get(mnem) or FORBIDDEN_MNEMONICS.get(mnem.rstrip("bwlq"))
        if why:
            problems.append(f"{name}+{pos:#x}: {why} '{text}'")
        if _absolute_operand(insn):
            problems.append(f"{name}+{pos:#x}: '{text}' uses an absolute address")
        fields = _operand_fields(insn)
        for off, size in fields:
            operand_bytes.update(range(off, off + size))
        if not any(off in reloc_at for off, _ in fields):  # resolved by the assembler: it must stay in this section
            target = _static_target(insn)
            if target is not None:
                if not 0 <= target <= len(code):
                    problems.append(
                        f"{name}+{pos:#x}: '{text}' reaches {target - len(code):+#x} bytes past the end "
                        f"of {name}: memory that is not the function's"
                    )
                elif insn.group(capstone.CS_GRP_JUMP) or insn.group(capstone.CS_GRP_CALL):
                    targets.append((pos, target, text))
        pos += insn.size
    for pos, target, text in targets:
        if target < len(code) and target not in starts:  # code that only exists when jumped into mid-instruction
            problems.append(f"{name}+{pos:#x}: '{text}' jumps into the middle of an instruction")
    for off, width, typ in relocs:
        if not set(range(off, off + width)) <= operand_bytes:
            problems.append(f"{name}+{off:#x}: relocation {typ} patches bytes that are not an instruction's operand")
    return problems


def _operand_fields(insn) -> list[tuple[int, int]]:
    """(offset, size) of the displacement and immediate fields: where a relocation may go."""
    from capstone import x86

    end, pos = insn.address + insn.size, insn.address
    imm = insn.imm_size if insn.imm_offset else 0
    fields = []
    if insn.imm_offset and insn.imm_size:
        fields.append((pos + insn.imm_offset, insn.imm_size))
    if insn.disp_offset and insn.disp_size:  # the displacement runs up to the immediate (capstone's size can be off)
        fields.append((pos + insn.disp_offset, insn.size - imm - insn.disp_offset))
    elif any(op.type == x86.X86_OP_MEM and op.mem.base == x86.X86_REG_RIP for op in insn.operands):
        fields.append((end - imm - 4, 4))  # a %rip-relative displacement is the last field before an immediate
    if (insn.group(capstone.CS_GRP_JUMP) or insn.group(capstone.CS_GRP_CALL)) and insn.size >= 5:
        fields.append((end - 4, 4))  # rel32
    return fields


def _absolute_operand(insn) -> bool:
    """A memory operand with no base and no index register (and not %fs/%gs-relative)."""
    from capstone import x86

    if insn.mnemonic.startswith(("lea", "nop")):
        return False
    for op in insn.operands:
        if (
            op.type == x86.X86_OP_MEM
            and op.mem.base == 0
            and op.mem.index == 0
            and op.mem.segment not in (x86.X86_REG_FS, x86.X86_REG_GS)
        ):
            return True
    return False


def _static_target(insn) -> int | None:
    """Where a direct branch or a %rip-relative operand points, relative to the section."""
    from capstone import x86

    if insn.group(capstone.CS_GRP_JUMP) or insn.group(capstone.CS_GRP_CALL):
        ops = insn.operands
        if len(ops) == 1 and ops[0].type == x86.X86_OP_IMM:
            return ops[0].imm
    for op in insn.operands:
        if op.type == x86.X86_OP_MEM and op.mem.base == x86.X86_REG_RIP:
            return insn.address + insn.size + op.mem.disp
    return None
