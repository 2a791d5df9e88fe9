# Linkplan developer commands. Every target sets up what it needs first:
# system packages (Debian/Ubuntu, only when missing) and a virtualenv with
# the pinned requirements, refreshed whenever those files change.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := resources/examples/jumbo_10gbe.toml
export QT_API := PySide6

.PHONY: run test lint test-core test-app fuzz bench screenshots dist-venv dist smoke clean

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml .ci/system-deps
	bash .ci/system-deps
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements-dev.txt
	$(BIN)/python -m pip install --disable-pip-version-check -q --no-deps -e .
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
## the counts (tried, refused, solved, other) and fails on any other; then
## the hostile files, well-formed files of about 10 MB and FUZZ_FILES mutated
## import samples through the CLI
## in a 2 GiB process (tests/hostile_files.py), failing on any exit but
## 0/1/2, an internal error or a file over 60 s
FUZZ_EXAMPLES ?= 50000
FUZZ_FILES ?= 3000
FUZZ_SEED ?= 0
fuzz: $(STAMP)
	LINKPLAN_BLOCK_QT=1 $(BIN)/python -m tests.fuzzing $(FUZZ_EXAMPLES)
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m tests.hostile_files \
	  $(FUZZ_FILES) --seed $(FUZZ_SEED) --large > /dev/null

## bench: performance benchmarks (not part of make test)
bench: $(STAMP)
	$(BIN)/python -m tests.benchmarks

## screenshots: retake the README's and docs/'s screenshots, offscreen
## (pdftoppm, from poppler-utils, renders the report's pages)
screenshots: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python docs/screenshots/capture.py

# The frozen build's own virtualenv: the pinned set plus numpy rebuilt from
# its sdist against the OpenBLAS that scipy's wheel vendors (scipy.libs), so
# that the build ships one OpenBLAS (build.spec says why). The .pc file
# points numpy's meson build at that very file (LP64, symbols scipy_*); the
# run path finds it from site-packages/numpy/*/ as the wheels' own do.
DIST_VENV := build/venv
DIST_BIN := $(DIST_VENV)/bin
DIST_STAMP := $(DIST_VENV)/.installed
NUMPY_VERSION := $(shell sed -n 's/^numpy==//p' requirements.txt)

$(DIST_STAMP): requirements.txt requirements-dev.txt requirements-dist.txt .ci/system-deps
	bash .ci/system-deps g++ pkg-config
	$(PYTHON) -m venv $(DIST_VENV)
	$(DIST_BIN)/python -m pip install --disable-pip-version-check -q -r requirements-dist.txt
	rm -rf build/pkgconfig build/wheels
	site=$$($(DIST_BIN)/python -c 'import sysconfig; print(sysconfig.get_path("platlib"))') && \
	library=$$(cd "$$site/scipy.libs" && echo libscipy_openblas-*.so) && \
	mkdir -p build/pkgconfig && \
	printf '%s\n' "libdir=$$site/scipy.libs" \
	  "includedir=$$site/scipy_openblas32/include" \
	  "Name: scipy-openblas" "Description: the OpenBLAS of scipy's wheel" \
	  "Version: $$($(DIST_BIN)/python -c 'import scipy_openblas32; print(scipy_openblas32.__version__)')" \
	  "Libs: -L\$${libdir} -l:$$library -Wl,-rpath,\$$ORIGIN/../../scipy.libs" \
	  "Cflags: -I\$${includedir} -DBLAS_SYMBOL_PREFIX=scipy_" \
	  > build/pkgconfig/scipy-openblas.pc
	PATH="$(CURDIR)/$(DIST_BIN):$$PATH" PKG_CONFIG_PATH="$(CURDIR)/build/pkgconfig" \
	  $(DIST_BIN)/python -m pip wheel --disable-pip-version-check -q \
	  --no-deps --no-build-isolation --no-binary numpy -w build/wheels \
	  numpy==$(NUMPY_VERSION) -Csetup-args=-Dblas=scipy-openblas \
	  -Csetup-args=-Dlapack=scipy-openblas -Csetup-args=-Dallow-noblas=false
	$(DIST_BIN)/python -m pip install --disable-pip-version-check -q \
	  --no-deps --force-reinstall build/wheels/numpy-$(NUMPY_VERSION)-*.whl
	# the build tools go again: pydantic, scipy and pyarrow import Cython
	# when it is there, and PyInstaller would freeze it and setuptools
	$(DIST_BIN)/python -m pip uninstall --disable-pip-version-check -q -y \
	  $$(sed -n 's/==.*//p' requirements-dist.txt)
	touch $(DIST_STAMP)

dist-venv: $(DIST_STAMP)

## dist: PyInstaller one-folder build in dist/linkplan (its first run
## builds numpy from source: a few minutes)
dist: $(DIST_STAMP)
	$(DIST_BIN)/pyinstaller --noconfirm --clean --log-level WARN build.spec

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
