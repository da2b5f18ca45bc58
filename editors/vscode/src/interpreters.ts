// Python interpreters that can run the server, where the user put supercoder-lsp: the one the Python
// extension has selected for the workspace (its environments API, as the Python tools extension template
// reads it), the workspace's virtual environments, an activated one (VIRTUAL_ENV, CONDA_PREFIX), pipx's, a
// virtual environment whose bin is on PATH, the interpreter a supercoder-lsp script on PATH or in
// ~/.local/bin names, and python3 on PATH. Each is asked whether it imports supercoder_lsp before it is
// offered or used. PATH and the activation variables are read from the extension host and from the
// processes that started it: a VS Code server (code-server, Remote - SSH) gives its extension host the
// environment of a login shell, which drops the PATH the server was started with.
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { Exists, isExecutable, LaunchError, LaunchSettings, resolveServer, ServerLaunch } from "./serverCommand";

/** What this extension uses of the Python extension's API (`extension.exports.environments`). */
export interface PythonEnvironments {
  getActiveEnvironmentPath(resource?: unknown): { path: string };
  resolveEnvironment(env: { path: string } | string): Promise<{ executable: { uri?: { fsPath: string } } } | undefined>;
}

/** The interpreter the Python extension has selected for `resource`, or undefined (no extension, none selected). */
export async function selectedInterpreter(envs: PythonEnvironments | undefined, resource?: unknown): Promise<string | undefined> {
  if (!envs) return undefined;
  try {
    const env = await envs.resolveEnvironment(envs.getActiveEnvironmentPath(resource));
    return env?.executable.uri?.fsPath;
  } catch {
    return undefined; // an API that changed or failed: the other places are still tried
  }
}

const VENV_DIRS = [".venv", "venv", "env", ".env"];

/** What the discovery reads of a process's environment. */
export interface LaunchEnv {
  PATH?: string;
  VIRTUAL_ENV?: string;
  CONDA_PREFIX?: string;
}

/** Reads a file's text, or throws (fs.readFileSync with "utf8"). */
export type ReadText = (file: string) => string;
const readText: ReadText = (file) => fs.readFileSync(file, "utf8");
/** The first KiB of a file (a script's #! lines; a binary is not read whole). */
const readHead: ReadText = (file) => {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(1024);
    return buf.toString("utf8", 0, fs.readSync(fd, buf, 0, buf.length, 0));
  } finally {
    fs.closeSync(fd);
  }
};

/** The environments of the processes that started this one (parent first, `depth` at most), from /proc
 * where it is readable (Linux, same user); none elsewhere. A VS Code server's extension host gets a login
 * shell's PATH, while its parent, the server, kept the PATH (and VIRTUAL_ENV) it was started with. */
export function launcherEnvironments(ppid: number = process.ppid, read: ReadText = readText, depth = 3): LaunchEnv[] {
  const out: LaunchEnv[] = [];
  for (let pid = ppid, i = 0; pid > 1 && i < depth; i++) {
    try {
      const vars = new Map<string, string>();
      for (const entry of read(`/proc/${pid}/environ`).split("\0")) {
        const eq = entry.indexOf("=");
        if (eq > 0) vars.set(entry.slice(0, eq), entry.slice(eq + 1));
      }
      out.push({ PATH: vars.get("PATH"), VIRTUAL_ENV: vars.get("VIRTUAL_ENV"), CONDA_PREFIX: vars.get("CONDA_PREFIX") });
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses
      const stat = read(`/proc/${pid}/stat`);
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      break; // no /proc, another user's process, or one that has exited
    }
  }
  return out;
}

/** The interpreter a console script runs with: its `#!` line, or the `exec` line pip writes under `#!/bin/sh`
 * for long paths. Undefined for `#!/usr/bin/env python3` (PATH decides) and unreadable files. */
export function scriptInterpreter(script: string, read: ReadText = readHead): string | undefined {
  let head: string;
  try {
    head = read(script).slice(0, 1024);
  } catch {
    return undefined;
  }
  const [first, second] = head.split("\n");
  const interp = first.startsWith("#!") ? first.slice(2).trim() : "";
  if (interp === "/bin/sh") return /^'''exec' "?([^" ]+)"?/.exec(second ?? "")?.[1];
  return path.isAbsolute(interp) && !interp.includes(" ") ? interp : undefined;
}

/** Interpreters that exist, in the order they are preferred; not yet asked for the package. `launchers`: the
 * environments of the extension host (process.env) and of the processes that started it (launcherEnvironments). */
export function interpreterCandidates(
  workspaceDirs: string[], envPath: string, home: string, exists: Exists = isExecutable, launchers: LaunchEnv[] = [],
  read: ReadText = readHead,
): string[] {
  const out: string[] = [];
  const add = (p: string | undefined) => {
    if (p && !out.includes(p) && exists(p)) out.push(p);
  };
  for (const dir of workspaceDirs) for (const v of VENV_DIRS) add(path.join(dir, v, "bin", "python"));
  // a virtual environment (or conda environment) activated in the shell VS Code was started from
  for (const env of launchers) for (const prefix of [env.VIRTUAL_ENV, env.CONDA_PREFIX]) if (prefix) add(path.join(prefix, "bin", "python"));
  // `pipx install supercoder-lsp` (older pipx, and newer ones under XDG data)
  add(path.join(home, ".local", "pipx", "venvs", "supercoder-lsp", "bin", "python"));
  add(path.join(home, ".local", "share", "pipx", "venvs", "supercoder-lsp", "bin", "python"));
  // supercoder-lsp on the extension host's PATH, then on the PATHs it was started with, then in ~/.local/bin
  // (pip install --user, pipx's links), whether or not that is on a PATH
  const dirs: string[] = [];
  for (const p of [envPath, ...launchers.map((e) => e.PATH ?? ""), path.join(home, ".local", "bin")]) {
    for (const d of p.split(path.delimiter)) if (d && !dirs.includes(d)) dirs.push(d);
  }
  for (const dir of dirs) {
    const script = path.join(dir, "supercoder-lsp");
    if (!exists(script)) continue;
    add(path.join(dir, "python")); // a venv's bin
    add(scriptInterpreter(script, read)); // the Python the script was installed for
  }
  for (const dir of envPath.split(path.delimiter)) if (dir) add(path.join(dir, "python3"));
  return out;
}

/** The supercoder-lsp version `python` imports, or undefined where it has no such package (or does not run). */
export type PackageCheck = (python: string) => Promise<string | undefined>;

export const packageVersion: PackageCheck = (python) =>
  new Promise((resolve) => {
    const code = "import importlib.metadata as m, supercoder_lsp; print(m.version('supercoder-lsp'))";
    execFile(python, ["-c", code], { timeout: 15_000 }, (err, stdout) => resolve(err ? undefined : stdout.trim() || "?"));
  });

export interface FoundInterpreter {
  python: string;
  version: string;
}

/** Those of `candidates` that have the package, in the same order. */
export async function withPackage(candidates: string[], check: PackageCheck = packageVersion): Promise<FoundInterpreter[]> {
  const versions = await Promise.all(candidates.map((p) => check(p)));
  return candidates.flatMap((python, i) => (versions[i] === undefined ? [] : [{ python, version: versions[i] as string }]));
}

/** How to start the server (resolveServer), where no setting names it and the usual places have none: the
 * Python extension's selected interpreter first where it has the package, then any interpreter found with it. */
export async function findLaunch(
  settings: LaunchSettings, workspaceDirs: string[], envPath: string, home: string, envs: PythonEnvironments | undefined,
  check: PackageCheck = packageVersion, exists: Exists = isExecutable, launchers: LaunchEnv[] = [], read: ReadText = readHead,
): Promise<ServerLaunch> {
  const explicit = Boolean(settings.command?.length) || Boolean(settings.python);
  let selected: string | undefined;
  if (!explicit) {
    const chosen = await selectedInterpreter(envs, workspaceDirs[0]);
    if (chosen && (await check(chosen)) !== undefined) selected = chosen;
  }
  try {
    return resolveServer(settings, workspaceDirs, envPath, exists, selected);
  } catch (e) {
    if (explicit || !(e instanceof LaunchError)) throw e;
    const [first] = await withPackage(interpreterCandidates(workspaceDirs, envPath, home, exists, launchers, read), check);
    if (!first) throw e;
    return { command: first.python, args: ["-m", "supercoder_lsp", "--stdio"], source: `found with supercoder-lsp ${first.version}` };
  }
}
