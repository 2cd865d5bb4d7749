# The torch.compile guide. `make docs` and `make test` work on a fresh machine with python3.
export NO_MKDOCS_2_WARNING := 1
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SNIPPETS ?= snippets
CAPTURE_FLAGS ?=

.PHONY: help docs serve test test-fast check capture bench i18n-status i18n-stamp i18n-diff new-language clean

help:
	@echo "make docs     build the site into site/ (strict) from committed outputs"
	@echo "make serve    preview the site, rebuilding on change (NOTEBOOKS=true: with the chapters' notebooks)"
	@echo "make test     run the whole test suite, on every core (installs a CPU torch and Chromium first)"
	@echo "make test-fast  the tests that need no browser, notebook run, torch capture or guide build"
	@echo "              PYTEST_FLAGS=... to pass pytest options, such as -k NAME or -x"
	@echo "make check    check that every committed output is fresh"
	@echo "make capture  run snippets on this (GPU) machine and store their outputs"
	@echo "              SNIPPETS=path/to/file.py to capture some; CAPTURE_FLAGS=--force to redo"
	@echo "make i18n-status  per language and page: up to date, outdated (which sections), not translated or missing"
	@echo "make i18n-stamp PAGE=docs/ru/page.md  record that a translation follows the English page now"
	@echo "              STAMP_FLAGS=--no-edit-needed: an outdated page whose English change needs no edit in it"
	@echo "make i18n-diff PAGE=docs/ru/page.md   the English page's diff since the version the translation follows"
	@echo "make new-language LOCALE=ja  start a language: config, glossary and its pages to translate"
	@echo "make bench    time a warm docs build against plain Material, side by side (benchmarks/docs_build.py)"
	@echo "              BENCH_FLAGS=\"--repeats 9 --cold\" to pass options; capture: python3 benchmarks/build_and_capture.py --capture"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.site: $(BIN)/python requirements/site.txt pyproject.toml
	$(BIN)/python -m pip install -q -r requirements/site.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $@

$(VENV)/.test: $(VENV)/.site requirements/test.txt
	$(BIN)/python -m pip install -q -r requirements/test.txt
	touch $@

# The browser tests need a Chromium; install the distribution's package if there is none.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
$(VENV)/.browser: | $(BIN)/python
	command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }
	touch $@

# The build is recorded (tcguide/site/built.py): the tests read this site/ instead of building the
# guide again when it was built from the tree as it is (CI runs make docs, then make test).
docs: $(VENV)/.site
	$(BIN)/python -m tcguide built-site begin
	$(BIN)/mkdocs build --strict --clean
	$(BIN)/python -m tcguide built-site end

# --livereload, though it is MkDocs' default: under click 8.2.2 to 8.3.1 the default is lost (mkdocs issue
# 4032) and the server neither watches nor reloads. benchmarks/serve_reload.py measures an edit's reload.
NOTEBOOKS ?= false
serve: $(VENV)/.site
	TCGUIDE_NOTEBOOKS=$(NOTEBOOKS) $(BIN)/mkdocs serve --no-strict --livereload

# The test tiers are pytest markers (pyproject.toml): browser, notebooks, capture and build.
# `make test` runs them all on every core (pytest-xdist; an idle worker takes tests queued for
# a busy one), and the guide is built once for all workers (tests/conftest.py).
# `make test-fast` runs the tests with none of those marks.
PYTEST_FLAGS ?=
FAST_TIER := not browser and not notebooks and not capture and not build

test: $(VENV)/.test $(VENV)/.browser
	$(BIN)/python -m pytest -n auto --dist worksteal $(PYTEST_FLAGS)

test-fast: $(VENV)/.test
	$(BIN)/python -m pytest -n auto --dist worksteal -m "$(FAST_TIER)" $(PYTEST_FLAGS)

check:
	$(PYTHON) -m tcguide check

# Capture runs with the machine's own python3 (the one that has torch and CUDA), no virtualenv.
capture:
	$(PYTHON) -m tcguide capture $(CAPTURE_FLAGS) $(SNIPPETS)

# A warm `make docs` against the plain Material build of the same pages, interleaved, with repeats.
BENCH_FLAGS ?=
bench: $(VENV)/.site
	$(BIN)/python benchmarks/docs_build.py $(BENCH_FLAGS)

i18n-status: $(VENV)/.site
	$(BIN)/python -m tcguide i18n-status

STAMP_FLAGS ?=
i18n-stamp: $(VENV)/.site
	$(BIN)/python -m tcguide i18n-stamp $(STAMP_FLAGS) $(PAGE)

i18n-diff: $(VENV)/.site
	$(BIN)/python -m tcguide i18n-diff $(PAGE)

# LOCALE, not LANG: LANG is the shell's locale, and `make new-language LANG=ja` would hand it to
# every command of the recipe.
new-language: $(VENV)/.site
ifeq ($(origin LANG),command line)
	$(error make new-language takes LOCALE=<locale>, such as LOCALE=ja; LANG is the locale of your shell)
endif
	@test -n "$(LOCALE)" || { echo "make new-language LOCALE=<locale>, such as LOCALE=ja"; exit 2; }
	$(BIN)/python -m tcguide new-language $(LOCALE)

clean:
	rm -rf site $(VENV)
