// The extension's commands, written against small interfaces (no VS Code or client types) so that unit
// tests drive them with fakes. extension.ts binds them to VS Code and to the language client. Which function
// is at the cursor is the server's to say (it parses C): commands send the position.

export interface EditorState {
  uri: string;
  languageId: string;
  line: number;
  character: number;
}

/** A function, by name (from a code lens) or by a position inside it (the cursor). */
export type Where = string | { line: number; character: number };

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

function target(deps: Deps, uri?: string, name?: string): { uri: string; where: Where } | undefined {
  if (uri && name) {
    return { uri, where: name };
  }
  const ed = deps.activeEditor();
  if (!ed || ed.languageId !== "c") {
    deps.warn("SuperCoder: open a C file and put the cursor inside a function.");
    return undefined;
  }
  return { uri: ed.uri, where: { line: ed.line, character: ed.character } };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- VS Code passes command arguments untyped
export function makeCommands(deps: Deps): Record<string, (...args: any[]) => Promise<unknown> | void> {
  return {
    [COMMANDS.optimizeAtCursor]: async (uri?: string, name?: string) => {
      const t = target(deps, uri, name);
      if (!t) return false;
      // the server answers the function's name, or null after telling the user why there is none
      const fn = (await deps.call("supercoder.optimizeFunction", [t.uri, t.where])) as string | null;
      if (!fn) return false;
      deps.info(`SuperCoder: optimizing ${fn} in the background.`);
      return true;
    },
    [COMMANDS.showAssemblyDiff]: async (uri?: string, name?: string) => {
      const t = target(deps, uri, name);
      if (!t) return false;
      const pair = (await deps.call("supercoder.assemblyFiles", [t.uri, t.where])) as AssemblyPair | null;
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
