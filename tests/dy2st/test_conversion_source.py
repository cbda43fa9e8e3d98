"""dy2st.conversion._source: the source of a function's own code, found without scanning sys.modules."""
import functools
import inspect
import textwrap

import pytest

from dy2st import conversion


def _plain(x):
    return x + 1


def _outer():
    k = 3

    def inner(x):
        return x * k
    return inner


def test_source_of_plain_closure_and_wrapped_functions():
    src, first, filename = conversion._source(_plain)
    assert src.startswith("def _plain(x):") and first == inspect.getsourcelines(_plain)[1]
    assert filename == __file__
    inner = _outer()
    src, first, _ = conversion._source(inner)
    assert textwrap.dedent(src).startswith("def inner(x):") and "x * k" in src

    @functools.wraps(_plain)
    def wrapper(x):
        return _plain(x) - 1
    # the wrapper's own code, not the __wrapped__ function's
    src, _, _ = conversion._source(wrapper)
    assert "def wrapper(x):" in src and "_plain(x) - 1" in src


def test_source_probe_keeps_module_and_never_scans_every_module(monkeypatch):
    probe = conversion._source_probe(_plain)
    assert probe.__code__ is _plain.__code__ and probe.__module__ == __name__
    assert not hasattr(probe, "__wrapped__")
    # a bare code object makes inspect.getmodule walk sys.modules (realpath per module): must not happen
    real = inspect.getmodule

    def getmodule(obj, _filename=None):
        assert not inspect.iscode(obj), "inspect.getmodule asked about a bare code object"
        return real(obj, _filename)
    monkeypatch.setattr(inspect, "getmodule", getmodule)
    conversion._source(_outer())


def test_function_without_module_name_falls_back():
    ns = {}
    exec(compile("def f(x):\n    return x\n", __file__, "exec"), ns)   # globals without __name__
    probe = conversion._source_probe(ns["f"])
    assert probe.__code__ is ns["f"].__code__
    assert probe.__module__ is None


def test_source_unavailable_is_a_clear_error():
    ns = {"__name__": "nowhere"}
    exec(compile("def g(x):\n    return x\n", "<generated>", "exec"), ns)
    with pytest.raises(conversion.Dy2StaticError, match="source code is not available"):
        conversion._source(ns["g"])
