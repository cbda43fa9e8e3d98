"""Python containers changed in place under tensor control flow: staged exactly or refused.

A tensor ``if`` traces both branches; each must see the containers as they were before the if,
and the results are merged item by item (select ops) — for branch state (``res = {}`` then
``res["a"] = ...``), for containers nested in something that is never rebound
(``res["a"][0] = 7``) and for containers of an enclosing function (a closure's dict). What cannot be
merged (a list appended to in one branch only, a container changed in place in a tensor loop body
that is not loop state) fails with an error naming the line; nothing returns one branch's value
for every input (the fault found: ``{'a': 3}`` whatever the predicate)."""
import pytest

import dy2st as paddle

from .harness import check, f32

X = f32(4, 3, seed=11)


def shape_predicate_dict_item(x):
    res = {}
    t = paddle.shape(x)[0]
    if t > 2:
        res["a"] = 2
    else:
        res["a"] = 3
    return res


def nested_list_item_in_branch(x):
    res = {"a": [0, 1], "h": [x]}
    if x.mean() > 0:
        res["a"][0] = 7
        res["h"][0] = x * 2.0
    else:
        res["h"][0] = x - 1.0
    return res["a"][0] + res["a"][1], res["h"][0] * 3.0


def closure_dict_in_branch(x):
    d = {"k": 0, "t": x}

    def inner():
        if x.sum() > 0:
            d["k"] = 1
            d["t"] = x * x
        else:
            d["k"] = 2
    inner()
    return d["k"], d["t"] + 1.0


def list_item_set_in_both_branches(x):
    outs = [x, x]
    if x.max() > 1.5:
        outs[1] = x * 4.0
    else:
        outs[0] = x * 0.5
    return outs[0] + outs[1]


def nested_ifs_on_one_dict(x):
    state = {"n": 0, "v": x}
    if x.mean() > 0:
        state["v"] = state["v"] * 2.0
        if x.sum() > 3:
            state["n"] = 1
        else:
            state["n"] = 2
    return state["n"], state["v"]


def temporary_list_in_loop_body(x):
    h = x
    i = paddle.zeros([1], "int64")
    while i < 3:
        parts = []                    # created by the body: not loop state, free to change
        parts.append(h * 0.5)
        parts.append(h)
        h = paddle.concat(parts, axis=1)[:, :3]
        i += 1
    return h


@pytest.mark.parametrize("fn,argsets", [
    (shape_predicate_dict_item, [[f32(1, 2)], [f32(3, 2)], [f32(4, 2)]]),
    (nested_list_item_in_branch, [[X], [-X]]),
    (closure_dict_in_branch, [[X], [-X]]),
    (list_item_set_in_both_branches, [[X], [X * 0.1]]),
    (nested_ifs_on_one_dict, [[X], [X * 0.01], [-X]]),
    (temporary_list_in_loop_body, [[X]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_containers_follow_the_branch_taken(fn, argsets, backend):
    check(fn, argsets, backend)


def shape_dict_returns_python_values(x):
    return shape_predicate_dict_item(x)


def test_dict_item_follows_the_predicate_for_every_input():
    sf = paddle.jit.to_static(shape_dict_returns_python_values)
    got = [int(sf(paddle.ones([n, 2]))["a"]) for n in (1, 2, 3, 4)]
    assert got == [3, 3, 2, 2]


def append_in_one_branch_to_closure_list(x):
    outs = []

    def inner():
        if x.sum() > 0:
            outs.append(x)
    inner()
    return x


def closure_list_appended_in_tensor_loop(x):
    seen = []

    def inner():
        i = paddle.zeros([1])
        while i < x.sum():
            seen.append(1)
            i = i + 1
        return i
    return inner()


def nested_item_counted_in_tensor_loop(x):
    res = {"a": [0]}
    i = paddle.zeros([1])
    while i < x.sum():
        res["a"][0] = res["a"][0] + 1
        i = i + 1
    return i, res["a"][0]


def test_nested_item_changed_in_a_tensor_loop_is_loop_state():
    # d['k'][0] = v rebinds d, so the nested change is carried through the loop like d['k'] = v
    # (Paddle's test_write_python_container); the Python int becomes a tensor counter
    x = paddle.to_tensor(X)
    want_i, want_n = nested_item_counted_in_tensor_loop(x)
    got_i, got_n = paddle.jit.to_static(nested_item_counted_in_tensor_loop)(x)
    assert float(got_i) == float(want_i)
    assert int(got_n) == int(want_n)


@pytest.mark.parametrize("fn,match", [
    (append_in_one_branch_to_closure_list, "different items .1 after the true branch, 0 after the false"),
    (closure_list_appended_in_tensor_loop, "not a loop variable is changed in place"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_cannot_be_staged_is_refused_with_the_line(fn, match):
    with pytest.raises(ValueError, match=match) as ei:
        paddle.jit.to_static(fn)(paddle.to_tensor(X))
    assert "test_containers_in_branches.py:" in str(ei.value)


def test_refused_trace_leaves_the_containers_as_they_were():
    seen = []

    def loop(x):
        i = paddle.zeros([1])
        while i < x.sum():
            seen.append(1)
            i = i + 1
        return i
    with pytest.raises(ValueError):
        paddle.jit.to_static(loop)(paddle.to_tensor(X))
    assert seen == []
