"""Fused multi-tensor updates (runtime/optimizer/multi_tensor.py) give bit-for-bit the numbers of the
per-parameter update ops, with regularisers, clipping, schedulers, parameter groups, loaded state and
parameters without gradients; and leave parameters and accumulators behaving as before."""
import numpy as np
import pytest

import dy2st as paddle
from runtime.optimizer import multi_tensor

nn = paddle.nn


def _grads(shapes, step, dtype):
    rng = np.random.default_rng(100 + step)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


SHAPES = [(5, 3), (3,), (4, 4, 2), (1,), (7,)]


def _params(dtype, seed=0):
    rng = np.random.default_rng(seed)
    ps = []
    for i, s in enumerate(SHAPES):
        p = paddle.create_parameter(list(s), dtype)
        p.set_value(rng.standard_normal(s).astype(dtype))
        ps.append(p)
    return ps


def _run(make_opt, dtype="float32", steps=4, fused=True, skip=None, between=None):
    """Parameters and optimizer state after ``steps`` steps of fixed gradients."""
    prev = multi_tensor.enabled
    multi_tensor.enabled = fused
    try:
        ps = _params(dtype)
        opt = make_opt(ps)
        for k in range(steps):
            for i, (p, g) in enumerate(zip(ps, _grads(SHAPES, k, dtype))):
                p.grad = None if skip is not None and i in skip(k) else paddle.to_tensor(g)
            opt.step()
            opt.clear_grad()
            if between is not None:
                between(k, ps, opt)
        state = {k: np.array(v.numpy() if hasattr(v, "numpy") else v, copy=True)
                 for k, v in opt.state_dict().items() if k != "LR_Scheduler"}
        return [p.numpy().copy() for p in ps], state
    finally:
        multi_tensor.enabled = prev


def _bit_equal(make_opt, **kw):
    pa, sa = _run(make_opt, fused=False, **kw)
    pb, sb = _run(make_opt, fused=True, **kw)
    for a, b in zip(pa, pb):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()
    # accumulator names differ by the parameters' unique-name counters; their order does not
    assert len(sa) == len(sb)
    for (ka, a), (kb, b) in zip(sa.items(), sb.items()):
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), (ka, kb)


O = paddle.optimizer
CASES = {
    "sgd": lambda ps: O.SGD(0.1, parameters=ps),
    "sgd_l2": lambda ps: O.SGD(0.1, parameters=ps, weight_decay=0.01),
    "momentum": lambda ps: O.Momentum(0.05, momentum=0.8, parameters=ps),
    "momentum_nesterov_l2": lambda ps: O.Momentum(0.05, parameters=ps, use_nesterov=True,
                                                  weight_decay=paddle.regularizer.L2Decay(0.01)),
    "momentum_l1": lambda ps: O.Momentum(0.05, parameters=ps, weight_decay=paddle.regularizer.L1Decay(0.01)),
    "adam": lambda ps: O.Adam(0.01, parameters=ps),
    "adam_betas": lambda ps: O.Adam(0.02, beta1=0.8, beta2=0.99, epsilon=1e-6, parameters=ps),
    "adam_amsgrad": lambda ps: O.Adam(0.01, parameters=ps, amsgrad=True),
    "adam_clip": lambda ps: O.Adam(0.01, parameters=ps, grad_clip=nn.ClipGradByGlobalNorm(0.3)),
    "adam_clip_norm": lambda ps: O.Adam(0.01, parameters=ps, grad_clip=nn.ClipGradByNorm(0.5)),
    "adamw": lambda ps: O.AdamW(0.01, parameters=ps, weight_decay=0.1),
    "adamw_select": lambda ps: O.AdamW(0.01, parameters=ps, weight_decay=0.1,
                                       apply_decay_param_fun=lambda n: n.endswith("0"),
                                       lr_ratio=lambda p: 0.5 if len(p.shape) == 1 else 1.0),
    "adam_sched": lambda ps: O.Adam(O.lr.StepDecay(0.05, step_size=1, gamma=0.5), parameters=ps),
    "adam_groups": lambda ps: O.Adam(0.01, parameters=[{"params": ps[:2], "learning_rate": 0.3},
                                                      {"params": ps[2:], "beta1": 0.5}]),
    "sgd_groups": lambda ps: O.SGD(0.1, parameters=[{"params": ps[:3], "weight_decay": 0.2},
                                                   {"params": ps[3:], "learning_rate": 2.0}]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fused_equals_per_parameter(case, dtype):
    _bit_equal(CASES[case], dtype=dtype)


@pytest.mark.parametrize("case", ["sgd", "momentum", "adam", "adamw"])
def test_parameters_without_gradients_and_changing_sets(case):
    # some steps leave some parameters without a gradient: the buckets change from step to step
    _bit_equal(CASES[case], steps=5, skip=lambda k: {k % len(SHAPES), (2 * k) % len(SHAPES)})


def test_values_written_between_steps_are_used():
    def poke(k, ps, opt):
        if k == 1:
            ps[2].set_value(np.full(SHAPES[2], 0.25, "float32"))         # replaces the array
        if k == 2:
            ps[0]._data[...] = 1.5                                     # writes into it (a view)
        if k == 3:
            sd = opt.state_dict()
            opt.set_state_dict({n: paddle.to_tensor(np.asarray(v.numpy()) * 0.5) if hasattr(v, "numpy") else v
                                for n, v in sd.items()})
    _bit_equal(CASES["adam"], steps=5, between=poke)


def test_fused_adam_leaves_plain_tensors():
    prev = multi_tensor.enabled
    multi_tensor.enabled = True
    try:
        ps = _params("float32")
        opt = CASES["adam"](ps)
        for k in range(2):
            for p, g in zip(ps, _grads(SHAPES, k, "float32")):
                p.grad = paddle.to_tensor(g)
            opt.step()
        flat = ps[0]._data.base
        assert flat is not None and all(p._data.base is flat for p in ps)    # one bucket, one flat array
        for p, s in zip(ps, SHAPES):
            assert p.shape == list(s) and p._data.flags.c_contiguous and p._data.flags.writeable
        before = ps[1]._data.copy()
        ps[1]._data[0] = 42.0       # one parameter's slice only
        assert ps[1]._data[0] == 42.0 and ps[0]._data.tolist() != before.tolist()
        sd = opt.state_dict()
        assert all(np.asarray(v.numpy()).shape == tuple(v.shape) for k, v in sd.items() if k != "LR_Scheduler")
    finally:
        multi_tensor.enabled = prev


def test_subclass_overriding_the_update_is_not_fused():
    seen = []

    class MySGD(O.SGD):
        def _append_optimize_op(self, group, param, grad):
            seen.append(param.name)
            super()._append_optimize_op(group, param, grad)
    ps = _params("float32")
    opt = MySGD(0.1, parameters=ps)
    for p, g in zip(ps, _grads(SHAPES, 0, "float32")):
        p.grad = paddle.to_tensor(g)
    opt.step()
    assert len(seen) == len(ps)
    assert multi_tensor.fused_update(opt) is None
    assert multi_tensor.fused_update(O.SGD(0.1, parameters=ps)) is not None


@pytest.mark.parametrize("case", ["sgd", "momentum_nesterov_l2", "adam", "adamw_select"])
def test_fused_path_is_taken(case):
    ps = _params("float32")
    opt = CASES[case](ps)
    for p, g in zip(ps, _grads(SHAPES, 0, "float32")):
        p.grad = paddle.to_tensor(g)
    opt._create_accumulators(ps, opt._param_groups[0])
    fused = multi_tensor.fused_update(opt)
    assert fused is not None and fused(opt, opt._param_groups[0], [(p, p.grad) for p in ps]) is True
