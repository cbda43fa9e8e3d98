"""``paddle.onnx.export`` of the ``paddle.vision.models`` architectures: onnxruntime == our to_static."""
# Each model is built with random weights (pretrained=False) and BatchNorm running statistics taken from
# a random batch (so the normalisation is not an identity), put in eval mode, exported with a ``None``
# batch dim (and ``None`` spatial dims where stated), checked with ``onnx.checker`` and run by onnxruntime
# at two batch sizes; every output (GoogLeNet has three) must equal the to_static output to rtol 1e-4.
#
# The normal suite runs a fixed, cheap subset (``FAST``). The whole list (every architecture at opsets 13
# and 17, including the heavy VGG / AlexNet / wide ResNet / GoogLeNet at 224, and on run-time H x W where
# the model allows) is the documented long run:
#
#     DY2ST_ONNX_LONG=1 python -m pytest -q -p no:cacheprovider tests/runtime/onnx/test_vision_models.py
#
# (69 tests, about 8.5 minutes on 2 shared cores).

import os

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

from .helpers import assert_close, needs_ort

pytestmark = needs_ort
LONG = os.environ.get("DY2ST_ONNX_LONG") == "1"
long_run = pytest.mark.skipif(not LONG, reason="long ONNX model run: set DY2ST_ONNX_LONG=1")

M = paddle.vision.models

# name -> (constructor kwargs, input side, dynamic spatial dims allowed)
MODELS = {
    "resnet18": ({}, 64, True),
    "resnet50": ({}, 64, True),
    "resnext50_32x4d": ({}, 64, True),
    "wide_resnet50_2": ({}, 64, True),
    "mobilenet_v1": ({"scale": 0.25}, 64, True),
    "mobilenet_v2": ({"scale": 0.25}, 64, True),
    "mobilenet_v3_small": ({"scale": 0.5}, 64, True),
    "mobilenet_v3_large": ({"scale": 0.5}, 64, True),
    "densenet121": ({}, 64, True),
    "alexnet": ({}, 224, False),           # Linear(256 * 6 * 6) after fixed pools: 224 only
    "googlenet": ({}, 224, False),         # the auxiliary heads' Linear(1152) fix 224
    "inception_v3": ({}, 75, True),        # its minimum input
    "vgg11": ({}, 64, True),               # AdaptiveAvgPool2D(7): binned, also on run-time sizes
    "squeezenet1_0": ({}, 64, True),
    "squeezenet1_1": ({}, 64, True),
    "shufflenet_v2_x0_25": ({}, 64, False),   # channel_shuffle reshapes with x.shape (see report)
    "shufflenet_v2_x1_0": ({}, 64, False),
    "shufflenet_v2_swish": ({}, 64, False),
    # further depths / widths of the same families (long run only)
    "resnet34": ({}, 64, True),
    "resnext50_64x4d": ({}, 64, True),
    "vgg16": ({}, 64, True),
    "densenet169": ({}, 64, True),
    "shufflenet_v2_x0_33": ({}, 64, False),
    "shufflenet_v2_x0_5": ({}, 64, False),
    "shufflenet_v2_x1_5": ({}, 64, False),
    "shufflenet_v2_x2_0": ({}, 64, False),
}

# the normal suite: (name, opset, dynamic spatial dims)
FAST = [
    ("resnet18", 13, False), ("resnet18", 17, True),
    ("mobilenet_v1", 17, False), ("mobilenet_v2", 13, True), ("mobilenet_v3_small", 17, False),
    ("squeezenet1_1", 13, False), ("shufflenet_v2_x0_25", 17, False),
]


def _calibrate_bn(model, side, rng):
    """Running statistics = the batch statistics of one random batch (momentum 0 for one training-mode
    forward), so every BatchNorm in eval mode really normalizes: random weights alone let the signal of
    deep nets (MobileNetV1 at scale 0.25) vanish, which would make the output a constant."""
    bns = [layer for layer in model.sublayers() if hasattr(layer, "_mean") and hasattr(layer, "_momentum")]
    saved = [bn._momentum for bn in bns]
    for bn in bns:
        bn._momentum = 0.0
    model.train()
    with paddle.no_grad():
        model(paddle.to_tensor(rng.standard_normal((4, 3, side, side)).astype("float32")))
    for bn, m in zip(bns, saved):
        bn._momentum = m


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return [out.numpy()]


def check_model(name, opset, dynamic_hw, tmp_path, num_classes=None, grow=8):
    """Export ``name`` at ``opset`` and compare onnxruntime with to_static at batch sizes 1 and 2
    (and, with ``dynamic_hw``, a second spatial size ``grow`` pixels larger); returns the max relative
    difference and the ModelProto."""
    import onnx
    import onnxruntime as ort
    kwargs, side, _ = MODELS[name]
    kwargs = dict(kwargs)
    if num_classes is not None:
        kwargs["num_classes"] = num_classes
    paddle.seed(0)
    rng = np.random.default_rng(0)
    model = getattr(M, name)(pretrained=False, **kwargs)
    _calibrate_bn(model, side, rng)
    model.eval()
    spec = [InputSpec([None, 3, None, None] if dynamic_hw else [None, 3, side, side], "float32", "image")]
    static_model = paddle.jit.to_static(model, input_spec=spec)
    proto = paddle.onnx.export(model, str(tmp_path / f"{name}_{opset}"), input_spec=spec, opset_version=opset)
    onnx.checker.check_model(proto)
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param   # the batch dim stays symbolic
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    worst = 0.0
    for batch, extra in ((1, 0), (2, grow if dynamic_hw else 0)):
        x = rng.standard_normal((batch, 3, side + extra, side + extra)).astype("float32")
        ref = _flat(static_model(paddle.to_tensor(x)))
        got = sess.run(None, {sess.get_inputs()[0].name: x})
        assert len(got) == len(ref)
        for i, (g, r) in enumerate(zip(got, ref)):
            assert_close(g, r, rtol=1e-4, what=f"{name} opset {opset} output {i} batch {batch}")
            worst = max(worst, float(np.max(np.abs(g - r)) / max(np.max(np.abs(r)), 1e-6)))
        if batch == 2:   # the outputs depend on the input (not a constant network)
            assert np.max(np.abs(ref[0][0] - ref[0][1])) > 1e-3 * np.max(np.abs(ref[0]))
    return worst, proto


@pytest.mark.parametrize("name,opset,dynamic_hw", FAST)
def test_vision_model_fast(name, opset, dynamic_hw, tmp_path):
    check_model(name, opset, dynamic_hw, tmp_path)


def test_vgg_features_dynamic_adaptive_pool(tmp_path):
    """vgg11 without its classifier: the AdaptiveAvgPool2D(7) runs on sizes known only at run time
    (64 px -> 2x2 feature maps, 160 px -> 5x5: overlapping, uneven bins): binned pooling in the graph."""
    _, proto = check_model("vgg11", 17, True, tmp_path, num_classes=0, grow=96)
    assert "ReduceMean" in {n.op_type for n in proto.graph.node}


@long_run
@pytest.mark.parametrize("opset", [13, 17])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_vision_model_long(name, opset, tmp_path):
    worst, _ = check_model(name, opset, False, tmp_path)
    print(f"\n{name} opset {opset}: max rel diff {worst:.2e}")


@long_run
@pytest.mark.parametrize("name", sorted(n for n, (_, _, dyn) in MODELS.items() if dyn))
def test_vision_model_long_dynamic_hw(name, tmp_path):
    worst, _ = check_model(name, 17, True, tmp_path)
    print(f"\n{name} opset 17 dynamic HxW: max rel diff {worst:.2e}")
