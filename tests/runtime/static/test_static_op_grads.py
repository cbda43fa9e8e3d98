"""Static column of the op table: for every grad-checked case, the gradient built by static
autograd (and the forward output) equals the eager one."""
import numpy as np
import pytest

import runtime
from runtime import static
from runtime.dispatch import run_op
from runtime.ops.registry import lookup
from runtime.static.backward import append_backward, gradients
from runtime.tensor import Tensor

from ..ops.op_harness import _as_tuple, _grad_slots, _np, _ordered_inputs, loss_weight, run_forward
from ..ops.test_op_table import CASES

# case id -> why its op cannot be checked statically yet (each entry is a bug to fix)
SKIP = {
}

GRAD_CASES = [c for c in CASES if c.check_grad and lookup(c.op).grad is not None and _grad_slots(c)]


@pytest.fixture
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


def _flat(outs):
    res = []
    for o in outs:
        res.extend(o if isinstance(o, list) else [o])
    return res


def _eager(case, rng):
    """Eager outputs, loss weights and d(sum w_i * out_i)/d(grad-checked inputs)."""
    ins, outs = run_forward(case, stop_gradient=False)
    flat = _flat(outs)
    # an output a static program writes in place into its input (batch_norm's MeanOut is Mean) is that
    # input variable there, so no gradient flows through it: leave it out of the loss on both sides
    opdef = lookup(case.op)
    vis = [sl for sl in opdef.outputs if not sl.intermediate]
    slot_of = []
    for sl, o in zip(vis, outs):
        slot_of.extend([sl.name] * (len(o) if isinstance(o, list) else 1))
    inplace = opdef.inplace or {}
    weights = [None if t is None or t.stop_gradient or sl in inplace else loss_weight(rng, t.numpy())
               for t, sl in zip(flat, slot_of)]
    names = list(lookup(case.op).input_names)
    targets = []
    for s in _grad_slots(case):
        v = ins[names.index(s)]
        targets.extend(v if isinstance(v, list) else [v])
    used = [(t, w) for t, w in zip(flat, weights) if w is not None]
    grads = runtime.grad([t for t, _ in used], targets, [Tensor(w.astype(t.numpy().dtype)) for t, w in used],
                         allow_unused=True)
    return [None if t is None else _np(t) for t in flat], weights, [None if g is None else g.numpy() for g in grads]


def _weighted(o, w):
    """o * w, or Re(o) Re(w) + Im(o) Im(w) for a complex output: the real loss whose gradient is the
    eager one's (the eager side passes w as the output gradient, Paddle's dL/dRe + i dL/dIm)."""
    if w.dtype.kind == "c":
        rd = np.float32 if o.dtype.np == np.complex64 else np.float64
        return run_op("elementwise_add", run_op("elementwise_mul", run_op("real", o), w.real.astype(rd)),
                      run_op("elementwise_mul", run_op("imag", o), w.imag.astype(rd)))
    return run_op("elementwise_mul", o, w.astype(o.dtype.np))


def _static(case, weights, use_append_backward):
    opdef = lookup(case.op)
    slots = _grad_slots(case)
    main = static.Program()
    feed, args, targets = {}, [], []
    with static.program_guard(main, static.Program()):
        for slot, v in zip(opdef.inputs, _ordered_inputs(case)):
            if v is None:
                args.append(None)
                continue
            arrs = v if isinstance(v, list) else [v]
            vs = []
            for j, a in enumerate(arrs):
                a = np.asarray(a)
                name = f"{slot.name}_{j}"
                d = static.data(name, list(a.shape), str(a.dtype))
                if slot.name in slots:
                    d.stop_gradient = False
                    targets.append(d)
                feed[name] = a
                vs.append(d)
            args.append(vs if isinstance(v, list) else vs[0])
        outs = _flat(_as_tuple(run_op(case.op, *args, **case.attrs)))
        terms = [run_op("reduce_sum", _weighted(o, w), reduce_all=True) for o, w in zip(outs, weights) if w is not None]
        loss = terms[0] if len(terms) == 1 else run_op("sum", terms)
        if use_append_backward:
            pairs = dict((p.name, g) for p, g in append_backward(loss, parameter_list=targets))
            grads = [pairs.get(t.name) for t in targets]
        else:
            grads = gradients(loss, targets)
    main.verify()
    fetch = [o for o in outs if o is not None] + [g for g in grads if g is not None]
    res = static.Executor().run(main, feed=feed, fetch_list=fetch)
    k = sum(o is not None for o in outs)
    fwd = iter(res[:k])
    got = iter(res[k:])
    return ([None if o is None else next(fwd) for o in outs],
            [None if g is None else next(got) for g in grads])


@pytest.mark.parametrize("k", range(len(GRAD_CASES)), ids=[c.id for c in GRAD_CASES])
def test_static_grad_equals_eager(k, static_mode):
    case = GRAD_CASES[k]
    if case.id in SKIP:
        pytest.skip(SKIP[case.id])
    runtime.disable_static()
    try:
        e_outs, weights, e_grads = _eager(case, np.random.default_rng(0))
    finally:
        runtime.enable_static()
    # alternate the two entry points so both see every kind of op
    s_outs, s_grads = _static(case, weights, use_append_backward=k % 2 == 1)
    if case.compare is None:
        for i, (s, e) in enumerate(zip(s_outs, e_outs)):
            if e is None:
                continue
            assert s is not None and s.shape == e.shape, f"{case.id}: output {i} shape"
            if e.dtype.kind in "fc":
                np.testing.assert_allclose(s, e, rtol=1e-10, atol=1e-12, err_msg=f"{case.id}: output {i}")
            else:
                np.testing.assert_array_equal(s, e, err_msg=f"{case.id}: output {i}")
    assert len(s_grads) == len(e_grads)
    for i, (s, e) in enumerate(zip(s_grads, e_grads)):
        if e is None:
            assert s is None or not np.any(s), f"{case.id}: static grad {i} exists where eager has none"
            continue
        if s is None:
            s = np.zeros_like(e)
        assert s.dtype == e.dtype, f"{case.id}: grad {i} dtype {s.dtype} vs eager {e.dtype}"
        np.testing.assert_allclose(s, e, rtol=1e-9, atol=1e-12, err_msg=f"{case.id}: grad {i}")
