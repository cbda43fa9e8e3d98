"""Paddle's test/dygraph_to_static files against dy2st (AST mode): see ../harness.py for the usage.

Put the files in ./tests (git-ignored); support/ holds our replacement of Paddle's
dygraph_to_static_util(s) helpers (every test method runs once, in AST mode) and pytest.ini.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import Suite  # noqa: E402

# ENABLE_FALL_BACK=False: real Paddle's to_static converts the AST instead of falling back to SOT
SUITE = Suite(os.path.dirname(os.path.abspath(__file__)), env={"ENABLE_FALL_BACK": "False"}, examples=8)

if __name__ == "__main__":
    SUITE.main()
