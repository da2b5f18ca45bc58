// The extension's commands, written against small interfaces (no VS Code or client types) so that unit
// tests drive them with fakes. extension.ts binds them to VS Code and to the language client.
import { functionAt } from "./functions";

export interface EditorState {
  uri: string;
  languageId: string;
  lines: string[];
  line: number;
}

export interface AssemblyPair {
  baseline: string;
  candidate: string;
  title: string;
}

export interface Deps {
  /** workspace/executeCommand on the server */
  call(command: string, args: unknown[]): Promise<unknown>;
  activeEditor(): EditorState | undefined;
  openDiff(left: string, right: string, title: string): Promise<unknown>;
  warn(message: string): void;
  info(message: string): void;
  showLog(): void;
  restart(): Promise<void>;
}

export const COMMANDS = {
  optimizeAtCursor: "supercoder.optimizeAtCursor",
  showAssemblyDiff: "supercoder.showAssemblyDiff",
  rerunFile: "supercoder.rerunFile",
  clearResultsCache: "supercoder.clearResultsCache",
  showLog: "supercoder.showLog",
  restartServer: "supercoder.restartServer",
  setupServer: "supercoder.setupServer", // registered in extension.ts: it needs the extension's storage
} as const;

function target(deps: Deps, uri?: string, name?: string): { uri: string; name: string } | undefined {
  if (uri && name) {
    return { uri, name };
  }
  const ed = deps.activeEditor();
  if (!ed || ed.languageId !== "c") {
    deps.warn("SuperCoder: open a C file and put the cursor inside a function.");
    return undefined;
  }
  const fn = functionAt(ed.lines, ed.line);
  if (!fn) {
    deps.warn(`SuperCoder: line ${ed.line + 1} is not inside a function definition.`);
    return undefined;
  }
  return { uri: ed.uri, name: fn };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- VS Code passes command arguments untyped
export function makeCommands(deps: Deps): Record<string, (...args: any[]) => Promise<unknown> | void> {
  return {
    [COMMANDS.optimizeAtCursor]: async (uri?: string, name?: string) => {
      const t = target(deps, uri, name);
      if (!t) return false;
      await deps.call("supercoder.optimizeFunction", [t.uri, t.name]);
      deps.info(`SuperCoder: optimizing ${t.name} in the background.`);
      return true;
    },
    [COMMANDS.showAssemblyDiff]: async (uri?: string, name?: string) => {
      const t = target(deps, uri, name);
      if (!t) return false;
      const pair = (await deps.call("supercoder.assemblyFiles", [t.uri, t.name])) as AssemblyPair | null;
      if (!pair) return false; // the server said why (no result yet)
      await deps.openDiff(pair.baseline, pair.candidate, pair.title);
      return true;
    },
    [COMMANDS.rerunFile]: async () => {
      const ed = deps.activeEditor();
      if (!ed || ed.languageId !== "c") {
        deps.warn("SuperCoder: open a C file to re-run.");
        return false;
      }
      await deps.call("supercoder.rerun", [ed.uri]);
      return true;
    },
    [COMMANDS.clearResultsCache]: async () => {
      const res = (await deps.call("supercoder.clearCache", [])) as { removed: number; directory: string } | null;
      return res;
    },
    [COMMANDS.showLog]: () => deps.showLog(),
    [COMMANDS.restartServer]: () => deps.restart(),
  };
}
