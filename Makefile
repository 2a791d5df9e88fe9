# Linkplan developer commands. Every target sets up what it needs first:
# system packages (Debian/Ubuntu, only when missing) and a virtualenv with
# the pinned requirements, refreshed whenever those files change.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := resources/examples/jumbo_10gbe.toml
export QT_API := PySide6

.PHONY: run test lint test-core test-app fuzz bench dist smoke clean

$(STAMP): requirements.txt requirements-dev.txt .ci/system-deps
	bash .ci/system-deps
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $(STAMP)

## run: open the desktop app on the built-in example
run: $(STAMP)
	$(BIN)/python -m app

## test: the whole suite, headless
test: lint test-core test-app

# the layers contract (pyproject.toml [tool.importlinter])
lint: $(STAMP)
	$(BIN)/lint-imports --no-cache

# models/ and solvers/ tests with every Qt import blocked: the core runs
# without Qt (LINKPLAN_BLOCK_QT is read by tests/conftest.py).
test-core: $(STAMP)
	LINKPLAN_BLOCK_QT=1 $(BIN)/python -m pytest -p no:pytest-qt tests/models tests/solvers

test-app: $(STAMP)
	QT_QPA_PLATFORM=offscreen PYTEST_QT_API=pyside6 $(BIN)/python -m pytest tests/app tests/gui

## fuzz: mutated example documents, far more than make test runs; prints
## the counts (tried, refused, solved, other) and fails on any other
FUZZ_EXAMPLES ?= 50000
fuzz: $(STAMP)
	LINKPLAN_BLOCK_QT=1 $(BIN)/python -m tests.fuzzing $(FUZZ_EXAMPLES)

## bench: performance benchmarks (not part of make test)
bench: $(STAMP)
	$(BIN)/python -m tests.benchmarks

## dist: PyInstaller one-folder build in dist/linkplan
dist: $(STAMP)
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN build.spec

## smoke: the frozen build's smoke tests; then nothing shipped twice and
## --version loads no Qt (tests/frozen_build.py)
# a migration log the importer fits with scipy.optimize (scipy's OpenBLAS)
IMPORT_SAMPLES := tests/data/import/qmp_query_migrate_rounds.jsonl \
	tests/data/import/qmp_query_dirty_rate.json
smoke:
	dist/linkplan/linkplan --version
	dist/linkplan/linkplan solve $(EXAMPLE) --format json > /dev/null
	dist/linkplan/linkplan solve resources/examples/seed003_vmotion.toml --format csv > /dev/null
	dist/linkplan/linkplan solve resources/examples/seed000_lbt.toml --format csv > /dev/null
	dist/linkplan/linkplan advise resources/examples/seed002_hcibench.toml > /dev/null
	dist/linkplan/linkplan sweep $(EXAMPLE) --processes 2 > /dev/null
	dist/linkplan/linkplan import qemu $(IMPORT_SAMPLES) > /dev/null 2>&1
	QT_QPA_PLATFORM=offscreen dist/linkplan/linkplan --self-test
	$(BIN)/python -m tests.frozen_build dist/linkplan

clean:
	rm -rf build dist .pytest_cache
