"""paddle.binomial's op inputs as Paddle builds them: ``count`` cast to ``prob``'s dtype (so saved programs
hold what Paddle's kernel reads), any real count dtype accepted as in Paddle's dynamic mode."""
import numpy as np
import pytest

import runtime
from runtime import static


def test_static_binomial_reads_count_in_prob_dtype():
    runtime.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            c = static.data("c", [-1], "int64")
            p = static.data("p", [-1], "float64")
            out = runtime.binomial(c, p)
        op = [o for o in main.global_block().ops if o.type == "binomial"][0]
        gb = main.global_block()
        assert gb._find_var_recursive(op.inputs["count"][0]).dtype.name == "float64"
        assert out.dtype.name == "int64"
        got = static.Executor().run(main, feed={"c": np.array([4, 6, 9]), "p": np.array([1.0, 0.0, 1.0])},
                                    fetch_list=[out])[0]
    finally:
        runtime.disable_static()
    np.testing.assert_array_equal(got, [4, 0, 9])


@pytest.mark.parametrize("count_dtype", ["uint8", "int16", "int32", "int64", "float32", "float64"])
def test_eager_binomial_counts(count_dtype):
    count = runtime.to_tensor(np.array([[3], [5]]).astype(count_dtype))
    out = runtime.binomial(count, runtime.to_tensor(np.array([1.0, 0.0, 1.0], "float32")))
    assert out.dtype.name == "int64" and list(out.shape) == [2, 3]
    np.testing.assert_array_equal(out.numpy(), [[3, 0, 3], [5, 0, 5]])


def test_binomial_count_types():
    out = runtime.binomial(runtime.to_tensor(np.array([True, False])), runtime.to_tensor(np.array([1.0], "float32")))
    np.testing.assert_array_equal(out.numpy(), [1, 0])     # a bool count is 0 or 1 trial, as in Paddle
    with pytest.raises(TypeError, match="count must be a Tensor"):
        runtime.binomial([3], runtime.to_tensor(np.array([0.5], "float32")))
