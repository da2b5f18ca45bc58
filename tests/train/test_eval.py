"""`supercoder eval` and `supercoder export` as a user runs them, on the fixture datasets whose verdicts
are known (tests/fixtures/train/make_rows.py says how each answer was made)."""

import json
import shutil
import statistics
from pathlib import Path

import pytest
from support import FIXTURES, supercoder

from supercoder_lsp.asm.features import cpu_flags
from supercoder_lsp.train.problems import load

TRAIN = FIXTURES / "train"
HAS_POPCNT = "popcnt" in cpu_flags()


def _eval(*args: str, state: Path) -> dict:
    p = supercoder("eval", *args, "--state", str(state), "--json")
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def rows_report(tmp_path_factory):
    state = tmp_path_factory.mktemp("eval-state")
    rep = _eval(str(TRAIN / "rows.jsonl"), "--candidates", str(TRAIN / "answers"), state=state)
    return rep, state


@pytest.mark.serial  # the rows' checks have per-input time limits: beside other tests on two cores, a -O1 rewrite once timed out
def test_rows_with_replay_give_the_known_rates_and_verdicts(rows_report):
    rep, _ = rows_report
    s = rep["summary"]
    assert (s["problems"], s["samples"]) == (2, 8)
    assert s["compile_rate"] == 5 / 8  # broken (does not assemble), unsafe (syscall), noasm (no assembly)
    assert s["correct_rate"] == 4 / 8  # the baselines themselves, popcnt, -O1
    verdicts = {(x["problem"], x["label"]): (x["compiled"], x["correct"], x["reason"]) for x in rep["samples"]}
    assert verdicts == {
        ("bitcount", "replay-identical"): (True, True, None),
        ("bitcount", "replay-popcnt"): (True, True, None) if HAS_POPCNT else (True, False, "unsupported-cpu"),
        ("bitcount", "replay-unsafe"): (False, False, "unsafe"),
        ("bitcount", "replay-broken"): (False, False, "assemble-error"),
        ("sumsq", "replay-identical"): (True, True, None),
        ("sumsq", "replay-o1"): (True, True, None),
        ("sumsq", "replay-wrong"): (True, False, "wrong-output"),
        ("sumsq", "replay-noasm"): (False, False, "unusable"),
    }
    by = {r["problem"]: r for r in rep["problems"]}
    assert (by["bitcount"]["compiled"], by["bitcount"]["correct"]) == (2, 2 if HAS_POPCNT else 1)
    if HAS_POPCNT:  # a loop of up to 64 steps against one instruction, on 3M words: far beyond the noise
        assert by["bitcount"]["best"] == "replay-popcnt" and by["bitcount"]["significant"]
        assert by["bitcount"]["speedup"] > 2 and by["bitcount"]["paper_speedup"] == by["bitcount"]["speedup"]


@pytest.mark.serial  # the rows' checks have per-input time limits: beside other tests on two cores, a -O1 rewrite once timed out
def test_percentiles_agree_with_the_per_problem_speedups_of_the_same_report(rows_report):
    rep, _ = rows_report
    ours = [r["speedup"] for r in rep["problems"] if r["speedup"] is not None]
    paper = [r["paper_speedup"] for r in rep["problems"]]
    for conv, xs in (("ours", ours), ("paper", paper)):
        m = rep["summary"][conv]
        assert m["n"] == len(xs)
        assert m["p50"] == pytest.approx(statistics.median(xs))
        assert m["max"] == pytest.approx(max(xs)) and m["mean"] == pytest.approx(statistics.fmean(xs))
        q = statistics.quantiles(xs, n=4, method="inclusive")
        assert (m["p25"], m["p75"]) == (pytest.approx(q[0]), pytest.approx(q[2]))
    assert all(p >= 1.0 for p in paper)  # the paper's convention floors; ours does not
    assert rep["summary"]["ours"]["slower"] == sum(1 for x in ours if x < 1)


@pytest.mark.serial  # the rows' checks have per-input time limits: beside other tests on two cores, a -O1 rewrite once timed out
def test_an_interrupted_run_goes_on_from_its_state(rows_report, tmp_path):
    rep, state = rows_report
    resumed = tmp_path / "state"
    shutil.copytree(state, resumed)
    kept = resumed / "sumsq" / "replay-wrong.json"
    d = json.loads(kept.read_text())
    d["detail"] = "measured before the interruption"
    kept.write_text(json.dumps(d))
    (resumed / "bitcount" / "replay-broken.json").unlink()  # not reached before the interruption
    again = _eval(str(TRAIN / "rows.jsonl"), "--candidates", str(TRAIN / "answers"), "--no-timing", state=resumed)
    samples = {(x["problem"], x["label"]): x for x in again["samples"]}
    assert samples[("sumsq", "replay-wrong")]["detail"] == "measured before the interruption"  # not run again
    assert samples[("bitcount", "replay-broken")]["reason"] == "assemble-error"  # run now
    assert again["summary"]["compile_rate"] == rep["summary"]["compile_rate"]


@pytest.mark.serial  # the rows' checks have per-input time limits: beside other tests on two cores, a -O1 rewrite once timed out
def test_export_then_eval_gives_the_same_verdicts(rows_report, tmp_path):
    rep, state = rows_report
    report = tmp_path / "report.json"
    report.write_text(json.dumps(rep))
    rl, sft = tmp_path / "rl.jsonl", tmp_path / "sft.jsonl"
    for fmt, out in (("rl", rl), ("sft", sft)):
        p = supercoder("export", str(report), "--format", fmt, "-o", str(out))
        assert p.returncode == 0, p.stderr
    exported = load(rl)
    original = {p.id: p for p in load(TRAIN / "rows.jsonl")}
    assert {p.id for p in exported} == set(original)
    for p in exported:  # the same problem: tests and the -O3 baseline as the dataset has them
        assert p.tests == original[p.id].tests and p.baseline_asm == original[p.id].baseline_asm
    rows = [json.loads(ln) for ln in sft.read_text().splitlines()]
    if not HAS_POPCNT:
        assert rows == []
        return
    # a row for each problem whose best answer is significantly faster (popcnt; -O1 on sumsq only if its
    # small difference was beyond the noise of this run)
    significant = [r["problem"] for r in rep["problems"] if r["significant"]]
    assert [r["extra_info"]["problem_id"] for r in rows] == significant and "bitcount" in significant
    rows = [r for r in rows if r["extra_info"]["problem_id"] == "bitcount"]
    assert rows[0]["completion"][0]["role"] == "assistant" and rows[0]["speedup"] > 2
    # the exported answer, evaluated again as a replay answer of the exported rows: the same verdict
    cands = tmp_path / "cands" / "bitcount"
    cands.mkdir(parents=True)
    (cands / "best.s").write_text(rows[0]["completion"][0]["content"])
    again = _eval(str(sft), "--candidates", str(tmp_path / "cands"), "--no-timing", state=tmp_path / "s2")
    [s] = again["samples"]
    best = next(x for x in rep["samples"] if x["label"] == "replay-popcnt")
    assert (s["compiled"], s["correct"], s["reason"]) == (best["compiled"], best["correct"], best["reason"])


def _replay_rows(rows: Path, answers: dict[str, dict[str, str]], tmp: Path) -> dict:
    """eval of exported rows with the given answers (problem -> name -> text) as replay answers."""
    for pid, named in answers.items():
        d = tmp / "cands" / pid.replace(":", "_")
        d.mkdir(parents=True, exist_ok=True)
        for name, text in named.items():
            (d / f"{name}.s").write_text(text)
    return _eval(str(rows), "-p", "replay", "--candidates", str(tmp / "cands"), "--no-timing", state=tmp / "s2")


def test_programs_folder_through_the_pipeline(tmp_path):
    rep = _eval(
        str(TRAIN / "programs"), "-p", "replay", "--candidates", str(TRAIN / "answers-programs"), state=tmp_path,
    )  # fmt: skip
    got = {x["label"]: (x["compiled"], x["correct"], x["reason"]) for x in rep["samples"]}
    assert got["broken"] == (False, False, "assemble-error")
    assert got["wrong"] == (True, False, "wrong-output")  # popcntl: the upper 32 bits are lost
    if HAS_POPCNT:
        assert got["popcnt"] == (True, True, None)
        [row] = rep["problems"]
        assert row["significant"] and row["speedup"] > 2 and "inputs" in row["level"]
    # exported, a program is a whole-program row whose answer is the function: the same verdicts again
    report, rl = tmp_path / "report.json", tmp_path / "rl.jsonl"
    report.write_text(json.dumps(rep))
    p = supercoder("export", str(report), "--format", "rl", "-o", str(rl))
    assert p.returncode == 0, p.stderr
    [row] = [json.loads(ln) for ln in rl.read_text().splitlines()]
    assert row["extra_info"]["function"] == "ones" and "ones:" in row["prompt"][0]["content"]
    answers = {n: (TRAIN / "answers-programs" / "ones" / f"{n}.s").read_text() for n in ("broken", "wrong", "popcnt")}
    again = _replay_rows(rl, {"ones": answers}, tmp_path)
    assert {
        x["label"].removeprefix("replay-"): (x["compiled"], x["correct"], x["reason"]) for x in again["samples"]
    } == got


def test_optimize_results_export_as_rows_that_eval_and_the_reward_verify(tmp_path):
    """`optimize --tests -o` on a program, then export: the best verified answer is a row's completion; eval of
    the rows and the reward give it the verdict optimize gave, and a wrong answer 0."""
    from supercoder_lsp.train.reward import compute_score

    prog = tmp_path / "ones.c"
    shutil.copy(TRAIN / "programs" / "ones" / "prog.c", prog)
    tests, report = TRAIN / "programs" / "ones" / "tests", tmp_path / "opt.json"
    p = supercoder(
        "optimize", str(prog), "--tests", str(tests), "-p", "replay", "--candidates", str(TRAIN / "answers-programs"),
        "--no-cache", "--proof-budget", "1", "-o", str(report), "--json",
    )  # fmt: skip
    assert p.returncode in (0, 5), p.stderr[-3000:]
    sft, rl = tmp_path / "sft.jsonl", tmp_path / "rl.jsonl"
    for fmt, out in (("sft", sft), ("rl", rl)):
        p = supercoder("export", str(report), "--format", fmt, "-o", str(out))
        assert p.returncode == 0, p.stderr
    [row] = [json.loads(ln) for ln in rl.read_text().splitlines()]
    info = row["extra_info"]
    assert (info["problem_id"], info["function"], len(info["inputs"])) == ("ones:ones", "ones", 3)
    wrong = (TRAIN / "answers-programs" / "ones" / "wrong.s").read_text()
    truth = row["reward_model"]["ground_truth"]
    assert compute_score(row["data_source"], f"```assembly\n{wrong}\n```", truth, info) == 0.0
    sft_rows = [json.loads(ln) for ln in sft.read_text().splitlines()]
    if not HAS_POPCNT:
        assert sft_rows == []
        return
    [best] = sft_rows
    assert best["speedup"] > 2 and "popcnt" in best["completion"][0]["content"]
    again = _replay_rows(sft, {"ones:ones": {"best": best["completion"][0]["content"], "wrong": wrong}}, tmp_path)
    verdicts = {x["label"]: (x["correct"], x["reason"]) for x in again["samples"]}
    assert verdicts == {"replay-best": (True, None), "replay-wrong": (False, "wrong-output")}
    assert compute_score(row["data_source"], best["completion"][0]["content"], truth, info, design="graded") >= 1.0
    # the file changed since: export says so instead of writing rows for code that no longer exists
    prog.write_text(prog.read_text() + "\n/* edited */\n")
    p = supercoder("export", str(report), "-o", str(tmp_path / "x.jsonl"))
    assert p.returncode == 2 and "changed since the report" in p.stderr


def test_an_optimize_report_without_program_tests_is_named_not_exported(tmp_path):
    report = tmp_path / "opt.json"
    p = supercoder("optimize", str(TRAIN / "src" / "bitcount.c"), "-p", "compilers", "--no-cache", "-o", str(report),
                   "--json")  # fmt: skip
    assert p.returncode in (0, 5), p.stderr[-3000:]
    p = supercoder("export", str(report), "-o", str(tmp_path / "rows.jsonl"))
    assert p.returncode == 0 and "wrote 0 sft rows" in p.stdout
    assert "a row is a whole program with its tests" in p.stderr and "--tests DIR" in p.stderr


def test_bad_dataset_says_what_it_needs(tmp_path):
    bad = tmp_path / "rows.jsonl"
    bad.write_text(json.dumps({"prompt": [], "extra_info": {"c_code": "int main(){}"}}) + "\n")
    p = supercoder("eval", str(bad), "--state", str(tmp_path / "s"))
    assert p.returncode == 2 and "extra_info.inputs" in p.stderr
    p = supercoder("eval", str(tmp_path / "missing.parquet"))
    assert p.returncode == 2 and "does not exist" in p.stderr
    p = supercoder("eval", str(TRAIN / "rows.jsonl"), "-p", "synth", "--state", str(tmp_path / "s"))
    assert p.returncode == 2 and "cannot answer whole-program rows" in p.stderr


@pytest.mark.serial  # the rows' checks have per-input time limits: beside other tests on two cores, a -O1 rewrite once timed out
def test_eval_spread_over_a_local_ray_instance_gives_the_same_verdicts(rows_report, tmp_path):
    """One small local Ray instance (2 CPUs, one timing slot): the same samples as the run on this machine."""
    pytest.importorskip("ray")
    rep, _ = rows_report
    p = supercoder(
        "eval", str(TRAIN / "rows.jsonl"), "--candidates", str(TRAIN / "answers"), "--no-timing", "--ray", "local",
        "--state", str(tmp_path / "s"), "--json",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout)
    key = lambda x: (x["problem"], x["label"], x["compiled"], x["correct"], x["reason"])  # noqa: E731
    assert sorted(map(key, got["samples"])) == sorted(map(key, rep["samples"]))
    assert {d.name for d in (tmp_path / "s").iterdir()} == {"bitcount", "sumsq"}  # kept for a resumed run


def test_parquet_rows_read_like_json_lines(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    rows = [json.loads(ln) for ln in (TRAIN / "rows.jsonl").read_text().splitlines()]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "rows.parquet")
    a, b = load(tmp_path / "rows.parquet"), load(TRAIN / "rows.jsonl")
    assert [(p.id, p.tests, p.baseline_asm, p.prompt) for p in a] == [
        (p.id, p.tests, p.baseline_asm, p.prompt) for p in b
    ]


def test_a_row_whose_o3_assembly_this_gcc_does_not_reproduce_is_named(tmp_path):
    rows = [json.loads(ln) for ln in (TRAIN / "rows.jsonl").read_text().splitlines()]
    rows[1]["reward_model"]["ground_truth"] = (TRAIN / "answers" / "sumsq" / "o1.s").read_text()  # another compiler's
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rep = _eval(
        str(tmp_path / "rows.jsonl"), "--candidates", str(TRAIN / "answers"), "--no-timing", state=tmp_path / "s"
    )
    assert any(n.startswith("1 of 2 rows: the row's -O3 assembly differs") and "sumsq" in n for n in rep["notes"])
    # answers are judged against the row's own: its -O1 code is now the baseline itself
    by = {(x["problem"], x["label"]): x for x in rep["samples"]}
    assert by[("sumsq", "replay-o1")]["identical"] and not by[("sumsq", "replay-identical")]["identical"]


def test_timing_waits_for_preparation_and_stops_new_preparation():
    import threading
    import time

    from supercoder_lsp.train.evaluate import Quiet

    q, log = Quiet(), []
    started = threading.Event()

    def prepare(name: str, hold: float) -> None:
        with q.share():
            log.append(f"{name} start")
            started.set()
            time.sleep(hold)
            log.append(f"{name} end")

    def time_it() -> None:
        with q.alone():
            log.append("timing")

    a = threading.Thread(target=prepare, args=("a", 0.3))
    a.start()
    started.wait()
    t = threading.Thread(target=time_it)
    t.start()
    time.sleep(0.1)  # the timer now waits for a; b comes after it
    b = threading.Thread(target=prepare, args=("b", 0.0))
    b.start()
    for th in (a, t, b):
        th.join(5)
    assert log == ["a start", "a end", "timing", "b start", "b end"]


def test_baseline_o0_times_against_the_rows_unoptimized_assembly(tmp_path):
    rep = _eval(str(TRAIN / "rows.jsonl"), "--candidates", str(TRAIN / "answers"), "--baseline", "O0", "--no-timing",
                state=tmp_path / "s")  # fmt: skip
    assert rep["baseline"] == "O0"
    by = {(x["problem"], x["label"]): x for x in rep["samples"]}
    # the -O3 code is now an answer like any other (correct, not the baseline itself); the verdicts stay
    assert by[("sumsq", "replay-identical")]["correct"] and not by[("sumsq", "replay-identical")]["identical"]
    assert by[("sumsq", "replay-wrong")]["reason"] == "wrong-output"
    assert rep["summary"]["compile_rate"] == 5 / 8
    p = supercoder("eval", str(TRAIN / "programs"), "--baseline", "O0", "--state", str(tmp_path / "p"))
    assert p.returncode == 2 and "applies to rows" in p.stderr
