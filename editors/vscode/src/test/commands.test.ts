import { test } from "node:test";
import assert from "node:assert/strict";
import { COMMANDS, Deps, EditorState, makeCommands } from "../commands";

function harness(editor?: EditorState, replies: Record<string, unknown> = {}) {
  const calls: [string, unknown[]][] = [];
  const diffs: [string, string, string][] = [];
  const warnings: string[] = [];
  const deps: Deps = {
    call: async (c, a) => { calls.push([c, a]); return replies[c] ?? null; },
    activeEditor: () => editor,
    openDiff: async (l, r, t) => { diffs.push([l, r, t]); },
    warn: (m) => warnings.push(m),
    info: () => {},
    showLog: () => {},
    restart: async () => {},
  };
  return { cmds: makeCommands(deps), deps, calls, diffs, warnings };
}

const C: EditorState = { uri: "file:///p/a.c", languageId: "c", line: 2, character: 4 };

test("optimize at cursor sends the cursor; the server resolves the function and names it", async () => {
  const infos: string[] = [];
  const h = harness(C, { "supercoder.optimizeFunction": "f" });
  const cmds = makeCommands({ ...h.deps, info: (m) => infos.push(m) });
  assert.equal(await cmds[COMMANDS.optimizeAtCursor](), true);
  assert.deepEqual(h.calls, [["supercoder.optimizeFunction", ["file:///p/a.c", { line: 2, character: 4 }]]]);
  assert.match(infos[0], /optimizing f in the background/);
});

test("outside a function (the server says null), or in another language, nothing more happens", async () => {
  const h = harness(C);  // the server answers null and has shown why
  assert.equal(await h.cmds[COMMANDS.optimizeAtCursor](), false);
  const py = harness({ ...C, languageId: "python" });
  assert.equal(await py.cmds[COMMANDS.showAssemblyDiff](), false);
  assert.equal(py.calls.length, 0);
});

test("the side-by-side assembly opens VS Code's diff between the -O3 and the candidate files", async () => {
  const pair = { baseline: "/c/f.O3.s", candidate: "/c/f.gcc_march_native.s", title: "f: -O3 \u2194 gcc_march_native (2.00x)" };
  const h = harness(undefined, { "supercoder.assemblyFiles": pair });
  assert.equal(await h.cmds[COMMANDS.showAssemblyDiff]("file:///p/a.c", "f"), true);  // from the code lens
  assert.deepEqual(h.diffs, [[pair.baseline, pair.candidate, pair.title]]);
  const none = harness(C);  // no result yet: the server explains, nothing opens
  assert.equal(await none.cmds[COMMANDS.showAssemblyDiff](), false);
  assert.equal(none.diffs.length, 0);
});

test("re-run and clear cache reach the server", async () => {
  const h = harness(C, { "supercoder.clearCache": { removed: 3, directory: "/c" } });
  await h.cmds[COMMANDS.rerunFile]();
  assert.deepEqual(await h.cmds[COMMANDS.clearResultsCache](), { removed: 3, directory: "/c" });
  assert.deepEqual(h.calls.map((c) => c[0]), ["supercoder.rerun", "supercoder.clearCache"]);
});
