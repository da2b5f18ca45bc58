"""The SuperCoder prompt, and taking a function's assembly out of a model's reply.

The default template is the one the SuperCoder model (LLM4Code/Superoptimizer_Qwen7B)
was trained on: the C code and its -O3 assembly, and the instruction to answer
with assembly only, in an ```assembly block. Templates are Python format strings
with the fields {c_code}, {assembly} and {function}.
"""

from __future__ import annotations

import re

from ..asm.cut import normalize_candidate

SUPERCODER_TEMPLATE = (
    "Given the following C code and unoptimized assembly code, your task is to generate highly optimized "
    "x86-64 assembly code.\n"
    "C Code:\n\n```c\n{c_code}\n```\n\n"
    "Unoptimized Assembly Code:\n\n```assembly\n{assembly}\n```\n\n"
    "Only output the optimized assembly code. Do not include any other text. Do not write any comments in the "
    "assembly code. Wrap the assembly code in ```assembly``` tags.\n"
    "Optimized Assembly Code:\n"
)

FEEDBACK_TEMPLATE = (
    "The assembly you proposed was rejected.\n"
    "Reason: {reason}: {detail}\n\n"
    "Fix it and output only the corrected, optimized assembly for `{function}`, wrapped in ```assembly``` tags.\n"
)

MAX_ECHO = 8000  # characters of a rejected reply sent back: a rambling reply must not fill the model's context

_FENCE = re.compile(r"```[ \t]*(assembly|asm|s|x86asm|nasm|gas|x86)?[ \t]*\n(.*?)```", re.S | re.I)


def render(template: str, c_code: str, assembly: str, function: str) -> str:
    try:
        return template.format(c_code=c_code, assembly=assembly, function=function)
    except (KeyError, IndexError, ValueError) as e:
        raise ValueError(
            f"prompt template is invalid ({e}); it may use {{c_code}}, {{assembly}} and {{function}}, "
            "and literal braces must be doubled"
        ) from e


def extract_assembly(reply: str) -> str | None:
    """The assembly in a reply: the ```assembly block (the last one, or the one that defines a label), else the
    whole reply when it already looks like assembly."""
    blocks = [m.group(2) for m in _FENCE.finditer(reply)]
    if blocks:
        labelled = [b for b in blocks if re.search(r"^\s*[A-Za-z_.$][\w.$]*:", b, re.M)]
        return (labelled or blocks)[-1]
    if re.search(r"^\s*[A-Za-z_.$][\w.$]*:\s*$", reply, re.M) and re.search(r"^\s+(ret|jmp)\b", reply, re.M):
        return reply
    return None


def candidate_from_reply(reply: str, function: str) -> tuple[str | None, str | None]:
    """(assembly of `function`, None) or (None, why not): a whole translation unit or a single function."""
    asm = extract_assembly(reply)
    if asm is None:
        return None, "the reply holds no ```assembly block"
    try:
        return normalize_candidate(asm, function).text, None
    except ValueError as e:
        return None, str(e)


def chat_messages(template: str, request) -> list[dict]:
    """The chat for one request: the prompt, then each rejected candidate of the
    previous round with its reason (iterative refinement, as in the SuperCoder paper)."""
    fn = request.function
    messages = [{"role": "user", "content": render(template, fn.text, request.baseline_asm, fn.name)}]
    for fb in request.feedback:
        cand = fb.candidate
        if cand.problem:  # the reply was not usable assembly: show the model what it said
            said = cand.assembly[:MAX_ECHO]
        else:  # the assembly as it was tried, without the comment lines we add when cutting
            body = "\n".join(ln for ln in cand.assembly.splitlines() if not ln.lstrip().startswith("# supercoder_lsp:"))
            said = f"```assembly\n{body[:MAX_ECHO]}\n```"
        messages.append({"role": "assistant", "content": said})
        messages.append(
            {
                "role": "user",
                "content": FEEDBACK_TEMPLATE.format(reason=fb.reason, detail=fb.detail[:2000], function=fn.name),
            }
        )
    return messages


def candidates_from_replies(replies, function: str, kind: str, source: str, round_: int, cut_off=(), limit=None):
    """One Candidate per model reply, tagged `{kind}-r{round}-{i}`; an unusable reply becomes
    a candidate whose problem says why (it is rejected as unusable, with the reason kept)."""
    from ..model import Candidate

    for i, text in enumerate(replies):
        label = f"{kind}-r{round_}-{i}"
        origin = f"{kind}:{source} round {round_} sample {i}"
        asm, why = candidate_from_reply(text, function)
        if asm is None and i in cut_off:
            why = (
                f"the reply was cut off at the token limit ({limit}) before it held the function's assembly; "
                "raise --max-new-tokens"
            )
        if asm is None:
            yield Candidate(function, text, origin, label, problem=f"the model's reply could not be used: {why}")
        else:
            yield Candidate(function, asm, origin, label)
