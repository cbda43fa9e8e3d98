"""Inline ``split`` views, ``concat`` and ``slice`` (codegen_patterns._split_views / _concat_known /
_slice_known): the compiled code equals the kernels (values, dtype, shape, views vs copies) on the
guarded fast path, and inputs the guard sends back (another size, rank or dtype than the Program
declares) take the kernel with its results and its errors."""
import numpy as np
import pytest

import dy2st as paddle
from runtime import static
from runtime.ops.registry import lookup
from runtime.static import Program, program_guard
from runtime.static.codegen import compile_program
from runtime.static.scope import Scope

rng = np.random.default_rng(11)


def compiled(fn, feeds):
    """(compiled program, fetch names) of ``fn(*data vars)`` built from ``feeds``: {name: (shape, dtype)}."""
    paddle.enable_static()
    try:
        main, startup = Program(), Program()
        with program_guard(main, startup):
            outs = fn(*[static.data(n, s, d) for n, (s, d) in feeds.items()])
        names = tuple(o.name for o in outs)
        return compile_program(main, tuple(feeds), names, passes=()), names
    finally:
        paddle.disable_static()


def run(c, **feed):
    return list(c.fn(feed, Scope().vars, {}))


SPLITS = [((4, 12), 3, 1), ((4, 12), [2, -1, 5], -1), ((6, 5), 2, 0), ((2, 9, 3), [0, 4, 5], 1),
          ((2, 3, 8), 4, -1), ((5, 0), [0], 1)]


@pytest.mark.parametrize("shape, sections, axis", SPLITS, ids=[str(i) for i in range(len(SPLITS))])
def test_split_inline_equals_the_kernel(shape, sections, axis):
    c, _ = compiled(lambda x: paddle.split(x, sections, axis=axis), {"x": (list(shape), "float32")})
    assert "split(" in c.source and ".shape[" in c.source, c.source          # the guarded views
    x = rng.standard_normal(shape).astype("float32")
    kernel = lookup("split").kernel
    n = sections if isinstance(sections, int) else 0
    secs = [] if isinstance(sections, int) else sections
    want = kernel(x, None, [], sections=secs, num=n, axis=axis)
    got = run(c, x=x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape and g.strides == w.strides
        assert np.shares_memory(g, x) == np.shares_memory(w, x)               # views, as the kernel's
        np.testing.assert_array_equal(g, w)
    # a non-contiguous input of the same shape
    xt = np.ascontiguousarray(np.swapaxes(x, 0, -1)).swapaxes(0, -1)
    for g, w in zip(run(c, x=xt), kernel(xt, None, [], sections=secs, num=n, axis=axis)):
        assert g.strides == w.strides
        np.testing.assert_array_equal(g, w)


def test_split_guard_sends_other_sizes_to_the_kernel():
    c, _ = compiled(lambda x: paddle.split(x, 2, axis=1), {"x": ([3, 8], "float32")})
    x = rng.standard_normal((3, 6)).astype("float32")            # another size than declared: 2 x 3
    got = run(c, x=x)
    assert [g.shape for g in got] == [(3, 3), (3, 3)]
    np.testing.assert_array_equal(got[1], x[:, 3:])
    with pytest.raises(ValueError, match="not divisible into 2 equal sections"):
        run(c, x=rng.standard_normal((3, 7)).astype("float32"))
    with pytest.raises(Exception):
        run(c, x=rng.standard_normal((8,)).astype("float32"))    # another rank: the kernel's error


def test_split_of_unknown_size_keeps_the_kernel():
    c, _ = compiled(lambda x: paddle.split(x, 2, axis=1), {"x": ([3, -1], "float32")})
    assert "split(x, None, []" in c.source and ".shape[1] ==" not in c.source
    x = rng.standard_normal((3, 10)).astype("float32")
    np.testing.assert_array_equal(run(c, x=x)[0], x[:, :5])


CONCATS = [([(4, 3), (4, 5)], 1, "float32"), ([(2, 3), (4, 3), (1, 3)], 0, "float64"),
           ([(2, 3, 4), (2, 1, 4)], -2, "int64"), ([(3, 0), (3, 2)], -1, "float32"), ([(5,)], 0, "bool")]


@pytest.mark.parametrize("shapes, axis, dtype", CONCATS, ids=[str(i) for i in range(len(CONCATS))])
def test_concat_inline_equals_the_kernel(shapes, axis, dtype):
    feeds = {f"x{k}": (list(s), dtype) for k, s in enumerate(shapes)}
    c, _ = compiled(lambda *xs: [paddle.concat(list(xs), axis=axis)], feeds)
    assert "_uf_concatenate(" in c.source, c.source
    xs = {n: (rng.standard_normal(s[0]) * 5).astype(dtype) for n, s in feeds.items()}
    if len(shapes) > 1:
        xs["x0"] = np.asfortranarray(xs["x0"])                   # a non-contiguous layout
    want = lookup("concat").kernel(list(xs.values()), None, axis=axis)
    got = run(c, **xs)[0]
    assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
    np.testing.assert_array_equal(got, want)


def test_concat_guard_keeps_the_kernel_errors_and_other_shapes():
    c, _ = compiled(lambda a, b: [paddle.concat([a, b], axis=1)], {"a": ([2, 3], "float32"), "b": ([2, 4], "float32")})
    a = rng.standard_normal((2, 3)).astype("float32")
    with pytest.raises(TypeError, match="same dtype"):
        run(c, a=a, b=np.ones((2, 4), "float64"))
    with pytest.raises(ValueError, match="concat"):
        run(c, a=a, b=np.ones((3, 4), "float32"))
    got = run(c, a=np.ones((5, 1), "float32"), b=np.zeros((5, 2), "float32"))[0]     # other sizes: kernel
    np.testing.assert_array_equal(got, np.concatenate([np.ones((5, 1)), np.zeros((5, 2))], 1).astype("float32"))


def test_concat_of_unknown_shape_keeps_the_kernel():
    c, _ = compiled(lambda a, b: [paddle.concat([a, b], axis=0)], {"a": ([-1, 3], "float32"), "b": ([2, 3], "float32")})
    assert "_uf_concatenate(" not in c.source
    a, b = np.ones((4, 3), "float32"), np.zeros((2, 3), "float32")
    np.testing.assert_array_equal(run(c, a=a, b=b)[0], np.concatenate([a, b]))


SLICES = [((32, 4, 8), [0], [3], [4], [0]), ((5, 6), [1], [-4], [100], []), ((5, 6), [0, 1], [1, -1], [-1, -10], []),
          ((3, 1, 4), [1], [0], [1], [1]), ((2, 3), [1], [0], [1], [1]), ((4,), [0], [2], [3], [0])]


@pytest.mark.parametrize("shape, axes, starts, ends, dec", SLICES, ids=[str(i) for i in range(len(SLICES))])
def test_slice_inline_equals_the_kernel(shape, axes, starts, ends, dec):
    def f(x):
        blk = static.default_main_program().global_block()
        out = blk.create_var(name="sliced", shape=[1], dtype="float32")
        blk.append_op("slice", inputs={"Input": x}, outputs={"Out": out},
                      attrs={"axes": axes, "starts": starts, "ends": ends, "decrease_axis": dec,
                             "infer_flags": [1] * len(axes)})
        return [out]
    c, _ = compiled(f, {"x": (list(shape), "float32")})
    assert f".shape == {tuple(shape)!r}" in c.source, c.source
    x = rng.standard_normal(shape).astype("float32")
    kernel = lookup("slice").bind({"axes": axes, "starts": starts, "ends": ends, "decrease_axis": dec})
    want, got = kernel(x, None, None, [], []), run(c, x=x)[0]
    assert type(got) is type(want) and got.shape == want.shape and got.strides == want.strides
    assert np.shares_memory(got, x) == np.shares_memory(want, x) and (got.base is None) == (want.base is None)
    np.testing.assert_array_equal(got, want)


def test_slice_guard_sends_other_shapes_to_the_kernel():
    c, _ = compiled(lambda x: [x[1:3]], {"x": ([4, 2], "float32")})
    assert ".shape == (4, 2)" in c.source
    x = rng.standard_normal((6, 3)).astype("float32")
    np.testing.assert_array_equal(run(c, x=x)[0], x[1:3])
    c, _ = compiled(lambda x: [x[1:3]], {"x": ([-1, 2], "float32")})
    assert ".shape ==" not in c.source
