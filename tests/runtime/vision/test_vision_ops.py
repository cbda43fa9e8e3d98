"""paddle.vision.ops beyond the op table and the Paddle differential test: the public names, the
layers' parameters, static Programs and to_static, and the image-file functions' errors."""
import io
import sys

import numpy as np
import pytest

import dy2st as paddle
from runtime import static
from runtime.dispatch import run_op

V = paddle.vision.ops

PADDLE_NAMES = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d", "DeformConv2D",
                "distribute_fpn_proposals", "generate_proposals", "read_file", "decode_jpeg", "roi_pool", "RoIPool",
                "psroi_pool", "PSRoIPool", "roi_align", "RoIAlign", "nms", "matrix_nms"]


def _inputs():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (2, 8, 6, 7)).astype("float32")
    boxes = np.array([[0.5, 1.0, 4.2, 5.1], [1.0, 0.5, 6.5, 3.9], [0.1, 0.2, 2.3, 4.4]], "float32")
    return x, boxes, np.array([1, 2], "int32")


def test_every_public_name_is_there():
    for name in PADDLE_NAMES:
        assert name in V.__all__ and callable(getattr(V, name)), name
    assert "ConvNormActivation" in V.__all__


def test_layers_match_functions_and_name_parameters_like_conv2d():
    x, boxes, num = (paddle.to_tensor(a) for a in _inputs())
    np.testing.assert_array_equal(V.RoIAlign((2, 3), 0.5)(x, boxes, num, aligned=False).numpy(),
                                  V.roi_align(x, boxes, num, (2, 3), 0.5, aligned=False).numpy())
    np.testing.assert_array_equal(V.RoIPool(2)(x, boxes, num).numpy(), V.roi_pool(x, boxes, num, 2).numpy())
    np.testing.assert_array_equal(V.PSRoIPool(2, 0.9)(x, boxes, num).numpy(),
                                  V.psroi_pool(x, boxes, num, 2, 0.9).numpy())
    layer = V.DeformConv2D(8, 4, 3, padding=1, groups=2, deformable_groups=2)
    assert sorted(layer.state_dict()) == ["bias", "weight"]
    assert layer.weight.shape == [4, 4, 3, 3] and layer.bias.shape == [4]
    offset = paddle.to_tensor(np.random.default_rng(0).uniform(-1, 1, (2, 2 * 2 * 9, 6, 7)).astype("float32"))
    out = layer(x, offset)
    out.sum().backward()
    assert out.shape == [2, 4, 6, 7]
    assert layer.weight.grad.shape == [4, 4, 3, 3] and layer.bias.grad.shape == [4]
    with pytest.raises(AssertionError, match="weight_attr"):
        V.DeformConv2D(8, 4, 3, weight_attr=False)
    with pytest.raises(ValueError, match="divisible by groups"):
        V.DeformConv2D(8, 4, 3, groups=3)


def test_static_program_matches_eager_and_records_paddle_op_types():
    x, boxes, num = _inputs()
    rng = np.random.default_rng(4)
    offset = rng.uniform(-1, 1, (2, 18, 4, 5)).astype("float32")
    weight = rng.uniform(-1, 1, (3, 8, 3, 3)).astype("float32")

    def build(xv, bv, nv, ov, wv):
        return [V.roi_align(xv, bv, nv, 2, sampling_ratio=2), V.roi_pool(xv, bv, nv, (2, 2)),
                V.deform_conv2d(xv, ov, wv), V.box_coder(bv, [0.1, 0.1, 0.2, 0.2], bv)]

    eager = build(*(paddle.to_tensor(a) for a in (x, boxes, num, offset, weight)))
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            feeds = {"x": x, "b": boxes, "n": num, "o": offset, "w": weight}
            data = [static.data(k, list(v.shape), str(v.dtype)) for k, v in feeds.items()]
            outs = build(*data)
        got = static.Executor().run(main, feed=feeds, fetch_list=outs)
    finally:
        paddle.disable_static()
    types = [op.type for op in main.global_block().ops]
    assert {"roi_align", "roi_pool", "deformable_conv_v1", "box_coder"} <= set(types)
    for a, b in zip(got, eager):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-6, atol=1e-6)


def test_to_static_layer_with_roi_align_trains_like_eager():
    class Head(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(8, 8, 1)
            self.align = V.RoIAlign(2, 1.0)

        def forward(self, x, boxes, num):
            return self.align(self.conv(x), boxes, num).mean()

    x, boxes, num = (paddle.to_tensor(a) for a in _inputs())
    paddle.seed(1)
    net = Head()
    eager = net(x, boxes, num)
    eager.backward()
    g_eager = net.conv.weight.grad.numpy().copy()
    net.clear_gradients()
    compiled = paddle.jit.to_static(net)
    loss = compiled(x, boxes, num)
    loss.backward()
    np.testing.assert_allclose(loss.numpy(), eager.numpy(), rtol=1e-6)
    np.testing.assert_allclose(net.conv.weight.grad.numpy(), g_eager, rtol=1e-5, atol=1e-7)


def test_read_file_and_decode_jpeg(tmp_path):
    from PIL import Image
    img = np.random.default_rng(3).integers(0, 256, (9, 11, 3), dtype=np.uint8)
    path = tmp_path / "a.jpg"
    Image.fromarray(img).save(path, quality=95)
    data = V.read_file(str(path))
    assert data.dtype == paddle.uint8 and data.shape == [path.stat().st_size]
    rgb = V.decode_jpeg(data)
    assert rgb.shape == [3, 9, 11] and rgb.dtype == paddle.uint8
    np.testing.assert_array_equal(rgb.numpy(), np.asarray(Image.open(path)).transpose(2, 0, 1))
    assert V.decode_jpeg(data, mode="gray").shape == [1, 9, 11]
    with pytest.raises(RuntimeError, match="cannot read file") as info:
        V.read_file(str(tmp_path / "missing.jpg"))
    assert isinstance(info.value, FileNotFoundError)
    with pytest.raises(ValueError, match="mode"):
        V.decode_jpeg(data, mode="bgr")
    png = io.BytesIO()
    Image.fromarray(img).save(png, format="PNG")
    with pytest.raises(ValueError, match="not a JPEG"):
        V.decode_jpeg(paddle.to_tensor(np.frombuffer(png.getvalue(), np.uint8)))


def test_decode_jpeg_without_pillow_names_it(monkeypatch):
    data = paddle.to_tensor(np.array([255, 216, 255], np.uint8))
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="Pillow"):
        V.decode_jpeg(data)


def test_argument_errors():
    x, boxes, num = (paddle.to_tensor(a) for a in _inputs())
    with pytest.raises(AssertionError, match="boxes_num should not be None"):
        V.roi_align(x, boxes, None, 2)
    with pytest.raises(TypeError, match="output_size"):
        V.roi_pool(x, boxes, num, "2")
    with pytest.raises(TypeError, match="data type of x"):
        V.roi_align(paddle.to_tensor(np.zeros((1, 2, 3, 3), "int32")), boxes, num, 2)
    with pytest.raises(ValueError, match="batch size"):
        V.roi_align(x, boxes, paddle.to_tensor(np.array([3], "int32")), 2)
    with pytest.raises(ValueError, match="PriorBoxVar"):
        run_op("box_coder", boxes, boxes, boxes, variance=[0.1, 0.1, 0.2, 0.2])
