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
