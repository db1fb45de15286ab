# `make run` and `make test` are the two commands a new user needs (see README.md).
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
SANDBOX_PORT ?= 8100
PUBLIC_BASE_URL ?= http://127.0.0.1:$(PORT)
# honcho gives every process its own PORT, so the web port travels as WEB_PORT.
export PORT SANDBOX_PORT PUBLIC_BASE_URL

.PHONY: install run test lint format migrate seed schema clean bench bench-quick client

# Re-install only when the declared dependencies change.
S3_DOUBLE := tests/media/s3rver

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml $(S3_DOUBLE)/package-lock.json
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@# The Python client and its `socialpub` command (clients/python), tested in tests/clients.
	$(BIN)/pip install --quiet -e ./clients/python
	@# The S3 tests run against s3rver, which verifies signatures as S3 does (needs Node.js).
	@if command -v npm >/dev/null; then npm ci --prefix $(S3_DOUBLE) --no-audit --no-fund --silent; \
	else echo "npm not found: the S3 storage tests will be skipped"; fi
	@touch $@

install: $(VENV)/.installed

migrate: install
	$(BIN)/python manage.py migrate --no-input

# Foreground: web, worker and beat; one Ctrl-C stops them all. Seeds the demo data on every
# start (it is reused, with new keys); once everything answers, `welcome` prints the logins and
# a demo key last, below the workers' banners.
run: migrate
	$(BIN)/python manage.py collectstatic --no-input -v0
	$(BIN)/python manage.py seed_demo --quiet
	WEB_PORT=$(PORT) $(BIN)/honcho start -f Procfile

test: install
	$(BIN)/python -m pytest

# The whole stack under load for minutes (tests/long): the mixed load and the fault suites, each
# on a scratch database beside DATABASE_URL's PostgreSQL server (127.0.0.1:5432 when unset) and a
# private redis-server; prints their figures. PYTEST_ARGS picks suites (README: the soak).
.PHONY: test-long
test-long: install
	$(BIN)/python -m pytest tests/long -m long -s --no-cov $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file /dev/null

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Benchmarks (bench/run.py): each figure beside its ceiling, measured in the same run, on scratch
# databases created beside DATABASE_URL's (PostgreSQL) and scratch Redis databases of REDIS_URL's
# server. `bench` writes bench/results/latest.json; `bench-quick` (CI, under two minutes) writes
# bench/results/quick.json. Both fail only on a broken run, never on a missed goal.
BENCH_ENV = DATABASE_URL="$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}" \
	REDIS_URL="$${REDIS_URL:-redis://127.0.0.1:6379/0}"

bench: install
	$(BENCH_ENV) $(BIN)/python -m bench.run

bench-quick: install
	$(BENCH_ENV) $(BIN)/python -m bench.run --quick

schema: install
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file var/openapi.yaml

# The typed client of clients/python from the current API: its schema snapshot (openapi.json)
# and the generated package. Run it after changing the API; tests/clients fails until then.
client: install
	$(BIN)/python clients/python/generate.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .coverage
