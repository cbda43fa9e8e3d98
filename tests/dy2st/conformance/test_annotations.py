"""Annotated assignments (``y: int = v``, bare ``z: T``) in converted code, also for names that are
branch outputs and loop variables (Python refuses ``nonlocal`` for an annotated name: the
annotations are dropped, which Python's own semantics allow — local annotations are never
evaluated)."""
import pytest

import dy2st as paddle

from .harness import check, f32, i64

X = f32(3, 4, seed=5)


def annotated_branch_outputs(x):
    y: int = 2
    z: paddle.Tensor
    if paddle.mean(x) > 0:
        z = x * y
        w: float = 1.5
    else:
        z = x - 1.0
        w: float = 0.5
    return z * w


def annotated_loop_variables(x, n):
    i: paddle.Tensor = paddle.zeros([1], "int64")
    acc: paddle.Tensor = x
    while i < n:
        acc: paddle.Tensor = acc * 0.5 + x
        i += 1
    return acc


class Annotated(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)
        self.calls: int = 0

    def forward(self, x):
        h: paddle.Tensor = self.fc(x)
        if h.sum() > 0:
            out: paddle.Tensor = h * 2.0
        else:
            out: paddle.Tensor = h - 1.0
        return out


@pytest.mark.parametrize("fn,argsets", [
    (annotated_branch_outputs, [[X], [-X]]),
    (annotated_loop_variables, [[X, i64(0)], [X, i64(3)]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_annotated_assignments_convert(fn, argsets, backend):
    check(fn, argsets, backend)


def test_annotated_layer_forward():
    from .harness import check_layer
    check_layer(Annotated, [[X], [-X]])


def test_annotations_are_gone_from_the_converted_code():
    sf = paddle.jit.to_static(annotated_branch_outputs)
    sf(paddle.to_tensor(X))
    assert "w: float" not in sf.code and "z: paddle.Tensor" not in sf.code
