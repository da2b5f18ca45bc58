# Quick start:  make demo   (set up, then optimize examples/popcount.c)
#               make test   (set up, then run the tests)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-fast lint docs setup system-tools venv editors vsix smoke-vscode bench clean

demo: setup
	$(BIN)/supercoder optimize examples/popcount.c

# the tests that time nothing against the machine's load run on JOBS workers, then the `serial` ones alone
JOBS ?= 2
test: setup
	$(BIN)/python -m pytest -q -n $(JOBS) --dist worksteal -m "not serial" --durations=25 -rs
	$(BIN)/python -m pytest -q -m serial --durations=5 -rs

test-fast: setup    ## each stage on its own, under a minute: no editors, no hyperfine
	$(BIN)/python -m pytest -q -n $(JOBS) -m fast

# ruff (lint + format), mypy, the import layers and the structure over the Python; tsc (strict) + ESLint over the extension; StyLua over the Lua
lint: setup
	$(BIN)/ruff check supercoder_lsp tests benchmarks server train
	$(BIN)/ruff format --check supercoder_lsp tests benchmarks server train
	$(BIN)/mypy supercoder_lsp
	$(BIN)/lint-imports --no-cache  # the layers (pyproject.toml [tool.importlinter])
	$(BIN)/python scripts/check_structure.py  # no import cycle; module and function sizes
	@if command -v npm >/dev/null; then cd editors/vscode && npm run -s lint; \
	else echo "note: npm not found; the extension and the Lua plugin are not linted"; fi

# the docs site (docs/, mkdocs.yml) into site/, warnings as errors; the option reference is generated
docs: setup
	$(BIN)/python docs/gen_reference.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

setup: system-tools venv editors

# the VS Code extension's build tools (TypeScript, vsce) from npm, when Node.js is here
editors:
	@if command -v npm >/dev/null; then \
	  [ -d editors/vscode/node_modules ] || (cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error); \
	else echo "note: npm not found; the VS Code extension is not built (apt-get install nodejs npm)"; fi

vsix: editors    ## editors/vscode/supercoder-lsp.vsix
	cd editors/vscode && npm run -s package

smoke-vscode: setup    ## the .vsix in a real VS Code (code-server + headless Chromium), screenshots in editors/vscode/smoke-out
	editors/vscode/scripts/smoke-code-server.sh

system-tools:
	@bash scripts/install-system-tools.sh

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,openai,hf,prove,train]'
	@touch $@

bench: setup
	$(BIN)/python benchmarks/bench_optimizer.py

clean:
	rm -rf $(VENV) build *.egg-info editors/vscode/node_modules editors/vscode/out editors/vscode/*.vsix
