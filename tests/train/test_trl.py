"""TRL on a tiny model built here (random weights, a tokenizer trained on the fixture rows): GRPO with the
verifier as reward, and SFT on exported best-of-N rows, run their steps on the CPU and save the model."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIX = Path(__file__).parent.parent / "fixtures" / "train"
ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("trl")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    d = tmp_path_factory.mktemp("tiny-model")
    rows = [json.loads(ln) for ln in (FIX / "rows.jsonl").read_text().splitlines()]
    corpus = [r["prompt"][0]["content"] + r["reward_model"]["ground_truth"] for r in rows] * 4
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=2000, special_tokens=["<unk>", "<pad>", "<eos>"]))
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    fast.save_pretrained(d)
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(
        vocab_size=len(fast), n_positions=4096, n_embd=32, n_layer=1, n_head=2,
        eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
    )  # fmt: skip
    transformers.GPT2LMHeadModel(cfg).save_pretrained(d)
    return d


def _train(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {"SUPERCODER_REWARD_CACHE": str(tmp_path / "reward-cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "supercoder_lsp.train.trl_train", *args, "--cpu"],
        capture_output=True, text=True, timeout=900, cwd=ROOT, env=env,
    )  # fmt: skip


def test_grpo_runs_its_steps_with_the_verifier_as_reward(tiny_model, tmp_path):
    out = tmp_path / "grpo"
    p = _train(
        "grpo", "--model", str(tiny_model), "--data", str(FIX / "rows.jsonl"), "--output", str(out),
        "--steps", "2", "--generations", "2", "--max-completion-length", "16", tmp_path=tmp_path,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert (out / "config.json").is_file() and any(out.glob("*.safetensors"))
    # the reward was logged for each step: random weights write no assembly, so every answer scores 0
    logged = p.stdout + p.stderr
    assert logged.count("'rewards/supercoder_speedup/mean': '0'") == 2, logged[-3000:]


def test_sft_trains_on_exported_best_of_n_rows(tiny_model, tmp_path):
    from supercoder_lsp.train.export import export

    answer = (FIX / "answers" / "bitcount" / "popcnt.s").read_text()
    sample = {
        "problem": "bitcount", "label": "replay-popcnt", "origin": "replay", "compiled": True, "correct": True,
        "speedup": 11.5, "significant": True, "reason": None, "detail": "", "identical": False,
        "level": "tested on 3 tests", "answer": answer,
    }  # fmt: skip
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"schema_version": 1, "dataset": str(FIX / "rows.jsonl"), "samples": [sample]}))
    rows = tmp_path / "sft.jsonl"
    assert export([report], rows, "sft") == (1, [])
    out = tmp_path / "sft"
    p = _train("sft", "--model", str(tiny_model), "--data", str(rows), "--output", str(out), "--steps", "2",
               "--batch", "1", "--max-length", "4096", tmp_path=tmp_path)  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert any(out.glob("*.safetensors"))
    assert "'loss'" in p.stdout + p.stderr


def test_eval_rows_with_the_hf_proposer_on_the_tiny_model(tiny_model, tmp_path):
    """The row's own prompt goes to the model; random weights write no assembly: every sample is counted,
    none compiles, and the report says so in both conventions."""
    from support import supercoder

    p = supercoder(
        "eval", str(FIX / "rows.jsonl"), "-p", "hf", "--hf-model", str(tiny_model), "-n", "2",
        "--max-new-tokens", "16", "--state", str(tmp_path / "s"), "--json",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    rep = json.loads(p.stdout)
    s = rep["summary"]
    assert (s["problems"], s["samples"], s["compile_rate"], s["correct_rate"]) == (2, 4, 0.0, 0.0)
    assert {x["reason"] for x in rep["samples"]} == {"unusable"}
    assert s["paper"]["mean"] == 1.0 and s["ours"]["n"] == 0
