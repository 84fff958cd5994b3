# Two commands for a newcomer:  `make run` (the app, with demo data)  and  `make test`.
PYTHON ?= python3.13
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install compile messages lint bench-engine clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# The .mo files are built, not committed: compiled with polib, so no gettext tools are needed.
install: $(VENV)/.installed
	$(PY) manage.py compile_translations

# The view's, the engine's and the bots' hot modules compiled with mypyc, when changed
# (toepen_site/compiled.py; without a C compiler they run as Python, with a warning). The tests
# run on the build, as production does; `make run` leaves it out (a newcomer's first start stays
# quick) and uses one it finds.
compile: $(VENV)/.installed
	$(PY) -m toepen_site.compiled

# The server runs on mimalloc where this Python has it (toepen_site/allocator.py).
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	env $$($(PY) -m toepen_site.allocator) $(VENV)/bin/daphne -b $(HOST) -p $(PORT) \
		toepen_site.asgi:application

# The browser tests drive Debian's chromium (Playwright never downloads a browser), the proxy
# test runs Debian's nginx (tests/scaleout/test_proxy.py): installed here when missing and this
# user may (root, as on CI), else those tests skip (fail in CI). The tests run on the allocator
# the servers run on (toepen_site/allocator.py).
test: install compile
	@if { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/sbin/nginx ]; } && [ "$$(id -u)" = 0 ] \
		&& command -v apt-get >/dev/null; then \
		apt-get update -qq && apt-get install -y -qq chromium nginx; fi
	env $$($(PY) -m toepen_site.allocator) PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(PY) -m pytest

# After adding or changing texts: refresh locale/*/django.po (needs gettext), then translate.
messages: install
	$(PY) manage.py makemessages -l nl -l de --no-location \
		--ignore='.venv/*' --ignore='tests/*' --ignore='bench/*' --ignore='staticfiles/*'

lint: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench-engine: install
	$(PY) bench/engine.py

clean:
	$(PY) -m toepen_site.compiled --clean || true
	rm -rf $(VENV) db.sqlite3 staticfiles
