// How the server is started: an explicit command, supercoder.server.python, the interpreter the Python
// extension has selected (where it has the package: interpreters.ts), the workspace's .venv, or
// `supercoder-lsp` on PATH, in that order; the extension then looks further (interpreters.ts).
import * as fs from "fs";
import * as path from "path";

export interface ServerLaunch {
  command: string;
  args: string[];
  source: string; // which setting or place it came from, for the log
}

export interface LaunchSettings {
  command?: string[] | null;
  python?: string | null;
}

export type Exists = (file: string) => boolean;

export const isExecutable: Exists = (file) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

function onPath(name: string, envPath: string, exists: Exists): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (dir && exists(path.join(dir, name))) {
      return path.join(dir, name);
    }
  }
  return undefined;
}

export class LaunchError extends Error {}

export function resolveServer(
  settings: LaunchSettings, workspaceDirs: string[], envPath: string, exists: Exists = isExecutable, selected?: string,
): ServerLaunch {
  if (settings.command && settings.command.length) {
    const [command, ...args] = settings.command;
    const found = path.isAbsolute(command) ? exists(command) : onPath(command, envPath, exists) !== undefined;
    if (!found) {
      throw new LaunchError(`supercoder.server.command: '${command}' is not an executable file or on PATH.`);
    }
    return { command, args, source: "supercoder.server.command" };
  }
  if (settings.python) {
    if (!exists(settings.python)) {
      throw new LaunchError(`supercoder.server.python: '${settings.python}' is not an executable file.`);
    }
    return { command: settings.python, args: ["-m", "supercoder_lsp", "--stdio"], source: "supercoder.server.python" };
  }
  if (selected) {
    return { command: selected, args: ["-m", "supercoder_lsp", "--stdio"], source: "the Python extension's interpreter" };
  }
  for (const dir of workspaceDirs) {
    const candidate = path.join(dir, ".venv", "bin", "supercoder-lsp");
    if (exists(candidate)) {
      return { command: candidate, args: ["--stdio"], source: `the workspace's .venv (${dir})` };
    }
  }
  const found = onPath("supercoder-lsp", envPath, exists);
  if (found) {
    return { command: found, args: ["--stdio"], source: "PATH" };
  }
  throw new LaunchError(
    "Cannot find the SuperCoder language server. Install it (`pip install supercoder-lsp`, or `make setup` in a " +
      "clone) and select that Python in the Python extension, set supercoder.server.python to it, or put " +
      "supercoder-lsp on PATH; \"Set Up Server…\" lists the interpreters found with it.",
  );
}
