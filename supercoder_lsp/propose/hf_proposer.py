"""Proposer running a model with transformers, from local weights, on the CPU or a GPU.

Needs the optional extra: pip install "supercoder-lsp[hf]". Weights are only
ever read from the given directory (local_files_only): nothing is downloaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..model import Candidate
from .base import ProposalRequest, ProposerUnavailable
from .prompt import SUPERCODER_TEMPLATE, candidates_from_replies, chat_messages


class HFProposer:
    name = "hf"
    refinable = True

    def __init__(
        self,
        model_dir: str | Path,
        *,
        temperature: float = 0.7,
        max_new_tokens: int = 2048,
        device: str | None = None,
        template: str = SUPERCODER_TEMPLATE,
    ):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:
            raise ProposerUnavailable('the hf proposer needs its extra: pip install "supercoder-lsp[hf]"') from e
        path = Path(model_dir)
        if not (path / "config.json").is_file():
            raise ProposerUnavailable(
                f"--hf-model {path}: no config.json there; give a directory with local weights "
                "(e.g. a snapshot of LLM4Code/Superoptimizer_Qwen7B)"
            )
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        try:
            self.tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        except (OSError, ValueError, TypeError) as e:
            raise ProposerUnavailable(
                f"--hf-model {path}: no usable tokenizer there ({type(e).__name__}: {e}); the "
                "directory needs the model's tokenizer files (tokenizer.json or the like)"
            ) from e
        if getattr(self.tok, "vocab_size", 0) in (0, None):
            raise ProposerUnavailable(f"--hf-model {path}: the tokenizer there is empty")
        self.model = (
            AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True, dtype="auto")
            .to(self.device)  # type: ignore[arg-type]  # transformers' stubs: a device string is what it takes
            .eval()
        )
        self.path, self.temperature, self.max_new_tokens, self.template = path, temperature, max_new_tokens, template
        self.note: str | None = None
        cfg = self.model.config
        self.context = (
            getattr(cfg, "max_position_embeddings", None)
            or getattr(cfg, "n_positions", None)
            or getattr(cfg, "max_sequence_length", None)
        )

    def settings(self) -> dict:
        return {
            "name": self.name,
            "model": str(self.path.resolve()),
            "temperature": self.temperature,
            "max_new_tokens": self.max_new_tokens,
        }

    def _render(self, messages: list[dict]) -> str:
        if getattr(self.tok, "chat_template", None):
            return str(self.tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        return "\n\n".join(m["content"] for m in messages)

    def complete(self, messages: list[dict], n: int, round_: int = 0) -> list[tuple[str, str | None]]:
        """n sampled replies (text, None) to a chat as it is; none when the prompt leaves no room to answer."""
        inputs = self.tok(self._render(messages), return_tensors="pt").to(self.device)
        prompt_len = inputs["input_ids"].shape[1]
        room = self.max_new_tokens if not self.context else min(self.max_new_tokens, self.context - prompt_len)
        if room < 16:  # the prompt (with the refinement history) leaves no room for an answer
            self.note = (
                f"hf proposer ({self.path.name}): the round-{round_} prompt of {prompt_len} tokens does not "
                f"fit the model's context of {self.context} tokens with room to answer; that round was skipped"
            )
            return []
        pad = self.tok.pad_token_id if self.tok.pad_token_id is not None else self.tok.eos_token_id
        with self.torch.no_grad():
            out = self.model.generate(
                **inputs,
                do_sample=True,
                temperature=self.temperature,
                num_return_sequences=n,
                max_new_tokens=room,
                pad_token_id=pad,
            )
        return [(str(self.tok.decode(seq[prompt_len:], skip_special_tokens=True)), None) for seq in out]

    def propose(self, request: ProposalRequest, n: int) -> Iterator[Candidate]:
        replies = self.complete(chat_messages(self.template, request), n, request.round)
        texts = [t for t, _ in replies]
        yield from candidates_from_replies(texts, request.function.name, "hf", self.path.name, request.round)
