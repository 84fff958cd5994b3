# Two commands for a newcomer:  `make run` (the app, with demo data)  and  `make test`.
# `make check` is the quick loop while changing code: lint, types and the tests that need no
# server process, database server or browser.
PYTHON ?= python3.13
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# The SQLite pass of `make test` runs on this many pytest-xdist workers: more than a 2-core
# machine's cores, as its browser and server tests spend much of their time waiting on other
# processes. `make check`'s tests only compute: one worker a core.
TEST_WORKERS ?= 4
CHECK_WORKERS ?= 2
# uv installs the dependencies in about a third of the time pip takes (pip installs uv first).
UV := $(VENV)/bin/uv
INSTALL := $(UV) pip install --quiet --python $(PY)
# The tests that need no server process, database server or browser (`make check`).
QUICK := not postgres and not redis and not browser and not server and not slow
# The tests whose database is PostgreSQL on `make test`'s PostgreSQL pass: the same cases as on
# SQLite where both databases must agree, and the faults only PostgreSQL has. Without the
# connection pool, which cannot set up a test database (pytest-django). Each test runs in one
# transaction, open from its start to its end: a pause between two of its statements on a
# machine busy with the SQLite pass is no stuck process, so the pass turns off the timeout that
# ends an idle transaction's session (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS).
POSTGRES_PASS := tests/nights/test_booking.py tests/nights/test_fields.py \
	tests/nights/test_pages.py tests/nights/test_who_played.py tests/nights/test_pot.py tests/test_names.py \
	tests/accounts/test_display_names.py \
	tests/services/loop_write_cases.py tests/services/fault_cases.py \
	tests/services/every_change_cases.py tests/tournaments/test_tournaments.py \
	tests/nights/booking_fault_cases.py
# The tests run on the allocator the servers run on (toepen_site/allocator.py); Playwright drives
# Debian's chromium and never downloads one.
PYTEST := env $$($(PY) -m toepen_site.allocator) PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(PY) -m pytest

.PHONY: run test check install install-dev compile messages lint bench-engine clean

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet 'uv>=0.13,<0.14'

# What serving needs, and nothing else (pyproject.toml's dependencies).
$(VENV)/.installed: pyproject.toml | $(UV)
	$(INSTALL) -e .
	touch $@

# The tests, the mypyc build, the linters and the benchmarks' tools too (the `dev` extra).
$(VENV)/.dev-installed: $(VENV)/.installed
	$(INSTALL) -e '.[dev]'
	touch $@

# The .mo files are built, not committed: compiled with polib, so no gettext tools are needed.
install: $(VENV)/.installed
	$(PY) manage.py compile_translations

install-dev: install $(VENV)/.dev-installed

# The view's, the engine's and the bots' hot modules compiled with mypyc, when changed
# (games/compiled.py names them, toepen_site/compile.py builds them; without a C compiler they
# run as Python, with a warning). The tests run on the build, as production does; `make run`
# leaves it out (a newcomer's first start stays quick) and uses one it finds.
compile: install-dev
	$(PY) -m toepen_site.compile

# The server runs on mimalloc where this Python has it (toepen_site/allocator.py). The demo's
# addresses are printed whole, and daphne's own line says where it listens.
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo --address http://$(HOST):$(PORT)
	env $$($(PY) -m toepen_site.allocator) $(VENV)/bin/daphne -b $(HOST) -p $(PORT) \
		toepen_site.asgi:application

# Two passes at once: the whole suite on SQLite (the default database), spread over
# TEST_WORKERS processes, and beside it the cases PostgreSQL must pass too, on the local server,
# whose report follows the SQLite pass's. The browser tests drive Debian's chromium, the proxy
# test runs Debian's nginx (tests/scaleout/test_proxy.py): installed here with apt-get when
# missing and this user is root (as on CI), else those tests skip (fail in CI). Without a
# PostgreSQL server that lets a role create databases, its tests skip (fail in CI), and what
# is missing is said first.
test: install-dev compile
	@if { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/sbin/nginx ]; } && [ "$$(id -u)" = 0 ] \
		&& command -v apt-get >/dev/null; then \
		echo "make test: installing chromium and nginx with apt-get (the browser and proxy tests)"; \
		apt-get update -qq && apt-get install -y -qq chromium nginx; fi
	@url=$$($(PY) -m tests.postgres) || exit 1; \
	report=$$(mktemp); pg=; postgres=0; \
	if [ -n "$$url" ]; then \
		echo "make test: the PostgreSQL pass, beside the SQLite pass ($(POSTGRES_PASS))"; \
		DATABASE_URL=$$url DATABASE_POOL_SIZE=0 DATABASE_CONN_MAX_AGE=0 \
			DATABASE_LOCK_TIMEOUT_MS=500 DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS=0 \
			$(PYTEST) -p no:cacheprovider $(POSTGRES_PASS) >$$report 2>&1 & pg=$$!; \
		trap 'kill $$pg 2>/dev/null' INT TERM; fi; \
	echo "make test: the suite on SQLite, on $(TEST_WORKERS) workers"; \
	$(PYTEST) -n $(TEST_WORKERS) --dist loadgroup; sqlite=$$?; \
	if [ -n "$$pg" ]; then \
		wait $$pg; postgres=$$?; \
		echo "make test: the PostgreSQL pass"; cat $$report; \
		$(PY) -m tests.postgres --drop $$url; fi; \
	rm -f $$report; [ $$sqlite = 0 ] && [ $$postgres = 0 ]

# The quick loop: formatting, lint, types, then the tests that start no server process and
# need no database server or browser (markers in pyproject.toml).
check: install-dev
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PYTEST) -q -n $(CHECK_WORKERS) -m "$(QUICK)"

# After adding or changing texts: refresh locale/*/django.po (needs gettext), then translate.
messages: install
	$(PY) manage.py makemessages -l nl -l de --no-location \
		--ignore='.venv/*' --ignore='tests/*' --ignore='bench/*' --ignore='staticfiles/*'

lint: install-dev
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench-engine: install-dev
	$(PY) bench/engine.py

clean:
	$(PY) -m toepen_site.compile --clean || true
	rm -rf $(VENV) db.sqlite3 staticfiles
