"""CPUPlace's Place queries and the top-level is_compiled_with_* answers, differential against real Paddle."""
import textwrap

from tests.interop.diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers
from tests.interop.paddle_runner import differential

CODE = with_helpers(textwrap.dedent('''
    def compute(paddle):
        out = {}
        T, put, grad, err, inplace = diff_helpers(paddle, out, err_prefix="err.")
        p = paddle.CPUPlace()
        for q in ("is_cpu_place", "is_gpu_place", "is_cuda_pinned_place", "is_xpu_place", "is_ipu_place",
                  "is_custom_place", "is_xpu_pinned_place"):
            put("place." + q, np.asarray(getattr(p, q)()))
        put("place.equals", np.asarray(p._equals(paddle.CPUPlace())))
        for q in ("cinn", "cuda", "distribute", "ipu", "rocm", "xpu"):
            put("compiled." + q, np.asarray(getattr(paddle, "is_compiled_with_" + q)()))
        put("compiled.custom", np.asarray(paddle.is_compiled_with_custom_device("npu")))
        return out
'''))


def test_places_and_build_queries_match_paddle(tmp_path):
    ours, theirs, dtypes = differential(CODE, PADDLE_MAIN, tmp_path, "places")
    assert_same_as_paddle(ours, theirs, dtypes)
