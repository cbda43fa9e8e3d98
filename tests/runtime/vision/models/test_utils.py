"""vision/models/_utils.py: IntermediateLayerGetter returns the named children's outputs.

(_make_divisible decides MobileNet v2/v3 channel counts; its Paddle parity is what the
constructor-layout tests of those families check at several scales.)"""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision.models._utils import IntermediateLayerGetter


def test_intermediate_outputs_equal_running_the_children():
    net = paddle.vision.models.LeNet()
    net.eval()
    getter = IntermediateLayerGetter(net, {"features": "feat", "fc": "logits"})
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 1, 28, 28)).astype("float32"))
    out = getter(x)
    assert list(out) == ["feat", "logits"]
    feat = net.features(x)
    np.testing.assert_array_equal(out["feat"].numpy(), feat.numpy())
    # the Sequential head starting with a Linear gets flattened features, as in Paddle
    np.testing.assert_allclose(out["logits"].numpy(), net(x).numpy(), rtol=1e-6, atol=1e-6)


def test_children_after_the_last_wanted_one_are_dropped():
    net = paddle.vision.models.resnet18(num_classes=0, with_pool=False)
    getter = IntermediateLayerGetter(net, {"layer1": "c2"})
    assert [n for n, _ in getter.named_children()][-1] == "layer1"
    assert "layer2" not in dict(getter.named_children())
    with pytest.raises(ValueError, match="not present"):
        IntermediateLayerGetter(net, {"nope": "x"})
