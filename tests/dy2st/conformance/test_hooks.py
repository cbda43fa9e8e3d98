"""Layer forward pre/post hooks under to_static and in what jit.save writes (Paddle's ``with_hook``).

As in Paddle: calls of a converted Layer run the outermost Layer's hooks around the static forward
(eagerly), sublayers' hooks are traced into the Program (their calls are converted), and jit.save puts
the outermost Layer's hooks into the saved Program whenever it has any. Checked against eager, and the
saved files against real Paddle 3.3.1 loading them.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.act = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return self.act(paddle.tanh(self.fc(x)))


def double_input(layer, inputs):
    return (inputs[0] * 2,)


def shift_output(layer, inputs, out):
    return out + inputs[0].sum()


def _net(seed=1):
    paddle.seed(seed)
    return Net()


X = np.random.RandomState(0).uniform(-1, 1, (5, 4)).astype("float32")


def test_outer_hooks_run_around_the_converted_forward():
    net = _net()
    net.register_forward_pre_hook(double_input)
    net.register_forward_post_hook(shift_output)
    want = net(paddle.to_tensor(X)).numpy()
    paddle.jit.to_static(net)
    np.testing.assert_allclose(net(paddle.to_tensor(X)).numpy(), want, rtol=1e-6)


def test_sublayer_hooks_are_traced_into_the_program():
    net = _net()
    calls = []

    def scale(layer, inputs, out):
        calls.append(1)
        return out * 3

    net.fc.register_forward_post_hook(scale)
    want = net(paddle.to_tensor(X)).numpy()
    static = paddle.jit.to_static(net)
    n_eager = len(calls)
    np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(), want, rtol=1e-6)
    static(paddle.to_tensor(X))
    assert len(calls) == n_eager + 1        # ran once, while tracing: it is part of the Program
    ops = static.forward.main_program.global_block().ops
    assert any(op.type == "scale" and op.attrs.get("scale") == 3 for op in ops)


def test_gradients_flow_through_hooks():
    ref, net = _net(), _net()
    for m in (ref, net):
        m.register_forward_pre_hook(double_input)
        m.fc.register_forward_post_hook(lambda layer, inputs, out: out * out)
    ref(paddle.to_tensor(X)).sum().backward()
    paddle.jit.to_static(net)(paddle.to_tensor(X)).sum().backward()
    for p, q in zip(ref.parameters(), net.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_jit_save_writes_the_hooks(tmp_path):
    net = _net()
    net.register_forward_pre_hook(double_input)
    net.register_forward_post_hook(shift_output)
    net.eval()
    want = net(paddle.to_tensor(X)).numpy()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32", "x")])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(X)).numpy(), want, rtol=1e-6)
    # a removed hook is not saved
    net2 = _net()
    handle = net2.register_forward_pre_hook(double_input)
    handle.remove()
    paddle.jit.save(net2, str(tmp_path / "plain"), input_spec=[InputSpec([None, 4], "float32", "x")])
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "plain"))(paddle.to_tensor(X)).numpy(),
                               net2(paddle.to_tensor(X)).numpy(), rtol=1e-6)


def test_with_hook_program_is_separate_from_the_call_program():
    net = _net()
    net.register_forward_post_hook(shift_output)
    sf = paddle.jit.to_static(net).forward
    net(paddle.to_tensor(X))
    plain = sf.concrete_program_specify_input_spec([InputSpec([None, 4], "float32", "x")])
    hooked = sf.concrete_program_specify_input_spec([InputSpec([None, 4], "float32", "x")], with_hook=True)
    assert plain is not hooked and hooked.with_hook and not plain.with_hook
    assert len(hooked.main_program.global_block().ops) > len(plain.main_program.global_block().ops)


def test_real_paddle_loads_the_saved_hooks(tmp_path):
    from tests.interop.paddle_runner import run_paddle
    net = _net()
    net.register_forward_pre_hook(double_input)
    net.register_forward_post_hook(shift_output)
    net.eval()
    want = net(paddle.to_tensor(X)).numpy()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32", "x")])
    np.save(tmp_path / "x.npy", X)
    proc = run_paddle("import json, numpy as np\n"
                      "layer = paddle.jit.load('m')\n"
                      "out = layer(paddle.to_tensor(np.load('x.npy')))\n"
                      "print(json.dumps(out.numpy().tolist()))\n", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = np.array(json.loads(proc.stdout.strip().splitlines()[-1]), dtype="float32")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("with_kwargs", [False, True])
def test_hooks_registered_with_kwargs(tmp_path, with_kwargs):
    net = _net()
    if with_kwargs:
        net.register_forward_pre_hook(lambda layer, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
    else:
        net.register_forward_pre_hook(lambda layer, args: args[0] + 1)
    net.eval()
    want = net(paddle.to_tensor(X)).numpy()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32", "x")])
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "m"))(paddle.to_tensor(X)).numpy(), want, rtol=1e-6)


def test_save_after_train_mode_calls_saves_the_eval_program(tmp_path):
    """jit.save without input_spec takes the last call's arguments, traced again in eval mode (dropout off)."""
    class Drop(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 4)
            self.drop = paddle.nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(self.fc(x))

    net = paddle.jit.to_static(Drop())
    net.train()
    net(paddle.to_tensor(X))
    paddle.jit.save(net, str(tmp_path / "d"))
    net.eval()
    want = net(paddle.to_tensor(X)).numpy()
    loaded = paddle.jit.load(str(tmp_path / "d"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(X)).numpy(), want, rtol=1e-6)
    assert [s.name for s in loaded._input_spec()] == ["x"]
