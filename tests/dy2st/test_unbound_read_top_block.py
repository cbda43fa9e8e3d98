"""A read of a name bound on no path that reaches it, in code that always runs, raises Python's
UnboundLocalError at that read (dy2st.convert_ops.read_maybe_unbound), as eager Python does."""
import pytest

import dy2st as paddle


def _never_bound(x):
    if x.shape[0] > 100:        # a Python condition (static shape): false here, y is never bound
        y = x
    z = y
    return z + 1


def test_read_of_never_bound_name_raises_at_that_line():
    x = paddle.ones([2])
    with pytest.raises(UnboundLocalError):
        _never_bound(x)
    with pytest.raises(UnboundLocalError, match=r"test_unbound_read_top_block.py:11: local variable 'y' is read "
                                                r"here but is not assigned on any path") as info:
        paddle.jit.to_static(_never_bound)(x)
    assert isinstance(info.value, TypeError)        # Paddle's converted code raises TypeError for it


def _bound_in_tensor_branch(x):
    if x.mean() > 0:            # a tensor condition: the branch is staged, y is bound on one path
        y = x * 2
    else:
        y = x
    return y + 1


def test_bound_names_are_untouched():
    x = paddle.to_tensor([1.0, 2.0])
    out = paddle.jit.to_static(_bound_in_tensor_branch)(x)
    assert out.numpy().tolist() == [3.0, 5.0]


def _bound_only_after_break(x):
    t = x * 2
    i = paddle.zeros([1], dtype='int64')
    while i < 2:                # a tensor loop
        i = i + 1
        break
        p = t * 0.5             # dead code: p is still a local of the function (Python's rule)
    return paddle.mean(p)


def test_name_bound_only_in_dead_code_after_break():
    # found by the fuzzer (seed 271128): the break pass drops the dead assignment, and the read used to
    # hand the placeholder to paddle.mean ("x must be a Tensor, got UndefinedVar")
    x = paddle.ones([2, 3])
    with pytest.raises(UnboundLocalError):
        _bound_only_after_break(x)
    with pytest.raises(UnboundLocalError, match="local variable 'p' is read here but is not assigned"):
        paddle.jit.to_static(_bound_only_after_break)(x)

