"""paddle.vision.models.shufflenetv2 (ShuffleNet v2) against real Paddle 3.3.1: Paddle's weights give Paddle's
outputs in ours, to_static equals eager, every constructor has Paddle's state_dict layout and parameter count
(machinery in _zoo.py)."""
import pytest

from ._zoo import STRUCTURE, check_forward, check_static, check_structure


@pytest.mark.parametrize("name", ['shufflenet_v2_x0_25', 'shufflenet_v2_swish'])
def test_paddle_weights_give_paddle_outputs(zoo, name):
    check_forward(zoo, name)


@pytest.mark.parametrize("name", ['shufflenet_v2_x0_25'])
def test_to_static_equals_eager(zoo, name):
    check_static(zoo, name)


@pytest.mark.parametrize("ctor", STRUCTURE['shufflenetv2'])
def test_constructor_layout_and_parameter_count(zoo, ctor):
    check_structure(zoo, ctor)
