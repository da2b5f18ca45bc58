"""Tests for supercoder_lsp.source: definitions, ranges, signatures, prototypes."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from support import FIXTURES

from supercoder_lsp.model import CFunction, CType, Position, Range
from supercoder_lsp.source import (
    ctype_from_text,
    declaration_of,
    find_function,
    parse_functions,
    remove_definition,
)

SOURCES = FIXTURES / "source"
SEVERAL = (SOURCES / "several.c").read_text(encoding="utf-8")
HOT_COLD = (SOURCES / "hot_cold.c").read_text(encoding="utf-8")


def one(text: str) -> CFunction:
    fns = parse_functions(text)
    assert len(fns) == 1, [f.name for f in fns]
    return fns[0]


def rng(l0, c0, l1, c1) -> Range:
    return Range(Position(l0, c0), Position(l1, c1))


# --- finding definitions ---------------------------------------------------------------


def test_several_finds_every_definition_in_order_including_ifdef_arms():
    names = [f.name for f in parse_functions(SEVERAL)]
    assert names == [
        "square",
        "rotl32",
        "clamp_ll",
        "sum_u8",
        "matrix_trace",
        "skip_spaces",
        "mean",
        "norm1",
        "total",
        "fast_path",
        "slow_path",
        "main",
    ]


def test_popcount_fixture():
    fn = one((SOURCES / "popcount.c").read_text(encoding="utf-8"))
    assert fn.name == "popcount"
    assert str(fn.signature) == "int (unsigned long x)"
    assert fn.signature.params[0].type == CType("unsigned long", "int", 64, False)
    assert (fn.has_loops, fn.loop_depth, fn.calls_in_loops) == (True, 1, 0)
    assert (fn.is_static, fn.is_inline) == (False, False)


def test_declarations_and_prototypes_are_not_definitions():
    src = "int f(int);\nextern int g(void);\nint (*fp)(int);\nint h(void) { return f(1) + g(); }\n"
    assert [f.name for f in parse_functions(src)] == ["h"]


def test_find_function():
    fns = parse_functions(SEVERAL)
    assert find_function(fns, "mean").name == "mean"
    assert find_function(fns, "nope") is None


# --- ranges and offsets ------------------------------------------------------------------


@pytest.mark.parametrize(
    "src, name, whole, ident",
    [
        pytest.param(
            "int popcount(unsigned long x){int c=0; while(x){x&=x-1;c++;} return c;}\n",
            "popcount",
            rng(0, 0, 0, 71),
            rng(0, 4, 0, 12),
            id="ascii-one-line",
        ),
        # é is 1 UTF-16 unit (2 bytes), 😀 is 2 UTF-16 units (4 bytes)
        pytest.param(
            "/* é 😀 */ int f(void){return 0;}",
            "f",
            rng(0, 11, 0, 33),
            rng(0, 15, 0, 16),
            id="non-ascii-before-on-same-line",
        ),
        pytest.param(
            "// 😀😀\nint\n😀_never(void);\nstatic int g(int x)\n{\n  return x; /* ü */ }\n",
            "g",
            rng(3, 0, 5, 21),
            rng(3, 11, 3, 12),
            id="multi-line-with-unicode-inside",
        ),
        pytest.param(
            "int a(void){return 1;}\r\nint b(void){return 2;}\r\n", "b", rng(1, 0, 1, 22), rng(1, 4, 1, 5), id="crlf"
        ),
    ],
)
def test_ranges_are_lsp_positions(src, name, whole, ident):
    fn = find_function(parse_functions(src), name)
    assert fn.range == whole
    assert fn.name_range == ident


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(SEVERAL, id="several"),
        pytest.param("/* é 😀 */ int f(void){return 0;}\n/* ∑ */ static int g(int x) { return x; }", id="unicode"),
    ],
)
def test_byte_offsets_index_the_utf8_text(src):
    data = src.encode("utf-8")
    for fn in parse_functions(src):
        assert data[fn.start_byte : fn.end_byte].decode("utf-8") == fn.text
        assert data[fn.body_start_byte : fn.body_start_byte + 1] == b"{"
        assert fn.start_byte < fn.body_start_byte < fn.end_byte
        assert fn.text.endswith("}")
        # the name range points at the name, counted in UTF-16 units
        line = src.splitlines()[fn.name_range.start.line]
        units = line.encode("utf-16-le")
        start, end = fn.name_range.start.character, fn.name_range.end.character
        assert units[2 * start : 2 * end].decode("utf-16-le") == fn.name


# --- signatures --------------------------------------------------------------------------


def T(text, kind, bits=0, signed=False, pointee=None, const=False):  # noqa: N802 - reads like a type
    return CType(text, kind, bits, signed, pointee, const)


@pytest.mark.parametrize(
    "decl, expected",
    [
        pytest.param("int x", T("int", "int", 32, True), id="int"),
        pytest.param("unsigned x", T("unsigned", "int", 32, False), id="unsigned-alone"),
        pytest.param("signed x", T("signed", "int", 32, True), id="signed-alone"),
        pytest.param("char x", T("char", "int", 8, True), id="plain-char-signed"),
        pytest.param("unsigned char x", T("unsigned char", "int", 8, False), id="unsigned-char"),
        pytest.param("short x", T("short", "int", 16, True), id="short"),
        pytest.param("unsigned short int x", T("unsigned short int", "int", 16, False), id="unsigned-short-int"),
        pytest.param("long x", T("long", "int", 64, True), id="long"),
        pytest.param("unsigned long long x", T("unsigned long long", "int", 64, False), id="ull"),
        pytest.param("long unsigned int x", T("long unsigned int", "int", 64, False), id="long-unsigned-int"),
        pytest.param("const volatile int x", T("int", "int", 32, True), id="qualifiers-stripped"),
        pytest.param("_Bool x", T("_Bool", "bool", 8), id="_Bool"),
        pytest.param("bool x", T("bool", "bool", 8), id="bool"),
        pytest.param("float x", T("float", "float", 32, True), id="float"),
        pytest.param("double x", T("double", "float", 64, True), id="double"),
        pytest.param("long double x", T("long double", "other"), id="long-double-other"),
        pytest.param("size_t x", T("size_t", "int", 64, False), id="size_t"),
        pytest.param("ssize_t x", T("ssize_t", "int", 64, True), id="ssize_t"),
        pytest.param("ptrdiff_t x", T("ptrdiff_t", "int", 64, True), id="ptrdiff_t"),
        pytest.param("uintptr_t x", T("uintptr_t", "int", 64, False), id="uintptr_t"),
        pytest.param("int8_t x", T("int8_t", "int", 8, True), id="int8_t"),
        pytest.param("uint16_t x", T("uint16_t", "int", 16, False), id="uint16_t"),
        pytest.param("uint64_t x", T("uint64_t", "int", 64, False), id="uint64_t"),
        pytest.param("int_least32_t x", T("int_least32_t", "int", 32, True), id="least32"),
        pytest.param("int_fast8_t x", T("int_fast8_t", "int", 8, True), id="fast8"),
        pytest.param("int_fast16_t x", T("int_fast16_t", "int", 64, True), id="fast16-is-long"),
        pytest.param("uint_fast32_t x", T("uint_fast32_t", "int", 64, False), id="ufast32-is-ulong"),
        pytest.param("mytype_t x", T("mytype_t", "other"), id="unknown-typedef"),
        pytest.param("struct s x", T("struct s", "other"), id="struct"),
        pytest.param("int *p", T("int *", "pointer", 64, pointee=T("int", "int", 32, True)), id="int-pointer"),
        pytest.param(
            "const char *s",
            T("const char *", "pointer", 64, pointee=T("const char", "int", 8, True), const=True),
            id="const-char-pointer",
        ),
        pytest.param(
            "char const * restrict s",
            T("const char *", "pointer", 64, pointee=T("const char", "int", 8, True), const=True),
            id="east-const-restrict",
        ),
        pytest.param(
            "uint8_t *const p",
            T("uint8_t *", "pointer", 64, pointee=T("uint8_t", "int", 8, False)),
            id="const-pointer-not-const-pointee",
        ),
        pytest.param("int a[]", T("int *", "pointer", 64, pointee=T("int", "int", 32, True)), id="array-is-pointer"),
        pytest.param(
            "const double a[16]",
            T("const double *", "pointer", 64, pointee=T("const double", "float", 64, True), const=True),
            id="sized-array-is-pointer",
        ),
        pytest.param("void *p", T("void *", "pointer", 64, pointee=T("void", "void")), id="void-pointer"),
        pytest.param(
            "char **argv",
            T("char **", "pointer", 64, pointee=T("char *", "pointer", 64, pointee=T("char", "int", 8, True))),
            id="pointer-to-pointer",
        ),
        pytest.param("struct s *p", T("struct s *", "other"), id="struct-pointer-other"),
        pytest.param("int m[][4]", T("int (*)[4]", "other"), id="array-of-arrays-other"),
        pytest.param("int (*cb)(int, int)", T("int (*)(int, int)", "other"), id="function-pointer-other"),
    ],
)
def test_parameter_types(decl, expected):
    sig = one(f"void f({decl}) {{}}").signature
    assert sig is not None
    (param,) = sig.params
    assert param.type == expected
    assert param.name in ("x", "p", "s", "a", "argv", "m", "cb")


@pytest.mark.parametrize(
    "src, ret",
    [
        pytest.param("int f(void){return 0;}", T("int", "int", 32, True), id="int"),
        pytest.param("void f(void){}", T("void", "void"), id="void"),
        pytest.param(
            "char *f(char *s){return s;}",
            T("char *", "pointer", 64, pointee=T("char", "int", 8, True)),
            id="char-pointer",
        ),
        pytest.param(
            "static const int *g(void){return 0;}",
            T("const int *", "pointer", 64, pointee=T("const int", "int", 32, True), const=True),
            id="static-const-int-pointer",
        ),
        pytest.param("unsigned long long f(void){return 0;}", T("unsigned long long", "int", 64, False), id="ull"),
        pytest.param(
            "__attribute__((noinline)) static inline uint32_t f(void){return 0;}",
            T("uint32_t", "int", 32, False),
            id="attribute-and-specifiers",
        ),
        pytest.param("struct s f(void){struct s r; return r;}", T("struct s", "other"), id="struct"),
        pytest.param(
            "int (*getfp(void))(int) { return 0; }", T("int (*)(int)", "other"), id="returns-function-pointer"
        ),
    ],
)
def test_return_types(src, ret):
    sig = one(src).signature
    assert sig is not None and sig.ret == ret


@pytest.mark.parametrize(
    "src, params, variadic",
    [
        pytest.param("int f(void){return 0;}", [], False, id="void-means-none"),
        pytest.param("int f(){return 0;}", [], False, id="empty-list"),
        pytest.param(
            "int f(int a, const char *fmt, ...){return 0;}", ["int a", "const char * fmt"], True, id="variadic"
        ),
        pytest.param("int f(int, double){return 0;}", ["int", "double"], False, id="unnamed"),
        pytest.param("int f(void *){return 0;}", ["void *"], False, id="unnamed-void-pointer-is-a-param"),
    ],
)
def test_parameter_lists(src, params, variadic):
    sig = one(src).signature
    assert [f"{p.type.text} {p.name}".strip() for p in sig.params] == params
    assert sig.variadic is variadic


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("int f(x) int x; { return x; }", id="k-and-r"),
        pytest.param("EXPORT int f(int x) { return x; }", id="macro-before-type"),
    ],
)
def test_unknown_declarators_give_no_signature_but_keep_the_function(src):
    fn = one(src)
    assert fn.name == "f"
    assert fn.signature is None


def test_signature_str_of_fixture_functions():
    sigs = {f.name: str(f.signature) for f in parse_functions(SEVERAL)}
    assert sigs["rotl32"] == "uint32_t (uint32_t x, unsigned r)"
    assert sigs["sum_u8"] == "uint64_t (const uint8_t * buf, size_t n)"
    assert sigs["skip_spaces"] == "const char * (const char * s)"
    assert sigs["total"] == "int (int count, ...)"
    assert sigs["main"] == "int (void)"


@pytest.mark.parametrize(
    "text, kind, bits, signed",
    [
        pytest.param("unsigned", "int", 32, False, id="unsigned"),
        pytest.param("const long long", "int", 64, True, id="const-long-long"),
        pytest.param("int_fast64_t", "int", 64, True, id="fast64"),
        pytest.param("const unsigned char *", "pointer", 64, False, id="pointer"),
        pytest.param("int (*)(int)", "other", 0, False, id="function-pointer"),
        pytest.param("foo_t", "other", 0, False, id="typedef"),
        pytest.param("long long long", "other", 0, False, id="nonsense"),
    ],
)
def test_ctype_from_text(text, kind, bits, signed):
    t = ctype_from_text(text)
    assert (t.kind, t.bits, t.signed) == (kind, bits, signed)


# --- specifiers and loops ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, is_static, is_inline",
    [
        pytest.param("square", True, False, id="static"),
        pytest.param("rotl32", True, True, id="static-inline"),
        pytest.param("clamp_ll", False, True, id="__inline__"),
        pytest.param("sum_u8", False, False, id="plain"),
    ],
)
def test_storage_and_inline(name, is_static, is_inline):
    fn = find_function(parse_functions(SEVERAL), name)
    assert (fn.is_static, fn.is_inline) == (is_static, is_inline)


@pytest.mark.parametrize(
    "body, has_loops, depth, calls",
    [
        pytest.param("return 1;", False, 0, 0, id="no-loop"),
        pytest.param("int c=0; while(x){x&=x-1;c++;} return c;", True, 1, 0, id="while"),
        pytest.param("do { g(); } while (x--); return 0;", True, 1, 1, id="do-while-with-call"),
        pytest.param("for(;;){ for(;;){ while(1) { g(h(x)); } } }", True, 3, 2, id="nested-three"),
        pytest.param("g(); for(int i=0;i<g();i++) {} g(); return 0;", True, 1, 1, id="call-in-loop-condition"),
        pytest.param("if (x) { for(;;) g(); } for(;;) g(); return 0;", True, 1, 2, id="sibling-loops"),
    ],
)
def test_loop_facts(body, has_loops, depth, calls):
    fn = one(f"int f(unsigned long x) {{ {body} }}")
    assert (fn.has_loops, fn.loop_depth, fn.calls_in_loops) == (has_loops, depth, calls)


def test_loop_facts_of_fixture():
    fns = {f.name: f for f in parse_functions(SEVERAL)}
    assert (fns["matrix_trace"].loop_depth, fns["matrix_trace"].calls_in_loops) == (2, 1)
    assert fns["skip_spaces"].loop_depth == 1
    assert not fns["square"].has_loops


# --- robustness ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "src, must_find",
    [
        pytest.param("", [], id="empty"),
        pytest.param("   \n\n", [], id="blank"),
        pytest.param("int f(void) {", ["f"], id="unclosed-brace"),
        pytest.param(
            "int f(void){ int a = 1\n return a; }\nint g(int y){ return y; }\n", ["f", "g"], id="missing-semicolon"
        ),
        pytest.param(
            "int f(void){ if (x { return 0; }\nint g(int y){ for(;;) h(); return y; }\n", ["g"], id="mid-edit-condition"
        ),
        pytest.param("int f(int a, {\n}\nint g(void){return 0;}", ["g"], id="half-typed-params"),
        pytest.param("}}}}{{{ int ))) ;;; #if\n", [], id="punctuation-soup"),
        pytest.param("\x00\x01\x02\xff int f(void){return 0;}", ["f"], id="control-characters"),
        pytest.param("int \ud800f(void){return 0;}", [], id="lone-surrogate"),
        pytest.param("#if A\nint f(void){\n#else\nint f(int x){\n#endif\n return 0; }\n", [], id="ifdef-split-header"),
        pytest.param("{" * 3000 + "}" * 3000, [], id="deep-nesting"),
    ],
)
def test_malformed_input_never_raises(src, must_find):
    fns = parse_functions(src)
    names = [f.name for f in fns]
    for name in must_find:
        assert name in names
    for fn in fns:
        assert fn.start_byte <= fn.body_start_byte <= fn.end_byte


def _without(text: str, snippet: str) -> str:
    i = text.index(snippet)
    return text[:i] + text[i + 1 :]


@pytest.mark.parametrize(
    "src, expected",
    [
        pytest.param("int f(int a, \nint g(void){return 0;}\n", [("g", 1, 1)], id="params-being-typed"),
        pytest.param("int f(int a, {\n}\nint g(void){return 0;}\n", [("g", 2, 2)], id="params-being-typed-with-brace"),
        pytest.param("static int\nf(int x, {\n}\nint g(void) {return 1;}\n", [("g", 3, 3)], id="two-line-header"),
        pytest.param(
            _without(SEVERAL, "}\n\nstatic const char"),
            [("sum_u8", 19, 25), ("matrix_trace", 27, 77), ("skip_spaces", 39, 45), ("main", 74, 77)],
            id="missing-closing-brace",
        ),
    ],
)
def test_half_typed_file_keeps_the_definitions_that_follow(src, expected):
    """While a header is being typed, the next definition must keep its own name and lines."""
    fns = parse_functions(src)
    lines = {(f.name, f.range.start.line, f.range.end.line) for f in fns}
    assert set(expected) <= lines
    if len(expected) == 1:
        assert [f.name for f in fns] == ["g"]  # the broken `f` must not claim g's body


def test_random_bytes_never_raise():
    import random

    rnd = random.Random(1234)
    for _ in range(50):
        data = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 400)))
        parse_functions(data)
        parse_functions(data.decode("latin-1"))


@pytest.mark.parametrize("path", [pytest.param("several.c", id="several"), pytest.param("hot_cold.c", id="hot_cold")])
def test_every_truncation_parses(path):
    """A file being typed from top to bottom: every definition already complete is still found, intact."""
    data = (SOURCES / path).read_bytes()
    full = parse_functions(data)
    for end in range(0, len(data) + 1, 7):
        prefix = data[:end]
        parse_functions(prefix.decode("utf-8", "replace"))  # str in: must not raise either
        fns = parse_functions(prefix)  # bytes in: offsets index them directly
        for fn in fns:
            assert prefix[fn.start_byte : fn.end_byte].decode("utf-8", "replace") == fn.text
        found = {(f.name, f.start_byte, f.end_byte, f.signature) for f in fns}
        for done in (f for f in full if f.end_byte <= end):
            assert (done.name, done.start_byte, done.end_byte, done.signature) in found, (end, done.name)


# --- prototypes and removal ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "src, name, make_extern, expected",
    [
        pytest.param(
            "__attribute__((noinline)) int f(uint64_t x) { return x; }",
            "f",
            False,
            "__attribute__((noinline)) int f(uint64_t x);",
            id="attribute",
        ),
        pytest.param(
            "static inline int f(int x) // note\n/* more */\n{ return x; }",
            "f",
            False,
            "static inline int f(int x);",
            id="trailing-comments-dropped",
        ),
        pytest.param("static inline int f(int x) { return x; }", "f", True, "int f(int x);", id="make-extern"),
        pytest.param(
            "static const char *\nskip(const char *s, int a[static 4])\n{ return s; }",
            "skip",
            True,
            "const char *\nskip(const char *s, int a[static 4]);",
            id="multi-line-array-static-kept",
        ),
        pytest.param(
            "__attribute__((always_inline)) __inline__ int f(void) { return 1; }",
            "f",
            True,
            "__attribute__((always_inline)) int f(void);",
            id="attribute-words-untouched",
        ),
    ],
)
def test_declaration_of(src, name, make_extern, expected):
    fn = find_function(parse_functions(src), name)
    assert declaration_of(fn, src.encode("utf-8"), make_extern=make_extern) == expected


needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("nm") is None, reason="needs gcc and nm")


@needs_gcc
@pytest.mark.parametrize("name", ["rotl32", "square", "sum_u8"])
def test_remove_definition_leaves_an_external_reference(tmp_path, name):
    fns = parse_functions(SEVERAL)
    fn = find_function(fns, name)
    out = remove_definition(SEVERAL, fn)
    assert out.count("\n") == SEVERAL.count("\n")
    assert fn.text not in out
    # every other definition is untouched, at the same line
    after = {f.name: f.range.start.line for f in parse_functions(out)}
    assert after == {f.name: f.range.start.line for f in fns if f.name != name}
    # the file still compiles, and the function is now an undefined external symbol
    src = tmp_path / "without.c"
    src.write_text(out + f"\nvoid *keep_{name}(void) {{ return (void *){name}; }}\n", encoding="utf-8")
    obj = tmp_path / "without.o"
    subprocess.run(["gcc", "-O1", "-c", str(src), "-o", str(obj)], check=True, capture_output=True)
    symbols = subprocess.run(["nm", str(obj)], check=True, capture_output=True, text=True).stdout
    assert f" U {name}\n" in symbols


def test_remove_definition_keeps_static_when_asked():
    fn = find_function(parse_functions(SEVERAL), "square")
    out = remove_definition(SEVERAL, fn, make_extern=False)
    assert "static int square(int v);" in out


def test_remove_definition_unstatics_earlier_prototypes():
    src = "static int g(int);\nint f(void) { return g(1); }\nstatic int g(int y) { return y; }\n"
    out = remove_definition(src, find_function(parse_functions(src), "g"))
    assert out == "int g(int);\nint f(void) { return g(1); }\nint g(int y);\n"


def test_remove_definition_with_stale_function_finds_it_again():
    fn = find_function(parse_functions(SEVERAL), "mean")
    edited = "/* a new first line */\n" + SEVERAL
    out = remove_definition(edited, fn)
    assert "double mean(double *xs, int n);" in out
    assert out.count("\n") == edited.count("\n")


def test_a_body_the_parser_cannot_read_is_still_a_definition():
    """zlib's inflate() splits an `if (` across #ifdef/#else: tree-sitter's recovery swallowed the
    whole definition. Its header is parsed alone and its end found by matching braces (outside
    comments, literals and #else branches), and what follows is found as before."""
    text = (FIXTURES / "real" / "zsplit.c").read_text()
    by_name = {f.name: f for f in parse_functions(text)}
    assert {"zs_static_init", "zs_init", "zs_check", "zs_after"} <= set(by_name), list(by_name)
    check = by_name["zs_check"]
    assert check.text.startswith("int ZEXPORT zs_check(uLong hold, int wrap) {") and check.text.endswith("return n;\n}")
    assert check.has_loops
    assert text[check.body_start_byte] == "{"
    assert by_name["zs_after"].text == "int ZEXPORT zs_after(int x) { return x + '}'; }"


def test_a_header_the_recovery_cannot_name_costs_that_one_not_every_function_of_the_file():
    """lz4's xxhash.c and lz4hc.c: tree-sitter's recovery cut one definition's header mid-list, a header with
    no name; that one raised, and the whole file had "no function definitions found" (the editor showed
    nothing on it). Every function is found, XXH32_endian_align with its whole body."""
    text = (SOURCES / "split_header.c").read_text()
    by_name = {f.name: f for f in parse_functions(text)}
    assert list(by_name) == ["XXH_rotl32", "XXH32_round", "XXH_readLE32_align", "XXH32_endian_align", "XXH32"]
    whole = by_name["XXH32_endian_align"].text
    assert whole.startswith("FORCE_INLINE U32\nXXH32_endian_align(") and whole.rstrip().endswith("return h32;\n}")


def test_a_header_whose_type_the_recovery_reads_as_the_name_gets_its_own_name():
    """lz4's xxhash.c: `XXH_PUBLIC_API XXH_errorcode XXH32_update (`. tree-sitter reads the unknown macro as
    the type, the typedef as the function's name, and the name as an error before the parameters: the
    function was "XXH_errorcode", like every other one that returns it, and never matched its code."""
    by_name = {f.name: f for f in parse_functions((FIXTURES / "real" / "namespaced.c").read_text())}
    assert list(by_name) == ["round32", "sum32", "add32"]
    assert by_name["add32"].text.startswith("XXH_PUBLIC_API XXH_errorcode add32 (sum_state *state,")
