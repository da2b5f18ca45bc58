"""An original that aborts through glibc on some inputs (a failed assert(), "free(): invalid pointer"): the
system calls on glibc's way to abort() are trapped, never made, and the input is one the original crashes
on (SIGABRT), outside its domain as a SIGSEGV is. Before, the first of them (the page glibc maps for its
message) refused the whole function: "makes a system call the function harness does not allow"."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

ABORTS = FIXTURES / "verify" / "aborts"


def test_inputs_the_original_aborts_on_are_its_crashes_and_the_others_are_verified(tmp_path):
    res = pipeline_on_rewrites(
        tmp_path,
        ABORTS / "weight.c",
        "weight",
        *(ABORTS / f"{c}.c" for c in ("weight_noassert", "weight_asserts_more", "weight_wrong")),
    )
    assert res.status == "done", res.detail
    assert "skipped: the -O3 original crashes" in res.harness, res.harness
    by = {c.label: c for c in res.candidates}
    # without the assert: the same result on every input the original returns on
    same = by["weight_noassert"]
    assert same.reason not in ("wrong-output", "crash", "unsafe") and same.inputs_checked > 0, same.detail
    # an assert the original does not make: it aborts where the original returns
    assert by["weight_asserts_more"].reason == "crash", by["weight_asserts_more"].detail
    assert by["weight_asserts_more"].detail.startswith("signal 6 on input weight("), by["weight_asserts_more"].detail
    assert by["weight_wrong"].reason == "wrong-output", by["weight_wrong"].detail
