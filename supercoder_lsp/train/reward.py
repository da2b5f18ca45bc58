"""The verifier as a reward, in the forms existing trainers call.

- verl: `custom_reward_function.path` = this file's module path, `name` = `compute_score`;
  verl calls `compute_score(data_source, solution_str, ground_truth, extra_info)`.
- TRL: `GRPOTrainer(reward_funcs=[trl_reward])`; TRL passes the completions and the dataset's
  columns (`reward_model`, `extra_info`) as keyword arguments.

Two designs:
- "speedup" (SuperCoder paper): t(-O3)/t(answer) as measured when the answer assembles and passes
  every test, else 0. A slower correct answer gets its real ratio (< 1), never a floor of 1.
- "graded" (the released repository's other design): the fraction of tests passed when incorrect,
  1 for the baseline's own code (or a correct answer that is not faster), 1 + q * speedup when
  correct and faster beyond the noise.

Every check verification runs is run (sandbox, screens, load-time code, outputs of the timed runs);
each answer is bounded in time; outcomes are cached by (answer, problem, verifier version, machine),
so the same answer is never re-timed into a different reward.

A reward never takes a trainer down: a row it cannot judge (no tests, a ground truth that does not
build, a failure while checking) scores 0 with the reason logged; only a misconfiguration of the
reward itself (an unknown design, a q that is not a number) raises.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from ..asm.features import cpu_model
from ..optimize.cache import default_dir
from ..propose.prompt import extract_assembly
from ..verify import VERIFIER_VERSION
from .function_answer import NotPlaced, as_program
from .program_answer import Outcome, ProgramVerifier, answer_digest, no_answer

DESIGNS = ("speedup", "graded")
log = logging.getLogger(__name__)


def score(outcome: Outcome, design: str = "speedup", q: float = 1.0) -> float:
    if design not in DESIGNS:
        raise ValueError(f"reward design '{design}' is unknown; use one of {', '.join(DESIGNS)}")
    if design == "speedup":
        return float(outcome.speedup or 0.0) if outcome.correct else 0.0
    if not outcome.correct:
        return outcome.passed / outcome.total if outcome.total else 0.0
    if outcome.identical or not outcome.significant or not outcome.speedup:
        return 1.0
    return 1.0 + q * outcome.speedup


def _cache_dir() -> Path:
    return Path(os.environ.get("SUPERCODER_REWARD_CACHE") or default_dir() / "reward")


def outcome_for(
    answer_asm: str | None, ground_truth: str, tests: list[tuple[bytes, bytes]], timing: bool = True
) -> Outcome:
    """The answer's outcome against `ground_truth` (the baseline's whole-program assembly), cached."""
    if answer_asm is None:
        return no_answer(len(tests))
    h = hashlib.sha256()
    for part in (answer_digest(answer_asm), ground_truth, VERIFIER_VERSION, cpu_model(), str(timing)):
        h.update(str(part).encode() + b"\0")
    for x, y in tests:
        h.update(hashlib.sha256(x).digest() + hashlib.sha256(y).digest())
    key = h.hexdigest()
    path = _cache_dir() / key[:2] / f"{key}.json"
    if path.is_file():
        try:
            return Outcome.from_json(json.loads(path.read_text()))
        except (ValueError, TypeError, KeyError):
            pass  # a damaged entry is measured again
    work = Path(tempfile.mkdtemp(prefix="sc-reward-"))
    try:
        out = ProgramVerifier(tests, ground_truth, work, timing=timing).check(answer_asm)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(out.to_json()))
    os.replace(tmp, path)  # never a half-written entry
    return out


def _tests(extra_info: dict) -> list[tuple[bytes, bytes]]:
    ins, outs = extra_info.get("inputs") or [], extra_info.get("outputs") or []
    return [(str(x).encode(), str(y).encode()) for x, y in zip(ins, outs)]


def compute_score(data_source, solution_str: str, ground_truth: str, extra_info: dict | None = None, **kwargs) -> float:
    """verl's custom reward. kwargs (verl's `reward_kwargs`): design ("speedup" or "graded"), q.
    Where `extra_info.function` names a function, the answer is that function's assembly. A row that
    cannot be judged scores 0 (the reason logged as a warning); a bad design or q raises."""
    design = kwargs.get("design", os.environ.get("SUPERCODER_REWARD", "speedup"))
    if design not in DESIGNS:
        raise ValueError(f"reward design '{design}' is unknown; use one of {', '.join(DESIGNS)}")
    q = float(kwargs.get("q", 1.0))
    try:
        return score(_outcome(solution_str, ground_truth, extra_info or {}), design, q)
    except Exception as e:  # a row, not the reward: the trainer goes on
        log.warning("reward 0 for a row of %s that cannot be judged: %s: %s", data_source, type(e).__name__, e)
        return 0.0


def _outcome(solution_str: str, ground_truth: str, info: dict) -> Outcome:
    tests = _tests(info)
    if not tests:
        raise ValueError("extra_info holds no `inputs` and `outputs` (lists of strings): nothing to check against")
    if not (ground_truth or "").strip():
        raise ValueError("the row's ground truth (the -O3 program's assembly) is empty: no baseline to time against")
    answer = extract_assembly(solution_str or "")
    if answer is not None and info.get("function"):  # a function-level row: the program it will live in
        try:
            return outcome_for(as_program(info["c_code"], info["function"], answer), ground_truth, tests)
        except NotPlaced as e:
            return Outcome(False, False, 0, len(tests), "unusable", str(e))
    return outcome_for(answer, ground_truth, tests)


def trl_reward(completions, reward_model=None, extra_info=None, data_source=None, **kwargs) -> list[float]:
    """TRL's reward function: one score per completion (text, or a chat whose last message is the answer)."""
    scores = []
    for i, c in enumerate(completions):
        text = c[-1]["content"] if isinstance(c, list) else str(c)
        truth = reward_model[i]["ground_truth"] if reward_model is not None else kwargs["ground_truth"][i]
        info = extra_info[i] if extra_info is not None else {}
        src = data_source[i] if data_source is not None else "supercoder"
        scores.append(
            compute_score(src, text, truth, info, **{k: v for k, v in kwargs.items() if k in ("design", "q")})
        )
    return scores
