# Quick start:  make demo   (set up, then optimize examples/popcount.c)
#               make test   (set up, then run the tests)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test setup system-tools venv bench clean

demo: setup
	$(BIN)/supercoder optimize examples/popcount.c

test: setup
	$(BIN)/python -m pytest -q

setup: system-tools venv

system-tools:
	@bash scripts/install-system-tools.sh

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,openai,hf]'
	@touch $@

bench: setup
	$(BIN)/python benchmarks/bench_optimizer.py

clean:
	rm -rf $(VENV) build *.egg-info
