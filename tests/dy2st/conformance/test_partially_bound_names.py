"""Names bound on only some paths through tensor control flow (issue 14), read where they are bound.

Real Paddle 3.3.1 (AST mode, ``full_graph=True``), measured: a name assigned in one branch of a tensor
``if`` (alone or inside a tensor loop) and read after it comes back as Paddle's ``UndefinedVar`` object,
silently, whether the branch ran or not; read inside a later branch it fails at conversion
(``TypeError: unsupported operand type(s) for +: 'UndefinedVar' and 'int'``); a name first assigned in
a tensor loop's body gives the right value when the loop runs and a zero placeholder when it runs zero
times. We follow eager Python instead: the value where it is bound (with gradients), and where the run
takes a path that did not bind it, a run-time error naming the variable and the line that reads it
(eager Python's UnboundLocalError, raised when the staged check fails, on both back ends) — never a
placeholder. Outside loops, a tensor bound in one branch of an if and read after it is refused with a
TypeError as Paddle does (its own test_ifelse.py requires that). `test_agrees_with_real_paddle`
compares the cases real Paddle does convert.
"""
import numpy as np
import pytest

import dy2st as paddle

from .harness import Arg, check, f32, i64

POS = f32(3, seed=1, lo=0.2, hi=1.0)
NEG = f32(3, seed=2, lo=-1.0, hi=-0.2)
MIXED = np.array([0.1, 0.1, -0.1], "float32")


def one_branch_in_while(x):            # the example
    i = paddle.zeros([1])
    while i < x.sum():
        if x.mean() > i:
            y = x * (i + 1)
        i += 1
    return y


def first_bound_in_while_body(x):
    i = paddle.zeros([1])
    while i < x.sum():
        y = x * (i + 2)
        i += 1
    return y


def one_branch_in_for_range(x, n):
    for i in range(n):
        if x.mean() > i * 0.25:
            y = x * i + x
    return y


def nested_loops(x):
    i = paddle.zeros([1])
    while i < 2:
        j = paddle.zeros([1])
        while j < 2:
            if x.mean() > j * 0.5:
                y = x * (j + 1) + i
            j += 1
        i += 1
    return y


def with_break(x):
    i = paddle.zeros([1])
    while i < 5:
        if x.mean() * i > 1.0:
            y = x * i
            break
        i += 1
    return y


def with_continue(x, n):
    for i in range(n):
        if x.sum() < i:
            continue
        y = x + i
    return y


def with_return_in_loop(x):
    i = paddle.zeros([1])
    while i < 3:
        if x.sum() > i * 2:
            y = x * 3.0
        if i > 1:
            return y + 1.0
        i += 1
    return x


def plain_if_read_after(x):
    if x.mean() > 0:
        y = x * 2.0
    return y


def read_under_same_condition(x):
    i = paddle.zeros([1])
    z = x - 1.0
    while i < 2:
        if x.mean() > 0:
            y = x * (i + 2.0)
        if x.mean() > 0:
            z = y + z
        i += 1
    return z


def tuple_bound_in_branch(x):
    i = paddle.zeros([1])
    while i < 2:
        if x.mean() > 0:
            a, b = x * 2.0, x.sum()
            pair = (a, b)
        i += 1
    return pair[0] + pair[1]


def augmented_assign_after(x):
    i = paddle.zeros([1])
    while i < 1:
        if x.mean() > 0:
            y = x * 2.0
        i += 1
    y += 1.0
    return y


def test_one_branch_in_while(backend):
    check(one_branch_in_while, [[POS], [MIXED]], backend)


def test_first_bound_in_while_body(backend):
    check(first_bound_in_while_body, [[POS]], backend)


def test_for_range_nested_break_continue(backend):
    n3 = Arg(i64(3))
    check(one_branch_in_for_range, [[POS, n3], [MIXED, n3]], backend)
    check(nested_loops, [[POS], [MIXED]], backend)
    check(with_break, [[POS * 2]], backend)
    check(with_continue, [[POS, n3]], backend)


def test_return_in_loop(backend):
    check(with_return_in_loop, [[POS], [POS * 2]], backend)


def test_read_where_bound_and_augmented_assign(backend):
    check(read_under_same_condition, [[POS], [NEG]], backend)
    check(augmented_assign_after, [[POS]], backend)


def test_one_branch_of_if_outside_loops_is_refused_as_paddle():
    # Paddle's own test (test_ifelse.py TestIfElseMaybeUnbound.test_use_undefined_var) requires a TypeError
    # for either input of a name bound in one branch of a tensor if and read after it, outside loops
    for data in (POS, NEG):
        with pytest.raises(TypeError, match="'y' is used but it is assigned only in the true branch"):
            paddle.jit.to_static(plain_if_read_after)(paddle.to_tensor(data))


def test_structures(backend):
    check(tuple_bound_in_branch, [[POS]], backend)


@pytest.mark.parametrize("fn, args, line_of_read", [
    (one_branch_in_while, [NEG], "return y"),
    (first_bound_in_while_body, [NEG], "return y"),
    (one_branch_in_for_range, [NEG, i64(3)], "return y"),
    (nested_loops, [NEG], "return y"),
    (with_break, [POS * 0.1], "return y"),
    (with_return_in_loop, [NEG], "return y + 1.0"),
    (augmented_assign_after, [NEG], "y += 1.0"),
])
def test_unbound_read_fails_at_run_time_naming_variable_and_line(fn, args, line_of_read):
    with pytest.raises(UnboundLocalError):      # eager Python
        fn(*[paddle.to_tensor(a) for a in args])
    sf = paddle.jit.to_static(fn)
    good = [POS] + ([i64(3)] if len(args) > 1 else [])
    if fn is with_break:
        good = [POS * 2]
    sf(*[paddle.to_tensor(a) for a in good])        # the bound path runs (same Program)
    with pytest.raises(UnboundLocalError) as e:
        sf(*[paddle.to_tensor(a) for a in args])
    msg = str(e.value)
    assert msg.startswith("UnboundLocalError at test_partially_bound_names.py:"), msg
    assert "local variable 'y'" in msg
    import linecache
    line = int(msg.split(":", 2)[1])
    assert linecache.getline(__file__, line).strip() == line_of_read


def test_read_before_first_binding_in_body_is_refused_clearly():
    def read_before_bound(x):
        i = paddle.zeros([1])
        while i < 3:
            if i > 0:
                x = y + 1.0
            y = x * i
            i += 1
        return y
    # real Paddle refuses this too, with a TypeError at conversion
    with pytest.raises(TypeError, match="'y'"):
        paddle.jit.to_static(read_before_bound)(paddle.to_tensor(POS))


def test_non_tensor_bound_in_one_branch_stays_a_clear_error():
    def int_in_branch(x):
        if x.mean() > 0:
            k = 2
        return x * k
    with pytest.raises(TypeError, match="'k'.*only in the true branch"):
        paddle.jit.to_static(int_in_branch)(paddle.to_tensor(POS))


def test_converted_code_checks_only_maybe_unbound_reads():
    code = paddle.jit.to_static(read_under_same_condition).code
    assert code.count("read_maybe_unbound(") == 1, code
    assert "read_maybe_unbound(y, 'y'" in code


def test_saved_program_keeps_the_check(tmp_path):
    from dy2st.static import InputSpec
    sf = paddle.jit.to_static(first_bound_in_while_body, input_spec=[InputSpec([3], "float32", "x")])
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(POS)).numpy(),
                               first_bound_in_while_body(paddle.to_tensor(POS)).numpy(), rtol=1e-6)
    # a saved Program keeps the check (not the note): the condition is named after the variable
    with pytest.raises(ValueError, match="'y_is_assigned_[0-9]+' of AssertOp must be true"):
        loaded(paddle.to_tensor(NEG))


def test_agrees_with_real_paddle(tmp_path):
    """Real Paddle converts a name first bound in the loop body (the loop running) to the same values
    (its backward through that loop fails: "The variable middle_0 should exist"; our gradients are
    checked against eager above). For a name bound under ``continue`` or in one branch inside a loop it
    returns its ``UndefinedVar`` object; we return eager's value."""
    from .paddle_pir import run_paddle_pir
    import inspect
    src = ("import json, numpy as np, paddle\n"
           + "".join(inspect.getsource(f) for f in (first_bound_in_while_body, with_continue, one_branch_in_while))
           + f"x = paddle.to_tensor(np.array({POS.tolist()!r}, 'float32'))\n"
           "y = paddle.jit.to_static(first_bound_in_while_body, full_graph=True)(x)\n"
           "z = paddle.jit.to_static(with_continue, full_graph=True)(x, paddle.to_tensor(3))\n"
           "w = paddle.jit.to_static(one_branch_in_while, full_graph=True)(x)\n"
           "print(json.dumps([y.numpy().tolist(), type(z).__name__, type(w).__name__]))\n")
    y_p, z_type, w_type = run_paddle_pir(src, tmp_path)
    y = paddle.jit.to_static(first_bound_in_while_body)(paddle.to_tensor(POS))
    np.testing.assert_allclose(y.numpy(), y_p, rtol=1e-6)
    assert (z_type, w_type) == ("UndefinedVar", "UndefinedVar")
    z = paddle.jit.to_static(with_continue)(paddle.to_tensor(POS), paddle.to_tensor(i64(3)))
    np.testing.assert_allclose(z.numpy(), with_continue(paddle.to_tensor(POS), 3).numpy(), rtol=1e-6)


def slice_of_dict_held_list_in_enumerate(x):
    # Paddle's test_for_enumerate.py TestSliceTensorArrayInEnumerate: a list a dict holds, appended to in a
    # tensor loop, becomes a tensor array; the name read from it is bound in one branch only
    feats = {}
    feats['key'] = []
    for i, row in enumerate(x):
        if i > 1:
            feat_n2 = feats['key'][-2] * 2.0
        feats['key'].append(row)
    return feat_n2


def test_dict_held_list_appended_in_tensor_loop(backend):
    # (gradients on both back ends: the branch reads the array before anything has written it, when
    # the interpreter's saved Scope must hold it as an empty array)
    check(slice_of_dict_held_list_in_enumerate, [[f32(5, 2, seed=3)]], backend)
    with pytest.raises(UnboundLocalError, match="local variable 'feat_n2'"):
        paddle.jit.to_static(slice_of_dict_held_list_in_enumerate)(paddle.to_tensor(f32(2, 2, seed=3)))


def read_on_right_of_tensor_and(x, m):
    i = paddle.zeros([1])
    while i < 2:
        if x.sum() < -0.5:
            p = paddle.tanh(x)
        i += 1
    out = x * 1.0
    if (m < 0) and (p.sum() > 1.0):     # eager Python never reads p when m >= 0
        out = out + 1.0
    if (m >= 0) or (p.sum() > 1.0):
        out = out * 2.0
    return out


def dead_assignment_after_return_in_loop(x, n):
    for k in range(n):
        return x * 2.0
        p = x + 1.0     # noqa: F841 (dead code: the converted function drops it)
    return p


def test_read_short_circuited_by_tensor_and_or_is_not_checked(backend):
    check(read_on_right_of_tensor_and, [[POS, Arg(i64(0), grad=False)]], backend)
    with pytest.raises(UnboundLocalError, match="local variable 'p'"):
        paddle.jit.to_static(read_on_right_of_tensor_and)(paddle.to_tensor(POS), paddle.to_tensor(i64(-1)))


def test_name_assigned_only_in_dead_code_is_unbound_not_global():
    with pytest.raises(UnboundLocalError):
        dead_assignment_after_return_in_loop(paddle.to_tensor(POS), 0)
    with pytest.raises(UnboundLocalError, match="'p'"):
        paddle.jit.to_static(dead_assignment_after_return_in_loop)(paddle.to_tensor(POS), 0)


def none_then_tensor_in_tensor_loop(x, n):
    h = None
    i = paddle.zeros([1])
    while i < n:
        if h is None:
            h = x + 10
        else:
            h = h * 2
        i = i + 1
    return h


def test_a_name_none_before_a_tensor_loop_that_assigns_a_tensor_is_refused():
    # the body's trace cannot see None (the `is None` branch would be lost: it returned zeros) and a
    # zero-trip loop would have to return None; Paddle refuses it as well
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
    n = paddle.to_tensor(np.array([3.0], "float32"))
    assert float(none_then_tensor_in_tensor_loop(x, n).sum()) == 92.0       # eager: (x + 10) * 4
    with pytest.raises(ValueError, match=r"'h' is None before the tensor-dependent loop at "
                                         r"test_partially_bound_names.py:\d+"):
        paddle.jit.to_static(none_then_tensor_in_tensor_loop)(x, n)
