"""The harness object is compiled once per text: the function's harness tried alone, then with the file,
then with the project, is the same C (gz_comp and inflateBack compiled it three times, 1.1 s). The
program's recorded calls are in the object too (.incbin), not in its text: where only they changed, it
is compiled again, or the calls replayed would be the old ones."""

from __future__ import annotations

from support import FIXTURES

from supercoder_lsp.harness.plan import make_plan
from supercoder_lsp.harness.recorded import RecordedInputs
from supercoder_lsp.source import parse_functions
from supercoder_lsp.verify.function_check import FunctionHarness

SRC = FIXTURES / "verify" / "popcount.c"


def test_a_harness_object_is_compiled_again_only_where_its_text_or_recorded_bytes_changed(tmp_path):
    fn = next(f for f in parse_functions(SRC.read_text()) if f.name == "popcount")
    plan = make_plan(fn.signature)

    def built(blob: bytes, n_random: int = 100) -> tuple[str, int, bytes]:
        h = FunctionHarness(tmp_path / "h", "popcount", plan, n_random=n_random, recorded=RecordedInputs(blob, [0]))
        h._build_runtime()
        assert h.obj is not None
        return h.obj.name, h.obj.stat().st_mtime_ns, h.obj.read_bytes()

    first = built(bytes(8))
    assert built(bytes(8)) == first  # the same text and bytes: kept
    other = built(b"\1" + bytes(7))
    assert other[0] != first[0] and other[2] != first[2]  # the same text, other recorded bytes: compiled again
    again = built(b"\1" + bytes(7), n_random=200)
    assert again[0] not in (first[0], other[0])  # other text: compiled again
    assert built(bytes(8)) == first  # the first again: its object still there, not compiled again
