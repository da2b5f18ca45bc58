"""Buffers without a length parameter get the length the -O3 original touches, found on guard pages."""

from __future__ import annotations

from pathlib import Path

from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.harness.plan import Plan, describe, make_plan
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.source.parse import parse_functions
from supercoder_lsp.verify.function_check import FunctionHarness
from supercoder_lsp.verify.probe import probe_sizes

PROBE = FIXTURES / "verify" / "probe"


def _run(tmp: Path, src: Path, fn: str, *wrong: str):
    return pipeline_on_rewrites(tmp, src, fn, *(PROBE / f"{w}.c" for w in wrong), rounds=6)


def test_fixed_size_arrays_get_the_size_the_original_touches(tmp_path):
    """`uint32_t state[5]`, `const unsigned char block[64]`: bare pointers to the compiler, five
    and 64 elements to the original. A rewrite that reads one element more crashes on the guard."""
    res = _run(tmp_path, PROBE / "block.c", "mix_block", "block_overread")
    assert "state: array of 5 uint32_t, as much as the -O3 original touches" in res.harness, res.harness
    assert "block: array of 64 uint8_t" in res.harness
    [c] = res.candidates
    assert c.reason == "crash" and "signal 11" in c.detail, (c.reason, c.detail)


def test_a_buffer_read_until_a_sentinel_has_no_size_and_says_what_to_give(tmp_path):
    res = _run(tmp_path, PROBE / "until_zero.c", "count_until_zero")
    assert res.status == "unsupported"
    assert "'a' has no length parameter" in res.detail and "touches memory outside 4096 elements" in res.detail
    assert "--bound count_until_zero.a=N:N" in res.detail


def test_a_public_struct_read_as_a_larger_private_one_is_sized_by_probing(tmp_path):
    """zlib's gzFile: a 24-byte public struct that every gz* function casts to its private gz_state. The
    original reads past the 24 bytes the type says, so the harness probes how far (the private state's
    80 bytes here) instead of refusing the function; a rewrite that reads one byte more crashes. The
    compiler's types say so too (the file's one struct that begins with a file_s): a cache of them keyed by
    offsets alone once hid that, depending on which file was read before."""
    res = _run(tmp_path, PROBE / "file.c", "file_sum", "file_reads_more")
    assert "file: one struct file_s (a state_t that begins with one) (80 bytes" in res.harness, res.harness
    assert res.coverage and res.coverage["percent"] >= 70
    [c] = res.candidates
    assert c.reason == "crash" and "signal 11" in c.detail, (c.reason, c.detail)


def test_a_pointer_without_a_length_beside_a_handle_is_probed_alone(tmp_path):
    """zlib's gzerror(gzFile, int *errnum): while `code` is probed, only `code` moves between the two sides
    of its guard, so what the original reads of the handle does not make `code` look unbounded; the handle
    is the 80-byte private state the types say it begins. Its message is returned as a string."""
    res = _run(tmp_path, PROBE / "file.c", "file_error")
    assert res.status != "unsupported", res.detail
    assert "code: array of 1 int32_t, as much as the -O3 original touches" in res.harness, res.harness
    assert "file: one struct file_s (a state_t that begins with one) (80 bytes" in res.harness, res.harness


def test_a_struct_pointer_read_as_a_table_beside_a_large_state_is_probed_and_the_state_kept(tmp_path):
    """trees.c's compress_block(s, ltree, dtree): `const ct_data *ltree` is one struct to the types and a
    table to the original. Each struct is probed; the 5 KiB state (more than the probe's 4096 bytes) keeps
    its size and its buffer pointer, and ltree reads as 257 entries. A rewrite that reads one code's
    other field is wrong; before, the state was cut to 4096 bytes, its pointer NULL, and nothing ran."""
    res = _run(tmp_path, PROBE / "codes.c", "send_codes", "codes_wrong")
    assert "ltree: one code_t that the original reads as 1028 bytes" in res.harness, res.harness
    assert "s: one state_t (5000 bytes, fields random" in res.harness and "1 data pointer(s)" in res.harness
    assert res.coverage and res.coverage["percent"] == 100, res.harness
    [c] = res.candidates
    assert c.reason == "wrong-output", (c.reason, c.detail)


def test_a_buffer_is_sized_though_the_original_loops_on_some_generated_states(tmp_path):
    """lz4's LZ4F_decompress waits for ever on most generated states: its probe's first run took 109 s,
    each state that loops 20-120 ms, and the editor showed nothing for a minute. The probe's first run now
    has a budget and cuts an input that loops at 50 times the slowest one that returned; the output is
    still sized at the 48 bytes the original writes, and a rewrite that writes one more crashes."""
    res = _run(tmp_path, PROBE / "loops.c", "decode_step", "loops_overwrite")
    assert "out: array of 48 uint8_t, as much as the -O3 original touches" in res.harness, res.harness
    [c] = res.candidates
    assert c.reason == "crash" and "signal 11" in c.detail, (c.reason, c.detail)


def _original(tmp: Path, fixture: str, fn: str) -> tuple[Plan, Path]:
    """The plan of fixture's one function, and its -O3 original alone in an object."""
    src = PROBE / f"{fixture}.c"
    base = tmp / "base.o"
    cfg = BuildConfig("gcc", ("-O3",), "test", str(PROBE))
    build.assemble(cut_function(build.compile_to_asm(src, cfg, tmp / "base.s"), fn).text, base)
    [parsed] = parse_functions(src.read_text())
    return make_plan(parsed.signature), base


def test_a_function_slower_than_the_probes_first_limit_on_every_input_is_still_probed(tmp_path):
    """6 ms a call: past the probe's first limit per input (4 ms before any call returned), where every
    input runs out of time. The probe runs again with the whole short limit, and the key is sized."""
    plan, base = _original(tmp_path, "slow_key", "keyed")
    assert plan.params[0].probe, describe(plan)
    got = probe_sizes(plan, "keyed", base, tmp_path / "probe")
    assert got.supported, got.why
    assert (got.params[0].lo, got.params[0].hi) == (16, 16), describe(got)


def test_inputs_that_finish_on_one_side_of_the_guard_only_are_probed_again_not_taken_for_a_read_outside(tmp_path):
    """CI once had the probe's two runs of slow_key.c side by side, one finishing its inputs and the other
    none (a busy machine): nothing was compared, and the key 'touches memory outside 4096 elements'. Here
    every input is slow on one side of the guard and quick on the other; the probe runs again with the
    whole limit and sizes the key at the 16 bytes it reads."""
    plan, base = _original(tmp_path, "one_side_slow", "keyed")
    got = probe_sizes(plan, "keyed", base, tmp_path / "probe")
    assert got.supported, got.why
    assert (got.params[0].lo, got.params[0].hi) == (16, 16), describe(got)


def test_a_length_on_which_no_input_finished_is_not_taken_for_one_it_stays_inside(tmp_path):
    """Where every input runs out of time on both sides of the guard, nothing was compared: that is no
    evidence that the original stays inside (a busy machine once had slow_key.c's calls all out of time at
    one element, and the probe took 1 for its 16-byte key). The reason says it fails, not where it reads."""
    plan, base = _original(tmp_path, "spins", "spins")
    got = probe_sizes(plan, "spins", base, tmp_path / "probe")
    assert not got.supported
    assert "'key' has no length parameter" in got.why and "fails on every input" in got.why, got.why
    h = FunctionHarness(tmp_path / "h", "spins", plan, n_random=20)
    exe = h.build_original(base)
    inside, ran, failed = h.stays_inside(exe, {"SC_PROBE_LEN": "0:1", "SC_BUDGET_MS": "300"})
    assert (inside, failed) == (False, ran), (inside, ran, failed)


def test_an_original_that_calls_the_system_is_refused_for_that_not_for_a_length(tmp_path):
    """A key hash salted with getppid on its first call fails on every probe input whatever the length: the
    reason is the system call, named (within a call, write() is the harness's emulated file I/O: its message
    and record went into the call's files, and the refusal said "which, the run did not say"), and no --bound
    is offered (none would help). One seeded from getrandom is not refused for it: the harness gives it
    random bytes (tests/verify/test_system_state.py)."""
    res = _run(tmp_path, PROBE / "parent_hash.c", "parent_hash")
    assert res.status == "unsupported"
    assert "makes a system call the function harness does not allow (getppid:" in res.detail, res.detail
    assert "--bound" not in res.detail and "--tests DIR" in res.detail
    res = _run(tmp_path / "seeded", PROBE / "seeded.c", "seeded_hash")
    assert "system call" not in res.detail, res.detail
