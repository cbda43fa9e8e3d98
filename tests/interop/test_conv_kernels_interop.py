"""Differential test of the convolution and pooling kernel paths of issue 17 against real Paddle 3.3.1.

Shapes are chosen so each kernel path runs in dy2st: the direct depthwise forward (outputs of at least
32x32; strides 1 and 2, a channel multiplier, NHWC) and the direct depthwise gradients, the whole-batch
convolution gradients with the wide col2im (LeNet's conv2: batch > 1, 10x10 outputs), the per-sample
wide col2im (28x28 outputs, padding), and max pooling's tiled gradient, in float64 and float32 (values,
dtypes, shapes and the gradients of a random weighting). One Paddle subprocess for the module.
"""
import textwrap

import pytest

from .diff_prelude import PADDLE_MAIN, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        F = paddle.nn.functional
        rng = np.random.default_rng(17)
        def r(*s):
            return rng.uniform(-1.0, 1.0, s)
        out = {}
        T, put, grad, err, _ = diff_helpers(paddle, out, grad="weighted")
        for dt in ("float64", "float32"):
            # depthwise, direct forward (34x33 output) and gradients
            x, w = r(2, 3, 34, 33), r(3, 1, 3, 3)
            grad(f"dw.s1.{dt}", lambda a, b: F.conv2d(a, b, padding=1, groups=3), x, w, dt=dt)
            x, w = r(1, 4, 66, 64), r(4, 1, 3, 3)
            grad(f"dw.s2.{dt}", lambda a, b: F.conv2d(a, b, stride=2, padding=1, groups=4), x, w, dt=dt)
            x, w = r(1, 2, 36, 35), r(6, 1, 5, 3)
            grad(f"dw.mult3.{dt}", lambda a, b: F.conv2d(a, b, padding=[2, 1], dilation=[1, 2], groups=2),
                 x, w, dt=dt)
            x, w = r(1, 40, 34, 3), r(3, 1, 3, 3)
            grad(f"dw.nhwc.{dt}", lambda a, b: F.conv2d(a, b, padding=1, groups=3, data_format="NHWC"),
                 x, w, dt=dt)
            # depthwise, small output (im2col forward, direct gradients)
            x, w = r(2, 8, 7, 7), r(8, 1, 3, 3)
            grad(f"dw.small.{dt}", lambda a, b: F.conv2d(a, b, stride=2, padding=1, groups=8), x, w, dt=dt)
            # LeNet's layers: whole-batch gradients (conv2), per-sample wide col2im (conv1), tiled max pool
            x, w, b = r(4, 6, 14, 14), r(16, 6, 5, 5), r(16)
            grad(f"lenet.conv2.{dt}", lambda a, c, d: F.conv2d(a, c, d), x, w, b, dt=dt)
            x, w = r(2, 1, 28, 28), r(6, 1, 5, 5)
            grad(f"lenet.conv1.{dt}", lambda a, c: F.conv2d(a, c, padding=2), x, w, dt=dt)
            x, w = r(3, 4, 9, 8), r(6, 2, 3, 3)
            grad(f"grouped.{dt}", lambda a, c: F.conv2d(a, c, stride=[2, 1], padding=1, groups=2), x, w, dt=dt)
            x = r(4, 6, 28, 28)
            x[0, 0, :2, :2] = 0.5                               # a window of ties
            grad(f"maxpool.tiled.{dt}", lambda a: F.max_pool2d(a, 2, 2), x, dt=dt)
            grad(f"maxpool.tiled.nhwc.{dt}", lambda a: F.max_pool2d(a, 2, 2, data_format="NHWC"), r(2, 6, 4, 3),
                 dt=dt)
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("conv_kernels"), "conv_kernels")


def test_same_results(both):
    from .paddle_runner import differences
    ours, theirs, dtypes = both
    assert sorted(ours) == sorted(theirs)
    assert len(ours) == 2 * 29             # per dtype: 10 functions, each output and its inputs' gradients
    bad = differences(ours, theirs, dtypes, double_tol=1e-9)
    assert not bad, "differences from Paddle:\n" + "\n".join(bad)
