"""fuse_conv against real Paddle 3.3.1: converted eval-mode vision models whose convolutions the pass fuses
(conv + batch_norm + residual + relu, relu6, conv + bias + relu, batch_norm + relu, whole-batch GEMMs)
give Paddle's to_static outputs for the same weights. One Paddle subprocess for every model."""
import collections
import json

import numpy as np
import pytest

import dy2st as paddle
from runtime.static.passes.manager import optimize
from tests.interop.paddle_runner import run_paddle

# name: (constructor, kwargs, input shape, the fused op types the pass must have made)
MODELS = {
    "resnet18": ("resnet18", {"num_classes": 10}, (2, 3, 32, 32), {"fused_conv2d_bn"}),
    "mobilenet_v2": ("mobilenet_v2", {"scale": 0.5, "num_classes": 10}, (2, 3, 32, 32), {"fused_conv2d_bn"}),
    "densenet121": ("densenet121", {"num_classes": 10}, (1, 3, 32, 32), {"fused_conv2d_bn", "fused_bn_eval_act"}),
    "squeezenet1_1": ("squeezenet1_1", {"num_classes": 10}, (2, 3, 64, 64), {"fused_conv2d_bias_act"}),
}

PADDLE_CODE = """
import json
import numpy as np
spec = json.load(open("spec.json"))
res = {}
for name, (ctor, kwargs, shape, _) in spec.items():
    data = np.load(name + ".npz")
    net = getattr(paddle.vision.models, ctor)(**kwargs)
    net.set_state_dict({k[2:]: paddle.to_tensor(data[k]) for k in data.files if k.startswith("p:")})
    net.eval()
    net = paddle.jit.to_static(net, full_graph=True)
    with paddle.no_grad():
        out = net(paddle.to_tensor(data["x"]))
    np.save(name + "_paddle.npy", out.numpy())
"""


def _fused_types(net):
    prog = net.forward.concrete_program.main_program
    feeds = [op.inputs[next(iter(op.inputs))][0] for op in prog.global_block().ops[:1]]
    return collections.Counter(op.type for op in optimize(prog, feeds, []).global_block().ops)


def test_fused_models_match_paddle(tmp_path):
    ours = {}
    for name, (ctor, kwargs, shape, fused) in MODELS.items():
        paddle.seed(0)
        net = getattr(paddle.vision.models, ctor)(**kwargs)
        net.eval()
        x = np.random.default_rng(0).standard_normal(shape).astype("float32")
        state = {f"p:{k}": v.numpy() for k, v in net.state_dict().items()}
        rng = np.random.default_rng(1)
        for k in state:       # running statistics away from (0, 1) so batch_norm does real work
            if k.endswith("_mean"):
                state[k] = rng.uniform(-0.5, 0.5, state[k].shape).astype("float32")
            elif k.endswith("_variance"):
                state[k] = rng.uniform(0.5, 2.0, state[k].shape).astype("float32")
        net.set_state_dict({k[2:]: paddle.to_tensor(v) for k, v in state.items()})
        np.savez(tmp_path / f"{name}.npz", x=x, **state)
        static = paddle.jit.to_static(net)
        with paddle.no_grad():
            ours[name] = static(paddle.to_tensor(x)).numpy()
            eager = net(paddle.to_tensor(x)).numpy()
        types = _fused_types(static)
        assert fused <= set(types), f"{name}: the pass made {dict(types)}"
        np.testing.assert_allclose(ours[name], eager, rtol=1e-4, atol=1e-5, err_msg=name)
    (tmp_path / "spec.json").write_text(json.dumps({k: [v[0], v[1], v[2], None] for k, v in MODELS.items()}))
    proc = run_paddle(PADDLE_CODE, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in MODELS:
        theirs = np.load(tmp_path / f"{name}_paddle.npy")
        assert theirs.shape == ours[name].shape and theirs.dtype == ours[name].dtype
        scale = float(np.abs(theirs).max())
        np.testing.assert_allclose(ours[name], theirs, rtol=1e-4, atol=1e-5 * max(scale, 1.0), err_msg=name)
