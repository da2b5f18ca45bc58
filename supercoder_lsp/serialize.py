"""Results to and from plain JSON values (for --json and the cache)."""

from __future__ import annotations

import dataclasses

from .model import CandidateResult, FunctionResult, Position, Range, SourceChange, Timing


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


def function_from_json(d: dict) -> FunctionResult:
    d = dict(d)
    d["range"] = _range(d.get("range"))
    d["candidates"] = [candidate_from_json(c) for c in d.get("candidates", [])]
    return FunctionResult(**d)
