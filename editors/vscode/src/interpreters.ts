// Python interpreters that can run the server, where the user put supercoder-lsp: the one the Python
// extension has selected for the workspace (its environments API, as the Python tools extension template
// reads it), the workspace's virtual environments, pipx's, a virtual environment whose bin is on PATH, and
// python3 on PATH. Each is asked whether it imports supercoder_lsp before it is offered or used.
import { execFile } from "child_process";
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

/** Interpreters that exist, in the order they are preferred; not yet asked for the package. */
export function interpreterCandidates(workspaceDirs: string[], envPath: string, home: string, exists: Exists = isExecutable): string[] {
  const out: string[] = [];
  const add = (p: string) => {
    if (!out.includes(p) && exists(p)) out.push(p);
  };
  for (const dir of workspaceDirs) for (const v of VENV_DIRS) add(path.join(dir, v, "bin", "python"));
  // `pipx install supercoder-lsp` (older pipx, and newer ones under XDG data)
  add(path.join(home, ".local", "pipx", "venvs", "supercoder-lsp", "bin", "python"));
  add(path.join(home, ".local", "share", "pipx", "venvs", "supercoder-lsp", "bin", "python"));
  const dirs = envPath.split(path.delimiter).filter((d) => d);
  for (const dir of dirs) if (exists(path.join(dir, "supercoder-lsp"))) add(path.join(dir, "python")); // a venv's bin
  for (const dir of dirs) add(path.join(dir, "python3"));
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
  check: PackageCheck = packageVersion, exists: Exists = isExecutable,
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
    const [first] = await withPackage(interpreterCandidates(workspaceDirs, envPath, home, exists), check);
    if (!first) throw e;
    return { command: first.python, args: ["-m", "supercoder_lsp", "--stdio"], source: `found with supercoder-lsp ${first.version}` };
  }
}
