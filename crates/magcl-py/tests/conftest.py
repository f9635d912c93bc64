"""Shared helpers of the Python tests of the `magcl` module (run by `make test`).

The fixtures are the ones the Rust evaluator tests use (`tests/fixtures/eval/`, made once
by `tools/gen_eval_fixtures.py` with scikit-learn); scikit-learn is not needed here.

The `magcl` binary (for the CLI round trips) is `$MAGCL_BIN`; without it, the release
binary of the checkout (`$CARGO_TARGET_DIR/release/magcl` or `target/release/magcl`) is
used when present, else those tests are skipped. `make test` sets `MAGCL_BIN`, so there
they run (a missing binary is then a failure).
"""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures" / "eval"


@pytest.fixture(scope="session")
def expected():
    with open(FIXTURES / "expected.json") as f:
        return json.load(f)


def load_fixture(name):
    d = FIXTURES / name
    return np.load(d / "x.npy"), np.load(d / "y.npy"), np.load(d / "folds.npy")


def _find_binary():
    explicit = os.environ.get("MAGCL_BIN")
    if explicit:
        if not Path(explicit).is_file():
            pytest.fail(f"MAGCL_BIN={explicit} is not a file; build it first (make build)")
        return explicit
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    candidate = target / "release" / "magcl"
    if candidate.is_file():
        return str(candidate)
    pytest.skip("no magcl binary (set MAGCL_BIN or build target/release/magcl)")


@pytest.fixture(scope="session")
def magcl_bin():
    return _find_binary()


def run_cli(binary, *args):
    """Runs the magcl binary; returns (exit code, stdout, stderr)."""
    p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr
