"""paddle.vision.models.inceptionv3 (Inception v3) against real Paddle 3.3.1: Paddle's weights give Paddle's
outputs in ours, every constructor has Paddle's state_dict layout and parameter count (machinery in _zoo.py)."""
import pytest

from ._zoo import STRUCTURE, check_forward, check_structure


@pytest.mark.parametrize("name", ['inception_v3'])
def test_paddle_weights_give_paddle_outputs(zoo, name):
    check_forward(zoo, name)


@pytest.mark.parametrize("ctor", STRUCTURE['inceptionv3'])
def test_constructor_layout_and_parameter_count(zoo, ctor):
    check_structure(zoo, ctor)
