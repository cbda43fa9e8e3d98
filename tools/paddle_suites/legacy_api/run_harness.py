"""Paddle's test/legacy_test API classes against dy2st: see ../harness.py for the usage.

Put the (API-class) files in ./tests (git-ignored); support/ holds the few op_test helpers those classes
use, a conftest that enables static mode when a file's __main__ block does, and pytest.ini.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import Suite  # noqa: E402

SUITE = Suite(os.path.dirname(os.path.abspath(__file__)))

if __name__ == "__main__":
    SUITE.main()
