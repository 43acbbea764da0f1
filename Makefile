# The two set-up commands of the README. Each creates what it needs (a .venv) on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/alicorn demo

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(BIN)/.installed
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -q

# The benchmark gets its own venv: the peers it compares against (DBOS, LangGraph) stay out of the dev venv.
BENCH_VENV ?= .venv-bench
BENCH_BIN := $(BENCH_VENV)/bin
BENCH_ARGS ?=

$(BENCH_BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_BIN)/python -m pip install -q --upgrade pip
	$(BENCH_BIN)/python -m pip install -q -e '.[bench]'
	touch $@

bench: $(BENCH_BIN)/.installed
	$(BENCH_BIN)/python bench/runtime_bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .alicorn .pytest_cache .mypy_cache .ruff_cache
