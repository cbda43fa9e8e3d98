"""jit.save of layers using SpectralNorm: held by the Layer, it saves and loads back with our numbers (real
Paddle's loaders: tests/interop/test_saved_files_misc_interop.py); built inside a to_static forward, its
parameters have no value and saving says so and how to fix it (real Paddle cannot save or run that either)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


class Held(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.sn = paddle.nn.SpectralNorm([6, 4], dim=1, power_iters=3)

    def forward(self, x):
        return self.sn(x)


class BuiltInForward(paddle.nn.Layer):
    def forward(self, x):
        return paddle.nn.SpectralNorm([6, 4], power_iters=2)(x)


@pytest.mark.parametrize("legacy", [True, False])
def test_held_spectral_norm_round_trips(tmp_path, legacy):
    paddle.seed(2)
    net = Held()
    net.eval()
    x = np.random.default_rng(1).uniform(-1, 1, (6, 4)).astype("float32")
    want = net(paddle.to_tensor(x)).numpy()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([6, 4], "float32", "x")], legacy_format=legacy)
    got = paddle.jit.load(str(tmp_path / "m"))(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_spectral_norm_built_in_forward_is_refused_clearly(tmp_path):
    net = BuiltInForward()
    with pytest.raises(ValueError, match=r"(?s)no value for the persistable.*spectral_norm_\d+\.w_0.*__init__"):
        paddle.jit.save(paddle.jit.to_static(net, input_spec=[InputSpec([6, 4], "float32", "x")]),
                        str(tmp_path / "m"))
