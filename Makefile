# Batchline: `make run` starts the app, `make test` runs every check. Both bootstrap .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench bench-more chaos monkey clean package

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; v=sys.version_info[:2]; sys.exit(0 if (3,11)<=v<(3,14) else "Batchline needs Python 3.11 to 3.13, found %d.%d: run make with PYTHON=python3.12" % v)'
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { echo "Python venv support is missing: install it (Debian/Ubuntu: sudo apt install python3-venv)"; exit 1; }
	@echo "Setting up Batchline in $(VENV) (first run, or pyproject.toml changed): installing its packages (about a minute, only this once)…"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --progress-bar off -e '.[dev]' || { echo "Installing Batchline's packages failed (see pip's message above): check the network and run make again"; exit 1; }
	@touch $(STAMP)
	@echo "Batchline is installed in $(VENV)."

run: $(STAMP)
	@echo "Starting Batchline…"
	@$(BIN)/batchline

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# Line and branch coverage is gated per package (tests/coverage_gate.py): core/ledger,
# core/controller and core/comfy at 95 % or more each, everything measured at 90 %.
pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest --cov --cov-report=term:skip-covered \
		--cov-report=json:coverage.json $(PYTEST_ARGS)
	$(BIN)/python tests/coverage_gate.py coverage.json

# `make bench`: whether Batchline keeps a fast GPU fed (bench/feed.py, BENCHMARKS.md): one
# table of figures, targets and same-run baselines, written to bench/results.json (~10 min);
# then bench/turbo.py: 90 ms jobs with the old defaults, the adaptive ones, the deep queue (~6 min);
# then bench/model_order.py: models placed and kept loaded (BENCHMARKS.md "Models", ~3 min).
# `make bench-more`: the ledger, bulk commands, the picture search over 100,000 jobs (~30 s),
# controller kills, the GUI and its contact sheet, the Library tab over 100,000 pictures (~75 s).
bench: $(STAMP)
	$(BIN)/python bench/feed.py
	$(BIN)/python -m bench.turbo
	$(BIN)/python -m bench.model_order

bench-more: $(STAMP)
	$(BIN)/python bench/ledger.py
	$(BIN)/python bench/bulk.py
	$(BIN)/python -m bench.search
	$(BIN)/python -m bench.overhead
	$(BIN)/python -m bench.controller_kills
	$(BIN)/python -m bench.controller_kills --servers 2
	QT_QPA_PLATFORM=offscreen $(BIN)/python bench/gui.py
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench.sheet_scroll
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench.library

# `make chaos`: 1,000 jobs against a faulty, restarting simulator while the controller is
# SIGKILLed 50 times; prints figures and exits 1 if an exactly-once invariant breaks (minutes).
chaos: $(STAMP)
	$(BIN)/python -m bench.chaos

# `make monkey`: seeded random clicks, keys, wheel, drags, drops, batch and tab switches and
# dialogs over the real window on the demo simulator while a batch runs (tests/desktop/monkey.py);
# prints how many actions it survived and its seed (a new one each run; replay: MONKEY_SEED=N
# make monkey). The suite's short run keeps one fixed seed.
MONKEY_ACTIONS ?= 10000
MONKEY_SEED ?= random
monkey: $(STAMP)
	MONKEY_ACTIONS=$(MONKEY_ACTIONS) MONKEY_SEED=$(MONKEY_SEED) QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest tests/desktop/test_stories_monkey.py -q -s -p no:cacheprovider

# `make package`: the PyInstaller onedir dist/Batchline/ and dist/Batchline-<version>-linux-<arch>.tar.gz
# (packaging/README.md). Build requirements are pinned in packaging/requirements-build.txt.
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' core/__init__.py)
BUILD_STAMP := $(VENV)/.build-installed

$(BUILD_STAMP): $(STAMP) packaging/requirements-build.txt
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r packaging/requirements-build.txt
	@touch $(BUILD_STAMP)

package: $(BUILD_STAMP)
	rm -rf dist/Batchline
	$(BIN)/python -m PyInstaller --noconfirm --clean --log-level WARN \
		--distpath dist --workpath build/pyinstaller packaging/batchline.spec
	packaging/linux/tarball.sh $(VERSION)

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
