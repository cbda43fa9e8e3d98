"""Differential test of paddle.sparse and paddle.sparse.nn against real Paddle 3.3.1 on the CPU (one
subprocess): indices / crows / cols, values, shape, dtype, to_dense, printed form, gradients of the
sparse inputs' values and of conv weights, and the exception type of calls Paddle's CPU build refuses.
"""
import textwrap

import pytest

from .diff_prelude import assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        sp = paddle.sparse
        F = sp.nn.functional
        rng = np.random.default_rng(16)
        out = {}
        h = diff_helpers(paddle, out)
        T, put, err = h.T, h.put, h.err

        def grad(name, fn, sparse_inputs, params=()):
            res = fn(*sparse_inputs)
            w = np.random.default_rng(3)
            vals = res.values() if res.is_sparse() else res
            weights = paddle.to_tensor(w.standard_normal(vals.shape).astype(str(vals.numpy().dtype)))
            if res.is_sparse_csr():   # Paddle has no gradient for a CSR tensor's values() or to_dense()
                res.backward(sp.sparse_csr_tensor(res.crows(), res.cols(), weights, res.shape))
            else:
                (vals * weights).sum().backward()
            for i, x in enumerate(sparse_inputs):
                put(f"{name}.grad{i}", x.grad)
            for i, p in enumerate(params):
                put(f"{name}.pgrad{i}", p.grad)

        A = np.array([[0., 1, 0, 2], [3, 0, 0, 0], [0, 4, 5, 0]])
        B = np.array([[1., 0, 0, 2], [0, 0, 6, 0], [0, 7, 0, 0]])
        A3 = np.array([[[0, 1.], [2, 0]], [[0, 0], [3, 4]]])
        R = rng.uniform(0.1, 0.9, (3, 4)) * (A != 0)

        def coo(a, dt="float64", grad=False, sd=None):
            x = T(a, dt).to_sparse_coo(np.ndim(a) if sd is None else sd)
            x.stop_gradient = not grad
            return x

        def csr(a, dt="float64", grad=False):
            x = T(a, dt).to_sparse_csr()
            x.stop_gradient = not grad
            return x

        # -- construction and conversions
        I = [[0, 1, 2, 0], [1, 2, 0, 1]]
        put("coo", sp.sparse_coo_tensor(I, [1., 2., 3., 4.], [3, 3]))
        put("coo.infer", sp.sparse_coo_tensor(I, [1, 2, 3, 4]))
        put("coo.dtype", sp.sparse_coo_tensor(I, [1, 2, 3, 4], [3, 4], dtype="float64"))
        put("coo.int32", sp.sparse_coo_tensor(np.array(I, "int32"), [1., 2., 3., 4.], [3, 3]))
        put("coo.dense_dims", sp.sparse_coo_tensor([[0, 2]], [[1., 2], [3, 4]], [3, 2]))
        put("coo.coalesce", sp.sparse_coo_tensor(I, [1., 2., 3., 4.], [3, 3]).coalesce())
        put("coo.coalesce_fn", sp.coalesce(sp.sparse_coo_tensor([[1, 0, 1, 0], [0, 2, 0, 1]], [1., 2, 3, 4], [2, 3])))
        put("coo.is_coalesced", sp.sparse_coo_tensor(I, [1., 2., 3., 4.], [3, 3]).is_coalesced())
        put("coo.is_coalesced2", coo(A).is_coalesced())
        put("csr", sp.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5], [3, 4]))
        put("csr.infer", sp.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5]))
        put("csr.batch", sp.sparse_csr_tensor([0, 1, 2, 0, 0, 2], [1, 0, 0, 1], [1., 2, 3, 4], [2, 2, 2]))
        put("to_coo", coo(A))
        put("to_coo.sd1", coo(A3, sd=1))
        put("to_coo.sd2", coo(A3, sd=2))
        put("to_csr", csr(A))
        put("to_csr.3d", csr(A3))
        put("coo_to_csr", coo(A3).to_sparse_csr())
        put("csr_to_coo", csr(A3).to_sparse_coo(3))
        put("dims", np.array([[t.sparse_dim(), t.dense_dim()]
                              for t in (T(A3), coo(A3, sd=1), coo(A3), csr(A3), csr(A))]))
        put("flags", np.array([coo(A).is_sparse(), coo(A).is_sparse_coo(), coo(A).is_sparse_csr(),
                               csr(A).is_sparse_csr(), T(A).is_sparse(), T(A).is_sparse_coo()]))
        put("repr.coo", np.array(repr(coo(A, "float32"))))
        put("repr.csr", np.array(str(csr(A3, "float32"))))
        put("repr.dense_dims", np.array(repr(coo(A3, "float32", sd=1))))
        put("repr.bool", np.array(repr(sp.isnan(coo(A, "float32")))))
        put("repr.csr_int", np.array(repr(sp.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, -2, 3, 40, 5]))))
        put("repr.grad", np.array(repr(sp.sparse_coo_tensor(I, [1., 2., 3., 4.], [3, 3], stop_gradient=False))))
        put("repr.int", np.array(repr(sp.sparse_coo_tensor(I, [1, 2, 30, 4], [3, 3]))))
        err("err.indices_1d", lambda: sp.sparse_coo_tensor([0, 1], [1., 2.], [2]))
        err("err.indices_float", lambda: sp.sparse_coo_tensor([[0., 1], [1, 0]], [1., 2.], [2, 2]))
        err("err.nnz", lambda: sp.sparse_coo_tensor([[0, 1], [1, 0]], [1., 2., 3.], [2, 2]))
        err("err.min_shape", lambda: sp.sparse_coo_tensor([[0, 1], [1, 5]], [1., 2.], [2, 2]))
        err("err.ndims", lambda: sp.sparse_coo_tensor([[0, 1], [1, 0]], [1., 2.], [2, 2, 2]))
        err("err.crows0", lambda: sp.sparse_csr_tensor([1, 2, 3, 5], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5], [3, 4]))
        err("err.crows_last", lambda: sp.sparse_csr_tensor([0, 2, 3, 4], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5], [3, 4]))
        err("err.crows_len", lambda: sp.sparse_csr_tensor([0, 2, 5], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5], [3, 4]))
        err("err.csr_4d", lambda: sp.sparse_csr_tensor([0, 2, 5], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5], [1, 1, 3, 4]))
        err("err.sparse_dim0", lambda: T(A).to_sparse_coo(0))
        err("err.sparse_dim3", lambda: T(A).to_sparse_coo(3))
        err("err.csr_1d", lambda: T([1., 0]).to_sparse_csr())
        err("err.dense_values", lambda: T(A).values())
        err("err.dense_nnz", lambda: T(A).nnz())
        err("err.dense_to_dense", lambda: T(A).to_dense())
        err("err.csr_indices", lambda: csr(A).indices())
        err("err.coo_crows", lambda: coo(A).crows())
        err("err.csr_is_coalesced", lambda: csr(A).is_coalesced())
        # -- unary math
        U = np.array([[0., 0.5, 0, -0.25], [0.75, 0, 0, 0], [0, -0.5, 0.3, 0]])
        for fn in ("sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square", "log1p",
                   "abs", "neg", "expm1", "deg2rad", "rad2deg", "isnan"):
            a = np.abs(U) if fn in ("sqrt",) else U
            put(f"{fn}.coo", getattr(sp, fn)(coo(a)))
            put(f"{fn}.csr", getattr(sp, fn)(csr(a, "float32")))
            if fn != "isnan":
                grad(f"{fn}.coo", getattr(sp, fn), [coo(a, grad=True)])
        put("sin.int", sp.sin(coo([[0, 1], [2, 0]], "int64")))
        err("err.abs_int", lambda: sp.abs(coo([[0, -1], [2, 0]], "int64")))
        err("err.neg_int", lambda: sp.neg(coo([[0, -1], [2, 0]], "int64")))
        put("pow", sp.pow(coo(U), 3))
        put("pow.csr", sp.pow(csr(U), 2.5 * 0 + 2))
        grad("pow", lambda x: sp.pow(x, 3), [coo(U, grad=True)])
        put("cast", sp.cast(coo(A), "int32", "float32"))
        put("cast.values", sp.cast(coo(A), value_dtype="int64"))
        put("cast.csr", sp.cast(csr(A), "int32", "float32"))
        grad("cast", lambda x: sp.cast(x, value_dtype="float32"), [coo(A, grad=True)])
        # -- binary
        for fn in ("add", "subtract", "multiply", "divide"):
            put(f"{fn}.coo", getattr(sp, fn)(coo(A), coo(B)))
            put(f"{fn}.csr", getattr(sp, fn)(csr(A), csr(B)))
            grad(f"{fn}.coo", getattr(sp, fn), [coo(A, grad=True), coo(B + 0.5 * (B == 0), grad=True)])
            grad(f"{fn}.csr", getattr(sp, fn), [csr(A, grad=True), csr(B + 0.5 * (B == 0), grad=True)])
        put("add.dense_dims", sp.add(coo(A3, sd=2), coo(A3[::-1], sd=2)))
        put("multiply.scalar", sp.multiply(coo(A), 2.5))
        put("divide.scalar", sp.divide(csr(A), 4.0))
        grad("multiply.scalar", lambda x: sp.multiply(x, 2.5), [coo(A, grad=True)])
        err("err.add_shape", lambda: sp.add(coo(A), coo(np.ones((3, 5)))))
        err("err.add_coo_csr", lambda: sp.add(coo(A), csr(B)))
        err("err.add_coo_dense", lambda: sp.add(coo(A), T(B)))
        err("err.add_dense_coo", lambda: sp.add(T(A), coo(B)))
        err("err.mul_coo_dense", lambda: sp.multiply(coo(A), T(B)))
        err("err.add_scalar", lambda: sp.add(coo(A), 2.0))
        put("mask_as", sp.mask_as(T(B), coo(A)))
        put("mask_as.csr", sp.mask_as(T(B), csr(A)))
        Bg = T(B, grad=True)
        grad("mask_as", lambda m: sp.mask_as(Bg, m), [coo(A)], [Bg])
        put("is_same_shape", np.array([sp.is_same_shape(coo(A), T(B)), sp.is_same_shape(coo(A), coo(A3))]))
        M = T(np.arange(8.).reshape(4, 2))
        err("err.matmul_coo", lambda: sp.matmul(coo(A), M))
        err("err.matmul_csr", lambda: sp.matmul(csr(A), M))
        err("err.mv", lambda: sp.mv(csr(A), T([1., 2, 3, 4])))
        err("err.addmm", lambda: sp.addmm(T(np.ones((3, 2))), csr(A), M))
        err("err.masked_matmul", lambda: sp.masked_matmul(T(np.ones((3, 2))), T(np.ones((2, 3))),
                                                          csr(np.eye(3))))
        err("err.pca", lambda: sp.pca_lowrank(coo(R)))
        # -- pattern changes
        put("transpose.coo", sp.transpose(coo(A), [1, 0]))
        put("transpose.csr", sp.transpose(csr(A), [1, 0]))
        put("transpose.3d", sp.transpose(coo(A3), [2, 0, 1]))
        put("transpose.csr3d", sp.transpose(csr(A3), [0, 2, 1]))
        grad("transpose", lambda x: sp.transpose(x, [1, 0]), [coo(R, grad=True)])
        grad("transpose.csr", lambda x: sp.transpose(x, [1, 0]), [csr(R, grad=True)])
        put("reshape.coo", sp.reshape(coo(A), [2, 6]))
        put("reshape.neg", sp.reshape(coo(A), [-1, 3]))
        put("reshape.3d", sp.reshape(coo(A), [2, 3, 2]))
        put("reshape.csr", sp.reshape(csr(A), [2, 6]))
        grad("reshape", lambda x: sp.reshape(x, [6, 2]), [coo(R, grad=True)])
        put("sum.all", sp.sum(coo(A)))
        put("sum.0", sp.sum(coo(A), 0))
        put("sum.1keep", sp.sum(coo(A), 1, keepdim=True))
        put("sum.dtype", sp.sum(coo(A, "float32"), -1, dtype="float64"))
        put("sum.list", sp.sum(coo(A3), [0, 1]))
        put("sum.dense_axis", sp.sum(coo(A3, sd=2), 2))
        put("sum.sparse_axis_dense_dims", sp.sum(coo(A3, sd=2), 1))
        put("sum.csr_all", sp.sum(csr(A)))
        put("sum.csr_last", sp.sum(csr(A), -1))
        put("sum.csr3_all", sp.sum(csr(A3)))
        err("err.sum_csr_axis0", lambda: sp.sum(csr(A), 0))
        grad("sum.0", lambda x: sp.sum(x, 0), [coo(R, grad=True)])
        put("slice.coo", sp.slice(coo(A), [0, 1], [1, 0], [3, 2]))
        put("slice.neg", sp.slice(coo(A), [1], [-3], [10]))
        put("slice.csr", sp.slice(csr(A), [0, 1], [1, 0], [3, 2]))
        put("slice.3d", sp.slice(coo(A3), [0, 2], [1, 1], [2, 2]))
        xs = coo(R, grad=True)   # Paddle's gradient keeps only the sliced entries: compare it densely
        (sp.slice(xs, [1], [1], [4]).values() * T([1., 2, 3, 4])).sum().backward()
        put("slice.grad", xs.grad.to_dense())
        # -- sparse.nn.functional activations and softmax
        put("relu", F.relu(coo(U)))
        put("relu.csr", F.relu(csr(U)))
        put("relu6", F.relu6(coo(U * 20)))
        put("leaky_relu", F.leaky_relu(coo(U), 0.1))
        grad("relu", F.relu, [coo(U, grad=True)])
        grad("leaky_relu", lambda x: F.leaky_relu(x, 0.2), [coo(U, grad=True)])
        put("softmax.csr", F.softmax(csr(A)))
        put("softmax.csr3d", F.softmax(csr(A3)))
        put("softmax.coo", F.softmax(coo(A)))
        put("softmax.coo_axis0", F.softmax(coo(A), 0))
        grad("softmax.csr", F.softmax, [csr(R, grad=True)])
        grad("softmax.coo", lambda x: F.softmax(x, 0), [coo(R, grad=True)])
        err("err.attention", lambda: F.attention(T(np.ones((1, 1, 4, 2))), T(np.ones((1, 1, 4, 2))),
                                                 T(np.ones((1, 1, 4, 2))), csr(np.ones((4, 4)))))
        # -- convolutions and pooling
        idx = np.array([[0, 0, 0, 0, 0, 1], [0, 1, 1, 2, 3, 2], [1, 0, 2, 3, 3, 2], [2, 1, 3, 0, 3, 1]])
        vals = rng.uniform(-1, 1, (6, 2))
        W = rng.uniform(-1, 1, (3, 3, 3, 2, 3))
        bias = rng.uniform(-1, 1, 3)

        def x5(grad=False, dt="float64"):
            x = sp.sparse_coo_tensor(idx, vals.astype(dt), [2, 4, 4, 4, 2])
            x.stop_gradient = not grad      # a leaf: its .grad is kept
            return x
        v = T(vals, grad=True)
        built = sp.sparse_coo_tensor(idx, v, [2, 4, 4, 4, 2], stop_gradient=False)
        grad("coo_tensor", lambda x: F.relu(x), [built], [v])
        put("conv3d", F.conv3d(x5(), T(W)))
        put("conv3d.pad1", F.conv3d(x5(), T(W), T(bias), padding=1))
        put("conv3d.s2p1", F.conv3d(x5(), T(W), stride=2, padding=1))
        put("conv3d.dil", F.conv3d(x5(), T(W[:2, :2, :2]), padding=1, dilation=2))
        put("subm3d", F.subm_conv3d(x5(), T(W), T(bias), padding=1))
        put("subm3d.nopad", F.subm_conv3d(x5(), T(W)))
        Wg, bg = T(W, grad=True), T(bias, grad=True)
        grad("conv3d", lambda x: F.conv3d(x, Wg, bg, padding=1), [x5(True)], [Wg, bg])
        Wg2 = T(W, grad=True)
        grad("subm3d", lambda x: F.subm_conv3d(x, Wg2, padding=1), [x5(True)], [Wg2])
        x4 = sp.sparse_coo_tensor(idx[:3], vals, [2, 4, 4, 2])
        W2 = rng.uniform(-1, 1, (3, 3, 2, 4))
        put("conv2d", F.conv2d(x4, T(W2), padding=1))
        put("conv2d.s2", F.conv2d(x4, T(W2), stride=2))
        put("subm2d", F.subm_conv2d(x4, T(W2), padding=1))
        put("conv3d.same", F.conv3d(x5(), T(W), padding="same"))
        put("conv3d.pairs", F.conv3d(x5(), T(W), padding=[1, 1, 0, 0, 1, 1]))
        put("subm3d.stride2", F.subm_conv3d(x5(), T(W), stride=2, padding=1))
        put("maxpool3d.ceil", F.max_pool3d(x5(), 3, 2, 0, ceil_mode=True))
        err("err.igemm", lambda: F.subm_conv3d_igemm(x5(), T(W), padding=1))
        err("err.igemm_layer", lambda: sp.nn.SubmConv3D(2, 3, 3, backend="igemm")(x5(dt="float32")))
        put("maxpool3d", F.max_pool3d(x5(), 2))
        put("maxpool3d.k3s1p1", F.max_pool3d(x5(), 3, 1, 1))
        grad("maxpool3d", lambda x: F.max_pool3d(x, 3, 1, 1), [x5(True)])
        # -- unsorted / repeated indices, and Paddle's is_coalesced() flag after each op
        UI, UV = [[1, 0, 1, 2, 0], [0, 2, 0, 1, 1]], np.array([1., 2, 3, 4, 5])
        ux = lambda: sp.sparse_coo_tensor(UI, UV, [3, 3])
        put("uncoalesced.sin", sp.sin(ux()))
        put("uncoalesced.add_same", sp.add(ux(), ux()))
        put("uncoalesced.transpose", sp.transpose(ux(), [1, 0]))
        put("uncoalesced.reshape", sp.reshape(ux(), [9]))
        put("uncoalesced.sum0", sp.sum(ux(), 0))
        put("uncoalesced.softmax", F.softmax(ux()))
        put("uncoalesced.slice", sp.slice(ux(), [0], [1], [3]))
        didx = np.array([[0, 0, 0, 0, 0], [3, 1, 1, 0, 1], [3, 0, 2, 1, 0], [3, 1, 3, 2, 1]])
        dx = sp.sparse_coo_tensor(didx, np.arange(10.).reshape(5, 2), [1, 4, 4, 4, 2])
        put("uncoalesced.subm", F.subm_conv3d(dx, T(np.ones((3, 3, 3, 2, 1)))))
        put("uncoalesced.conv", F.conv3d(dx, T(W[:2, :2, :2])))
        put("uncoalesced.pool", F.max_pool3d(dx, 2))
        flags = {"new": lambda: ux(), "coalesce": lambda: ux().coalesce(), "dense": lambda: coo(A),
                 "sin": lambda: sp.sin(coo(A)), "cast": lambda: sp.cast(coo(A), "int32"),
                 "add": lambda: sp.add(coo(A), coo(B)), "mul_scalar": lambda: sp.multiply(coo(A), 2.0),
                 "transpose": lambda: sp.transpose(coo(A), [1, 0]), "reshape": lambda: sp.reshape(coo(A), [6, 2]),
                 "slice": lambda: sp.slice(coo(A), [0], [0], [2]), "sum": lambda: sp.sum(coo(A), 0),
                 "softmax": lambda: F.softmax(coo(A)), "relu": lambda: F.relu(coo(A)),
                 "mask_as": lambda: sp.mask_as(T(B), coo(A)), "csr_to_coo": lambda: csr(A).to_sparse_coo(2),
                 "conv": lambda: F.conv3d(x5(), T(W)), "subm": lambda: F.subm_conv3d(x5(), T(W)),
                 "pool": lambda: F.max_pool3d(x5(), 2)}
        for k, f in flags.items():
            put(f"is_coalesced.{k}", np.array(f().is_coalesced()))
        paddle.set_printoptions(threshold=20)
        put("repr.summarized", np.array(repr(coo(np.arange(60.).reshape(30, 2), sd=1))))
        paddle.set_printoptions(threshold=1000)
        # -- layers
        paddle.seed(5)
        layer = sp.nn.SubmConv3D(2, 3, 3, padding=1)
        put("SubmConv3D.params", [np.array(p.shape) for p in layer.parameters()])
        put("Conv3D.repr", np.array(repr(sp.nn.Conv3D(2, 3, 3, stride=2, padding=1))))
        put("SubmConv2D.repr", np.array(repr(sp.nn.SubmConv2D(2, 3, [3, 3]))))
        put("act.repr", np.array(" ".join(repr(m) for m in (sp.nn.ReLU(), sp.nn.ReLU6(), sp.nn.Softmax(),
                                                              sp.nn.LeakyReLU(0.2), sp.nn.MaxPool3D(2)))))
        bn = sp.nn.BatchNorm(2)
        put("BatchNorm.repr", np.array(repr(bn)))
        put("BatchNorm.train", bn(x5(dt="float32")))
        bn.eval()
        put("BatchNorm.eval_after_train", bn(x5(dt="float32")))
        put("BatchNorm.stats", [bn._mean, bn._variance])
        bn2 = sp.nn.BatchNorm(2)
        bn2.eval()
        put("BatchNorm.eval_first", bn2(x5(dt="float32")))
        bn3 = sp.nn.BatchNorm(2)
        grad("BatchNorm", bn3, [x5(True, "float32")], [bn3.weight, bn3.bias])
        lr = sp.nn.LeakyReLU(0.3)
        put("LeakyReLU.layer", lr(coo(U)))
        put("MaxPool3D.layer", sp.nn.MaxPool3D(2, 1)(x5()))
        return out
'''))

PADDLE_MAIN = textwrap.dedent('''
    import json, warnings
    warnings.filterwarnings("ignore")
    paddle.set_device("cpu")
    res = compute(paddle)
    np.savez("paddle_out.npz", **{k: v for k, v in res.items()})
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
''')


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("sparse"), "sparse")


def test_same_results(both):
    ours, theirs, dtypes = both
    assert_same_as_paddle(ours, theirs, dtypes, double_tol=1e-9)
