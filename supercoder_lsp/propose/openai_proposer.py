"""Proposer for any OpenAI-compatible endpoint (`vllm serve`, llama.cpp's server, a hosted API).

Needs the optional extra: pip install "supercoder-lsp[openai]". Base URL, model
and key come from the settings or the environment as the openai client takes them
(OPENAI_BASE_URL, OPENAI_API_KEY); with no model given, a server that serves one
model (its /v1/models) is asked which. N samples per request
(`n`), timeouts and retries with backoff are the client's; a server that is down
or returns garbage gives a clear message, and the other proposers go on.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..model import Candidate
from .base import ProposalRequest, ProposerUnavailable
from .prompt import SUPERCODER_TEMPLATE, candidates_from_replies, chat_messages


@dataclass
class OpenAISettings:
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    temperature: float = 0.7
    max_tokens: int = 4096
    timeout: float = 120.0
    retries: int = 2
    template: str = SUPERCODER_TEMPLATE
    extra: dict = field(default_factory=dict)


class OpenAIProposer:
    name = "openai"
    refinable = True  # rejected candidates can go back with their reasons

    def __init__(self, s: OpenAISettings):
        try:
            import openai  # noqa: F401  (optional extra)
        except ImportError as e:
            raise ProposerUnavailable(
                'the openai proposer needs its extra: pip install "supercoder-lsp[openai]"'
            ) from e
        self.s = s
        # the openai client's own names first; SUPERCODER_* as older aliases
        self.base_url = s.base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("SUPERCODER_OPENAI_BASE_URL")
        if not self.base_url:
            raise ProposerUnavailable(
                "the openai proposer needs a server URL: --base-url URL (or OPENAI_BASE_URL); "
                "--model NAME too when the server serves several models"
            )
        from openai import OpenAI

        self.client = OpenAI(
            base_url=self.base_url,
            api_key=s.api_key or os.environ.get("OPENAI_API_KEY") or "none",
            timeout=s.timeout,
            max_retries=s.retries,
        )
        self.model = s.model or os.environ.get("SUPERCODER_MODEL") or self._only_model()
        self.note: str | None = None

    def _only_model(self) -> str:
        """The model a server serves when it serves one (its /v1/models), as `vllm serve` does."""
        try:
            ids = [m.id for m in self.client.models.list()]
        except Exception as e:
            raise ProposerUnavailable(
                f"no --model given and {self.base_url}/models could not be read ({type(e).__name__}: {e}); "
                "give --model NAME"
            ) from e
        if len(ids) != 1:
            raise ProposerUnavailable(
                f"no --model given and {self.base_url} serves {len(ids)} models"
                + (f" ({', '.join(ids[:8])})" if ids else "")
                + "; give --model NAME"
            )
        return ids[0]

    def settings(self) -> dict:
        return {
            "name": self.name,
            "base_url": self.base_url,
            "model": self.model,
            "temperature": self.s.temperature,
            "max_tokens": self.s.max_tokens,
            "template": hashlib.sha256(self.s.template.encode()).hexdigest()[:16],
        }

    def _ask(self, messages: list[dict], n: int) -> list[tuple[str, str | None]]:
        resp = self.client.chat.completions.create(
            model=self.model,  # checked when the proposer is made
            messages=messages,  # type: ignore[arg-type]  # plain role/content dicts, as the API takes
            n=n,
            temperature=self.s.temperature,
            max_tokens=self.s.max_tokens,
            **self.s.extra,
        )
        choices = getattr(resp, "choices", None)
        if not isinstance(choices, list):
            raise TypeError(f"its reply has no 'choices' list ({str(resp)[:120]!r})")
        return [
            (((ch.message.content if ch.message else None) or ""), getattr(ch, "finish_reason", None)) for ch in choices
        ]

    def complete(self, messages: list[dict], n: int) -> list[tuple[str, str | None]]:
        """n replies (text, finish reason) to a chat as it is; some servers (llama.cpp's) ignore n and
        answer once: the rest are asked for one at a time."""
        texts = self._ask(messages, n)
        for _ in range(n - len(texts)):
            more = self._ask(messages, 1)
            if not more:
                break
            texts += more
        return texts[:n]

    def propose(self, request: ProposalRequest, n: int) -> Iterator[Candidate]:
        from openai import OpenAIError

        name = request.function.name
        messages = chat_messages(self.s.template, request)
        texts: list[tuple[str, str | None]] = []
        try:
            texts = self.complete(messages, n)
            if not texts:
                self.note = f"openai proposer ({self.base_url}, model {self.model}) answered with no choices"
        except OpenAIError as e:
            self.note = f"openai proposer ({self.base_url}, model {self.model}) failed: {type(e).__name__}: {e}"
        except (ValueError, TypeError, AttributeError) as e:  # a reply that is not a chat completion
            self.note = f"openai proposer ({self.base_url}) returned something that is not a chat completion: {e}"
        cut = {i for i, (_, why) in enumerate(texts[:n]) if why == "length"}
        yield from candidates_from_replies(
            [t for t, _ in texts[:n]],
            name,
            "openai",
            f"{self.model}@{self.base_url}",
            request.round,
            cut_off=cut,
            limit=self.s.max_tokens,
        )
