"""A function that takes callbacks (zlib's inflateBack(strm, in, in_desc, out, out_desc)): no function the
harness has would do what the caller's does, so each is an address that crashes if called, on every
input. What runs before the first call is verified, and coverage says how much that is; before, such a
function had no harness ("parameter 'in' of type 'in_func' is not supported")."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

CALLBACKS = FIXTURES / "verify" / "callbacks"


def test_callbacks_crash_where_called_and_the_argument_checks_are_verified(tmp_path):
    res = pipeline_on_rewrites(
        tmp_path, CALLBACKS / "pump.c", "pump", CALLBACKS / "pump_wrong.c", CALLBACKS / "pump_codes.c"
    )
    assert res.status == "done", res.detail
    assert "in: a function pointer that crashes if called" in res.harness, res.harness
    assert "out: a function pointer that crashes if called" in res.harness
    # the lines past the first call of `in` never run
    assert res.coverage is not None and 0 < res.coverage["generated_percent"] < 100, res.harness
    by = {c.label: c for c in res.candidates}
    # calls `in` where the original returns: its crash
    assert by["pump_wrong"].reason == "crash", by["pump_wrong"].detail
    assert by["pump_codes"].reason == "wrong-output", by["pump_codes"].detail
    assert "expected -3, got -4" in by["pump_codes"].detail
