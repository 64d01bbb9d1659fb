# The two commands of the README: `make serve` and `make test`. Both install what they need.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: serve test test-fast lint openapi clients bench bench-locomo bench-append bench-hostile bench-webhooks bench-encryption clean

INTEGRATIONS = integrations/openai-agents integrations/langchain

# The tests run on every core: one pytest-xdist process per core (`make test PYTEST_WORKERS=0` for
# one process), each with a PostgreSQL server and a Redis database of its own (tests/conftest.py);
# a file's tests stay together on one process, so a module's fixtures are made once.
PYTEST_WORKERS ?= auto
PYTEST = $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile
# Machines that set PYTHONDONTWRITEBYTECODE=1 would have every test run rewrite ~100 test modules in
# every worker, and every `engram` process the system tests start compile app/ from source again.
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): requirements-dev.lock requirements-integrations.in pyproject.toml openapi/clients/python/pyproject.toml $(INTEGRATIONS:%=%/pyproject.toml)
	@echo "engram: [1/4] creating $(VENV) (a first install takes 2-4 minutes in all)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "engram: [2/4] installing every dependency from requirements-dev.lock (versions and hashes)"
	# Every third-party package of Engram (build backends and the adapters' frameworks included;
	# its dev and otel extras, so the tests trace too) at the version and hash of the lock: the same
	# install on every machine. torch 2.13.0+cpu is the CPU build these machines carry.
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.lock
	@echo "engram: [3/4] installing Engram, its client and the runtime adapters"
	# Engram, its generated client (the MCP tools, the tests and examples/ use it) and the runtime
	# adapters from this checkout, resolving nothing beyond the lock: their frameworks came with it,
	# and their engram-client is this checkout's (PyPI's project of that name is somebody else's).
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e . -e openapi/clients/python \
		$(INTEGRATIONS:%=-e %)
	$(BIN)/python -m pip check
	touch $(STAMP)
	@echo "engram: [4/4] installed"

serve: $(STAMP)          ## install, then serve on 127.0.0.1:8000 with the embedded PostgreSQL
	@echo "engram: starting: the embedded PostgreSQL, then the API (a first run also exports the model, ~30 s)"
	$(BIN)/engram serve

test: $(STAMP)           ## install, then lint, type-check and run every test (every property test's full examples)
	scripts/ensure-redis
	scripts/ensure-chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(PYTEST)

# The quick loop draws a fifth of each property test's examples, the schemathesis run's included
# (the `quick` Hypothesis profile, tests/support/examples.py); `make test` and CI draw all of them.
test-fast: $(STAMP)      ## the quick loop: tests/unit and tests/api without the `slow` ones, a fifth of the property tests' examples (no lint)
	scripts/ensure-redis
	$(PYTEST) tests/unit tests/api -m "not slow" --hypothesis-profile=quick

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

openapi: $(STAMP)        ## regenerate openapi/openapi.json from the app
	$(BIN)/engram openapi --output openapi/openapi.json

clients: $(STAMP)        ## regenerate openapi/clients/{python,typescript} from openapi/openapi.json
	scripts/gen-clients

bench: $(STAMP)          ## the headline figures in under 10 minutes: append, memory read, indexing (prints them)
	# Short runs of the full benchmarks (each starts its own PostgreSQL and API processes, stops
	# them after): 2 API processes, 3 interleaved rounds each, medians. See docs/benchmarks.md.
	scripts/ensure-redis
	scripts/ensure-wrk
	$(BIN)/python -m bench.append --api-workers 2 --only single batch100 --concurrency 16 --seconds 8 --warmup 2 --repeat 3 --quiet-wait 5
	$(BIN)/python -m bench.memory --procs 2 --budgets 2000 --scenarios redis --sessions 20 --seconds 8 --warmup 3 --repeat 3 --quiet-wait 5
	$(BIN)/python -m bench.indexing throughput --n 3000 --backends onnx-int8-mixed --batch-sizes 128 --repeat 3 --load-wait 10

bench-locomo: $(STAMP)   ## search quality on LoCoMo dev (../shared/data/locomo; --data for another file) next to BM25
	# rank-bm25 is the baseline's only package outside the test lock (the `bench` extra).
	$(BIN)/python -m pip install --quiet rank-bm25==0.2.2
	$(BIN)/python -m bench.locomo.run --modes hybrid

bench-append: $(STAMP)   ## append throughput benchmark (prints figures)
	$(BIN)/python -m bench.append

bench-hostile: $(STAMP)  ## attacks on one live process while another tenant is measured (prints figures)
	$(BIN)/python -m bench.hostile.attacks

bench-webhooks: $(STAMP) ## webhook delivery latency after commit, p50/p95/p99 (prints figures)
	$(BIN)/python -m bench.webhooks

bench-encryption: $(STAMP) ## encryption at rest on vs off: append and memory-read throughput (prints figures)
	$(BIN)/python -m bench.encryption

clean:
	rm -rf $(VENV) .engram .pytest_cache .mypy_cache .ruff_cache
