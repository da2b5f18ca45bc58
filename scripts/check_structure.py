"""make lint: the package's structure stays as docs/architecture.md says.

- no import cycle between modules (import-linter checks the layers between packages; a cycle inside
  one package is this script's to find), imports inside functions and under TYPE_CHECKING included;
- no module over MAX_MODULE lines, and no function over MAX_FUNCTION lines unless the line above its
  `def` is a comment starting `# long:` that says why.

Modules and functions that were over before these limits were set are listed in DEBT with the size
they had then: they may shrink, never grow, and a new one may not join them. Splitting them is the
rest of issue 44; the script prints what is left.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp

PACKAGE = "supercoder_lsp"
MAX_MODULE = 450
MAX_FUNCTION = 60

# path or path:function -> lines when the limits were set (2026-12-07)
DEBT = {
    "asm/parse.py:parse": 62,
    "build/debuginfo.py:ctype_of": 82,
    "build/project.py:project_library": 65,
    "cli.py:parser": 68,
    "harness/inputs_c.py:render_inputs": 137,
    "harness/inputs_records.py:_owned": 63,
    "harness/inputs_buffers.py:_buffer": 133,
    "harness/plan.py:make_plan": 119,
    "harness/plan.py:describe": 69,
    "harness/recorded.py:render_recorder": 74,
    "hotness/callgrind.py:parse_callgrind_file": 64,
    "measure/timing_driver.py:render_timing": 98,
    "measure/interleaved.py:_run": 65,
    "optimize/pipeline.py:run": 74,
    "optimize/function_setup.py:_harness_and_timer": 91,
    "optimize/replace.py:check": 71,
    "propose/synth_search.py:_binary": 72,
    "propose/synth.py:_helpers": 66,
    "verify/function_check.py:prepare": 75,
    "verify/comparison.py:_compare": 103,
    "verify/harness_c.py:_plain_callers": 101,
    "verify/harness_c.py:render_verify": 101,
    "verify/program_state.py:record_program": 78,
}


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    mods = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in mods:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on.add(v)
            for j in range(i, len(edges[v])):
                w = edges[v][j]
                if w not in index:
                    work += [(v, j + 1), (w, 0)]
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
    return out


def sizes(root: Path) -> dict[str, tuple[int, bool]]:
    """path -> (lines, excused) and path:function -> (lines, excused by a `# long:` comment)."""
    out: dict[str, tuple[int, bool]] = {}
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        text = p.read_text()
        lines = text.splitlines()
        out[rel] = (len(lines), False)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                above = lines[first - 2].strip() if first >= 2 else ""
                out[f"{rel}:{node.name}"] = (node.end_lineno - node.lineno + 1, above.startswith("# long:"))
    return out


def main() -> int:
    root = Path(__file__).resolve().parents[1] / PACKAGE
    problems = [f"import cycle: {' <-> '.join(c)}" for c in cycles(grimp.build_graph(PACKAGE))]
    debt = []
    for name, (n, excused) in sizes(root).items():
        limit = MAX_FUNCTION if ":" in name else MAX_MODULE
        if n <= limit or excused:
            continue
        if name not in DEBT:
            problems.append(
                f"{name}: {n} lines, over {limit} (split it, or for a function say why in a '# long:' comment)"
            )
        elif n > DEBT[name]:
            problems.append(f"{name}: {n} lines, grew past the {DEBT[name]} it had when the limit was set")
        else:
            debt.append(f"{name} ({n})")
    print(f"structure: {len(debt)} modules and functions still over the limits: {', '.join(debt)}")
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
