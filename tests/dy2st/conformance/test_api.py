"""The user API rows: to_static forms, StaticFunction members, InputSpec, enable_to_static,
not_to_static, ignore_module, fallback, retracing warning, the cache key."""
import types
import warnings

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn as nn
from dy2st.static import InputSpec

from .harness import check, check_layer, f32

X = f32(2, 3, seed=12)


def plain(x):
    if x.mean() > 0:
        return x * 2
    return x - 1


@paddle.jit.to_static
def decorated_no_args(x):
    return x * 3


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
def decorated_with_spec(x):
    return x.sum(axis=1)


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc(x)


class PlainNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = h * 2
        return h


def test_decorator_without_args(backend):
    out = decorated_no_args(paddle.to_tensor(X))
    np.testing.assert_allclose(out.numpy(), X * 3, rtol=1e-6)
    assert isinstance(decorated_no_args, paddle.jit.StaticFunction)


def test_decorator_with_input_spec():
    out1 = decorated_with_spec(paddle.to_tensor(X))
    out2 = decorated_with_spec(paddle.to_tensor(f32(5, 3)))
    np.testing.assert_allclose(out1.numpy(), X.sum(1), rtol=1e-6)
    assert out2.shape == [5]
    assert len(decorated_with_spec.program_cache) == 1
    assert decorated_with_spec.concrete_program.inputs[0].name == "x"


def test_decorated_method_binds_per_instance():
    a, b = Net(), Net()
    xa = a(paddle.to_tensor(X))
    xb = b(paddle.to_tensor(X))
    np.testing.assert_allclose(xa.numpy(), a.fc(paddle.to_tensor(X)).numpy(), rtol=1e-5)
    np.testing.assert_allclose(xb.numpy(), b.fc(paddle.to_tensor(X)).numpy(), rtol=1e-5)
    assert a.forward is not b.forward


def test_to_static_layer(backend):
    check_layer(PlainNet, [[X], [-X]], backend)


def test_to_static_fn_and_method():
    sf = paddle.jit.to_static(plain)
    check(plain, [[X], [-X]], sf=sf)
    net = PlainNet()
    m = paddle.jit.to_static(net.forward)
    np.testing.assert_allclose(m(paddle.to_tensor(X)).numpy(), net(paddle.to_tensor(X)).numpy(), rtol=1e-5)


def test_code_and_concrete_program():
    sf = paddle.jit.to_static(plain)
    sf(paddle.to_tensor(X))
    assert "convert_ifelse" in sf.code and "def plain(x):" in sf.code
    prog = sf.concrete_program.main_program
    assert "conditional_block" in [op.type for op in prog.global_block().ops]
    assert str(prog)


def test_get_concrete_program_from_specs():
    sf = paddle.jit.to_static(plain)
    cp, pp = sf.get_concrete_program(InputSpec([None, 3], "float32"))
    assert cp.inputs[0].shape == (-1, 3) or list(cp.inputs[0].shape) == [-1, 3]
    out = pp([paddle.to_tensor(X)])
    np.testing.assert_allclose(out[0].numpy(), plain(paddle.to_tensor(X)).numpy(), rtol=1e-6)


def test_concrete_program_from_input_spec_without_call():
    sf = paddle.jit.to_static(plain, input_spec=[InputSpec([2, 3])])
    assert sf.concrete_program.main_program is not None


def test_concrete_program_before_call_without_spec_raises():
    with pytest.raises(ValueError, match="has not been called yet and has no input_spec"):
        paddle.jit.to_static(plain).concrete_program


def test_program_cache_length_counts_signatures():
    sf = paddle.jit.to_static(plain)
    sf(paddle.to_tensor(X))
    sf(paddle.to_tensor(X * 2))          # same signature
    assert len(sf.program_cache) == 1
    sf(paddle.to_tensor(f32(4, 3)))      # new shape
    sf(paddle.to_tensor(X.astype("float64")))   # new dtype
    assert len(sf.program_cache) == 3


def test_rollback_function_and_layer():
    sf = paddle.jit.to_static(plain)
    assert sf.rollback() is plain
    net = paddle.jit.to_static(PlainNet())
    net(paddle.to_tensor(X))
    eager_fwd = net.forward.rollback()
    assert not isinstance(net.forward, paddle.jit.StaticFunction)
    np.testing.assert_allclose(eager_fwd(paddle.to_tensor(X)).numpy(), net(paddle.to_tensor(X)).numpy())


def test_input_spec_helpers():
    t = paddle.to_tensor(X)
    s = InputSpec.from_tensor(t)
    assert s.shape == (2, 3) and s.dtype == paddle.float32
    n = InputSpec.from_numpy(np.zeros([4, 5], "int64"), name="ids")
    assert n.shape == (4, 5) and n.name == "ids" and n.dtype == paddle.int64
    b = InputSpec([3], "float32").batch(8)
    assert b.shape == (8, 3)
    assert InputSpec([3]).batch(None).shape == (-1, 3)
    assert InputSpec([8, 3]).unbatch().shape == (3,)
    assert InputSpec([None, 3]).shape == (-1, 3)


def test_none_dims_reuse_one_program_across_batch_sizes():
    sf = paddle.jit.to_static(plain, input_spec=[InputSpec([None, 3])])
    for b in (1, 2, 7):
        xb = f32(b, 3, seed=b)
        np.testing.assert_allclose(sf(paddle.to_tensor(xb)).numpy(), plain(paddle.to_tensor(xb)).numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 1


def test_input_spec_mismatch_traces_what_came_with_one_warning():
    # Paddle 3.3.1 accepts a tensor that does not fit its InputSpec: it warns and traces the tensor's
    # own shape (function_spec.convert_to_input_spec); we do the same, naming the argument once
    sf = paddle.jit.to_static(plain, input_spec=[InputSpec([None, 3])])
    with pytest.warns(UserWarning, match=r"argument 'x' came with shape \[2, 4\].*InputSpec \(shape \[None, 3\]"):
        out = sf(paddle.to_tensor(f32(2, 4)))
    np.testing.assert_allclose(out.numpy(), plain(paddle.to_tensor(f32(2, 4))).numpy(), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sf(paddle.to_tensor(f32(5, 4)))     # warned once already
        sf(paddle.to_tensor(f32(5, 3)))     # fits


def test_enable_to_static_false_runs_eagerly():
    seen = []

    def f(x):
        seen.append(type(x).__name__)
        return x + 1
    sf = paddle.jit.to_static(f)
    try:
        paddle.jit.enable_to_static(False)
        sf(paddle.to_tensor(X))
        assert seen == ["Tensor"] and len(sf.program_cache) == 0
    finally:
        paddle.jit.enable_to_static(True)
    sf(paddle.to_tensor(X))
    assert seen[-1] == "Variable" and len(sf.program_cache) == 1


def _eager_only_helper(x):
    # would fail on a Variable: .numpy() has no value while tracing
    return x * float(np.asarray(x.numpy()).shape[0])


_eager_only_marked = paddle.jit.not_to_static(_eager_only_helper)


def test_not_to_static_callee_is_not_converted():
    seen = {}

    @paddle.jit.not_to_static
    def helper(v):
        seen["code"] = getattr(helper, "_dy2st_original", None)
        if isinstance(v, paddle.Tensor):
            return v
        return v * 2

    def f(x):
        return helper(x) + 1
    sf = paddle.jit.to_static(f)
    out = sf(paddle.to_tensor(X))
    np.testing.assert_allclose(out.numpy(), X * 2 + 1, rtol=1e-6)
    assert "code" in seen and seen["code"] is None   # the original ran, not a converted copy


def test_ignore_module():
    mod = types.ModuleType("my_ignored_mod")
    code = "def helper(v):\n    return v * 5\n"
    exec(compile(code, "<my_ignored_mod>", "exec"), mod.__dict__)
    mod.helper.__module__ = "my_ignored_mod"
    paddle.jit.ignore_module([mod])

    def f(x):
        return mod.helper(x)
    out = paddle.jit.to_static(f)(paddle.to_tensor(X))   # no source: would fail if it were converted
    np.testing.assert_allclose(out.numpy(), X * 5, rtol=1e-6)


def test_fallback_warns_and_runs_eagerly():
    ns = {}
    exec("def made(x):\n    return x * 2\n", ns)
    sf = paddle.jit.to_static(ns["made"], fallback=True)
    with pytest.warns(UserWarning, match="eagerly"):
        out = sf(paddle.to_tensor(X))
    np.testing.assert_allclose(out.numpy(), X * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sf(paddle.to_tensor(X))          # decided once: no second warning


def test_retracing_warning_after_ten_programs():
    def f(x, k):
        return x * k
    sf = paddle.jit.to_static(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in range(10):
            sf(paddle.to_tensor(X), k)
    with pytest.warns(UserWarning, match="has been traced 11 times"):
        sf(paddle.to_tensor(X), 10)


def test_cache_key_python_args_by_value():
    def f(x, k):
        return x * k
    sf = paddle.jit.to_static(f)
    np.testing.assert_allclose(sf(paddle.to_tensor(X), 2).numpy(), X * 2)
    np.testing.assert_allclose(sf(paddle.to_tensor(X), 3).numpy(), X * 3)
    np.testing.assert_allclose(sf(paddle.to_tensor(X), 2).numpy(), X * 2)
    assert len(sf.program_cache) == 2


def test_cache_key_includes_training_flag():
    net = paddle.jit.to_static(PlainNet())
    net.train()
    net(paddle.to_tensor(X))
    net.eval()
    net(paddle.to_tensor(X))
    net.train()
    net(paddle.to_tensor(X))
    assert len(net.forward.program_cache) == 2
    assert sorted(cp.training for cp in net.forward.program_cache.concrete_programs()) == [False, True]


def test_user_python_runs_only_while_tracing():
    calls = []

    def f(x):
        calls.append(1)
        return x + 1
    sf = paddle.jit.to_static(f)
    for _ in range(3):
        sf(paddle.to_tensor(X))
    assert len(calls) == 1
