"""Differential test, against real Paddle 3.3.1 in one subprocess, of what Paddle's own API unit tests
(test/legacy_test) ask of creation, search and loss functions: static-mode dtype and type checks
(the exception type), eager refusals of non-Tensor arguments, shapes recorded while building a
static Program, ``_C_ops`` creation functions, ``full``'s complex default and ``size`` alias, static
``stack`` of a tensor array, and searchsorted's shape checks. Values, dtypes and shapes are compared;
``err.*`` entries compare the exception type.
"""
import textwrap

import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        out = {}
        h = diff_helpers(paddle, out, lists="flat")
        put, err = h.put, h.err
        import importlib
        convert_np_dtype_to_dtype_ = paddle.base.framework.convert_np_dtype_to_dtype_

        # -- eager mode
        _C_ops = importlib.import_module(paddle.__name__ + "._C_ops")   # `from paddle import _C_ops`
        for dt in ("float32", "float64", "int32", "int64", "bool"):
            d = convert_np_dtype_to_dtype_(np.dtype(dt))
            put(f"c_ops.zeros.{dt}", _C_ops.zeros([3, 4], d, paddle.CPUPlace()))
            put(f"c_ops.ones.{dt}", _C_ops.ones([2], d, paddle.CPUPlace()))
        put("c_ops.full", _C_ops.full([2, 2], 1.5, convert_np_dtype_to_dtype_(np.float32), paddle.CPUPlace()))
        put("full.complex_default", paddle.full([3], 1.1 + 2j))
        put("full.complex64", paddle.full([2, 1], 1.1 - np.inf * 1j, dtype="complex64"))
        put("full.bool_default", paddle.full([2], True))
        put("full.size_alias", paddle.full(size=[2, 3], fill_value=3, dtype="int32"))
        put("eye.int64", paddle.eye(3, 4, dtype="int64"))
        err("err.eye.negative", lambda: paddle.eye(-1))
        err("err.eye.float_columns", lambda: paddle.eye(3, num_columns=5.2))
        err("err.full.uint4", lambda: paddle.full([1], 5, dtype="uint4"))
        err("err.zeros.uint4", lambda: paddle.zeros([1], dtype="uint4"))
        err("err.linspace.float_num", lambda: paddle.linspace(0, 10, 1.5))
        err("err.unbind.float_axis", lambda: paddle.unbind(paddle.ones([2, 3]), axis=1.0))
        err("err.bmm.ndarray", lambda: paddle.bmm(np.ones([2, 3, 4], "float32"), np.ones([2, 4, 2], "float32")))
        err("err.mse.tuple", lambda: paddle.nn.functional.mse_loss((paddle.ones([2, 3]),), paddle.ones([2, 3])))
        err("err.searchsorted.dims", lambda: paddle.searchsorted(paddle.ones([2, 2, 3]), paddle.ones([2, 5])))
        err("err.searchsorted.rank", lambda: paddle.searchsorted(paddle.ones([2, 2, 3]), paddle.ones([2, 3, 5])))
        put("searchsorted.batched", paddle.searchsorted(paddle.to_tensor([[1.0, 3, 5], [2, 4, 6]]),
                                                        paddle.to_tensor([[3.0, 6], [1, 7]]), right=True))
        put("zeros_like.int8.eager", paddle.zeros_like(paddle.ones([2]), "int8"))
        F = paddle.nn.functional
        nx = paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4) - 10)
        put("normalize.aliases", F.normalize(input=nx, p=3, dim=2, eps=1e-6))
        nout = paddle.zeros_like(nx)
        F.normalize(nx, 2, 1, 1e-12, out=nout)
        put("normalize.out", nout)
        err("err.normalize.axis_1d", lambda: F.normalize(paddle.ones([2])))
        put("softmax.aliases", F.softmax(input=nx, dim=1))
        put("softmax.dtype", F.softmax(nx, 0, "float64"))
        # Paddle: the attribute paddle.nn.loss; here the module dy2st.nn.loss (runtime.nn does not import it yet)
        nn_loss = getattr(paddle.nn, "loss", None) or importlib.import_module(paddle.__name__ + ".nn.loss")
        put("nn.loss.L1Loss", nn_loss.L1Loss(reduction="sum")(nx, nx * 0.5))

        # -- static mode (legacy Programs)
        paddle.enable_static()
        try:
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                x = paddle.static.data("x", [3, 4], "float32")
                i32 = paddle.static.data("i32", [2, 3, 4], "int32")
                err("err.static.zeros_like.int8", lambda: paddle.zeros_like(x, "int8"))
                err("err.static.ones_like.x_int8", lambda: paddle.ones_like(paddle.static.data("x8", [2], "int8")))
                err("err.static.full.uint4", lambda: paddle.full([1], 5, dtype="uint4"))
                err("err.static.full.float_shape",
                    lambda: paddle.full(paddle.static.data("fs", [2], "float32"), 1.0))
                err("err.static.full.bool_shape_entry",
                    lambda: paddle.full([paddle.static.data("bs", [1], "bool"), 2], 1.0))
                err("err.static.arange.int8", lambda: paddle.arange(10, dtype="int8"))
                err("err.static.linspace.int8", lambda: paddle.linspace(0, 10, 1, dtype="int8"))
                err("err.static.linspace.list_start", lambda: paddle.linspace([0], 10, 1, dtype="float32"))
                err("err.static.linspace.list_num", lambda: paddle.linspace(0, 10, [1], dtype="float32"))
                err("err.static.linspace.f64_start",
                    lambda: paddle.linspace(paddle.static.data("st", [1], "float64"), 10, 1, dtype="float32"))
                err("err.static.eye.int8", lambda: paddle.eye(3, dtype="int8"))
                err("err.static.softmax.int32", lambda: paddle.nn.functional.softmax(i32))
                err("err.static.softmax.number", lambda: paddle.nn.functional.softmax(1))
                err("err.static.diag.list", lambda: paddle.diag([1, 2, 3]))
                err("err.static.diag.float_offset", lambda: paddle.diag(x, offset=2.5))
                err("err.static.diag.list_padding", lambda: paddle.diag(x, padding_value=[9]))
                err("err.static.diag.rank3", lambda: paddle.diag(paddle.static.data("d3", [3, 3, 3], "float32")))
                err("err.static.std.int32", lambda: paddle.std(i32))
                err("err.static.var.int32", lambda: paddle.var(i32))
                err("err.static.dot.uint8", lambda: paddle.dot(paddle.static.data("u1", [-1, 5], "uint8"),
                                                                paddle.static.data("u2", [-1, 5], "uint8")))
                err("err.static.mse.list_input", lambda: paddle.nn.functional.mse_loss([256, 3], x))
                err("err.static.mse.list_label", lambda: paddle.nn.functional.mse_loss(x, [256, 3]))
                err("err.static.searchsorted.int16",
                    lambda: paddle.searchsorted(paddle.static.data("s16", [2, 3], "int16"),
                                                paddle.static.data("v16", [2, 5], "int16")))
                err("err.static.searchsorted.dims",
                    lambda: paddle.searchsorted(paddle.static.data("sd", [2, 2, 3], "float64"),
                                                paddle.static.data("vd", [2, 5], "float64")))
                err("err.static.searchsorted.int32_size",
                    lambda: paddle.searchsorted(paddle.static.data("sb", [2, 2, 2 ** 34], "float64"),
                                                paddle.static.data("vb", [2, 2, 5], "float64"), out_int32=True))
                put("static.arange.shape", np.array(paddle.arange(0, 1 + 0.005, 0.005).shape))
                put("static.arange_int.shape", np.array(paddle.arange(10, 1, -3).shape))
                put("static.linspace.named", np.array("linspace_res" in paddle.linspace(0, 1, 3, name="linspace_res").name))

            # a fresh Program for running: Paddle leaves half-built ops behind in one that raised
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                x = paddle.static.data("x", [3, 4], "float32")
                fetch = {}
                fetch["static.zeros_like.bool"] = paddle.zeros_like(x, np.bool_)
                fetch["static.ones_like.int64"] = paddle.ones_like(x, "int64")
                fetch["static.full.shape_tensor"] = paddle.full(paddle.static.data("shp", [2], "int64"), 1.5)
                fetch["static.arange"] = paddle.arange(0, 5, 1, "float32")
                fetch["static.linspace"] = paddle.linspace(0, 10, 5, dtype="float32")
                fetch["static.eye"] = paddle.eye(4, 3, dtype="float64")
                arr = paddle.tensor.create_array(dtype="float32")
                zero = paddle.tensor.fill_constant(shape=[1], value=0, dtype="int64")
                src = paddle.assign(np.arange(6, dtype="float32").reshape(2, 3))
                for k in range(3):
                    paddle.tensor.array_write(src * (k + 1), zero + k, arr)
                fetch["static.stack_array"] = paddle.stack(arr, axis=1)
                exe = paddle.static.Executor(paddle.CPUPlace())
                names = sorted(fetch)
                res = exe.run(feed={"x": np.ones([3, 4], "float32"), "shp": np.array([2, 3], "int64")},
                              fetch_list=[fetch[n] for n in names])
                for n, v in zip(names, res):
                    put(n, v)
        finally:
            paddle.disable_static()
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("legacy_api"), "legacy api")


def test_same_results_and_errors(both):
    ours, theirs, dtypes = both
    assert_same_as_paddle(ours, theirs, dtypes)
