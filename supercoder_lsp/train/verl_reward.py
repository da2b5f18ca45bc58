"""The reward as verl loads it: verl imports `custom_reward_function.path` as a standalone file (no package),
so this file uses absolute imports only. Config: custom_reward_function.path=<this file>,
custom_reward_function.name=compute_score; `custom_reward_function.reward_kwargs` may set design and q."""

from supercoder_lsp.train.reward import compute_score

__all__ = ["compute_score"]
