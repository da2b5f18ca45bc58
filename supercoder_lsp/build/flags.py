"""Where a file's compiler and flags come from.

Precedence, highest first:
  1. the command line (--cc / --cflags), when given;
  2. compile_commands.json, searched upward from the file as clangd does
     (each directory and its build/ subdirectory);
  3. the project file .supercoder.toml ([build] compiler, flags, ldflags, programs), searched upward;
  4. the default: gcc -O3.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import tomllib
from pathlib import Path

from ..model import BuildConfig

DEFAULT_COMPILER = "gcc"
DEFAULT_FLAGS = ("-O3",)
CONFIG_NAME = ".supercoder.toml"

# Flags that say what to produce or where; we choose those ourselves.
_DROP_ALONE = {"-c", "-S", "-E", "-MD", "-MMD", "-MP", "-M", "-MM", "-pipe", "-flto", "-save-temps"}
_DROP_WITH_ARG = {"-o", "-MF", "-MT", "-MQ"}


class ConfigError(ValueError):
    """A compile_commands.json or .supercoder.toml that cannot be used."""


def _upward(start: Path):
    d = start if start.is_dir() else start.parent
    d = d.resolve()
    while True:
        yield d
        if d.parent == d:
            return
        d = d.parent


def find_compile_commands(path: str | os.PathLike) -> Path | None:
    for d in _upward(Path(path)):
        for cand in (d / "compile_commands.json", d / "build" / "compile_commands.json"):
            if cand.is_file():
                return cand
    return None


def find_config(path: str | os.PathLike) -> Path | None:
    for d in _upward(Path(path)):
        if (d / CONFIG_NAME).is_file():
            return d / CONFIG_NAME
    return None


def dropped_flags(args: list[str]) -> tuple[str, ...]:
    """The flags `clean_flags` leaves out that change the code (not where output goes): debug info and LTO."""
    return tuple(a for a in args if a.startswith(("-flto", "-g")) and a != "-g0")


def clean_flags(args: list[str], source: str | None = None) -> tuple[str, ...]:
    """Drop output-selection flags and the source file from a compiler argv tail."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in _DROP_WITH_ARG:
            skip = True
            continue
        if a in _DROP_ALONE or a.startswith("-flto") or a.startswith("-o") and len(a) > 2 and a[2] != "f":
            continue
        if a.startswith("-g"):  # debug info is never wanted in assembly we cut
            continue
        if source and not a.startswith("-") and (a == source or a.endswith((".c", ".i"))):
            continue
        out.append(a)
    return tuple(out)


def from_compile_commands(db: Path, file: Path) -> BuildConfig | None:
    try:
        entries = json.loads(db.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(
            f"{db}: not valid JSON ({e}); regenerate it (e.g. `bear -- make` or cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)"
        ) from e
    if not isinstance(entries, list):
        raise ConfigError(f"{db}: expected a JSON array of compile commands")
    want = file.resolve()
    for entry in entries:
        if not isinstance(entry, dict) or "file" not in entry:
            continue
        directory = Path(entry.get("directory", db.parent))
        f = Path(entry["file"])
        if not f.is_absolute():
            f = directory / f
        if f.resolve() != want:
            continue
        argv = entry.get("arguments") or shlex.split(entry.get("command", ""))
        if not argv:
            continue
        return BuildConfig(
            compiler=argv[0],
            flags=clean_flags(argv[1:], entry["file"]),
            source=f"compile_commands.json:{db}",
            directory=str(directory),
            dropped=dropped_flags(argv[1:]),
        )
    return None


def from_config(cfg: Path) -> BuildConfig | None:
    try:
        data = tomllib.loads(cfg.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{cfg}: cannot be read as TOML ({e})") from e
    build = data.get("build", {})
    if not isinstance(build, dict) or not build:
        return None
    compiler = build.get("compiler", DEFAULT_COMPILER)
    flags = build.get("flags", list(DEFAULT_FLAGS))
    if isinstance(flags, str):
        flags = shlex.split(flags)
    ldflags = build.get("ldflags", [])
    if isinstance(ldflags, str):
        ldflags = shlex.split(ldflags)
    if not isinstance(compiler, str) or not all(isinstance(f, str) for f in [*flags, *ldflags]):
        raise ConfigError(f"{cfg}: [build] compiler must be a string, and flags and ldflags each a list of strings")
    programs = build.get("programs", [])
    if not isinstance(programs, list) or not all(
        isinstance(p, str) or (isinstance(p, list) and all(isinstance(a, str) for a in p)) for p in programs
    ):
        raise ConfigError(
            f"{cfg}: [build] programs must be a list, one entry per program: its objects and libraries as a "
            'string or a list of strings, e.g. programs = ["build/test/example.o build/libz.a"]'
        )
    return BuildConfig(
        compiler,
        clean_flags(list(flags)),
        f"config:{cfg}",
        str(cfg.parent),
        _from_dir(cfg.parent, ldflags),
        dropped_flags(flags),
        tuple(_from_dir(cfg.parent, shlex.split(p) if isinstance(p, str) else p) for p in programs),
    )


def _from_dir(folder: Path, args: list[str]) -> tuple[str, ...]:
    """Linker arguments with the files named relative to the project file made absolute (the editor's
    server and the command line may run anywhere)."""
    return tuple(str(folder / a) if not a.startswith("-") and (folder / a).is_file() else a for a in args)


def resolve(
    file: str | os.PathLike,
    *,
    compiler: str | None = None,
    flags: str | None = None,
    ldflags: str | None = None,
    programs: tuple[str, ...] = (),
) -> BuildConfig:
    """The BuildConfig for `file`, following the precedence in the module docstring; `ldflags` and
    `programs` (the command line's) replace the project file's [build] ldflags and programs."""
    cfg = _resolve(Path(file), compiler, flags)
    project = find_config(file) if ldflags is None or not programs else None
    found = from_config(project) if project else None
    if ldflags is not None:
        cfg = dataclasses.replace(cfg, ldflags=tuple(shlex.split(ldflags)))
    elif not cfg.ldflags and found and found.ldflags:
        cfg = dataclasses.replace(cfg, ldflags=found.ldflags)
    if programs:
        cfg = dataclasses.replace(cfg, programs=tuple(tuple(shlex.split(p)) for p in programs))
    elif not cfg.programs and found and found.programs:
        cfg = dataclasses.replace(cfg, programs=found.programs)
    return cfg


def _resolve(file: Path, compiler: str | None, flags: str | None) -> BuildConfig:
    if compiler or flags:
        return BuildConfig(
            compiler or DEFAULT_COMPILER,
            clean_flags(shlex.split(flags)) if flags is not None else DEFAULT_FLAGS,
            "command line",
            str(file.resolve().parent),
            dropped=dropped_flags(shlex.split(flags or "")),
        )
    db = find_compile_commands(file)
    if db:
        found = from_compile_commands(db, file)
        if found:
            return found
    cfg = find_config(file)
    if cfg:
        found = from_config(cfg)
        if found:
            return found
    return BuildConfig(DEFAULT_COMPILER, DEFAULT_FLAGS, "default", str(file.resolve().parent))


def bounds_from_config(file: str | os.PathLike) -> dict[str, dict[str, list]]:
    """Per-function input bounds from .supercoder.toml:

    [bounds.arrmax]
    n = [0, 1000]        # for an array or string parameter: its length
    """
    cfg = find_config(file)
    if not cfg:
        return {}
    try:
        data = tomllib.loads(cfg.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{cfg}: cannot be read as TOML ({e})") from e
    out: dict[str, dict[str, list]] = {}
    for fn, params in (data.get("bounds") or {}).items():
        if not isinstance(params, dict):
            raise ConfigError(f"{cfg}: [bounds.{fn}] must be a table of PARAM = [LOW, HIGH]")
        for p, b in params.items():
            if not (isinstance(b, list) and len(b) == 2 and all(isinstance(x, (int, float)) for x in b)):
                raise ConfigError(f"{cfg}: bounds.{fn}.{p} must be [LOW, HIGH], got {b!r}")
            out.setdefault(fn, {})[p] = b
    return out


def test_command_from_config(file: str | os.PathLike) -> str | None:
    """The project's test command from .supercoder.toml ([build] test-command = "make check", or "auto"),
    run from the project file's folder."""
    cfg = find_config(file)
    if not cfg:
        return None
    try:
        data = tomllib.loads(cfg.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{cfg}: cannot be read as TOML ({e})") from e
    cmd = (data.get("build") or {}).get("test-command")
    if cmd is not None and not isinstance(cmd, str):
        raise ConfigError(f'{cfg}: [build] test-command must be a string, e.g. test-command = "make check"')
    return cmd
