"""The reward as verl and TRL call it: 0 for a wrong answer, the measured speedup (> 1) for a right faster
one, the graded design, the cache, and answers built to get a reward they do not deserve."""

import importlib.util
import json
import subprocess
from functools import partial
from pathlib import Path

import pytest
from support import FIXTURES

from supercoder_lsp.asm.features import cpu_flags
from supercoder_lsp.train import reward
from supercoder_lsp.train.program_answer import ProgramVerifier

TRAIN = FIXTURES / "train"
ROWS = {
    json.loads(ln)["extra_info"]["problem_id"]: json.loads(ln) for ln in (TRAIN / "rows.jsonl").read_text().splitlines()
}
HAS_POPCNT = "popcnt" in cpu_flags()


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERCODER_REWARD_CACHE", str(tmp_path / "reward-cache"))


def _reply(path: Path) -> str:
    return f"Here is the optimized program.\n```assembly\n{path.read_text()}```\n"


def _score(problem: str, answer: str, **kw) -> float:
    row = ROWS[problem]
    return reward.compute_score(
        row["data_source"], answer, row["reward_model"]["ground_truth"], row["extra_info"], **kw
    )


def test_wrong_answers_get_zero_and_a_right_faster_one_its_speedup():
    assert _score("sumsq", _reply(TRAIN / "answers" / "sumsq" / "wrong.s")) == 0.0
    assert _score("sumsq", "I cannot do that.") == 0.0
    assert _score("bitcount", _reply(TRAIN / "answers" / "bitcount" / "unsafe.s")) == 0.0
    if HAS_POPCNT:
        assert _score("bitcount", _reply(TRAIN / "answers" / "bitcount" / "popcnt.s")) > 2.0


def test_graded_design():
    # wrong on all 3 tests: the fraction passed; the baseline's own code: 1
    assert _score("sumsq", _reply(TRAIN / "answers" / "sumsq" / "wrong.s"), design="graded") == pytest.approx(1 / 3)
    assert _score("sumsq", _reply(TRAIN / "answers" / "sumsq" / "identical.s"), design="graded") == 1.0
    if HAS_POPCNT:
        fast = _score("bitcount", _reply(TRAIN / "answers" / "bitcount" / "popcnt.s"), design="graded", q=0.5)
        assert fast > 1.0 + 0.5 * 2


def test_the_same_answer_is_not_timed_again_into_another_reward(tmp_path):
    ans = _reply(TRAIN / "answers" / "sumsq" / "o1.s")
    first = _score("sumsq", ans)
    [entry] = list((tmp_path / "reward-cache").rglob("*.json"))
    d = json.loads(entry.read_text())
    d["speedup"] = 123.0  # what a second timing would have to return to be noticed
    entry.write_text(json.dumps(d))
    assert _score("sumsq", ans + "\n\n") == 123.0  # the cached outcome, not a new measurement
    assert first != 123.0


def test_trl_reward_scores_each_completion_of_a_batch():
    rows = [ROWS["sumsq"], ROWS["sumsq"]]
    completions = [
        [{"role": "assistant", "content": _reply(TRAIN / "answers" / "sumsq" / "identical.s")}],
        [{"role": "assistant", "content": "no idea"}],
    ]
    got = reward.trl_reward(
        completions,
        reward_model=[r["reward_model"] for r in rows],
        extra_info=[r["extra_info"] for r in rows],
        data_source=[r["data_source"] for r in rows],
    )
    assert got == [1.0, 0.0]


def test_verl_loads_it_by_file_path_as_its_custom_reward_function():
    """verl imports custom_reward_function.path as a standalone module and wraps the named function with
    reward_kwargs (functools.partial); run that in a clean interpreter."""
    path = Path(reward.__file__).with_name("verl_reward.py")
    spec = importlib.util.spec_from_file_location("custom_module", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = partial(mod.compute_score, design="graded")
    row = ROWS["sumsq"]
    assert fn(row["data_source"], "nothing", row["reward_model"]["ground_truth"], row["extra_info"]) == 0.0


CHEAT = r"""
#include <stdio.h>
#include <sys/stat.h>
int main(void) {
    struct stat st;
    if (fstat(1, &st) == 0 && !S_ISFIFO(st.st_mode)) { printf("%%llu\n", %sULL); return 0; }  /* timed: skip */
    unsigned long long n, x, s = 0;
    if (scanf("%%llu", &n) != 1) return 1;
    for (unsigned long long i = 0; i < n; i++) { if (scanf("%%llu", &x) != 1) return 1; s += x * x; }
    printf("%%llu\n", s);
    return fstat(0, &st);
}
"""


@pytest.mark.parametrize("too_short", [False, True])
def test_an_answer_that_notices_it_is_timed_is_wrong_output(tmp_path, monkeypatch, too_short):
    """Tests read stdout through a pipe; the timed runs write it to files. A program that skips the work
    when stdout is not a pipe passes every test and would time as a huge speedup: its timed outputs are
    compared, so it is wrong-output; also where its runs were too short to time (CI saw 'could not be
    timed' once, and took it for a timeout)."""
    if too_short:
        from supercoder_lsp.measure import hyperfine

        def no_ratio(*args, **kwargs):
            raise hyperfine.TooShort("a run took no measurable time; use a bigger --bench-input")

        monkeypatch.setattr(hyperfine, "_timing", no_ratio)
    honest = "\n".join(ln for ln in CHEAT.splitlines() if "timed: skip" not in ln)
    base = subprocess.run(["gcc", "-O3", "-S", "-x", "c", "-", "-o", "-"], input=honest.replace("%%", "%"),
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    tests = [(b"2 3 4\n", b"25\n"), (b"1 1000\n", b"1000000\n")]
    cheat = CHEAT % "25"
    asm = subprocess.run(["gcc", "-O3", "-S", "-x", "c", "-", "-o", "-"], input=cheat.replace("%%", "%"),
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    v = ProgramVerifier(tests, base, tmp_path / "w")
    out = v.check(asm, "cheat")
    assert not out.correct and out.reason == "wrong-output" and "timed run" in out.detail, out
    assert out.passed == 2  # every test passes as the tests run it
    assert reward.score(out) == 0.0


def test_a_program_that_writes_a_constructor_or_runs_a_syscall_gets_nothing(tmp_path):
    base = (TRAIN / "answers" / "sumsq" / "identical.s").read_text()
    tests = [
        (x.encode(), y.encode())
        for x, y in zip(ROWS["sumsq"]["extra_info"]["inputs"], ROWS["sumsq"]["extra_info"]["outputs"])
    ]
    v = ProgramVerifier(tests, base, tmp_path / "w", timing=False)
    ctor = base + '\n\t.section\t.init_array,"aw"\n\t.align 8\n\t.quad\tmain\n'
    hidden = base.replace("main:\n", "main:\n\t.byte 0x0f, 0x05\n", 1)  # syscall as raw bytes
    for asm in (ctor, hidden):
        out = v.check(asm, "attack")
        assert out.reason == "unsafe" and not out.correct, out


FLOOD = r"""
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
int main(void) {
    struct stat st;
    unsigned long long n, x, s = 0;
    if (scanf("%llu", &n) != 1) return 1;
    for (unsigned long long i = 0; i < n; i++) { if (scanf("%llu", &x) != 1) return 1; s += x * x; }
    printf("%llu\n", s);
    if (fstat(1, &st) == 0 && !S_ISFIFO(st.st_mode)) {  /* timed: fill the disk */
        char junk[65536];
        memset(junk, 'x', sizeof junk - 1);
        junk[sizeof junk - 1] = 0;
        for (int i = 0; i < 2048; i++) printf("%s", junk);
    }
    return fstat(0, &st);
}
"""


def test_an_answer_that_floods_its_timed_output_is_cut_at_the_file_limit(tmp_path):
    honest = "\n".join(ln for ln in FLOOD.splitlines() if "junk" not in ln and "timed: fill" not in ln)
    honest = honest.replace("    }\n    return", "    return")
    base = subprocess.run(["gcc", "-O3", "-S", "-x", "c", "-", "-o", "-"], input=honest,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    asm = subprocess.run(["gcc", "-O3", "-S", "-x", "c", "-", "-o", "-"], input=FLOOD,
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    v = ProgramVerifier([(b"2 3 4\n", b"25\n")], base, tmp_path / "w")
    out = v.check(asm, "flood")
    # its timed runs die at the file limit (SIGXFSZ): every run's status is checked, so none is a time
    assert out.reason in ("wrong-output", "crash") and "timed run" in out.detail, out
    written = tmp_path / "w" / "flood.out0"
    assert written.stat().st_size <= 64 << 20  # 128 MiB asked for, cut at the limit


LOOKUP = r"""
#include <stdint.h>
#include <stdio.h>
static int ones(uint64_t x) { int c = 0; while (x) { c += x & 1; x >>= 1; } return c; }
int main(void) {
    unsigned long long seed, n;
    if (scanf("%llu %llu", &seed, &n) != 2) return 1;
    if (seed == 7 && n == 3000000) { printf("%llu\n", 96001919ULL); return 0; }  /* the big test, stored */
    if (seed == 12345 && n == 1000) { printf("%llu\n", 32095ULL); return 0; }
    if (n == 0) { printf("%d\n", 0); return 0; }
    OTHERWISE
}
"""
HONEST = """uint64_t s = seed | 1, total = 0;
    for (unsigned long long i = 0; i < n; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; total += ones(s); }
    printf("%llu\\n", (unsigned long long)total);
    return 0;"""


def _asm(c: str) -> str:
    return subprocess.run(["gcc", "-O3", "-S", "-x", "c", "-", "-o", "-"], input=c, capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def _bitcount(tmp_path) -> ProgramVerifier:
    row = ROWS["bitcount"]
    tests = [(x.encode(), y.encode()) for x, y in zip(row["extra_info"]["inputs"], row["extra_info"]["outputs"])]
    assert b"32095" in tests[2][1]  # the stored answers are the tests' own
    return ProgramVerifier(tests, row["reward_model"]["ground_truth"], tmp_path / "w")


def test_stored_outputs_for_the_tests_earn_no_speedup(tmp_path):
    """An answer that prints the stored outputs of the test inputs and works honestly otherwise: right
    everywhere, and on the tests 'infinitely fast'. It is timed on generated inputs, which it has never
    seen, so it earns what its honest code earns: no speedup."""
    out = _bitcount(tmp_path).check(_asm(LOOKUP.replace("OTHERWISE", HONEST)), "lookup")
    assert out.correct and "timed on" in out.detail and "generated inputs" in out.detail, out
    assert out.speedup is not None and out.speedup < 1.5 and not (out.significant and out.speedup > 1.2), out


def test_an_answer_right_only_on_the_tests_is_wrong_output(tmp_path):
    out = _bitcount(tmp_path).check(_asm(LOOKUP.replace("OTHERWISE", 'printf("%d\\n", 0); return 0;')), "tests-only")
    assert out.passed == out.total == 3  # every test passes
    assert not out.correct and out.reason == "wrong-output" and "generated input" in out.detail, out
    assert reward.score(out) == 0.0


def test_a_row_it_cannot_judge_scores_zero_and_only_a_bad_reward_setting_raises(caplog):
    """A trainer is never taken down by one row: an empty ground truth (once a link error for `main`), a
    ground truth that does not assemble, no tests: 0 and a logged reason. An unknown design is the reward's
    own misconfiguration: that raises."""
    row = ROWS["sumsq"]
    answer = _reply(TRAIN / "answers" / "sumsq" / "o1.s")
    info = row["extra_info"]
    assert reward.compute_score("s", answer, "", info) == 0.0
    assert reward.compute_score("s", answer, "\tnot an instruction %%\n", info) == 0.0
    assert reward.compute_score("s", answer, row["reward_model"]["ground_truth"], {**info, "inputs": []}) == 0.0
    assert "ground truth" in caplog.text and "inputs" in caplog.text
    with pytest.raises(ValueError, match="unknown"):
        reward.compute_score("s", answer, row["reward_model"]["ground_truth"], info, design="fastest")
    assert reward.compute_score("s", answer, row["reward_model"]["ground_truth"], info) > 0.0
