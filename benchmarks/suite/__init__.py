"""The issue-7 benchmark suite: workloads on the numpy floor, dy2st, PaddlePaddle and PyTorch.

Run it with ``python benchmarks/run_suite.py`` (see benchmarks/README.md). This package
imports no framework by itself: real Paddle and torch run in worker subprocesses
(``workers.py``), which may use another Python than the one running the suite.
"""
from __future__ import annotations

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_workloads(paddle_module, tag=None):
    """Execute ``workloads.py`` with ``paddle`` bound to ``paddle_module`` (dy2st or real Paddle).

    The module is registered in ``sys.modules`` under its own name so that ``inspect`` and
    ``to_static`` find the source of every ``forward``.
    """
    tag = tag or paddle_module.__name__.split(".")[0]
    name = f"bench_workloads_{tag}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "workloads.py"))
    mod = importlib.util.module_from_spec(spec)
    mod.paddle = paddle_module
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
