// What the extension sends to the server: the `supercoder.*` settings the server knows (see the server's
// lsp/settings.py), as initializationOptions and as the answer to workspace/configuration. Settings that
// belong to the extension itself (server.*, trace.*) never reach the server, which would call them unknown.
import { getConfiguration } from "./common/vscodeapi";

export const SERVER_KEYS = [
  "proposers", "samples", "parallelJobs", "timeBudget", "hintMinSpeedup", "topFunctions", "inputs", "minCoverage", "proofBudget", "synthBudget", "flags",
  "cacheDir", "tests", "benchInput", "workload", "candidatesDir", "baseUrl", "model", "hfModel", "temperature", "refine",
] as const;
export const HINT_KEYS = ["diagnostics", "inlayHints", "codeLens", "explainNoWin"] as const;

export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

/** The server's settings object from a reader of the `supercoder` section. Unset (null) values are left out,
 * so the server's defaults and the project's `.supercoder.toml` apply. */
export function serverSettings(cfg: ConfigReader): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const v = cfg.get<unknown>(key);
    if (v !== undefined && v !== null && !(typeof v === "string" && v.trim() === "")) {
      out[key] = v;
    }
  }
  const hints: Record<string, boolean> = {};
  for (const key of HINT_KEYS) {
    const v = cfg.get<boolean>(`hints.${key}`);
    if (typeof v === "boolean") {
      hints[key] = v;
    }
  }
  if (Object.keys(hints).length) {
    out.hints = hints;
  }
  return out;
}

export function currentServerSettings(scope?: { uri: unknown }): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a scope of any kind VS Code accepts
  return serverSettings(getConfiguration("supercoder", scope as any));
}

/** Answer a workspace/configuration request: our section gets the filtered settings, others pass through. */
export function answerConfiguration(
  items: { section?: string; scopeUri?: string }[],
  fallback: unknown[],
  settings: (scopeUri?: string) => Record<string, unknown>,
): unknown[] {
  return items.map((item, i) => (item.section === "supercoder" ? settings(item.scopeUri) : fallback[i]));
}
