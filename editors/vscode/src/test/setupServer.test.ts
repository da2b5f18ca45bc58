import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { runSetup, SetupError, setupPlan } from "../setupServer";

const REPO = path.resolve(__dirname, "..", "..", "..", "..");

test("the plan: a venv in the extension's storage, the package from the chosen source, then a version check", () => {
  const plan = setupPlan("python3", "/store", "/src/supercoder-lsp");
  assert.equal(plan.python, "/store/venv/bin/python");
  assert.deepEqual(plan.steps[0], ["python3", "-m", "venv", "/store/venv"]);
  assert.deepEqual(plan.steps[2].slice(-1), ["/src/supercoder-lsp"]);
  assert.deepEqual(plan.steps[3], ["/store/venv/bin/python", "-m", "supercoder_lsp", "--version"]);
});

test("set-up from this clone gives a Python that runs the server", { timeout: 600_000 }, async () => {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), "sc-setup-"));
  try {
    const lines: string[] = [];
    const version = await runSetup(setupPlan("python3", store, REPO), (l) => lines.push(l));
    assert.match(version, /^supercoder-lsp \d+\.\d+/);
    assert.ok(fs.existsSync(path.join(store, "venv", "bin", "supercoder-lsp")));
    assert.ok(lines.some((l) => l.startsWith("$ ") && l.includes("pip install")));
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
});

test("a source that cannot be installed stops the set-up with pip's reason", { timeout: 600_000 }, async () => {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), "sc-setup-"));
  try {
    await assert.rejects(runSetup(setupPlan("python3", store, path.join(store, "no-such-clone")), () => {}),
      (e: Error) => e instanceof SetupError && /pip install/.test(e.message) && /no-such-clone/.test(e.message));
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
});
