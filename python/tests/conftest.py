"""Shared set-up: import streamtwin_policy from python/ without installing it."""

import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(TESTS))  # python/: the streamtwin_policy package
sys.path.insert(0, TESTS)  # messages.py
