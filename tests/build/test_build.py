"""Build stage: where flags come from, and compiler failures as values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from supercoder_lsp import build
from supercoder_lsp.build.flags import ConfigError, clean_flags, resolve


def write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_default_is_gcc_O3(tmp_path):
    c = write(tmp_path / "a.c", "int f(void){return 1;}")
    cfg = resolve(c)
    assert (cfg.compiler, cfg.flags, cfg.source) == ("gcc", ("-O3",), "default")


def test_compile_commands_found_upward_with_command_string(tmp_path):
    c = write(tmp_path / "src" / "deep" / "a.c", "int f(void){return 1;}")
    write(
        tmp_path / "compile_commands.json",
        json.dumps(
            [
                {
                    "directory": str(tmp_path),
                    "file": "src/deep/a.c",
                    "command": "clang -O2 -DX=1 -Iinclude -MD -MF a.d -g3 -c src/deep/a.c -o out/a.o",
                }
            ]
        ),
    )
    cfg = resolve(c)
    assert cfg.compiler == "clang"
    assert cfg.flags == ("-O2", "-DX=1", "-Iinclude")
    assert cfg.directory == str(tmp_path) and cfg.source.startswith("compile_commands.json:")


def test_file_not_in_compile_commands_falls_back_to_project_config(tmp_path):
    c = write(tmp_path / "a.c", "int f(void){return 1;}")
    write(
        tmp_path / "compile_commands.json",
        json.dumps([{"directory": str(tmp_path), "file": "other.c", "arguments": ["gcc", "-O1", "-c", "other.c"]}]),
    )
    write(tmp_path / ".supercoder.toml", '[build]\ncompiler = "gcc"\nflags = ["-O2", "-march=x86-64-v2"]\n')
    cfg = resolve(c)
    assert cfg.flags == ("-O2", "-march=x86-64-v2") and cfg.source.startswith("config:")


def test_command_line_overrides_everything(tmp_path):
    c = write(tmp_path / "a.c", "int f(void){return 1;}")
    write(tmp_path / ".supercoder.toml", '[build]\nflags = ["-O1"]\n')
    cfg = resolve(c, flags="-O3 -funroll-loops")
    assert cfg.flags == ("-O3", "-funroll-loops") and cfg.source == "command line"


@pytest.mark.parametrize(
    "name,text,says",
    [
        pytest.param("compile_commands.json", "{not json", "not valid JSON", id="bad-json"),
        pytest.param(".supercoder.toml", "[build\nflags=", "TOML", id="bad-toml"),
        pytest.param(".supercoder.toml", "[build]\nflags = [1, 2]\n", "list of strings", id="bad-flags"),
    ],
)
def test_broken_config_files_say_what_is_wrong(tmp_path, name, text, says):
    c = write(tmp_path / "a.c", "int f(void){return 1;}")
    write(tmp_path / name, text)
    with pytest.raises(ConfigError, match=says):
        resolve(c)


def test_clean_flags_drops_outputs_debug_and_lto():
    assert clean_flags(["-O3", "-flto=auto", "-g", "-c", "x.c", "-o", "x.o", "-Wall"], "x.c") == ("-O3", "-Wall")


def test_compiler_error_is_a_value_with_the_message(tmp_path):
    c = write(tmp_path / "bad.c", "int f(void){ return x; }")
    with pytest.raises(build.BuildError) as e:
        build.compile_to_asm(c, resolve(c), tmp_path / "bad.s")
    assert "undeclared" in e.value.output and "bad.c:1:" in e.value.output


def test_other_programs_come_from_the_project_file_with_paths_from_its_folder(tmp_path):
    c = write(tmp_path / "src" / "a.c", "int f(void){return 1;}")
    write(tmp_path / "build" / "test" / "example.o", "")
    write(
        tmp_path / ".supercoder.toml",
        '[build]\nprograms = ["build/test/example.o -lm", ["build/missing.o"]]\n',
    )
    cfg = resolve(c)
    assert cfg.programs == ((str(tmp_path / "build" / "test" / "example.o"), "-lm"), ("build/missing.o",))
    # the command line's replace them
    assert resolve(c, programs=("x.o -lz",)).programs == (("x.o", "-lz"),)
    write(tmp_path / ".supercoder.toml", '[build]\nprograms = "build/test/example.o"\n')
    with pytest.raises(ConfigError, match="programs must be a list"):
        resolve(c)
