import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import {
  findLaunch, interpreterCandidates, launcherEnvironments, packageVersion, PythonEnvironments, scriptInterpreter, selectedInterpreter,
  withPackage,
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

/** A file reader over `files`; others throw, as unreadable files do. */
const reader = (files: Record<string, string>) => (f: string) => {
  if (!(f in files)) throw new Error(`ENOENT: ${f}`);
  return files[f];
};

test("the environments of the processes that started the extension host, from /proc, parent first", () => {
  const proc = reader({
    // code-server's server process: the PATH and VIRTUAL_ENV it was started with
    "/proc/200/environ": "HOME=/home/u\0PATH=/home/u/sc/bin:/usr/bin\0VIRTUAL_ENV=/home/u/sc\0EMPTY=\0",
    "/proc/200/stat": "200 (node (server) x) S 150 200 100 0 -1",
    "/proc/150/environ": "PATH=/usr/bin\0CONDA_PREFIX=/opt/conda\0",
    "/proc/150/stat": "150 (code-server) S 1 150 100 0 -1",
  });
  assert.deepEqual(launcherEnvironments(200, proc), [
    { PATH: "/home/u/sc/bin:/usr/bin", VIRTUAL_ENV: "/home/u/sc", CONDA_PREFIX: undefined },
    { PATH: "/usr/bin", VIRTUAL_ENV: undefined, CONDA_PREFIX: "/opt/conda" },
  ]); // stops at init (pid 1)
  assert.equal(launcherEnvironments(200, proc, 1).length, 1);
  // no /proc (macOS, Windows) or another user's process: nothing, and no error
  assert.deepEqual(launcherEnvironments(200, reader({})), []);
  assert.deepEqual(launcherEnvironments(0, proc), []);
});

test("the interpreter a supercoder-lsp script names: its #! line, or pip's exec line for long paths", () => {
  const files = reader({
    "/a": "#!/home/u/.local/share/pipx/venvs/supercoder-lsp/bin/python\nimport sys\n",
    "/b": "#!/bin/sh\n'''exec' \"/very/long/venv/bin/python\" \"$0\" \"$@\"\n' '''\nimport sys\n",
    "/c": "#!/usr/bin/env python3\n",
    "/d": "\u007fELF",
  });
  assert.equal(scriptInterpreter("/a", files), "/home/u/.local/share/pipx/venvs/supercoder-lsp/bin/python");
  assert.equal(scriptInterpreter("/b", files), "/very/long/venv/bin/python");
  assert.equal(scriptInterpreter("/c", files), undefined); // PATH decides: python3 on PATH is tried anyway
  assert.equal(scriptInterpreter("/d", files), undefined);
  assert.equal(scriptInterpreter("/missing", files), undefined);
});

test("an activated environment, the PATHs VS Code was started with, and ~/.local/bin are searched too", () => {
  const files = [
    "/ws/.venv/bin/python", "/home/u/act/bin/python", "/opt/conda/bin/python", "/home/u/.local/pipx/venvs/supercoder-lsp/bin/python",
    "/host/venv/bin/supercoder-lsp", "/host/venv/bin/python", "/home/u/sc/bin/supercoder-lsp", "/home/u/sc/bin/python",
    "/home/u/.local/bin/supercoder-lsp", "/usr/bin/python3.12", "/usr/bin/python3",
  ];
  const launchers = [
    { PATH: "/host/venv/bin:/usr/bin", VIRTUAL_ENV: "/home/u/act" }, // the extension host's own
    { PATH: "/home/u/sc/bin:/usr/bin", CONDA_PREFIX: "/opt/conda" }, // code-server's
  ];
  const shebangs = reader({ "/home/u/.local/bin/supercoder-lsp": "#!/usr/bin/python3.12\n" }); // pip install --user
  assert.deepEqual(interpreterCandidates(["/ws"], "/host/venv/bin:/usr/bin", "/home/u", only(...files), launchers, shebangs), [
    "/ws/.venv/bin/python", "/home/u/act/bin/python", "/opt/conda/bin/python", "/home/u/.local/pipx/venvs/supercoder-lsp/bin/python",
    "/host/venv/bin/python", "/home/u/sc/bin/python", "/usr/bin/python3.12", "/usr/bin/python3",
  ]);
});

test("code-server: a venv outside the workspace, on the PATH code-server was started with but not on the extension host's", async () => {
  const exists = only("/home/u/sc/bin/supercoder-lsp", "/home/u/sc/bin/python", "/usr/bin/python3");
  const hostPath = "/usr/local/bin:/usr/bin"; // a login shell's
  const launchers = [{ PATH: hostPath }, { PATH: `/home/u/sc/bin:${hostPath}` }];
  const check = has("/home/u/sc/bin/python");
  const got = await findLaunch({}, ["/ws"], hostPath, "/home/u", undefined, check, exists, launchers, reader({}));
  assert.deepEqual(got, { command: "/home/u/sc/bin/python", args: ["-m", "supercoder_lsp", "--stdio"], source: "found with supercoder-lsp 0.1.0" });
  // VIRTUAL_ENV alone (an activated venv whose bin the login shell dropped) finds it as well
  const venvOnly = [{ PATH: hostPath, VIRTUAL_ENV: "/home/u/sc" }];
  const byVenv = await findLaunch({}, ["/ws"], hostPath, "/home/u", undefined, check, exists, venvOnly, reader({}));
  assert.equal(byVenv.command, "/home/u/sc/bin/python");
  // without them (before this search), it is not found; settings still come first, and a wrong one is reported
  await assert.rejects(findLaunch({}, ["/ws"], hostPath, "/home/u", undefined, check, exists, [], reader({})), LaunchError);
  await assert.rejects(findLaunch({ python: "/nope" }, ["/ws"], hostPath, "/home/u", undefined, check, exists, launchers, reader({})),
    /supercoder.server.python: '\/nope'/);
});

test("a real script's interpreter is read from its first line", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sc-"));
  const script = path.join(dir, "supercoder-lsp");
  writeFileSync(script, `#!/opt/sc/bin/python3\nimport sys\n${"#".repeat(5000)}\n`);
  assert.equal(scriptInterpreter(script), "/opt/sc/bin/python3");
  rmSync(dir, { recursive: true });
});
