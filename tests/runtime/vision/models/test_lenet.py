"""paddle.vision.models.lenet (LeNet) against real Paddle 3.3.1: Paddle's weights give Paddle's outputs in ours,
ours give ours in Paddle, to_static equals eager, our jit.save loads in Paddle, every constructor has Paddle's
state_dict layout and parameter count (machinery in _zoo.py)."""
import pytest

from ._zoo import STRUCTURE, check_forward, check_jit, check_reverse, check_static, check_structure


@pytest.mark.parametrize("name", ['lenet'])
def test_paddle_weights_give_paddle_outputs(zoo, name):
    check_forward(zoo, name)


@pytest.mark.parametrize("name", ['lenet'])
def test_our_weights_give_our_outputs_in_paddle(zoo, name):
    check_reverse(zoo, name)


@pytest.mark.parametrize("name", ['lenet'])
def test_our_jit_save_loads_in_paddle(zoo, name):
    check_jit(zoo, name)


@pytest.mark.parametrize("name", ['lenet'])
def test_to_static_equals_eager(zoo, name):
    check_static(zoo, name)


@pytest.mark.parametrize("ctor", STRUCTURE['lenet'])
def test_constructor_layout_and_parameter_count(zoo, ctor):
    check_structure(zoo, ctor)
