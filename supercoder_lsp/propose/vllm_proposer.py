"""Proposer running the model in-process with vLLM (`vllm.LLM`), on this machine's GPUs.

Needs the optional extra: pip install "supercoder-lsp[vllm]" (CUDA). Only the
worker processes import it; the language server never does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..model import Candidate
from .base import ProposalRequest, ProposerUnavailable
from .prompt import SUPERCODER_TEMPLATE, candidates_from_replies, chat_messages


class VLLMProposer:
    name = "vllm"
    refinable = True

    def __init__(
        self,
        model: str | Path,
        *,
        temperature: float = 0.7,
        max_new_tokens: int = 2048,
        tensor_parallel_size: int = 1,
        template: str = SUPERCODER_TEMPLATE,
    ):
        try:
            from vllm import LLM, SamplingParams
        except ImportError as e:
            raise ProposerUnavailable(
                'the vllm proposer needs its extra and a CUDA GPU: pip install "supercoder-lsp[vllm]"'
            ) from e
        self.SamplingParams = SamplingParams
        self.llm = LLM(model=str(model), tensor_parallel_size=tensor_parallel_size)
        self.model, self.temperature, self.max_new_tokens, self.template = (
            str(model),
            temperature,
            max_new_tokens,
            template,
        )
        self.note: str | None = None

    def settings(self) -> dict:
        return {
            "name": self.name,
            "model": self.model,
            "temperature": self.temperature,
            "max_new_tokens": self.max_new_tokens,
        }

    def complete(self, messages: list[dict], n: int) -> list[tuple[str, str | None]]:
        """n sampled replies (text, finish reason) to a chat as it is."""
        params = self.SamplingParams(n=n, temperature=self.temperature, max_tokens=self.max_new_tokens)
        tok = self.llm.get_tokenizer()
        if getattr(tok, "chat_template", None):
            outputs = self.llm.chat(messages, params)
        else:
            outputs = self.llm.generate("\n\n".join(m["content"] for m in messages), params)
        return [(o.text, getattr(o, "finish_reason", None)) for o in outputs[0].outputs[:n]]

    def propose(self, request: ProposalRequest, n: int) -> Iterator[Candidate]:
        texts = [t for t, _ in self.complete(chat_messages(self.template, request), n)]
        yield from candidates_from_replies(texts, request.function.name, "vllm", Path(self.model).name, request.round)
