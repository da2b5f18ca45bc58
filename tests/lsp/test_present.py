"""What the editor shows for a result: thresholds and the hint settings."""

from __future__ import annotations

from lsprotocol import types

from supercoder_lsp.lsp import present
from supercoder_lsp.lsp.settings import Settings, resolve
from supercoder_lsp.model import CandidateResult, FunctionResult, SourceChange, Timing
from supercoder_lsp.serialize import function_from_json, function_to_json

TEXT = "int f(int x) {\n    return x;\n}\nint g(int y) {\n    return y;\n}\n"


def result(name: str, sp: float | None) -> FunctionResult:
    """A function's result as the server holds it: sent by the worker in the JSON form, decoded."""

    def timing(x: float) -> Timing:
        return Timing("interleaved", x, (x - 0.1, x + 0.1), (0.98, 1.02), x > 1.1, [], {}, f"{x:.2f}x")

    cands = [
        CandidateResult("c1", "x", "rejected", "wrong-output", "f(x=1): expected 1, got 2", ""),
        CandidateResult("c2", "x", "rejected", "not-faster", "no significant difference", "", timing=timing(0.98)),
    ]
    best = None
    if sp is not None:
        cands.append(
            CandidateResult(
                "c3",
                "x",
                "accepted",
                None,
                "",
                "f:\n\tret\n",
                features=["cmov"],
                inputs_checked=100252,
                timing=timing(sp),
            )
        )
        best = "c3"
    fn = FunctionResult(name, None, "int (int)", "done", "", 1.0, candidates=cands, best=best)
    data = function_to_json(fn)
    assert function_from_json(data) == fn  # the one JSON form round-trips
    return function_from_json(data)


def test_hint_only_where_a_verified_speedup_clears_the_threshold():
    s = Settings()
    diags = present.diagnostics(TEXT, {"f": result("f", 1.62), "g": result("g", 1.05)}, s)
    assert [d.message for d in diags] == ["1.62x faster (95% CI 1.52-1.72), uses cmov - verified on 100,252 inputs"]
    assert diags[0].range.start.line == 0


def test_explain_no_win_names_the_verdicts_and_only_when_nothing_won():
    s, problems = resolve({"hints": {"explainNoWin": True}}, None, None)
    assert not problems
    diags = present.diagnostics(TEXT, {"f": result("f", None), "g": result("g", 1.05)}, s)
    assert [(d.message, d.range.start.line) for d in diags] == [
        ("no faster verified candidate (2 tried: 1 wrong-output, 1 not-faster)", 0)
    ]


def test_a_candidate_that_could_not_be_timed_is_not_counted_as_no_faster():
    """lz4's LZ4F_decompress: every candidate passed the checks, and the original's own timing run crashed
    (it is called again on what its last call left). The hint said "8 not-faster", a claim about speed that
    no measurement made."""
    s, _ = resolve({"hints": {"explainNoWin": True}}, None, None)
    fn = result("f", None)
    fn.candidates[1].detail, fn.candidates[1].timing = "could not be timed: timing run failed at offset 0", None
    [d] = present.diagnostics(TEXT, {"f": fn}, s)
    assert d.message == "no faster verified candidate (2 tried: 1 wrong-output, 1 could not be timed)"


def test_while_candidates_are_tried_the_verdicts_so_far_show_and_say_more_are_coming():
    running = result("f", None)
    running.status = "running"
    [d] = present.diagnostics(TEXT, {"f": running}, Settings())
    assert d.message == "no faster verified candidate yet (2 tried: 1 wrong-output, 1 not-faster); trying more"
    assert d.data["final"] is False
    [done] = present.diagnostics(TEXT, {"f": result("f", None)}, Settings())
    assert done.data["final"] is True
    # a win found on the way is claimed at once (it was verified and timed)
    win = result("f", 1.62)
    win.status = "running"
    [claim] = present.diagnostics(TEXT, {"f": win}, Settings())
    assert claim.code == "speedup" and claim.message.startswith("1.62x faster")
    # ... and while a proof that may refute it runs, it says so, and nothing offers to edit the code until it ends
    win.candidates[-1].proving = True
    data = function_to_json(win)
    assert function_from_json(data) == win  # the worker sends it so
    [proving] = present.diagnostics(TEXT, {"f": function_from_json(data)}, Settings())
    assert proving.code == "speedup" and proving.message == (
        "1.62x faster (95% CI 1.52-1.72), uses cmov - verified on 100,252 inputs; proving it equal on every input..."
    )
    win.candidates[-1].source_change = SourceChange("attribute", '__attribute__((target("popcnt")))', "popcnt")
    whole = types.Range(types.Position(0, 0), types.Position(0, 0))
    waiting = present.code_actions("file:///x.c", 1, TEXT, {"f": win}, Settings(), whole)
    edits = [a for a in waiting if a.title.startswith("Use ")]
    assert edits and all(a.edit is None and "waiting for the proof" in a.disabled.reason for a in edits)
    win.candidates[-1].proving = False
    [use] = [
        a
        for a in present.code_actions("file:///x.c", 1, TEXT, {"f": win}, Settings(), whole)
        if a.title.startswith("Use ")
    ]
    assert use.disabled is None and use.edit is not None


def test_each_kind_of_hint_can_be_switched_off():
    s, _ = resolve({"hints": {"diagnostics": False, "inlayHints": False, "codeLens": False}}, None, None)
    results = {"f": result("f", 2.0)}
    assert present.diagnostics(TEXT, results, s) == []
    assert present.code_lenses("file:///x.c", TEXT, results, s) == []
    from lsprotocol import types

    whole = types.Range(types.Position(0, 0), types.Position(10, 0))
    assert present.inlay_hints(TEXT, results, s, whole) == []
    assert present.inlay_hints(TEXT, results, Settings(), whole)[0].label == "2.00x faster, uses cmov"


def test_settings_precedence_project_file_wins(tmp_path):
    (tmp_path / ".supercoder.toml").write_text("[lsp]\nsamples = 3\n")
    s, problems = resolve({"samples": 5, "topFunctions": 2}, {"samples": 4}, tmp_path)
    assert (s.run.samples, s.run.top, problems) == (3, 2, [])


def test_model_proposer_settings_are_checked():
    s, problems = resolve({"proposers": ["openai", "compilers"]}, None, None)
    assert s.run.proposers == ("compilers",) and "needs 'baseUrl'" in problems[0]
    s, problems = resolve({"proposers": ["openai"], "baseUrl": "http://127.0.0.1:8000/v1", "model": "m"}, None, None)
    assert (s.run.proposers, problems) == (("openai",), [])
    s, problems = resolve({"baseUrl": "gpu-box:8000"}, None, None)
    assert "http(s) URL" in problems[0]


def test_inlay_hint_sits_right_after_the_signature_wherever_the_brace_is():
    from lsprotocol import types

    whole = types.Range(types.Position(0, 0), types.Position(20, 0))
    same_line = present.inlay_hints(TEXT, {"f": result("f", 2.0)}, Settings(), whole)[0].position
    assert (same_line.line, same_line.character) == (0, len("int f(int x)"))
    gnu = "unsigned h(unsigned a,\n           unsigned b)\n{\n    return a ^ b;\n}\n"  # brace on its own line
    own_line = present.inlay_hints(gnu, {"h": result("h", 2.0)}, Settings(), whole)[0].position
    assert (own_line.line, own_line.character) == (1, len("           unsigned b)"))


def test_the_old_name_of_the_hint_threshold_is_read_with_a_message():
    """minSpeedup meant a display threshold here and a significance threshold on the command line: renamed."""
    s, problems = resolve({"minSpeedup": 2.5}, None, None)
    assert s.hint_min_speedup == 2.5
    assert "'minSpeedup' is now 'hintMinSpeedup'" in problems[0] and "--min-speedup" in problems[0]


def test_a_function_that_could_not_be_optimized_says_why_by_default():
    """The README's table says every hint is on: a function without a harness is explained where it is,
    in its diagnostic and its hover, and a job that failed says so."""
    from lsprotocol import types

    fn = FunctionResult("f", None, "int (int)", "unsupported", "inlined into g: -O3 gave `f` no code of its own", 1.0)
    diags = present.diagnostics(TEXT, {"f": fn}, Settings(), errors={"g": "worker exited with 1\nout of memory"})
    by_code = {d.code: d for d in diags}
    assert by_code["no-win"].message == "not optimized (unsupported): inlined into g: -O3 gave `f` no code of its own"
    assert by_code["no-win"].severity == types.DiagnosticSeverity.Information
    assert by_code["job-failed"].message == "supercoder could not optimize g: out of memory"
    assert by_code["job-failed"].range.start.line == 3
    hover = present.hover(TEXT, {"f": fn}, types.Position(0, 4))
    assert hover is not None and "inlined into g" in hover.contents.value and "0 tried" not in hover.contents.value


def test_the_hover_says_where_the_inputs_came_from_and_how_much_they_ran():
    from lsprotocol import types

    fn = FunctionResult("f", None, "int (int)", "done", "no faster verified candidate", 1.0)
    fn.coverage = {"generated": 5801, "recorded": 17, "lines": 7, "percent": 100, "generated_percent": 29, "missed": []}
    hover = present.hover(TEXT, {"f": fn}, types.Position(0, 4))
    assert hover is not None
    assert (
        "inputs: 5,801 generated, 17 recorded from the program; they run 100% of its 7 lines (generated alone 29%)"
        in hover.contents.value
    )


def test_a_disabled_action_says_why_even_where_the_client_runs_it():
    """Neovim lists disabled actions; choosing one must tell the user why, not do nothing."""
    from supercoder_lsp.model import ReplacementCheck

    act = present.replace_action(
        "file:///x.c",
        1,
        TEXT,
        "f",
        result("f", 2.0),
        ReplacementCheck(False, False, "slower in the rebuilt file"),
        None,
    )
    assert act is not None and act.edit is None
    assert act.disabled is not None and act.disabled.reason.endswith("slower in the rebuilt file")
    assert act.command is not None and act.command.command == "supercoder.explain"
    assert "slower in the rebuilt file" in act.command.arguments[0]


def test_a_synthesized_body_is_offered_as_an_edit_of_the_c():
    fn = result("f", 2.5)
    best = fn.best_result()
    assert best is not None
    best.source_change = SourceChange(
        "body", '__attribute__((target_clones("popcnt", "default")))\n{\n    return x + 1;\n}', "synth"
    )
    rng = types.Range(types.Position(1, 0), types.Position(1, 0))
    [act] = [a for a in present.code_actions("file:///x.c", 1, TEXT, {"f": fn}, Settings(), rng) if "body" in a.title]
    assert act.title == "Replace the body with `return x + 1;` (2.50x)"
    new = act.edit.document_changes[0].edits[0].new_text
    assert new.startswith('__attribute__((target_clones("popcnt", "default")))\nint f(int x) {\n    return x + 1;\n}')
    assert new.endswith("int g(int y) {\n    return y;\n}\n")


def test_a_synthesized_body_for_an_inlined_helper_edits_the_helper():
    fn = result("g", 3.0)
    best = fn.best_result()
    assert best is not None
    best.source_change = SourceChange("body", "{\n    return x * 2;\n}", "synth helper", function="f")
    rng = types.Range(types.Position(5, 0), types.Position(5, 0))
    [act] = [a for a in present.code_actions("file:///x.c", 1, TEXT, {"g": fn}, Settings(), rng) if "body" in a.title]
    assert act.title == "Replace the body of f with `return x * 2;` (3.00x)"
    new = act.edit.document_changes[0].edits[0].new_text
    assert "int f(int x) {\n    return x * 2;\n}" in new and "int g(int y) {\n    return y;\n}" in new


def test_a_function_whose_job_has_no_verdict_yet_says_what_it_does():
    pending = {"f": "compilers: clang_O3", "g": "harness"}
    diags = present.diagnostics(TEXT, {"g": result("g", 1.62)}, Settings(), None, pending)
    assert [
        (d.code, d.message, d.range.start.line, d.data["final"] if d.code != "speedup" else None) for d in diags
    ] == [
        ("speedup", "1.62x faster (95% CI 1.52-1.72), uses cmov - verified on 100,252 inputs", 3, None),
        ("pending", "supercoder: optimizing f: compilers: clang_O3...", 0, False),  # g has its verdict: no line
    ]
    s, _ = resolve({"hints": {"explainNoWin": False}}, None, None)
    assert present.diagnostics(TEXT, {}, s, None, pending) == []  # the explanations are off
    failed = present.diagnostics(TEXT, {}, Settings(), {"f": "the worker exited with 1"}, {"f": "harness"})
    assert [d.code for d in failed] == ["job-failed"]
