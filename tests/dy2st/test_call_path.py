"""The to_static hot path (issue 17): a call with the last call's signature skips the key and goes
straight to the compiled function (StaticFunction.__call__ -> PartialProgram.infer_call). Each test
first establishes the hot path, then changes one thing it must notice (mode, grad mode, hooks, AMP,
enable_to_static, a mutated Program, an input needing gradients) and checks the result against eager."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import dy2st as paddle
from dy2st import partial_program


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.drop = paddle.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(paddle.tanh(self.fc(x)))


def _pair(seed=3):
    paddle.seed(seed)
    eager = Net()
    conv = Net()
    conv.set_state_dict(eager.state_dict())
    return eager, paddle.jit.to_static(conv, full_graph=True)


def _x(n=2, seed=0):
    return paddle.to_tensor(np.random.RandomState(seed).standard_normal((n, 4)).astype("float32"))


def _hot(sf):
    return sf._fast_args is not None


def test_hot_path_values_and_a_new_shape():
    eager, conv = _pair()
    eager.eval()
    conv.eval()
    with paddle.no_grad():
        for _ in range(3):
            np.testing.assert_allclose(conv(_x()).numpy(), eager(_x()).numpy(), rtol=1e-6)
        assert _hot(conv.forward)
        np.testing.assert_allclose(conv(_x(5)).numpy(), eager(_x(5)).numpy(), rtol=1e-6)
        np.testing.assert_allclose(conv(_x()).numpy(), eager(_x()).numpy(), rtol=1e-6)
    assert conv.forward.get_traced_count() == 2


def test_switching_train_eval_after_the_hot_path():
    eager, conv = _pair()
    eager.eval()
    conv.eval()
    x = paddle.ones([64, 4])
    with paddle.no_grad():
        conv(x)
        conv(x)
        conv.train()        # dropout on: some outputs are zero
        out = conv(x).numpy()
        assert (out == 0).any()
        conv.eval()
        np.testing.assert_allclose(conv(x).numpy(), eager(x).numpy(), rtol=1e-6)


def test_grad_mode_and_inputs_needing_gradients_after_the_hot_path():
    eager, conv = _pair()
    eager.eval()
    conv.eval()
    with paddle.no_grad():
        conv(_x())
        conv(_x())
    out = conv(_x())           # grad enabled, eval mode: the parameters are not differentiated
    assert out._node is None
    xe, xc = _x(), _x()
    xe.stop_gradient = xc.stop_gradient = False
    eager(xe).sum().backward()
    conv(xc).sum().backward()   # a new signature (stop_gradient): the general path, then differentiable
    np.testing.assert_allclose(xc.grad.numpy(), xe.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(conv.fc.weight.grad.numpy(), eager.fc.weight.grad.numpy(), rtol=1e-5)


def test_training_call_with_the_inference_signature_records_the_graph():
    eager, conv = _pair()
    for m in (eager, conv):
        m.drop.p = 0.0
    with paddle.no_grad():
        conv(_x())
        conv(_x())
    assert _hot(conv.forward)
    eager(_x()).sum().backward()
    conv(_x()).sum().backward()      # same signature, grad enabled in train mode: parameter gradients
    np.testing.assert_allclose(conv.fc.weight.grad.numpy(), eager.fc.weight.grad.numpy(), rtol=1e-5)


def test_hooks_added_after_the_hot_path_run():
    _, conv = _pair()
    conv.eval()
    with paddle.no_grad():
        base = conv(_x()).numpy()
        conv(_x())
        handle = conv.register_forward_post_hook(lambda layer, inputs, out: out * 2)
        np.testing.assert_allclose(conv(_x()).numpy(), base * 2, rtol=1e-6)
        handle.remove()
        np.testing.assert_allclose(conv(_x()).numpy(), base, rtol=1e-6)


def test_enable_to_static_false_after_the_hot_path_runs_eagerly():
    calls = []

    def f(x):
        calls.append(1)         # Python side effect: runs at trace time only, or at every eager call
        return x * 2

    sf = paddle.jit.to_static(f, full_graph=True)
    sf(_x())
    sf(_x())
    assert len(calls) == 1
    paddle.jit.enable_to_static(False)
    try:
        np.testing.assert_allclose(sf(_x()).numpy(), _x().numpy() * 2)
    finally:
        paddle.jit.enable_to_static(True)
    assert len(calls) == 2
    sf(_x())
    assert len(calls) == 2


def test_amp_region_after_the_hot_path_retraces():
    def f(x):
        return paddle.matmul(x, x, transpose_y=True)

    sf = paddle.jit.to_static(f, full_graph=True)
    sf(_x())
    sf(_x())
    with paddle.amp.auto_cast(level="O1", dtype="float16"):
        assert sf(_x()).dtype == paddle.float16     # traced again under the region (matmul runs in float16)
    assert sf.get_traced_count() == 2
    assert sf(_x()).dtype == paddle.float32


def test_a_mutated_program_is_recompiled(monkeypatch):
    compiled = []
    real = partial_program.compile_program

    def counting(program, feeds, fetches):
        compiled.append(fetches)
        return real(program, feeds, fetches)
    monkeypatch.setattr(partial_program, "compile_program", counting)

    def f(x):
        return x + 1.0

    sf = paddle.jit.to_static(f, full_graph=True)
    with paddle.no_grad():
        sf(_x())
        sf(_x())
        assert len(compiled) == 1
        sf.concrete_program.main_program._bump()      # what an in-place edit of the Program does
        np.testing.assert_allclose(sf(_x()).numpy(), _x().numpy() + 1.0)
    assert len(compiled) == 2


def test_training_compiles_no_forward_only_function(monkeypatch):
    compiled = []
    real = partial_program.compile_program
    monkeypatch.setattr(partial_program, "compile_program",
                        lambda p, feeds, fetches: compiled.append(fetches) or real(p, feeds, fetches))
    _, conv = _pair()
    conv.drop.p = 0.0
    conv(_x()).sum().backward()
    assert len(compiled) == 2       # the forward with its saved values, and the backward
    with paddle.no_grad():
        conv(_x())
    assert len(compiled) == 3       # the forward alone, compiled by the first call needing it


def test_output_flag_on_the_hot_path_is_the_traced_variables():
    def made_inside(x):
        return paddle.to_tensor([1.0, 2.0], stop_gradient=False) + x.sum()

    def plain(x):
        return x * 2

    for fn, flag in ((made_inside, False), (plain, True)):
        sf = paddle.jit.to_static(fn, full_graph=True)
        with paddle.no_grad():
            assert [sf(_x()).stop_gradient for _ in range(3)] == [flag] * 3
        assert _hot(sf)


def test_a_deleted_instance_raises_as_in_paddle():
    class Owner(paddle.nn.Layer):
        @paddle.jit.to_static(full_graph=True)
        def forward(self, x):
            return x + 1

    owner = Owner()
    bound = owner.forward
    bound(_x())
    del owner
    gc.collect()
    with pytest.raises(RuntimeError, match="The instance of class has been deleted"):
        bound(_x())
