"""In the editor (the pipeline's on_update), where the -O3 original is slow on the generated inputs, the
first candidates are checked on a harness of the first inputs before the original has run on the rest
(first_look.py): a wrong one shows at once, and that verdict stands; a right one waits for the whole harness."""

from __future__ import annotations

import re
from types import SimpleNamespace

from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.harness.contract import TIMED_OUT
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.optimize.pipeline import Options, Pipeline
from supercoder_lsp.verify import early_look, function_check, harness_runs
from supercoder_lsp.verify.records import Records
from supercoder_lsp.verify.sandbox import RunResult

BUDGET = FIXTURES / "verify" / "budget"


def _run(tmp, monkeypatch, *, editor: bool, src=BUDGET / "slow.c", tests=None, names=("slow_same", "slow_wrong")):
    # the first 2,000 inputs, however fast the original is on them (zlib's deflate_fast takes 30 s for
    # the whole harness; this fixture a second)
    monkeypatch.setattr(early_look, "FIRST_LOOK", 2000)
    monkeypatch.setattr(early_look, "FIRST_LOOK_SECONDS", 0.0)
    cands = tmp / "cands" / "slow_mix"
    cands.mkdir(parents=True)
    cfg = BuildConfig("gcc", ("-O3",), "test", str(BUDGET))
    for name in names:
        asm = build.compile_to_asm(BUDGET / f"{name}.c", cfg, tmp / f"{name}.s")
        (cands / f"{name}.s").write_text(cut_function(asm, "slow_mix").text)
    opts = Options(
        proposers=("replay",),
        candidates_dir=tmp / "cands",
        functions=("slow_mix",),
        tests_dir=tests,
        n_random=6000,
        use_cache=False,
        proof_budget=0,
        rounds=4,
    )
    updates: list = []
    stages: list[str] = []

    def progress(fn: str, stage: str, step=None, steps=None) -> None:
        stages.append(stage)

    pipe = Pipeline(opts, progress, on_update=updates.append if editor else None)
    [res] = pipe.run(src).functions
    return res, updates, stages


def test_a_wrong_candidate_shows_before_the_original_has_run_on_every_input(tmp_path, monkeypatch):
    res, updates, stages = _run(tmp_path, monkeypatch, editor=True, names=("slow_wrong",))
    looks = [s for s in stages if s.startswith("first look")]
    assert len(looks) == 1 and re.fullmatch(r"first look: slow_wrong on [\d,]+ inputs", looks[0]), looks
    first = updates[0]
    # wrong on x % 64 == 37, which the first inputs hold
    assert [(c.label, c.reason) for c in first.candidates] == [("slow_wrong", "wrong-output")]
    assert first.harness == ""  # sent before the whole harness was described
    assert "slow_mix(x=" in first.candidates[0].detail and "expected" in first.candidates[0].detail
    [late] = res.candidates
    assert late.reason == "wrong-output" and late.detail == first.candidates[0].detail  # the verdict stands


def test_a_candidate_no_faster_on_the_first_inputs_shows_and_is_then_checked_on_every_input(tmp_path, monkeypatch):
    """Right, and twice as slow: the first pass of its timing on the first random inputs the original
    finishes (those the round times too) shows it no faster at once; the round checks it on every input
    and keeps that timing (gz_comp's first verdict: a whole run of the original, its self-check and
    coverage, then every input's check, before it)."""
    res, updates, stages = _run(tmp_path, monkeypatch, editor=True, names=("slow_slower",))
    [early] = updates[0].candidates
    assert early.reason == "not-faster" and "timing stopped after 1 of" in early.detail, early.detail
    assert updates[0].harness == ""
    [late] = res.candidates
    assert late.reason == "not-faster" and late.inputs_checked > 6000, (late.reason, late.inputs_checked)
    assert late.detail == early.detail and "measure" not in late.stage_seconds, late.stage_seconds


def test_where_the_program_made_calls_the_first_look_is_on_them_alone_and_its_verdicts_are_judged_again(
    tmp_path, monkeypatch
):
    """inflate_fast: the original's runs over the generated inputs beside its 11 recorded calls took 38 s
    before any verdict (its generated inputs alone are refused where they move, which the whole harness
    leaves out). The first look checks and times the first candidates on the recorded calls alone: one no
    faster there shows at once. The round judges it again with the whole harness: a candidate right on
    every call the program made and wrong on a generated input ends wrong, not as the first look said."""
    prog = BUDGET / "slowprog"
    res, updates, stages = _run(
        tmp_path, monkeypatch, editor=True, src=prog / "slow.c", tests=prog / "tests", names=("slow_slower_wrong",)
    )
    assert "recorded from the program" in res.harness, res.harness
    assert [s for s in stages if s.startswith("first look")] == [
        "first look: slow_slower_wrong on the program's 5 recorded calls"
    ]
    first = updates[0]
    assert first.harness == ""  # sent before the whole harness was described
    [early] = first.candidates
    assert early.reason == "not-faster" and "calls recorded from the program" in early.detail, early.detail
    [late] = res.candidates
    assert late.reason == "wrong-output" and "slow_mix(x=" in late.detail, late.detail
    assert "differs only on inputs the program never produced" in late.detail


def test_a_candidate_the_first_look_timed_no_faster_is_checked_on_every_input_and_not_timed_again(
    tmp_path, monkeypatch
):
    """The first pass of its timing on the program's calls showed it no faster; the round checks it on the
    whole harness and keeps that timing (inflate: a second timing cost 2 s a candidate)."""
    prog = BUDGET / "slowprog"
    res, updates, stages = _run(
        tmp_path, monkeypatch, editor=True, src=prog / "slow.c", tests=prog / "tests", names=("slow_slower",)
    )
    [early] = updates[0].candidates
    assert early.reason == "not-faster" and "calls recorded from the program" in early.detail, early.detail
    [late] = res.candidates
    assert late.reason == "not-faster" and late.inputs_checked > 2000, (late.reason, late.inputs_checked)
    assert late.detail == early.detail and "measure" not in late.stage_seconds, late.stage_seconds


def test_a_candidate_wrong_on_a_call_the_program_made_shows_in_the_first_look(tmp_path, monkeypatch):
    prog = BUDGET / "slowprog"
    res, updates, stages = _run(
        tmp_path, monkeypatch, editor=True, src=prog / "slow.c", tests=prog / "tests", names=("slow_wrong",)
    )
    [early] = updates[0].candidates  # wrong where x % 64 == 37: on the program's call slow_mix(37)
    assert early.reason == "wrong-output" and "slow_mix(x=37)" in early.detail, early.detail
    assert updates[0].harness == ""
    [late] = res.candidates
    assert late.reason == "wrong-output", late.detail  # judged again: the whole harness says so too


def test_the_command_line_has_no_first_look(tmp_path, monkeypatch):
    res, _, stages = _run(tmp_path, monkeypatch, editor=False)
    by = {c.label: c for c in res.candidates}
    assert by["slow_wrong"].reason == "wrong-output"
    assert not [s for s in stages if s.startswith("first look")], stages


def test_inputs_out_of_time_in_the_taste_count_as_the_whole_first_run_will_give_them(monkeypatch):
    """deflate_fast: one generated input in sixty loops for ever. The taste (2,000 inputs, 0.18 s) gave each
    of those the first run's floor (4 ms); the whole first run gives them up to 20 ms, and the runs after it
    none: told from the taste's seconds alone, its three runs were 13.6 s (no first look, the first result
    came at 25 s); counted, they are over the 15 s that calls for one."""
    monkeypatch.setattr(harness_runs.os, "sched_getaffinity", lambda pid: {0, 1})
    harness = SimpleNamespace(total=100_717)
    looping = [TIMED_OUT if i % 60 == 0 else 0 for i in range(2000)]
    taste = Records(looping, [], b"", RunResult(0, b"", "", False, 0.18))
    assert function_check.FunctionHarness._three_runs(harness, taste) > 15
    quick = Records([0] * 2000, [], b"", RunResult(0, b"", "", False, 0.18))
    assert function_check.FunctionHarness._three_runs(harness, quick) < 15


def test_a_first_looks_verdict_stands_only_where_the_whole_harness_links_the_same_objects(tmp_path):
    """The first look may run on the function linked alone, its whole harness on the file's objects (the
    alone one failed): the file's globals then differ, and a verdict from the first look is judged again."""
    from supercoder_lsp.harness.plan import make_plan
    from supercoder_lsp.source import parse_functions

    src = FIXTURES / "verify" / "popcount.c"
    fn = next(f for f in parse_functions(src.read_text()) if f.name == "popcount")
    plan = make_plan(fn.signature)
    obj = tmp_path / "rest.o"
    build.assemble("\t.data\n\t.globl g\ng:\n\t.quad 1\n", obj)
    alone = function_check.FunctionHarness(tmp_path / "a", "popcount", plan)
    with_file = function_check.FunctionHarness(tmp_path / "b", "popcount", plan, support_objs=(obj,))
    assert with_file.same_inputs(with_file) and alone.same_inputs(alone)
    assert not with_file.same_inputs(alone) and not alone.same_inputs(with_file)
    other_seed = function_check.FunctionHarness(tmp_path / "c", "popcount", plan, seed=7)
    assert not alone.same_inputs(other_seed)


def test_a_candidate_the_first_look_passes_and_may_be_faster_ends_it(tmp_path, monkeypatch):
    """The first look's first candidate is right and its first timing pass does not show it no faster: only
    the whole harness can show it faster, so that one is prepared at once; the second candidate (wrong) is
    not looked at first, and is refused by the whole harness."""
    monkeypatch.setattr(early_look, "FIRST_LOOK", 2000)
    monkeypatch.setattr(early_look, "FIRST_LOOK_SECONDS", 0.0)
    cands = tmp_path / "cands" / "popcount"
    cands.mkdir(parents=True)
    swar = FIXTURES / "lsp" / "cands" / "popcount" / "swar.s"
    (cands / "a_swar.s").write_text(swar.read_text())
    (cands / "b_zero.s").write_text(
        "\t.text\n\t.globl\tpopcount\n\t.type\tpopcount, @function\npopcount:\n\txorl\t%eax, %eax\n\tret\n"
        "\t.size\tpopcount, .-popcount\n"
    )
    opts = Options(
        proposers=("replay",),
        candidates_dir=tmp_path / "cands",
        functions=("popcount",),
        n_random=6000,
        use_cache=False,
        proof_budget=0,
    )
    stages: list[str] = []
    pipe = Pipeline(opts, lambda fn, stage, step=None, steps=None: stages.append(stage), on_update=lambda r: None)
    [res] = pipe.run(FIXTURES / "lsp" / "popcount.c").functions
    assert [s.split(" on ")[0] for s in stages if s.startswith("first look")] == ["first look: a_swar"], stages
    by = {c.label: c for c in res.candidates}
    assert by["a_swar"].status == "accepted", by["a_swar"].detail
    assert by["b_zero"].reason == "wrong-output", by["b_zero"].detail
