"""The fixed-mode padding layers (Constant/Reflection/Replication/Circular/Zero Pad 1D/2D/3D and their
lower-case aliases) and F.zeropad2d against numpy's np.pad."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

nn = paddle.nn
rng = np.random.default_rng(55)
X = rng.standard_normal((2, 2, 3, 4))
NP_MODE = {"Reflection": "reflect", "Replication": "edge", "Circular": "wrap", "Zero": "constant"}


def t(a):
    return paddle.Tensor(np.asarray(a))


def widths(pad, nd):
    """Paddle lists pairs from the last dim: [left, right, top, bottom, front, back]."""
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(nd)]
    return [(0, 0), (0, 0)] + list(reversed(pairs))


@pytest.mark.parametrize("kind", sorted(NP_MODE))
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_layer_matches_np_pad(kind, nd):
    x = {1: X[:, :, 0], 2: X, 3: X[:, :, None]}[nd]
    pad = [1, 2, 2, 1, 0, 1][:2 * nd]
    if nd == 3 and kind == "Reflection":
        pad = [1, 2, 1, 1, 0, 0]
    layer = getattr(nn, f"{kind}Pad{nd}D")(pad)
    np.testing.assert_array_equal(layer(t(x)).numpy(), np.pad(x, widths(pad, nd), mode=NP_MODE[kind]))
    assert getattr(nn, f"{kind}Pad{nd}d") is getattr(nn, f"{kind}Pad{nd}D")


def test_constant_pad_value_int_padding_and_zeropad2d():
    out = nn.ConstantPad2D(1, 2.5)(t(X)).numpy()
    np.testing.assert_array_equal(out, np.pad(X, widths([1] * 4, 2), constant_values=2.5))
    assert isinstance(nn.ConstantPad3D(1, 0.0), nn.Pad3D)
    np.testing.assert_array_equal(F.zeropad2d(t(X), [1, 0, 2, 1]).numpy(), np.pad(X, widths([1, 0, 2, 1], 2)))
    with pytest.raises(TypeError):
        nn.ConstantPad1D([1, 1])        # value is required, as in Paddle
