"""Indexing inside a Program (runtime/api/indexing_advanced.py): several list / tensor indices at once
(reads: gather_nd, writes: index_put + set_value) and 0-D int tensor indices (slice / set_value with
tensor bounds), against numpy with Paddle's rules, on the compiled executor and the interpreter, with
shapes inferred for a None batch dim and gradients checked by float64 finite differences."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static

XV = np.random.default_rng(5).uniform(-1, 1, (3, 4, 5))
FEED = {"x": XV, "i": np.array([2, 0]), "one": np.array(1), "m": np.array([True, False, True]),
        "v": np.array([0.25, -2.0])}


def _program(build, dtype="float64"):
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [-1, 4, 5], dtype)
            x.stop_gradient = False
            i = static.data("i", [2], "int64")
            one = static.data("one", [], "int64")
            m = static.data("m", [3], "bool")
            v = static.data("v", [2], dtype)
            v.stop_gradient = False
            out = build(x, i, one, m, v)
            return main, (x, v), out
    finally:
        paddle.disable_static()


def _run(main, fetch, backend, feed=FEED):
    return static.Executor(backend=backend).run(main, feed=dict(feed), fetch_list=fetch)


# (build in a Program, numpy reference, inferred shape)
GET = {
    "list_and_tensor": (lambda x, i, one, m, v: x[[0, 1], i], lambda a: a[[0, 1], [2, 0]], [2, 5]),
    "tensor_slice_tensor": (lambda x, i, one, m, v: x[i, :, i], lambda a: a[[2, 0], :, [2, 0]], [2, 4]),
    "adjacent_in_middle": (lambda x, i, one, m, v: x[:, i, [0, 3]], lambda a: a[:, [2, 0], [0, 3]], [-1, 2]),
    "negative": (lambda x, i, one, m, v: x[[0, -1], :, [-2, 1]], lambda a: a[[0, -1], :, [-2, 1]], [2, 4]),
    "mask_and_ints": (lambda x, i, one, m, v: x[m, :, [1, 2]], lambda a: a[[True, False, True], :, [1, 2]],
                      [2, 4]),
    "const_mask_in_middle": (lambda x, i, one, m, v: x[:, [True, False, True, True], [1, 2, 3]],
                             lambda a: a[:, [True, False, True, True], [1, 2, 3]], [-1, 3]),
    "broadcast_indices": (lambda x, i, one, m, v: x[[[0], [2]], :, i], lambda a: a[[[0], [2]], :, [2, 0]],
                          [2, 2, 4]),
    "int_then_lists": (lambda x, i, one, m, v: x[1, i, [0, 4]], lambda a: a[1, [2, 0], [0, 4]], [2]),
    "slice_between": (lambda x, i, one, m, v: x[i, 1:3, [0, 4]], lambda a: a[[2, 0], 1:3, [0, 4]], [2, 2]),
    "ellipsis": (lambda x, i, one, m, v: x[i, ..., [1, 1]], lambda a: a[[2, 0], ..., [1, 1]], [2, 4]),
    "zero_d": (lambda x, i, one, m, v: x[one, :, 2], lambda a: a[1, :, 2], [4]),
    "zero_d_negative": (lambda x, i, one, m, v: x[one - 2, 1:3], lambda a: a[-1, 1:3], [2, 5]),
    "zero_d_then_lists": (lambda x, i, one, m, v: x[one, i, [1, 2]], lambda a: a[1][[2, 0], [1, 2]], [2]),
    "zero_d_and_list_apart": (lambda x, i, one, m, v: x[one, :, [1, 2]], lambda a: a[1][:, [1, 2]], [4, 2]),
    "zero_d_bool_true": (lambda x, i, one, m, v: x[1:, m[0]], lambda a: a[1:, True], [-1, -1, 4, 5]),
    "zero_d_bool_false": (lambda x, i, one, m, v: x[m[1], 2], lambda a: a[False, 2], [-1, 4, 5]),
    "tensor_slice_start": (lambda x, i, one, m, v: x[one:, 1], lambda a: a[1:, 1], [-1, 5]),
    "tensor_slice_step": (lambda x, i, one, m, v: x[:, one:4:one + 1, -one - 1:], lambda a: a[:, 1:4:2, -2:],
                          [-1, -1, -1]),
    "tensor_slice_and_lists": (lambda x, i, one, m, v: x[one:, i, [1, 3]], lambda a: a[1:, [2, 0], [1, 3]], [-1, 2]),
    "zero_d_none": (lambda x, i, one, m, v: x[None, 2, one], lambda a: a[None, 2, 1], [1, 5]),
}


@pytest.mark.parametrize("name", list(GET))
def test_getitem_in_program(name):
    build, ref, shape = GET[name]
    main, (x, v), out = _program(build)
    assert list(out.shape) == shape
    expected = ref(XV)
    for backend in ("compiled", "interpreter"):
        got, = _run(main, [out], backend)
        assert got.shape == expected.shape and got.dtype == np.float64
        np.testing.assert_array_equal(got, expected)


def _np_set(index, value):
    def ref(a):
        a = a.copy()
        a[index] = value
        return a
    return ref


# (index built from the Program's inputs, value built from v, numpy index, numpy value)
SET = {
    "list_and_tensor_scalar": (lambda x, i, one, m: ([0, 1], i), lambda v: 9.0, ([0, 1], [2, 0]), 9.0),
    "list_and_tensor_row": (lambda x, i, one, m: ([0, 1], i), lambda v: paddle.concat([v, v, v[:1]]),
                            ([0, 1], [2, 0]), np.array([0.25, -2.0, 0.25, -2.0, 0.25])),
    "tensor_slice_tensor": (lambda x, i, one, m: (i, slice(None), i), lambda v: paddle.reshape(v, [2, 1]),
                            ([2, 0], slice(None), [2, 0]), np.array([[0.25], [-2.0]])),
    "adjacent_in_middle": (lambda x, i, one, m: (slice(None), i, [4, 0]),
                           lambda v: paddle.stack([v, v * 2.0, v - 1.0]),
                           (slice(None), [2, 0], [4, 0]), np.array([[0.25, -2.0], [0.5, -4.0], [-0.75, -3.0]])),
    "adjacent_in_middle_row": (lambda x, i, one, m: (slice(None), i, [4, 0]), lambda v: v,
                               (slice(None), [2, 0], [4, 0]), np.array([0.25, -2.0])),
    "adjacent_in_middle_column": (lambda x, i, one, m: (slice(None), i, [4, 0]),
                                  lambda v: paddle.reshape(paddle.concat([v, v[:1]]), [3, 1]),
                                  (slice(None), [2, 0], [4, 0]), np.array([[0.25], [-2.0], [0.25]])),
    "negative": (lambda x, i, one, m: ([0, -1], slice(None), [-2, 1]), lambda v: -1.0,
                 ([0, -1], slice(None), [-2, 1]), -1.0),
    "mask_and_ints": (lambda x, i, one, m: (m, slice(None), [1, 2]), lambda v: paddle.reshape(v, [2, 1]),
                      ([True, False, True], slice(None), [1, 2]), np.array([[0.25], [-2.0]])),
    "int_then_lists": (lambda x, i, one, m: (1, i, [0, 4]), lambda v: v, (1, [2, 0], [0, 4]),
                       np.array([0.25, -2.0])),
    "slice_between": (lambda x, i, one, m: (i, slice(1, 3), [0, 4]), lambda v: paddle.reshape(v, [2, 1]),
                      ([2, 0], slice(1, 3), [0, 4]), np.array([[0.25], [-2.0]])),
    "zero_d": (lambda x, i, one, m: (one, slice(None), 2), lambda v: paddle.concat([v, v]), (1, slice(None), 2),
               np.array([0.25, -2.0, 0.25, -2.0])),
    "zero_d_slice_scalar": (lambda x, i, one, m: (one, slice(None), slice(1, 3)), lambda v: 5.0,
                            (1, slice(None), slice(1, 3)), 5.0),
    "zero_d_negative": (lambda x, i, one, m: (one - 2, slice(None), 2), lambda v: 3.0, (-1, slice(None), 2), 3.0),
    "zero_d_then_lists": (lambda x, i, one, m: (one, i, [1, 2]), lambda v: v, (1, [2, 0], [1, 2]),
                          np.array([0.25, -2.0])),
    "single_list_not_first": (lambda x, i, one, m: (slice(None), i), lambda v: paddle.reshape(v, [2, 1]),
                              (slice(None), [2, 0]), np.array([[0.25], [-2.0]])),
    "mask_with_slice": (lambda x, i, one, m: (m, slice(1, 3), 4), lambda v: v, ([True, False, True], slice(1, 3), 4),
                        np.array([0.25, -2.0])),
    "tensor_slice_start": (lambda x, i, one, m: (slice(one, None), slice(None), 2), lambda v: paddle.reshape(v, [2, 1]),
                           (slice(1, None), slice(None), 2), np.array([[0.25], [-2.0]])),
    "tensor_slice_step": (lambda x, i, one, m: (slice(0, 3, one + 1), one), lambda v: 5.0,
                          (slice(0, 3, 2), 1), 5.0),
    "one_element": (lambda x, i, one, m: (paddle.reshape(one, [1]), slice(None), 2), lambda v: v[1],
                    ([1], slice(None), 2), -2.0),
}


def _set_ref(np_index, np_value):
    a = XV.copy()
    if isinstance(np_index, tuple) and len(np_index) == 3 and np_index[1:] == ([2, 0], [1, 2]) and np_index[0] == 1:
        a[1][[2, 0], [1, 2]] = np_value   # Paddle applies the int first (numpy would too here: one advanced block)
    else:
        a[np_index] = np_value
    return a


@pytest.mark.parametrize("name", list(SET))
def test_setitem_in_program_with_gradients(name):
    index, value, np_index, np_value = SET[name]

    def build(x, i, one, m, v):
        y = static.setitem(x * 1.0, index(x, i, one, m), value(v))
        w = paddle.to_tensor(np.random.default_rng(2).standard_normal((3, 4, 5)))
        loss = paddle.sum(y * w)
        return [y, loss] + static.gradients([loss], [x, v])

    main, (x, v), (y, loss, gx, gv) = _program(build)
    assert list(y.shape) == [-1, 4, 5]
    expected = _set_ref(np_index, np_value)
    for backend in ("compiled", "interpreter"):
        got, = _run(main, [y], backend)
        np.testing.assert_array_equal(got, expected)
    grads = [("x", gx), ("v", gv)] if gv is not None else [("x", gx)]   # a Python value: v is unused
    got = _run(main, [g for _, g in grads], "compiled")
    base = _run(main, [loss], "compiled")[0]
    rng = np.random.default_rng(7)
    for (what, _), g in zip(grads, got):
        # the loss is linear in x and v, so a finite step along any direction d changes it by exactly g . d
        for d in [rng.standard_normal(FEED[what].shape) for _ in range(2)] + [np.ones(FEED[what].shape)]:
            moved = _run(main, [loss], "compiled", dict(FEED, **{what: FEED[what] + d}))[0]
            np.testing.assert_allclose(moved - base, np.sum(g * d), rtol=1e-9, atol=1e-9,
                                       err_msg=f"gradient to {what}")


def test_program_ops_follow_paddle():
    main, _, out = _program(lambda x, i, one, m, v: static.setitem(x, ([0, 1], i), paddle.reshape(v, [2, 1])))
    assert [op.type for op in main.global_block().ops if op.type in ("index_put", "set_value")] == ["index_put"]
    main, _, out = _program(lambda x, i, one, m, v: static.setitem(x, (one, slice(None), 2), 1.0))
    sv = [op for op in main.global_block().ops if op.type == "set_value"]
    assert len(sv) == 1 and len(sv[0].input("StartsTensorList")) == 2
    main, _, out = _program(lambda x, i, one, m, v: x[i, :, i])
    assert "gather_nd" in [op.type for op in main.global_block().ops]


def test_static_errors():
    with pytest.raises(IndexError, match="cannot be broadcast together"):
        _program(lambda x, i, one, m, v: x[[0, 1, 2], i])
    with pytest.raises(IndexError, match="cannot be broadcast together"):
        _program(lambda x, i, one, m, v: x[[0, 1, 2], :, [0, 1]])
    with pytest.raises(ValueError, match=r"value of shape \[3\]"):
        _program(lambda x, i, one, m, v: static.setitem(x, ([0, 1], i), paddle.concat([v, v[:1]])))
