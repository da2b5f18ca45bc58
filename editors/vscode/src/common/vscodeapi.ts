// The one module that touches the VS Code API: everything else goes through it, so unit tests
// replace the `vscode` module with a small fake (see src/test/setup.ts) and run under plain Node.
import * as vscode from "vscode";
import type { FoundInterpreter, PythonEnvironments } from "../interpreters";

export type Disposable = vscode.Disposable;
export type TextDocument = vscode.TextDocument;
export type Position = vscode.Position;
export type StatusBarItem = vscode.StatusBarItem;
export type LogOutputChannel = vscode.LogOutputChannel;
export type ExtensionContext = vscode.ExtensionContext;

export function getConfiguration(section: string, scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(section, scope);
}

export function workspaceFolders(): readonly vscode.WorkspaceFolder[] {
  return vscode.workspace.workspaceFolders ?? [];
}

export function onDidChangeConfiguration(listener: (e: vscode.ConfigurationChangeEvent) => unknown): Disposable {
  return vscode.workspace.onDidChangeConfiguration(listener);
}

export function activeTextEditor(): vscode.TextEditor | undefined {
  return vscode.window.activeTextEditor;
}

export function createLogOutputChannel(name: string): LogOutputChannel {
  return vscode.window.createOutputChannel(name, { log: true });
}

export function createStatusBarItem(id: string, priority: number): StatusBarItem {
  return vscode.window.createStatusBarItem(id, vscode.StatusBarAlignment.Left, priority);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- VS Code passes command arguments untyped
export function registerCommand(command: string, callback: (...args: any[]) => any): Disposable {
  return vscode.commands.registerCommand(command, callback);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- VS Code passes command arguments untyped
export function executeCommand<T>(command: string, ...rest: any[]): Thenable<T> {
  return vscode.commands.executeCommand<T>(command, ...rest);
}

export function showErrorMessage(message: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showErrorMessage(message, ...items);
}

export function showInformationMessage(message: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showInformationMessage(message, ...items);
}

export function showWarningMessage(message: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(message, ...items);
}

export function fileUri(path: string): vscode.Uri {
  return vscode.Uri.file(path);
}

/** VS Code's own diff editor between two files. */
export function openDiff(left: string, right: string, title: string): Thenable<unknown> {
  return vscode.commands.executeCommand("vscode.diff", vscode.Uri.file(left), vscode.Uri.file(right), title);
}

export function openSettings(query: string): Thenable<unknown> {
  return vscode.commands.executeCommand("workbench.action.openSettings", query);
}

export function parseUri(uri: string): vscode.Uri {
  return vscode.Uri.parse(uri);
}

export async function pickInstallSource(): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: true, canSelectFiles: true, canSelectMany: false, openLabel: "Install supercoder-lsp from here",
    title: "SuperCoder: the supercoder-lsp clone (or a .whl) to install into the extension's own environment",
    filters: { "Python wheel": ["whl"] },
  });
  return picked?.[0]?.fsPath;
}

/** The Python extension's environments API, where it is installed (activated if need be), else undefined. */
export async function pythonEnvironments(): Promise<PythonEnvironments | undefined> {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (!ext) return undefined;
  try {
    const exports = ext.isActive ? ext.exports : await ext.activate();
    return exports?.environments as PythonEnvironments | undefined;
  } catch {
    return undefined;
  }
}

/** The interpreters found with the package, and the other ways to get a server; the label picked, or undefined. */
export async function pickServer(found: FoundInterpreter[], others: string[]): Promise<string | undefined> {
  const items: vscode.QuickPickItem[] = [
    ...found.map((f) => ({ label: f.python, description: `supercoder-lsp ${f.version}` })),
    ...others.map((label) => ({ label })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: "SuperCoder: the Python that runs the language server",
    placeHolder: found.length ? "interpreters found with supercoder-lsp, or another way" : "none found with supercoder-lsp",
  });
  return picked?.label;
}

export async function askInterpreterPath(): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: "SuperCoder: a Python interpreter that has supercoder-lsp",
    placeHolder: "/home/me/venvs/sc/bin/python",
  });
}

export function withProgress<T>(title: string, task: (report: (message: string) => void) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false },
    (progress) => task((message) => progress.report({ message })));
}

export function updateGlobalSetting(section: string, key: string, value: unknown): Thenable<void> {
  return vscode.workspace.getConfiguration(section).update(key, value, vscode.ConfigurationTarget.Global);
}

export function setStatusBarMessage(text: string, ms: number): Disposable {
  return vscode.window.setStatusBarMessage(text, ms);
}
