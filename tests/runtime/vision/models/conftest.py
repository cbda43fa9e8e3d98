"""The session-wide real-Paddle run shared by the vision model tests (see _zoo.py)."""
import pytest

from ._zoo import Zoo


@pytest.fixture(scope="session")
def zoo(tmp_path_factory):
    return Zoo(tmp_path_factory.mktemp("vision_models"))
