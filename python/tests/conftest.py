"""Shared set-up: import streamtwin_policy from python/ without installing it,
and the streamtwin binary the API tests call."""

import os
import sys
from pathlib import Path

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(TESTS))  # python/: the streamtwin_policy package
sys.path.insert(0, TESTS)  # messages.py

REPO = Path(TESTS).parents[1]


@pytest.fixture
def streamtwin_bin(monkeypatch):
    """bin/streamtwin of the checkout (make build), or $STREAMTWIN_BIN, as
    the API's binary. A missing one fails the test: make python-test builds
    it first."""
    exe = os.environ.get("STREAMTWIN_BIN") or str(REPO / "bin" / "streamtwin")
    if not os.access(exe, os.X_OK):
        pytest.fail("no streamtwin binary: make build, or set STREAMTWIN_BIN")
    monkeypatch.setenv("STREAMTWIN_BIN", exe)
    return exe
