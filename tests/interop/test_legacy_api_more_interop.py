"""Differential test, against real Paddle 3.3.1 in one subprocess, of what the second batch of Paddle's
legacy API tests (clip, normal, expand_as, pad, adaptive pooling, smooth_l1 ...) asks: Paddle 3's keyword
aliases (``input=``, ``dim=``, ``other=``, ``size=``, ``target=``, ``eps=``, ``recurse=`` ...), clip's
``out=``, dtypes and integer/float-bound promotion, complex ``normal``, and the exception types of bad
calls in eager and static mode. Values, dtypes and shapes are compared; ``err.*`` entries compare the
exception type; random results are compared through their shape, dtype and coarse statistics. Also flatten's and
InstanceNorm's argument errors, take_along_axis / scatter_nd_add shape rules and their empty-tensor cases,
and in-place APIs on static Variables (functional, as in Paddle's PIR programs).
"""
import textwrap

import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers
from .paddle_runner import differential

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        out = {}
        h = diff_helpers(paddle, out, lists="flat")
        T, put, err = h.T, h.put, h.err
        F = paddle.nn.functional
        rng = np.random.default_rng(5)
        X = rng.uniform(-1, 1, (2, 3, 4))
        I = np.array([1, 5, 9, 3], "int32")

        # -- keyword aliases of functions
        put("clip.input", paddle.clip(input=T(X), min=-0.5, max=0.5))
        put("clamp.input", paddle.clamp(input=T(X), min=-0.2))
        o = paddle.zeros([2, 3, 4], "float64")
        paddle.clip(T(X), -0.3, 0.3, out=o)
        put("clip.out", o)
        put("cumsum.dim", paddle.cumsum(input=T(X), dim=1))
        put("mean.dim", paddle.mean(T(X), dim=2))
        put("prod.dim", paddle.prod(input=T(X), dim=0))
        put("squeeze.dim", paddle.squeeze(input=T(X[:1]), dim=0))
        put("unsqueeze.dim", paddle.unsqueeze(input=T(X), dim=1))
        put("add.other", paddle.add(input=T(X), other=T(X * 2)))
        put("subtract.other", paddle.subtract(T(X), other=T(X * 3)))
        put("equal.other", paddle.equal(input=T(I, "int32"), other=T(I[::-1], "int32")))
        put("full_like.input", paddle.full_like(input=T(X), fill_value=2.5))
        put("eye.n_m", paddle.eye(n=2, m=3))
        put("linspace.end_steps", paddle.linspace(0, end=1, steps=5))
        put("topk.dim", paddle.topk(input=T(X), k=2, dim=1)[0])
        put("repeat_interleave.dim", paddle.repeat_interleave(input=T(X), repeats=2, dim=2))
        put("normal.size", np.array(paddle.normal(size=[3, 2]).shape))
        put("gt.other", paddle.gt(input=T(X), other=T(X * 0.5)))
        put("mul.other", paddle.mul(input=T(X), other=T(X)))
        put("isin.elements", paddle.isin(elements=T(I, "int64"), test_elements=T([5, 3], "int64")))
        put("unfold.dimension", paddle.unfold(T(np.arange(8.0)), dimension=0, size=3, step=2))
        put("exponential_.lambd", np.array(T(np.ones(4)).exponential_(lambd=2.0).shape))
        put("adaptive_avg_pool2d.input", F.adaptive_avg_pool2d(input=T(rng.uniform(size=(1, 2, 5, 5))),
                                                                output_size=2))
        put("adaptive_max_pool2d.return_indices",
            F.adaptive_max_pool2d(input=T(rng.uniform(size=(1, 2, 4, 4))), output_size=2, return_indices=True)[1])
        put("layer_norm.eps", F.layer_norm(input=T(X), normalized_shape=[4], eps=1e-3))
        put("softshrink.lambd", F.softshrink(input=T(X, "float32"), lambd=0.3))
        put("glu.dim", F.glu(input=T(X), dim=1 - 2))

        # -- keyword aliases of layers
        x4 = T(rng.uniform(size=(2, 3, 6, 6)), "float32")
        put("AdaptiveAvgPool2D.input", paddle.nn.AdaptiveAvgPool2D(output_size=3)(input=x4))
        put("SmoothL1Loss.target", paddle.nn.SmoothL1Loss(delta=0.5)(T(X), target=T(X * 0.3)))
        paddle.seed(3)
        conv = paddle.nn.Conv2D(3, 2, 3)
        put("Conv2D.input_same", np.array(np.allclose(conv(input=x4).numpy(), conv(x4).numpy())))
        put("LayerNorm.eps", np.array(paddle.nn.LayerNorm(4, eps=1e-3)._epsilon))
        seq = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 3))
        put("Layer.parameters.recurse", np.array(len(seq.parameters(recurse=False))))
        put("Layer.named_parameters.recurse", np.array(len(list(seq.named_parameters(recurse=True)))))
        ll = paddle.nn.LayerList(modules=[paddle.nn.ReLU()])
        ll.append(module=paddle.nn.Tanh())
        put("LayerList.modules", np.array(len(ll)))

        # -- clip: integer inputs with float bounds, dtypes refused
        put("clip.int_float_tensor_bounds", paddle.clip(T(I, "int32"), T([2.2], "float32"), T([8.8], "float32")))
        put("clip.int_int_bounds", paddle.clip(T(I, "int64"), 2, 8))
        put("clip.int_float_bounds", paddle.clip(T(I, "int32"), 2.5, 8))
        for dt in ("int16", "int8", "uint8", "bool"):
            err(f"err.clip.{dt}", lambda dt=dt: paddle.clip(T([1, 2], dt), 0.2, 0.8))
        # -- expand_as dtypes
        err("err.expand_as.int8", lambda: paddle.expand_as(T([1, 2], "int8"), T(np.ones((2, 2)))))
        put("expand_as.bool", paddle.expand_as(T([True, False], "bool"), T(np.ones((3, 2)))))
        # -- pad: data_format that does not fit the rank
        err("err.pad.ncl_4d", lambda: F.pad(T(np.ones((1, 2, 3, 4))), [1, 1], mode="replicate", data_format="NCL"))
        err("err.Pad1D.nchw_3d", lambda: paddle.nn.Pad1D([1, 1], mode="replicate", data_format="NCHW")(
            T(np.ones((1, 2, 4)))))
        for dt in ("bool", "int8", "int16", "uint8", "float16"):
            err(f"err.zeropad2d.{dt}", lambda dt=dt: F.zeropad2d(T(np.ones((1, 1, 2, 2)), dt), [1, 1, 1, 1]))
        put("zeropad2d.int32", F.zeropad2d(T(np.ones((1, 1, 2, 2)), "int32"), [1, 0, 2, 1]))
        # -- normal: complex means, errors
        paddle.seed(11)
        z = paddle.normal(1.0 + 1.0j, 2.0, [20000]).numpy()
        put("normal.complex.dtype", np.array(str(z.dtype)))
        put("normal.complex.stats", np.array([abs(z.mean() - (1 + 1j)) < 0.1, abs(z.real.var() - 2.0) < 0.2,
                                              abs(z.imag.var() - 2.0) < 0.2]))
        zt = paddle.normal(T(np.full([5000], 2 + 2j), "complex128"), 1.0)
        put("normal.complex_tensor.dtype", np.array(str(zt.dtype)))
        put("normal.complex_tensor.stats", np.array(abs(zt.numpy().mean() - (2 + 2j)) < 0.1))
        zs = paddle.normal(1.0 + 1.0j, T(np.full([4, 5], 0.5)))
        put("normal.complex_std_tensor.shape", np.array(zs.shape))
        err("err.normal.complex_unequal", lambda: paddle.normal(2 + 0.5j, 1.0, [2]))
        err("err.normal.complex_dtype_kw", lambda: paddle.normal(1 + 1j, dtype="float32"))
        mt = paddle.normal(T(np.zeros((3, 4)), "float64"), T(np.ones(12), "float32"))
        put("normal.mean_std_tensors", np.array([str(mt.dtype), *mt.shape]))

        # -- flatten: non-tensor input and 0-D axes
        err("err.flatten.ndarray", lambda: paddle.flatten(np.ones((2, 3))))
        err("err.flatten.0d_axis", lambda: paddle.flatten(T(1.5), start_axis=10, stop_axis=0))
        put("flatten.0d", paddle.flatten(T(1.5), 0, -1))
        # -- take_along_axis / scatter_nd_add shape rules
        tx = T([[1, 2, 3], [4, 5, 6]], "float32")
        err("err.take_along_axis.bigger_index",
            lambda: paddle.take_along_axis(tx, T([[1, 0, 0, 0]] * 3, "int32"), 0, False))
        put("take_along_axis.no_broadcast", paddle.take_along_axis(tx, T([[1, 0]], "int64"), 0, False))
        put("scatter_nd_add.empty_index",
            paddle.scatter_nd_add(T(np.ones((3, 2))), T(np.zeros((0, 1))), T([2.0, 3.0])))
        u = T(rng.uniform(size=2), "float32", grad=True)
        xe = T(np.zeros((0, 2, 3)), "float32", grad=True)
        se = paddle.scatter_nd_add(xe, T(rng.uniform(size=(2, 3))), u)
        se.sum().backward()
        put("scatter_nd_add.empty_x", se)
        put("scatter_nd_add.empty_x.grad_updates", u.grad)
        put("scatter_nd.empty_index", paddle.scatter_nd(T(np.zeros((0, 1))), T([1.0, 2.0, 3.0, 4.0]), [4]))
        err("err.scatter_nd_add.updates_shape",
            lambda: paddle.scatter_nd_add(T(np.ones((3, 4))), T([[0], [1]], "int64"), T(np.ones((2, 3)))))
        err("err.scatter_nd_add.index_depth",
            lambda: paddle.scatter_nd_add(T(np.ones((3, 4))), T([[0, 1, 2]], "int64"), T(np.ones(1))))
        put("scatter_nd_add.values", paddle.scatter_nd_add(T(np.ones((3, 4))), T([[0], [2], [0]], "int64"),
                                                           T(np.arange(12.0).reshape(3, 4))))
        # -- shapes given as numpy arrays; reductions of non-tensors
        put("expand.ndarray_shape", paddle.expand(T(np.ones((1, 3))), np.array([2, 3])))
        put("tile.ndarray_repeats", paddle.tile(T(np.ones((1, 3))), np.array([2, 1])))
        err("err.reshape.ndarray_shape", lambda: paddle.reshape(T(np.ones((1, 4))), np.array([2, 2])))
        for fn in ("max", "min", "sum", "mean", "prod"):
            err(f"err.{fn}.ndarray", lambda fn=fn: getattr(paddle, fn)(np.ones((3, 3)), axis=0))
        err("err.layer_norm.float_shape", lambda: F.layer_norm(T(np.ones((2, 3))), normalized_shape=1.0))
        put("layer_norm.int_shape", F.layer_norm(T(X), 4))
        # -- InstanceNorm input ranks
        err("err.InstanceNorm1D.4d", lambda: paddle.nn.InstanceNorm1D(1)(T(np.ones((2, 1, 3, 3)), "float32")))
        err("err.InstanceNorm2D.3d", lambda: paddle.nn.InstanceNorm2D(1)(T(np.ones((2, 1, 3)), "float32")))
        err("err.InstanceNorm3D.4d", lambda: paddle.nn.InstanceNorm3D(1)(T(np.ones((2, 1, 3, 3)), "float32")))

        paddle.enable_static()
        try:
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                x1 = paddle.static.data("x1", [-1, 4], "uint8")
                x2 = paddle.static.data("x2", [-1, 4], "int32")
                x3 = paddle.static.data("x3", [-1, 4], "bool")
                x3.stop_gradient = False
                err("err.static.expand_as.uint8", lambda: paddle.expand_as(x1, x2))
                err("err.static.expand_as.bool_grad", lambda: paddle.expand_as(x3, x2))
                err("err.static.clip.int16",
                    lambda: paddle.clip(paddle.static.data("c16", [1], "int16"), 0.2, 0.8))
                err("err.static.normal.list_mean", lambda: paddle.normal([1, 2, 3]))
                err("err.static.normal.int_mean",
                    lambda: paddle.normal(paddle.static.data("mi", [3], "int32")))
                err("err.static.normal.int_std",
                    lambda: paddle.normal(1.0, paddle.static.data("si", [3], "int32")))
                err("err.static.normal.int_shape", lambda: paddle.normal(shape=1))
                err("err.static.normal.float_shape_entry", lambda: paddle.normal(shape=[1.0]))
                err("err.static.max.ndarray", lambda: paddle.max(x=np.random.rand(3, 3), axis=0))
                err("err.static.gather_nd.index_depth",
                    lambda: paddle.gather_nd(paddle.static.data("gx", [-1, 3, 4, 5], "float32"),
                                             paddle.static.data("gi", [-1, 2, 10], "int32")))
                err("err.static.scatter_nd_add.dtype",
                    lambda: paddle.scatter_nd_add(paddle.static.data("r6", [10, 9, 8], "float64"),
                                                  paddle.static.data("i6", [5, 2], "int32"),
                                                  paddle.static.data("u6", [5, 8], "float32")))
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                img = paddle.static.data("img", [4], "int32")
                lo = paddle.static.data("lo", [1], "float32")
                hi = paddle.static.data("hi", [1], "float32")
                fetch = {"static.clip.int_float_vars": paddle.clip(img, lo, hi),
                         "static.clip.input_alias": paddle.clip(input=img, min=2, max=6)}
                # in-place APIs on Variables are functional in a static Program (PIR): x keeps its value
                xv = paddle.static.data("xv", [2, 3], "float32")
                fetch["static.inplace.clip_"] = xv.clip_(0.0, 1.0)
                fetch["static.inplace.x_after"] = xv * 1.0
                fetch["static.inplace.flatten_"] = xv.flatten_()
                fetch["static.inplace.relu_"] = paddle.nn.functional.relu_(xv * 2.0)
                exe = paddle.static.Executor(paddle.CPUPlace())
                names = sorted(fetch)
                res = exe.run(feed={"img": I, "lo": np.array([2.2], "float32"), "hi": np.array([8.8], "float32"),
                                    "xv": np.array([[-1.0, 0.5, 2.0], [0.1, -0.2, 3.0]], "float32")},
                              fetch_list=[fetch[n] for n in names])
                for n, v in zip(names, res):
                    put(n, v)
        finally:
            paddle.disable_static()
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """Paddle runs with its default flags (PIR static mode, as Paddle's own API tests run), then ours."""
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("legacy_api_more"), "legacy api (batch 2)",
                        default_flags=True)


def test_same_results_and_errors(both):
    assert_same_as_paddle(*both)
