// The one module that touches the VS Code API: everything else goes through it, so unit tests
// replace the `vscode` module with a small fake (see src/test/setup.ts) and run under plain Node.
import * as vscode from "vscode";

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
