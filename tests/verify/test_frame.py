"""The function under test runs on a stack of its own, its top against 64 GiB of PROT_NONE: an original that
writes above its frame on inputs outside its domain (zlib's inflate_table counts lens[] values over 15 into a
local array of 16) crashes there, or breaks the calling convention, and those inputs are left out; it used
to overwrite the harness's own frames and fail the whole harness. A candidate gets no such pass."""

from __future__ import annotations

import pytest
from support import FIXTURES, pipeline_on_rewrites

FRAME = FIXTURES / "verify" / "frame"


@pytest.mark.serial  # its inputs' time limits decide what is left out: flaky beside other tests on two cores
def test_an_original_that_writes_above_its_frame_outside_its_domain_gets_a_harness(tmp_path):
    res = pipeline_on_rewrites(
        tmp_path,
        FRAME / "table.c",
        "build_table",
        *(FRAME / f"table_{c}.c" for c in ("same", "wrong", "above")),
        n_random=6000,
    )
    assert res.status == "done", (res.detail, res.harness)
    # `code **table` points into a generated buffer; `unsigned *bits`, sharing lens's length at first, is probed
    assert "table: one code * (NULL, or into one 64 KiB buffer" in res.harness, res.harness
    assert "bits: array of 1 uint32_t, as much as the -O3 original touches" in res.harness, res.harness
    assert res.coverage and res.coverage["percent"] >= 90, res.harness
    by = {c.label: c for c in res.candidates}
    assert by["table_same"].reason in (None, "not-faster") and by["table_same"].inputs_checked > 500, (
        by["table_same"].reason,
        by["table_same"].detail,
    )
    assert by["table_wrong"].reason == "wrong-output", by["table_wrong"].detail
    # the same write above its frame on an input the original handles: into the guard, not the harness
    assert by["table_above"].reason in ("crash", "abi-violation"), (by["table_above"].reason, by["table_above"].detail)
