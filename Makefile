# Two commands set everything up: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PG_URL ?= postgres://postgres@127.0.0.1:5432/test

.PHONY: install test test-postgres seeds lint demo bench clean

# Reinstall whenever the lock or the project metadata changes.
$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

# The project's own suite, then the acceptance run of the seed suites in ../shared/seeds.
test: install
	$(BIN)/python -m pytest
	$(BIN)/python scripts/run_seeds.py

# The same suite on PostgreSQL; .ci/run starts the server first.
test-postgres: install
	DATABASE_URL=$(PG_URL) $(BIN)/python -m pytest

seeds: install
	$(BIN)/python scripts/run_seeds.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

demo: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

bench: install
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) var
