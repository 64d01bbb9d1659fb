# The two commands of the README: `make serve` and `make test`. Both install what they need.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: serve test lint openapi clients bench-append clean

INTEGRATIONS = integrations/openai-agents integrations/langchain

$(STAMP): pyproject.toml openapi/clients/python/pyproject.toml $(INTEGRATIONS:%=%/pyproject.toml)
	@echo "engram: [1/4] creating $(VENV) and updating pip (a first install takes 2-4 minutes in all)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "engram: [2/4] installing PyTorch, CPU build (~1 minute; used once, to export the model)"
	# PyTorch first, pinned: this version's CPU build is what these machines carry; any other
	# resolution would pull a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	@echo "engram: [3/4] installing Engram, its dependencies and the clients (~1-2 minutes)"
	# The generated Python client too (the MCP tools, the tests and examples/ use it), and the
	# runtime adapters with their frameworks (openai-agents, langchain-core) for their live tests.
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e openapi/clients/python $(INTEGRATIONS:%=-e %)
	touch $(STAMP)
	@echo "engram: [4/4] installed"

serve: $(STAMP)          ## install, then serve on 127.0.0.1:8000 with the embedded PostgreSQL
	@echo "engram: starting: the embedded PostgreSQL, then the API (a first run also exports the model, ~30 s)"
	$(BIN)/engram serve

test: $(STAMP)           ## install, then lint, type-check and run every test
	scripts/ensure-redis
	scripts/ensure-chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

openapi: $(STAMP)        ## regenerate openapi/openapi.json from the app
	$(BIN)/engram openapi --output openapi/openapi.json

clients: $(STAMP)        ## regenerate openapi/clients/{python,typescript} from openapi/openapi.json
	scripts/gen-clients

bench-append: $(STAMP)   ## append throughput benchmark (prints figures)
	$(BIN)/python bench/append.py

clean:
	rm -rf $(VENV) .engram .pytest_cache .mypy_cache .ruff_cache
