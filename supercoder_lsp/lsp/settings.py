"""Typed, validated settings for the language server.

Precedence, lowest first (each later source overrides the keys it sets):
  1. defaults (below);
  2. initializationOptions sent by the editor at start-up;
  3. `workspace/configuration`, section "supercoder" (the editor's settings, re-read on change);
  4. the project file `.supercoder.toml`, table [lsp] (shared by the team, so it wins).
A bad value is reported with a clear message and its default is used instead.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

PROPOSERS = (
    "compilers",
    "replay",
    "openai",
    "hf",
)  # vllm runs in-process on a GPU: an editor uses it through a served model (openai)


@dataclass
class Hints:
    diagnostics: bool = True
    inlay_hints: bool = True
    code_lens: bool = True
    explain_no_win: bool = False  # an Information diagnostic when nothing verified was faster


@dataclass
class Settings:
    proposers: list[str] = field(default_factory=lambda: ["compilers"])
    samples: int = 8
    parallel_jobs: int = 1
    time_budget: float = 300.0  # seconds per function
    hint_min_speedup: float = 1.1  # smallest verified speedup the editor shows (not the CLI's --min-speedup)
    top_functions: int = 3
    inputs: int = 100_000
    flags: str | None = None  # overrides compile_commands.json / .supercoder.toml [build]
    cache_dir: str | None = None
    candidates_dir: str | None = None  # for the replay proposer
    base_url: str | None = None  # openai proposer: an OpenAI-compatible server
    model: str | None = None  # openai proposer: the served model's name
    hf_model: str | None = None  # hf proposer: a directory with local weights
    temperature: float = 0.7
    refine: int = 2
    hints: Hints = field(default_factory=Hints)


# external (camelCase, as editors send them) -> (attribute, type check, constraint description)
_FIELDS = {
    "proposers": (
        "proposers",
        lambda v: isinstance(v, list) and v and all(p in PROPOSERS for p in v),
        f"a non-empty list of {', '.join(PROPOSERS)}",
    ),
    "samples": ("samples", lambda v: isinstance(v, int) and 1 <= v <= 64, "an integer from 1 to 64"),
    "parallelJobs": ("parallel_jobs", lambda v: isinstance(v, int) and 1 <= v <= 16, "an integer from 1 to 16"),
    "timeBudget": ("time_budget", lambda v: isinstance(v, (int, float)) and 5 <= v <= 3600, "seconds, 5 to 3600"),
    "hintMinSpeedup": (
        "hint_min_speedup",
        lambda v: isinstance(v, (int, float)) and 1.0 <= v <= 100,
        "a number >= 1.0",
    ),
    "topFunctions": ("top_functions", lambda v: isinstance(v, int) and 1 <= v <= 50, "an integer from 1 to 50"),
    "inputs": ("inputs", lambda v: isinstance(v, int) and 0 <= v <= 10_000_000, "an integer from 0 to 10000000"),
    "flags": ("flags", lambda v: v is None or isinstance(v, str), "a string of compiler flags"),
    "cacheDir": ("cache_dir", lambda v: v is None or isinstance(v, str), "a directory path"),
    "candidatesDir": ("candidates_dir", lambda v: v is None or isinstance(v, str), "a directory path"),
    "baseUrl": (
        "base_url",
        lambda v: v is None or isinstance(v, str) and v.startswith(("http://", "https://")),
        "an http(s) URL such as http://127.0.0.1:8000/v1",
    ),
    "model": ("model", lambda v: v is None or isinstance(v, str), "a model name"),
    "hfModel": ("hf_model", lambda v: v is None or isinstance(v, str), "a directory with local weights"),
    "temperature": ("temperature", lambda v: isinstance(v, (int, float)) and 0 <= v <= 2, "a number from 0 to 2"),
    "refine": ("refine", lambda v: isinstance(v, int) and 0 <= v <= 10, "an integer from 0 to 10"),
}
# old names still read, with a message that gives the new one
_RENAMED = {"minSpeedup": "hintMinSpeedup"}
_RENAMED_WHY = {
    "minSpeedup": "it decides which verified speedups are shown; the CLI's --min-speedup is the significance threshold"
}
_HINTS = {
    "diagnostics": "diagnostics",
    "inlayHints": "inlay_hints",
    "codeLens": "code_lens",
    "explainNoWin": "explain_no_win",
}


def merge(settings: Settings, raw: dict | None, source: str) -> list[str]:
    """Apply `raw` (camelCase keys) onto `settings`; return messages for what was rejected."""
    problems: list[str] = []
    if not raw:
        return problems
    if not isinstance(raw, dict):
        return [f"{source}: settings must be an object, got {type(raw).__name__}; using defaults"]
    for key, value in raw.items():
        if key in _RENAMED:
            problems.append(f"{source}: '{key}' is now '{_RENAMED[key]}' ({_RENAMED_WHY[key]}); using it as that")
            key = _RENAMED[key]
        if key == "hints":
            if not isinstance(value, dict):
                problems.append(f"{source}: 'hints' must be an object; keeping {dataclasses.asdict(settings.hints)}")
                continue
            for hk, hv in value.items():
                if hk not in _HINTS:
                    problems.append(f"{source}: unknown setting 'hints.{hk}' (known: {', '.join(_HINTS)})")
                elif not isinstance(hv, bool):
                    problems.append(
                        f"{source}: 'hints.{hk}' must be true or false; keeping {getattr(settings.hints, _HINTS[hk])}"
                    )
                else:
                    setattr(settings.hints, _HINTS[hk], hv)
            continue
        if key not in _FIELDS:
            problems.append(f"{source}: unknown setting '{key}' (known: {', '.join([*_FIELDS, 'hints'])})")
            continue
        attr, ok, what = _FIELDS[key]
        if ok(value):
            setattr(settings, attr, value)
        else:
            problems.append(f"{source}: '{key}' must be {what}, got {value!r}; keeping {getattr(settings, attr)!r}")
    needs = {
        "replay": ("candidates_dir", "'candidatesDir'"),
        "openai": ("base_url", "'baseUrl' (and 'model' when the server serves several)"),
        "hf": ("hf_model", "'hfModel'"),
    }
    for prop, (attr, what) in needs.items():
        missing = not getattr(settings, attr)
        if prop in settings.proposers and missing:
            problems.append(f"{source}: the {prop} proposer needs {what}; leaving it out")
            settings.proposers = [p for p in settings.proposers if p != prop] or ["compilers"]
    return problems


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
    return s, problems
