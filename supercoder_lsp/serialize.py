"""The one JSON form of results, and its decoding back into the typed values.

The CLI's `--json` report, the cache and the language server's worker stream all
carry a function as `function_to_json` writes it; `function_from_json` reads it back
into a FunctionResult, so the server and its presenters work on typed values. The
extra keys of the form (each candidate's speedup columns, the best candidate's
headline) are derived from the typed fields and ignored when reading.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from . import __version__
from .model import CandidateResult, FunctionResult, Position, Range, ReplacementCheck, Report, SourceChange, Timing
from .results import deciding_timing, headline

SCHEMA_VERSION = 1  # of the report (`supercoder optimize --json`); raise it when a key changes meaning


def to_json(obj):
    if dataclasses.is_dataclass(obj):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_json(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    return obj


def _range(d) -> Range | None:
    if not d:
        return None
    return Range(Position(**d["start"]), Position(**d["end"]))


def _timing(d) -> Timing | None:
    if not d:
        return None
    d = dict(d)
    d["ci"] = tuple(d["ci"])
    d["noise"] = tuple(d["noise"]) if d.get("noise") else None
    return Timing(**d)


_CANDIDATE_FIELDS = {f.name for f in dataclasses.fields(CandidateResult)}


def candidate_from_json(d: dict) -> CandidateResult:
    """A candidate from the cache's form or the report's (whose extra keys, such as its
    speedup columns, are derived from these fields)."""
    d = {k: v for k, v in d.items() if k in _CANDIDATE_FIELDS}
    d["timing"] = _timing(d.get("timing"))
    d["program_timing"] = _timing(d.get("program_timing"))
    d["source_change"] = SourceChange(**d["source_change"]) if d.get("source_change") else None
    return CandidateResult(**d)


def _speed_columns(t: Timing | None) -> tuple[float | None, list | None]:
    return (t.speedup, list(t.ci)) if t else (None, None)


def candidate_to_json(c: CandidateResult) -> dict:
    d = to_json(c)
    d["speedup"], d["speedup_ci"] = _speed_columns(c.timing)  # the function's own timing
    d["program_speedup"], d["program_speedup_ci"] = _speed_columns(c.program_timing)
    return d


def _best_to_json(best: CandidateResult | None) -> dict | None:
    if best is None:
        return None
    d: dict = {"label": best.label, "origin": best.origin, "headline": headline(best)}  # the claim as shown
    d["decided_by"] = "function" if deciding_timing(best) is best.timing else "program"
    d["speedup"], d["speedup_ci"] = _speed_columns(best.timing)
    d["program_speedup"], d["program_speedup_ci"] = _speed_columns(best.program_timing)
    d.update(features=best.features, cpu_features=best.cpu_features, source_change=to_json(best.source_change))
    d["assembly"] = best.assembly
    return d


def function_to_json(f: FunctionResult) -> dict:
    return {
        "name": f.name,
        **({"source_name": f.source_name} if f.source_name else {}),
        "range": to_json(f.range),
        "signature": f.signature,
        "status": f.status,
        "detail": f.detail,
        "hotness": f.hotness,
        "harness": f.harness,
        "coverage": f.coverage,
        "cached": f.cached,
        "stage_seconds": f.stage_seconds,
        "baseline": {"assembly": f.baseline_assembly},
        "candidates": [candidate_to_json(c) for c in f.candidates],
        "best": _best_to_json(f.best_result()),
    }


_FUNCTION_FIELDS = {f.name for f in dataclasses.fields(FunctionResult)}


def function_from_json(d: dict) -> FunctionResult:
    d = dict(d)
    if isinstance(d.get("baseline"), dict):
        d["baseline_assembly"] = d["baseline"].get("assembly", "")
    if isinstance(d.get("best"), dict):
        d["best"] = d["best"]["label"]
    d = {k: v for k, v in d.items() if k in _FUNCTION_FIELDS}
    d["range"] = _range(d.get("range"))
    d["candidates"] = [candidate_from_json(c) for c in d.get("candidates", [])]
    return FunctionResult(**d)


def report_to_json(rep: Report) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": f"supercoder {__version__}",
        "file": rep.path,
        "environment": rep.environment,
        "notes": rep.notes,
        "seconds": rep.seconds,
        "program": rep.program,
        "functions": [function_to_json(f) for f in rep.functions],
        "source": {"path": str(Path(rep.path).resolve()), "fingerprints": rep.fingerprints},
    }


def replacement_to_json(r: ReplacementCheck) -> dict:
    d = to_json(r)
    d["speedup_ci"], d["inputs_checked"] = d.pop("ci"), d.pop("inputs")  # the names `replace --json` has used
    return d


def replacement_from_json(d: dict) -> ReplacementCheck:
    fields = {f.name for f in dataclasses.fields(ReplacementCheck)}
    d = dict(d, ci=tuple(d["speedup_ci"]) if d.get("speedup_ci") else None, inputs=d.get("inputs_checked", 0))
    return ReplacementCheck(**{k: v for k, v in d.items() if k in fields})
