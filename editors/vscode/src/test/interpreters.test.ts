import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "child_process";
import {
  findLaunch, interpreterCandidates, packageVersion, PythonEnvironments, selectedInterpreter, withPackage,
} from "../interpreters";
import { LaunchError } from "../serverCommand";

const only = (...files: string[]) => (f: string) => files.includes(f);
const has = (...pythons: string[]) => async (p: string) => (pythons.includes(p) ? "0.1.0" : undefined);

/** The Python extension's environments API as it answers: the selected environment's path, resolved to its executable. */
function pythonExtension(executable: string | undefined, calls: unknown[] = []): PythonEnvironments {
  return {
    getActiveEnvironmentPath(resource?: unknown) {
      calls.push(resource);
      return { path: executable ? executable.replace(/\/bin\/python$/, "") : "" };
    },
    async resolveEnvironment(env) {
      const p = typeof env === "string" ? env : env.path;
      return executable && p ? { executable: { uri: { fsPath: executable } } } : undefined;
    },
  };
}

test("the Python extension's selected interpreter runs the server where it has the package", async () => {
  const calls: unknown[] = [];
  const envs = pythonExtension("/home/u/venvs/sc/bin/python", calls);
  assert.equal(await selectedInterpreter(envs, "/ws"), "/home/u/venvs/sc/bin/python");
  assert.deepEqual(calls, ["/ws"]); // asked for the workspace's interpreter
  // a venv outside the workspace, not on the extension host's PATH: found through the Python extension
  const got = await findLaunch({}, ["/ws"], "/usr/bin", "/home/u", envs, has("/home/u/venvs/sc/bin/python"), only());
  assert.deepEqual(got, {
    command: "/home/u/venvs/sc/bin/python", args: ["-m", "supercoder_lsp", "--stdio"], source: "the Python extension's interpreter",
  });
});

test("a selected interpreter without the package is passed over; settings still win", async () => {
  const envs = pythonExtension("/usr/bin/python3");
  const ws = await findLaunch({}, ["/ws"], "", "/home/u", envs, has(), only("/ws/.venv/bin/supercoder-lsp"));
  assert.equal(ws.command, "/ws/.venv/bin/supercoder-lsp");
  const set = await findLaunch({ python: "/opt/py/bin/python" }, ["/ws"], "", "/home/u", pythonExtension("/x/bin/python"),
    has("/x/bin/python", "/opt/py/bin/python"), only("/opt/py/bin/python"));
  assert.equal(set.source, "supercoder.server.python");
});

test("no Python extension, or one whose API fails: the other places are tried", async () => {
  assert.equal(await selectedInterpreter(undefined), undefined);
  const broken: PythonEnvironments = {
    getActiveEnvironmentPath() {
      throw new Error("API changed");
    },
    resolveEnvironment: async () => undefined,
  };
  assert.equal(await selectedInterpreter(broken), undefined);
  const got = await findLaunch({}, [], "/usr/local/bin", "/home/u", broken, has(), only("/usr/local/bin/supercoder-lsp"));
  assert.equal(got.source, "PATH");
});

test("the places searched: workspace venvs, pipx, a venv's bin on PATH, python3 on PATH, in that order", () => {
  const files = [
    "/ws/venv/bin/python", "/ws/.venv/bin/python", "/home/u/.local/share/pipx/venvs/supercoder-lsp/bin/python",
    "/opt/sc/bin/supercoder-lsp", "/opt/sc/bin/python", "/usr/bin/python3", "/usr/bin/python",
  ];
  assert.deepEqual(interpreterCandidates(["/ws"], "/opt/sc/bin:/usr/bin", "/home/u", only(...files)), [
    "/ws/.venv/bin/python", "/ws/venv/bin/python", "/home/u/.local/share/pipx/venvs/supercoder-lsp/bin/python",
    "/opt/sc/bin/python", "/usr/bin/python3",
  ]);
});

test("past the usual places, the first interpreter found with the package; else the error says what to do", async () => {
  const exists = only("/ws/env/bin/python", "/usr/bin/python3");
  const got = await findLaunch({}, ["/ws"], "/usr/bin", "/home/u", undefined, has("/ws/env/bin/python"), exists);
  assert.deepEqual(got, { command: "/ws/env/bin/python", args: ["-m", "supercoder_lsp", "--stdio"], source: "found with supercoder-lsp 0.1.0" });
  await assert.rejects(findLaunch({}, ["/ws"], "/usr/bin", "/home/u", undefined, has(), exists),
    (e: Error) => e instanceof LaunchError && /Set Up Server/.test(e.message) && /Python extension/.test(e.message));
  // an explicit setting that is wrong is reported as such, not papered over by a found interpreter
  await assert.rejects(findLaunch({ python: "/nope" }, ["/ws"], "/usr/bin", "/home/u", undefined, has("/ws/env/bin/python"), exists),
    /supercoder.server.python: '\/nope'/);
});

test("Set Up Server lists those found with the package, with their versions, in order", async () => {
  const found = await withPackage(["/a/bin/python", "/b/bin/python", "/c/bin/python"], has("/c/bin/python", "/a/bin/python"));
  assert.deepEqual(found, [{ python: "/a/bin/python", version: "0.1.0" }, { python: "/c/bin/python", version: "0.1.0" }]);
});

test("a real interpreter is asked for the package: one without it, and one that is not there, have none", async () => {
  const python3 = execFileSync("sh", ["-c", "command -v python3"]).toString().trim();
  const plain = execFileSync(python3, ["-c", "import importlib.util as u; print(u.find_spec('supercoder_lsp') is None)"]).toString().trim();
  if (plain === "True") assert.equal(await packageVersion(python3), undefined);
  assert.equal(await packageVersion("/nonexistent/bin/python"), undefined);
  const withIt = process.env.SUPERCODER_TEST_PYTHON; // the test suite's own venv (tests/editors/test_vscode_extension.py)
  if (withIt) assert.match((await packageVersion(withIt)) ?? "none", /^\d+\.\d+/);
});
