import pytest

from .harness import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    # PartialProgram does not read DY2ST_EXECUTOR (yet); the harness also runs the traced
    # Program through Executor(backend="interpreter") for the interpreter case.
    monkeypatch.setenv("DY2ST_EXECUTOR", request.param)
    return request.param
