"""The `supercoder` command end to end, as a user runs it: real gcc, clang, hyperfine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from procs import leftover_processes
from support import FIXTURES, by_label, run_json, supercoder

FIX = FIXTURES
VERIFY = FIX / "verify"


def test_kernighan_popcount_gets_a_verified_popcnt_and_a_source_change(tmp_path):
    data = run_json(str(VERIFY / "popcount.c"), cache=tmp_path / "cache", prove=True)  # the defaults, as make demo
    assert data["schema_version"] == 1
    env = data["environment"]
    assert env["compiler"] == "gcc" and env["flags"] == ["-O3"] and env["cpu_model"]
    [fn] = data["functions"]  # main is never a target
    assert fn["name"] == "popcount" and fn["range"]["start"]["line"] == 9
    best = fn["best"]
    assert best is not None, fn["detail"]
    assert "popcnt" in best["features"] and "popcnt" in best["cpu_features"]
    assert best["speedup"] > 2 and best["speedup_ci"][0] > 1.5
    assert best["source_change"]["text"] == '__attribute__((target_clones("popcnt", "default")))'
    assert "popcnt" in best["assembly"]
    assert fn["baseline"]["assembly"].count("popcount:") == 1
    accepted = [c for c in fn["candidates"] if c["status"] == "accepted"]
    assert all(c["inputs_checked"] > 100_000 for c in accepted)
    # every candidate keeps its raw timing samples and a verdict
    assert all(c["reason"] or c["status"] == "accepted" for c in fn["candidates"])
    timed = [c for c in fn["candidates"] if c["timing"]]
    assert timed and all(c["timing"]["samples"]["alignments"] for c in timed)


def test_replay_candidates_each_get_the_right_verdict_and_reason():
    data = run_json(
        str(VERIFY / "popcount.c"),
        "--candidates",
        str(VERIFY / "cands"),
        "--tests",
        str(VERIFY / "tests"),
        "--inputs",
        "20000",
        "-n",
        "20",
    )
    [fn] = data["functions"]
    got = {label: (c["status"], c["reason"]) for label, c in by_label(fn).items()}
    assert got == {
        "good-popcnt": ("accepted", None),
        "whole-tu-native": ("accepted", None),  # a whole translation unit: the function is cut out of it
        "wrong-low32": ("rejected", "wrong-output"),
        "abi-rbx": ("rejected", "abi-violation"),
        "bad-syntax": ("rejected", "assemble-error"),
        "crash-null": ("rejected", "crash"),
        "loop-forever": ("rejected", "timeout"),
        "slow-delay": ("rejected", "not-faster"),
        "wrong-name": ("rejected", "unusable"),  # the file defines another function
    }
    c = by_label(fn)
    assert "expected" in c["wrong-low32"]["detail"] and "got" in c["wrong-low32"]["detail"]
    assert "%rbx" in c["abi-rbx"]["detail"]
    assert c["slow-delay"]["detail"].startswith("slower")
    assert c["slow-delay"]["speedup"] < 1  # a slowdown is reported as it is, never floored at 1.0
    assert c["good-popcnt"]["tests_passed"] == 2
    assert fn["best"]["label"] in ("good-popcnt", "whole-tu-native")


def test_whole_program_speedup_with_bench_input(tmp_path):
    bench = tmp_path / "bench.in"
    bench.write_text(" ".join(str((i * 0x9E3779B97F4A7C15) % (1 << 64)) for i in range(200_000)))
    data = run_json(
        str(VERIFY / "popcount.c"),
        "--candidates",
        str(VERIFY / "cands"),
        "-f",
        "popcount",
        "--bench-input",
        str(bench),
        "--inputs",
        "5000",
        "-n",
        "1",
    )
    [fn] = data["functions"]
    [c] = fn["candidates"]
    assert c["label"] == "abi-rbx" and c["reason"] == "abi-violation"  # -n 1: best-of-1 takes the first file
    data = run_json(  # a path relative to where the user runs it, as the README's example gives it
        str(VERIFY / "popcount.c"),
        "--proposer",
        "compilers",
        "-f",
        "popcount",
        "--bench-input",
        "bench.in",
        "--inputs",
        "5000",
        "-n",
        "1",
        cwd=tmp_path,
    )
    [c] = data["functions"][0]["candidates"]
    assert (
        c["program_speedup"] is not None
        and c["program_speedup_ci"][0] <= c["program_speedup"] <= c["program_speedup_ci"][1]
    )
    assert c["program_timing"]["samples"]["baseline"] and c["program_timing"]["method"] == "hyperfine"


def test_cached_result_is_reused_and_a_corrupt_entry_is_recomputed(tmp_path):
    cache = tmp_path / "cache"
    args = (str(VERIFY / "popcount.c"), "--candidates", str(VERIFY / "cands"), "-n", "1", "--inputs", "1000")
    first = run_json(*args, cache=cache)
    assert first["functions"][0]["cached"] is False
    second = run_json(*args, cache=cache)
    assert second["functions"][0]["cached"] is True
    assert second["functions"][0]["candidates"] == first["functions"][0]["candidates"]
    for f in cache.rglob("*.json"):
        f.write_text('{"format": 1, "result": {"trunc')  # a crash mid-write by some other tool
    third = run_json(*args, cache=cache)
    assert third["functions"][0]["cached"] is False
    assert third["functions"][0]["candidates"][0]["reason"] == "abi-violation"


def test_unwritable_cache_still_reports(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    data = run_json(
        str(VERIFY / "popcount.c"),
        "--candidates",
        str(VERIFY / "cands"),
        "-n",
        "1",
        "--inputs",
        "1000",
        cache=blocker / "cache",
    )
    assert any("cache" in n for n in data["notes"])
    assert data["functions"][0]["candidates"]


@pytest.mark.parametrize(
    "args,code,says",
    [
        pytest.param(["missing.c"], 2, "does not exist", id="missing-file"),
        pytest.param(
            [str(VERIFY / "popcount.c"), "-f", "nosuch"], 2, "it defines: popcount, main", id="unknown-function"
        ),
        pytest.param([str(VERIFY / "popcount.c"), "--proposer", "magic"], 2, "unknown proposer", id="unknown-proposer"),
        pytest.param([str(VERIFY / "popcount.c"), "--proposer", "replay"], 2, "--candidates", id="replay-without-dir"),
        pytest.param([str(VERIFY / "popcount.c"), "--tests", "nowhere"], 2, "NAME.in", id="missing-tests"),
        pytest.param([str(VERIFY / "popcount.c"), "--bound", "n=1"], 2, "FUNCTION.PARAM=LOW:HIGH", id="bad-bound"),
        pytest.param([str(FIX / "cli" / "broken.c")], 4, "does not compile", id="does-not-compile"),
    ],
)
def test_bad_input_gets_a_clear_error_and_exit_code(args, code, says):
    p = supercoder("optimize", "--no-cache", *args)
    assert p.returncode == code, (p.stdout, p.stderr)
    assert says in " ".join(p.stderr.split())


def test_missing_compiler_names_the_install_command(tmp_path):
    p = supercoder("optimize", "--no-cache", "--cc", "gcc-does-not-exist", str(VERIFY / "popcount.c"))
    assert p.returncode == 3
    assert "apt-get install" in p.stderr


def test_flags_come_from_compile_commands_json(tmp_path):
    proj = tmp_path / "proj"
    (proj / "build").mkdir(parents=True)
    shutil.copy(VERIFY / "popcount.c", proj / "popcount.c")
    (proj / "build" / "compile_commands.json").write_text(
        json.dumps(
            [
                {
                    "directory": str(proj),
                    "file": "popcount.c",
                    "arguments": ["gcc", "-O2", "-mpopcnt", "-g", "-c", "popcount.c", "-o", "popcount.o"],
                }
            ]
        )
    )
    data = run_json(str(proj / "popcount.c"), "--candidates", str(VERIFY / "cands"), "-n", "1", "--inputs", "1000")
    env = data["environment"]
    assert env["flags"] == ["-O2", "-mpopcnt"] and env["flags_from"].startswith("compile_commands.json:")
    assert "popcnt" in data["functions"][0]["baseline"]["assembly"]


TABLE_ARGS = (
    "optimize",
    str(VERIFY / "popcount.c"),
    "--candidates",
    str(VERIFY / "cands"),
    "-n",
    "20",
    "--inputs",
    "2000",
)


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """The human table of popcount's nine replayed candidates, and the cache it filled: one run for the tests
    that read it (a worker that gets both runs it once)."""
    cache = tmp_path_factory.mktemp("table-cache")
    p = supercoder(*TABLE_ARGS, cache=cache)
    assert p.returncode == 0, p.stderr
    return p, cache


def test_human_table_shows_the_headline(table):
    out = " ".join(table[0].stdout.split())
    assert "x faster (95% CI" in out and "uses popcnt" in out
    assert "abi-violation" in out and "assemble-error" in out


def no_candidates(tmp: Path) -> tuple[str, ...]:
    """Options for a run whose test is about which functions it takes and their harnesses, not candidates: the
    replay proposer with an empty folder (nothing proposed, built or timed: 45 s of a ranking test's run)."""
    (tmp / "no-candidates").mkdir(exist_ok=True)
    return ("--proposer", "replay", "--candidates", str(tmp / "no-candidates"))


def test_hot_functions_ranked_by_callgrind_profile_when_a_workload_is_given(tmp_path):
    src = FIX / "cli" / "ranked.c"
    static = run_json(str(src), "--top", "1", "--inputs", "1000", *no_candidates(tmp_path))
    assert [f["name"] for f in static["functions"]] == ["rare"]
    assert any("static score" in n for n in static["notes"])
    profiled = run_json(
        str(src),
        "--top",
        "1",
        "--inputs",
        "1000",
        "--workload",
        "{exe} < " + str(FIX / "cli" / "ranked.in"),
        *no_candidates(tmp_path),
    )
    assert [f["name"] for f in profiled["functions"]] == ["mix"]
    assert any("callgrind" in n for n in profiled["notes"])


def test_function_inlined_away_is_reported_not_skipped():
    data = run_json(str(FIX / "cli" / "ranked.c"), "-f", "triple")
    [fn] = data["functions"]
    assert fn["status"] == "unsupported" and "inlined" in fn["detail"]
    assert fn["candidates"] == [] and fn["best"] is None


def test_bounds_from_project_config(tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    shutil.copy(FIX / "cli" / "ranked.c", proj / "ranked.c")
    (proj / ".supercoder.toml").write_text("[bounds.rare]\nn = [0, 5]\n")
    data = run_json(str(proj / "ranked.c"), "-f", "rare", "--inputs", "1000", *no_candidates(tmp_path))
    assert "length 0..5" in data["functions"][0]["harness"]
    (proj / ".supercoder.toml").write_text("[bounds.rare]\nn = 5\n")
    p = supercoder("optimize", "--no-cache", str(proj / "ranked.c"))
    assert p.returncode == 2 and "[LOW, HIGH]" in p.stderr


def test_shared_file_static_is_reported_and_local_clones_are_carried_along():
    data = run_json(
        str(FIX / "cli" / "shared.c"),
        "-f",
        "add",
        "-f",
        "caller",
        "--bound",
        "caller.x=0:2000",
        "--bound",
        "add.x=0:100",
        "-n",
        "2",
        "--inputs",
        "3000",
    )
    add, caller = data["functions"]
    assert add["status"] == "unsupported" and "file-static data (total)" in add["detail"]
    assert caller["status"] == "done" and "helper.constprop.0" in caller["detail"]
    assert "helper.constprop.0:" in caller["baseline"]["assembly"]
    assert "x: int32_t in [0, 2000]" in caller["harness"]
    assert all(c["reason"] not in ("link-error", "assemble-error") for c in caller["candidates"])
    assert any(c["status"] == "accepted" for c in caller["candidates"])


def test_a_crashing_or_hanging_compiler_fails_that_candidate_and_the_rest_go_on(tmp_path):
    cc = tmp_path / "flaky-gcc"
    cc.write_text(
        '#!/bin/sh\ncase "$*" in\n  *-march=native*-funroll*) sleep 600 ;;\n  *-march=native*) kill -SEGV $$ ;;\nesac\n'
        'exec gcc "$@"\n'
    )
    cc.chmod(0o755)
    data = run_json(
        str(VERIFY / "popcount.c"),
        "--cc",
        str(cc),
        "--cflags=-O3",
        "--compile-timeout",
        "3",
        "-n",
        "20",
        "--inputs",
        "2000",
        "--rounds",
        "12",
    )
    c = by_label(data["functions"][0])
    assert "killed by signal 11" in c["gcc_march_native"]["detail"]
    assert "timed out" in c["gcc_march_native_funroll_loops"]["detail"]
    assert c["gcc_mpopcnt_mlzcnt_mbmi_mbmi2"]["status"] == "accepted"  # the others still ran
    assert leftover_processes("sleep 600") == []


def test_library_style_code_gets_types_from_the_compiler(tmp_path):
    """Macros in declarations and typedefs (`uLong ZEXPORT f(uLong, const Bytef *, z_size_t)`) no longer
    make a function unparsed: the harness is planned from what the compiler saw."""
    src = FIXTURES / "real" / "zlike.c"
    data = run_json(str(src), "-k", "8", "--inputs", "2000", *no_candidates(tmp_path))
    by_name = {f["name"]: f for f in data["functions"]}
    assert by_name["checksum_z"]["signature"] == "uLong (uLong adler, const Bytef * buf, z_size_t len)"
    assert "generated inputs" in by_name["checksum_z"]["harness"], by_name["checksum_z"]
    assert by_name["checksum_z"]["status"] == "done"
    assert "checksum_legacy" not in by_name  # not in this build: skipped, and the notes say so
    assert any("checksum_legacy is not compiled with these flags" in n for n in data["notes"])
    assert "s: one zlike_state (8 bytes, fields random)" in by_name["zlike_level"]["harness"], by_name["zlike_level"]
    assert "depends on where its buffers lie" in by_name["zlike_sum_freq"]["detail"]  # a struct used as an array


def test_inlined_and_preprocessed_away_functions_say_where_they_went():
    src = FIXTURES / "real" / "zlike.c"
    data = run_json(str(src), "-f", "fold", "-f", "checksum_legacy", "-n", "1", "--inputs", "1000")
    fold, legacy = data["functions"]
    assert fold["status"] == "unsupported" and fold["detail"].startswith("inlined into checksum_z, zlike_consume:")
    assert legacy["status"] == "unsupported"
    assert "not compiled with these flags (it is inside #ifdef ZLIKE_LEGACY)" in legacy["detail"], legacy


def test_a_program_that_needs_a_library_links_with_ldflags(tmp_path):
    """Without the library the error says the program does not link, and how to add it; with
    --ldflags the program is built, profiled and timed."""
    src = FIXTURES / "cli" / "needs_lib"
    subprocess.run(["gcc", "-O2", "-c", str(src / "scale.c"), "-o", str(tmp_path / "scale.o")], check=True)
    subprocess.run(["ar", "rcs", str(tmp_path / "libscale.a"), str(tmp_path / "scale.o")], check=True)
    (tmp_path / "bench.in").write_text(" ".join(str(i * 7919 % 100000) for i in range(4000)))
    args = ("optimize", "--no-cache", str(src / "prog.c"), "--bench-input", "bench.in", "-n", "1")
    p = supercoder(*args, "--inputs", "1000", cwd=tmp_path)
    assert p.returncode == 4, p.stderr
    assert "does not link" in p.stderr and "--ldflags" in p.stderr and "scale" in p.stderr
    data = run_json(*args[2:], "--inputs", "1000", f"--ldflags=-L{tmp_path} -lscale", "-k", "1", cwd=tmp_path)
    assert data["environment"]["ldflags"] == [f"-L{tmp_path}", "-lscale"]
    assert any("callgrind" in n for n in data["notes"]), data["notes"]  # the linked program was profiled
    assert data["functions"][0]["name"] == "sum_squares"


def test_bench_input_on_a_file_without_main_is_an_error(tmp_path):
    """A library file has no program to time: say so instead of ignoring --bench-input."""
    (tmp_path / "lib.c").write_text("long twice(long x) {\n    return 2 * x;\n}\n")
    (tmp_path / "bench.in").write_text("1 2 3")
    p = supercoder("optimize", "--no-cache", "lib.c", "--bench-input", "bench.in", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert "defines no main()" in " ".join(p.stderr.split()) and "--ldflags" in p.stderr


def test_a_library_file_records_the_calls_of_the_program_it_is_linked_into(tmp_path):
    """lib.c has no main: its program is main.c, given with --ldflags. The generated inputs never carry
    the right tag and run a third of tagged_sum; the program's own calls, recorded while it runs the
    bench input, run all of it, and the report says which inputs came from where."""
    lib = FIXTURES / "cli" / "library"
    for src in ("main", "mix"):
        subprocess.run(["gcc", "-O2", "-c", str(lib / f"{src}.c"), "-o", str(tmp_path / f"{src}.o")], check=True)
    (tmp_path / "in.txt").write_text("".join(chr(32 + i * 7 % 90) for i in range(3000)))
    (tmp_path / "empty").mkdir()
    args = (str(lib / "lib.c"), "--proposer", "replay", "--candidates", "empty", "--inputs", "1000", "-f", "tagged_sum")
    [alone] = run_json(*args, cwd=tmp_path)["functions"]
    assert alone["coverage"]["recorded"] == 0 and alone["coverage"]["percent"] < 70, alone["coverage"]  # under-tested
    data = run_json(*args, "--ldflags", "main.o mix.o", "--bench-input", "in.txt", cwd=tmp_path)
    [fn] = data["functions"]
    assert fn["coverage"]["recorded"] > 0 and fn["coverage"]["percent"] == 100, fn["coverage"]
    assert fn["coverage"]["generated_percent"] == alone["coverage"]["percent"]
    assert "recorded from the program's own calls" in fn["harness"], fn["harness"]
    # the same program given as --program (as its help says), with a workload and no --ldflags
    data = run_json(*args, "--program", "main.o mix.o", "--workload", "{exe} < in.txt", cwd=tmp_path)
    [fn] = data["functions"]
    assert fn["coverage"]["recorded"] > 0 and fn["coverage"]["percent"] == 100, fn["coverage"]
    assert any("the whole program timed is main.o mix.o with lib.c's code" in n for n in data["notes"]), data["notes"]


def test_a_function_that_calls_another_file_of_its_library_links_with_the_library(tmp_path):
    """mixed_sum calls mix_word from mix.c: its harness needs libmix.a. --ldflags names the program's main
    object too, which the harness (a program with a main of its own) leaves out."""
    lib = FIXTURES / "cli" / "library"
    for src in ("main", "mix"):
        subprocess.run(["gcc", "-O2", "-c", str(lib / f"{src}.c"), "-o", str(tmp_path / f"{src}.o")], check=True)
    subprocess.run(["ar", "rcs", str(tmp_path / "libmix.a"), str(tmp_path / "mix.o")], check=True)
    (tmp_path / "in.txt").write_text("".join(chr(32 + i * 7 % 90) for i in range(3000)))
    (tmp_path / "empty").mkdir()
    args = (str(lib / "lib.c"), "--proposer", "replay", "--candidates", "empty", "--inputs", "1000", "-f", "mixed_sum")
    [alone] = run_json(*args, cwd=tmp_path)["functions"]
    assert "could not be linked: it calls mix_word, defined in other files" in alone["harness"], alone["harness"]
    assert "--ldflags" in alone["detail"] and "give program tests" not in alone["detail"], alone["detail"]
    [fn] = run_json(*args, "--ldflags", "main.o libmix.a", "--bench-input", "in.txt", cwd=tmp_path)["functions"]
    assert fn["coverage"] and fn["coverage"]["recorded"] > 0 and fn["coverage"]["percent"] == 100, fn["harness"]


def _library_with_compile_commands(tmp_path):
    """The fixture library copied to tmp_path with a compile_commands.json for its three files, and an
    empty candidates folder."""
    lib = FIXTURES / "cli" / "library"
    for src in ("lib", "main", "mix"):
        shutil.copy(lib / f"{src}.c", tmp_path / f"{src}.c")
    db = [
        {"directory": str(tmp_path), "file": f"{s}.c", "arguments": ["gcc", "-O2", "-c", f"{s}.c"]}
        for s in ("lib", "main", "mix")
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    (tmp_path / "empty").mkdir()


def test_a_function_that_calls_another_file_links_the_project_from_compile_commands(tmp_path):
    """With a compile_commands.json, the project's other files are built into an archive the harness
    links: mixed_sum gets its mix_word from mix.c with no --ldflags; main.c, a program, is left out."""
    _library_with_compile_commands(tmp_path)
    args = ("lib.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "1000", "-f", "mixed_sum")
    [fn] = run_json(*args, cwd=tmp_path)["functions"]
    assert fn["status"] == "done" and fn["coverage"] and fn["coverage"]["percent"] > 0, fn["harness"]
    assert (
        "linked with the project's other 1 file(s) from compile_commands.json; left out: main.c (defines main)"
        in fn["harness"]
    ), fn["harness"]


def test_the_projects_objects_are_kept_for_the_next_run_and_an_edit_to_one_is_seen(tmp_path):
    """Each run (a job per function, again on every save in the editor) built the project's other files
    again; now their objects are kept with the results cache, and used again only where nothing they were
    built from changed: mix.c edited between two runs is built again (its mix_word now traps, and the
    second run's harness crashes on every input with a byte), main.c's object is used again."""
    _library_with_compile_commands(tmp_path)
    cache = tmp_path / "cache"
    args = ("lib.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "1000")
    [fn] = run_json(*args, "-f", "mixed_sum", cache=cache, cwd=tmp_path)["functions"]
    assert "skipped" not in fn["harness"], fn["harness"]
    kept = {next(s for s in json.loads(p.read_text())["files"] if s.endswith(".c")): p for p in cache.rglob("*.kept")}
    # lib.c's own: its -O3 assembly and -g object, built once and kept
    assert sorted(Path(src).name for src in kept) == ["lib.c", "main.c", "mix.c"], kept
    objs = {Path(src).name: p for src, p in kept.items()}
    before = {name: p.stat().st_mtime_ns for name, p in objs.items()}
    mix = tmp_path / "mix.c"
    mix.write_text(mix.read_text().replace("h ^= h >> 16;", "__builtin_trap();", 1))
    old = time.time() - 5  # an edit a few seconds before the run, as a save is
    os.utime(mix, (old, old))
    [fn] = run_json(*args, "-f", "mixed_sum_zero", cache=cache, cwd=tmp_path)["functions"]
    assert "skipped" in fn["harness"] or "every generated input" in fn["detail"], (fn["harness"], fn["detail"])
    assert objs["main.c"].stat().st_mtime_ns == before["main.c"]  # used again, not written again
    assert objs["mix.c"].stat().st_mtime_ns != before["mix.c"]  # built again and kept in its place


def test_a_cached_verdict_is_not_served_after_an_edit_to_another_file_of_the_project(tmp_path):
    """mixed_sum's harness links mix.c: a verdict reached with the old mix_word must not be served once
    mix.c changed (it now traps), although lib.c itself did not change; the run sees the new mix_word."""
    _library_with_compile_commands(tmp_path)
    cache = tmp_path / "cache"
    args = ("lib.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "1000", "-f", "mixed_sum")
    first = run_json(*args, cache=cache, cwd=tmp_path)["functions"][0]
    assert first["cached"] is False and "skipped" not in first["harness"], first["harness"]
    assert run_json(*args, cache=cache, cwd=tmp_path)["functions"][0]["cached"] is True
    mix = tmp_path / "mix.c"
    mix.write_text(mix.read_text().replace("h ^= h >> 16;", "__builtin_trap();", 1))
    old = time.time() - 5
    os.utime(mix, (old, old))
    [fn] = run_json(*args, cache=cache, cwd=tmp_path)["functions"]
    assert fn["cached"] is False
    assert "skipped" in fn["harness"] or "every generated input" in fn["detail"], (fn["harness"], fn["detail"])


def test_a_function_that_reaches_another_file_through_its_own_file_links_the_project(tmp_path):
    """mixed_sum_zero calls mixed_sum_from in its own file, which calls mix_word in mix.c. Linked with the
    rest of its file made all weak, the reference to mix_word was address 0 and every input with a byte
    crashed;
    now the missing symbol asks for the project's other files, and the harness runs."""
    _library_with_compile_commands(tmp_path)
    args = ("lib.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "1000", "-f", "mixed_sum_zero")
    [fn] = run_json(*args, cwd=tmp_path)["functions"]
    assert fn["status"] == "done" and fn["coverage"] and fn["coverage"]["percent"] == 100, fn["detail"]
    assert "linked with the project's other 1 file(s)" in fn["harness"], fn["harness"]
    assert "skipped" not in fn["harness"], fn["harness"]  # the inputs with bytes crashed at address 0


def test_a_function_that_prints_is_judged_by_what_it_prints_too():
    """A debug printer among the hot functions: what it prints is part of its result, captured per call and
    compared (it was refused); a compiler's build prints the same, so it is not wrong, and it is timed (its
    prints did not reach the timing driver's own output). The other functions are optimized as usual."""
    data = run_json(str(FIXTURES / "cli" / "printer.c"), "-n", "1", "--inputs", "1000")
    by_name = {f["name"]: f for f in data["functions"]}
    assert by_name["dump"]["status"] == "done", by_name["dump"]["detail"]
    [c] = by_name["dump"]["candidates"]
    assert c["reason"] not in ("wrong-output", "unsafe", "crash"), c["detail"]
    assert c["timing"] is not None, c["detail"]
    assert by_name["clampsum"]["status"] == "done" and by_name["clampsum"]["candidates"]


def test_a_speedup_on_inputs_that_may_reach_only_argument_checks_is_not_claimed():
    """zlike_consume takes a struct whose pointer fields the harness sets to NULL: a candidate is verified on
    those inputs, but a speedup measured there is not claimed; the program's inputs must decide."""
    data = run_json(str(FIXTURES / "real" / "zlike.c"), "-f", "zlike_consume", "-n", "8", "--inputs", "2000")
    [fn] = data["functions"]
    assert "its 2 pointer field(s) NULL" in fn["harness"], fn["harness"]
    assert fn["best"] is None
    for c in fn["candidates"]:
        assert c["status"] != "accepted"
        if c["timing"] and c["timing"]["significant"]:
            assert "give --bench-input or --workload" in c["detail"], c["detail"]


def test_a_candidate_that_skips_the_work_when_it_is_timed_is_wrong_output(tmp_path):
    """Tests and the output check read stdout through a pipe; hyperfine used to send it to /dev/null. This
    candidate (the original calls fstat, so it may too) returns a constant when stdout is not a pipe: it
    passes every test, and its timed runs would claim a huge speedup. The timed runs write their output
    to a file that is compared, so it is wrong-output with the value it printed while timed."""
    src = FIXTURES / "verify" / "timed"
    cands = tmp_path / "cands" / "sumsq"
    cands.mkdir(parents=True)
    asm = subprocess.run(
        ["gcc", "-O3", "-S", str(src / "cheat.c"), "-o", "-"], capture_output=True, text=True, check=True
    ).stdout
    (cands / "cheat.s").write_text(asm)
    (tmp_path / "bench.in").write_text("30000000\n")
    rep = run_json(
        str(src / "prog.c"), "-f", "sumsq", "-p", "replay", "--candidates", str(tmp_path / "cands"),
        "--tests", str(src / "tests"), "--bench-input", str(tmp_path / "bench.in"),
    )  # fmt: skip
    c = by_label(rep["functions"][0])["cheat"]
    assert c["status"] == "rejected" and c["reason"] == "wrong-output", c
    assert "timed run" in c["detail"] and "'42'" in c["detail"]


def test_a_function_that_compiles_to_nothing_gives_its_place_in_the_top_functions(tmp_path):
    """zs_static_init's body is all inside an #ifdef the build leaves out (zlib's tr_static_init): it
    has no code, out of line or inlined, so the next function takes its place; and zs_check, whose body
    the parser cannot read, is among them."""
    data = run_json(str(FIXTURES / "real" / "zsplit.c"), "-k", "2", "--inputs", "1000", *no_candidates(tmp_path))
    names = [f["name"] for f in data["functions"]]
    assert "zs_static_init" not in names and "zs_check" in names, names
    assert any("zs_static_init compiles to no code with these flags" in n for n in data["notes"]), data["notes"]


def test_each_candidates_verdict_is_streamed_before_the_run_ends(tmp_path):
    """--progress-jsonl (what the editor reads): an update after every candidate, "running" with the verdicts
    so far, so a first result shows before all are tried; the final result on stdout is "done"."""
    cands = tmp_path / "cands" / "popcount"
    cands.mkdir(parents=True)
    for name in ("slow-delay", "wrong-low32"):
        shutil.copy(VERIFY / "cands" / "popcount" / f"{name}.s", cands)
    p = supercoder(
        "optimize", "--json", "--no-cache", "--progress-jsonl", str(VERIFY / "popcount.c"),
        "--candidates", str(tmp_path / "cands"), "--inputs", "20000", "-n", "20",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    updates = [json.loads(ln)["function"] for ln in p.stderr.splitlines() if '"event": "update"' in ln]
    assert [u["status"] for u in updates] == ["running", "running"]
    assert [len(u["candidates"]) for u in updates] == [1, 2]
    assert all(u["best"] is None for u in updates)
    [fn] = json.loads(p.stdout)["functions"]
    assert fn["status"] == "done" and fn["detail"].startswith("no faster verified candidate (2 tried")


def _own_program_project(
    tmp: Path, lib: Path, sources: tuple[str, ...], headers: tuple[str, ...] = (), flags: tuple[str, ...] = ("-O2",)
) -> None:
    """`lib`'s files copied to `tmp` with a compile_commands.json for its `sources`, and an empty candidates
    folder: a project whose own programs (those defining main) the tool may run."""
    for name in (*(f"{s}.c" for s in sources), *headers):
        shutil.copy(lib / name, tmp / name)
    db = [{"directory": str(tmp), "file": f"{s}.c", "arguments": ["gcc", *flags, "-c", f"{s}.c"]} for s in sources]
    (tmp / "compile_commands.json").write_text(json.dumps(db))
    (tmp / "empty").mkdir()


def test_for_a_handle_to_a_private_state_the_projects_own_programs_calls_come_first(tmp_path):
    """ring_sum's generated inputs give it a harness (it reads only through `next`), but they leave its
    stream's `msg` NULL and its `link` a generated private state: a speedup timed on them alone would be
    refused. With no tests or workload named, the project's own program (demo.c) is run first and its
    calls join the harness, as where generated inputs give no harness at all (zlib's send_tree: its
    generated harness ran 2.7 s before it was refused; inflate_fast's 67 s). span_sum's plain struct gets
    its harness from generated inputs first, as before (the editor's first verdicts sooner)."""
    _own_program_project(tmp_path, FIXTURES / "cli" / "ownfirst", ("ring", "demo"), ("ring.h",))
    args = ("ring.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "2000", "-f", "ring_sum")
    [fn] = run_json(*args, cwd=tmp_path)["functions"]
    assert fn["status"] == "done", fn["detail"]
    assert "10 calls recorded over 1 program run of the project's own programs (demo.c" in fn["harness"], fn["harness"]
    assert fn["coverage"]["recorded"] == 10, fn["coverage"]
    [off] = run_json(*args, "--no-own-programs", cwd=tmp_path)["functions"]
    assert off["status"] == "done" and off["coverage"]["recorded"] == 0, off["coverage"]  # generated inputs only
    [plain] = run_json(*args[:-1], "span_sum", cwd=tmp_path)["functions"]
    assert plain["status"] == "done" and plain["coverage"]["recorded"] == 0, plain["harness"]


def test_a_function_no_file_of_the_project_names_does_not_run_its_programs(tmp_path):
    """lz4's LZ4_compress_forceExtDict is there for a benchmark outside the build: no file of the project
    names it, so none of its programs can call it, and building and running them cost 5 s of lz4.c's first
    result. Declared in a header and named in a comment it is still not called; named in a macro's body,
    the programs run (they might call it through the macro)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    own = FIXTURES / "cli" / "ownfirst"
    for name in ("demo.c", "ring.h"):
        shutil.copy(own / name, lib)
    ring = (own / "ring.c").read_text()
    (lib / "ring.c").write_text(
        ring
        + "\n"
        + ring[ring.index("unsigned ring_sum(") : ring.index("unsigned span_sum(")].replace("ring_sum", "ring_total")
    )
    (lib / "demo.c").write_text("/* ring_total: not called here */\n" + (own / "demo.c").read_text())
    with (lib / "ring.h").open("a") as h:
        h.write("unsigned ring_total(ring *r);\n")  # a declaration is no use either
    _own_program_project(tmp_path, lib, ("ring", "demo"), ("ring.h",))
    args = ("ring.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "2000", "-f", "ring_total")
    [fn] = run_json(*args, cwd=tmp_path)["functions"]
    assert fn["status"] == "done", fn["detail"]
    assert "the project's own programs were not run: no file of the project names ring_total" in fn["harness"]
    assert fn["coverage"]["recorded"] == 0, fn["coverage"]
    with (tmp_path / "ring.h").open("a") as h:
        h.write("#define RING_TOTAL(r) ring_total(r)\n")
    [fn] = run_json(*args, cwd=tmp_path)["functions"]
    assert "the project's own programs (demo.c, from compile_commands.json" in fn["harness"], fn["harness"]
    assert "never called it out of line" in fn["harness"], fn["harness"]
    [called] = run_json(*args[:-1], "ring_sum", cwd=tmp_path)["functions"]
    assert "10 calls recorded over 1 program run of the project's own programs" in called["harness"], called["harness"]


def test_where_generated_inputs_give_no_harness_the_projects_own_programs_calls_are_recorded(tmp_path):
    """decode reads through a table its caller sets up: generated inputs (a NULL table) crash on every
    input. With no tests or workload named, the project's own program from compile_commands.json
    (demo.c, run once with no arguments, in a scratch folder) gives its calls."""
    _own_program_project(tmp_path, FIXTURES / "cli" / "ownprog", ("table", "demo"))
    args = ("table.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "2000", "-f", "decode")
    [fn] = run_json(*args, cwd=tmp_path)["functions"]
    assert fn["status"] == "done", fn["detail"]
    assert "the project's own programs (demo.c, from compile_commands.json" in fn["harness"], fn["harness"]
    assert fn["coverage"]["recorded"] > 0 and fn["coverage"]["percent"] == 100, fn["coverage"]
    assert not (tmp_path / "demo.out").exists()  # it ran in a scratch folder, not where the tool runs
    [off] = run_json(*args, "--no-own-programs", cwd=tmp_path)["functions"]
    assert off["status"] == "unsupported" and "crashes" in off["detail"], off["detail"]
    # with a program named, the user's choice stands: the calls are its, and it too runs in a scratch folder
    subprocess.run(["gcc", "-O2", "-c", "demo.c", "-o", "named.o"], cwd=tmp_path, check=True)
    [named] = run_json(*args, "--program", "named.o", cwd=tmp_path)["functions"]
    assert "the project's own programs" not in named["harness"], named["harness"]
    assert named["coverage"]["recorded"] > 0 and named["coverage"]["percent"] == 100, named["coverage"]
    assert not (tmp_path / "demo.out").exists()


def test_a_project_that_makes_warnings_errors_still_has_its_own_programs_calls_recorded(tmp_path):
    """cJSON builds with -Wall -Werror. The file with the function's definition taken out (what the
    recording links) left a static helper only that function called unused: "defined but not used" was an
    error, the recording failed, and print_value got generated inputs only, after the 6 s build of the
    project's programs. No warning changes the code, so that build has none."""
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(FIXTURES / "cli" / "ownprog" / "demo.c", lib)
    table = (FIXTURES / "cli" / "ownprog" / "table.c").read_text()  # with a static helper only decode calls
    table = table.replace(
        "unsigned long decode(",
        "static unsigned step(unsigned h, const code *c) { return h >> (c->bits & 7); }\n\nunsigned long decode(",
    )
    (lib / "table.c").write_text(table.replace("d->hold >>= c.bits & 7;", "d->hold = step(d->hold, &c);"))
    # and a test program that includes the library file itself (cJSON's 20, through tests/common.h): its calls
    # reach its own copy, never the build's; it is not built (0.6 s each, before cJSON.c's first result)
    (lib / "selftest.c").write_text(
        '#include "table.c"\nint main(void) {\n    static code t[256];\n    decoder d = {t, 8, 0, 0, 8 * 2654435761u};\n'
        "    unsigned char b[4] = {1, 2, 3, 4};\n    return (int)(decode(&d, b, 4) & 1);\n}\n"
    )
    _own_program_project(tmp_path, lib, ("table", "demo", "selftest"), flags=("-O2", "-Wall", "-Werror"))
    args = ("table.c", "--proposer", "replay", "--candidates", "empty", "--inputs", "2000", "-f", "decode")
    data = run_json(*args, cwd=tmp_path)
    [fn] = data["functions"]
    assert not any("could not be recorded" in n for n in data.get("notes", [])), data["notes"]
    assert fn["status"] == "done", fn["detail"]
    assert "the project's own programs (demo.c, from compile_commands.json" in fn["harness"], fn["harness"]
    assert "selftest.c" not in fn["harness"], fn["harness"]  # not one of the programs run
    assert fn["coverage"]["recorded"] > 0, fn["coverage"]


def test_a_function_a_macro_renames_is_optimized_under_the_compilers_name(tmp_path):
    """lz4 builds xxhash.c with -DXXH_NAMESPACE=LZ4_: the text's XXH32 is LZ4_XXH32 to the compiler. It was
    "not compiled with these flags", and its helpers "inlined into LZ4_XXH32", a function never chosen. Each
    is found by the line its debug info names, verified under the compiler's name, asked for by either, and
    its verified assembly re-verified in the edited file."""
    src = FIXTURES / "real" / "namespaced.c"
    flags = "--cflags=-O3 -DXXH_NAMESPACE=LZ4_"
    data = run_json(
        str(src), flags, "-f", "sum32", "-f", "LZ4_add32", "-f", "round32", "--inputs", "2000", *no_candidates(tmp_path)
    )
    sum32, add32, round32 = data["functions"]
    assert (sum32["name"], sum32["source_name"], add32["name"], add32["source_name"]) == (
        "LZ4_sum32",
        "sum32",
        "LZ4_add32",
        "add32",
    )
    for fn in (sum32, add32):
        assert fn["status"] == "done" and "generated inputs reach 100%" in fn["harness"], fn
    assert round32["detail"].startswith("inlined into LZ4_add32, LZ4_sum32:"), round32["detail"]
    assert any("a macro renames 2 function(s) (sum32 as LZ4_sum32, add32 as LZ4_add32)" in n for n in data["notes"])
    # the editor's replacement, asked for by the text's name: the -O3 code itself, rebuilt in the file
    asm = tmp_path / "same.s"
    asm.write_text(sum32["baseline"]["assembly"])
    p = supercoder("replace", str(src), "-f", "sum32", "--assembly", str(asm), flags, "--json", "--inputs", "2000")
    rep = json.loads(p.stdout)
    assert p.returncode != 0 and rep["ok"] and not rep["faster"], (p.stderr, rep)


def test_the_limits_are_one_line_after_a_claim_and_listed_on_request(table):
    """The answer comes first: the limits are one line under the table, and `supercoder limits` (or --explain)
    lists each one."""
    from supercoder_lsp.verify import LIMITS

    p = supercoder("limits")
    assert p.returncode == 0, p.stderr
    items = [ln for ln in p.stdout.splitlines() if ln.startswith("- ")]
    assert len(items) == len(LIMITS) and items[0].startswith("- verified by testing, not proof")
    short, cache = table
    assert "x faster (95% CI" in short.stdout and "`supercoder limits` or --explain" in short.stdout
    assert "memory no object owns" not in short.stdout
    assert len(short.stdout.splitlines()) <= 30, short.stdout
    full = supercoder(*TABLE_ARGS, "--explain", cache=cache)  # the cached verdicts, explained
    assert "memory no object owns" in full.stdout
