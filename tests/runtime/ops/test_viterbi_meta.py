"""viterbi_decode's shape inference with unknown (-1) dims anywhere, and its errors for known mismatches."""
import numpy as np
import pytest

import runtime
from runtime import static
from runtime.ops.registry import Meta, lookup

F32, I64 = np.dtype("float32"), np.dtype("int64")


def _infer(x, t, n, n_dtype=I64):
    return lookup("viterbi_decode").infer_meta(Meta(x, F32), Meta(t, F32), Meta(n, n_dtype))


@pytest.mark.parametrize("x, t, n, batch", [
    ((-1, -1, 5), (-1, -1), (-1,), -1),
    ((-1, 4, 5), (5, -1), (3,), 3),
    ((3, -1, -1), (5, 5), (-1,), 3),
    ((-1, 4, -1), (-1, 5), (-1,), -1),
])
def test_unknown_dims_are_accepted(x, t, n, batch):
    scores, path = _infer(x, t, n)
    assert tuple(scores.shape) == (batch,) and scores.dtype == F32
    assert tuple(path.shape) == (batch, -1) and path.dtype == I64


@pytest.mark.parametrize("x, t, n, match", [
    ((2, 4, 5), (4, 4), (2,), "Transition must have shape"),
    ((2, 4, -1), (3, 4), (2,), "Transition must have shape"),
    ((2, 4, 5), (5, 5), (3,), "Length must have shape"),
    ((2, 4), (5, 5), (2,), "Input must be 3-D"),
])
def test_known_mismatches_are_refused(x, t, n, match):
    with pytest.raises(ValueError, match=match):
        _infer(x, t, n)


def test_static_program_with_dynamic_transition_runs():
    rng = np.random.default_rng(3)
    xv, tv, nv = rng.uniform(-1, 1, (2, 3, 4)).astype("float32"), rng.uniform(-1, 1, (4, 4)).astype("float32"), \
        np.array([3, 2], "int64")
    runtime.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [-1, -1, 4], "float32")
            t = static.data("t", [-1, -1], "float32")
            n = static.data("n", [-1], "int64")
            s, p = runtime.text.viterbi_decode(x, t, n)
        got = static.Executor().run(main, feed={"x": xv, "t": tv, "n": nv}, fetch_list=[s, p])
    finally:
        runtime.disable_static()
    want = runtime.text.viterbi_decode(runtime.to_tensor(xv), runtime.to_tensor(tv), runtime.to_tensor(nv))
    np.testing.assert_allclose(got[0], want[0].numpy(), rtol=1e-6)
    np.testing.assert_array_equal(got[1], want[1].numpy())
