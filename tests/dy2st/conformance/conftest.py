import pytest

from .harness import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    # PartialProgram reads DY2ST_EXECUTOR when it compiles (forward, and forward/backward of
    # training), so with "interpreter" the whole converted call, gradients included, runs on the
    # reference interpreter; the harness also runs the traced Program through an Executor.
    monkeypatch.setenv("DY2ST_EXECUTOR", request.param)
    return request.param
