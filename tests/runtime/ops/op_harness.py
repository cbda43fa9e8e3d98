"""Table-driven op checks: one `OpCase` row per registered op (several for ops with modes).

For each row, `check_case` verifies
  1. the eager kernel (through `run_op`) against an independent numpy reference,
  2. ``infer_meta`` against the real output shape and dtype,
  3. the gradient (through the eager tape) against central finite differences in float64.
Complex tensors follow Paddle's convention: a complex output's loss weight w is complex and the
loss is sum(Re(out) Re(w) + Im(out) Im(w)); a complex input (grad-checked only when the row lists
it in ``grad``) gets the gradient dL/dRe + i dL/dIm, which the differences measure part by part.
Rows live in ``cases_<family>.py`` modules as a list named ``CASES``;
``test_op_table.py`` collects them all and fails when a registered op has no row.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

import runtime
from runtime.dispatch import run_op
from runtime.ops.registry import Meta, lookup
from runtime.tensor import Tensor


@dataclasses.dataclass
class OpCase:
    op: str
    inputs: dict                      # slot -> ndarray | list[ndarray] | None
    ref: Callable | None              # (**inputs, **attrs-you-need) -> array or tuple of visible outputs
    attrs: dict = dataclasses.field(default_factory=dict)
    name: str = ""
    grad: tuple | None = None         # slots to grad-check; None = every float input of a differentiable slot
    check_grad: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    grad_rtol: float = 1e-4
    grad_atol: float = 1e-6
    compare: Callable | None = None   # custom comparison (actual_outputs, expected_outputs) for random ops
    eps: float = 1e-6

    @property
    def id(self):
        return f"{self.op}-{self.name}" if self.name else self.op


def _ordered_inputs(case):
    opdef = lookup(case.op)
    unknown = set(case.inputs) - set(opdef.input_names)
    assert not unknown, f"{case.id}: {sorted(unknown)} are not input slots of {case.op} ({opdef.input_names})"
    return [case.inputs.get(s.name) for s in opdef.inputs]


def _to_tensors(values, stop_gradient=True):
    out = []
    for v in values:
        if v is None:
            out.append(None)
        elif isinstance(v, list):
            out.append([Tensor(np.array(a), stop_gradient=stop_gradient) for a in v])
        else:
            out.append(Tensor(np.array(v), stop_gradient=stop_gradient))
    return out


def _as_tuple(x):
    return tuple(x) if type(x) is tuple else (x,)


def _np(x):
    if isinstance(x, list):
        return [_np(v) for v in x]
    if x is None:
        return None
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def run_forward(case, stop_gradient=True):
    ins = _to_tensors(_ordered_inputs(case), stop_gradient)
    out = run_op(case.op, *ins, **case.attrs)
    return ins, _as_tuple(out)


def check_forward(case):
    _, outs = run_forward(case)
    actual = [_np(o) for o in outs]
    if case.compare is not None:
        case.compare(actual, case)
        return actual
    expected = case.ref(**case.inputs, **case.attrs)
    if lookup(case.op).list_output and not isinstance(expected, list):
        expected = list(expected)   # the op's one visible output is a list slot
    expected = _as_tuple(expected)
    assert len(actual) == len(expected), f"{case.id}: {len(actual)} outputs, reference gives {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected)):
        if e is None:
            continue
        if isinstance(e, list):
            assert len(a) == len(e)
            pairs = list(zip(a, e))
        else:
            pairs = [(a, e)]
        for aa, ee in pairs:
            ee = np.asarray(ee)
            assert tuple(aa.shape) == tuple(ee.shape), f"{case.id} output {i}: shape {aa.shape} != {ee.shape}"
            if ee.dtype.kind in "fc":
                np.testing.assert_allclose(aa, ee, rtol=case.rtol, atol=case.atol, err_msg=case.id)
            else:
                np.testing.assert_array_equal(aa, ee, err_msg=case.id)
    return actual


def _meta_of(v):
    if v is None:
        return None
    if isinstance(v, list):
        return [Meta.of(np.asarray(a)) for a in v]
    return Meta.of(np.asarray(v))


def check_infer_meta(case):
    opdef = lookup(case.op)
    metas = [_meta_of(v) for v in _ordered_inputs(case)]
    inferred = opdef.infer_meta(*metas, **opdef.full_attrs(case.attrs))
    _, outs = run_forward(case)
    inferred = _as_tuple(inferred)
    # infer_meta describes every output slot (intermediate ones too); compare the visible ones
    vis = [i for i, s in enumerate(opdef.outputs) if not s.intermediate]
    if len(inferred) == len(opdef.outputs) and len(opdef.outputs) != len(vis):
        inferred = tuple(inferred[i] for i in vis)
    assert len(inferred) == len(outs), f"{case.id}: infer_meta gives {len(inferred)} metas for {len(outs)} outputs"
    for i, (m, o) in enumerate(zip(inferred, outs)):
        if o is None:
            continue
        if isinstance(o, list):
            assert isinstance(m, list) and len(m) == len(o), f"{case.id}: output {i} list metas"
            pairs = zip(m, o)
        else:
            pairs = [(m, o)]
        for mm, oo in pairs:
            real = tuple(oo.numpy().shape)
            assert len(mm.shape) == len(real) and all(d == -1 or d == r for d, r in zip(mm.shape, real)), \
                f"{case.id} output {i}: infer_meta shape {mm.shape} vs real {real}"
            assert np.dtype(mm.dtype) == oo.numpy().dtype, \
                f"{case.id} output {i}: infer_meta dtype {mm.dtype} vs real {oo.numpy().dtype}"


def _grad_slots(case):
    opdef = lookup(case.op)
    if case.grad is not None:
        return list(case.grad)
    slots = []
    for s in opdef.inputs:
        v = case.inputs.get(s.name)
        if s.name not in opdef.differentiable or v is None:
            continue
        arrs = v if isinstance(v, list) else [v]
        if all(np.asarray(a).dtype.kind == "f" for a in arrs):
            slots.append(s.name)
    return slots


def loss_weight(rng, value):
    """A random loss weight for an output: real for float outputs, complex for complex ones, else None."""
    kind = value.dtype.kind
    if kind == "f":
        return rng.standard_normal(value.shape)
    if kind == "c":
        return rng.standard_normal(value.shape) + 1j * rng.standard_normal(value.shape)
    return None


def weighted_sum(value, weight):
    """sum(value * weight) for real outputs, sum(Re(value) Re(w) + Im(value) Im(w)) for complex ones."""
    value = np.asarray(value)
    if value.dtype.kind == "c":
        return float(np.sum(value.real * weight.real + value.imag * weight.imag))
    return float(np.sum(np.asarray(value, dtype=np.float64) * weight))


def check_grad(case, rng=None):
    """Analytic (tape) gradient of sum(w_i * out_i) against central differences, in float64."""
    opdef = lookup(case.op)
    slots = _grad_slots(case)
    if not case.check_grad or not slots or opdef.grad is None or getattr(opdef.grad, "missing", False):
        return False    # no rule (a *_grad op's second order may be an error-raising placeholder: runtime/double_grad.py)
    rng = rng or np.random.default_rng(0)
    for s in slots:
        for a in (case.inputs[s] if isinstance(case.inputs[s], list) else [case.inputs[s]]):
            assert np.asarray(a).dtype in (np.float64, np.complex128), \
                f"{case.id}: grad-checked input {s} must be float64 or complex128"
    ins, outs = run_forward(case, stop_gradient=False)
    weights = []
    for o in outs:
        if o is None:
            weights.append(None)
        elif isinstance(o, list):
            weights.append([loss_weight(rng, t.numpy()) for t in o])
        else:
            weights.append(loss_weight(rng, o.numpy()))
    flat_outs, flat_w = [], []
    for o, w in zip(outs, weights):
        for t, ww in (zip(o, w) if isinstance(o, list) else [(o, w)]):
            if t is not None and ww is not None and not t.stop_gradient:
                flat_outs.append(t)
                flat_w.append(Tensor(ww))
    assert flat_outs, f"{case.id}: no differentiable output"
    names = list(opdef.input_names)
    targets = []
    for s in slots:
        v = ins[names.index(s)]
        targets.extend(v if isinstance(v, list) else [v])
    analytic = runtime.grad(flat_outs, targets, flat_w, allow_unused=True)

    def loss(values):
        out = _as_tuple(opdef.kernel(*values, **case.attrs))
        total = 0.0
        for o, w in zip(out, weights):
            for t, ww in (zip(o, w) if isinstance(o, list) else [(o, w)]):
                if t is not None and ww is not None:
                    total += weighted_sum(t, ww)
        return total

    # C-contiguous copies: the perturbation below writes through reshape(-1), which must be a view
    base = [None if v is None else ([np.array(a, order="C") for a in v] if isinstance(v, list)
                                    else np.array(v, order="C")) for v in _ordered_inputs(case)]
    k = 0
    for s in slots:
        pos = names.index(s)
        arrs = base[pos] if isinstance(base[pos], list) else [base[pos]]
        for j, arr in enumerate(arrs):
            num = np.zeros_like(arr, dtype=np.complex128 if arr.dtype.kind == "c" else np.float64)
            flat = arr.reshape(-1)
            # a complex entry is two real variables: dL/dRe + i dL/dIm
            units = (1.0, 1j) if arr.dtype.kind == "c" else (1.0,)
            for idx in range(flat.size):
                old = flat[idx]
                for unit in units:
                    flat[idx] = old + case.eps * unit
                    up = loss(base)
                    flat[idx] = old - case.eps * unit
                    down = loss(base)
                    flat[idx] = old
                    num.reshape(-1)[idx] += (up - down) / (2 * case.eps) * unit
            got = analytic[k]
            got = np.zeros_like(num) if got is None else got.numpy()
            np.testing.assert_allclose(got, num, rtol=case.grad_rtol, atol=case.grad_atol,
                                       err_msg=f"{case.id}: gradient of {s}[{j}]")
            k += 1
    return True


def check_kernel_defaults(opdef):
    """Every keyword default a kernel declares must equal the schema default of that attr."""
    from runtime.ops.registry import kernel_defaults
    for name, default in kernel_defaults(opdef.kernel).items():
        if name in opdef.attrs:
            schema = opdef.attrs[name][1]
            assert default == schema or (isinstance(schema, (list, tuple)) and list(default or []) == list(schema)), \
                f"{opdef.type}: kernel default {name}={default!r} but schema default is {schema!r}"
