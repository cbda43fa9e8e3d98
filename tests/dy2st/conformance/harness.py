"""Eager-vs-converted checks shared by the conformance tests.

`check(fn, argsets, backend)` runs ``fn`` eagerly (the oracle) and through ONE
``paddle.jit.to_static(fn)`` on every argument set (so one traced Program must serve every
path its tensor predicates can take), compares outputs and, where differentiable, the input
gradients of ``out.sum()``. With ``backend="interpreter"`` the traced Program is also run by the
reference interpreter (``Executor(backend="interpreter")``) and compared with eager.
`check_layer` does the same for a Layer, comparing parameter gradients between two copies.
"""
from __future__ import annotations

import numpy as np

import dy2st as paddle
from dy2st.static_function import _Out
from runtime.static.control_flow import flatten, pack

BACKENDS = ["compiled", "interpreter"]
RTOL, ATOL = 1e-5, 1e-6


def f32(*shape, lo=-1.0, hi=1.0, seed=0):
    return np.random.RandomState(seed).uniform(lo, hi, shape).astype("float32")


def i64(*vals):
    return np.array(vals, dtype="int64")


class Arg:
    """A tensor argument: ``data`` becomes a fresh Tensor per run; ``grad`` makes it need gradients."""

    def __init__(self, data, grad=None):
        self.data = np.asarray(data)
        self.grad = self.data.dtype.kind == "f" if grad is None else grad


def _make(args):
    out, tensors = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            a = Arg(a)
        if isinstance(a, Arg):
            t = paddle.to_tensor(a.data.copy())
            t.stop_gradient = not a.grad
            out.append(t)
            tensors.append(t)
        else:
            out.append(a)
    return out, tensors


def _value(v):
    if isinstance(v, paddle.Tensor):
        return v.numpy()
    return v


def assert_same(eager, static, what=""):
    el, sl = flatten(eager), flatten(static)
    assert len(el) == len(sl), f"{what}: eager gave {len(el)} leaves, converted {len(sl)}: {eager!r} vs {static!r}"
    assert _shape_of(eager) == _shape_of(static), f"{what}: structures differ: {eager!r} vs {static!r}"
    for e, s in zip(el, sl):
        if isinstance(e, paddle.Tensor) or isinstance(s, paddle.Tensor):
            ev, sv = np.asarray(_value(e)), np.asarray(_value(s))
            assert ev.shape == sv.shape, f"{what}: shape {ev.shape} (eager) vs {sv.shape} (converted)"
            if ev.dtype.kind == "f" or sv.dtype.kind == "f":
                np.testing.assert_allclose(sv, ev, rtol=RTOL, atol=ATOL, err_msg=what)
            else:
                np.testing.assert_array_equal(sv, ev, err_msg=what)
            if isinstance(e, paddle.Tensor) and isinstance(s, paddle.Tensor):
                assert ev.dtype == sv.dtype, f"{what}: dtype {ev.dtype} (eager) vs {sv.dtype} (converted)"
        else:
            assert e == s, f"{what}: {e!r} (eager) vs {s!r} (converted)"


def _shape_of(o):
    if isinstance(o, (list, tuple)):
        return (type(o).__name__, tuple(_shape_of(x) for x in o))
    if isinstance(o, dict):
        return ("dict", tuple((k, _shape_of(o[k])) for k in sorted(o)))
    return "."


def _loss(out):
    leaves = [t for t in flatten(out) if isinstance(t, paddle.Tensor) and not t.stop_gradient
              and t.dtype.name.startswith("float")]
    if not leaves:
        return None
    total = leaves[0].sum()
    for t in leaves[1:]:
        total = total + t.sum()
    return total


def run_interpreter(sf, args, kwargs=None):
    """Run the ConcreteProgram of ``sf`` for ``args`` with the reference interpreter."""
    _, tensors = _make(args)
    cp, _ = sf.get_concrete_program(*_make(args)[0], **(kwargs or {}))
    exe = paddle.static.Executor(backend="interpreter")
    feed = {v.name: t.numpy() for v, t in zip(cp.inputs, tensors)}
    outs = exe.run(cp.main_program, feed=feed, fetch_list=list(cp.outputs)) if cp.outputs else []
    leaves = [paddle.to_tensor(outs[leaf.index]) if isinstance(leaf, _Out) else leaf
              for leaf in flatten(cp.structure)]
    return pack(cp.structure, leaves)


def check(fn, argsets, backend="compiled", grad=True, sf=None, kwargs=None):
    """Eager vs converted on every argument set in ``argsets``; returns the StaticFunction."""
    sf = sf if sf is not None else paddle.jit.to_static(fn)
    for args in argsets:
        e_args, e_tensors = _make(args)
        eager = fn(*e_args, **(kwargs or {}))
        s_args, s_tensors = _make(args)
        static = sf(*s_args, **(kwargs or {}))
        assert_same(eager, static, f"{fn.__name__}{tuple(args)!r}")
        if backend == "interpreter":
            assert_same(eager, run_interpreter(sf, args, kwargs), f"{fn.__name__} (interpreter)")
        if grad:
            le, ls = _loss(eager), _loss(static)
            if le is None:
                continue
            assert ls is not None, f"{fn.__name__}: eager output is differentiable, converted is not"
            le.backward()
            ls.backward()
            for k, (te, ts) in enumerate(zip(e_tensors, s_tensors)):
                if te.stop_gradient:
                    continue
                ge, gs = te.grad, ts.grad
                if ge is None:
                    assert gs is None or np.allclose(gs.numpy(), 0), f"{fn.__name__}: grad of input {k}"
                    continue
                assert gs is not None, f"{fn.__name__}: converted run gave no gradient for input {k}"
                np.testing.assert_allclose(gs.numpy(), ge.numpy(), rtol=RTOL, atol=ATOL,
                                           err_msg=f"{fn.__name__}: grad of input {k}")
    return sf


def twin_layers(make, seed=0):
    paddle.seed(seed)
    a = make()
    b = make()
    b.set_state_dict(a.state_dict())
    return a, b


def check_layer(make, argsets, backend="compiled", train=True, grad=True, seed=0):
    """A Layer eagerly vs ``to_static(copy)``: outputs, parameter and input gradients, buffers."""
    eager_layer, static_layer = twin_layers(make, seed)
    for layer in (eager_layer, static_layer):
        layer.train() if train else layer.eval()
    static_layer = paddle.jit.to_static(static_layer)
    for args in argsets:
        e_args, e_tensors = _make(args)
        s_args, s_tensors = _make(args)
        paddle.seed(seed + 1)
        eager = eager_layer(*e_args)
        paddle.seed(seed + 1)
        static = static_layer(*s_args)
        assert_same(eager, static, f"{type(eager_layer).__name__}")
        if backend == "interpreter" and not (train and _has_random(eager_layer)):
            sf = static_layer.forward
            before = {k: v.numpy().copy() for k, v in static_layer.state_dict().items()}
            assert_same(eager, run_interpreter(sf, args), f"{type(eager_layer).__name__} (interpreter)")
            for k, v in static_layer.state_dict().items():   # the interpreter run may update buffers
                v.set_value(before[k])
        for (k, be), bs in zip(eager_layer.state_dict().items(), static_layer.state_dict().values()):
            np.testing.assert_allclose(bs.numpy(), be.numpy(), rtol=RTOL, atol=ATOL, err_msg=f"state {k}")
        if grad and train:
            le, ls = _loss(eager), _loss(static)
            if le is None:
                continue
            le.backward()
            ls.backward()
            for (name, pe), ps in zip(eager_layer.named_parameters(), static_layer.parameters()):
                if pe.grad is None:
                    assert ps.grad is None or np.allclose(ps.grad.numpy(), 0), f"grad of {name}"
                    continue
                assert ps.grad is not None, f"converted run gave no gradient for parameter {name}"
                np.testing.assert_allclose(ps.grad.numpy(), pe.grad.numpy(), rtol=RTOL, atol=ATOL,
                                           err_msg=f"grad of {name}")
                pe.clear_grad()
                ps.clear_grad()
            for k, (te, ts) in enumerate(zip(e_tensors, s_tensors)):
                if not te.stop_gradient and te.grad is not None:
                    np.testing.assert_allclose(ts.grad.numpy(), te.grad.numpy(), rtol=RTOL, atol=ATOL,
                                               err_msg=f"grad of input {k}")
    return eager_layer, static_layer


def _has_random(layer):
    return any(type(m).__name__.startswith("Dropout") for m in layer.sublayers(include_self=True))
