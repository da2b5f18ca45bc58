"""Typed, validated settings for the language server.

Precedence, lowest first (each later source overrides the keys it sets):
  1. defaults (below);
  2. initializationOptions sent by the editor at start-up;
  3. `workspace/configuration`, section "supercoder" (the editor's settings, re-read on change);
  4. the project file `.supercoder.toml`, table [lsp] (shared by the team, so it wins).
A bad value is reported with a clear message and its default is used instead.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..options import DEFAULT_PROPOSERS, Declared, Options, check, declared, option


@dataclass
class Hints:
    diagnostics: bool = option(True, setting="diagnostics", help="a Hint diagnostic on each function with a speedup")
    inlay_hints: bool = option(True, setting="inlayHints", help="an inlay hint after the function's signature")
    code_lens: bool = option(True, setting="codeLens", help="a code lens above the function")
    explain_no_win: bool = option(
        True, setting="explainNoWin", help="an Information diagnostic saying why nothing verified was faster"
    )


@dataclass
class Settings:
    """The editor's settings: the run's options (`run`, declared in options.Options with a
    setting key) and what only the editor has."""

    run: Options = field(default_factory=Options)
    parallel_jobs: int = option(1, setting="parallelJobs", lo=1, hi=16, help="background jobs at once")
    time_budget: float = option(300.0, setting="timeBudget", lo=5, hi=3600, help="seconds per function")
    hint_min_speedup: float = option(
        1.1, setting="hintMinSpeedup", lo=1.0, hi=100, help="smallest verified speedup the editor shows"
    )  # a display threshold, not the CLI's --min-speedup (significance)
    hints: Hints = field(default_factory=Hints)


def setting_keys() -> dict[str, tuple[str, Declared]]:
    """Every setting the server knows: "key" or "hints.key" -> (where it lives, its declaration)."""
    keys: dict[str, tuple[str, Declared]] = {}
    for where, cls, prefix in (("run", Options, ""), ("", Settings, ""), ("hints", Hints, "hints.")):
        for d in declared(cls):
            if d.spec.setting:
                keys[prefix + d.spec.setting] = (where, d)
    return keys


def as_dict(settings: Settings) -> dict:
    """The settings as the editor writes them (camelCase, JSON values)."""
    out: dict = {}
    for key, (where, d) in setting_keys().items():
        value = getattr(getattr(settings, where) if where else settings, d.name)
        out[key] = list(value) if isinstance(value, tuple) else str(value) if isinstance(value, Path) else value
    return out


# old names still read, with a message that gives the new one
_RENAMED = {"minSpeedup": "hintMinSpeedup"}
_RENAMED_WHY = {
    "minSpeedup": "it decides which verified speedups are shown; the CLI's --min-speedup is the significance threshold"
}
# what a proposer cannot run without
_NEEDS = {
    "replay": ("candidates_dir", "'candidatesDir'"),
    "openai": ("openai_base_url", "'baseUrl' (and 'model' when the server serves several)"),
    "hf": ("hf_model", "'hfModel'"),
    "vllm": ("hf_model", "'hfModel' (weights vLLM loads on this machine's GPU)"),
}


def _flatten(raw: dict, source: str, problems: list[str]) -> dict:
    """{"hints": {"codeLens": x}} -> {"hints.codeLens": x}; old names to new ones."""
    flat: dict = {}
    for key, value in raw.items():
        if key in _RENAMED:
            problems.append(f"{source}: '{key}' is now '{_RENAMED[key]}' ({_RENAMED_WHY[key]}); using it as that")
            key = _RENAMED[key]
        if key == "hints":
            if not isinstance(value, dict):
                problems.append(f"{source}: 'hints' must be an object; ignoring it")
                continue
            flat.update({f"hints.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def merge(settings: Settings, raw: dict | None, source: str) -> list[str]:
    """Apply `raw` (camelCase keys) onto `settings`; return messages for what was rejected."""
    problems: list[str] = []
    if not raw:
        return problems
    if not isinstance(raw, dict):
        return [f"{source}: settings must be an object, got {type(raw).__name__}; using defaults"]
    keys = setting_keys()
    for key, value in _flatten(raw, source, problems).items():
        if key not in keys:
            known = (
                ", ".join(k for k in keys if not k.startswith("hints."))
                + ", hints.{"
                + ", ".join(k[6:] for k in keys if k.startswith("hints."))
                + "}"
            )
            problems.append(f"{source}: unknown setting '{key}' (known: {known})")
            continue
        where, d = keys[key]
        target = getattr(settings, where) if where else settings
        try:
            setattr(target, d.name, check(d, value))
        except ValueError as e:
            problems.append(f"{source}: '{key}' {e}, got {value!r}; keeping {getattr(target, d.name)!r}")
    for prop, (attr, what) in _NEEDS.items():
        if prop in settings.run.proposers and not getattr(settings.run, attr):
            problems.append(f"{source}: the {prop} proposer needs {what}; leaving it out")
            settings.run.proposers = tuple(p for p in settings.run.proposers if p != prop) or DEFAULT_PROPOSERS
    return problems


ANCHORED = ("tests_dir", "bench_input", "candidates_dir")  # relative paths: from the workspace root


def project_settings(root: Path | None) -> tuple[dict, str | None]:
    """The [lsp] table of the project's .supercoder.toml, and a problem if it cannot be read."""
    if root is None:
        return {}, None
    cfg = Path(root) / ".supercoder.toml"
    if not cfg.is_file():
        return {}, None
    try:
        data = tomllib.loads(cfg.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        return {}, f"{cfg}: cannot be read as TOML ({e}); its settings are ignored"
    table = data.get("lsp", {})
    return (table if isinstance(table, dict) else {}), None


def resolve(init: dict | None, workspace: dict | None, root: Path | None) -> tuple[Settings, list[str]]:
    s = Settings()
    problems = merge(s, init, "initializationOptions")
    problems += merge(s, workspace, "workspace/configuration")
    proj, err = project_settings(root)
    if err:
        problems.append(err)
    problems += merge(s, proj, ".supercoder.toml [lsp]")
    if root is not None:  # the project's files are named from its root, wherever the edited file lies
        for name in ANCHORED:
            p = getattr(s.run, name)
            if p is not None and not Path(p).expanduser().is_absolute():
                setattr(s.run, name, Path(root) / p)
    return s, problems
