"""Tests for supercoder_lsp.hotness: static scores, callgrind profiles, ranking."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from support import FIXTURES

from supercoder_lsp.hotness import (
    ProfileError,
    ProfileTimeout,
    ProgramFailed,
    ValgrindNotFound,
    callgrind_profile,
    inlined_or_unprofiled,
    parse_callgrind_file,
    rank,
    source_name,
    static_scores,
)
from supercoder_lsp.source import parse_functions

SOURCES = FIXTURES / "source"
SEVERAL = parse_functions((SOURCES / "several.c").read_text(encoding="utf-8"))
HOT_COLD_SRC = SOURCES / "hot_cold.c"
HOT_COLD = parse_functions(HOT_COLD_SRC.read_text(encoding="utf-8"))

needs_tools = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("valgrind") is None, reason="needs gcc and valgrind"
)


# --- static ------------------------------------------------------------------------------------


def test_static_scores_cover_every_function_including_main():
    scores = static_scores(SEVERAL)
    assert set(scores) == {f.name for f in SEVERAL}
    assert "main" in scores


@pytest.mark.parametrize(
    "hotter, colder",
    [
        pytest.param("matrix_trace", "sum_u8", id="nested-loop-beats-single-loop"),
        pytest.param("total", "sum_u8", id="call-in-loop-beats-plain-loop"),
        pytest.param("mean", "clamp_ll", id="any-loop-beats-loop-free"),
        pytest.param("clamp_ll", "square", id="bigger-loop-free-beats-smaller"),
    ],
)
def test_static_order(hotter, colder):
    scores = static_scores(SEVERAL)
    assert scores[hotter] > scores[colder]


def test_static_rank_puts_deepest_loop_first_and_skips_main():
    ranked = rank(SEVERAL, profile=None)
    names = [fn.name for fn, _ in ranked]
    assert names[0] == "matrix_trace"
    assert "main" not in names
    assert len(names) == len(SEVERAL) - 1
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True)


def test_rank_exclude_can_be_changed():
    names = [fn.name for fn, _ in rank(SEVERAL, profile=None, exclude=("matrix_trace",))]
    assert "main" in names and "matrix_trace" not in names


# --- profile ranking (no valgrind needed) ------------------------------------------------------------


def test_rank_with_profile_uses_instruction_counts_and_zero_for_missing():
    profile = {"square": 5_000, "mean": 90, "main": 10_000}
    ranked = rank(SEVERAL, profile=profile)
    assert [(fn.name, s) for fn, s in ranked[:2]] == [("square", 5000.0), ("mean", 90.0)]
    # unprofiled functions score 0, ties broken by the static guess
    rest = ranked[2:]
    assert all(s == 0.0 for _, s in rest)
    assert rest[0][0].name == "matrix_trace"
    unprofiled = inlined_or_unprofiled(SEVERAL, profile)
    assert "matrix_trace" in unprofiled and "square" not in unprofiled and "main" not in unprofiled


@pytest.mark.parametrize(
    "raw, name",
    [
        pytest.param("fib'2", "fib", id="recursion-level"),
        pytest.param("f.cold", "f", id="cold-split"),
        pytest.param("f.part.0", "f", id="partial-inlining"),
        pytest.param("f.constprop.0.isra.0", "f", id="stacked-clones"),
        pytest.param("mix_all", "mix_all", id="plain"),
        pytest.param("0x0000000000001040", "0x0000000000001040", id="unnamed-address"),
    ],
)
def test_source_name_merges_clones(raw, name):
    assert source_name(raw) == name


# --- callgrind --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hot_cold_exe(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    exe = tmp_path_factory.mktemp("hot_cold") / "hot_cold"
    subprocess.run(["gcc", "-O1", "-g", "-fno-inline", str(HOT_COLD_SRC), "-o", str(exe)], check=True)
    return exe


def _stdin(tmp_path: Path, text: str) -> str:
    path = tmp_path / "stdin.txt"
    path.write_text(text)
    return str(path)


@needs_tools
def test_callgrind_ranks_the_hot_loop_first(hot_cold_exe):
    profile = callgrind_profile(str(hot_cold_exe), stdin_path=str(SOURCES / "hot_cold.in"), timeout=60)
    # 20 rounds x 1000 elements: well over 20k instructions in mix_all, a handful in banner
    assert profile["mix_all"] > 20 * 1000 * 2
    assert 0 < profile["banner"] < 100
    assert "printf" not in profile  # libc is not the program's code
    ranked = rank(HOT_COLD, profile=profile)
    assert [fn.name for fn, _ in ranked] == ["mix_all", "banner", "never_called"]
    assert ranked[0][1] == profile["mix_all"]
    assert inlined_or_unprofiled(HOT_COLD, profile) == ["never_called"]


@needs_tools
def test_callgrind_workload_and_all_objects(hot_cold_exe, tmp_path):
    stdin = _stdin(tmp_path, "3\n")
    profile = callgrind_profile(
        "hot_cold", cwd=str(hot_cold_exe.parent), workload=f"{{exe}} < {stdin}", all_objects=True, timeout=60
    )
    assert max(profile, key=profile.get) != "banner"
    assert profile["mix_all"] > 3 * 1000 * 2
    assert any(name.startswith("_dl_") for name in profile)  # the loader is there with all_objects


def test_workload_without_placeholder_is_rejected(tmp_path):
    with pytest.raises(ValueError, match=r"\{exe\}"):
        callgrind_profile("/bin/true", workload="./prog < input")


@needs_tools
def test_non_zero_exit_is_an_error(hot_cold_exe, tmp_path):
    with pytest.raises(ProgramFailed, match="exited with status 3") as info:
        callgrind_profile(str(hot_cold_exe), stdin_path=_stdin(tmp_path, "0\n"), timeout=60)
    assert info.value.returncode == 3


@needs_tools
def test_timeout_is_an_error(hot_cold_exe, tmp_path):
    with pytest.raises(ProfileTimeout, match="did not finish within 1s"):
        callgrind_profile(str(hot_cold_exe), stdin_path=_stdin(tmp_path, "-1\n"), timeout=1)


def test_missing_valgrind_names_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no valgrind on PATH
    with pytest.raises(ValgrindNotFound, match="apt-get install valgrind"):
        callgrind_profile("/bin/true")


def test_missing_executable_is_an_error(tmp_path):
    if shutil.which("valgrind") is None:
        pytest.skip("needs valgrind")
    with pytest.raises(ProfileError, match="executable not found"):
        callgrind_profile(str(tmp_path / "nope"))


@needs_tools
def test_parsed_costs_add_up_to_the_file_total(hot_cold_exe, tmp_path):
    out = tmp_path / "callgrind.out"
    with open(SOURCES / "hot_cold.in", "rb") as stdin:
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}", str(hot_cold_exe)],
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            check=True,
        )
    costs, total = parse_callgrind_file(str(out))
    assert total is not None and sum(costs.values()) == total
    # agrees with callgrind_annotate's exclusive count for the hot function
    if shutil.which("callgrind_annotate"):
        text = subprocess.run(
            ["callgrind_annotate", "--inclusive=no", str(out)], capture_output=True, text=True, check=True
        ).stdout
        line = next(ln for ln in text.splitlines() if ln.rstrip().endswith(f"[{hot_cold_exe}]") and ":mix_all" in ln)
        annotated = int(line.split()[0].replace(",", ""))
        assert annotated == sum(ir for (ob, fn), ir in costs.items() if fn == "mix_all")
