import pytest

import dy2st as paddle


@pytest.fixture(autouse=True)
def verify_passes(monkeypatch):
    """Every pass is followed by the verifier here; tests build in static mode and restore eager."""
    monkeypatch.setenv("DY2ST_VERIFY_PASSES", "1")
    monkeypatch.delenv("DY2ST_PASSES", raising=False)
    yield
    paddle.disable_static()
