"""The harness's buffers lie on an island of address space with 64 GiB of PROT_NONE on either side: a
pointer that a generated field sends far from its buffer (zlib's `window + strstart` with a random
32-bit strstart) faults, which is that input's crash, instead of landing in the C library's data and
killing the harness on one layout of memory and not another (deflate_stored's self-check did)."""

from __future__ import annotations

import subprocess
import sys

from supercoder_lsp.harness import include_dir
from supercoder_lsp.verify.layout import ISLAND_RANGES, layout_env
from supercoder_lsp.verify.sandbox import DATA_SIZE

PROBE = r"""
#include "sc_rt.h"
#include <signal.h>
#include <setjmp.h>
static sigjmp_buf back;
static void on_segv(int s) { (void)s; siglongjmp(back, 1); }
/* 1 if a write at p faults */
static int faults(volatile unsigned char *p) {
    if (sigsetjmp(back, 1)) return 1;
    *p = 1;
    return 0;
}
int main(void) {
    signal(SIGSEGV, on_segv);
    sc_guard g, h;
    sc_guard_init(&g, 4096);
    sc_guard_init(&h, 100);
    unsigned char *a = sc_guard_place(&g, 4096, 0), *b = sc_guard_place(&h, 100, 1);
    a[0] = a[4095] = b[0] = b[99] = 1;
    int far = 0, n = 0;
    /* from 1 MiB past the end (the other buffer lies one page after this one) up to 64 GiB, both ways:
       every page up to 64 MiB (where the C library's data and other mappings lie), then further apart */
    for (long long d = 1 << 20; d < (1LL << 36); d += d < (1LL << 26) ? 4096 : d / 3) {
        far += faults(a + 4096 + d - 1) + faults(b - d);
        n += 2;
    }
    printf("%d %d %d %d\n", far, n, faults(a + 4096), faults(b - 1));
    return 0;
}
"""


def test_a_write_far_from_any_buffer_faults_whatever_the_layout(tmp_path):
    src = tmp_path / "probe.c"
    src.write_text(PROBE)
    exe = tmp_path / "probe"
    subprocess.run(["gcc", "-O1", "-I", str(include_dir()), src, "-o", exe], check=True)
    # under the harness's own limit: private writable memory, not address space
    limit = f"import resource, subprocess; resource.setrlimit(resource.RLIMIT_DATA, ({DATA_SIZE}, {DATA_SIZE}))"
    out = subprocess.run(
        ["python3", "-c", f"{limit}; print(subprocess.run(['{exe}'], capture_output=True, text=True).stdout)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    far, n, past_end, before_start = map(int, out)
    assert (past_end, before_start) == (1, 1)  # the guard pages
    assert far == n, f"{n - far} of {n} writes up to 64 GiB from a buffer landed in mapped memory"


WHERE = r"""
#include "sc_rt.h"
int main(int argc, char **argv) {
    (void)argc;
    sc_layout(argv);
    sc_guard g;
    sc_guard_init(&g, 100);
    printf("%lx %lx\n", (unsigned long)(uintptr_t)g.base, (unsigned long)(uintptr_t)&main);
    return 0;
}
"""


def test_the_island_lies_where_the_verifier_drew_it_in_every_process(tmp_path):
    """At the address drawn for the function, in each process alike, while the process's own code lies
    where address randomization puts it, anew in each run (as in a PIE program: a candidate cannot tell a
    check by where its code lies); where randomization is off, at the same place; a different draw gives
    a different place."""
    src = tmp_path / "where.c"
    src.write_text(WHERE)
    exe = tmp_path / "where"
    subprocess.run(["gcc", "-O1", "-I", str(include_dir()), src, "-o", exe], check=True)

    def where(env: dict[str, str], fixed: bool) -> tuple[int, int]:
        argv = ["setarch", "x86_64", "-R", str(exe)] if fixed else [str(exe)]
        out = subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout.split()
        return int(out[0], 16), int(out[1], 16)

    lay = layout_env("sum_ints")
    island = int(lay["SC_ISLAND"], 16)
    assert any(lo <= island < hi for lo, hi in ISLAND_RANGES)
    runs = [where(lay, fixed=False) for _ in range(4)]
    assert {base for base, _ in runs} == {island + 4096}  # past one PROT_NONE page
    assert len({code for _, code in runs}) == 4, "the code lay at one place in every run"
    assert where(lay, fixed=True)[0] == island + 4096
    other = {"SC_ISLAND": f"{island + (1 << 32):x}"}
    assert where(other, fixed=False)[0] == island + 4096 + (1 << 32)


def test_no_one_outside_the_process_knows_where_the_buffers_will_lie():
    """Drawn from a secret of each process: two runs of the tool place the same function apart."""
    code = "from supercoder_lsp.verify.layout import layout_env; print(layout_env('sum_ints'))"
    seen = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        for _ in range(3)
    }
    assert len(seen) == 3


def test_an_input_the_original_reads_past_shows_in_the_self_check_wherever_its_buffers_lay(tmp_path):
    """The self-check runs every input again with its buffers elsewhere, and an input whose result moves
    (or that crashes in one run only) is left out: the original reads outside its inputs there. A loose
    input (one in four, its buffers where a malloc'd block lies, with zeroed bytes around them) lies tight
    in the self-check, so that an original reading past it crashes there. Before, it lay loose in both
    runs, read the same zeros, and was kept: lz4's LZ4_compress_forceExtDict then crashed while timed."""
    from support import FIXTURES

    from supercoder_lsp import build
    from supercoder_lsp.asm.cut import cut_function
    from supercoder_lsp.harness.plan import make_plan
    from supercoder_lsp.model import BuildConfig
    from supercoder_lsp.source import parse_functions
    from supercoder_lsp.verify.function_check import MODE_FLIP_SIDES, FunctionHarness

    src = FIXTURES / "verify" / "attacks" / "sum_ints_past.c"
    cut = cut_function(
        build.compile_to_asm(src, BuildConfig("gcc", ("-O3",), "t", str(src.parent)), tmp_path / "b.s"), "sum_ints_past"
    )
    build.assemble(cut.text, tmp_path / "b.o")
    [fn] = parse_functions(src.read_text())
    h = FunctionHarness(tmp_path / "h", fn.name, make_plan(fn.signature), n_random=2000, min_timeout=2)
    exe = h.build_original(tmp_path / "b.o")
    a, b = (h._run(exe, h.total, mode, 60) for mode in (0, MODE_FLIP_SIDES))
    assert len(a.status) == len(b.status) == h.total
    kept = [i for i in range(h.total) if not a.failed(i) and not b.failed(i) and a.values[i] == b.values[i]]
    assert not kept, f"{len(kept)} of {h.total} inputs read past the buffer alike in both runs: {kept[:10]}"
