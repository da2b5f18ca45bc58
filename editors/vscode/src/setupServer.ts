// "SuperCoder: Set Up Server": a virtual environment of the extension's own (in its global storage) with
// supercoder-lsp installed from a clone, a wheel or a package index, then used as supercoder.server.python.
import { spawn } from "child_process";
import * as path from "path";

export interface SetupPlan {
  python: string; // the interpreter that will run the server
  steps: string[][];
}

export function setupPlan(basePython: string, storageDir: string, source: string): SetupPlan {
  const venv = path.join(storageDir, "venv");
  const python = path.join(venv, "bin", "python");
  return {
    python,
    steps: [
      [basePython, "-m", "venv", venv],
      [python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
      [python, "-m", "pip", "install", "--quiet", source],
      [python, "-m", "supercoder_lsp", "--version"],
    ],
  };
}

export class SetupError extends Error {}

/** Run the steps in order; the first that fails stops the set-up with its command and the end of its output. */
export async function runSetup(plan: SetupPlan, log: (line: string) => void, timeoutMs = 600_000): Promise<string> {
  let last = "";
  for (const argv of plan.steps) {
    log(`$ ${argv.join(" ")}`);
    last = await new Promise<string>((resolve, reject) => {
      const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.stdout.on("data", (d) => { out += d; });
      child.stderr.on("data", (d) => { out += d; });
      child.on("error", (e) => {
        clearTimeout(timer);
        reject(new SetupError(`${argv[0]} could not be run: ${e.message}`));
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        if (out.trim()) log(out.trim());
        if (code === 0) resolve(out.trim());
        else reject(new SetupError(`\`${argv.join(" ")}\` failed (${signal ?? `exit ${code}`}): ${out.trim().slice(-600)}`));
      });
    });
  }
  return last; // the server's --version line
}
