"""Grad kernels computing only the wanted outputs (runtime/static/partial_grads.py) return bit-for-bit
the full kernel's values for those outputs, and codegen uses them when the backward pruned a gradient."""
import numpy as np
import pytest

from runtime.ops.registry import lookup
from runtime.static.partial_grads import partial_kernel

R = np.random.default_rng(0)


def _check(op_type, arrays, attrs, wanted):
    opdef = lookup(op_type)
    full = opdef.kernel(*arrays, **attrs)
    part = partial_kernel(op_type, wanted, opdef.full_attrs(attrs))
    assert part is not None
    got = part(*arrays)
    assert len(got) == len(full)
    for w, f, g in zip(wanted, full, got):
        if not w:
            assert g is None
            continue
        assert f.dtype == g.dtype and f.shape == g.shape
        assert np.asarray(f).tobytes() == np.asarray(g).tobytes()


MATMUL = [
    ((6, 4), (4, 3), {}),
    ((4, 6), (4, 3), {"trans_x": True}),
    ((6, 4), (3, 4), {"trans_y": True}),
    ((2, 5, 6, 4), (4, 3), {}),
    ((5, 6, 4), (1, 4, 3), {}),
    ((4,), (4, 3), {}),
    ((6, 4), (4,), {}),
    ((2, 3, 4), (2, 4, 5), {"trans_x": False, "trans_y": False}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("xs,ys,attrs", MATMUL)
def test_matmul_grad_one_side(xs, ys, attrs, dtype):
    x = R.standard_normal(xs).astype(dtype)
    y = R.standard_normal(ys).astype(dtype)
    if dtype.startswith("complex"):
        x = x + 1j * R.standard_normal(xs)
        y = y + 1j * R.standard_normal(ys)
    out = lookup("matmul_v2").kernel(x, y, **attrs)
    d = R.standard_normal(out.shape).astype(dtype)
    for wanted in ((True, False), (False, True)):
        _check("matmul_v2_grad", (x, y, d), attrs, wanted)


def test_matmul_both_or_none_keeps_the_full_kernel():
    assert partial_kernel("matmul_v2_grad", (True, True), {}) is None
    assert partial_kernel("elementwise_add_grad", (False, True), {}) is None


CONV = [
    ((2, 3, 9, 9), (4, 3, 3, 3), {}),
    ((2, 4, 9, 8), (6, 2, 3, 2), {"groups": 2, "strides": [2, 1], "paddings": [1, 0]}),
    ((1, 2, 10, 10), (3, 2, 3, 3), {"dilations": [2, 2], "paddings": [2, 2]}),
    ((2, 7, 7, 3), (4, 3, 3, 3), {"data_format": "NHWC", "padding_algorithm": "SAME", "strides": [2, 2]}),
    ((2, 5, 6, 6), (3, 5, 1, 1), {}),                       # 1x1 stride 1: the input is the column matrix
]


@pytest.mark.parametrize("xs,ws,attrs", CONV)
@pytest.mark.parametrize("op", ["conv2d", "depthwise_conv2d"])
def test_conv2d_filter_grad_only(xs, ws, attrs, op):
    x = R.standard_normal(xs)
    w = R.standard_normal(ws)
    out = lookup(op).kernel(x, w, **attrs)
    d = R.standard_normal(out.shape)
    _check(op + "_grad", (x, w, d), attrs, (False, True))
    assert partial_kernel(op + "_grad", (True, False), {}) is None


def test_codegen_binds_the_partial_kernel():
    import dy2st as paddle
    from runtime.static import program_guard, Program
    from runtime.static.backward import append_backward
    from runtime.static.codegen import compile_program
    paddle.enable_static()
    try:
        prog, start = Program(), Program()
        with program_guard(prog, start):
            x = paddle.static.data("x", [5, 4], "float32")
            fc = paddle.nn.Linear(4, 3)
            loss = paddle.mean(fc(x))
            append_backward(loss)
        grad_name = fc.weight.name + "@GRAD"
        compiled = compile_program(prog, ("x",), (grad_name,))
    finally:
        paddle.disable_static()
    line = next(ln for ln in compiled.source.splitlines() if "matmul_v2_grad" in ln)
    assert line.strip().startswith("_, ")
    fn = compiled.fn.__globals__[line.split("= ")[1].split("(")[0]]
    assert fn.__module__ == "runtime.static.partial_grads"
