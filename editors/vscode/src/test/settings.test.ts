import { test } from "node:test";
import assert from "node:assert/strict";
import { fake } from "./setup";
import { answerConfiguration, currentServerSettings, serverSettings, SERVER_KEYS } from "../settings";
import * as fs from "fs";
import * as path from "path";

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- package.json is read as plain JSON
const declared: Record<string, any> = Object.assign({}, ...manifest.contributes.configuration.map((g: any) => g.properties));

test("every server setting is declared in package.json, with a description, a default and a scope", () => {
  for (const key of [...SERVER_KEYS, "hints.diagnostics", "hints.inlayHints", "hints.codeLens", "hints.explainNoWin"]) {
    const p = declared[`supercoder.${key}`];
    assert.ok(p, `supercoder.${key} is not in package.json`);
    assert.ok(p.description || p.markdownDescription, `supercoder.${key} has no description`);
    assert.ok("default" in p, `supercoder.${key} has no default`);
    assert.ok(p.scope, `supercoder.${key} has no scope`);
  }
  for (const key of Object.keys(declared)) {
    const k = key.replace(/^supercoder\./, "");
    assert.ok((SERVER_KEYS as readonly string[]).includes(k) || k.startsWith("hints.") || k.startsWith("server.") || k.startsWith("trace."),
      `${key} is declared but never sent to the server nor used by the extension`);
  }
});

test("settings sent to the server: set values pass, unset ones are left to the server's defaults", () => {
  fake.config = {
    "supercoder.samples": 4, "supercoder.proposers": ["compilers", "openai"], "supercoder.baseUrl": "http://gpu:8000/v1",
    "supercoder.model": "m", "supercoder.flags": null, "supercoder.cacheDir": "", "supercoder.hints.codeLens": false,
    "supercoder.server.python": "/usr/bin/python3", "supercoder.trace.server": "verbose",
  };
  assert.deepEqual(currentServerSettings(), {
    samples: 4, proposers: ["compilers", "openai"], baseUrl: "http://gpu:8000/v1", model: "m", hints: { codeLens: false },
  });
});

test("the defaults in package.json are the server's own defaults", () => {
  const defaults = (k: string) => declared[`supercoder.${k}`].default;
  const got = serverSettings({ get: (k) => defaults(k) });
  assert.deepEqual(got, {
    proposers: ["compilers", "synth"], samples: 8, parallelJobs: 1, timeBudget: 300, hintMinSpeedup: 1.1, topFunctions: 3,
    inputs: 100000, minCoverage: 70, proofBudget: 30, synthBudget: 4, temperature: 0.7, refine: 2,
    hints: { diagnostics: true, inlayHints: true, codeLens: true, explainNoWin: true },
  });
});

test("workspace/configuration: our section is answered with server settings only, other sections pass through", () => {
  const got = answerConfiguration([{ section: "supercoder", scopeUri: "file:///p/a.c" }, { section: "editor" }],
    [{ server: { python: "x" }, samples: 2 }, { tabSize: 4 }], (scope) => ({ samples: 2, scope }));
  assert.deepEqual(got, [{ samples: 2, scope: "file:///p/a.c" }, { tabSize: 4 }]);
});
