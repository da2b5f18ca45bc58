"""`supercoder export`: verified results as training rows, in the SuperCoder dataset's format.

Reports of `supercoder eval` (rows or folders of programs) and of `supercoder optimize` (a file that
defines main(), optimized with --tests: one problem per function) are read alike.

- `sft`: one row per problem with a verified answer that is faster beyond the noise (best-of-N): the
  prompt with our template, the answer as the assistant's completion (TRL's prompt-completion format),
  its speedup and its level (tested on how many tests, or proven how);
- `rl`: one row per problem: the prompt, `reward_model.ground_truth` (the -O3 assembly of the whole
  program) and `extra_info` (`c_code`, `inputs`, `outputs`, `unoptimized_assembly`, the best verified
  speedup so far), which `compute_score` scores.

Every row keeps `reward_model` and `extra_info`, so exported rows are themselves a dataset `eval` reads.
Programs (a folder's, or an optimized file) become whole-program rows whose tests are the inputs and
outputs and whose `extra_info.function` names the function an answer defines: eval and the reward place
such an answer in the program it will live in.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..asm.cut import FunctionMissing, cut_function
from ..options import InputError
from ..propose.prompt import SUPERCODER_TEMPLATE, render
from ..serialize import candidate_from_json
from ..verify.program import find_tests
from .evaluate import sample_from_candidate
from .metrics import Sample, our_best
from .problems import Problem, load
from .program_answer import compile_program

FORMATS = ("sft", "rl")


def export(report_paths: list[Path], out: Path, fmt: str, dataset: Path | None = None) -> tuple[int, list[str]]:
    """Write the rows; returns how many, and notes on what could not become a row."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}")
    by_problem: dict[str, list[Sample]] = {}
    problems: dict[str, Problem] = {}
    notes: list[str] = []
    for rp in report_paths:
        try:
            rep = json.loads(rp.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise InputError(f"'{rp}' is not a report (supercoder eval -o FILE, or optimize -o FILE): {e}") from e
        if rep.get("schema_version") == 1 and "functions" in rep:
            _from_optimize(rp, rep, problems, by_problem, notes)
            continue
        if rep.get("schema_version") != 1 or "samples" not in rep:
            raise InputError(f"'{rp}' is not a report (supercoder eval -o FILE, or optimize -o FILE)")
        src = dataset or Path(rep["dataset"])
        problems.update((q.id, q) for q in load(src))
        for s in rep["samples"]:
            by_problem.setdefault(s["problem"], []).append(Sample(**s))
    rows = []
    for pid, samples in by_problem.items():
        if pid not in problems:
            raise InputError(f"problem {pid} of the report is not in the dataset; give the dataset with --dataset")
        p, best = problems[pid], our_best(samples)
        if fmt == "sft":
            if best is None or not best.significant or not best.answer:
                continue
            rows.append(_sft_row(p, best))
        else:
            rows.append(_rl_row(p, best))
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.replace(tmp, out)
    return len(rows), notes


def _from_optimize(rp: Path, rep: dict, problems: dict, by_problem: dict, notes: list[str]) -> None:
    """The problems of a `supercoder optimize` report: one per function, a whole-program row (the file with
    its main and its program tests) whose answer is that function."""
    prog = rep.get("program") or {}
    where = str(prog.get("file") or rep.get("file"))
    if not prog.get("source_sha256"):
        raise InputError(f"'{rp}' is an optimize report from an older version; run supercoder optimize again")
    if not prog.get("has_main") or not prog.get("tests"):
        notes.append(
            f"{where}: left out: a row is a whole program with its tests; optimize a file that defines main() "
            "with --tests DIR (NAME.in / NAME.out pairs)"
        )
        return
    path = Path(where)
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise InputError(f"{rp}: the optimized file {path} cannot be read ({e})") from e
    if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != prog["source_sha256"]:
        raise InputError(f"{path} changed since the report {rp} was made; run supercoder optimize on it again")
    try:
        tests = [(i.read_bytes(), o.read_bytes()) for _, i, o in find_tests(prog["tests"])]
    except FileNotFoundError as e:
        raise InputError(f"{rp}: {e}") from e
    for f in rep["functions"]:
        pid = f"{path.stem}:{f['name']}"
        problems[pid] = Problem(pid, text, tests, "program", function=f["name"], data_source="supercoder-optimize")
        cands = [candidate_from_json(c) for c in f.get("candidates", [])]
        by_problem[pid] = [sample_from_candidate(pid, c, cands) for c in cands]


def _whole_program(p: Problem) -> tuple[str, str | None]:
    """(-O3 assembly of the whole program, its unoptimized assembly)."""
    if p.kind == "row":
        assert p.baseline_asm is not None
        return p.baseline_asm, p.unoptimized_asm
    o3 = compile_program(p.c_code, "gcc", ())
    if o3 is None:
        raise InputError(f"{p.id}: prog.c does not compile with gcc -O3")
    return o3, compile_program(p.c_code, "gcc", ("-O0",))


def _prompt(p: Problem) -> list[dict]:
    o3, _ = _whole_program(p)
    if p.function:
        try:  # a function-level answer: the prompt shows that function's -O3 assembly
            o3 = cut_function(o3, p.function).text
        except FunctionMissing:
            pass
    return [{"role": "user", "content": render(SUPERCODER_TEMPLATE, p.c_code, o3, p.function or "main")}]


def _base(p: Problem, best: Sample | None) -> dict:
    o3, o0 = _whole_program(p)
    return {
        "data_source": p.data_source,
        "prompt": _prompt(p),
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": o3},
        "extra_info": {
            "problem_id": p.id,
            "c_code": p.c_code,
            "inputs": [x.decode(errors="replace") for x, _ in p.tests],
            "outputs": [y.decode(errors="replace") for _, y in p.tests],
            "unoptimized_assembly": o0,
            "function": p.function,
            "best_speedup": best.speedup if best else None,
            "best_level": best.level if best else None,
        },
    }


def _sft_row(p: Problem, best: Sample) -> dict:
    row = _base(p, best)
    row["completion"] = [{"role": "assistant", "content": f"```assembly\n{best.answer.strip()}\n```"}]
    row["speedup"], row["level"], row["answer_kind"] = (
        best.speedup,
        best.level,
        ("function" if p.kind == "program" else "program"),
    )
    return row


def _rl_row(p: Problem, best: Sample | None) -> dict:
    return _base(p, best)
