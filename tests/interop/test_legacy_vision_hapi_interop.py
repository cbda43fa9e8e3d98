"""Differential test (against real Paddle 3.3.1) of behaviours found by running Paddle's
test/legacy_test vision / hapi / metric files: Accuracy.compute with N-D one-hot labels,
F.erase on Tensor images (values, out-of-place, gradient), the global image backend ('tensor'
included) and image_load's errors, and paddle.Model's argument errors and
prepare_distributed_context in one process. One Paddle subprocess for the module.

image_load(path, 'cv2') is checked against a numpy reference instead (Paddle needs OpenCV for it,
which is not installed): OpenCV's imread gives BGR channel order.
"""
import textwrap

import numpy as np
import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import os
    import tempfile

    import numpy as np

    def compute(paddle):
        out = {}
        h = diff_helpers(paddle, out, err_prefix="err.")
        T, put, err = h.T, h.put, h.err
        rng = np.random.default_rng(7)

        # -- Accuracy.compute / update / accumulate: [N, d, C] scores with [N, d, C] one-hot labels,
        #    [N, d, 1] ids, [N] ids and [N, 1] ids
        x3 = rng.random((3, 4, 5))
        ids = rng.integers(0, 5, (3, 4))
        onehot = np.eye(5)[ids]
        for name, lab, k in (("onehot3d", onehot, (1, 2)), ("ids3d", ids[..., None], (1, 3)),
                             ("ids1d", ids[:, 0], (1,)), ("ids2d", ids[:, :1], (2,))):
            xs = x3 if lab.ndim == 3 else x3[:, 0]
            m = paddle.metric.Accuracy(topk=k, name="acc_" + name)
            correct = m.compute(paddle.to_tensor(xs), paddle.to_tensor(lab))
            put("acc." + name + ".correct", correct)
            put("acc." + name + ".update", np.asarray(m.update(correct), "float64"))
            put("acc." + name + ".accumulate", np.asarray(m.accumulate(), "float64"))

        # -- vision.transforms.functional.erase on Tensor images
        F = paddle.vision.transforms.functional
        img = rng.random((3, 7, 6)).astype("float32")
        t = paddle.to_tensor(img)
        put("erase.value", F.erase(t, 1, 2, 3, 2, paddle.to_tensor([0.25])))
        put("erase.input_after", t)
        put("erase.scalar", F.erase(t, 0, 0, 2, 9, 0.5))
        put("erase.batch", F.erase(paddle.to_tensor(rng.random((2, 3, 5, 5))), 1, 1, 2, 2, 0.5))
        t2 = paddle.to_tensor(img)
        res = F.erase(t2, 4, 1, 2, 2, 0.0, inplace=True)
        put("erase.inplace", t2)
        out["erase.inplace_same"] = np.asarray(res is t2)
        g = paddle.to_tensor(img, stop_gradient=False)
        e = F.erase(g, 2, 1, 3, 4, paddle.ones((1, 1, 1), dtype="float32"))
        (e * paddle.to_tensor(rng.random((3, 7, 6)).astype("float32"))).sum().backward()
        put("erase.grad", g.grad)

        # -- the global image backend and image_load
        V = paddle.vision
        out["backend.default"] = np.asarray(V.get_image_backend())
        V.set_image_backend("tensor")
        out["backend.tensor"] = np.asarray(V.get_image_backend())
        err("set_image_backend.int", lambda: V.set_image_backend(1))
        err("set_image_backend.name", lambda: V.set_image_backend("opencv"))
        with tempfile.TemporaryDirectory() as d:
            from PIL import Image
            path = os.path.join(d, "im.png")
            Image.fromarray((rng.random((5, 4, 3)) * 255).astype("uint8")).save(path)
            out["image_load.tensor_is_none"] = np.asarray(V.image_load(path) is None)
            err("image_load.int", lambda: V.image_load(path, backend=1))
            pil = V.image_load(path, backend="pil")
            out["image_load.pil"] = np.asarray(pil.convert("RGB"))
            out["image_load.pil_type"] = np.asarray(type(pil).__module__.split(".")[0])
        V.set_image_backend("pil")

        # -- paddle.Model's argument errors; prepare_distributed_context in a single process
        class Net(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = paddle.nn.Linear(6, 2)

            def forward(self, x):
                return self.fc(x)

        import importlib
        hapi_model = importlib.import_module(paddle.__name__ + ".hapi.model")
        prepare_distributed_context = hapi_model.prepare_distributed_context
        out["prepare_distributed_context"] = np.asarray(prepare_distributed_context(paddle.CPUPlace()) is None)
        err("prepare_distributed_context.no_place", prepare_distributed_context)
        err("model.nameless_input", lambda: paddle.Model(Net(), [paddle.static.InputSpec([None, 6], "float32")]))
        err("model.nameless_label", lambda: paddle.Model(
            Net(), [paddle.static.InputSpec([None, 6], "float32", "x")], [paddle.static.InputSpec([None, 1])]))
        paddle.enable_static()
        try:
            err("model.static_without_inputs", lambda: paddle.Model(Net()))
        finally:
            paddle.disable_static()
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("legacy_vision_hapi"), "legacy vision/hapi")


def test_same_results_and_errors(both):
    ours, theirs, dtypes = both
    assert_same_as_paddle(ours, theirs, dtypes)


def test_image_load_cv2_is_bgr(tmp_path):
    """'cv2' gives what cv2.imread gives for an 8-bit file: HxWx3 uint8 in BGR order (gray files too);
    an unreadable file gives None, as cv2.imread does."""
    from PIL import Image

    import dy2st as paddle
    rgb = (np.random.default_rng(3).random((6, 5, 3)) * 255).astype("uint8")
    Image.fromarray(rgb).save(tmp_path / "c.png")
    got = paddle.vision.image_load(str(tmp_path / "c.png"), backend="cv2")
    assert got.dtype == np.uint8 and got.shape == (6, 5, 3)
    np.testing.assert_array_equal(got, rgb[..., ::-1])
    Image.fromarray(rgb[..., 0]).save(tmp_path / "g.png")
    gray = paddle.vision.image_load(str(tmp_path / "g.png"), backend="cv2")
    np.testing.assert_array_equal(gray, np.repeat(rgb[..., :1], 3, axis=2))
    assert paddle.vision.image_load(str(tmp_path / "missing.png"), backend="cv2") is None
