"""What a function takes from the system and the rest of its program, the same for the original and a rewrite:
random numbers (a hash seeded on its first call, json-c's way) and pointers to the program's own functions
(an object given its methods), where only their address differs from build to build."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

SYS = FIXTURES / "verify" / "system"


def _verdicts(res) -> dict[str, tuple[str, str | None, str]]:
    return {c.label: (c.status, c.reason, c.detail) for c in res.candidates}


def test_a_hash_seeded_from_the_systems_random_numbers_is_verified(tmp_path):
    """getrandom (libc's, emulated as the harness's files are) and arc4random (whose system call the seccomp
    filter traps and the handler answers): the same bytes for both builds on one input. The original was refused
    ("its results depend on random numbers the system gives"); a rewrite wrong for one seed in 128 is caught."""
    res = pipeline_on_rewrites(tmp_path, SYS / "seeded_sum.c", "seeded_sum", SYS / "seeded_sum_unrolled.c",
                               SYS / "seeded_sum_own_seed.c")  # fmt: skip
    assert res.status != "unsupported", res.detail
    got = _verdicts(res)
    assert got["seeded_sum_unrolled"][1] not in ("wrong-output", "crash", "unsafe"), got
    assert got["seeded_sum_own_seed"][:2] == ("rejected", "wrong-output"), got


def test_a_pointer_to_a_function_of_the_program_is_compared_as_that_function(tmp_path):
    """A cold part (placed before every other function) moves the rest of the file's code: the method pointer a
    call leaves was another word, and every build of json-c's parser differed from its -O3 build. It is the
    function it points to, by name: the cold rewrite is right, one that gives key 0 the other method is not."""
    res = pipeline_on_rewrites(tmp_path, SYS / "methods.c", "order_init", SYS / "methods_cold.c",
                               SYS / "methods_wrong.c")  # fmt: skip
    got = _verdicts(res)
    assert got["methods_cold"][1] not in ("wrong-output", "crash", "unsafe"), got
    assert got["methods_wrong"][:2] == ("rejected", "wrong-output"), got
    assert "key=0" in got["methods_wrong"][2], got


def test_errno_after_the_call_is_compared(tmp_path):
    """A parser that drops strtoul's ERANGE (errno put back as it was) returned the same values and was
    accepted: errno starts drawn and is compared after every call, and the finding says both values."""
    res = pipeline_on_rewrites(tmp_path, SYS / "parse_dec.c", "parse_dec", SYS / "parse_dec_keeps_errno.c")
    status, reason, detail = _verdicts(res)["parse_dec_keeps_errno"]
    assert (status, reason) == ("rejected", "wrong-output"), detail
    assert "errno 34 (ERANGE)" in detail, detail


def test_a_rewrite_may_allocate_working_memory_it_frees(tmp_path):
    """A rewrite with a table it allocates and frees was refused ("references 'malloc', which the original
    function does not use"; an honest merge sort of a quadratic count, audit 11): every block a call allocates
    is tracked, so one that keeps its table is the finding."""
    res = pipeline_on_rewrites(tmp_path, SYS / "distinct_bytes.c", "distinct_bytes", SYS / "distinct_bytes_table.c",
                               SYS / "distinct_bytes_leak.c")  # fmt: skip
    got = _verdicts(res)
    assert got["distinct_bytes_table"][1] not in ("wrong-output", "crash", "unsafe"), got
    assert got["distinct_bytes_leak"][:2] == ("rejected", "wrong-output"), got
    assert "leaves memory allocated" in got["distinct_bytes_leak"][2], got
