// Activation: start the server, wire settings, status bar, log and commands. The logic lives in small
// modules (settings, serverCommand, status, commands) that unit tests cover without VS Code.
import {
  ExecuteCommandRequest, LanguageClient, LanguageClientOptions, State, TransportKind,
} from "vscode-languageclient/node";
import * as os from "os";
import * as api from "./common/vscodeapi";
import { COMMANDS, makeCommands } from "./commands";
import {
  findLaunch, interpreterCandidates, launcherEnvironments, LaunchEnv, packageVersion, selectedInterpreter, withPackage,
} from "./interpreters";
import { LaunchError } from "./serverCommand";
import { answerConfiguration, currentServerSettings } from "./settings";
import { runSetup, setupPlan } from "./setupServer";
import { ServerStatus, statusView } from "./status";

let client: LanguageClient | undefined;
const INSTALL = "Install supercoder-lsp into a new environment…";
const ENTER = "Enter an interpreter path…";
const workspaceDirs = () => api.workspaceFolders().map((f) => f.uri.fsPath);
// the extension host's environment and those of the processes that started it (a VS Code server's extension
// host has a login shell's PATH, not the one the server was started with)
const launchers = (): LaunchEnv[] => [process.env, ...launcherEnvironments()];

export async function activate(context: api.ExtensionContext): Promise<void> {
  const log = api.createLogOutputChannel("SuperCoder");
  const bar = api.createStatusBarItem("supercoder.status", 100);
  bar.name = "SuperCoder";
  bar.command = COMMANDS.showLog;
  context.subscriptions.push(log, bar);
  let last: ServerStatus | undefined;
  let state: "starting" | "running" | "stopped" | "failed" = "starting";
  const render = () => {
    const v = statusView(last, state);
    bar.text = v.text;
    bar.tooltip = v.tooltip;
    bar.show();
  };
  render();

  const call = async (command: string, args: unknown[]) => {
    if (!client || client.state !== State.Running) {
      api.showWarningMessage("SuperCoder: the server is not running (see SuperCoder: Show Log).");
      return null;
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  };

  const commands = makeCommands({
    call,
    activeEditor: () => {
      const ed = api.activeTextEditor();
      if (!ed) return undefined;
      return {
        uri: ed.document.uri.toString(), languageId: ed.document.languageId,
        line: ed.selection.active.line, character: ed.selection.active.character,
      };
    },
    openDiff: async (l, r, t) => api.openDiff(l, r, t),
    warn: (m) => void api.showWarningMessage(m),
    info: (m) => {
      log.info(m);
      api.setStatusBarMessage(m, 5000);
    },
    showLog: () => log.show(true),
    restart: async () => {
      await stop();
      await start();
    },
  });
  for (const [id, fn] of Object.entries(commands)) {
    context.subscriptions.push(api.registerCommand(id, fn));
  }

  async function start(): Promise<void> {
    const cfg = api.getConfiguration("supercoder");
    let launch;
    const envs = launchers();
    try {
      launch = await findLaunch(
        { command: cfg.get<string[]>("server.command"), python: cfg.get<string | null>("server.python") },
        workspaceDirs(), process.env.PATH ?? "", os.homedir(), await api.pythonEnvironments(), undefined, undefined, envs,
      );
    } catch (e) {
      const message = e instanceof LaunchError ? e.message : String(e);
      log.error(message);
      envs.forEach((env, i) => log.info(`searched ${i ? `the environment of the process ${i} level(s) up` : "the extension host's environment"}: ` +
        `PATH=${env.PATH ?? ""}${env.VIRTUAL_ENV ? ` VIRTUAL_ENV=${env.VIRTUAL_ENV}` : ""}${env.CONDA_PREFIX ? ` CONDA_PREFIX=${env.CONDA_PREFIX}` : ""}`));
      state = "failed";
      render();
      // not awaited: activation must not wait for the user to answer
      void api.showErrorMessage(`SuperCoder: ${message}`, "Set Up Server…", "Open Settings", "Show Log").then((pick) => {
        if (pick === "Set Up Server…") void setUpServer();
        if (pick === "Open Settings") void api.openSettings("supercoder.server");
        if (pick === "Show Log") log.show(true);
      });
      return;
    }
    log.info(`starting the server: ${launch.command} ${launch.args.join(" ")} (from ${launch.source})`);
    const options: LanguageClientOptions = {
      documentSelector: [{ scheme: "file", language: "c" }],
      outputChannel: log,
      traceOutputChannel: log,
      initializationOptions: currentServerSettings(),
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const fallback = (await next(params, token)) as unknown[];
            return answerConfiguration(params.items, Array.isArray(fallback) ? fallback : [],
              (scopeUri) => currentServerSettings(scopeUri ? { uri: api.parseUri(scopeUri) } : undefined));
          },
        },
        // the server's "Show assembly" (code lens, code action) opens VS Code's own diff view here
        executeCommand: async (command, args, next) =>
          command === "supercoder.showAssembly"
            ? commands[COMMANDS.showAssemblyDiff](args[0], args[1])
            : next(command, args),
      },
    };
    client = new LanguageClient("supercoder", "SuperCoder",
      { command: launch.command, args: launch.args, transport: TransportKind.stdio }, options);
    client.onDidChangeState((e) => {
      state = e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped";
      render();
    });
    client.onNotification("supercoder/status", (params: ServerStatus) => {
      last = params;
      render();
    });
    try {
      await client.start();
    } catch (e) {
      log.error(`the server did not start: ${e}`);
      state = "failed";
      render();
      return;
    }
  }

  // an interpreter found with the package, one the user names, or a virtual environment of the extension's
  // own with supercoder-lsp from a clone or wheel the user picks
  async function setUpServer(source?: string): Promise<boolean> {
    if (source === undefined) {
      const selected = await selectedInterpreter(await api.pythonEnvironments(), workspaceDirs()[0]);
      const places = interpreterCandidates(workspaceDirs(), process.env.PATH ?? "", os.homedir(), undefined, launchers());
      const found = await withPackage(selected && !places.includes(selected) ? [selected, ...places] : places);
      const pick = await api.pickServer(found, [INSTALL, ENTER]);
      if (pick === undefined) return false;
      if (pick === ENTER) return useInterpreter(await api.askInterpreterPath());
      if (pick !== INSTALL) return useInterpreter(pick);
    }
    source = source ?? (await api.pickInstallSource());
    if (!source) return false;
    const plan = setupPlan("python3", context.globalStorageUri.fsPath, source);
    try {
      const version = await api.withProgress("SuperCoder: setting up the server", (report) =>
        runSetup(plan, (line) => {
          log.info(line);
          if (line.startsWith("$ ")) report(line.slice(2, 80));
        }));
      log.info(`set up ${version} in ${plan.python}`);
      await api.updateGlobalSetting("supercoder", "server.python", plan.python); // restarts the server
      api.showInformationMessage(`SuperCoder: ${version} is set up.`);
      return true;
    } catch (e) {
      log.error(String(e));
      api.showErrorMessage(`SuperCoder: the set-up failed: ${e instanceof Error ? e.message : e}`, "Show Log")
        .then((p) => p && log.show(true));
      return false;
    }
  }
  async function useInterpreter(python: string | undefined): Promise<boolean> {
    if (!python) return false;
    const version = await packageVersion(python);
    if (version === undefined) {
      void api.showErrorMessage(`SuperCoder: ${python} does not import supercoder_lsp (pip install supercoder-lsp there).`);
      return false;
    }
    log.info(`using ${python} (supercoder-lsp ${version})`);
    await api.updateGlobalSetting("supercoder", "server.python", python); // restarts the server
    return true;
  }
  context.subscriptions.push(api.registerCommand(COMMANDS.setupServer, (source?: string) => setUpServer(source)));

  async function stop(): Promise<void> {
    if (client) {
      const c = client;
      client = undefined;
      try {
        await c.stop();
      } catch (e) {
        log.warn(`stopping the server: ${e}`);
      }
    }
  }

  context.subscriptions.push(api.onDidChangeConfiguration(async (e) => {
    if (e.affectsConfiguration("supercoder.server")) {
      log.info("server settings changed: restarting the server");
      await stop();
      await start();
    } else if (e.affectsConfiguration("supercoder") && client?.state === State.Running) {
      await client.sendNotification("workspace/didChangeConfiguration", { settings: null });
    }
  }));
  context.subscriptions.push({ dispose: () => void stop() });
  await start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
    client = undefined;
  }
}
