#!/usr/bin/env node
// StyLua (the WebAssembly build from npm, no native binary) over the Neovim plugin's Lua files.
//   node scripts/stylua.cjs --check DIR...   exit 1 and list the files that are not formatted
//   node scripts/stylua.cjs DIR...           format them in place
// Settings: editors/neovim/.stylua.toml (column_width, indent_width; spaces).
"use strict";
const fs = require("fs");
const path = require("path");
const stylua = require("@johnnymorganz/stylua");

const args = process.argv.slice(2);
const check = args[0] === "--check";
const dirs = check ? args.slice(1) : args;

function luaFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return luaFiles(p);
    return e.name.endsWith(".lua") ? [p] : [];
  });
}

function configFor(dir) {
  const config = stylua.Config.new();
  config.indent_type = stylua.IndentType.Spaces;
  config.indent_width = 2;
  config.column_width = 120;
  const toml = path.join(dir, ".stylua.toml");
  if (fs.existsSync(toml)) {
    const text = fs.readFileSync(toml, "utf8");
    const num = (key) => {
      const m = text.match(new RegExp(`^${key}\\s*=\\s*(\\d+)`, "m"));
      return m ? Number(m[1]) : undefined;
    };
    config.column_width = num("column_width") ?? config.column_width;
    config.indent_width = num("indent_width") ?? config.indent_width;
  }
  return config;
}

let bad = 0;
for (const dir of dirs) {
  for (const file of luaFiles(dir)) {
    const code = fs.readFileSync(file, "utf8");
    // a Config is moved into the WebAssembly call: a fresh one for every file
    const formatted = stylua.formatCode(code, configFor(dir), undefined, stylua.OutputVerification.Full);
    if (formatted === code) continue;
    if (check) {
      console.error(`not formatted: ${file}`);
      bad++;
    } else {
      fs.writeFileSync(file, formatted);
    }
  }
}
process.exit(bad ? 1 : 0);
