"""L1Decay / L2Decay terms."""
import numpy as np
import pytest

from runtime.regularizer import L1Decay, L2Decay
from runtime.tensor import Parameter, Tensor


def test_l2_term():
    p = Parameter(np.array([1.0, -2.0, 0.0]))
    np.testing.assert_allclose(L2Decay(0.5)(p, None).numpy(), [0.5, -1.0, 0.0])


def test_l1_term_is_coeff_times_sign():
    p = Parameter(np.array([1.5, -2.0, 0.0, 1e-320]))
    np.testing.assert_array_equal(L1Decay(0.5)(p, None).numpy(), [0.5, -0.5, 0.0, 0.5])


def test_apply_adds_to_grad_and_keeps_dtype():
    p = Parameter(np.array([1.0, -2.0], dtype=np.float32))
    g = Tensor(np.array([0.1, 0.1], dtype=np.float32))
    out = L2Decay(0.1)._apply(p, g)
    assert out.numpy().dtype == np.float32
    np.testing.assert_allclose(out.numpy(), [0.2, -0.1], rtol=1e-6)


def test_coeff_and_str():
    assert L2Decay().coeff == 0.0
    assert str(L1Decay(0.25)) == "L1Decay, coeff=0.250000"
    with pytest.raises(TypeError, match="coeff must be a float"):
        L2Decay("0.1")
