"""Render the verification harness: every call goes through the ABI-checking
trampoline and writes one record (return value, hash of buffers) per input."""

from __future__ import annotations

from ..harness.inputs_c import render_inputs, ret_ctype, call_args
from ..harness.plan import Plan, ParamPlan


def _ret_bits(plan: Plan) -> str:
    r = plan.ret
    if r is None:
        return "0"
    if r.role == "float":
        return ("({ uint64_t b = 0; if (isnan(ret)) b = 0x7ff8000000000000ULL; else memcpy(&b, &ret, sizeof ret); b; })")
    if r.role == "int" and r.signed:
        return "(uint64_t)(int64_t)ret"
    return "(uint64_t)ret"


def _hash_buffers(plan: Plan) -> str:
    parts = ["uint64_t h = 0xcbf29ce484222325ULL;"]
    for k, p in enumerate(plan.params):
        if p.role == "array":
            parts.append(f"h = sc_fnv(h, in->pv[{k}], in->len[{k}] * sizeof({p.elem.ctype}));")
        elif p.role == "cstring":
            parts.append(f"h = sc_fnv(h, in->pv[{k}], in->len[{k}] + 1);")
    return " ".join(parts)


def _show_input(plan: Plan, fn: str) -> str:
    lines = [f'    printf("{fn}(");']
    for k, p in enumerate(plan.params):
        sep = ", " if k else ""
        if p.role == "float":
            lines.append(f'    printf("{sep}{p.name}=%.17g", ({p.ctype})in->fv[{k}]);')
        elif p.role in ("int", "bool", "length"):
            fmt = '%lld' if p.signed else '%llu'
            cast = "(long long)(int64_t)" if p.signed else "(unsigned long long)"
            lines.append(f'    printf("{sep}{p.name}={fmt}", {cast}in->iv[{k}]);')
        elif p.role == "cstring":
            lines.append(f'    printf("{sep}{p.name}=\\""); for (size_t t = 0; t < in->len[{k}] && t < 48; t++) {{ unsigned char c = ((unsigned char*)in->pv[{k}])[t]; '
                         f'if (c >= 32 && c < 127 && c != 34 && c != 92) putchar(c); else printf("\\\\x%02x", c); }} printf(in->len[{k}] > 48 ? "\\"... (%zu bytes)" : "\\"", in->len[{k}]);')
        else:
            et = p.elem.ctype
            fmt = "%.17g" if p.elem.role == "float" else ("%lld" if p.elem.signed else "%llu")
            cast = "(double)" if p.elem.role == "float" else ("(long long)" if p.elem.signed else "(unsigned long long)")
            lines.append(f'    printf("{sep}{p.name}={{"); for (size_t t = 0; t < in->len[{k}] && t < 12; t++) printf(t ? ", {fmt}" : "{fmt}", {cast}(({et}*)in->pv[{k}])[t]); '
                         f'printf(in->len[{k}] > 12 ? ", ...}} (%zu elements)" : "}}", in->len[{k}]);')
    lines.append('    printf(")\\n");')
    return "\n".join(lines)


def render_verify(plan: Plan, seed: int, n_random: int) -> str:
    """The verification harness: links with one object that defines `sc_fn`."""
    types, vals = call_args(plan, poison=True)
    ret = ret_ctype(plan)
    call = f"(({ret} (*)({', '.join(types)}))sc_tramp)({', '.join(vals)})"
    ret_decl = f"{ret} ret = " if plan.ret else "int ret = 0; (void)ret; "
    show_ret = ""
    if plan.ret is not None:
        if plan.ret.role == "float":
            show_ret = 'printf("%.17g\\n", (double)ret);'
        elif plan.ret.role == "int" and plan.ret.signed:
            show_ret = 'printf("%lld\\n", (long long)ret);'
        else:
            show_ret = 'printf("%llu\\n", (unsigned long long)ret);'
    else:
        show_ret = 'printf("(void)\\n");'
    return f"""#include "sc_rt.h"
#include "sc_sandbox.h"
extern void sc_tramp(void);
extern uint64_t sc_sent[6], sc_after[6], sc_rsp_before, sc_rsp_after, sc_flags_after, sc_nonce, sc_done;
extern uint32_t sc_state[4];
extern void *sc_target;
extern char sc_fn[];
{render_inputs(plan, seed, n_random)}

static volatile uint64_t sc_cur;
static void sc_on_signal(int sig) {{
    sc_write_s(2, sig == SIGALRM ? "timeout at input " : "crash at input ");
    sc_write_u64(2, sc_cur);
    sc_write_s(2, sig == SIGALRM ? "\\n" : " signal ");
    if (sig != SIGALRM) {{ sc_write_u64(2, (uint64_t)sig); sc_write_s(2, "\\n"); }}
    _exit(sig == SIGALRM ? 5 : 4);
}}
static void sc_on_sigsys(int sig, siginfo_t *si, void *ctx) {{
    (void)sig; (void)ctx;
    sc_write_s(2, "forbidden system call ");
    sc_write_u64(2, (uint64_t)si->si_syscall);
    sc_write_s(2, " at input ");
    sc_write_u64(2, sc_cur);
    sc_write_s(2, "\\n");
    _exit(6);
}}

static const char *const sc_reg[6] = {{"%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15"}};
static {ret} sc_invoke(sc_input *in) {{
    sc_rng jr = {{ sc_mix(sc_cur ^ 0xabcdef12345ULL) }};
    uint64_t junk = (sc_next(&jr) | 1) & 0xffffffffULL; (void)junk;
    for (int k = 0; k < 6; k++) sc_sent[k] = sc_next(&jr);
    sc_nonce = sc_next(&jr); sc_done = 0;
    sc_target = sc_fn;
    {"return " if plan.ret else ""}{call};
}}
static const char *sc_abi(void) {{
    if (sc_done != sc_nonce) return "return address (did not return through the caller)";
    for (int k = 0; k < 6; k++) if (sc_after[k] != sc_sent[k]) return sc_reg[k];
    if (sc_rsp_after != sc_rsp_before) return "%rsp";
    if (sc_flags_after & 0x400) return "direction flag";
    if ((sc_state[2] & ~0x3fU) != (sc_state[0] & ~0x3fU)) return "MXCSR"; /* control bits; the status flags are not preserved */
    if ((sc_state[3] & 0xffff) != (sc_state[1] & 0xffff)) return "x87 control word";
    return NULL;
}}
static uint64_t sc_record(sc_input *in, uint64_t *hash) {{
    {ret_decl}sc_invoke(in);
    {_hash_buffers(plan)}
    *hash = h;
    return {_ret_bits(plan)};
}}

int main(int argc, char **argv) {{
    static char altstack[1 << 16];
    stack_t ss = {{ .ss_sp = altstack, .ss_size = sizeof altstack }};
    sigaltstack(&ss, NULL);
    struct sigaction sa; memset(&sa, 0, sizeof sa);
    sa.sa_handler = sc_on_signal; sa.sa_flags = SA_ONSTACK;
    int sigs[] = {{SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGALRM, SIGABRT}};
    for (unsigned s = 0; s < sizeof sigs / sizeof *sigs; s++) sigaction(sigs[s], &sa, NULL);
    sa.sa_handler = NULL; sa.sa_sigaction = sc_on_sigsys; sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf); /* no allocation once sandboxed */
    sc_setup();
    sc_input in_s, *in = &in_s;
    if (argc == 3 && !strcmp(argv[1], "show")) {{
        sc_cur = strtoull(argv[2], 0, 10);
        sc_gen(sc_cur, in);
{_show_input(plan, "f")}
        sc_sandbox_enter(SC_STRICT);
        {ret_decl}sc_invoke(in);
        {show_ret}
{_show_input(plan, "after: f") if any(p.role == "array" and not p.ctype.startswith("const") for p in plan.params) else ""}
        fflush(stdout);
        return 0;
    }}
    if (argc != 4 || strcmp(argv[1], "run")) {{ fprintf(stderr, "usage: %s run N SECONDS | show I\\n", argv[0]); return 2; }}
    /* records go to stdout: the process needs no file of its own */
    uint64_t n = strtoull(argv[2], 0, 10);
    if (n > SC_NINPUTS) n = SC_NINPUTS;
    alarm((unsigned)atoi(argv[3]));
    sc_sandbox_enter(SC_STRICT);
    for (sc_cur = 0; sc_cur < n; sc_cur++) {{
        sc_gen(sc_cur, in);
        uint64_t rec[2]; const char *abi;
        rec[0] = sc_record(in, &rec[1]);
        if ((abi = sc_abi())) {{ fflush(stdout); fprintf(stderr, "abi-violation at input %llu: %s\\n", (unsigned long long)sc_cur, abi); return 3; }}
        fwrite(rec, sizeof rec, 1, stdout);
    }}
    fflush(stdout);
    return 0;
}}
"""
