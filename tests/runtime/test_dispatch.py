"""run_op: unknown ops, kernel errors naming the op, attrs validation."""
import numpy as np
import pytest

from runtime.dispatch import run_op
from runtime.errors import UnknownOpError
from runtime.ops.registry import lookup
from runtime.tensor import Tensor


def test_unknown_op_suggests_close_names():
    with pytest.raises(UnknownOpError, match="elementwise_add"):
        run_op("elementwise_ad", Tensor([1.0]), Tensor([1.0]))


def test_kernel_error_names_the_op():
    with pytest.raises(ValueError) as info:
        run_op("elementwise_add", Tensor(np.ones((2, 3))), Tensor(np.ones((4,))))
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "elementwise_add" in notes and "float64[2, 3]" in notes


def test_full_attrs_rejects_unknown_attribute():
    with pytest.raises(TypeError, match="no attribute"):
        lookup("elementwise_add").full_attrs({"axes": 1})


def test_ndarray_inputs_are_accepted_without_grad():
    out = run_op("elementwise_mul", Tensor([2.0], stop_gradient=False), np.array([3.0], np.float32))
    assert out.tolist() == [6.0] and not out.stop_gradient
