import { test } from "node:test";
import assert from "node:assert/strict";
import { LaunchError, resolveServer } from "../serverCommand";

const only = (...files: string[]) => (f: string) => files.includes(f);

test("an explicit command wins and must exist", () => {
  const got = resolveServer({ command: ["/opt/sc/bin/supercoder-lsp", "--stdio"], python: "/usr/bin/python3" }, [], "/usr/bin",
    only("/opt/sc/bin/supercoder-lsp", "/usr/bin/python3"));
  assert.deepEqual(got, { command: "/opt/sc/bin/supercoder-lsp", args: ["--stdio"], source: "supercoder.server.command" });
  assert.throws(() => resolveServer({ command: ["/nope", "--stdio"] }, [], "", only()), /supercoder.server.command: '\/nope'/);
});

test("a Python interpreter runs the module", () => {
  const got = resolveServer({ python: "/venv/bin/python" }, ["/ws"], "/usr/bin", only("/venv/bin/python"));
  assert.deepEqual(got.args, ["-m", "supercoder_lsp", "--stdio"]);
  assert.throws(() => resolveServer({ python: "/missing/python" }, [], "", only()), LaunchError);
});

test("then the workspace's .venv, then PATH", () => {
  const ws = resolveServer({}, ["/ws"], "/usr/local/bin", only("/ws/.venv/bin/supercoder-lsp", "/usr/local/bin/supercoder-lsp"));
  assert.equal(ws.command, "/ws/.venv/bin/supercoder-lsp");
  const onPath = resolveServer({ command: [] }, ["/ws"], "/a:/usr/local/bin", only("/usr/local/bin/supercoder-lsp"));
  assert.equal(onPath.command, "/usr/local/bin/supercoder-lsp");
});

test("nothing found: the error says how to install and what to set", () => {
  assert.throws(() => resolveServer({}, ["/ws"], "/usr/bin", only()),
    (e: Error) => /pip install supercoder-lsp/.test(e.message) && /supercoder.server.python/.test(e.message));
});
