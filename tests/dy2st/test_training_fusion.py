"""The converted training step's own rewrites (dy2st/partial_program.py, dy2st/training_fusion.py; issue
17) change no result: cross_entropy(reduction='mean') runs as fused_softmax_ce_mean where the pattern
allows and as the traced ops elsewhere; gradients are stored without a copy only when nothing else holds
their memory."""
import os

import numpy as np
import pytest

import dy2st as paddle
from dy2st.partial_program import _LIVE, _SOLE, _unshared
from runtime.tensor import Tensor

nn = paddle.nn
F = paddle.nn.functional


class Net(nn.Layer):
    def __init__(self, loss):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 5)
        self.loss = loss

    def forward(self, x, label):
        return self.loss(self.fc2(F.relu(self.fc1(x))), label)


LOSSES = {
    "mean": lambda z, y: F.cross_entropy(z, y),
    "mean_of_none": lambda z, y: paddle.mean(F.cross_entropy(z, y, reduction="none")),
    "sum": lambda z, y: F.cross_entropy(z, y, reduction="sum"),
    "ignore_in_range": lambda z, y: F.cross_entropy(z, y, ignore_index=3),
    "weighted": lambda z, y: F.cross_entropy(z, y, weight=paddle.to_tensor(np.linspace(0.5, 2.0, 5))),
    "per_sample_loss_also_returned": lambda z, y: _mean_and_per_sample(F.cross_entropy(z, y, reduction="none")),
    "soft_label": lambda z, y: F.cross_entropy(z, F.one_hot(paddle.squeeze(y, -1), 5), soft_label=True),
    "two_losses": lambda z, y: F.cross_entropy(z, y) + F.cross_entropy(z * 2.0, y),
    "classes_not_last": lambda z, y: F.cross_entropy(paddle.unsqueeze(z, -1), paddle.unsqueeze(y, -1), axis=1),
    "label_computed": lambda z, y: F.cross_entropy(z, paddle.cast(y, "int32")),
}
FUSED = {"mean", "mean_of_none", "two_losses", "label_computed"}


def _mean_and_per_sample(loss):
    return paddle.mean(loss), loss     # the Loss output is fetched too: left as traced


def _pair(loss):
    paddle.set_default_dtype("float64")
    try:
        paddle.seed(3)
        a, b = Net(loss), Net(loss)
    finally:
        paddle.set_default_dtype("float32")
    b.set_state_dict({k: paddle.to_tensor(v.numpy().copy()) for k, v in a.state_dict().items()})
    return a, paddle.jit.to_static(b, full_graph=True)


def _compiled_op_types(model):
    pp = model.forward.concrete_program.runner
    assert pp in _LIVE.values()
    plans = [p for p in pp._plans.values() if p is not None]
    assert len(plans) == 1
    plan = plans[0]
    fwd = [op.type for op in plan.fwd.ops]
    bwd = [op.type for op in plan.bwd.ops]
    return fwd, bwd, [op.type for op in plan.train_program.global_block().ops]


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_converted_training_equals_eager(name):
    ma, mb = _pair(LOSSES[name])
    rng = np.random.default_rng(1)
    x = paddle.to_tensor(rng.standard_normal((6, 12)))
    lab = rng.integers(0, 5, (6, 1))
    lab[1, 0] = 3
    if name == "ignore_in_range":
        lab[4, 0] = 3
    elif name != "soft_label":
        lab[2, 0] = -100    # an ignored label
    label = paddle.to_tensor(lab)
    opts = [paddle.optimizer.SGD(learning_rate=0.1, parameters=m.parameters()) for m in (ma, mb)]
    for step in range(3):
        for m, opt in zip((ma, mb), opts):
            out = m(x, label)
            (out[0] + out[1].sum() if isinstance(out, tuple) else out).backward()
        for (n, pa), (_, pb) in zip(ma.named_parameters(), mb.named_parameters()):
            np.testing.assert_allclose(pb.grad.numpy(), pa.grad.numpy(), rtol=0, atol=1e-12, err_msg=f"{n} step {step}")
        for opt in opts:
            opt.step()
            opt.clear_grad()
    fwd, bwd, train = _compiled_op_types(mb)
    fused = name in FUSED
    assert ("fused_softmax_ce_mean" in fwd) is fused and ("fused_softmax_ce_mean_grad" in bwd) is fused
    assert ("softmax_with_cross_entropy_grad" in bwd) is not fused
    # the Program Paddle's tests inspect (partial_program.train_program) keeps the traced ops
    assert "fused_softmax_ce_mean" not in train and "softmax_with_cross_entropy_grad" in train


def test_bad_labels_raise_from_the_fused_op_as_from_eager():
    _, mb = _pair(LOSSES["mean"])
    x = paddle.to_tensor(np.ones((3, 12)))
    mb(x, paddle.to_tensor(np.array([[0], [1], [2]]))).backward()
    with pytest.raises(IndexError, match="label value 7 is out of range"):
        mb(x, paddle.to_tensor(np.array([[0], [7], [2]])))


def test_calibrated_reference_counts():
    assert _SOLE is not None        # CPython: the counts tell a shared array from an unshared one


def test_unshared_only_for_memory_nobody_else_holds():
    # (results go to plain locals first: pytest's rewritten asserts keep the operands they show alive)
    fresh = _unshared(Tensor._wrap(np.ones((4, 4))))
    held = np.ones((4, 4))
    of_held = _unshared(Tensor._wrap(held))
    view_of_unheld = _unshared(Tensor._wrap(np.ones((4, 4)).reshape(16)))
    view_of_held = _unshared(Tensor._wrap(held.reshape(16)))
    part = _unshared(Tensor._wrap(np.ones((4, 4))[:2]))      # keeps a bigger buffer alive: copied
    broadcast = _unshared(Tensor._wrap(np.broadcast_to(np.ones(1), (3,))))
    t = Tensor._wrap(np.ones(3))
    other = Tensor._wrap(t._data)       # two tensors on one array
    two = (_unshared(t), _unshared(other))
    assert fresh and view_of_unheld
    assert not (of_held or view_of_held or part or broadcast or any(two))


class Cached(nn.Layer):
    """A gradient array that a cache outside the backward keeps: it must be copied, not stored."""

    def __init__(self):
        super().__init__()
        self.p = self.create_parameter([50, 50], dtype="float64")

    def forward(self, x):
        return (self.p * x).sum()


def test_gradient_held_by_a_kernel_cache_is_copied(monkeypatch):
    from runtime.ops.registry import lookup
    if os.environ.get("DY2ST_EXECUTOR") == "interpreter":
        pytest.skip("patches a kernel bound in the generated code")
    m = paddle.jit.to_static(Cached(), full_graph=True)
    x = paddle.to_tensor(np.full((50, 50), 2.0))
    m(x).backward()
    m.clear_gradients()
    cache = []
    kernel = lookup("elementwise_mul_grad").kernel

    def caching(*a, **k):
        out = kernel(*a, **k)
        cache.extend(o for o in out if isinstance(o, np.ndarray))
        return out
    pp = m.forward.concrete_program.runner
    plan = next(p for p in pp._plans.values() if p is not None)
    glob = plan.bwd.fn.__globals__
    names = [n for n, v in glob.items() if getattr(v, "__name__", "") in ("_gkernel", "<lambda>") and "mul" in n]
    assert names, "elementwise_mul_grad is not bound in the compiled backward"
    for n in names:
        monkeypatch.setitem(glob, n, caching)
    m(x).backward()
    assert cache and not any(np.shares_memory(m.p.grad._data, c) for c in cache)
    np.testing.assert_array_equal(m.p.grad.numpy(), np.full((50, 50), 2.0))


class Adds(nn.Layer):
    """Sums whose first operand the backward may read for its shape only (a bias add) and sums where it
    may not (the first operand is broadcast, or the operands' dtypes differ)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)
        self.b = self.create_parameter([5], dtype="float64")
        self.c = self.create_parameter([1, 5], dtype="float64")

    def forward(self, x):
        h = self.fc(x)                       # bias add: rewritten
        wide = h[:, :1] + self.b             # [N, 1] + [5]: x is broadcast, kept
        rows = self.c + h                    # [1, 5] + [N, 5]: x is broadcast, kept
        mixed = paddle.cast(h, "float32") + paddle.ones([5], "float32")    # float32, rewritten
        return (wide * rows).sum() + paddle.cast(mixed, "float64").sum()


def test_add_grads_read_the_output_gradient_only_where_shapes_agree():
    paddle.set_default_dtype("float64")
    try:
        paddle.seed(11)
        a = Adds()
        b = Adds()
    finally:
        paddle.set_default_dtype("float32")
    b.set_state_dict({k: paddle.to_tensor(v.numpy().copy()) for k, v in a.state_dict().items()})
    b = paddle.jit.to_static(b, full_graph=True)
    x = paddle.to_tensor(np.random.default_rng(2).standard_normal((4, 6)))
    for m in (a, b):
        m(x).backward()
    for (n, pa), (_, pb) in zip(a.named_parameters(), b.named_parameters()):
        np.testing.assert_allclose(pb.grad.numpy(), pa.grad.numpy(), rtol=0, atol=1e-12, err_msg=n)
    plan = next(p for p in b.forward.concrete_program.runner._plans.values() if p is not None)
    reads = [(op.inputs["X"] == op.inputs["Out@GRAD"]) for op in plan.bwd.ops if op.type == "elementwise_add_grad"]
    assert sorted(reads) == [False, False, True, True, True]     # (the last: the sum of two scalars)
    train = plan.train_program.global_block().ops
    assert not any(op.inputs["X"] == op.inputs["Out@GRAD"] for op in train if op.type == "elementwise_add_grad")
