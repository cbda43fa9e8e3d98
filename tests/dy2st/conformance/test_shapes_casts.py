"""x.shape / x.shape[i] (dynamic dims via InputSpec), paddle.shape, len, int/float/bool on tensors."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

from .harness import Arg, check, f32, i64

X23 = f32(2, 3, seed=6)
X53 = f32(5, 3, seed=7)
SPEC = [InputSpec([None, 3], "float32")]


def shape_static(x):
    return x.reshape([x.shape[0] * x.shape[1]])


def shape_list_use(x):
    b, c = x.shape
    return paddle.zeros([b, c]) + x * c


def shape_dynamic_reshape(x):
    return paddle.reshape(x, [x.shape[0], 3, 1])


def shape_dynamic_arith(x):
    n = x.shape[0]
    return x.sum(axis=0) / paddle.full([1], n, "float32")


def shape_dynamic_loop(x):
    s = paddle.zeros([3])
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def paddle_shape_fn(x):
    s = paddle.shape(x)
    return paddle.cast(s, "float32").sum() + x.sum()


def len_fn(x):
    return x * len(x)


def len_dynamic(x):
    n = len(x)
    return x.mean(axis=0) * paddle.cast(n, "float32") if not isinstance(n, int) else x.mean(axis=0) * n


def int_of_tensor(x, n):
    k = int(n)
    return x + paddle.full([1], k, "float32")


def float_of_tensor(x):
    m = float(x.mean())
    return x - m


def bool_of_tensor(x):
    b = bool(x.sum() > 0)
    if b:
        return x * 2
    return x * 3


def int_in_range(x, n):
    s = x * 0
    for i in range(int(n)):
        s = s + x
    return s


def shape_compare(x):
    if x.shape[-1] == 3:
        return x * 2
    return x


def ndim_and_size(x):
    return x * x.ndim + x.dim()


def size_attr(x):
    return x * 0 + x.size


def full_with_shape(x):
    return paddle.full([x.shape[0], 1], 2.0) * x


def expand_dynamic(x):
    b = paddle.ones([1, 3]).expand([x.shape[0], 3])
    return b + x


CASES_STATIC = [
    (shape_static, [[X23]]),
    (shape_list_use, [[X23]]),
    (shape_dynamic_reshape, [[X23]]),
    (shape_dynamic_arith, [[X23]]),
    (shape_dynamic_loop, [[X23]]),
    (paddle_shape_fn, [[X23]]),
    (len_fn, [[X23]]),
    (int_of_tensor, [[X23, Arg(i64(2))], [X23, Arg(i64(5))]]),
    (float_of_tensor, [[X23]]),
    (bool_of_tensor, [[X23], [-np.abs(X23)]]),
    (int_in_range, [[X23, Arg(i64(0))], [X23, Arg(i64(3))]]),
    (shape_compare, [[X23]]),
    (ndim_and_size, [[X23]]),
    (full_with_shape, [[X23]]),
    (expand_dynamic, [[X23]]),
]


@pytest.mark.parametrize("fn,argsets", CASES_STATIC, ids=[c[0].__name__ for c in CASES_STATIC])
def test_shapes_casts(fn, argsets, backend):
    check(fn, argsets, backend)


DYNAMIC = [shape_dynamic_reshape, shape_dynamic_arith, shape_dynamic_loop, paddle_shape_fn, full_with_shape,
           expand_dynamic, shape_compare]


@pytest.mark.parametrize("fn", DYNAMIC, ids=[f.__name__ for f in DYNAMIC])
def test_dynamic_batch_dim(fn, backend):
    sf = paddle.jit.to_static(fn, input_spec=SPEC)
    check(fn, [[X23], [X53], [f32(1, 3)]], backend, sf=sf)
    assert len(sf.program_cache) == 1
    assert sf.concrete_program.inputs[0].shape[0] == -1


def test_shape_of_dynamic_dim_is_a_tensor():
    seen = {}

    def probe(x):
        seen["dim"] = x.shape[0]
        seen["known"] = x.shape[1]
        return x * 1
    sf = paddle.jit.to_static(probe, input_spec=SPEC)
    sf(paddle.to_tensor(X23))
    assert seen["known"] == 3
    assert not isinstance(seen["dim"], int)
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "shape" in ops


def test_dynamic_dims_len_and_paddle_shape_are_int64():
    # Paddle 3.x (eager and to_static) gives int64 for x.shape[i] of an unknown dim, len(x), paddle.shape
    def f(x):
        return x.shape[0], len(x), paddle.shape(x), x.shape[0] * 2
    sf = paddle.jit.to_static(f, input_spec=SPEC)
    outs = sf(paddle.to_tensor(X53))
    assert [str(o.numpy().dtype) for o in outs] == ["int64"] * 4
    assert [o.numpy().tolist() for o in outs] == [5, 5, [5, 3], 10]


def test_int_float_bool_of_variables_are_casts():
    sf = paddle.jit.to_static(float_of_tensor)
    sf(paddle.to_tensor(X23))
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "cast" in ops


def test_size_attribute():
    check(size_attr, [[X23]])
