"""Training with TRL on one machine, the verifier as the reward.

    python -m supercoder_lsp.train.trl_train grpo --model DIR --data rows.jsonl --output OUT
    python -m supercoder_lsp.train.trl_train sft  --model DIR --data sft.jsonl  --output OUT

`grpo`: GRPO (the SuperCoder paper's RL) on rows in the SuperCoder format (`supercoder export --format rl`,
or the dataset's own parquet); each completion is scored by `reward.trl_reward` (speedup over -O3 when the
answer assembles and passes every test, else 0; `--design graded` for the released repository's other
design). `sft`: supervised fine-tuning on best-of-N rows (`supercoder export --format sft`).
Several GPUs or nodes: the verl launch script in train/verl/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _dataset(path: Path):
    from datasets import load_dataset

    kind = "parquet" if path.suffix == ".parquet" else "json"
    return load_dataset(kind, data_files=str(path), split="train")


def _flatten(messages) -> str:
    return "\n".join(m["content"] for m in messages) if isinstance(messages, list) else str(messages)


def _plain_if_no_template(ds, tokenizer, columns: tuple[str, ...]):
    """A tokenizer without a chat template gets the chats as plain text (TRL's standard format)."""
    if getattr(tokenizer, "chat_template", None):
        return ds
    return ds.map(lambda row: {c: _flatten(row[c]) for c in columns if c in row})


def grpo(a: argparse.Namespace) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from .reward import trl_reward

    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModelForCausalLM.from_pretrained(a.model)
    ds = _plain_if_no_template(_dataset(a.data), tok, ("prompt",))

    def reward(completions, **kw):
        return trl_reward(completions, design=a.design, **kw)

    reward.__name__ = f"supercoder_{a.design}"  # TRL logs it by name
    cfg = GRPOConfig(
        output_dir=str(a.output),
        max_steps=a.steps,
        per_device_train_batch_size=a.generations,
        num_generations=a.generations,
        max_completion_length=a.max_completion_length,
        learning_rate=a.learning_rate,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=a.cpu,
        bf16=False,
    )
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=cfg, train_dataset=ds, processing_class=tok)
    trainer.train()
    trainer.save_model(str(a.output))


def sft(a: argparse.Namespace) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModelForCausalLM.from_pretrained(a.model)
    ds = _dataset(a.data).select_columns(["prompt", "completion"])
    ds = _plain_if_no_template(ds, tok, ("prompt", "completion"))
    cfg = SFTConfig(
        output_dir=str(a.output),
        max_steps=a.steps,
        per_device_train_batch_size=a.batch,
        max_length=a.max_length,
        learning_rate=a.learning_rate,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=a.cpu,
        bf16=False,
    )
    trainer = SFTTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok)
    trainer.train()
    trainer.save_model(str(a.output))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m supercoder_lsp.train.trl_train", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("grpo", "sft"):
        s = sub.add_parser(name)
        s.add_argument("--model", required=True, help="a local model directory (weights and tokenizer)")
        s.add_argument("--data", type=Path, required=True, help=".jsonl or .parquet rows")
        s.add_argument("--output", type=Path, required=True)
        s.add_argument("--steps", type=int, default=100)
        s.add_argument("--learning-rate", type=float, default=1e-6 if name == "grpo" else 1e-5)
        s.add_argument("--cpu", action="store_true", help="train on the CPU (tests, tiny models)")
        if name == "grpo":
            s.add_argument("--generations", type=int, default=8, help="completions per prompt (the group)")
            s.add_argument("--max-completion-length", type=int, default=2048)
            s.add_argument("--design", choices=("speedup", "graded"), default="speedup")
        else:
            s.add_argument("--batch", type=int, default=4)
            s.add_argument("--max-length", type=int, default=8192, help="tokens of prompt and answer together")
    a = p.parse_args(argv)
    if not a.data.is_file():
        p.error(f"--data '{a.data}' does not exist (make rows with supercoder export)")
    try:
        import trl  # noqa: F401
    except ImportError:
        p.error("TRL is not installed: pip install 'supercoder-lsp[train]' (or make setup)")
    (grpo if a.command == "grpo" else sft)(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
