"""Model proposers: the SuperCoder prompt, reply parsing, best-of-N and refinement,
against an OpenAI-compatible server on loopback that serves scripted completions. No symbolic proof
(proof_budget=0): what is tested here is what the proposers propose; proofs are test_symbolic.py's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from openai_stub import Stub
from support import FIXTURES, noise_hid

from supercoder_lsp.optimize.pipeline import Options, Pipeline
from supercoder_lsp.propose.prompt import SUPERCODER_TEMPLATE, candidate_from_reply

FIX = FIXTURES
SRC = FIX / "verify" / "popcount.c"
GOOD_TU = (FIX / "verify" / "cands" / "popcount" / "whole-tu-native.s").read_text()
WRONG = "\t.text\n\t.globl popcount\n\t.type popcount, @function\npopcount:\n\tpopcntl %edi, %eax\n\tret\n\t.size popcount, .-popcount\n"


def test_default_prompt_is_the_supercoder_training_prompt():
    assert SUPERCODER_TEMPLATE.startswith(
        "Given the following C code and unoptimized assembly code, your task is to "
        "generate highly optimized x86-64 assembly code."
    )
    assert "```assembly" in SUPERCODER_TEMPLATE


@pytest.mark.parametrize(
    "reply,ok",
    [
        pytest.param(
            f"Here is a faster version:\n```assembly\n{WRONG}```\nIt uses popcnt.", True, id="prose-around-block"
        ),
        pytest.param(f"```asm\n{GOOD_TU}\n```", True, id="whole-translation-unit"),
        pytest.param("I cannot help with that.", False, id="no-code"),
        pytest.param("```assembly\n\tret\n```", False, id="block-without-the-function"),
    ],
)
def test_reply_parsing(reply, ok):
    asm, why = candidate_from_reply(reply, "popcount")
    assert (asm is not None) == ok, why
    if ok:
        assert "popcount:" in asm
    else:
        assert why


def test_wrong_then_refined_right_candidate_is_accepted_and_timed():
    def script(req, k):
        if k == 0:  # best-of-2: a wrong candidate with prose, and garbage
            return [f"Sure! Optimized:\n```assembly\n{WRONG}```", "The function is already optimal."]
        # the refinement round must carry the rejection reason and the failing input
        feedback = "\n".join(m["content"] for m in req["messages"][1:])
        assert "wrong-output" in feedback and "expected" in feedback and "popcntl" in feedback
        return [f"```assembly\n{GOOD_TU}\n```", "still nothing"]

    with Stub(script) as stub:
        rep = Pipeline(
            Options(
                proof_budget=0,
                proposers=("openai",),
                samples=2,
                refine=2,
                openai_base_url=stub.url,
                openai_model="sc-7b",
                use_cache=False,
                n_random=5000,
                rounds=12,
            )
        ).run(SRC)
    assert len(stub.requests) == 2
    first = stub.requests[0]
    assert first["model"] == "sc-7b" and first["n"] == 2
    prompt = first["messages"][0]["content"]
    assert "x &= x - 1;" in prompt and "popcount:" in prompt  # the C source and its -O3 assembly
    [fn] = rep.functions
    got = {c.label: (c.status, c.reason) for c in fn.candidates}
    assert got == {
        "openai-r0-0": ("rejected", "wrong-output"),
        "openai-r0-1": ("rejected", "unusable"),
        "openai-r1-0": ("accepted", None),
        "openai-r1-1": ("rejected", "unusable"),
    }
    best = fn.best_result()
    assert best.label == "openai-r1-0" and best.origin.startswith("openai:sc-7b@") and best.timing.speedup > 2


def test_server_down_or_garbage_gives_a_clear_note_and_other_proposers_go_on():
    with Stub(lambda req, k: 500) as stub:
        url = stub.url
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "supercoder_lsp.cli",
                "optimize",
                "--json",
                "--no-cache",
                str(SRC),
                "--proposer",
                "openai,compilers",
                "--base-url",
                url,
                "--model",
                "m",
                "-n",
                "1",
                "--inputs",
                "2000",
                "--rounds",
                "12",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert any("openai proposer" in n and "failed" in n for n in data["notes"])
    labels = [c["label"] for c in data["functions"][0]["candidates"]]
    assert labels == ["gcc_march_native"]  # the compilers proposer still ran


def test_missing_model_settings_say_what_to_pass():
    p = subprocess.run(
        [sys.executable, "-m", "supercoder_lsp.cli", "optimize", "--no-cache", str(SRC), "--proposer", "openai"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert p.returncode == 2 and "--base-url URL (or OPENAI_BASE_URL)" in p.stderr


def test_openai_base_url_alone_asks_a_one_model_server_for_its_model(monkeypatch):
    """As the openai client does: OPENAI_BASE_URL from the environment, and no --model for a server that serves one."""
    from supercoder_lsp.propose.openai_proposer import OpenAIProposer, OpenAISettings, ProposerUnavailable

    with Stub(lambda req, k: ["```assembly\n\tret\n```"], models=("sc-7b",)) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
        prop = OpenAIProposer(OpenAISettings())
        assert (prop.base_url, prop.model) == (stub.url, "sc-7b")
    with Stub(lambda req, k: [], models=("a", "b")) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
        with pytest.raises(ProposerUnavailable, match=r"serves 2 models \(a, b\); give --model NAME"):
            OpenAIProposer(OpenAISettings())


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A causal LM with random weights and a tokenizer trained here on C and assembly text: no downloads."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    d = tmp_path_factory.mktemp("tiny-model")
    corpus = [SRC.read_text(), GOOD_TU, WRONG, SUPERCODER_TEMPLATE] * 4
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<pad>", "<eos>"]))
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    fast.save_pretrained(d)
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(
        vocab_size=len(fast),
        n_positions=2048,
        n_embd=32,
        n_layer=1,
        n_head=2,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    transformers.GPT2LMHeadModel(cfg).save_pretrained(d)
    return d


def test_hf_proposer_loads_local_weights_and_its_garbage_is_rejected_cleanly(tiny_model, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rep = Pipeline(
        Options(
            proof_budget=0,
            proposers=("hf",),
            hf_model=tiny_model,
            samples=3,
            refine=1,
            max_new_tokens=24,
            use_cache=False,
            n_random=1000,
            rounds=6,
        )
    ).run(SRC)
    [fn] = rep.functions
    assert fn.status == "done" and fn.best is None
    assert len(fn.candidates) == 6  # best-of-3, then one refinement round with the reasons fed back
    assert all(c.status == "rejected" and c.reason in ("unusable", "duplicate") for c in fn.candidates)
    assert {c.origin.split(" ")[0] for c in fn.candidates} == {f"hf:{tiny_model.name}"}
    assert "no faster verified candidate (6 tried" in fn.detail


def test_vllm_proposer_on_the_tiny_model(tiny_model):
    """Runs where vllm is installed (it needs CUDA): the same tiny model, in-process, best-of-2."""
    pytest.importorskip("vllm", reason="vllm needs a CUDA GPU; this machine has none")
    rep = Pipeline(
        Options(
            proof_budget=0,
            proposers=("vllm",),
            hf_model=tiny_model,
            samples=2,
            refine=0,
            max_new_tokens=24,
            use_cache=False,
            n_random=1000,
            rounds=6,
        )
    ).run(SRC)
    [fn] = rep.functions
    assert len(fn.candidates) == 2 and all(c.origin.startswith("vllm:") for c in fn.candidates)
    assert all(c.status == "rejected" for c in fn.candidates)


def test_missing_vllm_says_how_to_install(tmp_path):
    try:
        import vllm  # noqa: F401

        pytest.skip("vllm is installed here")
    except ImportError:
        pass
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "supercoder_lsp.cli",
            "optimize",
            "--no-cache",
            str(SRC),
            "--proposer",
            "vllm",
            "--hf-model",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and 'pip install "supercoder-lsp[vllm]"' in p.stderr


def test_a_server_that_ignores_n_is_asked_again_and_max_tokens_is_the_users():
    """llama.cpp's server answers one choice whatever n is: best-of-3 still gets 3 samples."""
    with Stub(lambda req, k: [WRONG]) as stub:
        rep = Pipeline(
            Options(
                proof_budget=0,
                proposers=("openai",),
                samples=3,
                refine=0,
                openai_base_url=stub.url,
                openai_model="m",
                max_new_tokens=100,
                use_cache=False,
                n_random=1000,
                rounds=6,
            )
        ).run(SRC)
        sent = list(stub.requests)
    [fn] = rep.functions
    assert [c.label for c in fn.candidates] == ["openai-r0-0", "openai-r0-1", "openai-r0-2"]
    assert [r["n"] for r in sent] == [3, 1, 1] and {r["max_tokens"] for r in sent} == {100}


def test_a_reply_without_choices_leaves_a_note_and_is_not_cached(tmp_path):
    with Stub(lambda req, k: {}) as stub:
        opts = Options(
            proof_budget=0,
            proposers=("openai", "compilers"),
            samples=1,
            refine=0,
            openai_base_url=stub.url,
            openai_model="m",
            cache_dir=tmp_path,
            n_random=1000,
            rounds=6,
        )
        rep = Pipeline(opts).run(SRC)
    assert any("no 'choices'" in n or "no choices" in n for n in rep.notes), rep.notes
    fn = rep.functions[0]
    assert fn.candidates, fn.detail  # the compilers proposer's verdicts are kept ...
    # ... and its popcnt win, unless this run's own A/A control put every candidate's noise floor above it
    slow = [c for c in fn.candidates if c.reason == "not-faster"]
    assert fn.best is not None or (slow and all(noise_hid(c) for c in slow)), [
        (c.label, c.reason, c.detail) for c in fn.candidates
    ]
    assert not list(tmp_path.glob("*/*.json"))  # a partial result is not cached: the next run asks the model again


def test_a_proposer_that_raises_costs_only_its_own_candidates(tmp_path):
    class Broken:
        name, refinable, note = "broken", False, None

        def settings(self):
            return {"name": self.name}

        def propose(self, request, n):
            raise IndexError("index out of range in self")
            yield  # a generator, as proposers are

    from supercoder_lsp.propose.compilers import CompilersProposer

    pipe = Pipeline(
        Options(proof_budget=0, samples=1, cache_dir=tmp_path, n_random=1000, rounds=6),
        proposers=[Broken(), CompilersProposer()],
    )
    rep = pipe.run(SRC)
    [fn] = rep.functions
    assert fn.status == "done" and fn.best == "gcc_march_native"
    assert any(n.startswith("broken proposer failed on popcount (round 0): IndexError") for n in rep.notes)
    assert not list(tmp_path.glob("*/*.json"))


def test_hf_prompt_longer_than_the_context_skips_the_round_with_a_note(tiny_model, tmp_path, monkeypatch):
    """Refinement prompts grow with each rejected reply: past the model's context the round is skipped, not a crash."""
    import transformers

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    small = tmp_path / "small-context"
    small.mkdir()
    for f in tiny_model.iterdir():
        if f.is_file():
            (small / f.name).write_bytes(f.read_bytes())
    cfg = transformers.GPT2Config.from_pretrained(small)
    cfg.n_positions = 1400  # room for round 0's prompt, not for round 1's with the rejected replies
    transformers.GPT2LMHeadModel(cfg).save_pretrained(small)
    rep = Pipeline(
        Options(
            proof_budget=0,
            proposers=("hf", "compilers"),
            hf_model=small,
            samples=2,
            refine=1,
            max_new_tokens=2048,
            use_cache=False,
            n_random=1000,
            rounds=6,
        )
    ).run(SRC)
    [fn] = rep.functions
    assert fn.status == "done" and fn.best == "gcc_march_native"
    assert any("does not fit the model's context of 1400 tokens" in n for n in rep.notes), rep.notes


def test_a_reply_cut_off_at_the_token_limit_says_so():
    body = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "```assembly\n\t.text\npopc"},
                "finish_reason": "length",
            }
        ],
    }
    with Stub(lambda req, k: body) as stub:
        rep = Pipeline(
            Options(
                proof_budget=0,
                proposers=("openai",),
                samples=1,
                refine=0,
                openai_base_url=stub.url,
                openai_model="m",
                max_new_tokens=100,
                use_cache=False,
                n_random=1000,
                rounds=6,
            )
        ).run(SRC)
    cands = rep.functions[0].candidates
    assert len(cands) == 1, (rep.functions[0].status, rep.functions[0].detail, rep.notes)  # says why, should it fail
    [c] = cands
    assert c.reason == "unusable" and "cut off at the token limit (100)" in c.detail and "--max-new-tokens" in c.detail
