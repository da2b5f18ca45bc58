// Loaded with `node --require` before the unit tests: `require("vscode")` gets this fake, which holds
// just what src/common/vscodeapi.ts uses. Tests set `fake.config` to play the user's settings.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Node module loader, to hand tests a fake vscode
import Module = require("module");

export const fake = {
  config: {} as Record<string, unknown>,
  scopes: [] as unknown[],
};

const vscode = {
  workspace: {
    getConfiguration(section: string, scope?: unknown) {
      fake.scopes.push(scope);
      return {
        get<T>(key: string): T | undefined {
          return fake.config[`${section}.${key}`] as T | undefined;
        },
      };
    },
    workspaceFolders: [],
  },
  Uri: {
    file: (p: string) => ({ fsPath: p, scheme: "file", toString: () => `file://${p}` }),
    parse: (s: string) => ({ fsPath: s.replace(/^file:\/\//, ""), scheme: "file", toString: () => s }),
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fake module loader hooks Node internals
const original = (Module as any)._load;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fake module loader hooks Node internals
(Module as any)._load = function (request: string, ...rest: unknown[]) {
  return request === "vscode" ? vscode : original.call(this, request, ...rest);
};
