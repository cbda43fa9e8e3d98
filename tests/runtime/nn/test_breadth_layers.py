"""A model built from the new layers (Conv3D, 3-D pools, Upsample in the new modes, Unfold/Fold,
PixelUnshuffle, ChannelShuffle, grid sampling, Bilinear, PairwiseDistance, the new losses) trains
the same eager and under to_static, and its jit.save'd program runs in real Paddle 3.3.1."""
import numpy as np

import dy2st as paddle
from dy2st import nn
import dy2st.nn.functional as F
from tests.interop.paddle_runner import check_models


class Volume(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3D(2, 4, 3, padding=1)
        self.pool = nn.MaxPool3D(2)
        self.up = nn.Conv3DTranspose(4, 2, 2, stride=2)
        self.apool = nn.AdaptiveAvgPool3D([1, 2, 2])

    def forward(self, v):
        h = F.relu(self.conv(v))
        h = self.up(self.pool(h)) + F.avg_pool3d(v, 3, stride=1, padding=1)
        h = F.interpolate(h, scale_factor=[1, 1.5, 1.5], mode="trilinear")
        return self.apool(h).flatten(1)


class Image(nn.Layer):
    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(size=[8, 8], mode="bicubic")
        self.unshuffle = nn.PixelUnshuffle(2)
        self.shuffle = nn.ChannelShuffle(2)
        self.unfold = nn.Unfold(2, strides=2)
        self.fold = nn.Fold([8, 8], 2, strides=2)
        self.theta = self.create_parameter([1, 2, 3], default_initializer=nn.initializer.Assign(
            np.array([[[0.9, 0.1, 0.0], [-0.1, 0.9, 0.05]]], "float32")))

    def forward(self, x):
        h = self.up(x)
        h = h + self.fold(self.unfold(h))
        h = self.shuffle(self.unshuffle(h))
        grid = F.affine_grid(self.theta.expand([x.shape[0], 2, 3]), [x.shape[0], 8, 4, 4], align_corners=False)
        h = F.grid_sample(h, grid, padding_mode="border", align_corners=False)
        return h.mean(axis=[2, 3])


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.volume = Volume()
        self.image = Image()
        self.bilinear = nn.Bilinear(8, 8, 3)

    def forward(self, v, x):
        return self.bilinear(self.volume(v), self.image(x))


def _data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((2, 2, 4, 4, 4)).astype("float32"), rng.standard_normal((2, 2, 5, 5)).astype("float32"),
            rng.standard_normal((2, 3)).astype("float32"))


def _loss(model, v, x, y):
    out = model(v, x)
    return (F.soft_margin_loss(out, paddle.sign(y)) + F.gaussian_nll_loss(out, y, paddle.ones_like(y))
            + nn.PairwiseDistance()(out, y).mean())


def _step(model):
    v, x, y = (paddle.to_tensor(a) for a in _data())
    loss = _loss(model, v, x, y)
    loss.backward()
    grads = {n: p.grad.numpy().copy() for n, p in model.named_parameters()}
    return float(loss), grads


def test_to_static_matches_eager():
    paddle.seed(3)
    model = Net()
    eager_loss, eager_grads = _step(model)
    model.clear_gradients()
    static_loss, static_grads = _step(paddle.jit.to_static(model))
    assert static_loss == np.float32(eager_loss) or abs(static_loss - eager_loss) < 1e-5
    assert sorted(static_grads) == sorted(eager_grads)
    for n in eager_grads:
        np.testing.assert_allclose(static_grads[n], eager_grads[n], rtol=1e-4, atol=1e-6, err_msg=n)


def test_jit_save_runs_in_real_paddle(tmp_path):
    from dy2st.static import InputSpec
    paddle.seed(5)
    model = Net()
    model.eval()
    prefix = tmp_path / "net" / "model"
    paddle.jit.save(model, str(prefix), input_spec=[InputSpec([None, 2, 4, 4, 4], "float32", "v"),
                                                    InputSpec([None, 2, 5, 5], "float32", "x")])
    v, x, _ = _data()
    with paddle.no_grad():
        ours = model(paddle.to_tensor(v), paddle.to_tensor(x)).numpy()
    res = check_models([{"name": "net", "prefix": prefix, "inputs": [v, x], "feed_names": ["v", "x"],
                         "loaders": ("jit",)}], tmp_path)["net"]
    assert "jit_error" not in res, res.get("jit_error")
    np.testing.assert_allclose(np.asarray(res["jit"][0], dtype="float32"), ours, rtol=1e-4, atol=1e-5)
