"""F.pixel_unshuffle / F.channel_shuffle and their layers: inverses, known layouts, errors."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

rng = np.random.default_rng(13)
X = rng.standard_normal((2, 6, 4, 6))


def t(a):
    return paddle.Tensor(np.asarray(a))


def test_pixel_unshuffle_inverts_pixel_shuffle():
    down = F.pixel_unshuffle(t(X), 2)
    assert down.shape == [2, 24, 2, 3]
    np.testing.assert_array_equal(F.pixel_shuffle(down, 2).numpy(), X)
    nhwc = np.moveaxis(X, 1, -1)
    np.testing.assert_array_equal(np.moveaxis(F.pixel_unshuffle(t(nhwc), 2, "NHWC").numpy(), -1, 1), down.numpy())
    # channel c*4 + i*2 + j holds the pixels at row offset i, column offset j
    np.testing.assert_array_equal(down.numpy()[:, 4 * 1 + 2 * 1 + 0], X[:, 1, 1::2, 0::2])


def test_channel_shuffle_interleaves_groups():
    x = np.arange(6.0).reshape(1, 6, 1, 1)
    assert F.channel_shuffle(t(x), 3).numpy().reshape(-1).tolist() == [0, 2, 4, 1, 3, 5]
    assert F.channel_shuffle(t(x), 2).numpy().reshape(-1).tolist() == [0, 3, 1, 4, 2, 5]
    # shuffling with g then with C/g restores the order
    np.testing.assert_array_equal(F.channel_shuffle(F.channel_shuffle(t(X), 2), 3).numpy(), X)
    nhwc = np.moveaxis(X, 1, -1)
    np.testing.assert_array_equal(np.moveaxis(F.channel_shuffle(t(nhwc), 3, "NHWC").numpy(), -1, 1),
                                  F.channel_shuffle(t(X), 3).numpy())


def test_layers():
    layer = paddle.nn.PixelUnshuffle(2, data_format="NHWC")
    assert repr(layer) == "PixelUnshuffle(downscale_factor=2, data_format=NHWC)"
    assert paddle.nn.ChannelShuffle(3)(t(X)).shape == [2, 6, 4, 6]
    assert repr(paddle.nn.ChannelShuffle(3)) == "ChannelShuffle(groups=3)"


def test_errors():
    with pytest.raises(TypeError, match="downscale_factor"):
        F.pixel_unshuffle(t(X), 2.0)
    with pytest.raises(ValueError, match="divisible"):
        F.pixel_unshuffle(t(X), 4)
    with pytest.raises(ValueError, match="data_format"):
        F.channel_shuffle(t(X), 2, "NCWH")
    with pytest.raises(ValueError, match="divisible"):
        F.channel_shuffle(t(X), 4)
    with pytest.raises(ValueError, match="positive"):
        paddle.nn.ChannelShuffle(0)
    with pytest.raises(ValueError, match="4-D"):
        F.channel_shuffle(t(X[0]), 2)
