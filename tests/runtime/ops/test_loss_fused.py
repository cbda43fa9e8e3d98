"""fused_softmax_ce_mean (runtime/ops/loss.py) gives, bit for bit, what the ops it replaces give:
softmax_with_cross_entropy + reduce_mean forward, reduce_mean_grad + softmax_with_cross_entropy_grad
backward; and softmax_with_cross_entropy's classes-last path equals the textbook arithmetic it performs
(shift by the row maximum, exp, pairwise row sum, divide; log-sum minus the shifted label logit)."""
import itertools

import numpy as np
import pytest

from runtime.ops.loss import _fused_ce_mean, _fused_ce_mean_grad, _swce, _swce_grad
from runtime.ops.reduce import _mean_grad, _reduce_mean

rng = np.random.default_rng(5)


def _bits(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.shape}/{a.dtype} vs {b.shape}/{b.dtype}"
    assert np.array_equal(a, b, equal_nan=True), what
    assert np.array_equal(np.signbit(a), np.signbit(b)), f"{what}: signs of zeros"


def _logits(shape, dtype, kind):
    z = rng.standard_normal(shape).astype(dtype)
    if kind == "nan_inf" and z.size:
        z.flat[::5] = np.nan
        z.flat[1::7] = np.inf
        z.flat[2::9] = -np.inf
    elif kind == "large":
        z *= 80
    elif kind == "fortran":
        z = np.asfortranarray(z)
    elif kind == "strided":
        z = np.repeat(z, 2, axis=-1)[..., ::2]
    return z


def _labels(shape, kind):
    lead, n = shape[:-1], shape[-1]
    lab = rng.integers(0, n, lead + (1,))
    if kind == "ignored" and lab.size:
        lab.flat[::3] = -100
    elif kind == "int32":
        lab = lab.astype(np.int32)
    elif kind == "no_class_dim":
        lab = lab.reshape(lead)
    return lab


SHAPES = [(1, 1), (3, 10), (64, 10), (33, 7), (128, 24), (5, 100), (2, 3, 4), (4, 40, 10), (0, 5), (7,), (300, 2)]
CASES = list(itertools.product(SHAPES, (np.float32, np.float64), ("plain", "nan_inf", "large", "fortran", "strided"),
                               ("valid", "ignored", "int32", "no_class_dim")))


@pytest.mark.filterwarnings("ignore:Mean of empty slice")     # the (0, 5) rows: NaN, as reduce_mean gives
@pytest.mark.parametrize("shape,dtype,lkind,labkind", CASES[::3] + CASES[1::7])
def test_fused_equals_the_ops_it_replaces(shape, dtype, lkind, labkind):
    z, lab = _logits(shape, dtype, lkind), _labels(shape, labkind)
    with np.errstate(all="ignore"):
        sm, loss = _swce(z, lab, axis=-1)
        for keep in (False, True):
            f = _fused_ce_mean(z, lab, keep_dim=keep)
            _bits(f[0], sm, "softmax")
            if loss.size:
                _bits(f[1], _reduce_mean(loss, dim=[], keep_dim=keep, reduce_all=True), "mean")
            for ddtype in (dtype, np.float64):
                dout = np.asarray(-0.75 if keep else 1.25, ddtype).reshape((1,) * len(shape) if keep else ())
                pair = _swce_grad(lab, sm, _mean_grad(loss, dout, dim=[], reduce_all=True), None, axis=-1)
                _bits(_fused_ce_mean_grad(f[0], f[2], f[3], dout, None), pair, "gradient")


@pytest.mark.parametrize("shape", [(64, 10), (5, 3), (2, 3, 4), (1000, 10)])
def test_classes_last_is_the_textbook_arithmetic(shape):
    z = rng.standard_normal(shape).astype(np.float32)
    lab = rng.integers(0, shape[-1], shape[:-1] + (1,))
    s = z - z.max(axis=-1, keepdims=True)
    e = np.exp(s)
    total = np.add.reduce(e, axis=-1, keepdims=True)
    loss = np.log(total) - np.take_along_axis(s, lab, axis=-1)
    sm, got = _swce(z, lab, axis=-1)
    _bits(sm, e / total, "softmax")
    _bits(got, loss, "loss")


def test_softmax_gradient_slot_and_no_gradients():
    z = rng.standard_normal((4, 5))
    lab = np.array([[1], [0], [4], [2]])
    sm, out, index, valid = _fused_ce_mean(z, lab)
    dsm = rng.standard_normal((4, 5))
    _, loss = _swce(z, lab)
    expect = _swce_grad(lab, sm, _mean_grad(loss, np.asarray(2.0), dim=[], reduce_all=True), dsm)
    np.testing.assert_array_equal(_fused_ce_mean_grad(sm, index, valid, np.asarray(2.0), dsm), expect)
    np.testing.assert_array_equal(_fused_ce_mean_grad(sm, index, valid, None, None), np.zeros((4, 5)))


@pytest.mark.parametrize("label,err,text", [
    (np.array([[1], [5], [0]]), IndexError, "label value 5 is out of range"),
    (np.array([[1], [-3], [0]]), IndexError, "label value -3 is out of range"),
    (np.array([[1.0], [2.0], [0.0]]), TypeError, "hard labels must be an integer tensor"),
    (np.array([[1, 2], [2, 2], [0, 1]]), ValueError, "do not match the input shape"),
])
def test_bad_labels_raise_as_softmax_with_cross_entropy_does(label, err, text):
    z = rng.standard_normal((3, 5))
    with pytest.raises(err, match=text):
        _swce(z, label)
    with pytest.raises(err, match=text):
        _fused_ce_mean(z, label)


def test_ignore_index_inside_the_class_range():
    z = rng.standard_normal((6, 4))
    lab = np.array([[2], [1], [2], [0], [3], [2]])
    sm, out, index, valid = _fused_ce_mean(z, lab, ignore_index=2)
    np.testing.assert_array_equal(valid, lab.reshape(-1) != 2)
    _, loss = _swce(z, lab, ignore_index=2)
    assert loss[0, 0] == 0 and loss[1, 0] > 0
    np.testing.assert_array_equal(out, _reduce_mean(loss, dim=[], reduce_all=True))
    g = _fused_ce_mean_grad(sm, index, valid, np.asarray(1.0), None)
    assert not g[valid == 0].any()
    np.testing.assert_array_equal(g, _swce_grad(lab, sm, _mean_grad(loss, np.asarray(1.0), dim=[], reduce_all=True),
                                                None, ignore_index=2))


def test_labels_of_any_integer_layout():
    z = rng.standard_normal((4, 6))
    base = np.array([[5], [0], [3], [1]])
    expect = _fused_ce_mean(z, base)
    for lab in (base.astype(">i8"), base.astype(np.uint8), base.astype(np.int16), np.repeat(base, 2, 0)[::2]):
        got = _fused_ce_mean(z, lab)
        for a, b in zip(got, expect):
            np.testing.assert_array_equal(a, b)
        _bits(_swce(z, lab)[1], _swce(z, base)[1], f"loss with {lab.dtype} labels")
    with pytest.raises(IndexError, match="label value 72057594037927936 is out of range"):
        _fused_ce_mean(z, np.array([[5], [0], [1 << 56], [1]], ">i8"))
