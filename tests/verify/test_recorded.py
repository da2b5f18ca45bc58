"""Inputs from the program itself, and how much of the function the inputs run.

`blk_score` checks a 32-bit magic in its header first: random header contents never pass
it, so 5,000 generated inputs all take the error return and a candidate that is wrong in
the loop passes every one of them. gcov says so (its inputs run 2 of its 7 lines), and the
calls recorded from the program's own runs (its tests) reach the loop and catch it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.lsp.present import no_win_summary
from supercoder_lsp.model import RUNNING, BuildConfig
from supercoder_lsp.optimize.pipeline import Options, Pipeline

REC = FIXTURES / "verify" / "recorded"
BLOCKS = REC / "blocks"


def _candidates(tmp: Path, *variants: str) -> Path:
    """Rewrites written in C and compiled by gcc -O3: real compiler output, wrong on purpose."""
    cands = tmp / "cands" / "blk_score"
    cands.mkdir(parents=True)
    cfg = BuildConfig("gcc", ("-O3",), "test", str(BLOCKS))
    for v in variants:
        asm = build.compile_to_asm(BLOCKS / f"{v}.c", cfg, tmp / f"{v}.s")
        (cands / f"{v}.s").write_text(cut_function(asm, "blk_score").text)
    return tmp / "cands"


def _run(tmp: Path, tests: Path | None, path: Path = BLOCKS / "blocks.c", fn: str = "blk_score"):
    opts = Options(
        proposers=("replay",),
        candidates_dir=_candidates(tmp, "blocks_body_wrong", "blocks_check_wrong"),
        tests_dir=tests,
        functions=(fn,),
        n_random=5000,
        rounds=6,
        use_cache=False,
    )
    [res] = Pipeline(opts).run(path).functions
    return res, {c.label: c for c in res.candidates}


def test_inputs_that_reach_only_the_argument_check_verify_nothing(tmp_path):
    res, got = _run(tmp_path, None)
    assert res.coverage is not None and res.coverage["percent"] < 50, res.coverage
    assert res.coverage["recorded"] == 0
    assert "generated inputs reach 33% of its 6 lines (never run: lines 23-25, 27)" in res.harness, res.harness
    body = got["blocks_body_wrong"]
    # wrong in the loop, right on every generated input: not verified, and the report says why
    assert body.reason == "under-tested", (body.reason, body.detail)
    assert "never run: lines 23-25, 27" in body.detail and "--tests" in body.detail
    assert got["blocks_check_wrong"].reason == "wrong-output"
    assert "the inputs run only 33% of its lines: give the project's tests (--test-command auto), program tests" in (
        res.detail
    ), res.detail


def test_the_programs_recorded_calls_reach_the_loop_and_catch_the_wrong_candidate(tmp_path):
    res, got = _run(tmp_path, BLOCKS / "tests")
    assert "recorded from the program's own calls" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["recorded"] > 0
    assert res.coverage["percent"] == 100 and res.coverage["generated_percent"] < 50, res.coverage
    body = got["blocks_body_wrong"]
    assert body.reason == "wrong-output", (body.reason, body.detail)
    # the failing input is the program's own: the header as main builds it (check word 0x424c4b31 ^ 7,
    # version 1, seed 7), a 64-byte block
    assert "h={54, 75, 76, 66, 1, 0, 0, 0, 7, 0, 0, 0}" in body.detail and "(64 elements)" in body.detail, body.detail
    assert "never produced" not in body.detail


def test_a_candidate_wrong_only_where_the_program_never_goes_is_wrong_and_says_so(tmp_path):
    _, got = _run(tmp_path, BLOCKS / "tests")
    check = got["blocks_check_wrong"]
    assert check.reason == "wrong-output"
    assert "differs only on inputs the program never produced" in check.detail, check.detail
    # how it runs where the program goes: timed on the recorded calls, for a C change (no edit is offered)
    assert "on the program's own calls:" in check.detail and "timed on the 17 calls recorded" in check.detail


def _harness_only(src: Path, fn: str):
    """The function's harness with its program's tests recorded, no candidates."""
    opts = Options(
        proposers=(), tests_dir=src.parent / "tests", functions=(fn,), n_random=2000, rounds=6, use_cache=False
    )
    [res] = Pipeline(opts).run(src).functions
    return res


def test_a_length_that_is_not_the_buffers_is_never_read_past(tmp_path):
    """`budget` says 1000 while the buffer holds 16 bytes before an unmapped page: the recorder
    reads nothing past them (the program's tests still pass) and says why no call was kept."""
    res = _harness_only(REC / "short_len" / "short_len.c", "first_set")
    assert "not recorded: a buffer was shorter than its length parameter says" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["recorded"] == 0


STREAM = REC / "stream"


def _replay(tmp: Path, src: Path, fn: str, variants: tuple[str, ...], tests: Path | None, n_random: int):
    """`fn` of `src` with rewrites of it (C beside `src`, compiled by gcc -O3) as the candidates."""
    res = pipeline_on_rewrites(
        tmp, src, fn, *(src.parent / f"{v}.c" for v in variants), tests_dir=tests, n_random=n_random, rounds=6
    )
    return res, {c.label: c for c in res.candidates}


def _stream(tmp: Path, tests: Path | None):
    return _replay(
        tmp, STREAM / "stream.c", "pump", ("stream_body_wrong", "stream_ptr_wrong", "stream_locals"), tests, 3000
    )


def test_a_struct_is_replayed_with_the_state_its_pointers_reach(tmp_path):
    """`pump(stream *s)` checks `s->state->strm == s` first, as zlib's functions check their z_stream.
    The recorded calls bring the private state, its window and the buffers along, every pointer
    relocated into the copies (the state points back to the copied stream), and reach every line."""
    res, got = _stream(tmp_path, STREAM / "tests")
    assert res.coverage is not None and res.coverage["percent"] == 100 and res.coverage["recorded"] > 0, res.coverage
    assert "its struct's pointers were followed into up to" in res.harness, res.harness
    # wrong in the state it keeps behind the pointer: caught on the program's own call
    assert got["stream_body_wrong"].reason == "wrong-output", got["stream_body_wrong"].detail
    assert "never produced" not in got["stream_body_wrong"].detail
    # right bytes and counts, but `next_in` left where it started: where a pointer points is compared
    assert got["stream_ptr_wrong"].reason == "wrong-output", got["stream_ptr_wrong"].detail
    # the same function written another way passes every input, the deep recorded ones included
    locals_ = got["stream_locals"]
    assert locals_.reason in (None, "not-faster"), (locals_.reason, locals_.detail)
    m = re.search(r"([\d,]+) skipped", res.harness)  # generated states whose window is NULL crash the original
    skipped = int(m[1].replace(",", "")) if m else 0
    m = re.search(r"([\d,]+) generated inputs left out", res.harness)  # ... or run past their buffer
    skipped += int(m[1].replace(",", "")) if m else 0
    assert locals_.inputs_checked == res.coverage["generated"] + res.coverage["recorded"] - skipped, res.harness
    assert "timed on the" in locals_.detail and "calls recorded from the program" in locals_.detail


def test_without_the_programs_calls_generated_streams_reach_the_loop(tmp_path):
    """Generated streams had NULL pointers (15% of its lines, every candidate under-tested). Now their
    buffers and the private state's window point into a generated buffer: every line runs, and a
    rewrite that leaves `next_in` where it started is caught on generated inputs alone."""
    res, got = _stream(tmp_path, None)
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    assert got["stream_ptr_wrong"].reason == "wrong-output", got["stream_ptr_wrong"].detail
    assert got["stream_body_wrong"].reason == "wrong-output", got["stream_body_wrong"].detail


DRAIN = REC / "drain"


@pytest.mark.serial  # it claims a slowdown from timing: beside other tests the noise floor hid it
def test_each_timed_call_starts_from_the_programs_recorded_state(tmp_path):
    """`drain` assumes its stream has input, as zlib's inflate_fast does (`avail_in - 5`): on the state its
    last call left (avail_in 0) it runs past its buffer. Timed over and over on what the calls left, the
    original itself crashed ("timing run failed: -11", every candidate of inflate_fast unmeasured), or, where
    it does not crash, would be timed on states the program never had (an early return). Each timed call
    now starts from the recorded state: a rewrite that is right but busy-waits on every byte is timed, and
    found slower."""
    res, got = _replay(tmp_path, DRAIN / "drain.c", "drain", ("drain_slow",), DRAIN / "tests", 1000)
    assert res.coverage is not None and res.coverage["recorded"] > 0, res.harness
    slow = got["drain_slow"]
    assert slow.timing is not None, (slow.reason, slow.detail)
    assert "could not be timed" not in slow.detail, slow.detail
    assert slow.timing.detail.startswith("slower"), slow.timing.detail
    assert slow.timing.speedup < 0.2, slow.timing.detail
    assert "calls recorded from the program" in slow.timing.detail


def test_a_recorded_call_that_reaches_past_what_was_kept_is_left_out(tmp_path):
    """`data` points into 192 KiB; a recorded call keeps 64 KiB of it. The calls that read further
    depend on memory the replay does not have: they are left out and said so, the others count."""
    res = _harness_only(REC / "far" / "far.c", "peek")
    assert "recorded calls left out: they reach memory the recording did not keep" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["recorded"] >= 6, res.coverage
    assert res.coverage["percent"] == 100, res.coverage


def test_a_recorded_call_left_out_of_the_inputs_is_not_timed_either(tmp_path):
    """The call that reads past what was recorded is left out of the inputs checked, and of those timed:
    the timing driver read the verifier's list of inputs left out at the wrong place for recorded calls
    (its own count of random inputs, not the verifier's) and timed all 12."""
    res, got = _replay(tmp_path, REC / "far" / "far.c", "peek", ("far_o1",), REC / "far" / "tests", 2000)
    assert "1 recorded calls left out" in res.harness, res.harness
    same = got["far_o1"]
    assert same.timing is not None, (same.reason, same.detail)
    assert "timed on 11 of the 12 calls recorded from the program" in same.detail, same.detail


HIST = REC / "hist"


def _hist(tmp: Path, tests: Path | None):
    return _replay(tmp, HIST / "hist.c", "weigh", ("hist_wrong",), tests, 2000)


def test_generated_inputs_the_original_reads_past_are_left_out_where_the_programs_calls_run_whole(tmp_path):
    """`weigh` reads `n` bins of a 64-bin struct: a generated `n` sends it past the struct, so its
    result depends on what lies after it. Alone, that refuses the harness; with the program's
    calls (n <= 64, every one run whole) those are the domain: the generated inputs it reads past
    are left out and counted, and a rewrite wrong on the 48th bin and up is caught."""
    res, got = _hist(tmp_path, HIST / "tests")
    assert "generated inputs left out: the -O3 original's result on them depends on where" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["recorded"] > 0 and res.coverage["percent"] == 100
    # or a crash: gcc -O3 bounds the original's loop by the 64 bins (past them is undefined), not the rewrite's
    assert got["hist_wrong"].reason in ("wrong-output", "crash"), got["hist_wrong"].detail

    alone, _ = _hist(tmp_path / "alone", None)
    assert alone.status == "unsupported" and "depends on where its buffers lie" in alone.harness, alone.harness


LIB = REC / "lib"


def _frames(tmp: Path, programs: tuple[str, ...]):
    res = pipeline_on_rewrites(
        tmp, LIB / "frames.c", "frame_sum", LIB / "frames_wrong.c", programs=programs, n_random=2000, rounds=6
    )
    return res, {c.label: c for c in res.candidates}


def test_a_library_files_calls_are_recorded_in_the_other_programs_that_call_it(tmp_path):
    """frames.c has no main; driver.c calls it. Generated frames never carry the magic number, so
    alone a wrong rewrite is under-tested; with the driver as a --program (its object: the file's
    code is linked in) its calls are recorded and replayed, reach the loop and catch it. A program
    that does not link is said and the others still count."""
    driver = tmp_path / "driver.o"
    build.run_tool(["gcc", "-O2", "-c", str(LIB / "driver.c"), "-o", str(driver)], "compile the driver")
    res, got = _frames(tmp_path / "with", (str(driver), str(tmp_path / "missing.o")))
    assert res.coverage is not None and res.coverage["recorded"] > 0, res.harness
    assert res.coverage["generated_percent"] < 70 <= res.coverage["percent"], res.coverage
    assert "program missing.o: does not link" in res.harness, res.harness
    assert got["frames_wrong"].reason == "wrong-output", got["frames_wrong"].detail

    alone, got = _frames(tmp_path / "alone", ())
    assert alone.coverage is not None and alone.coverage["recorded"] == 0
    assert got["frames_wrong"].reason == "under-tested", got["frames_wrong"].detail


@pytest.mark.serial  # its inputs' time limits decide what is left out: flaky beside other tests on two cores
def test_where_the_original_writes_above_its_frame_those_generated_inputs_are_left_out(tmp_path):
    """`spread` counts lengths in a local array of 16, as inflate_table does: a generated length of
    40,000 writes 80 KB above it. It used to write into the harness's own frames and break it, so only
    the program's calls could be checked; now the call's stack ends in a guard, those inputs crash (or
    break the calling convention) and are left out, and the rest are checked: generated inputs with
    short lengths and the program's calls. A rewrite that drops the count of length 15 is caught with
    the program's calls and without them."""
    tally = REC / "tally"
    res, got = _replay(tmp_path / "with", tally / "tally.c", "spread", ("tally_wrong",), tally / "tests", 2000)
    assert "breaks the harness itself" not in res.harness, res.harness
    assert "skipped: the -O3 original crashes or runs out of time on them" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["recorded"] > 0 and res.coverage["percent"] == 100
    assert got["tally_wrong"].reason == "wrong-output", got["tally_wrong"].detail

    alone, got = _replay(tmp_path / "alone", tally / "tally.c", "spread", ("tally_wrong",), None, 2000)
    assert alone.status == "done" and alone.coverage and alone.coverage["generated_percent"] == 100, alone.harness
    assert got["tally_wrong"].reason == "wrong-output", got["tally_wrong"].detail


def test_a_pointer_the_function_moves_is_replayed_and_where_it_is_left_is_compared(tmp_path):
    """`take(const char **cur)` reads a number at *cur and leaves *cur after it, as inflate_table moves
    `*table`. Generated inputs hold NULL there, or a place in a buffer of random bytes; the program's
    calls bring the line it points into, and a
    rewrite that returns the right number but leaves *cur one short is caught by where it points."""
    cursor = REC / "cursor"
    res, got = _replay(tmp_path, cursor / "cursor.c", "take", ("cursor_wrong",), cursor / "tests", 2000)
    assert (
        "cur: one char * (NULL, or into one 64 KiB buffer, or where the program's call had it point)" in res.harness
    ), res.harness
    assert res.coverage is not None and res.coverage["recorded"] > 0 and res.coverage["percent"] == 100
    wrong = got["cursor_wrong"]
    assert wrong.reason == "wrong-output" and "as the original does, but what it leaves in memory" in wrong.detail


def test_an_argument_the_program_passed_into_another_ones_memory_is_replayed_there(tmp_path):
    """The program calls bump(&t, &t.hist[k]), as zlib's send_tree gets s->dyn_ltree beside s. Replayed
    with `slot` in a buffer of its own, a rewrite that reads hist[0] before writing *slot would look the
    same; replayed inside the tally's copy, as in the program, it is caught on the harness's own calls."""
    alias = REC / "alias"
    res, got = _replay(tmp_path, alias / "alias.c", "bump", ("alias_early",), alias / "tests", 2000)
    assert res.coverage is not None and res.coverage["recorded"] > 0, res.harness
    early = got["alias_early"]
    assert early.reason == "wrong-output" and early.detail.startswith("bump(t="), early.detail


def test_the_editor_is_told_at_once_that_under_tested_inputs_can_claim_no_speedup(tmp_path):
    """No candidate can be claimed faster where the inputs run too few lines (Judge._covered): the editor's
    first result says why before the first candidate has been checked, not after."""
    updates: list = []
    opts = Options(
        proposers=("replay",),
        candidates_dir=_candidates(tmp_path, "blocks_body_wrong", "blocks_check_wrong"),
        functions=("blk_score",),
        n_random=5000,
        rounds=6,
        use_cache=False,
    )
    [res] = Pipeline(opts, on_update=updates.append).run(BLOCKS / "blocks.c").functions
    first = updates[0]
    assert first.status == RUNNING and not first.candidates and first.best is None
    shown = no_win_summary(first)
    assert shown.startswith("no speedup can be claimed: its harness's inputs run only 33% of its 6 lines"), shown
    assert "--workload" in shown
    assert {c.reason for c in res.candidates} == {"under-tested", "wrong-output"}  # still checked


def test_a_probe_that_grows_nothing_does_not_build_the_same_failing_harness_again(tmp_path, monkeypatch):
    """Where the original's results depend on where its buffers lie, the struct's size is probed; where the
    probe finds the size the types gave (inflate_fast's z_stream), the harness would be the same and fail the
    same way (45 s of its first run and self-check again): it is not built again."""
    from supercoder_lsp.optimize import function_setup, pipeline

    built: list = []
    real = function_setup.build_harness
    monkeypatch.setattr(function_setup, "build_harness", lambda *a, **k: built.append(a[2]) or real(*a, **k))
    monkeypatch.setattr(function_setup, "probe_past_types", lambda plan: plan)  # the probe below grows nothing
    monkeypatch.setattr(pipeline.Pipeline, "_probed", lambda self, ctx, fn, plan, base_obj, fdir: plan)
    alone, _ = _hist(tmp_path, None)
    assert alone.status == "unsupported" and "depends on where its buffers lie" in alone.harness, alone.harness
    assert len(built) == 1, built


def test_a_parameter_inside_another_stays_inside_it_while_timed(tmp_path):
    """`bump(&t, &t.hist[k])`: replayed with `slot` inside the tally's copy, as the program had it, in the
    timing driver too (zlib's send_tree reads one past its `tree`, inside `s`: a separate copy of the tree
    read heap bytes instead, and the original's own copies disagreed). A rewrite slow only where `slot` is
    hist[0] is timed slower; with a separate copy of `slot` it looked as fast."""
    alias = REC / "alias"
    res, got = _replay(tmp_path, alias / "alias.c", "bump", ("alias_busy",), alias / "tests", 2000)
    busy = got["alias_busy"]
    assert busy.timing is not None, (busy.reason, busy.detail)
    assert busy.timing.speedup < 0.5, busy.timing.detail


def test_a_win_timed_on_the_programs_recorded_calls_is_claimed(tmp_path):
    """Generated streams leave `msg` NULL, so a speedup timed on them may say little; timed on the
    program's own recorded calls it says how the function runs there. A rewrite that divides only where
    the window wraps was refused "on generated inputs only" although it was timed on the 13 recorded calls
    (zlib's send_tree: clang -O3's 1.19x on its own programs' calls, refused so)."""
    res, got = _replay(tmp_path, DRAIN / "drain.c", "drain", ("drain_fast",), DRAIN / "tests", 1000)
    fast = got["drain_fast"]
    assert fast.timing is not None, (fast.reason, fast.detail)
    assert "on generated inputs only" not in fast.detail, fast.detail
    assert "calls recorded from the program" in fast.detail and fast.timing.speedup > 1.3, fast.detail
    if fast.timing.significant:  # this machine's noise can hide it; where it does not, it is claimed
        assert fast.reason is None and res.best == "drain_fast", fast.detail
