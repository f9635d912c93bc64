# magcl — the two commands a fresh machine needs are `make run` and `make test`.
# Both bootstrap what they need: a project-local virtualenv with torch (libtorch for tch).
SHELL := /bin/bash
PYTHON ?= python3
VENV := $(CURDIR)/.venv
TORCH_VERSION := 2.11.0
TORCH_STAMP := $(VENV)/.torch-$(TORCH_VERSION)

# tch builds against the libtorch inside the venv's torch package.
export LIBTORCH_USE_PYTORCH := 1
export VIRTUAL_ENV := $(VENV)
export PATH := $(VENV)/bin:$(PATH)

CARGO ?= cargo
# The release binary, where cargo puts it (CARGO_TARGET_DIR is honoured).
BIN := $(or $(CARGO_TARGET_DIR),target)/release/magcl

.PHONY: setup build run test test-full test-python python lint fmt clean-venv

## setup: create .venv with torch==$(TORCH_VERSION) (idempotent: a second run does nothing)
setup: $(TORCH_STAMP)

$(TORCH_STAMP):
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check "torch==$(TORCH_VERSION)"
	@$(VENV)/bin/python -c "import torch; assert torch.__version__.split('+')[0] == '$(TORCH_VERSION)', torch.__version__"
	@touch $@

# The Python module (crates/magcl-py) is built and tested in the same venv; it needs no
# torch, so `make test-python` works without `make setup`.
MATURIN_VERSION := 1.16.0
NUMPY_VERSION := 2.4.6
PYTEST_VERSION := 9.2.0
PY_STAMP := $(VENV)/.python-maturin-$(MATURIN_VERSION)-numpy-$(NUMPY_VERSION)-pytest-$(PYTEST_VERSION)
WHEEL_DIR := $(or $(CARGO_TARGET_DIR),target)/wheels

$(PY_STAMP):
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check "maturin==$(MATURIN_VERSION)" "numpy==$(NUMPY_VERSION)" "pytest==$(PYTEST_VERSION)"
	@touch $@

## python: build the wheel of the Python module `magcl` (crates/magcl-py; abi3, any
## CPython >= 3.9) into $(WHEEL_DIR) and install it into .venv (docs/python.md)
python: $(PY_STAMP)
	@rm -f $(WHEEL_DIR)/magcl-*.whl
	$(VENV)/bin/maturin build --release --locked --quiet -m crates/magcl-py/Cargo.toml -o $(WHEEL_DIR)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(WHEEL_DIR)/magcl-*.whl

## test-python: the Python module's tests (pytest, crates/magcl-py/tests) on a fresh wheel;
## the round trips through the `magcl` binary run when $$MAGCL_BIN or target/release/magcl
## exists (`make test` passes the one it built)
test-python: python
	cd crates/magcl-py && $(VENV)/bin/python -m pytest -q -p no:cacheprovider tests

## build: the release binaries magcl and magcl-torch (install both in one folder: magcl runs
## datasets/eval/report without libtorch and hands the tensor commands to magcl-torch, which
## runs without LD_LIBRARY_PATH and uses CUDA where present; docs/development.md)
build: setup
	$(CARGO) build --release --locked

# The shared dataset mirror beside a checkout is used when present (CI, development).
ifneq ($(wildcard ../shared/datasets),)
export MAGCL_DATA_MIRROR ?= $(abspath ../shared/datasets)
endif

## run: the main job — GraphCL ± MA on the synthetic set and MUTAG (3 seeds) beside its floor
## (GraphCL's encoder untrained, the WL kernel), then the report.
## Offline without a mirror, MUTAG cannot be fetched and only the synthetic cells run.
## Rows go to runs/quick.csv (a rerun continues it); the report to runs/quick.md and .svg.
run: build
	@mkdir -p runs
	@if $(BIN) datasets fetch MUTAG >/dev/null 2>&1; then only=""; else \
	  echo "MUTAG is not available (offline and no MAGCL_DATA_MIRROR): running the synthetic cells only"; \
	  only="--only dataset=synthetic"; fi; \
	$(BIN) bench configs/quick.toml --out runs/quick.csv --resume $$only
	$(BIN) report runs/quick.csv --plot runs/quick.svg | tee runs/quick.md

## test: the full test suite (unit, integration, CI-sized accuracy floors, then the Python
## module's tests: `test-python`), fmt and clippy.
## Every test binary runs even when one fails; the end lists what failed and what was
## skipped. Tests that need a real dataset skip (loudly) when neither $$MAGCL_DATA_MIRROR
## nor the network has it; MAGCL_REQUIRE_DATA=1 turns each such skip into a failure.
TEST_TMP := $(or $(CARGO_TARGET_DIR),target)/tmp
test: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --locked --all-targets -- -D warnings
	# Every intra-doc link resolves (the Python module's docs are its .pyi, not rustdoc).
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --release --locked --no-deps --workspace --exclude magcl-py
	@mkdir -p $(TEST_TMP) && rm -f $(TEST_TMP)/skipped-tests.log
	@set -o pipefail; status=0; \
	$(CARGO) test --release --locked --no-fail-fast 2>&1 | tee $(TEST_TMP)/test-output.log || status=$$?; \
	bash tools/test-summary.sh $(TEST_TMP)/test-output.log $(TEST_TMP)/skipped-tests.log; \
	$(MAKE) --no-print-directory test-python MAGCL_BIN=$(abspath $(BIN)) || status=1; \
	exit $$status

## test-full: the long reproductions (accuracy floors of the paper-sized runs)
test-full: setup
	$(CARGO) test --release --locked -- --include-ignored

fmt:
	$(CARGO) fmt --all

clean-venv:
	rm -rf $(VENV)
