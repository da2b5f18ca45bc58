"""Problems to evaluate or train on, from the two dataset layouts.

(a) SuperCoder rows (verl parquet, or the same rows as JSON lines): `prompt` (a chat list),
    `reward_model.ground_truth` (the whole program's -O3 assembly), `extra_info` with `c_code`,
    `inputs`, `outputs` and `unoptimized_assembly`. An answer is the whole program's assembly, or, where
    `extra_info.function` names a function (rows exported from programs), that function's assembly,
    verified in the whole program it will live in (function_answer).
(b) A folder of programs in the layout of the benchmark set: `<name>/prog.c`, `<name>/tests/*.in|*.out`,
    optional `<name>/bench.in`, and `<name>/meta.json` naming the hot `function`. An answer is that
    function's assembly, verified as it will live (its own object linked with the rest of the program).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..options import InputError


@dataclass
class Problem:
    id: str
    c_code: str
    tests: list[tuple[bytes, bytes]]  # (stdin, expected stdout)
    kind: str  # "row" (a whole-program answer) or "program" (a function-level answer)
    prompt: list[dict] = field(default_factory=list)  # the chat the model is asked (rows)
    baseline_asm: str | None = None  # the dataset's own -O3 assembly of the whole program (rows)
    unoptimized_asm: str | None = None
    data_source: str = "supercoder"
    path: Path | None = None  # the program's folder (programs)
    function: str | None = None  # the hot function (programs; rows whose answer is one function)
    row: dict = field(default_factory=dict)  # the row as read, for export


def load(path: str | Path, limit: int | None = None) -> list[Problem]:
    """Problems from a .parquet or .jsonl file of rows, or a folder of programs."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"dataset '{p}' does not exist")
    if p.is_dir():
        out = load_programs(p)
    elif p.suffix == ".parquet":
        out = load_rows(_parquet_rows(p), p)
    elif p.suffix in (".jsonl", ".json"):
        out = load_rows(_jsonl_rows(p), p)
    else:
        raise InputError(
            f"dataset '{p}' is neither a .parquet or .jsonl file of SuperCoder rows nor a folder of programs "
            "(<name>/prog.c with tests/*.in and *.out)"
        )
    return out[:limit] if limit else out


def _parquet_rows(p: Path) -> list[dict]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading .parquet needs pyarrow: install the 'train' extra (pip install 'supercoder-lsp[train]'), "
            "or give the rows as JSON lines"
        ) from None
    return pq.read_table(p).to_pylist()


def _jsonl_rows(p: Path) -> list[dict]:
    rows = []
    for i, line in enumerate(p.read_text().splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise InputError(f"{p}:{i}: not a JSON object ({e.msg}); each line must be one dataset row") from e
    return rows


def load_rows(rows: list[dict], where: Path | str = "rows") -> list[Problem]:
    out = []
    for i, row in enumerate(rows):
        info = row.get("extra_info") or {}
        truth = (row.get("reward_model") or {}).get("ground_truth")
        missing = [k for k in ("c_code", "inputs", "outputs") if k not in info]
        if missing or not isinstance(truth, str):
            raise InputError(
                f"{where}: row {i} is not a SuperCoder row: it needs extra_info.c_code, extra_info.inputs, "
                f"extra_info.outputs and reward_model.ground_truth (missing: {', '.join(missing) or 'ground_truth'})"
            )
        if len(info["inputs"]) != len(info["outputs"]):
            raise InputError(f"{where}: row {i} has {len(info['inputs'])} inputs but {len(info['outputs'])} outputs")
        pid = str(info.get("problem_id") or info.get("index", i))
        out.append(
            Problem(
                id=pid,
                c_code=info["c_code"],
                tests=[(_b(x), _b(y)) for x, y in zip(info["inputs"], info["outputs"])],
                kind="row",
                prompt=list(row.get("prompt") or []),
                baseline_asm=truth,
                unoptimized_asm=info.get("unoptimized_assembly"),
                data_source=str(row.get("data_source") or "supercoder"),
                function=info.get("function") or None,
                row=row,
            )
        )
    ids = [p.id for p in out]
    if len(set(ids)) != len(ids):
        raise InputError(f"{where}: two rows have the same problem id (extra_info.problem_id or index)")
    return out


def _b(s) -> bytes:
    return s if isinstance(s, bytes) else str(s).encode()


def load_programs(root: Path) -> list[Problem]:
    base = root / "programs" if (root / "programs").is_dir() else root
    dirs = [base] if (base / "prog.c").is_file() else sorted(d for d in base.iterdir() if (d / "prog.c").is_file())
    if not dirs:
        raise InputError(f"'{root}' holds no programs: expected <name>/prog.c (with tests/*.in and *.out)")
    out = []
    for d in dirs:
        meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").is_file() else {}
        tests = [
            (i.read_bytes(), i.with_suffix(".out").read_bytes())
            for i in sorted((d / "tests").glob("*.in"))
            if i.with_suffix(".out").is_file()
        ]
        if not tests:
            raise InputError(f"{d}: no tests (tests/NAME.in with tests/NAME.out)")
        if not meta.get("function"):
            raise InputError(f'{d}: meta.json must name the hot function: {{"function": "name"}}')
        out.append(
            Problem(
                id=d.name,
                c_code=(d / "prog.c").read_text(),
                tests=tests,
                kind="program",
                path=d,
                function=meta["function"],
                data_source="programs",
            )
        )
    return out
