"""Which proposers exist, and how each is made from the run's options.

A proposer is named on the command line, in the editor's settings and in the
cache key; this registry is the one place that turns a name into a Proposer.
Model proposers import their heavy libraries only when they are made.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Proposer, ProposerUnavailable


def _compilers(opts) -> Proposer:
    from .compilers import CompilersProposer

    return CompilersProposer(timeout=opts.compile_timeout)


def _synth(opts) -> Proposer:
    from .synth import SynthProposer

    return SynthProposer(budget=opts.synth_budget, seed=opts.seed)


def _replay(opts) -> Proposer:
    from .replay import ReplayProposer

    if not opts.candidates_dir:
        raise ProposerUnavailable("the replay proposer needs --candidates DIR")
    return ReplayProposer(opts.candidates_dir)


def _template(opts) -> str:
    from .prompt import SUPERCODER_TEMPLATE

    return opts.template.read_text() if opts.template else SUPERCODER_TEMPLATE


def _openai(opts) -> Proposer:
    from .openai_proposer import OpenAIProposer, OpenAISettings

    return OpenAIProposer(
        OpenAISettings(
            base_url=opts.openai_base_url,
            model=opts.openai_model,
            temperature=opts.temperature,
            max_tokens=opts.max_new_tokens,
            timeout=opts.model_timeout,
            template=_template(opts),
        )
    )


def _hf(opts) -> Proposer:
    if not opts.hf_model:
        raise ProposerUnavailable("the hf proposer needs local weights: --hf-model DIR")
    from .hf_proposer import HFProposer

    return HFProposer(
        opts.hf_model, temperature=opts.temperature, max_new_tokens=opts.max_new_tokens, template=_template(opts)
    )


def _vllm(opts) -> Proposer:
    if not opts.hf_model:
        raise ProposerUnavailable("the vllm proposer needs a model: --hf-model DIR_OR_HUB_ID")
    from .vllm_proposer import VLLMProposer

    return VLLMProposer(
        opts.hf_model, temperature=opts.temperature, max_new_tokens=opts.max_new_tokens, template=_template(opts)
    )


REGISTRY: dict[str, Callable[..., Proposer]] = {
    "compilers": _compilers,
    "synth": _synth,
    "replay": _replay,
    "openai": _openai,
    "hf": _hf,
    "vllm": _vllm,
}
NAMES = tuple(REGISTRY)


def make_proposer(name: str, opts) -> Proposer:
    """The proposer called `name`, made from the run's options; raises ProposerUnavailable."""
    if name not in REGISTRY:
        raise ProposerUnavailable(f"unknown proposer '{name}'; available: {', '.join(NAMES)}")
    return REGISTRY[name](opts)
