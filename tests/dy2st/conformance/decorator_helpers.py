"""Decorators imported by decorated_cases.py: decorators that come from another module."""
from __future__ import annotations

import functools
import importlib
import os

paddle = importlib.import_module(os.environ.get("DY2ST_CASES_FRAMEWORK", "dy2st"))


def times(k):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return paddle.multiply(fn(*args, **kwargs), paddle.full([], k, dtype="float32"))
        return wrapper
    return deco


def minus_one(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        return out - 1.0
    return wrapper
