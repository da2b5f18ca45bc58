"""An original that runs out of time on most generated inputs (a negative length it loops on, as zlib's
crc32_combine does) gets a harness on narrowed inputs instead of none, and every claim says so."""

from __future__ import annotations

import re
from pathlib import Path

from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp.results import claim_basis, inputs_summary

DOMAIN = FIXTURES / "verify" / "domain"


def _run(tmp: Path, *cands: str, bounds: dict | None = None, src: str = "combine", fn: str = "combine"):
    rewrites = (DOMAIN / f"{c}.c" for c in cands)
    return pipeline_on_rewrites(tmp, DOMAIN / f"{src}.c", fn, *rewrites, bounds=bounds or {})


def test_inputs_are_narrowed_where_the_original_runs_out_of_time_and_claims_say_so(tmp_path):
    res = _run(tmp_path, "combine_negfast", "combine_wrong_big")
    assert res.status == "done", res.detail
    assert "inputs narrowed to len in [0, 9223372036854775807]" in res.harness, res.harness
    assert "--bound combine.PARAM=LOW:HIGH" in res.harness
    assert re.match(r"inputs: [\d,]+ generated with len in \[0, 9223372036854775807\];", inputs_summary(res) or "")
    by = {c.label: c for c in res.candidates}
    # wrong only where the original never returns: verified, and the claim names the domain
    neg = by["combine_negfast"]
    assert neg.reason != "wrong-output" and neg.inputs_checked > 0, (neg.reason, neg.detail)
    assert claim_basis(neg).endswith("inputs with len in [0, 9223372036854775807]")
    # and timed on the same narrowed inputs: on the wider ones the original never returns (a timing run
    # over them ran out of time after 54 s: "could not be timed")
    assert neg.timing is not None and "could not be timed" not in neg.detail, neg.detail
    # wrong inside the domain (every len from 2^40 on): still caught
    assert by["combine_wrong_big"].reason == "wrong-output", by["combine_wrong_big"].detail


def test_a_users_bound_is_kept_and_not_narrowed(tmp_path):
    """Every len the user allows is negative: the original never returns, the narrowing leaves len alone
    (it only tries crc), and the function says why it has no harness."""
    res = _run(tmp_path, "combine_negfast", bounds={"combine": {"len": [-5, -1]}})
    assert res.status == "unsupported"
    assert "runs out of time on most generated inputs" in res.detail, res.detail
    assert "also with crc in [0, 4095]" in res.detail and "len in" not in res.detail


def test_inputs_the_original_never_returns_on_are_skipped_quickly_and_the_rest_compared(tmp_path):
    """zlib's multmodp never returns for a == 0, which about one generated input in seventy has. The
    harness gives each input 50 times its slowest other one, 4-20 ms, from the first (the long limit is for
    functions where most inputs need more), and never runs those inputs again for a candidate (each would cost the limit again); every other
    input is compared."""
    res = _run(tmp_path, "mult_wrong", src="mult", fn="multmodp")
    assert (
        "skipped: the -O3 original crashes or runs out of time on them (over 4-20 ms each, 50 times its slowest other input)"
        in res.harness
    )
    [c] = res.candidates
    assert c.reason == "wrong-output" and "multmodp(a=1," in c.detail, c.detail
    assert res.candidates[0].stage_seconds.get("verify", 0) < 30


def test_a_struct_in_states_no_caller_makes_is_narrowed_field_by_field(tmp_path):
    """A reader's state as zlib's gz_read takes it: a negative pending `skip` and a `how` none of the
    three it switches on loop for ever, on most generated inputs. Its signed fields become non-negative,
    then the fields it compares with constants take only those values (or 0); a wrong COPY is caught."""
    res = _run(tmp_path, "stream_bytes", "stream_wrong", src="stream", fn="take")
    assert res.status == "done", res.detail
    assert "the signed fields of s non-negative, the fields of s it compares with constants" in res.harness
    assert res.coverage and res.coverage["percent"] >= 90, res.coverage
    by = {c.label: c for c in res.candidates}
    assert by["stream_bytes"].reason != "wrong-output", by["stream_bytes"].detail
    assert by["stream_wrong"].reason == "wrong-output", by["stream_wrong"].detail
