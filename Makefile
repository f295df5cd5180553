# Two commands set everything up: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PG_URL ?= postgres://postgres@127.0.0.1:5432/test
HOST ?= 127.0.0.1
PORT ?= 8000
# The demo's friendly local settings (DEBUG on, the published demo key, loopback host
# names, webhooks allowed to its own receiver on loopback), chosen here in so many words rather
# than left to whatever the defaults are.
DEMO_ENV := DJANGO_ENV=demo DJANGO_DEBUG=1 REVIEW_WEBHOOK_ALLOWED_NETWORKS=127.0.0.1/32

.PHONY: install test test-postgres seeds lint demo serve bench clean

# Reinstall whenever the lock or the project metadata (the client's too) changes.
$(STAMP): requirements.lock pyproject.toml client/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
# The API's client and its `grounding-review` command (client/), as pipelines install it.
	$(BIN)/python -m pip install --quiet --no-deps -e ./client
	touch $(STAMP)

install: $(STAMP)

# The project's own suite in two runs: the tests that start no browser and no server of their
# own in parallel (pytest-xdist, one process per core, each with its own test database), then
# the browser and trust tests one at a time (each run starts Chromium or a server once for all
# its tests). Then the acceptance run of the seed suites in ../shared/seeds.
PYTEST_PARALLEL := -n auto -m "not browser and not trust"
PYTEST_SERIAL := -m "browser or trust"

test: install
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)
	$(BIN)/python -m pytest $(PYTEST_SERIAL)
	$(BIN)/python scripts/run_seeds.py

# The same suite on PostgreSQL; .ci/run starts the server first.
test-postgres: install
	DATABASE_URL=$(PG_URL) $(BIN)/python -m pytest $(PYTEST_PARALLEL)
	DATABASE_URL=$(PG_URL) $(BIN)/python -m pytest $(PYTEST_SERIAL)

seeds: install
	$(BIN)/python scripts/run_seeds.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

demo: install
	$(DEMO_ENV) $(BIN)/python manage.py migrate --noinput
	$(DEMO_ENV) $(BIN)/python manage.py demo
	$(DEMO_ENV) scripts/with_demo_services.sh $(BIN)/python scripts/with_worker.sh $(BIN)/python $(BIN)/python manage.py runserver --noreload 127.0.0.1:8000

# For deployments: production settings (DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS and
# DATABASE_URL must be set; see README.md), static files collected into var/static for
# whitenoise, migrations applied, then gunicorn with gunicorn.conf.py on $(HOST):$(PORT).
serve: export DJANGO_ENV = production
serve: install
	$(BIN)/python manage.py check --deploy
	$(BIN)/python manage.py collectstatic --noinput --clear --verbosity 0
	$(BIN)/python manage.py migrate --noinput
# The background-task worker (manage.py db_worker) runs beside gunicorn and stops with it.
	HOST=$(HOST) PORT=$(PORT) exec scripts/with_worker.sh $(BIN)/python $(BIN)/gunicorn --config gunicorn.conf.py

bench: install
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) var
